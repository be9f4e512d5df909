//! Explicit Euler: q+ = q + h ∂pH(q,p); p+ = p − h ∂qH(q,p). WGSL mirror: `wgsl` below.

use super::wgsl::Kernel;
use super::{Block, MethodInfo, Scheme, Solver, Vector};
use crate::float::Real;
use crate::system::System;

pub const INFO: MethodInfo = MethodInfo {
    name: "euler",
    order: 1,
    symplectic: false,
    summary: "explicit (forward) Euler",
};

/// The method's descriptor, listed in `methods!` (`method/mod.rs`).
pub struct Euler;

impl Scheme for Euler {
    fn info(&self) -> MethodInfo {
        INFO
    }

    #[inline]
    fn step<T: Real>(&self, system: &System, b: &mut Block<T>, h: T) {
        b.grad_q(system);
        b.grad_p(system);
        b.update(Vector::Q, Vector::Q, h, Vector::Dp);
        b.update(Vector::P, Vector::P, -h, Vector::Dq);
    }

    /// The WGSL mirror of `step`: the same calls in the same order on a `Kernel` (`method::wgsl`).
    fn wgsl(&self, k: &mut Kernel, h: &str) {
        k.grad_q();
        k.grad_p();
        k.update("q", "q", h, "dp");
        k.update("p", "p", &format!("(-{h})"), "dq");
    }

    /// ∂H/∂q and ∂H/∂p once.
    fn evals_per_step(&self, _sweeps: u64, _solver: Solver) -> u64 {
        2
    }
}
