//! Elastic (spring) pendulum in polar coordinates, dimensionless with one parameter
//! ĝ = g m/(k l): q = (r, θ), p = (p_r, p_θ), θ from the downward vertical,
//! H = (p_r² + p_θ²/r²)/2 + (r − 1)²/2 − ĝ r cos θ. Its functions (the CPU's in
//! `generated/elastic_pendulum.rs`, the GPU's in shaders/system/elastic_pendulum.wgsl and
//! shaders/energy/elastic_pendulum.wgsl) are generated from `FORMULAS` (see `generated/mod.rs`).
//!
//! Not separable (p_θ²/r²), but the implicit stages of symplectic Euler / Verlet are
//! triangular (kick: ∂H/∂θ does not depend on p, ∂H/∂r on p_θ only; drift: ∂H/∂p_r does not
//! depend on q, ∂H/∂p_θ on r only), so two Jacobi sweeps solve them exactly (`sweeps: Some(2)`).
//! The same state in Cartesian coordinates: `elastic_pendulum_cartesian::polar_to_cartesian`.
//!
//! Default state (Takács and Fülöp): r = 1, θ = π/2, p = 0, so E = 0.

use std::collections::BTreeMap;

use super::generated::{generated_hamiltonian, Formulas};
use super::{
    named_components, require_positive, ParamSpec, SystemDef, SystemDescription, SystemInfo,
};
use crate::error::Result;

pub const NAME: &str = "elastic-pendulum";
pub const INFO: SystemInfo = SystemInfo {
    name: NAME,
    summary: "elastic pendulum, polar (r, θ) (d = 2): H = (p_r² + p_θ²/r²)/2 + (r − 1)²/2 − ĝ r cos θ; default state r = 1, θ = π/2, p = 0 (E = 0, as in Takács and Fülöp)",
    params: &[ParamSpec {
        name: "g_hat",
        default: 0.2,
        meaning: "dimensionless gravity ĝ = g m/(k l) (> 0)",
    }],
    separable: false,
    sweeps: Some(2),
    indexed: &[],
    variational: false,
};

/// The dynamics (see `generated/mod.rs`): G_HAT = ĝ. p_θ²/r² is written with r^(−2), so that
/// each gradient divides once (∂H/∂r reads r^(−3), ∂H/∂p_θ r^(−2)).
pub const FORMULAS: Formulas = Formulas {
    name: NAME,
    dof: 2,
    constants: &[("G_HAT", "g_hat")],
    hamiltonian: "(p1^2 + p2^2*q1^(-2))/2 + (q1 - 1)^2/2 - G_HAT*q1*cos(q2)",
    statistics: None,
};

#[derive(Debug, Clone)]
pub struct ElasticPendulum {
    pub g_hat: f64,
    /// The values of `FORMULAS.constants`.
    c: Vec<f64>,
}

impl ElasticPendulum {
    /// The pendulum of dimensionless gravity ĝ = `g_hat` (> 0).
    pub fn with_g_hat(g_hat: f64) -> Result<Self> {
        Self::new(&BTreeMap::from([("g_hat".to_string(), g_hat)]))
    }
}

impl SystemDef for ElasticPendulum {
    const INFO: SystemInfo = INFO;
    const WGSL: &'static str = include_str!("../../shaders/system/elastic_pendulum.wgsl");
    const ENERGY_WGSL: &'static str = include_str!("../../shaders/energy/elastic_pendulum.wgsl");

    fn new(params: &BTreeMap<String, f64>) -> Result<Self> {
        require_positive(NAME, params, &["g_hat"])?;
        Ok(ElasticPendulum {
            g_hat: params["g_hat"],
            c: FORMULAS.constant_values(params),
        })
    }
}

impl SystemDescription for ElasticPendulum {
    fn dof(&self) -> usize {
        2
    }

    fn component_names(&self) -> Vec<String> {
        named_components(&["r", "θ"], "p_")
    }

