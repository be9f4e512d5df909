//! The implicit stages of the symplectic Euler and Störmer–Verlet kernels, and the settings of
//! their fixed-point solver (`Ops::solve`; the kernel's loop: `Kernel::solve_iterated`,
//! `method::wgsl`).
//!
//! For a general H the stages are implicit, e.g. the kick P = base − c ∂qH(q, P). They are
//! solved by fixed-point (Jacobi) iteration from the current value. A system declares in
//! `SystemInfo::sweeps` when a fixed number of sweeps solves them exactly: one for separable
//! H (∂qH does not depend on p, so the first sweep is the explicit kick), two for the polar
//! elastic pendulum (triangular dependence). Then the kernel runs exactly that many sweeps, an
//! explicit method with no tolerance. Otherwise it iterates until every primal component of
//! the point moves by at most `tol · (1 + |x|)`, or, when `tol` is below the precision's
//! `rounding_gate`, until the point's largest relative move, once below the gate, stops
//! decreasing: the iteration has reached the rounding level of its fixed point (f64's default
//! `tol` is 0, so it always runs there: a fixed 1e-14 left the implicit midpoint rule's
//! solution off by about 1e-16 a step in a direction that adds up, a drift of H̃ over long
//! runs). A point that hits `max_iter` sweeps keeps its last iterate and has its
//! `unconverged` counter incremented, so it is counted in the `unconverged` column, never
//! hidden. Tangent columns ride along in the same
//! iteration: at the fixed point their iterates converge to the exact derivative of the
//! implicit map (their convergence is not tested; it follows the primal one's rate).

use serde::{Deserialize, Serialize};

use super::block::{Block, Cpu};
use super::ops::{Ops, StageSolve};
use crate::float::Real;

/// Settings of the fixed-point solver (`--implicit-tol`, `--implicit-max-iter`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Solver {
    /// Relative step size below which a point's iteration has converged.
    pub tol: f64,
    /// Sweeps after which an iteration that has not converged gives up (and is counted).
    pub max_iter: u32,
}

pub const DEFAULT_MAX_ITER: u32 = 100;

pub use crate::float::rounding_gate;

impl Solver {
    /// Defaults for a precision: in f32 a fixed tolerance of a few units in the last place
    /// (4e-7, cheap and as accurate as f32 steps are); in f64 0, to the rounding level (the
    /// move stops decreasing below `rounding_gate`).
    pub fn default_for<T: Real>() -> Solver {
        Solver {
            tol: if T::NAME == "f32" { 4e-7 } else { 0.0 },
            max_iter: DEFAULT_MAX_ITER,
        }
    }

    /// Whether a fixed-point iteration runs to the rounding level (until its move, below
    /// `rounding_gate`, stops decreasing): when `tol` asks for less than `rounding_gate`
    /// (which rounding may never reach).
    pub fn iterates_to_rounding<T: Real>(&self) -> bool {
        self.tol < rounding_gate::<T>()
    }

    /// The tolerance of the variational maps' Newton iterations: `tol`, at least the
    /// rounding gate. Newton converges quadratically, so a step below the gate leaves the
    /// solution at its rounding level already (one more step would be of the gate's square).
    pub fn newton_tol<T: Real>(&self) -> f64 {
        self.tol.max(rounding_gate::<T>())
    }
}

/// x ← next for one component of an active point; `conv` becomes false when a primal
/// component moved by more than tol·(1 + |next|), and `moved` (when `Some`: the iteration
/// runs to the rounding level) keeps the largest relative move |next − x|/(1 + |next|): the one
/// convergence rule of every CPU solve (the kernel's: `Kernel::sweep_component`).
#[inline(always)]
fn settle<T: Real>(
    x: &mut T,
    next: T,
    primal: bool,
    tol: T,
    conv: &mut bool,
    moved: Option<&mut T>,
) {
    if primal {
        let step = (next - *x).abs();
        let size = T::ONE + next.abs();
        if step > tol * size {
            *conv = false;
        }
        if let Some(m) = moved {
            // a select, not a branch, so that the loop over the points stays vectorised
            let relative = step / size;
            *m = if relative > *m { relative } else { *m };
        }
    }
    *x = next;
}

/// x ← base + c·g for the points still `active`; `conv[i]` becomes false when one of point
/// i's primal components (k < d) moved by more than tol·(1 + |x|), and `moved[i]` (iterations
/// to the rounding level) keeps its largest relative move.
#[allow(clippy::too_many_arguments)]
#[inline]
fn sweep<T: Real>(
    n: usize,
    d: usize,
    x: &mut [T],
    base: &[T],
    g: &[T],
    c: T,
    tol: T,
    active: &[bool],
    conv: &mut [bool],
    mut moved: Option<&mut [T]>,
) {
    for (comp, ((xs, bs), gs)) in x
        .chunks_mut(n)
        .zip(base.chunks(n))
        .zip(g.chunks(n))
        .enumerate()
    {
        let primal = comp < d;
        // two instances of one loop, so that the one without the move's bookkeeping stays tight
        match moved.as_deref_mut() {
            Some(m) => settle_row::<T, true>(xs, bs, gs, c, tol, primal, active, conv, m),
            None => settle_row::<T, false>(xs, bs, gs, c, tol, primal, active, conv, &mut []),
        }
    }
}

/// `settle` over one component's row of the points still `active`, keeping each point's
/// largest relative move in `moved` when `TRACK`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn settle_row<T: Real, const TRACK: bool>(
    xs: &mut [T],
    bs: &[T],
    gs: &[T],
    c: T,
    tol: T,
    primal: bool,
    active: &[bool],
    conv: &mut [bool],
    moved: &mut [T],
) {
    for i in 0..xs.len() {
        if active[i] {
            let m = if TRACK { Some(&mut moved[i]) } else { None };
            settle(&mut xs[i], bs[i] + c * gs[i], primal, tol, &mut conv[i], m);
        }
    }
}

