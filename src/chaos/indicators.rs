//! Which indicators a run writes (`--chaos megno,lyapunov`), as data.

use super::Deviation;
use crate::error::{Field, Result};
use crate::invalid;

/// A point counts as chaotic in `chaotic_fraction` when its ⟨Y⟩ exceeds this: regular orbits
/// tend to 2 (and stable fixed points to 0), chaotic ones grow like λt/2, so 4 separates them
/// once λt ≳ 8 (Cincotta, Giordano & Simó 2003 use thresholds near 2 for long runs; 4 leaves
/// room for the slow approach of regular orbits in short ones).
pub const CHAOTIC_ABOVE: f64 = 4.0;

/// One indicator of `--chaos`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Indicator {
    /// MEGNO ⟨Y⟩.
    Megno,
    /// The maximal finite-time Lyapunov exponent.
    Lyapunov,
}

impl Indicator {
    pub const ALL: [Indicator; 2] = [Indicator::Megno, Indicator::Lyapunov];

    pub fn name(self) -> &'static str {
        match self {
            Indicator::Megno => "megno",
            Indicator::Lyapunov => "lyapunov",
        }
    }
}

/// The indicators a run computes, in the fixed order megno, lyapunov (the columns of
/// `chaos/step_<k>.npy`), and the deviation vector they follow.
#[derive(Debug, Clone, PartialEq)]
pub struct Chaos {
    pub indicators: Vec<Indicator>,
    pub deviation: Deviation,
}

impl Chaos {
    /// `--chaos LIST`: names separated by commas, each known, at least one; the deviation
    /// vector `deviation`.
    pub fn parse(text: &str, deviation: Deviation) -> Result<Chaos> {
        let mut indicators = Vec::new();
        for word in text.split(',').map(str::trim) {
            let Some(i) = Indicator::ALL.into_iter().find(|i| i.name() == word) else {
                return Err(invalid!(Field::Chaos;
                    Field::Chaos.is(text),
                    format!(
                        ": unknown indicator '{word}'; choose from megno, lyapunov (separated by commas)"
                    )
                ));
            };
            indicators.push(i);
        }
        indicators.sort();
        indicators.dedup();
        Ok(Chaos {
            indicators,
            deviation,
        })
    }

    pub fn has(&self, i: Indicator) -> bool {
        self.indicators.contains(&i)
    }

    /// How config.toml records it.
    pub fn text(&self) -> String {
        let names: Vec<&str> = self.indicators.iter().map(|i| i.name()).collect();
        names.join(",")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_parse_in_a_fixed_order_and_unknown_names_are_refused() {
        let deviation = Deviation::resolve(None, None, 1, None).unwrap();
        let parse = |text: &str| Chaos::parse(text, deviation.clone());
        let c = parse("lyapunov, megno,megno").unwrap();
        assert_eq!(c.indicators, vec![Indicator::Megno, Indicator::Lyapunov]);
        assert_eq!(c.text(), "megno,lyapunov");
        let e = parse("megno,fli").unwrap_err().to_string();
        assert!(
            e.contains("unknown indicator 'fli'") && e.contains("megno, lyapunov"),
            "{e}"
        );
        assert!(parse("").is_err());
    }
}
