//! Harmonic oscillator H = p²/(2m) + k q²/2. Mirror: shaders/system/oscillator.wgsl.

use super::hamiltonian::literal;
use std::collections::BTreeMap;

use super::{require_positive, Hamiltonian, ParamSpec, SystemDef, SystemDescription, SystemInfo};
use crate::error::Result;
use crate::float::Real;

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

#[derive(Debug, Clone)]
pub struct Oscillator {
    pub m: f64,
    pub k: f64,
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
        })
    }
}

impl SystemDescription for Oscillator {
    fn dof(&self) -> usize {
        1
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

    /// WGSL constants: SPRING_K = k, INV_MASS = 1/m.
    fn constants(&self) -> Vec<(&'static str, f64)> {
        vec![("SPRING_K", self.k), ("INV_MASS", 1.0 / self.m)]
    }
}

impl Hamiltonian for Oscillator {
    fn energy(&self, q: &[f64], p: &[f64]) -> f64 {
        p[0] * p[0] / (2.0 * self.m) + self.k * q[0] * q[0] / 2.0
    }

    /// The same arithmetic as `energy` (bit for bit), as one loop over the block's points.
    fn energy_block<T: Real>(&self, q: &[T], p: &[T], _n: usize, first: usize, out: &mut [f64]) {
        let len = out.len();
        let (q, p) = (&q[first..first + len], &p[first..first + len]);
        for ((h, &x), &y) in out.iter_mut().zip(q).zip(p) {
            let (x, y) = (x.to_f64(), y.to_f64());
            *h = y * y / (2.0 * self.m) + self.k * x * x / 2.0;
        }
    }

    fn formula(&self) -> Option<String> {
        let (m, k) = (literal(self.m), literal(self.k));
        Some(format!("p^2/(2*{m}) + {k}*q^2/2"))
    }

    #[inline(always)]
    fn grad_q<T: Real>(&self, q: &[T], _p: &[T], out: &mut [T]) {
        let spring_k = T::from_f64(self.k);
        for (g, &x) in out.iter_mut().zip(q) {
            *g = spring_k * x;
        }
    }

    #[inline(always)]
    fn grad_p<T: Real>(&self, _q: &[T], p: &[T], out: &mut [T]) {
        let inv_mass = T::from_f64(1.0 / self.m);
        for (v, &x) in out.iter_mut().zip(p) {
            *v = x * inv_mass;
        }
    }

    /// H_qq vq = k vq (H_qp = 0).
    #[inline(always)]
    fn grad_q_dir<T: Real>(&self, _q: &[T], p: &[T], vq: &[T], _vp: &[T], out: &mut [T]) {
        self.grad_q(vq, p, out);
    }

    /// H_pp vp = vp / m (H_pq = 0).
    #[inline(always)]
    fn grad_p_dir<T: Real>(&self, q: &[T], _p: &[T], _vq: &[T], vp: &[T], out: &mut [T]) {
        self.grad_p(q, vp, out);
    }
}
