//! Implicit midpoint rule y+ = y + h f((y + y+)/2), symplectic and symmetric, order 2, for any H.
//! Solved for the midpoint m = y + (h/2) f(m) by fixed-point iteration to the tolerance
//! (`method::implicit`, always iterated: the rule is implicit even for separable H), then
//! y+ = 2m − y. WGSL mirror: `wgsl` below.

use super::wgsl::Kernel;
use super::{Block, MethodInfo, Scheme, Solver, Stage, Vector};
use crate::float::Real;
use crate::system::System;

pub const INFO: MethodInfo = MethodInfo {
    name: "implicit-midpoint",
    order: 2,
    symplectic: true,
    summary:
        "implicit midpoint rule (fixed-point iteration per point, non-converged points counted)",
};

/// The method's descriptor, listed in `methods!` (`method/mod.rs`).
pub struct ImplicitMidpoint;

impl Scheme for ImplicitMidpoint {
    fn info(&self) -> MethodInfo {
        INFO
    }

    #[inline]
    fn step<T: Real>(&self, system: &System, b: &mut Block<T>, h: T) {
        let half_h = T::HALF * h;
        b.q0.copy_from_slice(&b.q);
        b.p0.copy_from_slice(&b.p);
        b.solve(system, Stage::Midpoint, half_h, None);
        if b.compensated {
            // y1 = y0 + h f(m), equal to 2m − y0 at the fixed point m = y0 + (h/2) f(m), as an
            // update that carries its rounding error; f evaluated again at the solution m
            // (points leave the iteration at different sweeps).
            b.stage_gradients(system, Stage::Midpoint);
            b.update(Vector::Q, Vector::Q0, h, Vector::Dp);
            b.update(Vector::P, Vector::P0, -h, Vector::Dq);
        } else {
            let two = T::ONE + T::ONE;
            for (x, &x0) in b.q.iter_mut().zip(&b.q0) {
                *x = two * *x - x0;
            }
            for (x, &x0) in b.p.iter_mut().zip(&b.p0) {
                *x = two * *x - x0;
            }
        }
    }

    /// The WGSL mirror of `step`: the same calls in the same order on a `Kernel` (`method::wgsl`).
    fn wgsl(&self, k: &mut Kernel, h: &str) {
        k.let_("half_h", &format!("0.5 * {h}"));
        k.copy("q0", "q");
        k.copy("p0", "p");
        k.solve(Stage::Midpoint, "half_h", None);
        if k.compensated() {
            k.stage_gradients(Stage::Midpoint);
            k.update("q", "q0", h, "dp");
            k.update("p", "p0", &format!("(-{h})"), "dq");
        } else {
            k.each("q[] = 2.0 * q[] - q0[];");
            k.each("p[] = 2.0 * p[] - p0[];");
        }
    }

    /// Always iterated: up to `max_iter` sweeps of ∂H/∂q and ∂H/∂p.
    fn evals_per_step(&self, _sweeps: u64, solver: Solver) -> u64 {
        2 * solver.max_iter as u64
    }
}
