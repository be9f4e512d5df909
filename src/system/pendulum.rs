//! Mathematical pendulum H = p²/(2 m l²) + m g l (1 − cos q). Its functions (the CPU's in
//! `generated/pendulum.rs`, the GPU's in shaders/system/pendulum.wgsl and
//! shaders/energy/pendulum.wgsl) are generated from `FORMULAS` (see `generated/mod.rs`).

use std::collections::BTreeMap;

use super::generated::{generated_hamiltonian, Formulas};
use super::{
    named_components, require_positive, ParamSpec, SystemDef, SystemDescription, SystemInfo,
};
use crate::error::Result;

pub const NAME: &str = "pendulum";
pub const INFO: SystemInfo = SystemInfo {
    name: NAME,
    summary: "pendulum H = p²/(2 m l²) + m g l (1 − cos q) (d = 1), q the angle from the downward vertical",
    params: &[
        ParamSpec { name: "m", default: 1.0, meaning: "bob mass" },
        ParamSpec { name: "g", default: 1.0, meaning: "gravitational acceleration" },
        ParamSpec { name: "l", default: 1.0, meaning: "rod length" },
    ],
    separable: true,
    sweeps: Some(1),
    indexed: &[],
    variational: false,
};

/// The dynamics (see `generated/mod.rs`): M_G_L = m g l, INV_M_L2 = 1/(m l²), and for the
/// statistics 1 − cos q as 2 sin²(q/2), which keeps its digits near q = 0.
pub const FORMULAS: Formulas = Formulas {
    name: NAME,
    dof: 1,
    constants: &[("M_G_L", "m*g*l"), ("INV_M_L2", "1/(m*l*l)")],
    hamiltonian: "INV_M_L2*p^2/2 + M_G_L*(1 - cos(q))",
    statistics: Some("INV_M_L2*p^2/2 + 2*M_G_L*sin(q/2)^2"),
};

#[derive(Debug, Clone)]
pub struct Pendulum {
    pub m: f64,
    pub g: f64,
    pub l: f64,
    /// The values of `FORMULAS.constants`.
    c: Vec<f64>,
}

impl SystemDef for Pendulum {
    const INFO: SystemInfo = INFO;
    const WGSL: &'static str = include_str!("../../shaders/system/pendulum.wgsl");
    const ENERGY_WGSL: &'static str = include_str!("../../shaders/energy/pendulum.wgsl");

    fn new(params: &BTreeMap<String, f64>) -> Result<Self> {
        require_positive(NAME, params, &["m", "g", "l"])?;
        Ok(Pendulum {
            m: params["m"],
            g: params["g"],
            l: params["l"],
            c: FORMULAS.constant_values(params),
        })
    }
}

impl SystemDescription for Pendulum {
    fn dof(&self) -> usize {
        1
    }

    fn component_names(&self) -> Vec<String> {
        named_components(&["θ"], "p_")
    }

    /// The default centre of ensembles: a point on the upper half of a level curve.
    fn default_state(&self) -> Vec<f64> {
        vec![0.0, 0.8]
    }

    fn minimum(&self) -> Option<Vec<f64>> {
        Some(vec![0.0, 0.0])
    }

    fn params(&self) -> BTreeMap<String, f64> {
        BTreeMap::from([
            ("m".into(), self.m),
            ("g".into(), self.g),
            ("l".into(), self.l),
        ])
    }

    fn constants(&self) -> Vec<(&'static str, f64)> {
        FORMULAS.named_constants(&self.c)
    }
}

generated_hamiltonian!(Pendulum, pendulum);
