//! The variational integrators of seed 003: each variational system (`SystemInfo::variational`)
//! defines its own two-step map (q_{k−1}, q_k) ↦ (q_k, q_{k+1}) from a discrete Lagrangian and,
//! for nonholonomic systems, a discrete constraint (discrete Euler–Lagrange or
//! Lagrange–d'Alembert equations), so this one method only runs the system's `discrete_step`
//! (`Ops::discrete_step`: the system's Rust map on the CPU, its WGSL one on the GPU). The state
//! is stored as (q_k, v_k) with v_k = (q_{k+1} − q_k)/h in the `q` and `p` slots.
//!
//! The drift q_{k+1} = q_k + h v_k is summed here, into q0, through `Ops::update`, the one
//! state update every method writes, so `--compensated` carries its rounding as it does for
//! the Hamiltonian methods: in f32 a configuration that grows (a heading turning for 10⁴
//! steps) rounds each increment h v to its ulp, the same way every step, and a map that
//! compares the new configuration with the old one (the vertical disk's heading against its
//! velocity's direction) turns that bias into an energy drift. The map then reads q0 as its
//! new configuration (`DiscreteMap::discrete_step`'s `next`).

use super::ops::Vector;
use super::{MethodInfo, Ops, Scheme};

pub const INFO: MethodInfo = MethodInfo {
    name: "variational",
    order: 2,
    symplectic: true,
    summary: "the variational system's own two-step map from its discrete Lagrangian (and discrete constraint): Torrente Teruel's discrete Euler–Lagrange / Lagrange–d'Alembert integrators; only for variational systems, whose state is (q, v = (q_{k+1} − q_k)/h); order and symplecticity as each system documents",
};

/// The method's descriptor, listed in `methods!` (`method/mod.rs`).
pub struct Variational;

impl Scheme for Variational {
    fn info(&self) -> MethodInfo {
        INFO
    }

    #[inline]
    fn step<O: Ops>(&self, o: &mut O) {
        let h = o.h();
        o.update(Vector::Q0, Vector::Q, h, Vector::P);
        o.discrete_step(h);
    }
}
