//! Integrators: one file per method, each with its step written once over the operations
//! interface `ops::Ops` (vectors named by `ops::Vector`, scalars built from h and literals,
//! linear combinations `ops::Lin`, gradients, updates, implicit stages). The CPU engine runs
//! those statements on a block of points (`block::Cpu`) or, recorded once (`fused::Record`),
//! on groups of points with the gradients compiled in (`fused`), the WGSL generator writes them as the
//! straight-line GPU kernel (`wgsl::Kernel`), and `ops::Count` counts the gradient
//! evaluations a step takes (`Method::evals_per_step`): one description, so the engines
//! cannot disagree. Implicit stages (non-separable H, the implicit midpoint rule) are solved
//! per point as described in `implicit`; `Method::check_system` refuses combinations a kernel
//! cannot serve.
//!
//! # Adding a method
//!
//! - An integrator with its own code: `src/method/<name>.rs` with `pub const INFO: MethodInfo`,
//!   a unit struct and `impl Scheme` for it (`info` and `step<O: Ops>`, plus `prologue` where
//!   a step takes something over from the previous one); here `pub mod <name>;` and one line
//!   `Variant => <name>::Struct,` in `methods!`.
//! - A composition of Verlet or a kick–drift splitting: one const (`Composition` in
//!   `composition.rs`, `Splitting` in `splitting.rs`) and one line in `methods!`.
//!
//! `Method`, `ALL` and every dispatch are generated from the list (`registry.rs`); the tests
//! walk `ALL`, so they cover the new method at once. A worked example:
//! docs/ARCHITECTURE.md, "Adding a system or a method".

pub mod analysis;
pub mod block;
pub mod compensated;
pub mod composition;
pub mod euler;
pub mod family;
pub mod file;
pub mod fused;
pub mod implicit;
pub mod implicit_midpoint;
pub mod kick_drift;
pub mod modified;
pub mod ops;
pub mod points;
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

use crate::error::{Field, Result};
use crate::invalid;
use crate::system::System;
pub use block::{partial, Block, Cpu};
pub use implicit::{Solver, Stage};
pub use ops::{Ops, Vector};
pub use points::Points;
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

/// Every method usable by name: the built-ins (`ALL`), then the shipped method files
/// (`methods/*.toml`, by file name).
pub fn all() -> &'static [Method] {
    static ALL_METHODS: std::sync::OnceLock<Vec<Method>> = std::sync::OnceLock::new();
    ALL_METHODS.get_or_init(|| {
        ALL.iter()
            .copied()
            .chain(file::shipped().iter().map(Method::Data))
            .collect()
    })
}

/// Which partial derivative of H `Ops::partial` evaluates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Partial {
    Q,
    P,
}

/// Whether H = T(p) + V(q) with kicks and drifts solved exactly by one sweep: explicit, so
/// the kick–drift methods run as a kick–drift sequence (`Ops::explicit_kicks`).
pub fn explicit_kicks(system: &System) -> bool {
    system.separable() && system.sweeps() == Some(1)
}

impl Method {
    pub fn name(self) -> &'static str {
        match self {
            // Without the analysis `info` runs for a method given as data.
            Method::Data(d) => &d.name,
            _ => self.info().name,
        }
    }

    /// The method called `name`: a built-in, a shipped method file, or a method file this
    /// process has loaded (`from_file`, `from_source`).
    pub fn from_name(name: &str) -> Result<Method> {
        ALL.iter()
            .copied()
            .find(|m| m.name() == name)
            .or_else(|| file::shipped_by_name(name).map(Method::Data))
            .or_else(|| family::loaded_by_name(name))
            .ok_or_else(|| {
                let names: Vec<&str> = all().iter().map(|m| m.name()).collect();
                invalid!(Field::Method;
                    Field::Method.is(name),
                    format!(
                        ": unknown method{} (known: {}; or your own with ",
                        crate::error::did_you_mean(name, names.iter().copied()),
                        names.join(", ")
                    ),
                    Field::MethodFile.is("FILE.toml"),
                    ")"
                )
            })
    }

    /// Whether this method's kernel can serve the system: every kernel handles any H (the
    /// symplectic Euler / Verlet stages become implicit, and the compositions build on
    /// Verlet) except the kick–drift splittings, which need H = T(p) + V(q).
    pub fn check_system(self, system: &System) -> Result<()> {
        let variational = self == Method::Variational;
        if variational && !system.variational() {
            return Err(invalid!(Field::Method;
                Field::Method.is("variational"),
                format!(
                    ": system '{}' is a Hamiltonian system; the variational method advances only the variational systems (pendulum-variational, elastic-pendulum-zphi, double-pendulum-variational, vertical-disk, euler-disk, ball-turntable; see `phaseflow list`). For '{}' use a symplectic method, e.g. verlet",
                    system.name(),
                    system.name()
                )
            ));
        }
        if !variational && system.variational() {
            return Err(invalid!(Field::Method;
                Field::Method.is(self.name()),
                format!(
                    ": system '{}' is a variational system, defined by its discrete Lagrangian rather than by a Hamiltonian; it runs only with ",
                    system.name()
                ),
                Field::Method.is("variational")
            ));
        }
        if let Method::Data(d) = self {
            return family::check_system(d, system);
        }
        if self.needs_separable() && !system.separable() {
            return Err(invalid!(Field::Method;
                Field::Method.is(self.name()),
                format!(
                    ": system '{}' is not separable (H ≠ T(p) + V(q)), and this kick-drift splitting needs separable H; use yoshida4, suzuki4 or yoshida6 (compositions of Verlet) for a high-order symplectic method",
                    system.name()
                )
            ));
        }
        Ok(())
    }

    /// Gradient evaluations (∂H/∂q or ∂H/∂p, each a loop over the components) one step takes
    /// at most: the implicit stages count `max_iter` sweeps where they iterate.
    /// Counted from the step's description (`ops::Count`).
    pub fn evals_per_step(self, system: &System, solver: Solver) -> u64 {
        let mut count = ops::Count {
            sweeps: system.sweeps(),
            max_iter: solver.max_iter,
            explicit_kicks: explicit_kicks(system),
            evals: 0,
        };
        self.step(&mut count);
        count.evals
    }
}
