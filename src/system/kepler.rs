//! Kepler problem H = |p|²/2 − 1/|q| (d = 2, GNI I.2.3). Mirror: shaders/system/kepler.wgsl.
//! The eccentricity e only picks the default initial state: q = (1 − e, 0),
//! p = (0, √((1 + e)/(1 − e))), with H0 = −1/2, angular momentum L0 = √(1 − e²), period 2π.
//!
//! Written by hand, not generated from its formula (`generated/mod.rs`): the generated
//! gradient (q/r³ as written by the generator, with r = √(q·q)) rounds differently on
//! lavapipe's GPU kernel than on the CPU, in f64 (10⁴ Verlet steps: 1.1e-9 apart) and in f32
//! (70 000 steps: 3.8e-2), where this arithmetic (1/√(q·q) once, then products) gives the same
//! bits on both engines, which the tests and the precision guide's example rely on.

use std::collections::BTreeMap;

use super::{named_components, Hamiltonian, ParamSpec, SystemDef, SystemDescription, SystemInfo};
use crate::error::Result;
use crate::float::Real;

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

#[derive(Debug, Clone)]
pub struct Kepler {
    pub e: f64,
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
        Ok(Kepler { e })
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

impl Hamiltonian for Kepler {
    fn energy(&self, q: &[f64], p: &[f64]) -> f64 {
        0.5 * (p[0] * p[0] + p[1] * p[1]) - 1.0 / (q[0] * q[0] + q[1] * q[1]).sqrt()
    }

    fn formula(&self) -> Option<String> {
        Some("(p1^2 + p2^2)/2 - 1/sqrt(q1^2 + q2^2)".into())
    }

    /// ∂H/∂q = q/|q|³.
    #[inline(always)]
    fn grad_q<T: Real>(&self, q: &[T], _p: &[T], out: &mut [T]) {
        let n = q.len() / 2;
        let (x, y) = q.split_at(n);
        let (gx, gy) = out.split_at_mut(n);
        for i in 0..n {
            let inv_r = T::ONE / (x[i] * x[i] + y[i] * y[i]).sqrt();
            let inv_r3 = inv_r * inv_r * inv_r;
            gx[i] = x[i] * inv_r3;
            gy[i] = y[i] * inv_r3;
        }
    }

    /// ∂H/∂p = p.
    #[inline(always)]
    fn grad_p<T: Real>(&self, _q: &[T], p: &[T], out: &mut [T]) {
        out.copy_from_slice(p);
    }

    /// H_qq v = v/r³ − 3 q (q·v)/r⁵ (H_qp = 0).
    #[inline(always)]
    fn grad_q_dir<T: Real>(&self, q: &[T], _p: &[T], vq: &[T], _vp: &[T], out: &mut [T]) {
        let n = q.len() / 2;
        let three = T::from_f64(3.0);
        for i in 0..n {
            let (x, y) = (q[i], q[n + i]);
            let (vx, vy) = (vq[i], vq[n + i]);
            let inv_r = T::ONE / (x * x + y * y).sqrt();
            let inv_r3 = inv_r * inv_r * inv_r;
            let s = three * (x * vx + y * vy) * inv_r * inv_r;
            out[i] = (vx - s * x) * inv_r3;
            out[n + i] = (vy - s * y) * inv_r3;
        }
    }

    /// H_pp v = v (H_pq = 0).
    #[inline(always)]
    fn grad_p_dir<T: Real>(&self, _q: &[T], _p: &[T], _vq: &[T], vp: &[T], out: &mut [T]) {
        out.copy_from_slice(vp);
    }
}
