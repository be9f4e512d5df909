//! Your own Lagrangian: a variational integrator built from L(q, v) written as a formula
//! (`--lagrangian EXPR`, or `lagrangian = "…"` in a system file), after Fernández's slides
//! (the discrete Lagrangian L_d(q0, q1) ≈ ∫ L dt over one step, the discrete Euler–Lagrange
//! equations, the discrete Legendre transforms) and Marsden & West, "Discrete mechanics and
//! variational integrators".
//!
//! - `discretization`: the quadrature rules that make L_d from L (`--discretization`);
//! - `equations`: the discrete Euler–Lagrange equations over a polynomial path, their
//!   residuals and Jacobian for a block;
//! - `step`: the step on the CPU engine, solving them for q_{k+1} (and a path's interior
//!   control points) by Newton's method with the exact Jacobian, and its tangent map;
//! - `explicit`: the step without iterating where L has a constant mass matrix and the
//!   rule's nodes are the step's ends;
//! - `constraint`: holonomic constraints g(q) = 0 (`--constraint`), the step with Lagrange
//!   multipliers that keeps positions and momenta on them;
//! - `legendre`: the continuous Legendre transform and the energy;
//! - `wgsl`: the same step generated as the WGSL `discrete_step` of the GPU kernels.
//!
//! The formula is compiled by `expr` with the velocities v1..vd in the momenta's place
//! (`ExprHamiltonian::lagrangian`), so ∂L/∂q, ∂L/∂v and their directional derivatives are
//! the CPU programs and WGSL functions a Hamiltonian's gradients are. A `LagrangianSystem` is
//! a discrete map (`system::DiscreteMap`, advanced by `--method variational`) whose state is
//! (q_k, p_k) with p_k the discrete Legendre transform: unlike the built-in variational
//! systems, which hold (q_k, v_k), everything that reads (q, p) reads it as it is.

pub mod constraint;
pub mod discretization;
pub mod equations;
pub mod explicit;
pub mod legendre;
pub mod step;
pub mod wgsl;

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::error::{Field, Result};
use crate::expr::ExprHamiltonian;
use crate::float::Real;
use crate::invalid;
use crate::system::{Constraints, DiscreteMap, ExprSpec, Newton, SystemDescription};
use constraint::Holonomic;
pub use discretization::Discretization;

/// The name of a system given by `--lagrangian` alone (a system file names its own).
pub const DEFAULT_NAME: &str = "lagrangian";

/// Everything that defines a Lagrangian system, as config.toml records it: the formula and
/// its description (`ExprSpec`, with the formula L(q, v)), the discrete Lagrangian, and the
/// generator of a symmetry whose discrete momentum is measured.
#[derive(Debug, Clone, PartialEq)]
pub struct LagrangianSpec {
    pub expr: ExprSpec,
    pub discretization: Discretization,
    /// `--momentum 'EXPR,…'`: ξ_Q(q), d formulas in q (e.g. `-q2,q1` for rotations).
    pub momentum: Option<String>,
    /// `--velocities`: the initial states give (q, v); each starts at p = ∂L/∂v(q, v).
    pub velocities: bool,
    /// `--constraint EXPR` (repeatable): holonomic constraints g(q) = 0, formulas in q.
    pub constraints: Vec<String>,
}

/// A Lagrangian system: its description and the compiled formula with its generated WGSL.
#[derive(Debug, Clone)]
pub struct LagrangianSystem {
    pub spec: LagrangianSpec,
    /// L compiled with v in p's place (shared: a `System` is cloned into every engine).
    pub l: Arc<ExprHamiltonian>,
    /// L's constant mass matrix and offset where L = ½vᵀMv + c·v − U(q) (the Legendre
    /// transform is then one solve, and the step explicit for the rules that allow it).
    mass: Option<Arc<explicit::ConstantMass>>,
    /// `discrete_step` and the functions it calls, in WGSL.
    wgsl: Arc<str>,
    /// The components of ξ_Q(q), compiled (`momentum`).
    generator: Option<Arc<Vec<ExprHamiltonian>>>,
    /// The constraints, compiled (`constraints`; None where there are none).
    pub holonomic: Option<Arc<Holonomic>>,
}

