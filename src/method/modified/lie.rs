//! The logarithm of a product of exponentials exp(c₁ h X₁) ⋯ exp(c_m h X_m), each X_i one of
//! two letters, in the free associative algebra on {A, B} truncated at degree `MAX_DEGREE`
//! (the Baker–Campbell–Hausdorff series of any number of factors, computed numerically), and
//! each homogeneous part written as right-normed brackets by the Dynkin–Specht–Wever lemma:
//! a Lie element L of degree n equals (1/n) Σ_w L_w [w₁, [w₂, …, [w_{n−1}, w_n]…]].

use crate::method::analysis::{decide, Zero};

/// The highest degree kept: the brackets of eight letters (enough for the second correction
/// term of a sixth-order method).
pub const MAX_DEGREE: usize = 8;

/// The two letters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Letter {
    /// Bit 0 of a word.
    A,
    /// Bit 1 of a word.
    B,
}

/// A word of `len` letters, the first letter in the highest bit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Word {
    pub len: usize,
    pub bits: u32,
}

impl Word {
    /// Its i-th letter (0-based, from the left).
    pub fn letter(self, i: usize) -> Letter {
        if (self.bits >> (self.len - 1 - i)) & 1 == 1 {
            Letter::B
        } else {
            Letter::A
        }
    }

    /// The word without its first letter.
    pub fn tail(self) -> Word {
        Word {
            len: self.len - 1,
            bits: self.bits & ((1 << (self.len - 1)) - 1),
        }
    }
}

/// Where the words of length n start in a series' coefficients.
fn offset(n: usize) -> usize {
    (1 << n) - 1
}

/// A truncated series: one coefficient per word of length 0..=MAX_DEGREE.
#[derive(Debug, Clone)]
struct Series(Vec<f64>);

impl Series {
    fn zero() -> Self {
        Series(vec![0.0; offset(MAX_DEGREE + 1)])
    }

    /// exp(x · letter) = Σ x^k letter^k / k!.
    fn exp(x: f64, letter: Letter) -> Self {
        let mut s = Series::zero();
        let mut term = 1.0;
        for k in 0..=MAX_DEGREE {
            let bits = match letter {
                Letter::A => 0,
                Letter::B => (1 << k) - 1,
            };
            s.0[offset(k) + bits] = term;
            term *= x / (k + 1) as f64;
        }
        s
    }

    fn mul(&self, other: &Series) -> Series {
        let mut out = Series::zero();
        for la in 0..=MAX_DEGREE {
            for wa in 0..1usize << la {
                let a = self.0[offset(la) + wa];
                if a == 0.0 {
                    continue;
                }
                for lb in 0..=MAX_DEGREE - la {
                    let to = offset(la + lb) + (wa << lb);
                    for wb in 0..1usize << lb {
                        out.0[to + wb] += a * other.0[offset(lb) + wb];
                    }
                }
            }
        }
        out
    }

    /// log of a series whose constant term is 1: Σ_k (−1)^{k+1} Y^k / k with Y = self − 1
    /// (Y^k starts at degree k, so k ≤ MAX_DEGREE terms are exact to the truncation); with
    /// `sizes`, Σ_k Y^k / k, which of a series of the terms' absolute values is the size of the
    /// terms each coefficient of the logarithm sums.
    fn log(&self, sizes: bool) -> Series {
        let mut y = self.clone();
        y.0[0] = 0.0;
        let mut out = Series::zero();
        let mut power = y.clone();
        for k in 1..=MAX_DEGREE {
            let sign = if k % 2 == 1 || sizes { 1.0 } else { -1.0 };
            for (o, x) in out.0.iter_mut().zip(&power.0) {
                *o += sign * x / k as f64;
            }
            power = power.mul(&y);
        }
        out
    }
}

/// One word of the logarithm: its coefficient and the size of the terms that coefficient sums
/// (the same products and logarithm over the factors' absolute values), against which
/// `order::decide` tells rounding from a term.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Coefficient {
    pub word: Word,
    pub value: f64,
    pub size: f64,
}

impl Coefficient {
    /// Whether the coefficient is zero (`order::decide` against its terms' size).
    pub fn zero(&self) -> Zero {
        decide(self.value, self.size)
    }
}