    fn params(&self) -> BTreeMap<String, f64> {
        BTreeMap::from([("g_hat".into(), self.g_hat)])
    }

    fn constants(&self) -> Vec<(&'static str, f64)> {
        FORMULAS.named_constants(&self.c)
    }

    /// r = 1, θ = π/2, p = 0 (E = 0; Takács and Fülöp).
    fn default_state(&self) -> Vec<f64> {
        vec![1.0, std::f64::consts::FRAC_PI_2, 0.0, 0.0]
    }

    /// The bob in Cartesian (x, −y), as the Cartesian pendulum's path: the two coordinates'
    /// runs of one motion are drawn in one plane.
    fn path(&self) -> Option<(&'static str, usize, usize)> {
        Some((super::elastic_pendulum_cartesian::BOB_PATH, 0, 1))
    }

    fn path_point(&self, q: &[f64]) -> Option<(f64, f64)> {
        Some((q[0] * q[1].sin(), -q[0] * q[1].cos()))
    }

    fn path_axes(&self) -> Option<(String, String)> {
        Some(
            super::elastic_pendulum_cartesian::BOB_AXES
                .map(String::from)
                .into(),
        )
    }
}

// Angular momentum p_θ is not conserved (gravity), so no `angular_momentum`.
generated_hamiltonian!(ElasticPendulum, elastic_pendulum);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::Hamiltonian;

    #[test]
    fn default_energy_is_zero() {
        let s = ElasticPendulum::with_g_hat(0.2).unwrap();
        let z = s.default_state();
        assert!(s.energy(&z[..2], &z[2..]).abs() < 1e-15);
    }

    #[test]
    fn non_positive_g_hat_is_refused() {
        let given = BTreeMap::from([("g_hat".to_string(), 0.0)]);
        let err = ElasticPendulum::new(&given).unwrap_err().to_string();
        assert!(err.contains("g_hat"), "{err}");
    }
}

#[cfg(test)]
mod fd_tests {
    use super::*;
    use crate::system::Hamiltonian;

    /// Directional derivatives against finite differences of the gradients at a state with a
    /// large p_θ, where the mixed H_qp / H_pq terms matter.
    #[test]
    fn mixed_terms_match_finite_differences() {
        let s = ElasticPendulum::with_g_hat(0.35).unwrap();
        let eps = 1e-6;
        let z = [1.2, 0.8, 0.4, 0.9];
        let grads = |z: &[f64]| {
            let (mut gq, mut gp) = ([0.0; 2], [0.0; 2]);
            s.grad_q(&z[..2], &z[2..], &mut gq);
            s.grad_p(&z[..2], &z[2..], &mut gp);
            [gq[0], gq[1], gp[0], gp[1]]
        };
        for v in [
            [0.0, 0.0, 0.0, 1.0],
            [1.0, 0.0, 0.0, 0.0],
            [0.3, -0.7, 0.5, 1.1],
        ] {
            let (mut oq, mut op) = ([0.0; 2], [0.0; 2]);
            s.grad_q_dir(&z[..2], &z[2..], &v[..2], &v[2..], &mut oq);
            s.grad_p_dir(&z[..2], &z[2..], &v[..2], &v[2..], &mut op);
            let a: Vec<f64> = z.iter().zip(&v).map(|(x, w)| x + eps * w).collect();
            let b: Vec<f64> = z.iter().zip(&v).map(|(x, w)| x - eps * w).collect();
            let (ga, gb) = (grads(&a), grads(&b));
            let analytic = [oq[0], oq[1], op[0], op[1]];
            for c in 0..4 {
                let fd = (ga[c] - gb[c]) / (2.0 * eps);
                assert!(
                    (analytic[c] - fd).abs() < 1e-6,
                    "{v:?} component {c}: {} vs {fd}",
                    analytic[c]
                );
            }
        }
    }
}