impl LagrangianSystem {
    /// Compile the formula, check the description against it, and refuse a Lagrangian that
    /// does not depend on the velocities (it has no equations of motion to step).
    pub fn new(spec: LagrangianSpec) -> Result<LagrangianSystem> {
        let l = spec.expr.compile("v", ExprHamiltonian::lagrangian)?;
        if !l.uses_second() {
            return Err(invalid!(Field::Lagrangian;
                Field::Lagrangian.is(&spec.expr.formula),
                ": the Lagrangian does not depend on the velocities v (v1..vd), so ∂²L/∂v² is 0 and it has no equations of motion; write its kinetic energy, e.g. 'v^2/2 - V(q)'"
            ));
        }
        let holonomic = match spec.constraints.is_empty() {
            true => None,
            false => Some(Arc::new(Holonomic::new(
                &spec.constraints,
                &spec.expr.params,
                l.dof,
            )?)),
        };
        if holonomic.is_some() && spec.discretization.degree() > 1 {
            return Err(invalid!(Field::Constraint;
                Field::Constraint,
                format!(" takes a discrete Lagrangian of one segment (left, right, midpoint, trapezoid), not {}: a path constrained at its ends only would leave the constraints between them and lose its order; choose ", spec.discretization.name()),
                Field::Discretization.is("trapezoid"),
                " or ",
                Field::Discretization.is("midpoint")
            ));
        }
        let mass = explicit::ConstantMass::of(&l);
        let wgsl =
            wgsl::discrete_step(&l, mass.as_ref(), spec.discretization, holonomic.as_deref())
                .into();
        let generator = match &spec.momentum {
            Some(text) => Some(Arc::new(generator(text, &spec.expr.params, l.dof)?)),
            None => None,
        };
        // A parameter may appear in the constraints or the momentum only.
        let mut used: Vec<&str> = Vec::new();
        let every = (l.used_params().into_iter())
            .chain(holonomic.iter().flat_map(|c| c.c.used_params()))
            .chain(
                generator
                    .iter()
                    .flat_map(|g| g.iter().flat_map(|x| x.used_params())),
            );
        for name in every {
            if !used.contains(&name) {
                used.push(name);
            }
        }
        let kind = match (&holonomic, &generator) {
            (None, None) => "Lagrangian",
            (Some(_), None) => "Lagrangian with its constraints",
            (None, Some(_)) => "Lagrangian with its momentum",
            (Some(_), Some(_)) => "Lagrangian with its constraints and momentum",
        };
        spec.expr.check_params_used(kind, &used)?;
        Ok(LagrangianSystem {
            spec,
            l: Arc::new(l),
            mass: mass.map(Arc::new),
            wgsl,
            generator,
            holonomic,
        })
    }

    /// The discrete momentum J = p·ξ_Q(q) of one point (q, p) (`--momentum`), or None where
    /// no generator is given. At step k it is D₂L_d(q_{k−1}, q_k)·ξ_Q(q_k), the discrete
    /// Legendre transform's p_k: what the discrete Noether theorem conserves for an L_d
    /// invariant under the symmetry ξ generates.
    pub fn momentum_map(&self, q: &[f64], p: &[f64]) -> Option<f64> {
        let xi = self.generator.as_ref()?;
        let v = vec![0.0; q.len()];
        Some(xi.iter().zip(p).map(|(x, p)| p * x.energy(q, &v)).sum())
    }

    pub fn name(&self) -> &str {
        &self.spec.expr.name
    }

    /// `discrete_step` in WGSL (what `shaders/system/<name>.wgsl` is for a built-in map).
    pub fn wgsl(&self) -> &str {
        &self.wgsl
    }

