//! Elastic (spring) pendulum in polar coordinates, dimensionless with one parameter
//! ĝ = g m/(k l): q = (r, θ), p = (p_r, p_θ), θ from the downward vertical,
//! H = (p_r² + p_θ²/r²)/2 + (r − 1)²/2 − ĝ r cos θ.
//! Mirror: shaders/system/elastic_pendulum.wgsl.
//!
//! Not separable (p_θ²/r²), but the implicit stages of symplectic Euler / Verlet are
//! triangular (kick: ∂H/∂θ does not depend on p, ∂H/∂r on p_θ only; drift: ∂H/∂p_r does not
//! depend on q, ∂H/∂p_θ on r only), so two Jacobi sweeps solve them exactly (`sweeps: Some(2)`).
//! The same state in Cartesian coordinates: `elastic_pendulum_cartesian::polar_to_cartesian`.
//!
//! Default state (Takács and Fülöp): r = 1, θ = π/2, p = 0, so E = 0.

use super::hamiltonian::literal;
use std::collections::BTreeMap;

use super::{
    named_components, require_positive, Hamiltonian, ParamSpec, SystemDef, SystemDescription,
    SystemInfo,
};
use crate::error::Result;
use crate::float::{cos_poly, sin_poly, Real};

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

#[derive(Debug, Clone)]
pub struct ElasticPendulum {
    pub g_hat: f64,
}

impl SystemDef for ElasticPendulum {
    const INFO: SystemInfo = INFO;
    const WGSL: &'static str = include_str!("../../shaders/system/elastic_pendulum.wgsl");
    const ENERGY_WGSL: &'static str = include_str!("../../shaders/energy/elastic_pendulum.wgsl");

    fn new(params: &BTreeMap<String, f64>) -> Result<Self> {
        require_positive(NAME, params, &["g_hat"])?;
        Ok(ElasticPendulum {
            g_hat: params["g_hat"],
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

    /// WGSL constant: G_HAT = ĝ.
    fn constants(&self) -> Vec<(&'static str, f64)> {
        vec![("G_HAT", self.g_hat)]
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

impl Hamiltonian for ElasticPendulum {
    fn energy(&self, q: &[f64], p: &[f64]) -> f64 {
        let (r, th) = (q[0], q[1]);
        0.5 * (p[0] * p[0] + p[1] * p[1] / (r * r)) + 0.5 * (r - 1.0) * (r - 1.0)
            - self.g_hat * r * th.cos()
    }

    fn formula(&self) -> Option<String> {
        let g = literal(self.g_hat);
        Some(format!(
            "(p1^2 + p2^2/q1^2)/2 + (q1 - 1)^2/2 - {g}*q1*cos(q2)"
        ))
    }

    /// ∂H/∂r = −p_θ²/r³ + (r − 1) − ĝ cos θ; ∂H/∂θ = ĝ r sin θ.
    #[inline(always)]
    fn grad_q<T: Real>(&self, q: &[T], p: &[T], out: &mut [T]) {
        let n = q.len() / 2;
        let g_hat = T::from_f64(self.g_hat);
        for i in 0..n {
            let (r, th) = (q[i], q[n + i]);
            let inv_r = T::ONE / r;
            let w = p[n + i] * inv_r;
            out[i] = (r - T::ONE) - w * w * inv_r - g_hat * cos_poly(th);
            out[n + i] = g_hat * r * sin_poly(th);
        }
    }

    /// ∂H/∂p_r = p_r; ∂H/∂p_θ = p_θ/r².
    #[inline(always)]
    fn grad_p<T: Real>(&self, q: &[T], p: &[T], out: &mut [T]) {
        let n = q.len() / 2;
        for i in 0..n {
            let inv_r = T::ONE / q[i];
            out[i] = p[i];
            out[n + i] = p[n + i] * inv_r * inv_r;
        }
    }

    /// H_qq vq + H_qp vp: H_rr = 3 p_θ²/r⁴ + 1, H_rθ = ĝ sin θ, H_θθ = ĝ r cos θ,
    /// H_r,p_θ = −2 p_θ/r³ (the other H_qp entries vanish).
    #[inline(always)]
    fn grad_q_dir<T: Real>(&self, q: &[T], p: &[T], vq: &[T], vp: &[T], out: &mut [T]) {
        let n = q.len() / 2;
        let g_hat = T::from_f64(self.g_hat);
        let two = T::from_f64(2.0);
        let three = T::from_f64(3.0);
        for i in 0..n {
            let (r, th) = (q[i], q[n + i]);
            let inv_r = T::ONE / r;
            let inv_r2 = inv_r * inv_r;
            let w = p[n + i] * inv_r;
            let s = g_hat * sin_poly(th);
            out[i] = (three * w * w * inv_r2 + T::ONE) * vq[i] + s * vq[n + i]
                - two * w * inv_r2 * vp[n + i];
            out[n + i] = s * vq[i] + g_hat * r * cos_poly(th) * vq[n + i];
        }
    }

    /// H_pq vq + H_pp vp: H_p_θ,r = −2 p_θ/r³, H_p_r p_r = 1, H_p_θ p_θ = 1/r².
    #[inline(always)]
    fn grad_p_dir<T: Real>(&self, q: &[T], p: &[T], vq: &[T], vp: &[T], out: &mut [T]) {
        let n = q.len() / 2;
        let two = T::from_f64(2.0);
        for i in 0..n {
            let inv_r = T::ONE / q[i];
            let inv_r2 = inv_r * inv_r;
            let w = p[n + i] * inv_r;
            out[i] = vp[i];
            out[n + i] = vp[n + i] * inv_r2 - two * w * inv_r2 * vq[i];
        }
    }

    // Angular momentum p_θ is not conserved (gravity), so no `angular_momentum`.
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_energy_is_zero() {
        let s = ElasticPendulum { g_hat: 0.2 };
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

    /// Directional derivatives against finite differences of the gradients at a state with a
    /// large p_θ, where the mixed H_qp / H_pq terms matter.
    #[test]
    fn mixed_terms_match_finite_differences() {
        let s = ElasticPendulum { g_hat: 0.35 };
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
