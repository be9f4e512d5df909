//! The step on the CPU engine: the discrete Euler–Lagrange equations in position–momentum
//! form (Marsden & West, "Discrete mechanics and variational integrators", §1.5). From the
//! state (q0, p0), q1 solves p0 + D₁L_d(q0, q1) = 0, by Newton's method with the exact
//! Jacobian D₁₂L_d (the Lagrangian's symbolic second derivatives, `ExprHamiltonian`'s
//! directional derivatives with v in p's place), and p1 = D₂L_d(q0, q1). With the quadrature
//! L_d = h Σᵢ wᵢ L(Qᵢ, V), Qᵢ = (1 − cᵢ) q0 + cᵢ q1, V = (q1 − q0)/h:
//!
//! ```text
//! D₁L_d = Σᵢ wᵢ [h (1 − cᵢ) L_q(Qᵢ, V) − L_v(Qᵢ, V)]
//! D₂L_d = Σᵢ wᵢ [h cᵢ L_q(Qᵢ, V) + L_v(Qᵢ, V)]
//! ```
//!
//! p1 is evaluated as p0 + (D₁L_d + D₂L_d) = p0 + h Σᵢ wᵢ L_q(Qᵢ, V), which is D₂L_d where
//! the first equation holds (to the solve's tolerance): the L_v terms cancel, so the momentum
//! of a coordinate L does not depend on (a cyclic one, polar Kepler's angle) is conserved
//! bit for bit, as Noether's theorem says, rather than re-read through V = (q1 − q0)/h, whose
//! difference of two growing angles rounds at 10⁻¹² relative after a few orbits (p_θ then
//! drifted by 10⁻¹⁰ in 10⁵ steps).
//!
//! and the derivative of either along (δq0, δq1) is the same sum of L_q's and L_v's
//! directional derivatives along (δQᵢ, δV) = ((1 − cᵢ) δq0 + cᵢ δq1, (δq1 − δq0)/h).
//!
//! The block's points iterate together, as `system::Newton` sweeps them: each iteration
//! evaluates the block, and a point that has converged keeps its iterate, so each point
//! takes exactly the iterates of the GPU thread's loop (`wgsl.rs`). Convergence: every
//! increment at most `newton.tol`·(1 + |q1ₖ|), the rule of every implicit solve of the
//! engines (`method::implicit`); a point still moving
//! after `newton.max_iter` iterations adds 1 to `unconverged`; a NaN increment stops (the
//! point escapes).
//!
//! Where L = ½vᵀMv + c·v − U(q) with M and c constant and every node is an end of the step
//! (`left`, `right`, `trapezoid`), D₁L_d is affine in q1 and `step` hands the step to
//! `explicit`, which takes it without iterating.

use std::any::Any;
use std::cell::RefCell;

use super::explicit::{self, ConstantMass};
use super::Discretization;
use crate::expr::ExprHamiltonian;
use crate::float::Real;
use crate::system::Newton;

/// Sums of L_q's and L_v's values (or directional derivatives) over the quadrature nodes,
/// for the points of a block: Σ wᵢ [a(cᵢ) L_q + b(cᵢ) L_v] with the coefficients of D₁L_d
/// (a = h(1 − c), b = −1) or of D₁L_d + D₂L_d (a = h, no L_v).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Side {
    First,
    Both,
}

impl Side {
    fn coefficients<T: Real>(self, h: T, c: f64) -> (T, T) {
        match self {
            Side::First => (h * T::from_f64(1.0 - c), -T::ONE),
            Side::Both => (h, T::ZERO),
        }
    }
}

/// The buffers one step evaluates in (d·n values each).
struct Scratch<T> {
    at: Vec<T>,
    vel: Vec<T>,
    gq: Vec<T>,
    gv: Vec<T>,
    dq: Vec<T>,
    dv: Vec<T>,
}

impl<T: Real> Scratch<T> {
    fn new(nd: usize) -> Self {
        let z = || vec![T::ZERO; nd];
        Scratch {
            at: z(),
            vel: z(),
            gq: z(),
            gv: z(),
            dq: z(),
            dv: z(),
        }
    }

