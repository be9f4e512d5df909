//! Kepler problem H = |p|²/2 − 1/|q| (d = 2, GNI I.2.3).
//! The eccentricity e only picks the default initial state: q = (1 − e, 0),
//! p = (0, √((1 + e)/(1 − e))), with H0 = −1/2, angular momentum L0 = √(1 − e²), period 2π.
//!
//! Its functions (the CPU's in `generated/kepler.rs`, the GPU's in shaders/system/kepler.wgsl
//! and shaders/energy/kepler.wgsl) are generated from `FORMULAS` (see `generated/mod.rs`).

use std::collections::BTreeMap;

use super::generated::{generated_hamiltonian, Formulas};
use super::{named_components, ParamSpec, SystemDef, SystemDescription, SystemInfo};
use crate::error::Result;

pub const NAME: &str = "kepler";
pub const INFO: SystemInfo = SystemInfo {
    name: NAME,
    summary: "Kepler problem H = |p|²/2 − 1/|q| (d = 2); default state: pericentre of the orbit of eccentricity e (H0 = −1/2, period 2π)",
    params: &[ParamSpec { name: "e", default: 0.6, meaning: "eccentricity of the default initial orbit (0 ≤ e < 1)" }],
    separable: true,
    sweeps: Some(1),
    indexed: &[],
    variational: false,
};

/// The dynamics (see `generated/mod.rs`), no constants: the gradient q/|q|³ is generated as
/// q·(1/(|q|²·|q|)), one square root and one division per point.
pub const FORMULAS: Formulas = Formulas {
    name: NAME,
    dof: 2,
    constants: &[],
    hamiltonian: "(p1^2 + p2^2)/2 - 1/sqrt(q1^2 + q2^2)",
    statistics: None,
};

#[derive(Debug, Clone)]
pub struct Kepler {
    pub e: f64,
    /// The values of `FORMULAS.constants` (none).
    c: Vec<f64>,
}

impl SystemDef for Kepler {
    const INFO: SystemInfo = INFO;
    const WGSL: &'static str = include_str!("../../shaders/system/kepler.wgsl");
    const ENERGY_WGSL: &'static str = include_str!("../../shaders/energy/kepler.wgsl");

    fn new(params: &BTreeMap<String, f64>) -> Result<Self> {
        let e = params["e"];
        if !(0.0..1.0).contains(&e) {
            return Err(super::bad_param(
                "e",
                e,
                ": system 'kepler' needs 0 ≤ e < 1 (a bound elliptic orbit)",
            ));
        }
        Ok(Kepler {
            e,
            c: FORMULAS.constant_values(params),
        })
    }
}

impl SystemDescription for Kepler {
    fn dof(&self) -> usize {
        2
    }

    fn component_names(&self) -> Vec<String> {
        named_components(&["x", "y"], "p_")
    }

    fn params(&self) -> BTreeMap<String, f64> {
        BTreeMap::from([("e".into(), self.e)])
    }

    fn constants(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }

    fn default_state(&self) -> Vec<f64> {
        let e = self.e;
        vec![1.0 - e, 0.0, 0.0, ((1.0 + e) / (1.0 - e)).sqrt()]
    }

    fn angular_momentum(&self, q: &[f64], p: &[f64]) -> Option<[f64; 3]> {
        Some([0.0, 0.0, q[0] * p[1] - q[1] * p[0]])
    }

    fn path(&self) -> Option<(&'static str, usize, usize)> {
        Some(("orbit (q1, q2)", 0, 1))
    }
}

generated_hamiltonian!(Kepler, kepler);
