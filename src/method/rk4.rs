//! Classic fourth-order Runge–Kutta on y' = f(y) = (∂pH, −∂qH). Not symplectic.
//! Mirror: shaders/method/rk4.wgsl.

use super::{axpy, partial, Block, MethodInfo, Partial};
use crate::float::Real;
use crate::system::System;

pub const INFO: MethodInfo = MethodInfo {
    name: "rk4",
    order: 4,
    symplectic: false,
    summary: "classic 4-stage Runge-Kutta",
};

/// f(y) into (b.dq, b.dp): q' = ∂H/∂p, p' = −∂H/∂q (with the tangent columns' linearisation).
#[inline]
pub(crate) fn vector_field<T: Real>(system: &System, b: &mut Block<T>) {
    let nd = b.n * b.d;
    partial(system, Partial::P, nd, &b.q, &b.p, &mut b.dq);
    partial(system, Partial::Q, nd, &b.q, &b.p, &mut b.dp);
    for x in b.dp.iter_mut() {
        *x = -*x;
    }
}

/// y = y0 + c·k, for the stage states.
#[inline(always)]
fn stage<T: Real>(y: &mut [T], y0: &[T], c: T, k: &[T]) {
    for ((yi, &y0i), &ki) in y.iter_mut().zip(y0).zip(k) {
        *yi = y0i + c * ki;
    }
}

#[inline]
pub fn step<T: Real>(system: &System, b: &mut Block<T>, h: T) {
    let half_h = T::HALF * h;
    let two = T::ONE + T::ONE;
    b.q0.copy_from_slice(&b.q);
    b.p0.copy_from_slice(&b.p);
    // k1
    vector_field(system, b);
    b.acc_q.copy_from_slice(&b.dq);
    b.acc_p.copy_from_slice(&b.dp);
    stage(&mut b.q, &b.q0, half_h, &b.dq);
    stage(&mut b.p, &b.p0, half_h, &b.dp);
    // k2
    vector_field(system, b);
    axpy(&mut b.acc_q, two, &b.dq);
    axpy(&mut b.acc_p, two, &b.dp);
    stage(&mut b.q, &b.q0, half_h, &b.dq);
    stage(&mut b.p, &b.p0, half_h, &b.dp);
    // k3
    vector_field(system, b);
    axpy(&mut b.acc_q, two, &b.dq);
    axpy(&mut b.acc_p, two, &b.dp);
    stage(&mut b.q, &b.q0, h, &b.dq);
    stage(&mut b.p, &b.p0, h, &b.dp);
    // k4
    vector_field(system, b);
    axpy(&mut b.acc_q, T::ONE, &b.dq);
    axpy(&mut b.acc_p, T::ONE, &b.dp);
    let h_sixth = h / (two + two + two);
    stage(&mut b.q, &b.q0, h_sixth, &b.acc_q);
    stage(&mut b.p, &b.p0, h_sixth, &b.acc_p);
}
