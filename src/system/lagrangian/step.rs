//! The step on the CPU engine: the discrete Euler–Lagrange equations in position–momentum
//! form (Marsden & West, "Discrete mechanics and variational integrators", §1.5). From the
//! state (q0, p0) the step's control points X = (Q¹, …, Qˢ), Qˢ = q1, solve p0 + G₀ = 0 and
//! G_ν = 0 for 0 < ν < s (`equations.rs`: G_ν = ∂L_d/∂Q^ν; for one segment, s = 1, the
//! single equation p0 + D₁L_d(q0, q1) = 0), by Newton's method with the exact Jacobian (the
//! Lagrangian's symbolic second derivatives, `ExprHamiltonian`'s directional derivatives with
//! v in p's place), and p1 = D₂L_d = Gₛ.
//!
//! p1 is evaluated as p0 + Σ_ν G_ν = p0 + h Σᵢ wᵢ L_q(q(cᵢh), q̇(cᵢh)), which is Gₛ where the
//! equations hold (to the solve's tolerance): the L_v terms cancel, so the momentum of a
//! coordinate L does not depend on (a cyclic one, polar Kepler's angle) is conserved bit for
//! bit, as Noether's theorem says, rather than re-read through q̇, whose difference of two
//! growing angles rounds at 10⁻¹² relative after a few orbits (p_θ then drifted by 10⁻¹⁰ in
//! 10⁵ steps).
//!
//! The block's points iterate together, as `system::Newton` sweeps them: each iteration
//! evaluates the block, and a point that has converged keeps its iterate, so each point
//! takes exactly the iterates of the GPU thread's loop (`wgsl.rs`). Convergence: every
//! increment at most `newton.tol`·(1 + |xₖ|), the rule of every implicit solve of the
//! engines (`method::implicit`); a point still moving after `newton.max_iter` iterations adds
//! 1 to `unconverged`; a NaN increment stops (the point escapes).
//!
//! Where L = ½vᵀMv + c·v − U(q) with M and c constant and every node is an end of the step
//! (`left`, `right`, `trapezoid`), G₀ is affine in q1 and `step` hands the step to
//! `explicit`, which takes it without iterating.

use std::any::Any;
use std::cell::RefCell;

use super::equations::{add_kick, add_rows, add_rows_dir, jacobian, Scratch};
use super::explicit::{self, ConstantMass};
use super::Discretization;
use crate::expr::ExprHamiltonian;
use crate::float::Real;
use crate::system::Newton;

/// What `step` works in, kept by each thread from one call to the next (`lend`):
/// made per call, its dozen vectors and the Jacobian's three per iteration were a tenth of a
/// Lagrangian run (18 allocations per step of a block of 128 points). Every value is written
/// before it is read in each call, so a call finds nothing of the last one.
struct Buffers<T> {
    /// The configurations the step starts from (d·n).
    q0: Vec<T>,
    /// The unknowns X (s·d·n), the residual rows (s·d·n), the Jacobian ((s·d)²·n).
    x: Vec<T>,
    f: Vec<T>,
    jac: Vec<T>,
    s: Scratch<T>,
    /// The Jacobian's directions: δQ⁰ = 0 (d·n, never written), δX a unit vector and the
    /// column it gives (s·d·n each).
    zero: Vec<T>,
    unit: Vec<T>,
    column: Vec<T>,
    /// One point's system (u² and u values, u = s·d).
    a: Vec<T>,
    b: Vec<T>,
    active: Vec<bool>,
}

impl<T: Real> Buffers<T> {
    fn new(u: usize, nd: usize, n: usize) -> Self {
        let z = |len: usize| vec![T::ZERO; len];
        let un = u * n;
        Buffers {
            q0: z(nd),
            x: z(un),
            f: z(un),
            jac: z(u * un),
            s: Scratch::new(nd),
            zero: z(nd),
            unit: z(un),
            column: z(un),
            a: z(u * u),
            b: z(u),
            active: vec![true; n],
        }
    }

