//! Störmer–Verlet A / velocity Verlet (kick–drift–kick), PHYSICS.md §1:
//! p½ = p − (h/2) ∂qH(q, p½); q+ = q + (h/2)[∂pH(q, p½) + ∂pH(q+, p½)]; p+ = p½ − (h/2) ∂qH(q+, p½).
//! The first two stages are implicit unless H is separable (`method::implicit`); for separable
//! H the step is the explicit half kick, drift, half kick, whose last force is the next step's
//! first (`method::kick_drift`). Also the base step of the compositions.

use super::{kick_drift, MethodInfo, Ops, Scheme, Stage, Vector::*};

pub const INFO: MethodInfo = MethodInfo {
    name: "verlet",
    order: 2,
    symplectic: true,
    summary: "Störmer–Verlet A / velocity Verlet (kick-drift-kick), symmetric",
};

/// The method's descriptor, listed in `methods!` (`method/mod.rs`).
pub struct Verlet;

/// One Verlet step of size `h` (a scalar of `o`) with implicit stages: also the compositions'
/// stage where H is not separable.
#[inline]
pub(crate) fn verlet<O: Ops>(o: &mut O, h: O::S) {
    let half = o.lit(0.5);
    let half_h = o.mul(half, h);
    o.copy(P0, P);
    o.solve_stage(Stage::Kick, half_h);
    o.grad_p();
    o.update(Q0, Q, half_h, Dp);
    o.solve_stage(Stage::Drift, half_h);
    o.grad_q();
    let minus = o.neg(half_h);
    o.update(P, P, minus, Dq);
}

impl Scheme for Verlet {
    fn info(&self) -> MethodInfo {
        INFO
    }

    /// With explicit kicks, the force the first half kick takes over (`kick_drift`).
    #[inline]
    fn prologue<O: Ops>(&self, o: &mut O) {
        let carries = o.explicit_kicks();
        kick_drift::prologue(o, carries);
    }

    /// With explicit kicks, half kick, drift, half kick with the force carried from step to
    /// step (`kick_drift`); otherwise the implicit stages.
    #[inline]
    fn step<O: Ops>(&self, o: &mut O) {
        if o.explicit_kicks() {
            return kick_drift::step(o, true, kick_drift::verlet(1.0).into_iter());
        }
        let h = o.h();
        verlet(o, h);
    }
}
