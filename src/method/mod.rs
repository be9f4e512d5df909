//! Integrators: one file per method, each with the CPU reference `step` over a block of points
//! and, beside it, its WGSL mirror `wgsl`: the same calls in the same order on a
//! `wgsl::Kernel`, which generates the straight-line GPU kernel, so the two read side by side. Implicit stages (non-separable H, the
//! implicit midpoint rule) are solved per point as described in `implicit`;
//! `Method::check_system` refuses combinations a kernel cannot serve.

pub mod composition;
pub mod euler;
pub mod implicit;
pub mod implicit_midpoint;
pub mod position_verlet;
pub mod rk3;
pub mod rk4;
pub mod splitting;
pub mod symplectic_euler_a;
pub mod symplectic_euler_b;
pub mod verlet;
pub mod wgsl;

use crate::error::Result;
use crate::float::Real;
use crate::input_err;
use crate::system::System;
pub use implicit::{Solver, Stage};

/// Static description of a method for `phaseflow list`.
#[derive(Debug, Clone, Copy)]
pub struct MethodInfo {
    pub name: &'static str,
    pub order: u32,
    pub symplectic: bool,
    pub summary: &'static str,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Euler,
    SymplecticEulerA,
    SymplecticEulerB,
    Verlet,
    PositionVerlet,
    Rk3,
    Rk4,
    ImplicitMidpoint,
    Yoshida4,
    Suzuki4,
    Yoshida6,
    BlanesMoan4,
}

pub const ALL: &[Method] = &[
    Method::Euler,
    Method::SymplecticEulerA,
    Method::SymplecticEulerB,
    Method::Verlet,
    Method::PositionVerlet,
    Method::Rk3,
    Method::Rk4,
    Method::ImplicitMidpoint,
    Method::Yoshida4,
    Method::Suzuki4,
    Method::Yoshida6,
    Method::BlanesMoan4,
];

const fn composed(name: &'static str, order: u32, summary: &'static str) -> MethodInfo {
    MethodInfo {
        name,
        order,
        symplectic: true,
        summary,
    }
}

/// Per-block working storage: the state and the scratch arrays the kernels need, all
/// component-major with `n` points (`q[k*n + i]`). With `nt` tangent columns every array holds
/// d·(1 + nt) components (layout as in `State`): the kernels' linear updates (axpy, Runge–Kutta
/// stages) then advance the tangent map along with the point, and `partial` supplies the
/// linearised derivatives, so each kernel is written once for both.
#[derive(Debug, Clone)]
pub struct Block<T> {
    pub n: usize,
    pub d: usize,
    pub nt: usize,
    pub q: Vec<T>,
    pub p: Vec<T>,
    /// Derivative scratch: ∂H/∂q (or q' for Runge–Kutta) …
    pub dq: Vec<T>,
    /// … and ∂H/∂p (or p').
    pub dp: Vec<T>,
    /// Runge–Kutta: the state at the start of the step and the stage accumulators.
    pub q0: Vec<T>,
    pub p0: Vec<T>,
    pub acc_q: Vec<T>,
    pub acc_p: Vec<T>,
    /// Fixed-point solver settings and per-point state (method::implicit).
    pub solver: Solver,
    pub active: Vec<bool>,
    pub conv: Vec<bool>,
    /// Per point: implicit solves that hit the iteration cap (added to `State::unconverged`).
    pub unconverged: Vec<u32>,
}

impl<T: Real> Block<T> {
    pub fn new(n: usize, d: usize, nt: usize) -> Self {
        Self::with_solver(n, d, nt, Solver::default_for::<T>())
    }

    pub fn with_solver(n: usize, d: usize, nt: usize, solver: Solver) -> Self {
        let z = vec![T::ZERO; n * d * (1 + nt)];
        Block {
            n,
            d,
            nt,
            q: z.clone(),
            p: z.clone(),
            dq: z.clone(),
            dp: z.clone(),
            q0: z.clone(),
            p0: z.clone(),
            acc_q: z.clone(),
            acc_p: z,
            solver,
            active: vec![false; n],
            conv: vec![false; n],
            unconverged: vec![0; n],
        }
    }
}