    /// An initial point as the run starts it: (q, p) as given, or, with `--velocities`, the
    /// second half read as v and replaced by p = ∂L/∂v(q, v) (the continuous Legendre
    /// transform); put on the constraints where there are some (`Holonomic::project`); then
    /// refused where it cannot start (`check_start`, once, where it starts). With constraints,
    /// its energy before and after when the projection moved it. `at` is the point's index in the set.
    pub fn start_point(
        &self,
        at: usize,
        q: &mut [f64],
        p: &mut [f64],
    ) -> Result<Option<(f64, f64)>> {
        if self.spec.velocities {
            let v = p.to_vec();
            self.l.grad_p(q, &v, p);
            if p.iter().any(|x| !x.is_finite()) {
                return Err(invalid!(Field::Velocities;
                    Field::Velocities,
                    format!(": at initial point {} (q = {q:?}, v = {v:?}) the momentum ∂L/∂v is not finite; start elsewhere (", at + 1),
                    Field::Center,
                    ", ",
                    Field::Ensemble,
                    ")"
                ));
            }
        }
        let Some(hol) = &self.holonomic else {
            return self.check_start(at, q, p).map(|_| None);
        };
        // With constraints the point is checked where it starts, on them: its velocity as
        // given is only the projection's first guess.
        let (q0, p0) = (q.to_vec(), p.to_vec());
        let v = self.velocity(q, p).unwrap_or_else(|_| vec![0.0; q.len()]);
        hol.project(&self.l, q, p, &v).map_err(|why| {
            invalid!(Field::Constraint;
                Field::Constraint,
                format!(": initial point {} (q = {q0:?}, p = {p0:?}) could not be put on the constraints: {why}; start nearer them (", at + 1),
                Field::Center,
                ", ",
                Field::Ensemble,
                ")"
            )
        })?;
        self.check_start(at, q, p)?;
        let moved = q != q0.as_slice() || p != p0.as_slice();
        Ok(moved.then(|| (self.energy(0.0, &q0, &p0), self.energy(0.0, q, p))))
    }

    /// The velocity v of one point (q, p): the continuous Legendre transform inverted.
    fn velocity(&self, q: &[f64], p: &[f64]) -> std::result::Result<Vec<f64>, String> {
        match &self.mass {
            Some(mass) => mass.velocity(p),
            None => legendre::velocity(&self.l, q, p),
        }
    }

    /// Refuse an initial point (q, p) whose continuous Legendre transform p = ∂L/∂v(q, v)
    /// cannot be inverted: ∂²L/∂v² singular there (a degenerate Lagrangian), or no velocity
    /// found. `at` is the point's index in the set.
    pub fn check_start(&self, at: usize, q: &[f64], p: &[f64]) -> Result<()> {
        self.velocity(q, p).map(|_| ()).map_err(|why| {
            invalid!(Field::Lagrangian;
                Field::Lagrangian.is(&self.spec.expr.formula),
                format!(": at initial point {} (q = {q:?}, p = {p:?}) {why}: the Lagrangian is degenerate there and its discrete Euler–Lagrange equations have no unique solution; start elsewhere (",
                    at + 1),
                Field::Center,
                ", ",
                Field::Ensemble,
                ") or change L"
            )
        })
    }

    /// A one-line description: the formula, its discrete Lagrangian and its constraints.
    pub fn describe(&self) -> String {
        let constraints: String = self
            .spec
            .constraints
            .iter()
            .map(|g| format!(", `{g}` = 0"))
            .collect();
        format!(
            "`{}`, L = `{}`, L_d = {} ({}){constraints}",
            self.name(),
            self.spec.expr.formula,
            self.spec.discretization.formula(),
            self.spec.discretization.name()
        )
    }
}

/// Compile `--momentum`'s d comma-separated formulas in q1..qd (a velocity is refused: ξ_Q is
/// a vector field on the configuration space).
fn generator(text: &str, params: &BTreeMap<String, f64>, d: usize) -> Result<Vec<ExprHamiltonian>> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let bad = |why: String| {
        invalid!(Field::Momentum;
            Field::Momentum.is(text),
            format!(": {why}; give ξ_Q(q) as {d} formula{} in q separated by commas, e.g. ", if d == 1 { "" } else { "s" }),
            Field::Momentum.is(if d == 2 { "-q2,q1" } else { "1" })
        )
    };
    if parts.len() != d {
        return Err(bad(format!(
            "{} component{} for {d} degree{} of freedom",
            parts.len(),
            if parts.len() == 1 { "" } else { "s" },
            if d == 1 { "" } else { "s" }
        )));
    }
    parts
        .iter()
        .map(|part| {
            let x = ExprHamiltonian::lagrangian(part, params, Some(d))
                .map_err(|e| bad(e.to_string()))?;
            match x.uses_second() {
                true => Err(bad(format!("'{part}' depends on a velocity"))),
                false => Ok(x),
            }
        })
        .collect()
}