    /// Qᵢ and V of the block at node c.
    fn node(&mut self, c: f64, h: T, q0: &[T], q1: &[T]) {
        let (a, b) = (T::from_f64(1.0 - c), T::from_f64(c));
        for (((x, v), &x0), &x1) in self.at.iter_mut().zip(&mut self.vel).zip(q0).zip(q1) {
            *x = if c == 0.0 {
                x0
            } else if c == 1.0 {
                x1
            } else {
                a * x0 + b * x1
            };
            *v = (x1 - x0) / h;
        }
    }
}

/// The Jacobian's directions (δq0 = 0, δq1 a unit vector) and the column they give
/// (`jacobian`), d·n values each.
struct Directions<T> {
    zero: Vec<T>,
    unit: Vec<T>,
    column: Vec<T>,
}

impl<T: Real> Directions<T> {
    fn new(nd: usize) -> Self {
        let z = || vec![T::ZERO; nd];
        Directions {
            zero: z(),
            unit: z(),
            column: z(),
        }
    }
}

/// What `step` works in, kept by each thread from one call to the next (`lend`):
/// made per call, its dozen vectors and the Jacobian's three per iteration were a tenth of a
/// Lagrangian run (18 allocations per step of a block of 128 points). Every value is written
/// before it is read in each call, so a call finds nothing of the last one.
struct Buffers<T> {
    q0: Vec<T>,
    s: Scratch<T>,
    dirs: Directions<T>,
    f: Vec<T>,
    jac: Vec<T>,
    a: Vec<T>,
    b: Vec<T>,
    active: Vec<bool>,
}

impl<T: Real> Buffers<T> {
    fn new(d: usize, n: usize) -> Self {
        let nd = d * n;
        Buffers {
            q0: vec![T::ZERO; nd],
            s: Scratch::new(nd),
            dirs: Directions::new(nd),
            f: vec![T::ZERO; nd],
            jac: vec![T::ZERO; d * d * n],
            a: vec![T::ZERO; d * d],
            b: vec![T::ZERO; d],
            active: vec![true; n],
        }
    }
}

/// `work` given this thread's `B` (kept from the last call where `fits` accepts it, else made
/// by `make`): the buffers of a step, kept by each thread from one call to the next. One slot
/// per thread for every kind of buffers: a thread that alternates two kinds remakes them.
pub(super) fn lend<B: Any, R>(
    fits: impl FnOnce(&B) -> bool,
    make: impl FnOnce() -> B,
    work: impl FnOnce(&mut B) -> R,
) -> R {
    thread_local! {
        static KEPT: RefCell<Option<Box<dyn Any>>> = const { RefCell::new(None) };
    }
    let kept = KEPT.with(|k| k.borrow_mut().take());
    let mut buffers = match kept.map(|b| b.downcast::<B>()) {
        Some(Ok(b)) if fits(&b) => b,
        _ => Box::new(make()),
    };
    let out = work(&mut buffers);
    KEPT.with(|k| *k.borrow_mut() = Some(buffers));
    out
}

/// out += Σᵢ wᵢ [a L_q + b L_v] (`Side`) at (Qᵢ, V), for the block (q0, q1).
fn add_side<T: Real>(
    l: &ExprHamiltonian,
    rule: Discretization,
    side: Side,
    h: T,
    (q0, q1): (&[T], &[T]),
    s: &mut Scratch<T>,
    out: &mut [T],
) {
    for &(c, w) in rule.nodes() {
        s.node(c, h, q0, q1);
        l.grad_q(&s.at, &s.vel, &mut s.gq);
        let (a, b) = side.coefficients(h, c);
        let w = T::from_f64(w);
        if side == Side::Both {
            for (o, &gq) in out.iter_mut().zip(&s.gq) {
                *o += w * (a * gq);
            }
            continue;
        }
        l.grad_p(&s.at, &s.vel, &mut s.gv);
        for ((o, &gq), &gv) in out.iter_mut().zip(&s.gq).zip(&s.gv) {
            *o += w * (a * gq + b * gv);
        }
    }
}

