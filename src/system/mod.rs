//! Hamiltonian systems: one file per system. Each defines its parameters, H (in f64), the
//! block-wise gradients ∂H/∂q and ∂H/∂p used by the CPU kernels (f32 and f64), their
//! directional derivatives `grad_q_dir` / `grad_p_dir` (for the tangent map), and the
//! constants its WGSL file (`shaders/system/<name>.wgsl`) needs. Both sides compute derived
//! constants from the same f64 values, so CPU and GPU use bit-identical coefficients.
//!
//! Block layout everywhere: component-major, `q[k*n + i]` for component k of point i.

pub mod oscillator;
pub mod pendulum;

use std::collections::BTreeMap;

use crate::error::Result;
use crate::float::Real;
use crate::input_err;

pub use oscillator::Oscillator;
pub use pendulum::Pendulum;

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
    /// H = T(p) + V(q): every symplectic method in this crate is explicit.
    pub separable: bool,
}

/// Every system phaseflow knows. Add a variant and a file to add a system.
#[derive(Debug, Clone)]
pub enum System {
    Oscillator(Oscillator),
    Pendulum(Pendulum),
}

pub const CATALOGUE: &[SystemInfo] = &[oscillator::INFO, pendulum::INFO];

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
        if !out.contains_key(k) {
            let known: Vec<&str> = info.params.iter().map(|p| p.name).collect();
            return Err(input_err!(
                "--param {k}={v}: system '{}' has no parameter '{k}' (its parameters: {})",
                info.name,
                known.join(", ")
            ));
        }
        if !v.is_finite() {
            return Err(input_err!(
                "--param {k}={v}: the value must be a finite number"
            ));
        }
        out.insert(k.clone(), *v);
    }
    Ok(out)
}

/// Require a parameter to be strictly positive (masses, lengths, stiffnesses).
pub(crate) fn require_positive(
    system: &str,
    params: &BTreeMap<String, f64>,
    names: &[&str],
) -> Result<()> {
    for n in names {
        let v = params[*n];
        if !(v > 0.0) {
            return Err(input_err!(
                "--param {n}={v}: system '{system}' needs {n} > 0 (a non-positive {n} makes the Hamiltonian meaningless)"
            ));
        }
    }
    Ok(())
}

impl System {
    pub fn info_by_name(name: &str) -> Result<&'static SystemInfo> {
        CATALOGUE.iter().find(|s| s.name == name).ok_or_else(|| {
            let names: Vec<&str> = CATALOGUE.iter().map(|s| s.name).collect();
            input_err!(
                "--system {name}: unknown system (known: {})",
                names.join(", ")
            )
        })
    }

    /// Build a system from its name and user parameters (defaults fill the rest).
    pub fn new(name: &str, given: &BTreeMap<String, f64>) -> Result<System> {
        let info = Self::info_by_name(name)?;
        let params = resolve_params(info, given)?;
        let system = match info.name {
            oscillator::NAME => System::Oscillator(Oscillator::new(&params)?),
            pendulum::NAME => System::Pendulum(Pendulum::new(&params)?),
            _ => unreachable!("catalogue and constructors out of sync"),
        };
        // The kernels use derived constants in f32: they must be finite there too.
        for (constant, value) in system.wgsl_constants() {
            if !(value as f32).is_finite() {
                return Err(input_err!(
                    "--param: these parameters make the derived constant {constant} = {value:e} overflow f32; rescale the parameters"
                ));
            }
        }
        Ok(system)
    }

    pub fn info(&self) -> &'static SystemInfo {
        match self {
            System::Oscillator(_) => &oscillator::INFO,
            System::Pendulum(_) => &pendulum::INFO,
        }
    }

    pub fn name(&self) -> &'static str {
        self.info().name
    }

    /// Degrees of freedom d: the state has 2d components.
    pub fn dof(&self) -> usize {
        match self {
            System::Oscillator(_) | System::Pendulum(_) => 1,
        }
    }

    /// The resolved parameters (for config.toml).
    pub fn params(&self) -> BTreeMap<String, f64> {
        match self {
            System::Oscillator(s) => s.params(),
            System::Pendulum(s) => s.params(),
        }
    }

    /// H(q, p) of one point, in f64.
    pub fn energy(&self, q: &[f64], p: &[f64]) -> f64 {
        match self {
            System::Oscillator(s) => s.energy(q, p),
            System::Pendulum(s) => s.energy(q, p),
        }
    }

    /// ∂H/∂q for a block of points (component-major slices of equal length).
    #[inline]
    pub fn grad_q<T: Real>(&self, q: &[T], p: &[T], out: &mut [T]) {
        match self {
            System::Oscillator(s) => s.grad_q(q, p, out),
            System::Pendulum(s) => s.grad_q(q, p, out),
        }
    }

    /// ∂H/∂p for a block of points.
    #[inline]
    pub fn grad_p<T: Real>(&self, q: &[T], p: &[T], out: &mut [T]) {
        match self {
            System::Oscillator(s) => s.grad_p(q, p, out),
            System::Pendulum(s) => s.grad_p(q, p, out),
        }
    }

    /// Directional derivative of ∂H/∂q along (vq, vp): H_qq vq + H_qp vp, for a block of points
    /// (the tangent map's linearisation; all slices of equal length, component-major).
    #[inline]
    pub fn grad_q_dir<T: Real>(&self, q: &[T], p: &[T], vq: &[T], vp: &[T], out: &mut [T]) {
        match self {
            System::Oscillator(s) => s.grad_q_dir(q, p, vq, vp, out),
            System::Pendulum(s) => s.grad_q_dir(q, p, vq, vp, out),
        }
    }

    /// Directional derivative of ∂H/∂p along (vq, vp): H_pq vq + H_pp vp.
    #[inline]
    pub fn grad_p_dir<T: Real>(&self, q: &[T], p: &[T], vq: &[T], vp: &[T], out: &mut [T]) {
        match self {
            System::Oscillator(s) => s.grad_p_dir(q, p, vq, vp, out),
            System::Pendulum(s) => s.grad_p_dir(q, p, vq, vp, out),
        }
    }

    /// The WGSL file that defines `grad_q`, `grad_p`, `grad_q_dir` and `grad_p_dir` for this system.
    pub fn wgsl_source(&self) -> &'static str {
        match self {
            System::Oscillator(_) => include_str!("../../shaders/system/oscillator.wgsl"),
            System::Pendulum(_) => include_str!("../../shaders/system/pendulum.wgsl"),
        }
    }

    /// Named f32 constants the system's WGSL expects, computed from the f64 parameters.
    pub fn wgsl_constants(&self) -> Vec<(&'static str, f64)> {
        match self {
            System::Oscillator(s) => s.constants(),
            System::Pendulum(s) => s.constants(),
        }
    }

    /// The stable equilibrium z* = (q*, p*) that `level` ensembles are star-shaped around.
    pub fn minimum(&self) -> Vec<f64> {
        match self {
            System::Oscillator(_) | System::Pendulum(_) => vec![0.0, 0.0],
        }
    }

    /// A sensible centre for ensembles when the user gives none.
    pub fn default_center(&self) -> Vec<f64> {
        match self {
            System::Oscillator(_) => vec![0.0, 1.0],
            System::Pendulum(_) => vec![0.0, 0.8],
        }
    }
}