/// Which partial derivative of H `partial` evaluates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Partial {
    Q,
    P,
}

/// `out` = ∂H/∂q (or ∂H/∂p) of the block's points (the first n·d entries of q and p), then for
/// each tangent column (v_q, v_p) its directional derivative along that column, H_qq v_q + H_qp v_p
/// (or H_pq v_q + H_pp v_p): the exact linearisation of the kernel's update (GNI Lemma VI.4.1).
/// WGSL mirror: `Kernel::partial` (`method::wgsl`).
#[inline]
pub fn partial<T: Real>(
    system: &System,
    which: Partial,
    nd: usize,
    q: &[T],
    p: &[T],
    out: &mut [T],
) {
    match which {
        // The system may share work between the force and its linearisation.
        Partial::Q => system.grad_q_tangent(nd, q, p, out),
        Partial::P => crate::system::with_tangent_columns(
            nd,
            q,
            p,
            out,
            |q, p, o| system.grad_p(q, p, o),
            |q, p, vq, vp, o| system.grad_p_dir(q, p, vq, vp, o),
        ),
    }
}

impl<T: Real> Block<T> {
    /// dq ← ∂H/∂q (with tangent columns), the kick's force.
    #[inline]
    pub fn grad_q(&mut self, system: &System) {
        partial(
            system,
            Partial::Q,
            self.n * self.d,
            &self.q,
            &self.p,
            &mut self.dq,
        );
    }

    /// dp ← ∂H/∂p (with tangent columns), the drift's velocity.
    #[inline]
    pub fn grad_p(&mut self, system: &System) {
        partial(
            system,
            Partial::P,
            self.n * self.d,
            &self.q,
            &self.p,
            &mut self.dp,
        );
    }
}

/// y += a·x, elementwise (the WGSL kernels write the same loop inline).
#[inline(always)]
pub(crate) fn axpy<T: Real>(y: &mut [T], a: T, x: &[T]) {
    for (yi, &xi) in y.iter_mut().zip(x) {
        *yi += a * xi;
    }
}

impl Method {
    pub fn info(self) -> MethodInfo {
        match self {
            Method::Euler => euler::INFO,
            Method::SymplecticEulerA => symplectic_euler_a::INFO,
            Method::SymplecticEulerB => symplectic_euler_b::INFO,
            Method::Verlet => verlet::INFO,
            Method::PositionVerlet => position_verlet::INFO,
            Method::Rk3 => rk3::INFO,
            Method::Rk4 => rk4::INFO,
            Method::ImplicitMidpoint => implicit_midpoint::INFO,
            Method::Yoshida4 => composed(
                "yoshida4",
                4,
                "Yoshida/Forest-Ruth triple jump of velocity Verlet",
            ),
            Method::Suzuki4 => composed(
                "suzuki4",
                4,
                "Suzuki's 5-stage composition of velocity Verlet",
            ),
            Method::Yoshida6 => composed(
                "yoshida6",
                6,
                "Yoshida's 7-stage composition (solution A) of velocity Verlet",
            ),
            Method::BlanesMoan4 => composed(
                "blanes-moan4",
                4,
                "Blanes-Moan 2002 SRKN6b kick-drift splitting (separable H)",
            ),
        }
    }

