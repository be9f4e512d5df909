//! Elastic (spring) pendulum in Cartesian coordinates, dimensionless with one parameter
//! ĝ = g m/(k l): q = (x, y), y downward, H = (p_x² + p_y²)/2 + (√(x² + y²) − 1)²/2 − ĝ y.
//! Separable. The same physics as `elastic-pendulum` (polar) with x = r sin θ, y = r cos θ
//! (`polar_to_cartesian`). Its functions (the CPU's in `generated/elastic_pendulum_cartesian.rs`,
//! the GPU's in shaders/system/elastic_pendulum_cartesian.wgsl and
//! shaders/energy/elastic_pendulum_cartesian.wgsl) are generated from `FORMULAS` (see
//! `generated/mod.rs`).
//!
//! Default state: x = 1, y = 0, p = 0 (the polar default r = 1, θ = π/2; E = 0).

use std::collections::BTreeMap;

use super::generated::{generated_hamiltonian, Formulas};
use super::{
    named_components, require_positive, ParamSpec, SystemDef, SystemDescription, SystemInfo,
};
use crate::error::Result;

pub const NAME: &str = "elastic-pendulum-cartesian";
pub const INFO: SystemInfo = SystemInfo {
    name: NAME,
    summary: "elastic pendulum, Cartesian (x, y), y down (d = 2): H = |p|²/2 + (|q| − 1)²/2 − ĝ y; default state x = 1, y = 0, p = 0 (E = 0, the polar default)",
    params: &[ParamSpec {
        name: "g_hat",
        default: 0.2,
        meaning: "dimensionless gravity ĝ = g m/(k l) (> 0)",
    }],
    separable: true,
    sweeps: Some(1),
    indexed: &[],
    variational: false,
};

/// A polar state (r, θ, p_r, p_θ) of `elastic-pendulum` as the Cartesian state
/// (x, y, p_x, p_y) of `elastic-pendulum-cartesian`: x = r sin θ, y = r cos θ,
/// p_x = p_r sin θ + p_θ cos θ / r, p_y = p_r cos θ − p_θ sin θ / r (a canonical point transformation).
pub fn polar_to_cartesian(z: &[f64]) -> [f64; 4] {
    let (r, th, pr, pth) = (z[0], z[1], z[2], z[3]);
    let (s, c) = th.sin_cos();
    [r * s, r * c, pr * s + pth * c / r, pr * c - pth * s / r]
}

/// The dynamics (see `generated/mod.rs`): G_HAT = ĝ.
pub const FORMULAS: Formulas = Formulas {
    name: NAME,
    dof: 2,
    constants: &[("G_HAT", "g_hat")],
    hamiltonian: "(p1^2 + p2^2)/2 + (sqrt(q1^2 + q2^2) - 1)^2/2 - G_HAT*q2",
    statistics: None,
};

#[derive(Debug, Clone)]
pub struct ElasticPendulumCartesian {
    pub g_hat: f64,
    /// The values of `FORMULAS.constants`.
    c: Vec<f64>,
}

impl ElasticPendulumCartesian {
    /// The pendulum of dimensionless gravity ĝ = `g_hat` (> 0).
    pub fn with_g_hat(g_hat: f64) -> Result<Self> {
        Self::new(&BTreeMap::from([("g_hat".to_string(), g_hat)]))
    }
}

impl SystemDef for ElasticPendulumCartesian {
    const INFO: SystemInfo = INFO;
    const WGSL: &'static str = include_str!("../../shaders/system/elastic_pendulum_cartesian.wgsl");
    const ENERGY_WGSL: &'static str =
        include_str!("../../shaders/energy/elastic_pendulum_cartesian.wgsl");

    fn new(params: &BTreeMap<String, f64>) -> Result<Self> {
        require_positive(NAME, params, &["g_hat"])?;
        Ok(ElasticPendulumCartesian {
            g_hat: params["g_hat"],
            c: FORMULAS.constant_values(params),
        })
    }
}

impl SystemDescription for ElasticPendulumCartesian {
    fn dof(&self) -> usize {
        2
    }

    fn component_names(&self) -> Vec<String> {
        named_components(&["x", "y"], "p_")
    }

    fn params(&self) -> BTreeMap<String, f64> {
        BTreeMap::from([("g_hat".into(), self.g_hat)])
    }

    fn constants(&self) -> Vec<(&'static str, f64)> {
        FORMULAS.named_constants(&self.c)
    }

    /// x = 1, y = 0, p = 0: the polar default r = 1, θ = π/2 (E = 0).
    fn default_state(&self) -> Vec<f64> {
        vec![1.0, 0.0, 0.0, 0.0]
    }

    fn path(&self) -> Option<(&'static str, usize, usize)> {
        Some((BOB_PATH, 0, 1))
    }

    /// (x, −y): drawn with the pendulum hanging down.
    fn path_point(&self, q: &[f64]) -> Option<(f64, f64)> {
        Some((q[0], -q[1]))
    }

    fn path_axes(&self) -> Option<(String, String)> {
        Some(BOB_AXES.map(String::from).into())
    }
}

/// The path of the bob, in the same plane for the polar and the Cartesian pendulum.
pub const BOB_PATH: &str = "bob (x, y)";
/// Its axes: x = r sin θ and the height −y = −r cos θ (y points down), so the pendulum is
/// drawn hanging down.
pub const BOB_AXES: [&str; 2] = ["x", "height −y"];

generated_hamiltonian!(ElasticPendulumCartesian, elastic_pendulum_cartesian);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::{ElasticPendulum, Hamiltonian};

    #[test]
    fn polar_and_cartesian_energies_agree() {
        let polar = ElasticPendulum::with_g_hat(0.2).unwrap();
        let cart = ElasticPendulumCartesian::with_g_hat(0.2).unwrap();
        let states = [
            [1.0, std::f64::consts::FRAC_PI_2, 0.0, 0.0],
            [1.3, 0.4, -0.2, 0.7],
            [0.8, -2.5, 0.5, -0.3],
            [1.05, 3.0, 1.1, 0.05],
        ];
        for z in states {
            let c = polar_to_cartesian(&z);
            let (ep, ec) = (
                polar.energy(&z[..2], &z[2..]),
                cart.energy(&c[..2], &c[2..]),
            );
            assert!(
                (ep - ec).abs() < 1e-13,
                "{z:?}: polar {ep} vs cartesian {ec}"
            );
        }
    }

    #[test]
    fn polar_default_maps_to_cartesian_default() {
        let polar = ElasticPendulum::with_g_hat(0.2).unwrap();
        let cart = ElasticPendulumCartesian::with_g_hat(0.2).unwrap();
        let c = polar_to_cartesian(&polar.default_state());
        for (a, b) in c.iter().zip(cart.default_state()) {
            assert!((a - b).abs() < 1e-15, "{c:?}");
        }
    }
}
