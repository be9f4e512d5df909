//! Symplectic Euler B: q+ = q + h ∂pH(q+, p); p+ = p − h ∂qH(q+, p). For separable H the drift
//! is explicit (one sweep: drift then kick); for other H it is solved as in `method::implicit`.

use super::{MethodInfo, Ops, Scheme, Stage, Vector::*};

pub const INFO: MethodInfo = MethodInfo {
    name: "symplectic-euler-b",
    order: 1,
    symplectic: true,
    summary: "symplectic Euler B: drift q with the old p (implicit in q unless H is separable), then kick p with the new q",
};

/// The method's descriptor, listed in `methods!` (`method/mod.rs`).
pub struct SymplecticEulerB;

impl Scheme for SymplecticEulerB {
    fn info(&self) -> MethodInfo {
        INFO
    }

    #[inline]
    fn step<O: Ops>(&self, o: &mut O) {
        let h = o.h();
        o.copy(Q0, Q);
        o.solve_stage(Stage::Drift, h);
        o.grad_q();
        let minus_h = o.neg(h);
        o.update(P, P, minus_h, Dq);
    }
}
