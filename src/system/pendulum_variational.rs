//! The simple pendulum as a variational integrator (Torrente §1.1): L = ½q̇² + ω² cos q
//! (ω² = g/l), discrete Lagrangian L_d = h[½v_k² + ½ω² cos q_k + ½ω² cos q_{k+1}],
//! v_k = (q_{k+1} − q_k)/h. Its discrete Euler–Lagrange equations give
//! q_{k+1} = 2q_k − q_{k−1} − h²ω² sin q_k (Torrente, below eq. 11), i.e. on the state (q_k, v_k):
//! q_{k+1} = q_k + h v_k, v_{k+1} = v_k − h ω² sin q_{k+1}.
//! Mirror: shaders/system/pendulum_variational.wgsl.
//!
//! This is Störmer–Verlet: with the discrete Legendre transform p_k = −D₁L_d = v_k +
//! (h/2) ω² sin q_k, the points (q_k, p_k) are exactly `verlet`'s on `pendulum` (m = l = 1,
//! g = ω²), and v_k is Verlet's half-step momentum p_{k+½} (tested). Order 2, symplectic.
//! (The thesis's eq. 12 prints q_{k+1} = q_k + h² p_k + ½h²V'(q_k); from its own p_k it is
//! q_k + h p_k + ½h²V'(q_k).) Energy: the thesis's discrete energy
//! E_d = ½v_k² − ½ω²(cos q_k + cos q_{k+1}).
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

pub const NAME: &str = "pendulum-variational";
pub const INFO: SystemInfo = SystemInfo {
    name: NAME,
    summary: "simple pendulum as a variational integrator (Torrente §1.1) (d = 1): L = ½q̇² + ω² cos q, midpoint-rule potential; state (q, v); equals Störmer–Verlet through the discrete Legendre transform",
    params: &[ParamSpec {
        name: "omega",
        default: 1.0,
        meaning: "frequency of small oscillations ω = √(g/l)",
    }],
    separable: true,
    sweeps: Some(1),
    indexed: &[],
    variational: true,
};

#[derive(Debug, Clone)]
pub struct PendulumVariational {
    pub omega: f64,
}

impl SystemDef for PendulumVariational {
    const INFO: SystemInfo = INFO;
    const WGSL: &'static str = include_str!("../../shaders/system/pendulum_variational.wgsl");
    const ENERGY_WGSL: &'static str =
        include_str!("../../shaders/energy/pendulum_variational.wgsl");

    fn new(params: &BTreeMap<String, f64>) -> Result<Self> {
        require_positive(NAME, params, &["omega"])?;
        Ok(PendulumVariational {
            omega: params["omega"],
        })
    }
}

impl SystemDescription for PendulumVariational {
    fn dof(&self) -> usize {
        1
    }

    fn component_names(&self) -> Vec<String> {
        named_components(&["θ"], "v_")
    }

    fn params(&self) -> BTreeMap<String, f64> {
        BTreeMap::from([("omega".into(), self.omega)])
    }

    /// W2 = ω².
    fn constants(&self) -> Vec<(&'static str, f64)> {
        vec![("W2", self.omega * self.omega)]
    }

    /// The thesis's figure 1: q₀ = 0.2, v₀ = 5e-4.
    fn default_state(&self) -> Vec<f64> {
        vec![0.2, 5e-4]
    }

    fn observable(&self) -> Option<(&'static str, usize)> {
        Some(("q", 0))
    }
}

impl DiscreteMap for PendulumVariational {
    /// E_d = ½v_k² − ½ω²(cos q_k + cos(q_k + h v_k)).
    fn energy(&self, h: f64, q: &[f64], v: &[f64]) -> f64 {
        let w2 = self.omega * self.omega;
        0.5 * v[0] * v[0] - 0.5 * w2 * (q[0].cos() + (q[0] + h * v[0]).cos())
    }

    fn constraints(&self) -> Constraints {
        Constraints::Holonomic
    }

    /// p = −D₁L_d(q, q + h v) = v + (h/2) ω² sin q: Störmer–Verlet's momentum.
    fn momentum(&self, h: f64, q: &[f64], v: &[f64], p: &mut [f64]) {
        p[0] = v[0] + 0.5 * h * self.omega * self.omega * q[0].sin();
    }

    fn linearised(&self) -> bool {
        true
    }

    /// In (q, p) the map is Verlet's kick, drift, kick: δv = δp − (h/2) ω² cos q δq,
    /// δq' = δq + h δv, δp' = δv − (h/2) ω² cos q' δq', three shears (det 1 to rounding).
    fn tangent_step<T: Real>(&self, h: T, q: &[T], v: &[T], tq: &mut [T], tp: &mut [T]) {
        let hw2 = T::HALF * h * T::from_f64(self.omega * self.omega);
        for i in 0..q.len() {
            let q1 = q[i] + h * v[i];
            let dv = tp[i] - hw2 * cos_poly(q[i]) * tq[i];
            let dq1 = tq[i] + h * dv;
            tq[i] = dq1;
            tp[i] = dv - hw2 * cos_poly(q1) * dq1;
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
        let w2 = T::from_f64(self.omega * self.omega);
        for ((qi, &q1), vi) in q.iter_mut().zip(next).zip(v.iter_mut()) {
            *vi -= h * w2 * sin_poly(q1);
            *qi = q1;
        }
    }
}
