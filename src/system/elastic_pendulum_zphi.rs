//! The elastic pendulum in (z, φ) as a variational integrator (Torrente §1.3, after Tuwankotta
//! and Quispel 2003, σ = m l² = 1): z the relative elongation (r = 1 + z, in units of the
//! length at rest under gravity), φ the angle from the downward vertical;
//! T = ½(ż² + (1 + z)² φ̇²), V = ½ω_z²(z + ω_φ²/ω_z²)² − ω_φ²(1 + z) cos φ (Torrente eq. 17–19).
//! Mirror: shaders/system/elastic_pendulum_zphi.wgsl.
//!
//! Discrete Lagrangian L_d = h[T(q_k, v_k) − ½V(q_k) − ½V(q_{k+1})], v_k = (q_{k+1} − q_k)/h.
//! Its discrete Euler–Lagrange equations D₂L_d(q_{k−1}, q_k) + D₁L_d(q_k, q_{k+1}) = 0 read
//! ∂_vT(q_k, v_k) = ∂_vT(q_{k−1}, v_{k−1}) + h ∂_qT(q_k, v_k) − h ∇V(q_k), i.e. with the state
//! (q_k, v_k) advanced to (q_{k+1}, v_{k+1}), q_{k+1} = q_k + h v_k and
//! - (1 + z_{k+1})² v^φ_{k+1} = (1 + z_k)² v^φ_k − h ω_φ² (1 + z_{k+1}) sin φ_{k+1},
//! - v^z_{k+1} = v^z_k + h[(1 + z_{k+1}) (v^φ_{k+1})² − ω_z² z_{k+1} − ω_φ²(1 − cos φ_{k+1})],
//!
//! explicit in that order, as the thesis says (its printed p_k has v^φ squared where the sign and
//! factor follow from ∂_qT; the printed z̈ equation squares the spring term, a typo). The map
//! is symplectic (variational) and of order 1: T is evaluated at the left end q_k.
//! Energy: T(q_k, v_k) + ½(V(q_k) + V(q_{k+1})), the continuous energy in L_d's quadrature.
//!
//! The same motion as the Hamiltonian `elastic-pendulum` (unit: the spring's rest length
//! l₀ = 1 − ω_φ²/ω_z², time in 1/ω_z): r = (1 + z)/l₀, θ = φ, ĝ = ω_φ²/(ω_z² l₀), which needs
//! ω_φ < ω_z; the thesis's ω_z = ω_φ = 1 is a spring of rest length zero.
//!
//! Written by hand, not generated from a formula (`generated/mod.rs`): it is a discrete map
//! (`DiscreteMap`), not a Hamiltonian, and the generator writes a Hamiltonian's gradients and
//! their directional derivatives only.

use std::collections::BTreeMap;

use super::discrete::{Constraints, DiscreteMap};
use super::{
    named_components, require_positive, Newton, ParamSpec, SystemDef, SystemDescription, SystemInfo,
};
use crate::error::Result;
use crate::float::{cos_poly, sin_poly, Real};

pub const NAME: &str = "elastic-pendulum-zphi";
pub const INFO: SystemInfo = SystemInfo {
    name: NAME,
    summary: "elastic pendulum in (z, φ) (Torrente §1.3), variational (d = 2): L = ½(ż² + (1+z)²φ̇²) − ½ω_z²(z + ω_φ²/ω_z²)² + ω_φ²(1+z) cos φ; state (q, v); explicit discrete Euler–Lagrange map, order 1",
    params: &[
        ParamSpec { name: "omega_z", default: 1.0, meaning: "spring frequency ω_z = √(s/m)" },
        ParamSpec { name: "omega_phi", default: 1.0, meaning: "pendulum frequency ω_φ = √(g/l)" },
    ],
    separable: false,
    sweeps: Some(1),
    indexed: &[],
    variational: true,
};

#[derive(Debug, Clone)]
pub struct ElasticPendulumZphi {
    pub omega_z: f64,
    pub omega_phi: f64,
}

impl SystemDef for ElasticPendulumZphi {
    const INFO: SystemInfo = INFO;
    const WGSL: &'static str = include_str!("../../shaders/system/elastic_pendulum_zphi.wgsl");
    const ENERGY_WGSL: &'static str =
        include_str!("../../shaders/energy/elastic_pendulum_zphi.wgsl");

    fn new(params: &BTreeMap<String, f64>) -> Result<Self> {
        require_positive(NAME, params, &["omega_z", "omega_phi"])?;
        Ok(ElasticPendulumZphi {
            omega_z: params["omega_z"],
            omega_phi: params["omega_phi"],
        })
    }
}

impl ElasticPendulumZphi {
    /// V(z, φ) in f64.
    pub fn potential(&self, z: f64, phi: f64) -> f64 {
        let (wz2, wp2) = (self.omega_z.powi(2), self.omega_phi.powi(2));
        let s = z + wp2 / wz2;
        0.5 * wz2 * s * s - wp2 * (1.0 + z) * phi.cos()
    }
}

impl SystemDescription for ElasticPendulumZphi {
    fn dof(&self) -> usize {
        2
    }

    fn component_names(&self) -> Vec<String> {
        named_components(&["z", "φ"], "v_")
    }

    fn params(&self) -> BTreeMap<String, f64> {
        BTreeMap::from([
            ("omega_z".into(), self.omega_z),
            ("omega_phi".into(), self.omega_phi),
        ])
    }

