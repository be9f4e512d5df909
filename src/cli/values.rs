//! Value parsers of the options: names from a registry, counts and real numbers.
//!
//! - `--system` (the system catalogue), `--method` (the built-in methods and the shipped method
//!   files) and `--ensemble` (the ensemble kinds) give help and shell completions their lists,
//!   from the registries themselves, so neither can fall behind one. Parsing accepts any name:
//!   the configuration refuses an unknown one with its own message, which names what is known,
//!   the closest name and how to add one (a method may also be a method file that only the run
//!   reads).
//! - Counts (`--points`, `--steps`, …) are whole numbers written with digits or in exponent
//!   form (`100000`, `1e5`); real numbers (`--dt`, `--energy`, …) may be negative. Both options
//!   take values that start with '-' (clap would read `-1e-5` as a flag), so a negative value
//!   reaches the parser, which says what the option needs instead of "unexpected argument".

use std::ffi::OsStr;

use clap::builder::{PossibleValue, StringValueParser, TypedValueParser};

use crate::ensemble::KINDS;
use crate::method::{all, Method};
use crate::system::CATALOGUE;

/// A name from a registry: any string, with the registry's names as its possible values.
#[derive(Clone, Copy)]
pub struct Names(fn() -> Vec<PossibleValue>);

impl Names {
    /// The names `list` gives (for a registry above `cli`: the binary's study presets).
    pub fn new(list: fn() -> Vec<PossibleValue>) -> Names {
        Names(list)
    }
}

impl TypedValueParser for Names {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<String, clap::Error> {
        StringValueParser::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new((self.0)().into_iter()))
    }
}

/// `--system`: every system of the catalogue, with its summary.
pub fn systems() -> Names {
    Names(|| {
        CATALOGUE
            .iter()
            .map(|s| PossibleValue::new(s.name).help(s.summary))
            .collect()
    })
}

/// `--method`: the built-in methods, then the shipped method files, each with its summary.
pub fn methods() -> Names {
    Names(|| {
        all()
            .iter()
            .map(|m| {
                // A method given as data carries its summary; `info` would analyse it first.
                let summary = match m {
                    Method::Data(d) => d.summary.as_str(),
                    _ => m.info().summary,
                };
                PossibleValue::new(m.name()).help(summary)
            })
            .collect()
    })
}

/// `--ensemble`: every ensemble kind, with what it draws.
pub fn ensembles() -> Names {
    Names(|| {
        KINDS
            .iter()
            .map(|(_, name, what)| PossibleValue::new(*name).help(*what))
            .collect()
    })
}

/// Why a count's text was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CountError {
    /// A number below zero.
    Negative,
    /// A number with a fractional part (`1.5e0`), or infinite.
    NotWhole,
    /// A whole number above the largest the option holds.
    TooLarge(u64),
    /// No number at all.
    NotANumber,
}

impl CountError {
    /// What the option needs, after its name and value: `must be positive`.
    pub fn needs(&self, min: u64) -> String {
        let form = "a whole number such as 1000 or 1e5";
        match self {
            CountError::Negative if min >= 1 => format!("must be positive ({form})"),
            CountError::Negative => format!("must not be negative ({form})"),
            CountError::NotWhole => format!("is not a whole number (give {form})"),
            CountError::TooLarge(max) => format!("is too large (at most {max})"),
            CountError::NotANumber => format!("is not a number (give {form})"),
        }
    }
}

