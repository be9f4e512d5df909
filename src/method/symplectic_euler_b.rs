//! Symplectic Euler B (separable H: drift then kick): q+ = q + h ∂pH(p); p+ = p − h ∂qH(q+).
//! Mirror: shaders/method/symplectic_euler_b.wgsl.

use super::{axpy, Block, MethodInfo};
use crate::float::Real;
use crate::system::System;

pub const INFO: MethodInfo = MethodInfo {
    name: "symplectic-euler-b",
    order: 1,
    symplectic: true,
    summary: "symplectic Euler B: drift q with the old p, then kick p with the new q",
};

#[inline]
pub fn step<T: Real>(system: &System, b: &mut Block<T>, h: T) {
    b.grad_p(system);
    axpy(&mut b.q, h, &b.dp);
    b.grad_q(system);
    axpy(&mut b.p, -h, &b.dq);
}
