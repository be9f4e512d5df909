//! Hamiltonian systems: one file per system. Each defines its parameters, H (in f64), the
//! block-wise gradients ∂H/∂q and ∂H/∂p used by the CPU kernels (f32 and f64), their
//! directional derivatives `grad_q_dir` / `grad_p_dir` (for the tangent map), and the
//! constants its WGSL file (`shaders/system/<name>.wgsl`) needs. Both sides compute derived
//! constants from the same f64 values, so CPU and GPU use bit-identical coefficients.
//!
//! Block layout everywhere: component-major, `q[k*n + i]` for component k of point i.
//!
//! # Adding a system
//!
//! 1. `src/system/<name>.rs`: `pub const NAME`, `pub const INFO: SystemInfo`, the struct,
//!    `impl SystemDescription` and `impl SystemDef` (see `description.rs`: its `INFO`, its two
//!    WGSL files through `include_str!`, and `new` from the resolved parameters), and its
//!    dynamics: `impl Hamiltonian` (see `hamiltonian.rs`) or, for a discrete map,
//!    `impl DiscreteMap` (see `discrete.rs`).
//! 2. `shaders/system/<name>.wgsl`: `grad_q`, `grad_p`, `grad_q_dir`, `grad_p_dir` of one
//!    point in f32, reading the constants `Hamiltonian::constants` names.
//! 3. `shaders/energy/<name>.wgsl`: `energy(q, p)` of one point in f64.
//! 4. Here: one line `Variant => <name>::Type,` in `systems!` (it declares the module too), in its
//!    `hamiltonian` list, or in its `discrete` list for a discrete map (whose WGSL file holds
//!    a `discrete_step` instead of the gradients); the order of the lists is the order of
//!    `CATALOGUE` and of `phaseflow list`.
//!
//! A Hamiltonian system with a closed formula is generated instead of written (see
//! `generated/mod.rs`): in step 1 its file declares `FORMULAS` and ends with
//! `generated_hamiltonian!(Type, module);` in place of `impl Hamiltonian`; its `FORMULAS` goes
//! in `generated::GENERATED` with a `pub mod` line there, and
//! `PHASEFLOW_REGENERATE=1 cargo test --release --lib system::generated` writes steps 2 and 3
//! and its CPU functions (`generated/<name>.rs`).
//!
//! Everything that lists the systems (`System` and its kinds, the dispatch macros,
//! `CATALOGUE`, the constructors, the WGSL lookups) is generated from that line; a missing
//! piece does not compile, and a discrete map has no gradients to call. The tests
//! (`system/tests.rs`, `tests/gpu.rs`) walk `CATALOGUE`, so they cover the new system at once.
//! A worked example: docs/ARCHITECTURE.md, "Adding a system or a method".

pub mod description;
pub mod discrete;
pub mod expression;
pub mod generated;
pub mod hamiltonian;
pub mod lagrangian;
pub mod newton;
#[macro_use]
mod registry;

use std::collections::BTreeMap;

use crate::error::{num, Error, Field, Message, Piece, Result};
use crate::float::Real;
use crate::invalid;
use crate::options::Precision;

pub use description::{named_components, numbered_components, SystemDef, SystemDescription};
pub use discrete::{Constraints, DiscreteMap};
pub use double_pendulum::DoublePendulum;
pub use elastic_pendulum::ElasticPendulum;
pub use elastic_pendulum_cartesian::ElasticPendulumCartesian;
pub use expression::{ExprSpec, ExprSystem};
pub use hamiltonian::{energy_per_point, Hamiltonian};
pub use henon_heiles::HenonHeiles;
pub use kepler::Kepler;
pub use kinds::Visit;
pub use newton::Newton;
pub use oscillator::Oscillator;
pub use outer_solar_system::OuterSolarSystem;
pub use pendulum::Pendulum;
pub use spring_chain::SpringChain;

