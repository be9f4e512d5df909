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
    system.grad_q(&b.q, &b.p, &mut b.dq);
    axpy(&mut b.p, -half_h, &b.dq);
    system.grad_p(&b.q, &b.p, &mut b.dp);
    axpy(&mut b.q, h, &b.dp);
    system.grad_q(&b.q, &b.p, &mut b.dq);
    axpy(&mut b.p, -half_h, &b.dq);
}
