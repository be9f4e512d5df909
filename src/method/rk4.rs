//! Classic fourth-order Runge–Kutta on y' = f(y) = (∂pH, −∂qH). Not symplectic.

use super::{MethodInfo, Ops, Partial, Scheme, Vector::*};

pub const INFO: MethodInfo = MethodInfo {
    name: "rk4",
    order: 4,
    symplectic: false,
    summary: "classic 4-stage Runge-Kutta",
};

/// f(y) into (dq, dp): q' = ∂H/∂p, p' = −∂H/∂q (with the tangent columns' linearisation).
#[inline]
pub(crate) fn vector_field<O: Ops>(o: &mut O) {
    o.partial(Partial::P, Q, P, Dq);
    o.partial(Partial::Q, Q, P, Dp);
    o.negate(Dp);
}

/// The stage state y = y0 + c·f.
#[inline]
pub(crate) fn stage<O: Ops>(o: &mut O, c: O::S) {
    o.axpy(Q, Q0, c, Dq);
    o.axpy(P, P0, c, Dp);
}

/// acc += c·f
#[inline]
pub(crate) fn accumulate<O: Ops>(o: &mut O, c: O::S) {
    o.axpy(AccQ, AccQ, c, Dq);
    o.axpy(AccP, AccP, c, Dp);
}

/// The method's descriptor, listed in `methods!` (`method/mod.rs`).
pub struct Rk4;

impl Scheme for Rk4 {
    fn info(&self) -> MethodInfo {
        INFO
    }

    #[inline]
    fn step<O: Ops>(&self, o: &mut O) {
        let (h, half, one, two, six) = (o.h(), o.lit(0.5), o.lit(1.0), o.lit(2.0), o.lit(6.0));
        let half_h = o.mul(half, h);
        o.copy(Q0, Q);
        o.copy(P0, P);
        // k1
        vector_field(o);
        o.copy(AccQ, Dq);
        o.copy(AccP, Dp);
        stage(o, half_h);
        // k2
        vector_field(o);
        accumulate(o, two);
        stage(o, half_h);
        // k3
        vector_field(o);
        accumulate(o, two);
        stage(o, h);
        // k4
        vector_field(o);
        accumulate(o, one);
        let h_sixth = o.div(h, six);
        o.update(Q, Q0, h_sixth, AccQ);
        o.update(P, P0, h_sixth, AccP);
    }
}