/// out += the derivative of `side` along (δq0, δq1) (component-major, like q0), for the
/// block (q0, q1).
#[allow(clippy::too_many_arguments)]
fn add_side_dir<T: Real>(
    l: &ExprHamiltonian,
    rule: Discretization,
    side: Side,
    h: T,
    (q0, q1): (&[T], &[T]),
    (d0, d1): (&[T], &[T]),
    s: &mut Scratch<T>,
    out: &mut [T],
) {
    for &(c, w) in rule.nodes() {
        s.node(c, h, q0, q1);
        let (a0, a1) = (T::from_f64(1.0 - c), T::from_f64(c));
        for (((dq, dv), &x0), &x1) in s.dq.iter_mut().zip(&mut s.dv).zip(d0).zip(d1) {
            *dq = a0 * x0 + a1 * x1;
            *dv = (x1 - x0) / h;
        }
        l.grad_q_dir(&s.at, &s.vel, &s.dq, &s.dv, &mut s.gq);
        let (a, b) = side.coefficients(h, c);
        let w = T::from_f64(w);
        if side == Side::Both {
            for (o, &gq) in out.iter_mut().zip(&s.gq) {
                *o += w * (a * gq);
            }
            continue;
        }
        l.grad_p_dir(&s.at, &s.vel, &s.dq, &s.dv, &mut s.gv);
        for ((o, &gq), &gv) in out.iter_mut().zip(&s.gq).zip(&s.gv) {
            *o += w * (a * gq + b * gv);
        }
    }
}

/// The Jacobian ∂(D₁L_d)/∂q1 of every point of the block: `jac[(r·d + k)·n + i]` is row r,
/// column k of point i's.
fn jacobian<T: Real>(
    l: &ExprHamiltonian,
    rule: Discretization,
    h: T,
    (q0, q1): (&[T], &[T]),
    (s, dirs): (&mut Scratch<T>, &mut Directions<T>),
    jac: &mut [T],
) {
    let nd = q0.len();
    let (d, n) = (l.dof, nd / l.dof);
    // `zero` is made zero and never written.
    let Directions { zero, unit, column } = dirs;
    for k in 0..d {
        unit.fill(T::ZERO);
        unit[k * n..(k + 1) * n].fill(T::ONE);
        column.fill(T::ZERO);
        add_side_dir(l, rule, Side::First, h, (q0, q1), (zero, unit), s, column);
        for r in 0..d {
            jac[(r * d + k) * n..][..n].copy_from_slice(&column[r * n..][..n]);
        }
    }
}

/// Solve a x = b in place (a: d×d by rows, b: d values; x in b) by Gaussian elimination with
/// partial pivoting. A singular a leaves non-finite values in b. CPU mirror of the WGSL
/// `lag_solve` (`wgsl.rs`): the same operations in the same order.
#[inline(always)]
pub fn solve<T: Real>(a: &mut [T], b: &mut [T], d: usize) {
    if d == 1 {
        // What the elimination below computes for one unknown (its back substitution alone),
        // without the loops around it: a step's solve per point per iteration was a fifth of
        // a Lagrangian run.
        b[0] = b[0] / a[0];
        return;
    }
    for col in 0..d {
        let mut pivot = col;
        for r in col + 1..d {
            if a[r * d + col].abs() > a[pivot * d + col].abs() {
                pivot = r;
            }
        }
        if pivot != col {
            for k in 0..d {
                a.swap(col * d + k, pivot * d + k);
            }
            b.swap(col, pivot);
        }
        let inv = T::ONE / a[col * d + col];
        for r in col + 1..d {
            let f = a[r * d + col] * inv;
            for k in col + 1..d {
                let x = a[col * d + k];
                a[r * d + k] -= f * x;
            }
            let x = b[col];
            b[r] -= f * x;
        }
    }
    for col in (0..d).rev() {
        let mut x = b[col];
        for k in col + 1..d {
            x -= a[col * d + k] * b[k];
        }
        b[col] = x / a[col * d + col];
    }
}

/// One step of the block's points (q, p component-major, n = len / d), in place: explicit
/// where L has a constant mass matrix `mass` and the rule allows it
/// (`Discretization::ends_only`), else by Newton's method.
#[allow(clippy::too_many_arguments)]
pub fn step<T: Real>(
    l: &ExprHamiltonian,
    mass: Option<&ConstantMass>,
    rule: Discretization,
    h: T,
    q: &mut [T],
    p: &mut [T],
    newton: Newton,
    unconverged: &mut [u32],
) {
    if let Some(mass) = mass.filter(|_| rule.ends_only()) {
        return explicit::step(l, mass, rule, h, q, p);
    }
    let (d, n) = (l.dof, q.len() / l.dof);
    lend(
        |b: &Buffers<T>| b.b.len() == d && b.active.len() == n,
        || Buffers::new(d, n),
        |buffers| step_in(l, rule, h, (q, p), newton, unconverged, buffers),
    )
}

