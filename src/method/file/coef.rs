//! Coefficients written as exact expressions (`"1/4 - sqrt(3)/6"`, `"1/(2 - 2^(1/3))"`),
//! evaluated in f64 operation by operation as written: `a - b/c` is `a - (b / c)` rounded at
//! each step, so a coefficient is the same float as the same expression written in Rust with
//! `f64` operations (`0.25 - 3f64.sqrt() / 6.0`).
//!
//! The formula compiler of `crate::expr` is not reused: it simplifies while it builds (operand
//! reordering, `x/c` as `x·(1/c)`), writes a real power as `exp(b·log a)` rather than `powf`,
//! and speaks of Hamiltonians, coordinates and `--param` in its messages. Grammar (that of
//! the formulas, loosest binding first; `-2^2` is `-(2^2)`, `2^3^2` is `2^(3^2)`):
//!
//! ```text
//! sum     = product (("+" | "-") product)*
//! product = unary (("*" | "/") unary)*
//! unary   = "-" unary | "+" unary | power
//! power   = atom ("^" unary)?
//! atom    = number | "pi" | ("sqrt" | "cbrt") "(" sum ")" | "(" sum ")"
//! ```

/// The deepest nesting of parentheses, calls, signs and powers: the evaluator recurses once a
/// level, and no coefficient needs more.
pub const MAX_DEPTH: usize = 64;

/// Why an expression has no value, and the byte offset it points at.
#[derive(Debug, Clone, PartialEq)]
pub struct ExprError {
    pub at: usize,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Tok<'a> {
    Num(&'a str),
    Name(&'a str),
    Op(u8),
    End,
}

/// The value of `src` in f64, or where and why it has none (a syntax error, an unknown name,
/// a division by zero, a negative base to a fractional power, a non-finite result).
pub fn eval(src: &str) -> Result<f64, ExprError> {
    let mut p = Parser {
        toks: tokenize(src)?,
        pos: 0,
        depth: 0,
    };
    if p.peek() == Tok::End {
        return Err(p.error_here("the expression is empty"));
    }
    let x = p.sum()?;
    match p.peek() {
        Tok::End => Ok(x),
        Tok::Op(b')') => Err(p.error_here("unbalanced ')': no '(' to close")),
        _ => Err(p.error_here("expected an operator (+ - * / ^) here; write '*' for a product")),
    }
}

fn error(at: usize, message: impl Into<String>) -> ExprError {
    ExprError {
        at,
        message: message.into(),
    }
}

fn tokenize(src: &str) -> Result<Vec<(Tok<'_>, usize)>, ExprError> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        let c = b[i];
        let tok = if c.is_ascii_whitespace() {
            i += 1;
            continue;
        } else if c.is_ascii_digit() || c == b'.' {
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
                i += 1;
            }
            i = exponent_end(b, i);
            Tok::Num(&src[start..i])
        } else if c.is_ascii_alphabetic() || c == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            Tok::Name(&src[start..i])
        } else if b"+-*/^()".contains(&c) {
            i += 1;
            Tok::Op(c)
        } else {
            let ch = src[start..].chars().next().unwrap_or('?');
            return Err(error(start, format!("unexpected character '{ch}'")));
        };
        out.push((tok, start));
    }
    out.push((Tok::End, src.len()));
    Ok(out)
}

/// The end of a number's exponent (`e-3`) starting at `i`, or `i` if none follows.
fn exponent_end(b: &[u8], i: usize) -> usize {
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        if j < b.len() && b[j].is_ascii_digit() {
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            return j;
        }
    }
    i
}

