//! The variational integrators of seed 003: each variational system (`SystemInfo::variational`)
//! defines its own two-step map (q_{k−1}, q_k) ↦ (q_k, q_{k+1}) from a discrete Lagrangian and,
//! for nonholonomic systems, a discrete constraint (discrete Euler–Lagrange or
//! Lagrange–d'Alembert equations), so this one method only hands the block to the system's
//! `discrete_step`, and its WGSL mirror calls the system's WGSL `discrete_step`. The state is
//! stored as (q_k, v_k) with v_k = (q_{k+1} − q_k)/h in the `q` and `p` slots.

use super::wgsl::Kernel;
use super::{Block, MethodInfo, Scheme, Solver};
use crate::float::Real;
use crate::system::System;

pub const INFO: MethodInfo = MethodInfo {
    name: "variational",
    order: 2,
    symplectic: true,
    summary: "the variational system's own two-step map from its discrete Lagrangian (and discrete constraint): seed 003's discrete Euler–Lagrange / Lagrange–d'Alembert integrators; only for variational systems, whose state is (q, v = (q_{k+1} − q_k)/h); order and symplecticity as each system documents",
};

/// The method's descriptor, listed in `methods!` (`method/mod.rs`).
pub struct Variational;

impl Scheme for Variational {
    fn info(&self) -> MethodInfo {
        INFO
    }

    #[inline]
    fn step<T: Real>(&self, system: &System, b: &mut Block<T>, h: T) {
        let newton = crate::system::Newton {
            tol: b.solver.tol,
            max_iter: b.solver.max_iter,
        };
        system.discrete_step(h, &mut b.q, &mut b.p, newton, &mut b.unconverged);
    }

    /// The WGSL mirror of `step`.
    fn wgsl(&self, k: &mut Kernel, h: &str) {
        k.discrete_step(h);
    }

    /// One evaluation of the map, or the Newton cap where the system iterates.
    fn evals_per_step(&self, sweeps: u64, _solver: Solver) -> u64 {
        sweeps
    }
}
