//! Störmer–Verlet A / velocity Verlet (kick–drift–kick), PHYSICS.md §1:
//! p½ = p − (h/2) ∂qH(q, p½); q+ = q + (h/2)[∂pH(q, p½) + ∂pH(q+, p½)]; p+ = p½ − (h/2) ∂qH(q+, p½).
//! The first two stages are implicit unless H is separable (`method::implicit`); for separable
//! H they are the explicit half kick and full drift. Also the base step of the compositions.
//! WGSL mirror: `wgsl` below.

use super::wgsl::Kernel;
use super::{Block, MethodInfo, Scheme, Solver, Stage, Vector};
use crate::float::Real;
use crate::system::System;

pub const INFO: MethodInfo = MethodInfo {
    name: "verlet",
    order: 2,
    symplectic: true,
    summary: "Störmer–Verlet A / velocity Verlet (kick-drift-kick), symmetric",
};

/// The method's descriptor, listed in `methods!` (`method/mod.rs`).
pub struct Verlet;

impl Scheme for Verlet {
    fn info(&self) -> MethodInfo {
        INFO
    }

    #[inline]
    fn step<T: Real>(&self, system: &System, b: &mut Block<T>, h: T) {
        let half_h = T::HALF * h;
        b.p0.copy_from_slice(&b.p);
        b.solve_stage(system, Stage::Kick, half_h);
        b.grad_p(system);
        b.update(Vector::Q0, Vector::Q, half_h, Vector::Dp);
        b.solve_stage(system, Stage::Drift, half_h);
        b.grad_q(system);
        b.update(Vector::P, Vector::P, -half_h, Vector::Dq);
    }

    /// The WGSL mirror of `step`: the same calls in the same order on a `Kernel` (`method::wgsl`).
    fn wgsl(&self, k: &mut Kernel, h: &str) {
        k.let_("half_h", &format!("0.5 * {h}"));
        k.copy("p0", "p");
        k.solve_stage(Stage::Kick, "half_h");
        k.grad_p();
        k.update("q0", "q", "half_h", "dp");
        k.solve_stage(Stage::Drift, "half_h");
        k.grad_q();
        k.update("p", "p", "(-half_h)", "dq");
    }

    /// Two solved stages and two explicit evaluations.
    fn evals_per_step(&self, sweeps: u64, _solver: Solver) -> u64 {
        2 * sweeps + 2
    }
}
