//! Implicit midpoint rule y+ = y + h f((y + y+)/2), symplectic and symmetric, order 2, for any H.
//! Solved for the midpoint m = y + (h/2) f(m) by fixed-point iteration to the tolerance
//! (`method::implicit`, always iterated: the rule is implicit even for separable H), then
//! y+ = 2m − y.

use super::ops::v;
use super::{MethodInfo, Ops, Scheme, Stage, Vector::*};

pub const INFO: MethodInfo = MethodInfo {
    name: "implicit-midpoint",
    order: 2,
    symplectic: true,
    summary:
        "implicit midpoint rule (fixed-point iteration per point, non-converged points counted)",
};

/// The method's descriptor, listed in `methods!` (`method/mod.rs`).
pub struct ImplicitMidpoint;

impl Scheme for ImplicitMidpoint {
    fn info(&self) -> MethodInfo {
        INFO
    }

    #[inline]
    fn step<O: Ops>(&self, o: &mut O) {
        let (h, half, two) = (o.h(), o.lit(0.5), o.lit(2.0));
        let half_h = o.mul(half, h);
        o.copy(Q0, Q);
        o.copy(P0, P);
        o.solve(Stage::Midpoint, half_h, None);
        if o.compensated() {
            // y1 = y0 + h f(m), equal to 2m − y0 at the fixed point m = y0 + (h/2) f(m), as an
            // update that carries its rounding error; f evaluated again at the solution m
            // (points leave the iteration at different sweeps).
            o.stage_gradients(Stage::Midpoint);
            o.update(Q, Q0, h, Dp);
            let minus_h = o.neg(h);
            o.update(P, P0, minus_h, Dq);
        } else {
            o.assign(Q, &(v(Q) * two - v(Q0)));
            o.assign(P, &(v(P) * two - v(P0)));
        }
    }
}
