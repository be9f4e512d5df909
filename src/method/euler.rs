//! Explicit Euler: q+ = q + h ∂pH(q,p); p+ = p − h ∂qH(q,p). Mirror: shaders/method/euler.wgsl.

use super::{axpy, Block, MethodInfo};
use crate::float::Real;
use crate::system::System;

pub const INFO: MethodInfo = MethodInfo {
    name: "euler",
    order: 1,
    symplectic: false,
    summary: "explicit (forward) Euler",
};

#[inline]
pub fn step<T: Real>(system: &System, b: &mut Block<T>, h: T) {
    b.grad_q(system);
    b.grad_p(system);
    axpy(&mut b.q, h, &b.dp);
    axpy(&mut b.p, -h, &b.dq);
}
