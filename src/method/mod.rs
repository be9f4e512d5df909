//! Integrators: one file per method, each with the CPU reference `step` over a block of points
//! and, beside it, its WGSL mirror `wgsl`: the same calls in the same order on a
//! `wgsl::Kernel`, which generates the straight-line GPU kernel, so the two read side by side. Implicit stages (non-separable H, the
//! implicit midpoint rule) are solved per point as described in `implicit`;
//! `Method::check_system` refuses combinations a kernel cannot serve.
//!
//! # Adding a method
//!
//! - An integrator with its own code: `src/method/<name>.rs` with `pub const INFO: MethodInfo`,
//!   a unit struct and `impl Scheme` for it (`info`, the CPU `step`, its WGSL mirror `wgsl`,
//!   `evals_per_step`); here `pub mod <name>;` and one line `Variant => <name>::Struct,` in
//!   `methods!`.
//! - A composition of Verlet or a kick–drift splitting: one const (`Composition` in
//!   `composition.rs`, `Splitting` in `splitting.rs`) and one line in `methods!`.
//!
//! `Method`, `ALL` and every dispatch are generated from the list (`registry.rs`); the tests
//! walk `ALL`, so they cover the new method at once. A worked example:
//! docs/ARCHITECTURE.md, "Adding a system or a method".

pub mod analysis;
pub mod compensated;
pub mod composition;
pub mod euler;
pub mod file;
pub mod implicit;
pub mod implicit_midpoint;
pub mod position_verlet;
#[macro_use]
mod registry;
pub mod rk3;
pub mod rk4;
pub mod splitting;
pub mod symplectic_euler_a;
pub mod symplectic_euler_b;
pub mod tableau;
pub mod variational;
pub mod verlet;
pub mod wgsl;

use crate::error::Result;
use crate::float::Real;
use crate::input_err;
use crate::system::System;
pub use compensated::Vector;
pub use implicit::{Solver, Stage};
pub use registry::Scheme;

/// Static description of a method for `phaseflow list`.
#[derive(Debug, Clone, Copy)]
pub struct MethodInfo {
    pub name: &'static str,
    pub order: u32,
    pub symplectic: bool,
    pub summary: &'static str,
}

methods! {
    Euler => euler::Euler,
    SymplecticEulerA => symplectic_euler_a::SymplecticEulerA,
    SymplecticEulerB => symplectic_euler_b::SymplecticEulerB,
    Verlet => verlet::Verlet,
    PositionVerlet => position_verlet::PositionVerlet,
    Rk3 => rk3::Rk3,
    Rk4 => rk4::Rk4,
    ImplicitMidpoint => implicit_midpoint::ImplicitMidpoint,
    Yoshida4 => composition::YOSHIDA4,
    Suzuki4 => composition::SUZUKI4,
    Yoshida6 => composition::YOSHIDA6,
    BlanesMoan4 => splitting::BLANES_MOAN4,
    Variational => variational::Variational,
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
    /// Compensated summation (`method::compensated`): updates carry the rounding errors in
    /// `eq` / `ep` (the block's share of `State::eq` / `ep`; empty when off).
    pub compensated: bool,
    pub eq: Vec<T>,
    pub ep: Vec<T>,
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
            compensated: false,
            eq: Vec::new(),
            ep: Vec::new(),
        }
    }

    /// The same block with compensated updates switched on (zero carried errors) or off.
    pub fn with_compensation(mut self, on: bool) -> Self {
        self.compensated = on;
        let len = if on { self.q.len() } else { 0 };
        self.eq = vec![T::ZERO; len];
        self.ep = vec![T::ZERO; len];
        self
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
    /// Verlet) except the kick–drift splittings, which need H = T(p) + V(q).
    pub fn check_system(self, system: &System) -> Result<()> {
        let variational = self == Method::Variational;
        if variational && !system.variational() {
            return Err(input_err!(
                "--method variational: system '{}' is a Hamiltonian system; the variational method advances only the variational systems of seed 003 (pendulum-variational, elastic-pendulum-zphi, double-pendulum-variational, vertical-disk, euler-disk, ball-turntable; see `phaseflow list`). For '{}' use a symplectic method, e.g. verlet",
                system.name(),
                system.name()
            ));
        }
        if !variational && system.variational() {
            return Err(input_err!(
                "--method {}: system '{}' is a variational system, defined by its discrete Lagrangian rather than by a Hamiltonian; it runs only with --method variational",
                self.name(),
                system.name()
            ));
        }
        if self.needs_separable() && !system.separable() {
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
        let sweeps = match system.sweeps() {
            Some(s) => s as u64,
            None => solver.max_iter as u64,
        };
        self.scheme_evals_per_step(sweeps, solver)
    }
}
