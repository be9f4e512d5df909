//! The steps of the coefficient families, written once over `Ops` (conventions in
//! `method::tableau`). Runge–Kutta methods run as partitioned ones with the same tableau for q
//! and p. Explicit tableaus are straight-line code: each stage's value from the earlier stage
//! derivatives that it reads (kept in stage slots only while a later stage needs them), its
//! derivatives, and b_i times them added to the accumulators at once. Implicit tableaus solve
//! all stage values together (`Ops::solve_stages`, from y0), evaluate the derivatives once more
//! at the solution (points leave the iteration at different sweeps, so the engines agree only
//! on the solved values), then sum. The result is y0 + h·acc as a compensated `update`, as the
//! built-ins finish.

use crate::method::ops::{v, Lin, Ops, StageEq, StageSolve, Vector};
use crate::method::tableau::Tableau;
use crate::method::Partial;
use Vector::*;

/// dst ← base + Σ c·g, summed left to right (in pieces of at most five terms: a `Lin` holds
/// 16 nodes, and ((a + b) + c) rounds the same in one statement or two).
fn sum<O: Ops>(o: &mut O, dst: Vector, base: Vector, terms: &[(O::S, Vector)]) {
    if terms.is_empty() {
        return o.copy(dst, base);
    }
    let mut from = base;
    for chunk in terms.chunks(5) {
        let mut e: Lin<O::S> = v(from);
        for &(c, g) in chunk {
            e = e + v(g) * c;
        }
        o.assign(dst, &e);
        from = dst;
    }
}

/// acc ← Σ b_i·k_i over the nonzero b_i (the first term assigned, the others added).
fn accumulate<O: Ops>(o: &mut O, acc: Vector, b: f64, k: Vector, first: &mut bool) {
    if b == 0.0 {
        return;
    }
    let b = o.lit(b);
    if std::mem::take(first) {
        o.assign(acc, &(v(k) * b));
    } else {
        o.axpy(acc, acc, b, k);
    }
}

/// The stage slots of an implicit partitioned method: stage i's values (Yq, Yp) and
/// derivatives (∂H/∂p, ∂H/∂q there).
fn slots(i: usize) -> [Vector; 4] {
    let s = 4 * i as u16;
    [Stage(s), Stage(s + 1), Stage(s + 2), Stage(s + 3)]
}

/// One step of the partitioned Runge–Kutta method with tableau `q` for q' = ∂H/∂p and `p` for
/// p' = −∂H/∂q, of size `h`.
pub fn prk<O: Ops>(o: &mut O, q: &Tableau, p: &Tableau, h: O::S) {
    let s = q.stages();
    o.copy(Q0, Q);
    o.copy(P0, P);
    // h·a_ij for q, −h·â_ij for p (so that every sum adds), built once.
    let mut cq = vec![vec![None; s]; s];
    let mut cp = vec![vec![None; s]; s];
    for i in 0..s {
        for j in 0..s {
            if q.a[i][j] != 0.0 {
                let a = o.lit(q.a[i][j]);
                cq[i][j] = Some(o.mul(a, h));
            }
            if p.a[i][j] != 0.0 {
                let a = o.lit(-p.a[i][j]);
                cp[i][j] = Some(o.mul(a, h));
            }
        }
    }
    let terms = |c: &[Option<O::S>], k: &dyn Fn(usize) -> Vector| -> Vec<(O::S, Vector)> {
        c.iter()
            .enumerate()
            .filter_map(|(j, c)| c.map(|c| (c, k(j))))
            .collect()
    };
    let (mut first_q, mut first_p) = (true, true);
    if q.explicit() && p.explicit() {
        for i in 0..s {
            // A derivative later stages read lives in a stage slot, else in dq / dp.
            let later_q = (i + 1..s).any(|l| cq[l][i].is_some());
            let later_p = (i + 1..s).any(|l| cp[l][i].is_some());
            let kq = if later_q { Stage(2 * i as u16) } else { Dq };
            let kp = if later_p { Stage(2 * i as u16 + 1) } else { Dp };
            if i > 0 {
                sum(o, Q, Q0, &terms(&cq[i], &|j| Stage(2 * j as u16)));
                sum(o, P, P0, &terms(&cp[i], &|j| Stage(2 * j as u16 + 1)));
            }
            if later_q || q.b[i] != 0.0 {
                o.partial(Partial::P, Q, P, kq);
                accumulate(o, AccQ, q.b[i], kq, &mut first_q);
            }
            if later_p || p.b[i] != 0.0 {
                o.partial(Partial::Q, Q, P, kp);
                accumulate(o, AccP, p.b[i], kp, &mut first_p);
            }
        }
    } else {
        let mut solve = StageSolve {
            evals: Vec::new(),
            eqs: Vec::new(),
        };
        for i in 0..s {
            let [yq, yp, kq, kp] = slots(i);
            o.copy(yq, Q0);
            o.copy(yp, P0);
            solve.evals.push((Partial::P, yq, yp, kq));
            solve.evals.push((Partial::Q, yq, yp, kp));
            solve.eqs.push(StageEq {
                x: yq,
                base: Q0,
                terms: terms(&cq[i], &|j| slots(j)[2]),
            });
            solve.eqs.push(StageEq {
                x: yp,
                base: P0,
                terms: terms(&cp[i], &|j| slots(j)[3]),
            });
        }
        o.solve_stages(&solve);
        for (i, &(which, yq, yp, k)) in solve.evals.iter().enumerate() {
            o.partial(which, yq, yp, k);
            let stage = i / 2;
            if which == Partial::P {
                accumulate(o, AccQ, q.b[stage], k, &mut first_q);
            } else {
                accumulate(o, AccP, p.b[stage], k, &mut first_p);
            }
        }
    }
    o.update(Q, Q0, h, AccQ);
    let minus_h = o.neg(h);
    o.update(P, P0, minus_h, AccP);
}

