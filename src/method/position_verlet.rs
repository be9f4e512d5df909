//! Störmer–Verlet B / position Verlet (drift–kick–drift), PHYSICS.md §1:
//! q½ = q + (h/2) ∂pH(q½, p); p+ = p − (h/2)[∂qH(q½, p) + ∂qH(q½, p+)]; q+ = q½ + (h/2) ∂pH(q½, p+).
//! The first two stages are implicit unless H is separable (`method::implicit`).

use super::{MethodInfo, Ops, Scheme, Stage, Vector::*};

pub const INFO: MethodInfo = MethodInfo {
    name: "position-verlet",
    order: 2,
    symplectic: true,
    summary: "Störmer–Verlet B / position Verlet (drift-kick-drift), symmetric",
};

/// The method's descriptor, listed in `methods!` (`method/mod.rs`).
pub struct PositionVerlet;

impl Scheme for PositionVerlet {
    fn info(&self) -> MethodInfo {
        INFO
    }

    #[inline]
    fn step<O: Ops>(&self, o: &mut O) {
        let (h, half) = (o.h(), o.lit(0.5));
        let half_h = o.mul(half, h);
        o.copy(Q0, Q);
        o.solve_stage(Stage::Drift, half_h);
        o.grad_q();
        let minus = o.neg(half_h);
        o.update(P0, P, minus, Dq);
        o.solve_stage(Stage::Kick, half_h);
        o.grad_p();
        o.update(Q, Q, half_h, Dp);
    }
}
