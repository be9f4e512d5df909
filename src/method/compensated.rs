//! The update of a state vector, x ← base + c·g, and its compensated form (`--compensated`;
//! Kahan's summation as GNI VIII.5 applies it to integrators, after Møller). The kernel's
//! form: `Kernel::update` (`method::wgsl`).
//!
//! A long run adds millions of small increments c·g to q and p; each sum rounds away the
//! increment's low bits, and that rounding error, not the method's, ends up dominating the
//! energy error and the phase-space area of a long f32 run. Compensated, every component of q
//! and p carries e, what its last sum lost (`State::eq` / `ep`), and each update is
//!
//! ```text
//! δ = c·g + e;   x = base + δ;   e = (base − x) + δ
//! ```
//!
//! (base − x) + δ is exact when |δ| is small against |base|, so x + e holds the sum to about
//! twice the working precision and the loss no longer accumulates. Methods write every
//! update of q and p through `Block::update`, always with a base that owns the current error:
//! the state vector itself, or a stage value (q0 or p0) made from it by an update. Implicit
//! stages iterate plainly and then repeat their last sweep's sum compensated
//! (`Ops::finish_stage`). Runge–Kutta stage values inside a step are not state updates and
//! stay plain; only the step's final sum is compensated.
//!
//! Exact under the compiler: Rust neither contracts a·b + c into an FMA nor reassociates float
//! arithmetic, so the CPU engine computes what is written. The kernel guards (base − x)
//! against the reassociation a shader compiler may do (`Kernel::update`).

use super::block::Block;
use super::ops::Vector;
use crate::float::Real;

impl<T: Real> Block<T> {
    /// dst ← base + c·g for every component (dst may be base: an in-place update). `dst` is q,
    /// p, q0 or p0, and `base` owns the current carried error of its kind (see the module
    /// documentation); compensated when the block is. Inlined, so that the vectors' lookups
    /// and the choice of loop fold where the vectors are constants.
    #[inline(always)]
    pub fn update(&mut self, dst: Vector, base: Vector, c: T, g: Vector) {
        debug_assert!(dst.is_q() == base.is_q() && g != dst);
        // Take dst out of the block so the other vectors can be borrowed beside it (a Vec move).
        let mut x = std::mem::take(self.vector_mut(dst));
        let mut e = if !self.compensated {
            Vec::new()
        } else if dst.is_q() {
            std::mem::take(&mut self.eq)
        } else {
            std::mem::take(&mut self.ep)
        };
        let g = self.vector(g);
        let base = (base != dst).then(|| self.vector(base));
        self.level.run(
            #[inline(always)]
            || match (base, e.is_empty()) {
                (None, true) => {
                    for (xi, &gi) in x.iter_mut().zip(g) {
                        *xi += c * gi;
                    }
                }
                (Some(b), true) => {
                    for ((xi, &bi), &gi) in x.iter_mut().zip(b).zip(g) {
                        *xi = bi + c * gi;
                    }
                }
                (None, false) => {
                    for ((xi, ei), &gi) in x.iter_mut().zip(e.iter_mut()).zip(g) {
                        (*xi, *ei) = compensated_sum(*xi, c * gi, *ei);
                    }
                }
                (Some(b), false) => {
                    for (((xi, ei), &bi), &gi) in x.iter_mut().zip(e.iter_mut()).zip(b).zip(g) {
                        (*xi, *ei) = compensated_sum(bi, c * gi, *ei);
                    }
                }
            },
        );
        *self.vector_mut(dst) = x;
        if self.compensated {
            if dst.is_q() {
                self.eq = e;
            } else {
                self.ep = e;
            }
        }
    }
}

/// Defined beside `Real` so that the discrete maps (`system`), which sum their own velocity
/// increments, share it without importing `method`.
pub use crate::float::compensated_sum;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compensated_sum_keeps_what_plain_sum_loses() {
        // 1 + 10⁶ increments of 1e-8 in f32: the plain sum never moves (1e-8 < ulp(1)/2), the
        // compensated one lands within an ulp of 1.01.
        let (mut plain, mut x, mut e) = (1.0f32, 1.0f32, 0.0f32);
        for _ in 0..1_000_000 {
            plain += 1e-8;
            (x, e) = compensated_sum(x, 1e-8, e);
        }
        assert_eq!(plain, 1.0);
        assert!((x as f64 + e as f64 - 1.01).abs() < 1e-7, "{x} {e}");
    }

    #[test]
    fn update_matches_the_plain_formula_when_not_compensated() {
        let mut b = Block::<f64>::new(4, 1, 0);
        b.q = vec![1.0, 2.0, 3.0, 4.0];
        b.dp = vec![0.5, 0.25, 0.125, 1.0];
        b.update(Vector::Q0, Vector::Q, 0.1, Vector::Dp);
        b.update(Vector::Q, Vector::Q, 0.1, Vector::Dp);
        for i in 0..4 {
            assert_eq!(b.q0[i], [1.0, 2.0, 3.0, 4.0][i] + 0.1 * b.dp[i]);
            assert_eq!(b.q[i], b.q0[i]);
        }
    }
}