/// One step of the Runge–Kutta–Nyström method (ā = `a`, b̄, b, c) of size `h` on
/// H = T(p) + V(q) with ∂H/∂p linear in p, so that M⁻¹x is ∂H/∂p at p = x (`partial(P, q, x)`):
/// q̇0 = M⁻¹p0, Q_i = q0 + c_i h q̇0 − h² Σ ā_ij M⁻¹∇V(Q_j), q1 = q0 + h (q̇0 − h Σ b̄_i
/// M⁻¹∇V(Q_i)), p1 = p0 − h Σ b_i ∇V(Q_i). Explicit ā only (`family::check_system`).
pub fn rkn<O: Ops>(o: &mut O, a: &[Vec<f64>], b_bar: &[f64], b: &[f64], c: &[f64], h: O::S) {
    let s = b.len();
    o.copy(Q0, Q);
    o.copy(P0, P);
    // q̇0 = ∂H/∂p(q0, p0) in dp: the drift's velocity
    o.partial(Partial::P, Q, P, Dp);
    let h2 = o.mul(h, h);
    // The stage forces ∇V(Q_j) in stage slot 2j, M⁻¹∇V(Q_j) in 2j + 1.
    let (force, accel) = (
        |j: usize| Stage(2 * j as u16),
        |j: usize| Stage(2 * j as u16 + 1),
    );
    let mut first_p = true;
    let mut q_terms: Vec<(O::S, Vector)> = Vec::new();
    for i in 0..s {
        let mut terms = Vec::new();
        if c[i] != 0.0 {
            let ci = o.lit(c[i]);
            terms.push((o.mul(ci, h), Dp));
        }
        for (j, &aij) in a[i].iter().enumerate().take(i) {
            if aij != 0.0 {
                let m = o.lit(-aij);
                terms.push((o.mul(m, h2), accel(j)));
            }
        }
        sum(o, Q, Q0, &terms);
        o.partial(Partial::Q, Q, P0, force(i));
        accumulate(o, AccP, b[i], force(i), &mut first_p);
        if b_bar[i] != 0.0 || (i + 1..s).any(|l| a[l][i] != 0.0) {
            o.partial(Partial::P, Q, force(i), accel(i));
        }
        if b_bar[i] != 0.0 {
            let m = o.lit(-b_bar[i]);
            q_terms.push((o.mul(m, h), accel(i)));
        }
    }
    // acc_q = q̇0 − h Σ b̄_i M⁻¹∇V(Q_i), then q1 = q0 + h·acc_q
    sum(o, AccQ, Dp, &q_terms);
    o.update(Q, Q0, h, AccQ);
    let minus_h = o.neg(h);
    o.update(P, P0, minus_h, AccP);
}