systems! {
    hamiltonian {
        Oscillator => oscillator::Oscillator,
        Pendulum => pendulum::Pendulum,
        Kepler => kepler::Kepler,
        HenonHeiles => henon_heiles::HenonHeiles,
        ElasticPendulum => elastic_pendulum::ElasticPendulum,
        ElasticPendulumCartesian => elastic_pendulum_cartesian::ElasticPendulumCartesian,
        DoublePendulum => double_pendulum::DoublePendulum,
        SpringChain => spring_chain::SpringChain,
        OuterSolarSystem => outer_solar_system::OuterSolarSystem,
    }
    discrete {
        PendulumVariational => pendulum_variational::PendulumVariational,
        ElasticPendulumZphi => elastic_pendulum_zphi::ElasticPendulumZphi,
        DoublePendulumVariational => double_pendulum_variational::DoublePendulumVariational,
        VerticalDisk => vertical_disk::VerticalDisk,
        BallTurntable => ball_turntable::BallTurntable,
        EulerDisk => euler_disk::EulerDisk,
    }
}

// After `systems!`: it uses the dispatch macros the invocation defines.
mod kinds;

/// A named system parameter with its default.
#[derive(Debug, Clone, Copy)]
pub struct ParamSpec {
    pub name: &'static str,
    pub default: f64,
    pub meaning: &'static str,
}

/// Static description of a system, for `phaseflow list` and config validation.
#[derive(Debug, Clone, Copy)]
pub struct SystemInfo {
    pub name: &'static str,
    pub summary: &'static str,
    pub params: &'static [ParamSpec],
    /// H = T(p) + V(q). The symplectic Euler and Verlet stages are then explicit (one sweep),
    /// Verlet and its compositions run as a fused kick–drift sequence, and the kick–drift
    /// splittings (`blanes-moan4`) are allowed; implicit methods (the midpoint rule, Gauss)
    /// stay implicit whatever H is.
    pub separable: bool,
    /// How the implicit stages of the symplectic Euler / Verlet kernels (e.g. the kick
    /// p+ = p − h ∂qH(q, p+)) are solved for this system: `Some(s)` when s Jacobi sweeps solve
    /// them exactly, because the dependence is triangular (1 for separable H, 2 for the polar
    /// elastic pendulum): the kernel is then explicit, a fixed number of evaluations with no
    /// tolerance. `None`: fixed-point iteration to `--implicit-tol` with a cap, non-converged
    /// points counted (`unconverged`).
    pub sweeps: Option<u32>,
    /// Parameters that also accept one value per element, written `NAME_i` (1-based), e.g.
    /// `--param k_3=500` for the third spring of the chain.
    pub indexed: &'static [&'static str],
    /// A variational system (Torrente): its dynamics is a two-step map defined by a discrete
    /// Lagrangian (and, for nonholonomic systems, a discrete constraint), advanced only by the
    /// `variational` method; its state is (q_k, v_k) with v_k = (q_{k+1} − q_k)/h, and its
    /// "energy" is its continuous energy evaluated from the discrete velocities. See
    /// `discrete::DiscreteMap`.
    pub variational: bool,
}

/// The error about the value `value` of the parameter `name`: `why` follows it (`: …`).
pub(crate) fn bad_param(
    name: &str,
    value: impl std::fmt::Display,
    why: impl Into<String>,
) -> Error {
    let field = Field::Param(name.to_string());
    invalid!(field.clone(); field.is(value), why.into())
}

/// Resolve parameters: defaults, overridden by `given`; unknown names and non-finite values are errors.
pub fn resolve_params(
    info: &SystemInfo,
    given: &BTreeMap<String, f64>,
) -> Result<BTreeMap<String, f64>> {
    let mut out: BTreeMap<String, f64> = info
        .params
        .iter()
        .map(|p| (p.name.to_string(), p.default))
        .collect();
    for (k, v) in given {
        if !out.contains_key(k) && !is_indexed(info, k) {
            let known: Vec<&str> = info.params.iter().map(|p| p.name).collect();
            return Err(bad_param(
                k,
                num(*v),
                format!(
                    ": system '{}' has no parameter '{k}' (its parameters: {})",
                    info.name,
                    known.join(", ")
                ),
            ));
        }
        if !v.is_finite() {
            return Err(bad_param(k, num(*v), ": the value must be a finite number"));
        }
        out.insert(k.clone(), *v);
    }
    Ok(out)
}

/// `NAME_i` with NAME in `info.indexed` and i ≥ 1 (the system checks i against its size).
fn is_indexed(info: &SystemInfo, key: &str) -> bool {
    key.rsplit_once('_').is_some_and(|(base, i)| {
        info.indexed.contains(&base) && i.parse::<usize>().is_ok_and(|i| i >= 1)
    })
}

