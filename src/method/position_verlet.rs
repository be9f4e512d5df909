//! Störmer–Verlet B / position Verlet (drift–kick–drift), PHYSICS.md §1:
//! q½ = q + (h/2) ∂pH(q½, p); p+ = p − (h/2)[∂qH(q½, p) + ∂qH(q½, p+)]; q+ = q½ + (h/2) ∂pH(q½, p+).
//! The first two stages are implicit unless H is separable (`method::implicit`).
//! WGSL mirror: `wgsl` below.

use super::wgsl::Kernel;
use super::{Block, MethodInfo, Scheme, Solver, Stage, Vector};
use crate::float::Real;
use crate::system::System;

pub const INFO: MethodInfo = MethodInfo {
    name: "position-verlet",
    order: 2,
    symplectic: true,
    summary: "Störmer–Verlet B / position Verlet (drift-kick-drift), symmetric",
};

/// The method's descriptor, listed in `methods!` (`method/mod.rs`).
pub struct PositionVerlet;

impl Scheme for PositionVerlet {
    fn info(&self) -> MethodInfo {
        INFO
    }

    #[inline]
    fn step<T: Real>(&self, system: &System, b: &mut Block<T>, h: T) {
        let half_h = T::HALF * h;
        b.q0.copy_from_slice(&b.q);
        b.solve_stage(system, Stage::Drift, half_h);
        b.grad_q(system);
        b.update(Vector::P0, Vector::P, -half_h, Vector::Dq);
        b.solve_stage(system, Stage::Kick, half_h);
        b.grad_p(system);
        b.update(Vector::Q, Vector::Q, half_h, Vector::Dp);
    }

    /// The WGSL mirror of `step`: the same calls in the same order on a `Kernel` (`method::wgsl`).
    fn wgsl(&self, k: &mut Kernel, h: &str) {
        k.let_("half_h", &format!("0.5 * {h}"));
        k.copy("q0", "q");
        k.solve_stage(Stage::Drift, "half_h");
        k.grad_q();
        k.update("p0", "p", "(-half_h)", "dq");
        k.solve_stage(Stage::Kick, "half_h");
        k.grad_p();
        k.update("q", "q", "half_h", "dp");
    }

    /// Two solved stages and two explicit evaluations.
    fn evals_per_step(&self, sweeps: u64, _solver: Solver) -> u64 {
        2 * sweeps + 2
    }
}
