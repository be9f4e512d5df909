//! Explicit Euler: q+ = q + h ∂pH(q,p); p+ = p − h ∂qH(q,p). WGSL mirror: `wgsl` below.

use super::wgsl::Kernel;
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

/// The WGSL mirror of `step`: the same calls in the same order on a `Kernel` (`method::wgsl`).
pub fn wgsl(k: &mut Kernel, h: &str) {
    k.grad_q();
    k.grad_p();
    k.axpy("q", h, "dp");
    k.axpy("p", &format!("(-{h})"), "dq");
}
