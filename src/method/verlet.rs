//! Störmer–Verlet A / velocity Verlet (kick–drift–kick), for separable H:
//! p½ = p − (h/2) ∂qH(q); q+ = q + h ∂pH(p½); p+ = p½ − (h/2) ∂qH(q+).
//! Mirror: shaders/method/verlet.wgsl.

use super::{axpy, Block, MethodInfo};
use crate::float::Real;
use crate::system::System;

pub const INFO: MethodInfo = MethodInfo {
    name: "verlet",
    order: 2,
    symplectic: true,
    summary: "Störmer–Verlet A / velocity Verlet (kick-drift-kick), symmetric",
};

#[inline]
pub fn step<T: Real>(system: &System, b: &mut Block<T>, h: T) {
    let half_h = T::HALF * h;
    b.grad_q(system);
    axpy(&mut b.p, -half_h, &b.dq);
    b.grad_p(system);
    axpy(&mut b.q, h, &b.dp);
    b.grad_q(system);
    axpy(&mut b.p, -half_h, &b.dq);
}
