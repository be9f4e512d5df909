//! Classic fourth-order Runge–Kutta on y' = f(y) = (∂pH, −∂qH). Not symplectic.
//! WGSL mirror: `wgsl` below.

use super::wgsl::Kernel;
use super::{axpy, partial, Block, MethodInfo, Partial, Scheme, Solver, Vector};
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

/// The WGSL mirror of `vector_field`.
pub(crate) fn wgsl_vector_field(k: &mut Kernel) {
    k.partial(Partial::P, "dq");
    k.partial(Partial::Q, "dp");
    k.each("dp[] = -dp[];");
}

/// The WGSL mirror of `stage`: y = y0 + c·k.
fn wgsl_stage(k: &mut Kernel, y: &str, y0: &str, c: &str, f: &str) {
    k.each(&format!("{y}[] = {y0}[] + {c} * {f}[];"));
}

/// The method's descriptor, listed in `methods!` (`method/mod.rs`).
pub struct Rk4;

impl Scheme for Rk4 {
    fn info(&self) -> MethodInfo {
        INFO
    }

    #[inline]
    fn step<T: Real>(&self, system: &System, b: &mut Block<T>, h: T) {
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
        b.update(Vector::Q, Vector::Q0, h_sixth, Vector::AccQ);
        b.update(Vector::P, Vector::P0, h_sixth, Vector::AccP);
    }

    /// The WGSL mirror of `step`: the same calls in the same order on a `Kernel` (`method::wgsl`).
    fn wgsl(&self, k: &mut Kernel, h: &str) {
        k.let_("half_h", &format!("0.5 * {h}"));
        k.copy("q0", "q");
        k.copy("p0", "p");
        // k1
        wgsl_vector_field(k);
        k.copy("acc_q", "dq");
        k.copy("acc_p", "dp");
        wgsl_stage(k, "q", "q0", "half_h", "dq");
        wgsl_stage(k, "p", "p0", "half_h", "dp");
        // k2
        wgsl_vector_field(k);
        k.axpy("acc_q", "2.0", "dq");
        k.axpy("acc_p", "2.0", "dp");
        wgsl_stage(k, "q", "q0", "half_h", "dq");
        wgsl_stage(k, "p", "p0", "half_h", "dp");
        // k3
        wgsl_vector_field(k);
        k.axpy("acc_q", "2.0", "dq");
        k.axpy("acc_p", "2.0", "dp");
        wgsl_stage(k, "q", "q0", h, "dq");
        wgsl_stage(k, "p", "p0", h, "dp");
        // k4
        wgsl_vector_field(k);
        k.axpy("acc_q", "1.0", "dq");
        k.axpy("acc_p", "1.0", "dp");
        k.let_("h_sixth", &format!("{h} / 6.0"));
        k.update("q", "q0", "h_sixth", "acc_q");
        k.update("p", "p0", "h_sixth", "acc_p");
    }

    /// Four stages, each ∂H/∂p and ∂H/∂q.
    fn evals_per_step(&self, _sweeps: u64, _solver: Solver) -> u64 {
        8
    }
}
