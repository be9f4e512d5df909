//! A Hamiltonian given as a formula (`--hamiltonian EXPR`, or `--system-file FILE.toml`): the
//! `expr` module's compiled H (symbolic gradients and Hessian-vector products, a register
//! bytecode for the CPU engine) behind the `Hamiltonian` trait. Mirror: the WGSL that
//! `ExprHamiltonian::wgsl` generates from the same derivative DAG, in place of a
//! `shaders/system/<name>.wgsl` file.
//!
//! Unlike the built-in systems it is not in `CATALOGUE`: it is built from its description
//! (`ExprSpec`), which config.toml records whole (formula, degrees of freedom, parameters, name,
//! default state, coordinate names), so `--config DIR/config.toml` rebuilds the same system.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{Hamiltonian, SystemDescription};
use crate::error::{Field, Result};
use crate::expr::ExprHamiltonian;
use crate::float::Real;
use crate::{input_err, invalid};

/// The name of a system given by `--hamiltonian` alone (a system file names its own).
pub const DEFAULT_NAME: &str = "expression";

/// Everything that defines an expression system: what `--hamiltonian`, `--dof`, `--param` and a
/// system file give, and what config.toml records.
#[derive(Debug, Clone, PartialEq)]
pub struct ExprSpec {
    /// The system's name in reports (`expression`, or the system file's `name`).
    pub name: String,
    /// H as written.
    pub formula: String,
    /// `--dof` (or the file's `dof`): more degrees of freedom than the formula's largest index.
    pub dof: Option<usize>,
    /// The values of the formula's named parameters.
    pub params: BTreeMap<String, f64>,
    /// The default initial state (q1..qd, p1..pd) [default: all zero].
    pub default_state: Option<Vec<f64>>,
    /// Names of q1..qd for reports (the file's `coordinates`) [default: q1..qd].
    pub coordinates: Option<Vec<String>>,
}

/// An expression system: its description and the compiled formula with its generated WGSL.
#[derive(Debug, Clone)]
pub struct ExprSystem {
    pub spec: ExprSpec,
    /// The compiled formula (shared: a `System` is cloned into every engine).
    pub h: Arc<ExprHamiltonian>,
    /// `grad_q`, `grad_p`, `grad_q_dir`, `grad_p_dir` in WGSL (the integration kernels).
    wgsl: Arc<str>,
    /// `energy` in f64 WGSL (the device reduction), where Vulkan has H's functions in f64.
    energy_wgsl: Option<Arc<str>>,
    /// One degree of freedom: the minimum of H Newton's method finds from the default state
    /// (what `level` ensembles wind around); `None` where it finds none.
    minimum: Option<Vec<f64>>,
}

impl ExprSpec {
    /// Compile the formula with `compile` (a Hamiltonian's or a Lagrangian's, `second` the
    /// name of the state's second half) and check the rest of the description against it; its
    /// parameters are checked once every formula of the system is compiled
    /// (`check_params_used`).
    pub fn compile(
        &self,
        second: &str,
        compile: impl FnOnce(&str, &BTreeMap<String, f64>, Option<usize>) -> Result<ExprHamiltonian>,
    ) -> Result<ExprHamiltonian> {
        let spec = self;
        if spec.name.trim().is_empty() || spec.name.contains(['\n', '\r']) {
            return Err(input_err!(
                "system name '{}': give a non-empty one-line name",
                spec.name
            ));
        }
        if spec.dof == Some(0) {
            return Err(invalid!(Field::Dof;
                Field::Dof.is(0),
                ": a system needs at least one degree of freedom"
            ));
        }
        if let Some((k, v)) = spec.params.iter().find(|(_, v)| !v.is_finite()) {
            return Err(super::bad_param(
                k,
                crate::error::num(*v),
                ": the value must be a finite number",
            ));
        }
        let h = compile(&spec.formula, &spec.params, spec.dof)?;
        let d = h.dof;
        if let Some(z) = &spec.default_state {
            if z.len() != 2 * d || z.iter().any(|x| !x.is_finite()) {
                return Err(input_err!(
                    "default_state: expected {} finite values (q1..q{d}, {second}1..{second}{d}), got {:?}",
                    2 * d,
                    z
                ));
            }
        }
        if let Some(c) = &spec.coordinates {
            if c.len() != d {
                return Err(input_err!(
                    "coordinates: expected {d} names (one per degree of freedom), got {}",
                    c.len()
                ));
            }
        }
        Ok(h)
    }