impl SystemDescription for LagrangianSystem {
    fn dof(&self) -> usize {
        self.l.dof
    }

    /// The state is (q, p): its p slots hold the momenta of the discrete Legendre transform.
    fn component_names(&self) -> Vec<String> {
        self.spec.expr.component_names(self.l.dof)
    }

    fn path(&self) -> Option<(&'static str, usize, usize)> {
        ExprSpec::path(self.l.dof)
    }

    fn path_axes(&self) -> Option<(String, String)> {
        self.spec.expr.path_axes(self.l.dof)
    }

    fn params(&self) -> BTreeMap<String, f64> {
        self.spec.expr.params.clone()
    }

    /// None: parameters are folded into the generated WGSL as literals.
    fn constants(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }

    fn default_state(&self) -> Vec<f64> {
        self.spec
            .expr
            .default_state
            .clone()
            .unwrap_or_else(|| vec![0.0; 2 * self.l.dof])
    }
}

impl DiscreteMap for LagrangianSystem {
    /// E = v·∂L/∂v − L at the continuous Legendre image v of (q, p) (`legendre::energy`); the
    /// state's p slots hold p, not v.
    fn energy(&self, _h: f64, q: &[f64], p: &[f64]) -> f64 {
        legendre::energy(&self.l, self.mass.as_deref(), q, p)
    }

    /// `energy` of a block's points, computed together (`legendre::energies`).
    fn energy_block<T: Real>(
        &self,
        _h: f64,
        q: &[T],
        p: &[T],
        n: usize,
        first: usize,
        out: &mut [f64],
    ) {
        legendre::energies(&self.l, self.mass.as_deref(), q, p, n, first, out)
    }

    fn constraints(&self) -> Constraints {
        Constraints::Holonomic
    }

    /// The state holds (q_k, p_k) and steps them itself (`step::step`): `next` (the drift
    /// q + h·p the method sums) is not read.
    fn discrete_step<T: Real>(
        &self,
        h: T,
        q: &mut [T],
        _next: &[T],
        p: &mut [T],
        _ep: &mut [T],
        newton: Newton,
        unconverged: &mut [u32],
    ) {
        if let Some(hol) = &self.holonomic {
            let rule = self.spec.discretization;
            return constraint::step(&self.l, hol, rule, h, q, p, newton, unconverged);
        }
        step::step(
            &self.l,
            self.mass.as_deref(),
            self.spec.discretization,
            h,
            q,
            p,
            newton,
            unconverged,
        );
    }

    fn drifts(&self) -> bool {
        false
    }

    /// max |gⱼ(q)| with constraints (`--constraint`), else None.
    fn constraint_error(&self, _h: f64, q: &[f64], _p: &[f64]) -> Option<f64> {
        self.holonomic.as_ref().map(|hol| hol.error(q))
    }

    /// The state's p is the momentum already.
    fn momentum(&self, _h: f64, _q: &[f64], p: &[f64], out: &mut [f64]) {
        out.copy_from_slice(p);
    }

    /// Not with constraints: the map's Jacobian on the full (q, p) space is singular there
    /// (it projects onto the constraints), and its tangent step is not written.
    fn linearised(&self) -> bool {
        self.holonomic.is_none()
    }

    /// Through `tangent_columns`, which solves the step once for all columns.
    fn tangent_step<T: Real>(&self, h: T, q: &[T], p: &[T], tq: &mut [T], tp: &mut [T]) {
        self.tangent_columns(h, q, p, tq, tp)
    }

    /// Through `step::tangent`: the step's control points (q1 and, for a path of degree
    /// s > 1, its interior ones) solved again from (q, p) before the step by Newton's method
    /// (the engine hands the columns the state before it; to the rounding gate, 50 iterations
    /// at most), then the implicit function theorem on the discrete Euler–Lagrange equations.
    fn tangent_columns<T: Real>(&self, h: T, q: &[T], p: &[T], tq: &mut [T], tp: &mut [T]) {
        let newton = Newton {
            tol: crate::float::rounding_gate::<T>(),
            max_iter: 50,
        };
        let rule = self.spec.discretization;
        step::tangent(&self.l, rule, h, (q, p), newton, tq, tp);
    }
}
