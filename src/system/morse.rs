//! Morse oscillator H = p²/(2m) + D (1 − e^(−a q))². Its functions are generated from
//! `FORMULAS` (see `generated/mod.rs`).

use std::collections::BTreeMap;

use super::generated::{generated_hamiltonian, Formulas};
use super::{require_positive, ParamSpec, SystemDef, SystemDescription, SystemInfo};
use crate::error::Result;

pub const NAME: &str = "morse";
pub const INFO: SystemInfo = SystemInfo {
    name: NAME,
    summary: "Morse oscillator H = p²/(2m) + D (1 − e^(−a q))² (d = 1), bound below the well depth D",
    params: &[
        ParamSpec { name: "m", default: 1.0, meaning: "mass" },
        ParamSpec { name: "depth", default: 1.0, meaning: "well depth D" },
        ParamSpec { name: "a", default: 1.0, meaning: "inverse width of the well" },
    ],
    separable: true,
    sweeps: Some(1),
    indexed: &[],
    variational: false,
};

/// The dynamics (see `generated/mod.rs`).
pub const FORMULAS: Formulas = Formulas {
    name: NAME,
    dof: 1,
    constants: &[("MORSE_INV_MASS", "1/m"), ("MORSE_DEPTH", "depth"), ("MORSE_A", "a")],
    hamiltonian: "MORSE_INV_MASS*p^2/2 + MORSE_DEPTH*(1 - exp(-MORSE_A*q))^2",
    statistics: None,
};

#[derive(Debug, Clone)]
pub struct Morse {
    params: BTreeMap<String, f64>,
    /// The values of `FORMULAS.constants`.
    c: Vec<f64>,
}

impl SystemDef for Morse {
    const INFO: SystemInfo = INFO;
    const WGSL: &'static str = include_str!("../../shaders/system/morse.wgsl");
    const ENERGY_WGSL: &'static str = include_str!("../../shaders/energy/morse.wgsl");

    fn new(params: &BTreeMap<String, f64>) -> Result<Self> {
        require_positive(NAME, params, &["m", "depth", "a"])?;
        Ok(Morse {
            params: params.clone(),
            c: FORMULAS.constant_values(params),
        })
    }
}

impl SystemDescription for Morse {
    fn dof(&self) -> usize {
        1
    }

    /// A bound orbit at half the well depth's energy.
    fn default_state(&self) -> Vec<f64> {
        vec![0.0, (self.params["m"] * self.params["depth"]).sqrt()]
    }

    fn minimum(&self) -> Option<Vec<f64>> {
        Some(vec![0.0, 0.0])
    }

    fn params(&self) -> BTreeMap<String, f64> {
        self.params.clone()
    }

    fn constants(&self) -> Vec<(&'static str, f64)> {
        FORMULAS.named_constants(&self.c)
    }
}

generated_hamiltonian!(Morse, morse);
