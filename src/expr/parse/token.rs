//! The formula's tokens: numbers (finite, and not a non-zero one that rounds to 0), names and
//! operators, each with its byte offset for the caret of an error.

use crate::error::{Error, Result};
use crate::input_err;

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tok {
    Num(f64),
    Name(String),
    Op(char),
    End,
}

/// A token and the byte offset of its first character.
#[derive(Debug, Clone)]
pub(super) struct Token {
    pub(super) tok: Tok,
    pub(super) at: usize,
}

/// An input error pointing at byte offset `at` of `src`.
pub(crate) fn error_at(src: &str, at: usize, message: &str) -> Error {
    input_err!(
        "invalid Hamiltonian: {message} (column {})\n  {src}\n  {}^",
        at + 1,
        " ".repeat(at)
    )
}

pub(super) fn tokenize(src: &str) -> Result<Vec<Token>> {
    let bytes = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let start = i;
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let tok = if c.is_ascii_digit() || c == b'.' {
            i = number_end(bytes, i);
            Tok::Num(number(src, start, i)?)
        } else if c.is_ascii_alphabetic() || c == b'_' {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            Tok::Name(src[start..i].to_string())
        } else if b"+-*/^(),<>=".contains(&c) {
            i += 1;
            Tok::Op(c as char)
        } else {
            let ch = src[start..].chars().next().unwrap_or('?');
            return Err(error_at(
                src,
                start,
                &format!("unexpected character '{ch}'"),
            ));
        };
        out.push(Token { tok, at: start });
    }
    out.push(Token {
        tok: Tok::End,
        at: src.len(),
    });
    Ok(out)
}

/// The number `src[start..end]`: a finite f64, and not a non-zero one that rounds to 0.
fn number(src: &str, start: usize, end: usize) -> Result<f64> {
    let text = &src[start..end];
    let x: f64 = text
        .parse()
        .map_err(|_| error_at(src, start, &format!("'{text}' is not a number")))?;
    if x.is_infinite() {
        return Err(error_at(
            src,
            start,
            &format!("'{text}' is too large for a number (the largest is about 1.8e308)"),
        ));
    }
    let mantissa = text.split(['e', 'E']).next().unwrap_or(text);
    if x == 0.0 && mantissa.bytes().any(|b| (b'1'..=b'9').contains(&b)) {
        return Err(error_at(
            src,
            start,
            &format!("'{text}' is too small for a number: it rounds to 0 (the smallest is about 4.9e-324)"),
        ));
    }
    Ok(x)
}

/// The end of the number starting at `i`: digits, a decimal point, an exponent.
fn number_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
        i += 1;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        if j < b.len() && b[j].is_ascii_digit() {
            i = j;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
        }
    }
    i
}
