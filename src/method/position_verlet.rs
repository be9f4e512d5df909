//! Störmer–Verlet B / position Verlet (drift–kick–drift), for separable H:
//! q½ = q + (h/2) ∂pH(p); p+ = p − h ∂qH(q½); q+ = q½ + (h/2) ∂pH(p+).
//! Mirror: shaders/method/position_verlet.wgsl.

use super::{axpy, Block, MethodInfo};
use crate::float::Real;
use crate::system::System;

pub const INFO: MethodInfo = MethodInfo {
    name: "position-verlet",
    order: 2,
    symplectic: true,
    summary: "Störmer–Verlet B / position Verlet (drift-kick-drift), symmetric",
};

#[inline]
pub fn step<T: Real>(system: &System, b: &mut Block<T>, h: T) {
    let half_h = T::HALF * h;
    b.grad_p(system);
    axpy(&mut b.q, half_h, &b.dp);
    b.grad_q(system);
    axpy(&mut b.p, -h, &b.dq);
    b.grad_p(system);
    axpy(&mut b.q, half_h, &b.dp);
}