/// `step` in `buffers`.
fn step_in<T: Real>(
    l: &ExprHamiltonian,
    rule: Discretization,
    h: T,
    (q, p): (&mut [T], &mut [T]),
    newton: Newton,
    unconverged: &mut [u32],
    buffers: &mut Buffers<T>,
) {
    let (d, n) = (l.dof, q.len() / l.dof);
    let Buffers {
        q0,
        s,
        dirs,
        f,
        jac,
        a,
        b,
        active,
        ..
    } = buffers;
    q0.copy_from_slice(q);
    active.fill(true);
    let tol = T::from_f64(newton.tol);
    for _ in 0..newton.max_iter {
        f.copy_from_slice(p);
        add_side(l, rule, Side::First, h, (q0, q), s, f);
        jacobian(l, rule, h, (q0, q), (s, dirs), jac);
        for (i, on) in active.iter_mut().enumerate().filter(|(_, on)| **on) {
            for (e, x) in a.iter_mut().enumerate() {
                *x = jac[e * n + i];
            }
            for (k, x) in b.iter_mut().enumerate() {
                *x = f[k * n + i];
            }
            solve(a, b, d);
            let mut moving = false;
            for (k, &delta) in b.iter().enumerate() {
                let x = q[k * n + i] - delta;
                q[k * n + i] = x;
                // false for a NaN increment too: the point stops (and escapes), as in WGSL.
                moving = moving || delta.abs() > tol * (T::ONE + x.abs());
            }
            *on = moving;
        }
        if !active.contains(&true) {
            break;
        }
    }
    for (u, &on) in unconverged.iter_mut().zip(active.iter()) {
        *u += u32::from(on);
    }
    add_side(l, rule, Side::Both, h, (q0, q), s, p);
}

/// Advance the tangent columns of a block through the step just taken from q0 to q1 (the
/// points' configurations before and after): each column (δq0, δp0) becomes (δq1, δp1) with
/// ∂(D₁L_d)/∂q1 δq1 = −δp0 − ∂(D₁L_d)/∂q0 δq0 and δp1 = δp0 + the derivative of
/// D₁L_d + D₂L_d along (δq0, δq1), the map's exact linearisation in the form its p1 is
/// computed (`step`): the derivative of D₂L_d alone adds two terms of size |δq|/h that
/// cancel to |δp|, and lost the determinant 10⁻⁹ in 10⁴ steps of the pendulum (Verlet's
/// kernel 2·10⁻¹¹). Columns at `j·len..` of `tq`, `tp`.
pub fn tangent<T: Real>(
    l: &ExprHamiltonian,
    rule: Discretization,
    h: T,
    (q0, q1): (&[T], &[T]),
    tq: &mut [T],
    tp: &mut [T],
) {
    let nd = q0.len();
    let (d, n) = (l.dof, nd / l.dof);
    let mut s = Scratch::new(nd);
    let mut jac = vec![T::ZERO; d * d * n];
    let mut dirs = Directions::new(nd);
    jacobian(l, rule, h, (q0, q1), (&mut s, &mut dirs), &mut jac);
    let zero = vec![T::ZERO; nd];
    let (mut a, mut b) = (vec![T::ZERO; d * d], vec![T::ZERO; d]);
    let mut rhs = vec![T::ZERO; nd];
    for (cq, cp) in tq.chunks_exact_mut(nd).zip(tp.chunks_exact_mut(nd)) {
        rhs.copy_from_slice(cp);
        add_side_dir(
            l,
            rule,
            Side::First,
            h,
            (q0, q1),
            (cq, &zero),
            &mut s,
            &mut rhs,
        );
        let mut d1 = vec![T::ZERO; nd];
        for i in 0..n {
            for (e, x) in a.iter_mut().enumerate() {
                *x = jac[e * n + i];
            }
            for (k, x) in b.iter_mut().enumerate() {
                *x = -rhs[k * n + i];
            }
            solve(&mut a, &mut b, d);
            for (k, &x) in b.iter().enumerate() {
                d1[k * n + i] = x;
            }
        }
        add_side_dir(l, rule, Side::Both, h, (q0, q1), (cq, &d1), &mut s, cp);
        cq.copy_from_slice(&d1);
    }
}