/// A count written with digits (`100000`) or in exponent form (`1e5`, `2.5e3`): exact whole
/// numbers only, read from the decimal text (not through a float, which would take
/// `1.00000000000000001e5` for 100000), and at most `max`.
pub fn parse_count(text: &str, max: u64) -> Result<u64, CountError> {
    let t = text.trim();
    let body = t.strip_prefix('+').unwrap_or(t);
    if let Some(rest) = t.strip_prefix('-').filter(|r| !r.starts_with(['+', '-'])) {
        return match rest.parse::<f64>() {
            Ok(x) if x != 0.0 => Err(CountError::Negative),
            Ok(_) => Ok(0),
            Err(_) => Err(CountError::NotANumber),
        };
    }
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(at) => (&body[..at], &body[at + 1..]),
        None => (body, "0"),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits_only = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let (sign, magnitude) = match exponent.strip_prefix('-') {
        Some(m) => (-1, m),
        None => (1, exponent.strip_prefix('+').unwrap_or(exponent)),
    };
    if magnitude.is_empty() || !digits_only(magnitude) {
        return Err(CountError::NotANumber);
    }
    // An exponent past i64 is as good as infinite: the value is 0, too large or not whole.
    let exponent = sign * magnitude.parse::<i64>().unwrap_or(i64::MAX);
    if whole.len() + fraction.len() == 0 || !digits_only(whole) || !digits_only(fraction) {
        // "inf", "nan", "1.5x": a float's words are not counts either.
        return Err(match t.parse::<f64>() {
            Ok(_) => CountError::NotWhole,
            Err(_) => CountError::NotANumber,
        });
    }
    let digits = format!("{whole}{fraction}");
    let digits = digits.trim_start_matches('0');
    // value = digits · 10^shift
    let shift = exponent.saturating_sub(fraction.len() as i64);
    let value = if digits.is_empty() {
        Some(0)
    } else if shift < 0 {
        let cut = digits.len().saturating_sub(shift.unsigned_abs() as usize);
        let (kept, dropped) = digits.split_at(cut);
        if !dropped.bytes().all(|b| b == b'0') || digits.len() < shift.unsigned_abs() as usize {
            return Err(CountError::NotWhole);
        }
        kept.parse::<u64>().ok()
    } else {
        // Beyond 20 digits no u64 fits: refuse without building the text.
        ((digits.len() as i64).saturating_add(shift) <= 20)
            .then(|| format!("{digits}{}", "0".repeat(shift as usize)))
            .and_then(|s| s.parse::<u64>().ok())
    };
    match value {
        Some(v) if v <= max => Ok(v),
        _ => Err(CountError::TooLarge(max)),
    }
}

/// A count option of at most `max`, read by `parse_count`; `min`, the least the option
/// takes, words the refusal of a negative value (the configuration refuses the values below it).
fn count_to(min: u64, max: u64) -> impl TypedValueParser<Value = u64> {
    StringValueParser::new().try_map(move |text| parse_count(&text, max).map_err(|e| e.needs(min)))
}

/// `--steps` and the other counts of type u64.
pub fn count(min: u64) -> impl TypedValueParser<Value = u64> {
    count_to(min, u64::MAX)
}

/// `--points` and the other counts of type usize.
pub fn count_usize(min: u64) -> impl TypedValueParser<Value = usize> {
    count_to(min, usize::MAX as u64).map(|n| n as usize)
}

/// `--section-max` and the other counts of type u32.
pub fn count_u32(min: u64) -> impl TypedValueParser<Value = u32> {
    count_to(min, u32::MAX.into()).map(|n| n as u32)
}

/// `--dt`, `--energy` and the other real-valued options, negative ones included (`-1e-5`,
/// `-inf`: the configuration decides which it takes). A value that is another option
/// (`--dt --steps 5`) is refused as a missing value.
pub fn real() -> impl TypedValueParser<Value = f64> {
    StringValueParser::new().try_map(|text| {
        text.trim().parse::<f64>().map_err(|_| {
            if text.starts_with("--") {
                "is another option: the value is missing (e.g. --dt 0.01 or --dt -1e-5)"
            } else {
                "is not a number (e.g. 0.01 or -1e-5)"
            }
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_exact_whole_numbers() {
        let max = u64::MAX;
        for (text, n) in [
            ("100000", 100_000),
            ("1e5", 100_000),
            ("1E5", 100_000),
            ("2.5e3", 2500),
            ("2.50e1", 25),
            ("1000e-3", 1),
            ("+7", 7),
            ("0", 0),
            ("-0", 0),
            ("0e99999999999999999999", 0),
            ("18446744073709551615", u64::MAX),
        ] {
            assert_eq!(parse_count(text, max), Ok(n), "{text}");
        }
        for (text, e) in [
            ("-5", CountError::Negative),
            ("-1e3", CountError::Negative),
            ("1.5e0", CountError::NotWhole),
            ("1.00000000000000001e5", CountError::NotWhole),
            ("100e-3", CountError::NotWhole),
            ("inf", CountError::NotWhole),
            ("18446744073709551616", CountError::TooLarge(max)),
            ("1e20", CountError::TooLarge(max)),
            ("1e99999999999999999999", CountError::TooLarge(max)),
            ("99999999999999999999999.0", CountError::TooLarge(max)),
            ("ten", CountError::NotANumber),
            ("1e", CountError::NotANumber),
            ("+-5", CountError::NotANumber),
            ("", CountError::NotANumber),
        ] {
            assert_eq!(parse_count(text, max), Err(e), "{text}");
        }
        assert_eq!(
            parse_count("4294967296", u32::MAX.into()),
            Err(CountError::TooLarge(4294967295))
        );
        assert_eq!(
            CountError::Negative.needs(1),
            "must be positive (a whole number such as 1000 or 1e5)"
        );
        assert_eq!(
            CountError::Negative.needs(0),
            "must not be negative (a whole number such as 1000 or 1e5)"
        );
    }
}
