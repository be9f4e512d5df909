//! Explicit kick–drift sequences, as molecular-dynamics codes run them: for separable
//! H = T(p) + V(q) (`Ops::explicit_kicks`) velocity Verlet, its compositions and the splittings
//! are a sequence of kicks p ← p − c·h ∂qH(q) and drifts q ← q + c·h ∂pH(p). Adjacent
//! substeps of one kind are fused into one (coefficients summed in f64: Verlet's closing half
//! kick and the next stage's opening one), and where the sequence starts and ends with a kick
//! the force of the last kick, ∂qH at the step's final q, is the first kick's force of the
//! next step: it stays in `dq` from step to step, evaluated once before a run of steps by the
//! method's prologue (`Scheme::prologue`: per GPU dispatch, per CPU block run). Verlet then
//! evaluates ∂H/∂q once and ∂H/∂p once per step. The carried force equals the one the next
//! step would evaluate, bit for bit (the same function of the same q), so how a run is cut
//! into dispatches or advances changes nothing.

use super::tableau::Substep::{self, Drift, Kick};
use super::{Ops, Vector::*};

/// The prologue of a sequence that `carries` its force: ∂H/∂q at the current q.
#[inline]
pub(crate) fn prologue<O: Ops>(o: &mut O, carries: bool) {
    if carries {
        o.grad_q();
    }
}

/// Whether a sequence's last force can be carried into the next step: it starts and ends with
/// a kick.
pub(crate) fn carries(first: Option<Substep>, last: Option<Substep>) -> bool {
    matches!((first, last), (Some(Kick(_)), Some(Kick(_))))
}

/// One step: the substeps in order, adjacent ones of a kind fused. With `carries`, `dq`
/// holds the force at the current q on entry (the prologue's or the previous step's) and
/// again on exit.
#[inline]
pub(crate) fn step<O: Ops>(o: &mut O, carries: bool, substeps: impl Iterator<Item = Substep>) {
    let h = o.h();
    // Whether dq holds ∂H/∂q at the current q.
    let mut force = carries;
    let mut apply = |o: &mut O, s: Substep| match s {
        Kick(c) => {
            if !force {
                o.grad_q();
                force = true;
            }
            let c = o.lit(c);
            let c_h = o.mul(c, h);
            let minus = o.neg(c_h);
            o.update(P, P, minus, Dq);
        }
        Drift(c) => {
            let c = o.lit(c);
            let c_h = o.mul(c, h);
            o.grad_p();
            o.update(Q, Q, c_h, Dp);
            force = false;
        }
    };
    let mut pending: Option<Substep> = None;
    for s in substeps {
        pending = match (pending, s) {
            (Some(Kick(a)), Kick(b)) => Some(Kick(a + b)),
            (Some(Drift(a)), Drift(b)) => Some(Drift(a + b)),
            (Some(done), next) => {
                apply(o, done);
                Some(next)
            }
            (None, next) => Some(next),
        };
    }
    if let Some(last) = pending {
        apply(o, last);
    }
}

/// Velocity Verlet's substeps at weight w (of h): half kick, drift, half kick.
pub(crate) fn verlet(w: f64) -> [Substep; 3] {
    [Kick(0.5 * w), Drift(w), Kick(0.5 * w)]
}

#[cfg(test)]
mod tests {
    use super::super::ops::Count;
    use super::*;

    fn evals(carries: bool, substeps: &[Substep]) -> u64 {
        let mut c = Count {
            sweeps: Some(1),
            max_iter: 100,
            explicit_kicks: true,
            evals: 0,
        };
        step(&mut c, carries, substeps.iter().copied());
        c.evals
    }

    #[test]
    fn adjacent_kicks_fuse_and_the_force_is_carried() {
        // Verlet twice: K D K K D K → K D K D K, the first force carried: 2 + 2 evaluations.
        let two: Vec<Substep> = verlet(0.5).into_iter().chain(verlet(0.5)).collect();
        assert_eq!(evals(true, &two), 4);
        // without the carried force the first kick evaluates it
        assert_eq!(evals(false, &two), 5);
        assert!(carries(two.first().copied(), two.last().copied()));
        assert!(!carries(Some(Drift(1.0)), Some(Kick(1.0))));
    }

    /// Gradient evaluations per step as counted from the descriptions: one force and one
    /// velocity per Verlet stage where H is separable; the implicit stages' caps elsewhere.
    #[test]
    fn evaluations_per_step_follow_the_descriptions() {
        use crate::method::{Method, Solver};
        use crate::system::System;
        let solver = Solver::default_for::<f64>();
        let pendulum = System::new("pendulum", &Default::default()).unwrap();
        let counts: Vec<(Method, u64)> = [
            Method::Euler,
            Method::SymplecticEulerA,
            Method::Verlet,
            Method::PositionVerlet,
            Method::Rk4,
            Method::ImplicitMidpoint,
            Method::Yoshida4,
            Method::Suzuki4,
            Method::Yoshida6,
            Method::BlanesMoan4,
        ]
        .into_iter()
        .map(|m| (m, m.evals_per_step(&pendulum, solver)))
        .collect();
        use Method::*;
        assert_eq!(
            counts,
            [
                (Euler, 2),
                (SymplecticEulerA, 2),
                (Verlet, 2),
                (PositionVerlet, 4),
                (Rk4, 8),
                (ImplicitMidpoint, 200),
                (Yoshida4, 6),
                (Suzuki4, 10),
                (Yoshida6, 14),
                (BlanesMoan4, 12),
            ]
        );
        // Non-separable: Verlet's two implicit stages at the cap, plus two evaluations.
        let double = System::new("double-pendulum", &Default::default()).unwrap();
        assert_eq!(Method::Verlet.evals_per_step(&double, solver), 202);
        assert_eq!(Method::Yoshida4.evals_per_step(&double, solver), 606);
    }
}
