//! Symplectic Euler B: q+ = q + h ∂pH(q+, p); p+ = p − h ∂qH(q+, p). For separable H the drift
//! is explicit (one sweep: drift then kick); for other H it is solved as in `method::implicit`.
//! WGSL mirror: `wgsl` below.

use super::wgsl::Kernel;
use super::{Block, MethodInfo, Scheme, Solver, Stage, Vector};
use crate::float::Real;
use crate::system::System;

pub const INFO: MethodInfo = MethodInfo {
    name: "symplectic-euler-b",
    order: 1,
    symplectic: true,
    summary: "symplectic Euler B: drift q with the old p (implicit in q unless H is separable), then kick p with the new q",
};

/// The method's descriptor, listed in `methods!` (`method/mod.rs`).
pub struct SymplecticEulerB;

impl Scheme for SymplecticEulerB {
    fn info(&self) -> MethodInfo {
        INFO
    }

    #[inline]
    fn step<T: Real>(&self, system: &System, b: &mut Block<T>, h: T) {
        b.q0.copy_from_slice(&b.q);
        b.solve_stage(system, Stage::Drift, h);
        b.grad_q(system);
        b.update(Vector::P, Vector::P, -h, Vector::Dq);
    }

    /// The WGSL mirror of `step`: the same calls in the same order on a `Kernel` (`method::wgsl`).
    fn wgsl(&self, k: &mut Kernel, h: &str) {
        k.copy("q0", "q");
        k.solve_stage(Stage::Drift, h);
        k.grad_q();
        k.update("p", "p", &format!("(-{h})"), "dq");
    }

    /// One solved stage and one explicit evaluation.
    fn evals_per_step(&self, sweeps: u64, _solver: Solver) -> u64 {
        sweeps + 1
    }
}
