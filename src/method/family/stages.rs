//! The steps of the coefficient families, written once over `Ops` (conventions in
//! `method::tableau`). Runge–Kutta methods run as partitioned ones with the same tableau for q
//! and p. Explicit tableaus are straight-line code: each stage's value from the earlier stage
//! derivatives that it reads (kept in stage slots only while a later stage needs them), its
//! derivatives, and b_i times them added to the accumulators at once. Implicit tableaus solve
//! all stage values together (`Ops::solve_stages`, from y0), evaluate the derivatives once more
//! at the solution (points leave the iteration at different sweeps, so the engines agree only
//! on the solved values), then sum. The result is y0 + h·acc as a compensated `update`, as the
//! built-ins finish.

use crate::method::file::MAX_STAGES;
use crate::method::ops::{v, Ops, StageEq, StageSolve, Vector};
use crate::method::tableau::{Rkn, Tableau};
use crate::method::Partial;
use Vector::*;

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
    let (mut first_q, mut first_p) = (true, true);
    if q.explicit() && p.explicit() {
        explicit_prk(o, q, p, h, &mut first_q, &mut first_p);
    } else {
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

/// The stage derivatives of an explicit partitioned method, accumulated into acc_q, acc_p:
/// straight-line code without allocation (a block's step is a few microseconds). Each
/// coefficient h·a_ij is built where its stage uses it (once), and a derivative's slot is
/// reused once no later stage reads it (classic RK4 keeps every k in dq / dp, as the built-in
/// does).
fn explicit_prk<O: Ops>(
    o: &mut O,
    q: &Tableau,
    p: &Tableau,
    h: O::S,
    first_q: &mut bool,
    first_p: &mut bool,
) {
    let s = q.stages();
    let read_later = |t: &Tableau, j: usize, after: usize| (after + 1..s).any(|l| t.a[l][j] != 0.0);
    let (mut at_q, mut at_p) = ([Dq; MAX_STAGES], [Dp; MAX_STAGES]);
    let (mut free_q, mut free_p) = (Pool::new(Dq), Pool::new(Dp));
    for i in 0..s {
        if i > 0 {
            stage_sum(o, Q, Q0, &q.a[i][..i], 1.0, &at_q, h);
            stage_sum(o, P, P0, &p.a[i][..i], -1.0, &at_p, h);
            // Stage i has read its derivatives: free the slots no later stage reads.
            for j in 0..i {
                if q.a[i][j] != 0.0 && !read_later(q, j, i) {
                    free_q.push(at_q[j]);
                }
                if p.a[i][j] != 0.0 && !read_later(p, j, i) {
                    free_p.push(at_p[j]);
                }
            }
        }
        let (later_q, later_p) = (read_later(q, i, i), read_later(p, i, i));
        if later_q || q.b[i] != 0.0 {
            at_q[i] = free_q.pop().unwrap_or(Stage(2 * i as u16));
            o.partial(Partial::P, Q, P, at_q[i]);
            accumulate(o, AccQ, q.b[i], at_q[i], first_q);
            if !later_q {
                free_q.push(at_q[i]);
            }
        }
        if later_p || p.b[i] != 0.0 {
            at_p[i] = free_p.pop().unwrap_or(Stage(2 * i as u16 + 1));
            o.partial(Partial::Q, Q, P, at_p[i]);
            accumulate(o, AccP, p.b[i], at_p[i], first_p);
            if !later_p {
                free_p.push(at_p[i]);
            }
        }
    }
}

/// dst ← base + Σ_j (sign·a_j·h)·k_j over the nonzero a_j, summed left to right as a chain
/// of `axpy` (((base + t_1) + t_2) + …: how one linear combination would round, without the
/// run-time reading of a combination's form that a coefficient known only at run time costs
/// on the CPU), without allocation.
fn stage_sum<O: Ops>(
    o: &mut O,
    dst: Vector,
    base: Vector,
    a: &[f64],
    sign: f64,
    k: &[Vector],
    h: O::S,
) {
    let mut from = base;
    for (j, &aj) in a.iter().enumerate() {
        if aj == 0.0 {
            continue;
        }
        let c = o.lit(sign * aj);
        let c = o.mul(c, h);
        o.axpy(dst, from, c, k[j]);
        from = dst;
    }
    if from == base {
        o.copy(dst, base);
    }
}

/// Free derivative slots (at most a tableau's stages).
struct Pool {
    slots: [Vector; MAX_STAGES],
    len: usize,
}

impl Pool {
    fn new(first: Vector) -> Self {
        let mut slots = [first; MAX_STAGES];
        slots[0] = first;
        Pool { slots, len: 1 }
    }
    fn push(&mut self, v: Vector) {
        self.slots[self.len] = v;
        self.len += 1;
    }
    fn pop(&mut self) -> Option<Vector> {
        self.len = self.len.checked_sub(1)?;
        Some(self.slots[self.len])
    }
}

/// One step of the Runge–Kutta–Nyström method `m` (ā, b̄, b, c) of size `h` on
/// H = T(p) + V(q) with ∂H/∂p linear in p, so that M⁻¹x is ∂H/∂p at p = x (`partial(P, q, x)`):
/// q̇0 = M⁻¹p0, Q_i = q0 + c_i h q̇0 − h² Σ ā_ij M⁻¹∇V(Q_j), q1 = q0 + h (q̇0 − h Σ b̄_i
/// M⁻¹∇V(Q_i)), p1 = p0 − h Σ b_i ∇V(Q_i). Explicit ā only (`Rkn::check_system`). Sums
/// run left to right as chains of `axpy` (no allocation per step).
pub fn rkn<O: Ops>(o: &mut O, m: &Rkn, h: O::S) {
    let s = m.b.len();
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
    let (mut first_p, mut acc_q_from) = (true, Dp);
    for i in 0..s {
        // Q_i = q0 + c_i h q̇0 − h² Σ_j ā_ij M⁻¹∇V(Q_j)
        let mut from = Q0;
        if m.c[i] != 0.0 {
            let ci = o.lit(m.c[i]);
            let c = o.mul(ci, h);
            o.axpy(Q, from, c, Dp);
            from = Q;
        }
        for (j, &aij) in m.a[i].iter().enumerate().take(i) {
            if aij != 0.0 {
                let minus_a = o.lit(-aij);
                let c = o.mul(minus_a, h2);
                o.axpy(Q, from, c, accel(j));
                from = Q;
            }
        }
        if from == Q0 {
            o.copy(Q, Q0);
        }
        o.partial(Partial::Q, Q, P0, force(i));
        accumulate(o, AccP, m.b[i], force(i), &mut first_p);
        if m.b_bar[i] != 0.0 || (i + 1..s).any(|l| m.a[l][i] != 0.0) {
            o.partial(Partial::P, Q, force(i), accel(i));
        }
        // acc_q = q̇0 − h Σ b̄_i M⁻¹∇V(Q_i), summed as the stages come
        if m.b_bar[i] != 0.0 {
            let minus_b = o.lit(-m.b_bar[i]);
            let c = o.mul(minus_b, h);
            o.axpy(AccQ, acc_q_from, c, accel(i));
            acc_q_from = AccQ;
        }
    }
    if acc_q_from == Dp {
        o.copy(AccQ, Dp);
    }
    o.update(Q, Q0, h, AccQ);
    let minus_h = o.neg(h);
    o.update(P, P0, minus_h, AccP);
}
