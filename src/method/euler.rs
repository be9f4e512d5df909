//! Explicit Euler: q+ = q + h ∂pH(q,p); p+ = p − h ∂qH(q,p).

use super::{MethodInfo, Ops, Scheme, Vector::*};

pub const INFO: MethodInfo = MethodInfo {
    name: "euler",
    order: 1,
    symplectic: false,
    summary: "explicit (forward) Euler",
};

/// The method's descriptor, listed in `methods!` (`method/mod.rs`).
pub struct Euler;

impl Scheme for Euler {
    fn info(&self) -> MethodInfo {
        INFO
    }

    #[inline]
    fn step<O: Ops>(&self, o: &mut O) {
        let h = o.h();
        o.grad_q();
        o.grad_p();
        o.update(Q, Q, h, Dp);
        let minus_h = o.neg(h);
        o.update(P, P, minus_h, Dq);
    }
}
