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
    system.grad_q(&b.q, &b.p, &mut b.dq);
    axpy(&mut b.p, -h, &b.dq);
    system.grad_p(&b.q, &b.p, &mut b.dp);
    axpy(&mut b.q, h, &b.dp);
}
