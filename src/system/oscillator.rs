//! Harmonic oscillator H = p²/(2m) + k q²/2. Its functions (the CPU's in
//! `generated/oscillator.rs`, the GPU's in shaders/system/oscillator.wgsl and
//! shaders/energy/oscillator.wgsl) are generated from `FORMULAS` (see `generated/mod.rs`).

use std::collections::BTreeMap;

use super::generated::{generated_hamiltonian, Formulas};
use super::{require_positive, ParamSpec, SystemDef, SystemDescription, SystemInfo};
use crate::error::Result;

pub const NAME: &str = "oscillator";
pub const INFO: SystemInfo = SystemInfo {
    name: NAME,
    summary: "harmonic oscillator H = p²/(2m) + k q²/2 (d = 1); exact flow is a rotation of period 2π√(m/k)",
    params: &[
        ParamSpec { name: "m", default: 1.0, meaning: "mass" },
        ParamSpec { name: "k", default: 1.0, meaning: "spring constant" },
    ],
    separable: true,
    sweeps: Some(1),
    indexed: &[],
    variational: false,
};

/// The dynamics (see `generated/mod.rs`): SPRING_K = k, INV_MASS = 1/m.
pub const FORMULAS: Formulas = Formulas {
    name: NAME,
    dof: 1,
    constants: &[("SPRING_K", "k"), ("INV_MASS", "1/m")],
    hamiltonian: "INV_MASS*p^2/2 + SPRING_K*q^2/2",
    statistics: None,
};

#[derive(Debug, Clone)]
pub struct Oscillator {
    pub m: f64,
    pub k: f64,
    /// The values of `FORMULAS.constants`.
    c: Vec<f64>,
}

impl SystemDef for Oscillator {
    const INFO: SystemInfo = INFO;
    const WGSL: &'static str = include_str!("../../shaders/system/oscillator.wgsl");
    const ENERGY_WGSL: &'static str = include_str!("../../shaders/energy/oscillator.wgsl");

    fn new(params: &BTreeMap<String, f64>) -> Result<Self> {
        require_positive(NAME, params, &["m", "k"])?;
        Ok(Oscillator {
            m: params["m"],
            k: params["k"],
            c: FORMULAS.constant_values(params),
        })
    }
}

impl SystemDescription for Oscillator {
    fn dof(&self) -> usize {
        1
    }

    fn component_names(&self) -> Vec<String> {
        vec!["q".into(), "p".into()]
    }

    /// The default centre of ensembles: a point on the upper half of a level curve.
    fn default_state(&self) -> Vec<f64> {
        vec![0.0, 1.0]
    }

    fn minimum(&self) -> Option<Vec<f64>> {
        Some(vec![0.0, 0.0])
    }

    fn params(&self) -> BTreeMap<String, f64> {
        BTreeMap::from([("m".into(), self.m), ("k".into(), self.k)])
    }

    /// p = m q̇.
    fn masses(&self) -> Option<Vec<f64>> {
        Some(vec![self.m])
    }

    fn constants(&self) -> Vec<(&'static str, f64)> {
        FORMULAS.named_constants(&self.c)
    }
}

generated_hamiltonian!(Oscillator, oscillator);