/// Whether a degree's terms vanish: the least certain verdict that one of them is zero.
pub fn degree_zero(words: &[Coefficient]) -> Zero {
    words
        .iter()
        .map(Coefficient::zero)
        .max()
        .unwrap_or(Zero::Holds)
}

/// log(exp(c₁ X₁) ⋯ exp(c_m X_m)) (the factors in the order given) as right-normed brackets:
/// for each degree n = 1..=MAX_DEGREE, the words w with their coefficients L_w / n, so that
/// the degree-n part is Σ coefficient · [w₁, [w₂, …, w_n]]. Words whose bracket is zero (the
/// last two letters equal, for n ≥ 2) are left out; those zero to rounding are kept, to be
/// told apart by `Coefficient::zero`.
pub fn log_brackets(factors: &[(f64, Letter)]) -> Vec<Vec<Coefficient>> {
    let product = |abs: bool| {
        factors
            .iter()
            .fold(Series::exp(0.0, Letter::A), |acc, &(c, x)| {
                acc.mul(&Series::exp(if abs { c.abs() } else { c }, x))
            })
    };
    let (log, sizes) = (product(false).log(false), product(true).log(true));
    (1..=MAX_DEGREE)
        .map(|n| {
            (0..1u32 << n)
                .map(|bits| Word { len: n, bits })
                .filter(|w| n == 1 || w.letter(n - 2) != w.letter(n - 1))
                .map(|word| {
                    let at = offset(n) + word.bits as usize;
                    Coefficient {
                        word,
                        value: log.0[at] / n as f64,
                        size: sizes.0[at] / n as f64,
                    }
                })
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(s: &str) -> Word {
        Word {
            len: s.len(),
            bits: s.chars().fold(0, |b, c| (b << 1) | u32::from(c == 'B')),
        }
    }

    fn coefficient(terms: &[Coefficient], w: &str) -> f64 {
        terms
            .iter()
            .find(|c| c.word == word(w))
            .map_or(0.0, |c| c.value)
    }

    /// BCH of two factors: log(e^A e^B) = A + B + [A,B]/2 + ([A,[A,B]] + [B,[B,A]])/12 + …;
    /// in right-normed Dynkin form the degree-2 part is ([A,B] − [B,A])/4 = [A,B]/2.
    #[test]
    fn two_factors_give_the_bch_series() {
        let l = log_brackets(&[(1.0, Letter::A), (1.0, Letter::B)]);
        assert_eq!(coefficient(&l[0], "A"), 1.0);
        assert_eq!(coefficient(&l[0], "B"), 1.0);
        let bracket2 = coefficient(&l[1], "AB") - coefficient(&l[1], "BA");
        assert!((bracket2 - 0.5).abs() < 1e-15);
        // [A,[B,A]] = −[A,[A,B]] and [B,[A,B]] = −[B,[B,A]]: the two brackets of degree 3.
        let aab = coefficient(&l[2], "AAB") - coefficient(&l[2], "ABA");
        let bba = coefficient(&l[2], "BBA") - coefficient(&l[2], "BAB");
        assert!((aab - 1.0 / 12.0).abs() < 1e-15, "{aab}");
        assert!((bba - 1.0 / 12.0).abs() < 1e-15, "{bba}");
    }

    /// The symmetric (Strang) product has no even-degree terms; a product of an exponential
    /// and its inverse is 0.
    #[test]
    fn symmetric_products_have_odd_terms_only() {
        let l = log_brackets(&[(0.5, Letter::A), (1.0, Letter::B), (0.5, Letter::A)]);
        for n in [2, 4, 6, 8] {
            assert_eq!(
                degree_zero(&l[n - 1]),
                Zero::Holds,
                "degree {n}: {:?}",
                l[n - 1]
            );
        }
        assert_eq!(degree_zero(&l[2]), Zero::Fails);
        assert_eq!(degree_zero(&l[4]), Zero::Fails);
        let l = log_brackets(&[(0.7, Letter::B), (-0.7, Letter::B)]);
        assert!(l.iter().all(|d| degree_zero(d) == Zero::Holds));
    }
}