struct Parser<'a> {
    toks: Vec<(Tok<'a>, usize)>,
    pos: usize,
    depth: usize,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Tok<'a> {
        self.toks[self.pos].0
    }

    fn next(&mut self) -> (Tok<'a>, usize) {
        let t = self.toks[self.pos];
        if t.0 != Tok::End {
            self.pos += 1;
        }
        t
    }

    fn error_here(&self, message: &str) -> ExprError {
        error(self.toks[self.pos].1, message)
    }

    /// `x` if it is finite, else an error blaming the operator at `at`.
    fn finite(x: f64, at: usize, what: &str) -> Result<f64, ExprError> {
        if x.is_finite() {
            Ok(x)
        } else {
            Err(error(at, format!("{what} is {x}, not a finite number")))
        }
    }

    fn sum(&mut self) -> Result<f64, ExprError> {
        let mut acc = self.product()?;
        while let Tok::Op(c @ (b'+' | b'-')) = self.peek() {
            let at = self.next().1;
            let rhs = self.product()?;
            acc = if c == b'+' { acc + rhs } else { acc - rhs };
            acc = Self::finite(acc, at, "this sum")?;
        }
        Ok(acc)
    }

    fn product(&mut self) -> Result<f64, ExprError> {
        let mut acc = self.unary()?;
        while let Tok::Op(c @ (b'*' | b'/')) = self.peek() {
            let at = self.next().1;
            if self.peek() == Tok::Op(b'*') {
                return Err(self.error_here("'**' is not an operator: write '^' for a power"));
            }
            let rhs = self.unary()?;
            if c == b'/' && rhs == 0.0 {
                return Err(error(at, "division by zero"));
            }
            acc = if c == b'*' { acc * rhs } else { acc / rhs };
            acc = Self::finite(acc, at, "this product")?;
        }
        Ok(acc)
    }

    /// Every nested construct recurses through here, so `depth` is the nesting depth.
    fn unary(&mut self) -> Result<f64, ExprError> {
        if self.depth == MAX_DEPTH {
            return Err(self.error_here(&format!(
                "the expression nests deeper than {MAX_DEPTH} levels here; write it with less nesting"
            )));
        }
        self.depth += 1;
        let x = match self.peek() {
            Tok::Op(b'-') => {
                self.next();
                self.unary().map(|x| -x)
            }
            Tok::Op(b'+') => {
                self.next();
                self.unary()
            }
            _ => self.power(),
        };
        self.depth -= 1;
        x
    }

    fn power(&mut self) -> Result<f64, ExprError> {
        let base = self.atom()?;
        if self.peek() != Tok::Op(b'^') {
            return Ok(base);
        }
        let at = self.next().1;
        let exponent = self.unary()?;
        if base < 0.0 && exponent.fract() != 0.0 {
            return Err(error(
                at,
                format!(
                    "a negative base ({base}) to the fractional power {exponent} has no real value; for a real root of a negative number write -cbrt(x) or -(x^(1/3))"
                ),
            ));
        }
        if base == 0.0 && exponent < 0.0 {
            return Err(error(at, "zero to a negative power"));
        }
        Self::finite(base.powf(exponent), at, "this power")
    }

    fn atom(&mut self) -> Result<f64, ExprError> {
        let (tok, at) = self.next();
        match tok {
            Tok::Num(text) => number(text, at),
            Tok::Name(name) => self.name(name, at),
            Tok::Op(b'(') => {
                let x = self.sum()?;
                self.close(at)?;
                Ok(x)
            }
            Tok::End => Err(self.error_here(
                "the expression ends where a value is expected (a trailing operator?)",
            )),
            Tok::Op(c) => Err(error(
                at,
                format!("'{}' where a value is expected", c as char),
            )),
        }
    }

    /// Expect the ')' closing the '(' at `open`.
    fn close(&mut self, open: usize) -> Result<(), ExprError> {
        match self.peek() {
            Tok::Op(b')') => {
                self.next();
                Ok(())
            }
            Tok::End => Err(error(open, "unbalanced '(': it is never closed")),
            _ => Err(self.error_here("expected ')' or an operator here")),
        }
    }

    /// `pi`, or a call of `sqrt` or `cbrt`.
    fn name(&mut self, name: &str, at: usize) -> Result<f64, ExprError> {
        let f: fn(f64) -> f64 = match name {
            "pi" => return Ok(std::f64::consts::PI),
            "sqrt" => f64::sqrt,
            "cbrt" => f64::cbrt,
            _ => {
                return Err(error(
                    at,
                    format!("unknown name '{name}' (the names: pi, sqrt(x), cbrt(x))"),
                ))
            }
        };
        let Tok::Op(b'(') = self.peek() else {
            return Err(error(
                at,
                format!("'{name}' is a function: write {name}(...)"),
            ));
        };
        let open = self.next().1;
        let x = self.sum()?;
        self.close(open)?;
        if name == "sqrt" && x < 0.0 {
            return Err(error(
                at,
                format!("the square root of a negative number ({x})"),
            ));
        }
        Ok(f(x))
    }
}