    /// Whether these buffers are of this shape: u unknowns a point, d·n = `nd` values a
    /// configuration, n points (u alone does not say: s·d = 2 for a quadratic path in one
    /// degree of freedom and for one segment in two).
    fn fits(&self, u: usize, nd: usize, n: usize) -> bool {
        self.b.len() == u && self.q0.len() == nd && self.active.len() == n
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

/// Solve a x = b in place (a: d×d by rows, b: d values; x in b) by Gaussian elimination with
/// partial pivoting: `solve_many` for one right-hand side. A singular a leaves non-finite
/// values in b. CPU mirror of the WGSL `lag_solve` (`wgsl.rs`): the same operations in the
/// same order.
#[inline(always)]
pub fn solve<T: Real>(a: &mut [T], b: &mut [T], d: usize) {
    solve_many(a, b, d, 1)
}

/// Solve a x = b for n right-hand sides at once (a: d×d by rows; b component-major,
/// `b[k·n + i]` component k of right-hand side i; x in b) by Gaussian elimination with partial
/// pivoting: `a` is eliminated once and each right-hand side takes the same operations in the
/// same order as alone, so each x is bit for bit what n = 1 gives, in loops over the points
/// that vectorise (a constant mass matrix's solve point by point was half of an explicit
/// Lagrangian run).
#[inline(always)]
pub fn solve_many<T: Real>(a: &mut [T], b: &mut [T], d: usize, n: usize) {
    if d == 1 {
        // The elimination's back substitution alone, without its loops: a step's solve per
        // point per iteration was a fifth of a Lagrangian run.
        divide(b, a[0]);
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
            for i in 0..n {
                b.swap(col * n + i, pivot * n + i);
            }
        }
        let inv = T::ONE / a[col * d + col];
        for r in col + 1..d {
            let f = a[r * d + col] * inv;
            for k in col + 1..d {
                let x = a[col * d + k];
                a[r * d + k] -= f * x;
            }
            let (upper, lower) = b.split_at_mut(r * n);
            for (y, &x) in lower[..n].iter_mut().zip(&upper[col * n..][..n]) {
                *y -= f * x;
            }
        }
    }
    for col in (0..d).rev() {
        let (head, tail) = b.split_at_mut((col + 1) * n);
        let row = &mut head[col * n..];
        for k in col + 1..d {
            let c = a[col * d + k];
            for (y, &x) in row.iter_mut().zip(&tail[(k - col - 1) * n..][..n]) {
                *y -= c * x;
            }
        }
        divide(row, a[col * d + col]);
    }
}

/// x / a for each x, skipped where a = 1 (x / 1 is x, bit for bit): a unit mass's division
/// was a tenth of an explicit Lagrangian run.
fn divide<T: Real>(x: &mut [T], a: T) {
    if a != T::ONE {
        for x in x {
            *x = *x / a;
        }
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
    let (nd, n) = (q.len(), q.len() / l.dof);
    let u = rule.degree() * l.dof;
    lend(
        |b: &Buffers<T>| b.fits(u, nd, n),
        || Buffers::new(u, nd, n),
        |b| {
            let mut q0 = std::mem::take(&mut b.q0);
            q0.copy_from_slice(q);
            solve_controls(l, rule, h, (&q0, p), newton, unconverged, b);
            q.copy_from_slice(&b.x[b.x.len() - nd..]);
            add_kick(l, rule, h, (&q0, &b.x), None, &mut b.s, p);
            b.q0 = q0;
        },
    )
}

/// X solved into `b.x`: every control point starts at q0.
fn solve_controls<T: Real>(
    l: &ExprHamiltonian,
    rule: Discretization,
    h: T,
    (q0, p): (&[T], &[T]),
    newton: Newton,
    unconverged: &mut [u32],
    b: &mut Buffers<T>,
) {
    let nd = q0.len();
    let Buffers {
        x,
        f,
        jac,
        s,
        zero,
        unit,
        column,
        a,
        b: rhs,
        active,
        ..
    } = b;
    for control in x.chunks_exact_mut(nd) {
        control.copy_from_slice(q0);
    }
    active.fill(true);
    let tol = T::from_f64(newton.tol);
    for _ in 0..newton.max_iter {
        f.fill(T::ZERO);
        f[..nd].copy_from_slice(p);
        add_rows(l, rule, h, (q0, x), s, f);
        jacobian(l, rule, h, (q0, x), s, (zero, unit, column), jac);
        if !update(jac, f, x, active, (a, rhs), tol) {
            break;
        }
    }
    count(active, unconverged);
}

/// One Newton iteration of a block's points still `active` (u = `b.len()` unknowns a point,
/// n = `active.len()` points, component-major): each solves J δ = f (`jac[e·n + i]` entry e
/// of point i's J by rows, `f[k·n + i]` its residual) and takes x − δ, and stays active while
/// an increment exceeds `tol`·(1 + |x|) (a NaN increment stops it: the point escapes, as in
/// WGSL). Whether any point is still active.
pub(super) fn update<T: Real>(
    jac: &[T],
    f: &[T],
    x: &mut [T],
    active: &mut [bool],
    (a, b): (&mut [T], &mut [T]),
    tol: T,
) -> bool {
    let (n, u) = (active.len(), b.len());
    for (i, on) in active.iter_mut().enumerate().filter(|(_, on)| **on) {
        for (e, y) in a.iter_mut().enumerate() {
            *y = jac[e * n + i];
        }
        for (k, y) in b.iter_mut().enumerate() {
            *y = f[k * n + i];
        }
        solve(a, b, u);
        let mut moving = false;
        for (k, &delta) in b.iter().enumerate() {
            let y = x[k * n + i] - delta;
            x[k * n + i] = y;
            moving = moving || delta.abs() > tol * (T::ONE + y.abs());
        }
        *on = moving;
    }
    active.contains(&true)
}

/// 1 added to `unconverged` for each point still active after the last iteration.
pub(super) fn count(active: &[bool], unconverged: &mut [u32]) {
    for (u, &on) in unconverged.iter_mut().zip(active) {
        *u += u32::from(on);
    }
}

/// Advance the tangent columns of a block through the step from (q0, p0): its control points
/// X (q1 and a path's interior points) solved again by Newton's method (`newton`), then each
/// column (δq0, δp0) becomes (δq1, δp1) with J δX = −(δp0 in row 0 + the derivative of the
/// rows along (δq0, 0)), J = ∂(G₀, …, G_{s−1})/∂X at X, δq1 = δQˢ and δp1 = δp0 + the
/// derivative of h Σᵢ wᵢ L_q along (δq0, δX): the map's exact linearisation in the form its
/// p1 is computed (`step`). The derivative of D₂L_d alone adds two terms of size |δq|/h that
/// cancel to |δp|, and lost the determinant 10⁻⁹ in 10⁴ steps of the pendulum (Verlet's
/// kernel 2·10⁻¹¹). Columns at `j·len..` of `tq`, `tp`; the buffers are lent as `step`'s.
#[allow(clippy::too_many_arguments)]
pub fn tangent<T: Real>(
    l: &ExprHamiltonian,
    rule: Discretization,
    h: T,
    (q0, p0): (&[T], &[T]),
    newton: Newton,
    tq: &mut [T],
    tp: &mut [T],
) {
    let (nd, n) = (q0.len(), q0.len() / l.dof);
    let u = rule.degree() * l.dof;
    let mut unconverged = vec![0; n];
    lend(
        |b: &Buffers<T>| b.fits(u, nd, n),
        || Buffers::new(u, nd, n),
        |b| {
            solve_controls(l, rule, h, (q0, p0), newton, &mut unconverged, b);
            columns(l, rule, h, q0, b, tq, tp);
        },
    )
}

/// `tangent`'s columns about the control points in `b.x`.
fn columns<T: Real>(
    l: &ExprHamiltonian,
    rule: Discretization,
    h: T,
    q0: &[T],
    b: &mut Buffers<T>,
    tq: &mut [T],
    tp: &mut [T],
) {
    let (nd, n) = (q0.len(), q0.len() / l.dof);
    let u = b.b.len();
    let Buffers {
        x,
        f: rows,
        jac,
        s,
        zero,
        unit,
        column,
        a,
        b: rhs,
        ..
    } = b;
    jacobian(l, rule, h, (q0, x), s, (zero, unit, column), jac);
    // δX = 0 in the rows' derivative along (δq0, 0); `column` holds δX after.
    unit.fill(T::ZERO);
    let dx = column;
    for (cq, cp) in tq.chunks_exact_mut(nd).zip(tp.chunks_exact_mut(nd)) {
        rows.fill(T::ZERO);
        rows[..nd].copy_from_slice(cp);
        add_rows_dir(l, rule, h, (q0, x), (cq, unit), s, rows);
        for i in 0..n {
            for (e, y) in a.iter_mut().enumerate() {
                *y = jac[e * n + i];
            }
            for (k, y) in rhs.iter_mut().enumerate() {
                *y = -rows[k * n + i];
            }
            solve(a, rhs, u);
            for (k, &y) in rhs.iter().enumerate() {
                dx[k * n + i] = y;
            }
        }
        add_kick(l, rule, h, (q0, x), Some((cq, dx)), s, cp);
        cq.copy_from_slice(&dx[dx.len() - nd..]);
    }
}
