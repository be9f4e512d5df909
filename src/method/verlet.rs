//! Störmer–Verlet A / velocity Verlet (kick–drift–kick), PHYSICS.md §1:
//! p½ = p − (h/2) ∂qH(q, p½); q+ = q + (h/2)[∂pH(q, p½) + ∂pH(q+, p½)]; p+ = p½ − (h/2) ∂qH(q+, p½).
//! The first two stages are implicit unless H is separable (`method::implicit`); for separable
//! H they are the explicit half kick and full drift. Also the base step of the compositions.

use super::{MethodInfo, Ops, Scheme, Stage, Vector::*};

pub const INFO: MethodInfo = MethodInfo {
    name: "verlet",
    order: 2,
    symplectic: true,
    summary: "Störmer–Verlet A / velocity Verlet (kick-drift-kick), symmetric",
};

/// The method's descriptor, listed in `methods!` (`method/mod.rs`).
pub struct Verlet;

/// One Verlet step of size `h` (a scalar of `o`): also the compositions' stage.
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

    #[inline]
    fn step<O: Ops>(&self, o: &mut O) {
        let h = o.h();
        verlet(o, h);
    }
}
