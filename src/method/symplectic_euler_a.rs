//! Symplectic Euler A (separable H: kick then drift): p+ = p − h ∂qH(q); q+ = q + h ∂pH(p+).
//! Mirror: shaders/method/symplectic_euler_a.wgsl.

use super::{axpy, Block, MethodInfo};
use crate::float::Real;
use crate::system::System;

pub const INFO: MethodInfo = MethodInfo {
    name: "symplectic-euler-a",
    order: 1,
    symplectic: true,
    summary: "symplectic Euler A: kick p with the old q, then drift q with the new p",
};

#[inline]
pub fn step<T: Real>(system: &System, b: &mut Block<T>, h: T) {
    b.grad_q(system);
    axpy(&mut b.p, -h, &b.dq);
    b.grad_p(system);
    axpy(&mut b.q, h, &b.dp);
}
