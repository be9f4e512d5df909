//! Symplectic Euler A: p+ = p − h ∂qH(q, p+); q+ = q + h ∂pH(q, p+). For separable H the kick
//! is explicit (one sweep: kick then drift); for other H it is solved as in `method::implicit`.

use super::{MethodInfo, Ops, Scheme, Stage, Vector::*};

pub const INFO: MethodInfo = MethodInfo {
    name: "symplectic-euler-a",
    order: 1,
    symplectic: true,
    summary: "symplectic Euler A: kick p with the old q (implicit in p unless H is separable), then drift q with the new p",
};

/// The method's descriptor, listed in `methods!` (`method/mod.rs`).
pub struct SymplecticEulerA;

impl Scheme for SymplecticEulerA {
    fn info(&self) -> MethodInfo {
        INFO
    }

    #[inline]
    fn step<O: Ops>(&self, o: &mut O) {
        let h = o.h();
        o.copy(P0, P);
        o.solve_stage(Stage::Kick, h);
        o.grad_p();
        o.update(Q, Q, h, Dp);
    }
}
