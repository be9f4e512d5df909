//! The implicit stages of the symplectic Euler and Störmer–Verlet kernels, and the settings of
//! their fixed-point solver. WGSL mirror: `Kernel::solve` (`method::wgsl`).
//!
//! For a general H the stages are implicit, e.g. the kick P = base − c ∂qH(q, P). They are
//! solved by fixed-point (Jacobi) iteration from the current value. A system declares in
//! `SystemInfo::sweeps` when a fixed number of sweeps solves them exactly: one for separable
//! H (∂qH does not depend on p, so the first sweep is the explicit kick), two for the polar
//! elastic pendulum (triangular dependence). Then the kernel runs exactly that many sweeps, an
//! explicit method with no tolerance. Otherwise it iterates until every primal component of
//! the point moves by at most `tol · (1 + |x|)`, or `max_iter` sweeps; a point that hits the
//! cap keeps its last iterate and has its `unconverged` counter incremented, so it is counted
//! in the `unconverged` column, never hidden. Tangent columns ride along in the same
//! iteration: at the fixed point their iterates converge to the exact derivative of the
//! implicit map (their convergence is not tested; it follows the primal one's rate).

use serde::{Deserialize, Serialize};

use super::Block;
use crate::float::Real;
use crate::system::System;

/// Settings of the fixed-point solver (`--implicit-tol`, `--implicit-max-iter`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Solver {
    /// Relative step size below which a point's iteration has converged.
    pub tol: f64,
    /// Sweeps after which an iteration that has not converged gives up (and is counted).
    pub max_iter: u32,
}

pub const DEFAULT_MAX_ITER: u32 = 100;

impl Solver {
    /// Defaults for a precision: a few units in the last place (f32: 4e-7, f64: 1e-14).
    pub fn default_for<T: Real>() -> Solver {
        Solver {
            tol: if T::NAME == "f32" { 4e-7 } else { 1e-14 },
            max_iter: DEFAULT_MAX_ITER,
        }
    }
}

/// x ← base + c·g for the points still `active`; `conv[i]` becomes false when one of point
/// i's primal components (k < d) moved by more than tol·(1 + |x|).
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
) {
    for (comp, ((xs, bs), gs)) in x
        .chunks_mut(n)
        .zip(base.chunks(n))
        .zip(g.chunks(n))
        .enumerate()
    {
        for i in 0..n {
            if active[i] {
                let next = bs[i] + c * gs[i];
                if comp < d && (next - xs[i]).abs() > tol * (T::ONE + next.abs()) {
                    conv[i] = false;
                }
                xs[i] = next;
            }
        }
    }
}

/// x ← base + c·g, elementwise (one exact sweep).
#[inline(always)]
fn base_plus<T: Real>(x: &mut [T], base: &[T], c: T, g: &[T]) {
    for ((xi, &bi), &gi) in x.iter_mut().zip(base).zip(g) {
        *xi = bi + c * gi;
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

impl<T: Real> Block<T> {
    /// Solve an implicit stage for every point of the block, starting from the current q, p;
    /// the caller has put the stage's base value in q0 / p0. `sweeps`: a fixed number of sweeps
    /// that solves the stage exactly (no tolerance), or `None` to iterate to the tolerance.
    pub fn solve(&mut self, system: &System, stage: Stage, c: T, sweeps: Option<u32>) {
        if let Some(s) = sweeps {
            return self.solve_exact(system, stage, c, s);
        }
        let tol = T::from_f64(self.solver.tol);
        self.active.fill(true);
        for _ in 0..self.solver.max_iter {
            self.conv.fill(true);
            self.sweep_stage(system, stage, c, tol);
            let mut any = false;
            for (a, &ok) in self.active.iter_mut().zip(&self.conv) {
                *a &= !ok;
                any |= *a;
            }
            if !any {
                return;
            }
        }
        for (u, &a) in self.unconverged.iter_mut().zip(&self.active) {
            *u += a as u32;
        }
    }

    /// The gradients a sweep of `stage` takes: ∂H/∂q for a kick, ∂H/∂p for a drift, both for
    /// the midpoint.
    pub(crate) fn stage_gradients(&mut self, system: &System, stage: Stage) {
        if stage != Stage::Drift {
            self.grad_q(system);
        }
        if stage != Stage::Kick {
            self.grad_p(system);
        }
    }

    /// One Jacobi sweep x ← base + c·g of the stage over the active points; a point whose
    /// primal components moved by more than the tolerance is marked unconverged in `conv`.
    fn sweep_stage(&mut self, system: &System, stage: Stage, c: T, tol: T) {
        let (n, d) = (self.n, self.d);
        self.stage_gradients(system, stage);
        match stage {
            Stage::Kick => {
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
                );
            }
            Stage::Drift => {
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
                );
            }
            Stage::Midpoint => {
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
                );
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
                );
            }
        }
    }

    /// `sweeps` plain sweeps x ← base + c·g with no convergence bookkeeping: the stage is
    /// solved exactly by that many (the system's `SystemInfo::sweeps`). Same arithmetic as the
    /// iterating path, which for an exact stage would only have added tests that never fire.
    fn solve_exact(&mut self, system: &System, stage: Stage, c: T, sweeps: u32) {
        for _ in 0..sweeps {
            match stage {
                Stage::Kick => {
                    self.grad_q(system);
                    base_plus(&mut self.p, &self.p0, -c, &self.dq);
                }
                Stage::Drift => {
                    self.grad_p(system);
                    base_plus(&mut self.q, &self.q0, c, &self.dp);
                }
                Stage::Midpoint => {
                    self.grad_q(system);
                    self.grad_p(system);
                    base_plus(&mut self.q, &self.q0, c, &self.dp);
                    base_plus(&mut self.p, &self.p0, -c, &self.dq);
                }
            }
        }
    }

    /// The symplectic Euler / Verlet stages: exact sweeps where the system allows them, the
    /// result's sum compensated when the block is (`Block::finish_stage`).
    pub fn solve_stage(&mut self, system: &System, stage: Stage, c: T) {
        let sweeps = system.sweeps();
        self.solve(system, stage, c, sweeps);
        self.finish_stage(system, stage, c, sweeps.is_none());
    }
}
