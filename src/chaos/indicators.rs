//! Which indicators a run writes (`--chaos megno,lyapunov,fli,sali,gali3`), as data, and
//! what they need of the state: how many deviation vectors and which accumulators (`Layout`).

use super::Deviation;
use crate::error::{Field, Result};
use crate::invalid;

/// A point counts as chaotic in `chaotic_fraction` when its ⟨Y⟩ exceeds this: regular orbits
/// tend to 2 (and stable fixed points to 0), chaotic ones grow like λt/2, so 4 separates them
/// once λt ≳ 8 (Cincotta, Giordano & Simó 2003 use thresholds near 2 for long runs; 4 leaves
/// room for the slow approach of regular orbits in short ones).
pub const CHAOTIC_ABOVE: f64 = 4.0;

/// SALI and GALI_k count a point as chaotic below this (Skokos, "Alignment indices: a new,
/// simple method for determining the ordered or chaotic nature of orbits": SALI falls
/// exponentially to the rounding level on chaotic orbits and stays of order 1, or falls by a
/// power of t, on regular ones; 10⁻⁸ is the threshold used there).
pub const ALIGNED_BELOW: f64 = 1e-8;

/// FLI counts a point as chaotic above `FLI_FACTOR` · ln(1 + t): on a torus |δ| grows
/// linearly, so FLI ≈ ln t + O(1), on a chaotic orbit like λt (Froeschlé, Lega and Gonczi,
/// "Fast Lyapunov indicators. Application to asteroidal motion"); twice the regular growth
/// separates them once λt exceeds it (t in the system's time units).
pub const FLI_FACTOR: f64 = 2.0;

/// One indicator of `--chaos`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Indicator {
    /// MEGNO ⟨Y⟩.
    Megno,
    /// The maximal finite-time Lyapunov exponent.
    Lyapunov,
    /// The fast Lyapunov indicator: the largest ln|δ| so far.
    Fli,
    /// The smaller alignment index of two deviation vectors, now and its least so far.
    Sali,
    /// The generalized alignment index of k deviation vectors (2 ≤ k ≤ `GALI_MAX`).
    Gali(usize),
}

impl Indicator {
    pub const ALL: [Indicator; 7] = [
        Indicator::Megno,
        Indicator::Lyapunov,
        Indicator::Fli,
        Indicator::Sali,
        Indicator::Gali(2),
        Indicator::Gali(3),
        Indicator::Gali(4),
    ];

    pub fn name(self) -> &'static str {
        match self {
            Indicator::Megno => "megno",
            Indicator::Lyapunov => "lyapunov",
            Indicator::Fli => "fli",
            Indicator::Sali => "sali",
            Indicator::Gali(2) => "gali2",
            Indicator::Gali(3) => "gali3",
            Indicator::Gali(_) => "gali4",
        }
    }

    /// Its columns in `chaos/step_<k>.npy`: one per indicator, two for SALI (now, least so far).
    pub fn columns(self) -> &'static [&'static str] {
        match self {
            Indicator::Sali => &["sali", "sali_min"],
            Indicator::Megno => &["megno"],
            Indicator::Lyapunov => &["lyapunov"],
            Indicator::Fli => &["fli"],
            Indicator::Gali(2) => &["gali2"],
            Indicator::Gali(3) => &["gali3"],
            Indicator::Gali(_) => &["gali4"],
        }
    }

    /// Deviation vectors it needs.
    pub fn vectors(self) -> usize {
        match self {
            Indicator::Sali => 2,
            Indicator::Gali(k) => k,
            _ => 1,
        }
    }
}

/// What the indicators need of the state: `vectors` deviation vectors per point (the state's
/// tangent columns), the five accumulators of MEGNO and λ (`WIDTH`), then where asked the
/// largest ln|δ| (`fli`) and SALI with its least value so far (`sali`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub vectors: usize,
    pub fli: bool,
    pub sali: bool,
}

impl Layout {
    /// MEGNO and λ: one vector, the five accumulators.
    pub const PLAIN: Layout = Layout {
        vectors: 1,
        fli: false,
        sali: false,
    };

    /// Accumulators per point (`State::chaos`'s columns).
    pub fn width(&self) -> usize {
        super::WIDTH + usize::from(self.fli) + 2 * usize::from(self.sali)
    }

    /// The word of the largest ln|δ|.
    pub fn fli_word(&self) -> Option<usize> {
        self.fli.then_some(super::WIDTH)
    }

    /// The word of SALI now; its least value so far is the next.
    pub fn sali_word(&self) -> Option<usize> {
        self.sali.then_some(super::WIDTH + usize::from(self.fli))
    }
}

/// The indicators a run computes, in the fixed order of `Indicator::ALL` (the columns of
/// `chaos/step_<k>.npy`: `columns`), and the deviation vectors they follow.
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
                        ": unknown indicator '{word}'; choose from megno, lyapunov, fli, sali, gali2, gali3, gali4 (separated by commas)"
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

    /// The columns of `chaos/step_<k>.npy`, in order.
    pub fn columns(&self) -> Vec<&'static str> {
        self.indicators
            .iter()
            .flat_map(|i| i.columns().iter().copied())
            .collect()
    }

    /// The deviation vectors and accumulators the indicators need.
    pub fn layout(&self) -> Layout {
        Layout {
            vectors: self
                .indicators
                .iter()
                .map(|i| i.vectors())
                .max()
                .unwrap_or(1),
            fli: self.has(Indicator::Fli),
            sali: self.has(Indicator::Sali),
        }
    }

    /// The k of the GALI_k asked for, smallest first.
    pub fn gali(&self) -> Vec<usize> {
        self.indicators
            .iter()
            .filter_map(|i| match i {
                Indicator::Gali(k) => Some(*k),
                _ => None,
            })
            .collect()
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
        assert_eq!(c.layout(), Layout::PLAIN);
        let e = parse("megno,fly").unwrap_err().to_string();
        assert!(
            e.contains("unknown indicator 'fly'") && e.contains("megno, lyapunov, fli, sali"),
            "{e}"
        );
        assert!(parse("").is_err());
        let c = parse("gali4,sali,fli,gali2").unwrap();
        assert_eq!(c.text(), "fli,sali,gali2,gali4");
        assert_eq!(c.columns(), ["fli", "sali", "sali_min", "gali2", "gali4"]);
        assert_eq!(c.gali(), [2, 4]);
        let l = c.layout();
        assert_eq!((l.vectors, l.width()), (4, super::super::WIDTH + 3));
        assert_eq!((l.fli_word(), l.sali_word()), (Some(5), Some(6)));
    }
}