    /// WZ2 = ω_z², WP2 = ω_φ², SHIFT = ω_φ²/ω_z².
    fn constants(&self) -> Vec<(&'static str, f64)> {
        let (wz2, wp2) = (self.omega_z.powi(2), self.omega_phi.powi(2));
        vec![("WZ2", wz2), ("WP2", wp2), ("SHIFT", wp2 / wz2)]
    }

    /// The thesis's figure 7: q₀ = (1.011, 0.01), q₁ = (1.01, 0.0101) at h = 0.002, as (q₀, v₀).
    fn default_state(&self) -> Vec<f64> {
        vec![1.011, 0.01, -0.5, 0.05]
    }

    fn observable(&self) -> Option<(&'static str, usize)> {
        Some(("φ", 1))
    }

    fn path(&self) -> Option<(&'static str, usize, usize)> {
        Some(("configuration (z, φ)", 0, 1))
    }
}

impl DiscreteMap for ElasticPendulumZphi {
    /// T(q_k, v_k) + ½(V(q_k) + V(q_k + h v_k)).
    fn energy(&self, h: f64, q: &[f64], v: &[f64]) -> f64 {
        let r = 1.0 + q[0];
        let t = 0.5 * (v[0] * v[0] + r * r * v[1] * v[1]);
        let (z1, phi1) = (q[0] + h * v[0], q[1] + h * v[1]);
        t + 0.5 * (self.potential(q[0], q[1]) + self.potential(z1, phi1))
    }

    fn constraints(&self) -> Constraints {
        Constraints::Holonomic
    }

    /// p = −D₁L_d(q, q + h v) = ∂_vT(q, v) − h ∂_qT(q, v) + (h/2)∇V(q) with r = 1 + z:
    /// p_z = v_z − h r v_φ² + (h/2)(ω_z² z + ω_φ²(1 − cos φ)), p_φ = r² v_φ + (h/2) ω_φ² r sin φ.
    fn momentum(&self, h: f64, q: &[f64], v: &[f64], p: &mut [f64]) {
        let (wz2, wp2) = (self.omega_z.powi(2), self.omega_phi.powi(2));
        let r = 1.0 + q[0];
        p[0] = v[0] - h * r * v[1] * v[1] + 0.5 * h * (wz2 * q[0] + wp2 * (1.0 - q[1].cos()));
        p[1] = r * r * v[1] + 0.5 * h * wp2 * r * q[1].sin();
    }

    fn linearised(&self) -> bool {
        true
    }

    /// The map in (q, p): v from p (inverting `momentum`), q' = q + h v, and
    /// p' = D₂L_d(q, q') = (v_z − (h/2)∇_zV(q'), r² v_φ − (h/2)∇_φV(q')), linearised term by term.
    fn tangent_step<T: Real>(&self, h: T, q: &[T], v: &[T], tq: &mut [T], tp: &mut [T]) {
        let n = q.len() / 2;
        let c = |x: f64| T::from_f64(x);
        let (wz2, wp2) = (c(self.omega_z.powi(2)), c(self.omega_phi.powi(2)));
        let half_h = T::HALF * h;
        let two = c(2.0);
        for i in 0..n {
            let (z, phi, vz, vphi) = (q[i], q[n + i], v[i], v[n + i]);
            let (dz, dphi, dpz, dpphi) = (tq[i], tq[n + i], tp[i], tp[n + i]);
            let r = T::ONE + z;
            // δv_φ from p_φ = r² v_φ + (h/2) ω_φ² r sin φ
            let dvphi = (dpphi - half_h * wp2 * (sin_poly(phi) * dz + r * cos_poly(phi) * dphi))
                / (r * r)
                - two * vphi * dz / r;
            // δv_z from p_z = v_z − h r v_φ² + (h/2)(ω_z² z + ω_φ²(1 − cos φ))
            let dvz = dpz + h * (vphi * vphi * dz + two * r * vphi * dvphi)
                - half_h * (wz2 * dz + wp2 * sin_poly(phi) * dphi);
            let (z1, phi1) = (z + h * vz, phi + h * vphi);
            let (dz1, dphi1) = (dz + h * dvz, dphi + h * dvphi);
            let r1 = T::ONE + z1;
            tq[i] = dz1;
            tq[n + i] = dphi1;
            tp[i] = dvz - half_h * (wz2 * dz1 + wp2 * sin_poly(phi1) * dphi1);
            tp[n + i] = two * r * vphi * dz + r * r * dvphi
                - half_h * wp2 * (sin_poly(phi1) * dz1 + r1 * cos_poly(phi1) * dphi1);
        }
    }

    fn discrete_step<T: Real>(
        &self,
        h: T,
        q: &mut [T],
        next: &[T],
        v: &mut [T],
        _ev: &mut [T],
        _newton: Newton,
        _unconverged: &mut [u32],
    ) {
        let n = q.len() / 2;
        let c = |x: f64| T::from_f64(x);
        let (wz2, wp2) = (c(self.omega_z.powi(2)), c(self.omega_phi.powi(2)));
        let (zs, phis) = q.split_at_mut(n);
        let (vzs, vphis) = v.split_at_mut(n);
        for i in 0..n {
            let r0 = T::ONE + zs[i];
            let (z, phi) = (next[i], next[n + i]);
            let r = T::ONE + z;
            let vphi = (r0 * r0 * vphis[i] - h * wp2 * r * sin_poly(phi)) / (r * r);
            let vz = vzs[i] + h * (r * vphi * vphi - wz2 * z - wp2 * (T::ONE - cos_poly(phi)));
            zs[i] = z;
            phis[i] = phi;
            vzs[i] = vz;
            vphis[i] = vphi;
        }
    }
}
