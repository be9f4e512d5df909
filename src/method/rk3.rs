//! Kutta's third-order method: k1 = f(y), k2 = f(y + h k1/2), k3 = f(y − h k1 + 2h k2),
//! y+ = y + h (k1 + 4 k2 + k3)/6. Not symplectic.

use super::ops::v;
use super::rk4::{accumulate, stage, vector_field};
use super::{MethodInfo, Ops, Scheme, Vector::*};

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
    fn step<O: Ops>(&self, o: &mut O) {
        let (h, half, one, two) = (o.h(), o.lit(0.5), o.lit(1.0), o.lit(2.0));
        let (four, six) = (o.lit(4.0), o.lit(6.0));
        let half_h = o.mul(half, h);
        o.copy(Q0, Q);
        o.copy(P0, P);
        // k1
        vector_field(o);
        o.copy(AccQ, Dq);
        o.copy(AccP, Dp);
        stage(o, half_h);
        // k2; stage 3 at y0 + h (2 k2 − k1)
        vector_field(o);
        o.assign(Q, &(v(Q0) + (v(Dq) * two - v(AccQ)) * h));
        o.assign(P, &(v(P0) + (v(Dp) * two - v(AccP)) * h));
        accumulate(o, four);
        // k3
        vector_field(o);
        accumulate(o, one);
        let h_sixth = o.div(h, six);
        o.update(Q, Q0, h_sixth, AccQ);
        o.update(P, P0, h_sixth, AccP);
    }
}
