//! Kutta's third-order method: k1 = f(y), k2 = f(y + h k1/2), k3 = f(y − h k1 + 2h k2),
//! y+ = y + h (k1 + 4 k2 + k3)/6. Not symplectic. WGSL mirror: `wgsl` below.

use super::rk4::{vector_field, wgsl_vector_field};
use super::wgsl::Kernel;
use super::{axpy, Block, MethodInfo, Scheme, Solver, Vector};
use crate::float::Real;
use crate::system::System;

pub const INFO: MethodInfo = MethodInfo {
    name: "rk3",
    order: 3,
    symplectic: false,
    summary: "Kutta's 3-stage Runge-Kutta",
};

/// The method's descriptor, listed in `methods!` (`method/mod.rs`).
pub struct Rk3;

impl Scheme for Rk3 {
    fn info(&self) -> MethodInfo {
        INFO
    }

    #[inline]
    fn step<T: Real>(&self, system: &System, b: &mut Block<T>, h: T) {
        let half_h = T::HALF * h;
        let two = T::ONE + T::ONE;
        let four = two + two;
        b.q0.copy_from_slice(&b.q);
        b.p0.copy_from_slice(&b.p);
        // k1
        vector_field(system, b);
        b.acc_q.copy_from_slice(&b.dq);
        b.acc_p.copy_from_slice(&b.dp);
        for (y, (&y0, &k1)) in b.q.iter_mut().zip(b.q0.iter().zip(&b.dq)) {
            *y = y0 + half_h * k1;
        }
        for (y, (&y0, &k1)) in b.p.iter_mut().zip(b.p0.iter().zip(&b.dp)) {
            *y = y0 + half_h * k1;
        }
        // k2; stage 3 at y0 + h (2 k2 − k1)
        vector_field(system, b);
        for (y, (&y0, (&k2, &acc))) in
            b.q.iter_mut()
                .zip(b.q0.iter().zip(b.dq.iter().zip(&b.acc_q)))
        {
            *y = y0 + h * (two * k2 - acc);
        }
        for (y, (&y0, (&k2, &acc))) in
            b.p.iter_mut()
                .zip(b.p0.iter().zip(b.dp.iter().zip(&b.acc_p)))
        {
            *y = y0 + h * (two * k2 - acc);
        }
        axpy(&mut b.acc_q, four, &b.dq);
        axpy(&mut b.acc_p, four, &b.dp);
        // k3
        vector_field(system, b);
        axpy(&mut b.acc_q, T::ONE, &b.dq);
        axpy(&mut b.acc_p, T::ONE, &b.dp);
        let h_sixth = h / (two + four);
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
        k.each("q[] = q0[] + half_h * dq[];");
        k.each("p[] = p0[] + half_h * dp[];");
        // k2; stage 3 at y0 + h (2 k2 − k1)
        wgsl_vector_field(k);
        k.each(&format!("q[] = q0[] + {h} * (2.0 * dq[] - acc_q[]);"));
        k.each(&format!("p[] = p0[] + {h} * (2.0 * dp[] - acc_p[]);"));
        k.axpy("acc_q", "4.0", "dq");
        k.axpy("acc_p", "4.0", "dp");
        // k3
        wgsl_vector_field(k);
        k.axpy("acc_q", "1.0", "dq");
        k.axpy("acc_p", "1.0", "dp");
        k.let_("h_sixth", &format!("{h} / 6.0"));
        k.update("q", "q0", "h_sixth", "acc_q");
        k.update("p", "p0", "h_sixth", "acc_p");
    }

    /// Three stages, each ∂H/∂p and ∂H/∂q.
    fn evals_per_step(&self, _sweeps: u64, _solver: Solver) -> u64 {
        6
    }
}