    pub fn name(self) -> &'static str {
        self.info().name
    }

    pub fn from_name(name: &str) -> Result<Method> {
        ALL.iter()
            .copied()
            .find(|m| m.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = ALL.iter().map(|m| m.name()).collect();
                input_err!(
                    "--method {name}: unknown method (known: {})",
                    names.join(", ")
                )
            })
    }

    /// Whether this method's kernel can serve the system: every kernel handles any H (the
    /// symplectic Euler / Verlet stages become implicit, and the compositions build on
    /// Verlet) except the kick–drift splitting, which needs H = T(p) + V(q).
    pub fn check_system(self, system: &System) -> Result<()> {
        if self == Method::BlanesMoan4 && !system.info().separable {
            return Err(input_err!(
                "--method {}: system '{}' is not separable (H ≠ T(p) + V(q)), and this kick-drift splitting needs separable H; use yoshida4, suzuki4 or yoshida6 (compositions of Verlet) for a high-order symplectic method",
                self.name(),
                system.name()
            ));
        }
        Ok(())
    }

    /// Gradient evaluations (∂H/∂q or ∂H/∂p, each a loop over the components) one step takes
    /// at most: the implicit stages count `max_iter` sweeps where they iterate.
    pub fn evals_per_step(self, system: &System, solver: Solver) -> u64 {
        let sweeps = match system.info().sweeps {
            Some(s) => s as u64,
            None => solver.max_iter as u64,
        };
        // one Verlet step: two solved stages plus two explicit evaluations
        let verlet = 2 * sweeps + 2;
        match self {
            Method::Euler => 2,
            Method::SymplecticEulerA | Method::SymplecticEulerB => sweeps + 1,
            Method::Verlet | Method::PositionVerlet => verlet,
            Method::Rk3 => 6,
            Method::Rk4 => 8,
            Method::ImplicitMidpoint => 2 * solver.max_iter as u64,
            Method::Yoshida4 => 3 * verlet,
            Method::Suzuki4 => 5 * verlet,
            Method::Yoshida6 => 7 * verlet,
            Method::BlanesMoan4 => 14,
        }
    }

    /// One step of size h for every point of the block.
    #[inline]
    pub fn step<T: Real>(self, system: &System, b: &mut Block<T>, h: T) {
        match self {
            Method::Euler => euler::step(system, b, h),
            Method::SymplecticEulerA => symplectic_euler_a::step(system, b, h),
            Method::SymplecticEulerB => symplectic_euler_b::step(system, b, h),
            Method::Verlet => verlet::step(system, b, h),
            Method::PositionVerlet => position_verlet::step(system, b, h),
            Method::Rk3 => rk3::step(system, b, h),
            Method::Rk4 => rk4::step(system, b, h),
            Method::ImplicitMidpoint => implicit_midpoint::step(system, b, h),
            Method::Yoshida4 => composition::step(system, b, h, composition::YOSHIDA4),
            Method::Suzuki4 => composition::step(system, b, h, composition::SUZUKI4),
            Method::Yoshida6 => composition::step(system, b, h, composition::YOSHIDA6),
            Method::BlanesMoan4 => splitting::step(system, b, h, splitting::BLANES_MOAN4),
        }
    }

    /// Write one step of size `h` (a WGSL expression naming the step size) into the kernel:
    /// the method's `wgsl`, the mirror of its `step`, or for composition and splitting methods
    /// the sequence generated from their coefficients.
    pub fn wgsl(self, k: &mut wgsl::Kernel, h: &str) {
        match self {
            Method::Euler => euler::wgsl(k, h),
            Method::SymplecticEulerA => symplectic_euler_a::wgsl(k, h),
            Method::SymplecticEulerB => symplectic_euler_b::wgsl(k, h),
            Method::Verlet => verlet::wgsl(k, h),
            Method::PositionVerlet => position_verlet::wgsl(k, h),
            Method::Rk3 => rk3::wgsl(k, h),
            Method::Rk4 => rk4::wgsl(k, h),
            Method::ImplicitMidpoint => implicit_midpoint::wgsl(k, h),
            Method::Yoshida4 => composition::wgsl(k, h, composition::YOSHIDA4),
            Method::Suzuki4 => composition::wgsl(k, h, composition::SUZUKI4),
            Method::Yoshida6 => composition::wgsl(k, h, composition::YOSHIDA6),
            Method::BlanesMoan4 => splitting::wgsl(k, h, splitting::BLANES_MOAN4),
        }
    }
}