    /// Refuse a parameter that none of the system's formulas reads (`used`: the names they
    /// read; `kind` names the formulas in the message): a misspelt `--param` would otherwise
    /// change nothing, silently.
    pub fn check_params_used(&self, kind: &str, used: &[&str]) -> Result<()> {
        let Some(unused) = self.params.keys().find(|k| !used.contains(&k.as_str())) else {
            return Ok(());
        };
        let names = if used.is_empty() {
            "none".to_string()
        } else {
            used.join(", ")
        };
        Err(invalid!(Field::Param(unused.clone());
            Field::Param(unused.clone()),
            format!(": the {kind} has no parameter '{unused}' (its names: {names})")
        ))
    }

    /// The path a single trajectory of a formula system of `d` degrees of freedom draws (its
    /// study's path figure): its first two coordinates, where it has two or more.
    pub fn path(d: usize) -> Option<(&'static str, usize, usize)> {
        (d >= 2).then_some(("configuration point", 0, 1))
    }

    /// The path's axes: the first two coordinates by their names.
    pub fn path_axes(&self, d: usize) -> Option<(String, String)> {
        let mut names = self.coordinate_names(d).into_iter();
        Some((names.next()?, names.next()?))
    }

    /// The names of q1..qd of a formula of `d` degrees of freedom.
    pub fn coordinate_names(&self, d: usize) -> Vec<String> {
        self.coordinates
            .clone()
            .unwrap_or_else(|| (1..=d).map(|k| format!("q{k}")).collect())
    }

    /// The names of the 2d state components: the file's `coordinates` and p_ after each, or
    /// q1..qd, p1..pd.
    pub fn component_names(&self, d: usize) -> Vec<String> {
        match &self.coordinates {
            Some(c) => super::named_components(c, "p_"),
            None => super::numbered_components(d),
        }
    }
}

impl ExprSystem {
    /// Compile the formula and check the rest of the description against it.
    pub fn new(spec: ExprSpec) -> Result<ExprSystem> {
        let h = spec.compile("p", ExprHamiltonian::new)?;
        spec.check_params_used("Hamiltonian", &h.used_params())?;
        let d = h.dof;
        let wgsl = h.wgsl().into();
        let energy_wgsl = h.energy_wgsl().map(Into::into);
        let start = spec
            .default_state
            .clone()
            .unwrap_or_else(|| vec![0.0; 2 * d]);
        let minimum = (d == 1).then(|| newton_minimum(&h, &start)).flatten();
        Ok(ExprSystem {
            spec,
            h: Arc::new(h),
            wgsl,
            energy_wgsl,
            minimum,
        })
    }

    pub fn name(&self) -> &str {
        &self.spec.name
    }

    pub fn separable(&self) -> bool {
        self.h.separable
    }

    /// The integration kernels' system functions (what `shaders/system/<name>.wgsl` is for a
    /// built-in system).
    pub fn wgsl(&self) -> &str {
        &self.wgsl
    }

    /// The device reduction's f64 `energy`, or `None` (see `ExprHamiltonian::energy_wgsl`).
    pub fn energy_wgsl(&self) -> Option<&str> {
        self.energy_wgsl.as_deref()
    }

    /// The names of q1..qd.
    pub fn coordinates(&self) -> Vec<String> {
        self.spec.coordinate_names(self.h.dof)
    }
}