/// The number `text` at `at`: finite, and not a non-zero one that rounds to 0.
fn number(text: &str, at: usize) -> Result<f64, ExprError> {
    let x: f64 = text
        .parse()
        .map_err(|_| error(at, format!("'{text}' is not a number")))?;
    if x.is_infinite() {
        return Err(error(
            at,
            format!("'{text}' is too large for a number (the largest is about 1.8e308)"),
        ));
    }
    let mantissa = text.split(['e', 'E']).next().unwrap_or(text);
    if x == 0.0 && mantissa.bytes().any(|b| (b'1'..=b'9').contains(&b)) {
        return Err(error(
            at,
            format!("'{text}' is too small for a number: it rounds to 0"),
        ));
    }
    Ok(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evaluates_as_written() {
        let s3 = 3f64.sqrt();
        let c = 2f64.powf(1.0 / 3.0);
        let cases: &[(&str, f64)] = &[
            ("1/4 - sqrt(3)/6", 0.25 - s3 / 6.0),
            ("1/(2 - 2^(1/3))", 1.0 / (2.0 - c)),
            ("-2^(1/3)/(2 - 2^(1/3))", -c / (2.0 - c)),
            ("2^3^2", 512.0),
            ("-2^2", -4.0),
            ("2^-1", 0.5),
            ("1 - 2 - 3", -4.0),
            ("8 / 4 / 2", 1.0),
            ("cbrt(-8)", -2.0),
            ("pi/4", std::f64::consts::PI / 4.0),
            (" 1.5E+2 ", 150.0),
            (".5e-1", 0.05),
            ("+3", 3.0),
        ];
        for &(src, want) in cases {
            assert_eq!(eval(src).unwrap().to_bits(), want.to_bits(), "{src}");
        }
    }

    #[test]
    fn errors_point_at_the_fault() {
        let cases: &[(&str, usize, &str)] = &[
            ("1/4 - sqr(3)", 6, "unknown name 'sqr'"),
            ("(-8)^(1/3)", 4, "negative base"),
            ("1/0", 1, "division by zero"),
            ("0^-1", 1, "zero to a negative power"),
            ("sqrt(-1)", 0, "square root of a negative"),
            ("10^400", 2, "not a finite number"),
            ("1e999", 0, "too large"),
            ("1e-999", 0, "rounds to 0"),
            ("1.2.3", 0, "not a number"),
            ("(1 + 2", 0, "never closed"),
            ("1 + 2)", 5, "unbalanced ')'"),
            ("2 3", 2, "expected an operator"),
            ("2**3", 2, "'**'"),
            ("1 +", 3, "ends where a value"),
            ("", 0, "empty"),
            ("1 # 2", 2, "unexpected character '#'"),
            ("sqrt", 0, "is a function"),
            ("nan", 0, "unknown name 'nan'"),
        ];
        for &(src, at, what) in cases {
            let e = eval(src).unwrap_err();
            assert_eq!(e.at, at, "{src}: {e:?}");
            assert!(e.message.contains(what), "{src}: {e:?}");
        }
        let deep = format!(
            "{}1{}",
            "(".repeat(MAX_DEPTH + 1),
            ")".repeat(MAX_DEPTH + 1)
        );
        assert!(eval(&deep).unwrap_err().message.contains("nests deeper"));
        let fine = format!(
            "{}1{}",
            "(".repeat(MAX_DEPTH - 1),
            ")".repeat(MAX_DEPTH - 1)
        );
        assert_eq!(eval(&fine).unwrap(), 1.0);
    }
}
