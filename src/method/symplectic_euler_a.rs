//! Symplectic Euler A: p+ = p − h ∂qH(q, p+); q+ = q + h ∂pH(q, p+). For separable H the kick
//! is explicit (one sweep: kick then drift); for other H it is solved as in `method::implicit`.
//! WGSL mirror: `wgsl` below.

use super::wgsl::Kernel;
use super::{Block, MethodInfo, Scheme, Solver, Stage, Vector};
use crate::float::Real;
use crate::system::System;

pub const INFO: MethodInfo = MethodInfo {
    name: "symplectic-euler-a",
    order: 1,
    symplectic: true,
    summary: "symplectic Euler A: kick p with the old q (implicit in p unless H is separable), then drift q with the new p",
};

/// The method's descriptor, listed in `methods!` (`method/mod.rs`).
pub struct SymplecticEulerA;

impl Scheme for SymplecticEulerA {
    fn info(&self) -> MethodInfo {
        INFO
    }

    #[inline]
    fn step<T: Real>(&self, system: &System, b: &mut Block<T>, h: T) {
        b.p0.copy_from_slice(&b.p);
        b.solve_stage(system, Stage::Kick, h);
        b.grad_p(system);
        b.update(Vector::Q, Vector::Q, h, Vector::Dp);
    }

    /// The WGSL mirror of `step`: the same calls in the same order on a `Kernel` (`method::wgsl`).
    fn wgsl(&self, k: &mut Kernel, h: &str) {
        k.copy("p0", "p");
        k.solve_stage(Stage::Kick, h);
        k.grad_p();
        k.update("q", "q", h, "dp");
    }

    /// One solved stage and one explicit evaluation.
    fn evals_per_step(&self, sweeps: u64, _solver: Solver) -> u64 {
        sweeps + 1
    }
}