/// Which stage `solve` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// p ← P with P = p0 − c ∂qH(q, P)
    Kick,
    /// q ← Q with Q = q0 + c ∂pH(Q, p)
    Drift,
    /// the implicit midpoint's m = y0 + c f(m): q ← q0 + c ∂pH(q, p), p ← p0 − c ∂qH(q, p) together
    Midpoint,
}

impl<T: Real> Cpu<'_, T> {
    /// The scaffold of every iterated solve on the block: `sweep(self, tol)` repeated until
    /// every point has converged (a sweep leaves `conv` true for it, or, iterating to the
    /// rounding level, its largest relative move is below `rounding_gate` and no smaller than
    /// the sweep before's) or `max_iter` sweeps, a converged point retired from `active` so
    /// its values stay as they are (its gradients are still evaluated: the block's loops run
    /// over all points), the points that hit the cap counted in `unconverged`. The kernel's:
    /// `Kernel::fixed_point_loop`.
    fn iterate_to_tolerance(&mut self, mut sweep: impl FnMut(&mut Self, T)) {
        let tol = T::from_f64(self.b.solver.tol);
        let stagnation = self.b.solver.iterates_to_rounding::<T>();
        let gate = T::from_f64(rounding_gate::<T>());
        self.b.active.fill(true);
        if stagnation {
            self.b.moved.resize(self.b.n, T::ZERO);
            self.b.last_moved.clear();
            self.b
                .last_moved
                .resize(self.b.n, T::from_f64(f64::INFINITY));
        }
        for _ in 0..self.b.solver.max_iter {
            self.b.conv.fill(true);
            if stagnation {
                self.b.moved.fill(T::ZERO);
            }
            sweep(self, tol);
            let b = &mut *self.b;
            if stagnation {
                // bitwise, not short-circuit, operators: a loop without branches
                let (moved, last) = (&b.moved[..b.n], &mut b.last_moved[..b.n]);
                for i in 0..b.n {
                    let m = moved[i];
                    b.conv[i] |= (m <= gate) & (m >= last[i]);
                    last[i] = m;
                }
            }
            let mut any = false;
            for (a, &ok) in b.active.iter_mut().zip(&b.conv) {
                *a &= !ok;
                any |= *a;
            }
            if !any {
                return;
            }
        }
        for (u, &a) in self.b.unconverged.iter_mut().zip(&self.b.active) {
            *u += a as u32;
        }
    }

    /// Solve an implicit stage for every point of the block by Jacobi sweeps from the current
    /// q, p (base values in q0 / p0) (`Ops::solve_iterated`).
    pub(crate) fn solve_to_tolerance(&mut self, stage: Stage, c: T) {
        self.iterate_to_tolerance(|cpu, tol| {
            cpu.stage_gradients(stage);
            cpu.b.sweep_stage(stage, c, tol);
        });
    }

    /// `Ops::solve_stages` on the block: each sweep evaluates the stage derivatives, then
    /// every equation's new value base + Σ c·g (summed left to right, as the kernel does) into
    /// a scratch vector, settled into x for the active points.
    pub(crate) fn solve_stages_to_tolerance(&mut self, s: &StageSolve<T>) {
        let (n, d) = (self.b.n, self.b.d);
        let mut next = self.b.take_scratch();
        self.iterate_to_tolerance(|cpu, tol| {
            for &(which, q, p, out) in &s.evals {
                cpu.partial(which, q, p, out);
            }
            for eq in &s.eqs {
                next.copy_from_slice(cpu.b.vector(eq.base));
                for &(c, g) in &eq.terms {
                    for (x, &gi) in next.iter_mut().zip(cpu.b.vector(g)) {
                        *x += c * gi;
                    }
                }
                let b = &mut *cpu.b;
                let mut x = std::mem::take(b.vector_mut(eq.x));
                let stagnation = b.solver.iterates_to_rounding::<T>();
                for (comp, (xs, ns)) in x.chunks_mut(n).zip(next.chunks(n)).enumerate() {
                    for i in 0..n {
                        if b.active[i] {
                            let m = stagnation.then(|| &mut b.moved[i]);
                            settle(&mut xs[i], ns[i], comp < d, tol, &mut b.conv[i], m);
                        }
                    }
                }
                *b.vector_mut(eq.x) = x;
            }
        });
        self.b.return_scratch(next);
    }
}

impl<T: Real> Block<T> {
    /// One Jacobi sweep x ← base + c·g of the stage over the active points, with the
    /// gradients already in dq / dp; a point whose primal components moved by more than the
    /// tolerance is marked unconverged in `conv`.
    fn sweep_stage(&mut self, stage: Stage, c: T, tol: T) {
        let (n, d) = (self.n, self.d);
        let stagnation = self.solver.iterates_to_rounding::<T>();
        if stage != Stage::Kick {
            sweep(
                n,
                d,
                &mut self.q,
                &self.q0,
                &self.dp,
                c,
                tol,
                &self.active,
                &mut self.conv,
                stagnation.then_some(&mut self.moved[..]),
            );
        }
        if stage != Stage::Drift {
            sweep(
                n,
                d,
                &mut self.p,
                &self.p0,
                &self.dq,
                -c,
                tol,
                &self.active,
                &mut self.conv,
                stagnation.then_some(&mut self.moved[..]),
            );
        }
    }
}