/// Require a parameter to be strictly positive (masses, lengths, stiffnesses).
pub(crate) fn require_positive(
    system: &str,
    params: &BTreeMap<String, f64>,
    names: &[&str],
) -> Result<()> {
    for n in names {
        let v = params[*n];
        // NaN is refused along with the non-positive values.
        if v.is_nan() || v <= 0.0 {
            return Err(bad_param(
                n,
                num(v),
                format!(": system '{system}' needs {n} > 0 (a non-positive {n} makes the Hamiltonian meaningless)"),
            ));
        }
    }
    Ok(())
}

impl System {
    pub fn info_by_name(name: &str) -> Result<&'static SystemInfo> {
        Ok(&CATALOGUE[Self::index_by_name(name)?])
    }

    /// The system's place in `CATALOGUE` (and in the constructor table).
    fn index_by_name(name: &str) -> Result<usize> {
        CATALOGUE
            .iter()
            .position(|s| s.name == name)
            .ok_or_else(|| {
                let names: Vec<&str> = CATALOGUE.iter().map(|s| s.name).collect();
                invalid!(Field::System;
                    Field::System.is(name),
                    format!(
                        ": unknown system{} (known: {})",
                        crate::error::did_you_mean(name, names.iter().copied()),
                        names.join(", ")
                    )
                )
            })
    }

    /// Build a system from its name and user parameters (defaults fill the rest).
    pub fn new(name: &str, given: &BTreeMap<String, f64>) -> Result<System> {
        let index = Self::index_by_name(name)?;
        let params = resolve_params(&CATALOGUE[index], given)?;
        let system = CONSTRUCTORS[index](&params)?;
        // The kernels use derived constants in f32: they must be finite there too.
        let arrays = system.wgsl_arrays();
        let array_values = arrays
            .iter()
            .flat_map(|(name, v)| v.iter().map(move |x| (*name, *x)));
        for (constant, value) in system.wgsl_constants().into_iter().chain(array_values) {
            if !(value as f32).is_finite() {
                return Err(invalid!(Field::Params;
                    Field::Params,
                    format!(": these parameters make the derived constant {constant} = {value:e} overflow f32; rescale the parameters")
                ));
            }
        }
        Ok(system)
    }

    /// A Hamiltonian given as a formula (`--hamiltonian`, `--system-file`).
    pub fn from_expression(spec: ExprSpec) -> Result<System> {
        Ok(System::Hamiltonian(HamiltonianSystem::Expr(
            ExprSystem::new(spec)?,
        )))
    }

    /// A Lagrangian given as a formula (`--lagrangian`, a system file's `lagrangian`).
    pub fn from_lagrangian(spec: crate::system::lagrangian::LagrangianSpec) -> Result<System> {
        Ok(System::DiscreteMap(DiscreteSystem::Lagrangian(
            crate::system::lagrangian::LagrangianSystem::new(spec)?,
        )))
    }

    /// The Lagrangian system, if this is one.
    pub fn lagrangian(&self) -> Option<&crate::system::lagrangian::LagrangianSystem> {
        match self {
            System::DiscreteMap(DiscreteSystem::Lagrangian(l)) => Some(l),
            _ => None,
        }
    }

    pub fn name(&self) -> &str {
        match self {
            System::Hamiltonian(HamiltonianSystem::Expr(e)) => e.name(),
            System::DiscreteMap(DiscreteSystem::Lagrangian(l)) => l.name(),
            _ => self.builtin_info().map_or("", |i| i.name),
        }
    }

    /// The name in backticks, and for a formula the formula: how reports name the system.
    pub fn describe(&self) -> String {
        match self {
            System::Hamiltonian(HamiltonianSystem::Expr(e)) => {
                format!("`{}`, H = `{}`", e.name(), e.spec.formula)
            }
            System::DiscreteMap(DiscreteSystem::Lagrangian(l)) => l.describe(),
            _ => format!("`{}`", self.name()),
        }
    }

    /// H = T(p) + V(q) (for an expression: H_qp ≡ 0 symbolically): every symplectic method is
    /// explicit.
    pub fn separable(&self) -> bool {
        match self {
            System::Hamiltonian(HamiltonianSystem::Expr(e)) => e.separable(),
            _ => self.builtin_info().is_some_and(|i| i.separable),
        }
    }

    /// How the implicit stages are solved (`SystemInfo::sweeps`): an expression's are
    /// explicit (one sweep) when it is separable, else iterated to the tolerance.
    pub fn sweeps(&self) -> Option<u32> {
        match self {
            System::Hamiltonian(HamiltonianSystem::Expr(e)) => e.separable().then_some(1),
            _ => self.builtin_info().and_then(|i| i.sweeps),
        }
    }

    /// H as a formula with its parameters and degrees of freedom (`expr::ExprHamiltonian::new`'s
    /// arguments): an expression's own, a built-in system's `Hamiltonian::formula` (none for
    /// a discrete map).
    pub fn formula(&self) -> Option<(String, BTreeMap<String, f64>, Option<usize>)> {
        match self {
            System::Hamiltonian(HamiltonianSystem::Expr(e)) => {
                Some((e.spec.formula.clone(), e.spec.params.clone(), e.spec.dof))
            }
            System::Hamiltonian(h) => h.formula().map(|f| (f, BTreeMap::new(), Some(self.dof()))),
            System::DiscreteMap(_) => None,
        }
    }

    /// The expression system, if this is one.
    pub fn expression(&self) -> Option<&ExprSystem> {
        match self {
            System::Hamiltonian(HamiltonianSystem::Expr(e)) => Some(e),
            _ => None,
        }
    }

    /// Refuse what the kernels cannot compute at the run's `precision`: a formula's constant
    /// outside f32 (`ExprHamiltonian::check_f32`), or a step coefficient of a variational
    /// system at the run's step `dt` (`DiscreteMap::step_constants`) that overflows it; the
    /// parameters themselves were checked when the system was built.
    pub fn check_precision(&self, dt: f64, precision: Precision) -> Result<()> {
        if let (Some(e), Precision::F32) = (self.expression(), precision) {
            e.h.check_f32()?;
        }
        let (fits, range): (fn(f64) -> bool, _) = match precision {
            Precision::F32 => (|x| (x as f32).is_finite(), "3.4e38"),
            Precision::F64 => (f64::is_finite, "1.8e308"),
        };
        let constants = match self {
            System::DiscreteMap(m) => each_discrete!(m, s => s.step_constants(dt)),
            System::Hamiltonian(_) => Vec::new(),
        };
        match constants.into_iter().find(|&(_, x)| !fits(x)) {
            Some((name, x)) => {
                let mut message = vec![
                    Piece::Field(Field::Params),
                    Piece::Text(format!(": system '{}' at ", self.name())),
                    Field::Precision.is(precision.name()),
                    Piece::Text(format!(" computes its step with {name} = {x:.2e}, beyond the precision's range (about {range}); lower the parameters or ")),
                    Piece::Field(Field::Dt),
                ];
                if precision == Precision::F32 {
                    message.extend([Piece::from(", or run with "), Field::Precision.is("f64")]);
                }
                Err(Error::Invalid {
                    field: Field::Params,
                    message: Message(message),
                })
            }
            None => Ok(()),
        }
    }

    /// Refuse an f64 GPU kernel for a Hamiltonian (a formula's, or a built-in system's
    /// generated from its formula) whose derivatives call a function Vulkan lacks in f64.
    pub fn check_gpu_f64(&self) -> Result<()> {
        match self.hamiltonian().and_then(|h| h.gpu_f64_missing()) {
            Some(f) => Err(invalid!(Field::Precision;
                Field::Precision.is("f64"),
                " ",
                Field::Backend.is("gpu"),
                format!(": the Hamiltonian's derivatives call {f}, which GPU shaders do not have in f64 (Vulkan offers only sqrt, and sin/cos through phaseflow's polynomial); use "),
                Field::Precision.is("f32"),
                " on the GPU, or ",
                Field::Backend.is("cpu"),
                " for f64"
            )),
            None => Ok(()),
        }
    }

    /// Degrees of freedom d: the state has 2d components.
    pub fn dof(&self) -> usize {
        each_system!(self, s => s.dof())
    }

    /// The names of the 2d state components (`SystemDescription::component_names`).
    pub fn component_names(&self) -> Vec<String> {
        each_system!(self, s => s.component_names())
    }

    /// The resolved parameters (for config.toml).
    pub fn params(&self) -> BTreeMap<String, f64> {
        each_system!(self, s => s.params())
    }

    /// The energy of one point in f64: H(q, p) of a Hamiltonian system, a discrete map's
    /// energy of (q, v) at the run's step `dt` (`DiscreteMap::energy`; a Hamiltonian system
    /// does not read `dt`).
    pub fn energy(&self, dt: f64, q: &[f64], p: &[f64]) -> f64 {
        match self {
            System::Hamiltonian(h) => h.energy(q, p),
            System::DiscreteMap(m) => each_discrete!(m, s => s.energy(dt, q, p)),
        }
    }

    /// `energy` in f64 of points `first..first + out.len()` of a component-major state of `n`
    /// points (see `Hamiltonian::energy_block`).
    pub fn energy_block<T: Real>(
        &self,
        dt: f64,
        q: &[T],
        p: &[T],
        n: usize,
        first: usize,
        out: &mut [f64],
    ) {
        match self {
            System::Hamiltonian(h) => h.energy_block(q, p, n, first, out),
            System::DiscreteMap(m) => {
                each_discrete!(m, s => s.energy_block(dt, q, p, n, first, out))
            }
        }
    }

    /// The system's gradients, if it is a Hamiltonian system (a discrete map has none: it is
    /// advanced by its own map, `DiscreteSystem::discrete_step`).
    pub fn hamiltonian(&self) -> Option<&HamiltonianSystem> {
        match self {
            System::Hamiltonian(h) => Some(h),
            System::DiscreteMap(_) => None,
        }
    }

    /// The system's map, if it is a discrete map.
    pub fn discrete(&self) -> Option<&DiscreteSystem> {
        match self {
            System::DiscreteMap(m) => Some(m),
            System::Hamiltonian(_) => None,
        }
    }

    /// Named f32 constants the system's WGSL expects, computed from the f64 parameters.
    pub fn wgsl_constants(&self) -> Vec<(&'static str, f64)> {
        each_system!(self, s => s.constants())
    }

    /// The constants of the system's f64 energy WGSL (`gpu::energy`): `wgsl_constants`, and
    /// for a discrete map the run's step `dt` as `H_STEP` (its energy's quadrature points).
    pub fn energy_constants(&self, dt: f64) -> Vec<(&'static str, f64)> {
        let mut constants = self.wgsl_constants();
        if let System::DiscreteMap(_) = self {
            constants.push(("H_STEP", dt));
        }
        constants
    }

    /// Named constant arrays the system's WGSL expects.
    pub fn wgsl_arrays(&self) -> Vec<(&'static str, Vec<f64>)> {
        each_system!(self, s => s.arrays())
    }

    /// The stable equilibrium z* = (q*, p*) that `level` ensembles are star-shaped around
    /// (1-DOF systems; `None` where there is none).
    pub fn minimum(&self) -> Option<Vec<f64>> {
        each_system!(self, s => s.minimum())
    }

    /// The system's named default initial state (q1..qd, p1..pd).
    pub fn default_state(&self) -> Vec<f64> {
        each_system!(self, s => s.default_state())
    }

    /// A sensible centre for ensembles when the user gives none: the default state.
    pub fn default_center(&self) -> Vec<f64> {
        self.default_state()
    }

    /// A state component to plot against time for single trajectories (label, index in z).
    pub fn observable(&self) -> Option<(&'static str, usize)> {
        each_system!(self, s => s.observable())
    }

    /// A variational system (`SystemInfo::variational`): advanced by its own two-step map.
    pub fn variational(&self) -> bool {
        matches!(self, System::DiscreteMap(_))
    }

    /// Whether the state's second half is the velocity v (Torrente's variational systems)
    /// rather than the momentum p (every Hamiltonian system, and a Lagrangian given as a
    /// formula, which carries p through the discrete Legendre transforms).
    pub fn stores_velocities(&self) -> bool {
        self.variational() && self.lagrangian().is_none()
    }

    /// A discrete map whose configuration steps by its stored velocity
    /// (`DiscreteMap::drifts`); true for the Hamiltonian systems, which have no such map.
    pub fn drifts(&self) -> bool {
        self.discrete().is_none_or(|m| m.drifts())
    }

    /// The largest violation of a nonholonomic system's continuous constraints by one point's
    /// discrete velocity at step `dt` (None for systems without constraints).
    pub fn constraint_error(&self, dt: f64, q: &[f64], v: &[f64]) -> Option<f64> {
        self.discrete().and_then(|m| m.constraint_error(dt, q, v))
    }

    /// Put an initial point (q1..qd, v1..vd) on the system's discrete constraint at step `dt`
    /// (`DiscreteMap::project_start`); the row untouched where the system has no such
    /// projection.
    pub fn project_start(&self, dt: f64, row: &mut [f64]) {
        let (q, v) = row.split_at_mut(self.dof());
        if let Some(m) = self.discrete() {
            m.project_start(dt, q, v);
        }
    }

    /// Whether the system projects its initial velocities (`project_start`): the systems
    /// `--raw-start` applies to.
    pub fn projects_start(&self) -> bool {
        self.discrete().is_some_and(|m| m.projects_start())
    }

    /// Whether the system has nonholonomic constraints (the `constraint_err_max` column), as
    /// its `DiscreteMap::constraints` declares.
    pub fn constrained(&self) -> bool {
        self.constraints() == Some(Constraints::Nonholonomic)
    }

    /// Whether the run measures how far its points are off constraints (`constraint_err_max`):
    /// a nonholonomic system's, or a Lagrangian's holonomic ones (`--constraint`).
    pub fn measures_constraints(&self) -> bool {
        self.constrained() || self.lagrangian().is_some_and(|l| l.holonomic.is_some())
    }

    /// A discrete map's declared constraints (`None` for a Hamiltonian system).
    pub fn constraints(&self) -> Option<Constraints> {
        self.discrete().map(|m| m.constraints())
    }

    /// A holonomic discrete map (symplectic in (q, p = −D₁L_d)): loop areas are measured in
    /// (q, p) through `momentum`.
    pub fn holonomic_map(&self) -> bool {
        self.constraints() == Some(Constraints::Holonomic)
    }

    /// The discrete Legendre transform p = −D₁L_d(q, q + dt v) of one point of a holonomic
    /// discrete map, into `p` (see `DiscreteMap::momentum`).
    pub fn momentum(&self, dt: f64, q: &[f64], v: &[f64], p: &mut [f64]) {
        if let Some(m) = self.discrete() {
            m.momentum(dt, q, v, p);
        }
    }

    /// Whether the system's tangent columns can be advanced: every Hamiltonian system (through
    /// its gradients' linearisation), and the discrete maps whose `tangent_step` is written.
    pub fn has_tangent_map(&self) -> bool {
        self.discrete().is_none_or(|m| m.linearised())
    }

    /// A configuration plane to draw a single trajectory's path in (label, x and y components).
    pub fn path(&self) -> Option<(&'static str, usize, usize)> {
        each_system!(self, s => s.path())
    }

    /// The masses of p = m q̇ where they are not 1 (`SystemDescription::masses`).
    pub fn masses(&self) -> Option<Vec<f64>> {
        each_system!(self, s => s.masses())
    }

    /// The point of a state's path from its q (`SystemDescription::path_point`).
    pub fn path_point(&self, q: &[f64]) -> Option<(f64, f64)> {
        each_system!(self, s => s.path_point(q))
    }

    /// The names of the path's axes (`SystemDescription::path_axes`).
    pub fn path_axes(&self) -> Option<(String, String)> {
        each_system!(self, s => s.path_axes())
    }

    /// Total angular momentum where the system conserves it.
    pub fn angular_momentum(&self, q: &[f64], p: &[f64]) -> Option<[f64; 3]> {
        each_system!(self, s => s.angular_momentum(q, p))
    }

    /// The momentum the run follows per point from t = 0: a Lagrangian's discrete momentum
    /// J (`--momentum`, as [J, 0, 0]: `LagrangianSystem::momentum_map`), else the angular
    /// momentum where the system conserves it.
    pub fn conserved(&self, q: &[f64], p: &[f64]) -> Option<[f64; 3]> {
        match self.lagrangian() {
            Some(l) => l.momentum_map(q, p).map(|j| [j, 0.0, 0.0]),
            None => self.angular_momentum(q, p),
        }
    }
}

#[cfg(test)]
mod tests;