/// A minimum of a 1-DOF H near `start` = (q, p): Newton's method on ∇H = 0 with the exact
/// Hessian (the directional derivatives along the unit vectors), accepted when it converges to a
/// point where the Hessian is positive definite, or, where the Hessian is degenerate, H rises
/// around the point in every direction (`strict_minimum`).
fn newton_minimum(h: &ExprHamiltonian, start: &[f64]) -> Option<Vec<f64>> {
    let (mut q, mut p) = (start[0], start[1]);
    let eval = |q: f64, p: f64| {
        let (mut gq, mut gp) = ([0.0], [0.0]);
        h.grad_q(&[q], &[p], &mut gq);
        h.grad_p(&[q], &[p], &mut gp);
        let column = |vq: f64, vp: f64| {
            let (mut a, mut b) = ([0.0], [0.0]);
            h.grad_q_dir(&[q], &[p], &[vq], &[vp], &mut a);
            h.grad_p_dir(&[q], &[p], &[vq], &[vp], &mut b);
            (a[0], b[0])
        };
        let ((hqq, hpq), (hqp, hpp)) = (column(1.0, 0.0), column(0.0, 1.0));
        (gq[0], gp[0], hqq, hqp, hpq, hpp)
    };
    for _ in 0..100 {
        let (gq, gp, hqq, hqp, hpq, hpp) = eval(q, p);
        if gq == 0.0 && gp == 0.0 {
            // Already stationary: a degenerate Hessian (H = p²/2 + q⁴ at the origin) leaves
            // Newton's step undefined, yet the point may be a minimum all the same.
            return strict_minimum(h, q, p).then(|| vec![q, p]);
        }
        let det = hqq * hpp - hqp * hpq;
        if !(det.is_finite() && det != 0.0) {
            return None;
        }
        let dq = (hpp * gq - hqp * gp) / det;
        let dp = (hqq * gp - hpq * gq) / det;
        q -= dq;
        p -= dp;
        if !(q.is_finite() && p.is_finite()) {
            return None;
        }
        if dq.abs() <= 1e-14 * (1.0 + q.abs()) && dp.abs() <= 1e-14 * (1.0 + p.abs()) {
            let (_, _, hqq, hqp, hpq, hpp) = eval(q, p);
            let positive = hqq > 0.0 && hqq * hpp - hqp * hpq > 0.0;
            return (positive || strict_minimum(h, q, p)).then(|| vec![q, p]);
        }
    }
    None
}

/// Whether the stationary point (q, p) is a strict minimum where the Hessian cannot tell
/// (degenerate, as for q⁴): H rises along each of 64 directions at two small radii. A flat
/// direction (H = p²/2 has a line of minima) or a falling one is no minimum to draw level
/// curves around.
fn strict_minimum(h: &ExprHamiltonian, q: f64, p: f64) -> bool {
    let h0 = h.energy(&[q], &[p]);
    let scale = 1.0 + q.abs().max(p.abs());
    [1e-2, 1e-3].iter().all(|&r| {
        (0..64).all(|k| {
            let a = std::f64::consts::TAU * k as f64 / 64.0;
            let (dq, dp) = (r * scale * a.cos(), r * scale * a.sin());
            h.energy(&[q + dq], &[p + dp]) > h0
        })
    })
}

impl SystemDescription for ExprSystem {
    fn dof(&self) -> usize {
        self.h.dof
    }

    fn component_names(&self) -> Vec<String> {
        self.spec.component_names(self.h.dof)
    }

    fn path(&self) -> Option<(&'static str, usize, usize)> {
        ExprSpec::path(self.h.dof)
    }

    fn path_axes(&self) -> Option<(String, String)> {
        self.spec.path_axes(self.h.dof)
    }

    fn params(&self) -> BTreeMap<String, f64> {
        self.spec.params.clone()
    }

    /// None: parameters are folded into the generated WGSL as literals.
    fn constants(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }

    fn minimum(&self) -> Option<Vec<f64>> {
        self.minimum.clone()
    }

    fn default_state(&self) -> Vec<f64> {
        self.spec
            .default_state
            .clone()
            .unwrap_or_else(|| vec![0.0; 2 * self.h.dof])
    }
}

impl Hamiltonian for ExprSystem {
    fn energy(&self, q: &[f64], p: &[f64]) -> f64 {
        self.h.energy(q, p)
    }

    fn energy_block<T: Real>(&self, q: &[T], p: &[T], n: usize, first: usize, out: &mut [f64]) {
        self.h.energy_block(q, p, n, first, out)
    }

    fn gpu_f64_missing(&self) -> Option<&'static str> {
        self.h.gpu_f64_ready().err()
    }

    fn grad_q<T: Real>(&self, q: &[T], p: &[T], out: &mut [T]) {
        self.h.grad_q(q, p, out)
    }

    fn grad_p<T: Real>(&self, q: &[T], p: &[T], out: &mut [T]) {
        self.h.grad_p(q, p, out)
    }

    fn grad_q_dir<T: Real>(&self, q: &[T], p: &[T], vq: &[T], vp: &[T], out: &mut [T]) {
        self.h.grad_q_dir(q, p, vq, vp, out)
    }

    fn grad_p_dir<T: Real>(&self, q: &[T], p: &[T], vq: &[T], vp: &[T], out: &mut [T]) {
        self.h.grad_p_dir(q, p, vq, vp, out)
    }
}
