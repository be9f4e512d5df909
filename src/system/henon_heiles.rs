//! Hénon–Heiles H = (p1² + p2²)/2 + (q1² + q2²)/2 + q1² q2 − q2³/3 (d = 2, no parameters).
//! Regular motion at H = 1/12, chaotic at H = 1/8 (escape above H = 1/6).
//! Mirror: shaders/system/henon_heiles.wgsl.
//!
//! Default state: q = (0, 0.1), p2 = 0, p1 = √(2 (1/12 − V(q))) > 0, so that H = 1/12.

use std::collections::BTreeMap;

use super::{Hamiltonian, SystemDef, SystemDescription, SystemInfo};
use crate::error::Result;
use crate::float::Real;

pub const NAME: &str = "henon-heiles";
pub const INFO: SystemInfo = SystemInfo {
    name: NAME,
    summary: "Hénon–Heiles H = (p1² + p2²)/2 + (q1² + q2²)/2 + q1² q2 − q2³/3 (d = 2); default state q = (0, 0.1), p2 = 0, p1 > 0 on the regular level H = 1/12 (chaotic at 1/8)",
    params: &[],
    separable: true,
    sweeps: Some(1),
    indexed: &[],
    variational: false,
};

/// The energy of the default state (the regular regime).
pub const DEFAULT_ENERGY: f64 = 1.0 / 12.0;

#[derive(Debug, Clone)]
pub struct HenonHeiles;

impl SystemDef for HenonHeiles {
    const INFO: SystemInfo = INFO;
    const WGSL: &'static str = include_str!("../../shaders/system/henon_heiles.wgsl");
    const ENERGY_WGSL: &'static str = include_str!("../../shaders/energy/henon_heiles.wgsl");

    fn new(_params: &BTreeMap<String, f64>) -> Result<Self> {
        Ok(HenonHeiles)
    }
}

impl HenonHeiles {
    /// The potential V(q) = (q1² + q2²)/2 + q1² q2 − q2³/3, in f64.
    pub fn potential(q: &[f64]) -> f64 {
        let (x, y) = (q[0], q[1]);
        0.5 * (x * x + y * y) + x * x * y - y * y * y / 3.0
    }
}

impl SystemDescription for HenonHeiles {
    fn dof(&self) -> usize {
        2
    }

    fn params(&self) -> BTreeMap<String, f64> {
        BTreeMap::new()
    }

    fn constants(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }

    /// q = (0, 0.1), p = (√(2 (1/12 − V(q))), 0): H = 1/12.
    fn default_state(&self) -> Vec<f64> {
        let q = [0.0, 0.1];
        let p1 = (2.0 * (DEFAULT_ENERGY - Self::potential(&q))).sqrt();
        vec![q[0], q[1], p1, 0.0]
    }

    fn path(&self) -> Option<(&'static str, usize, usize)> {
        Some(("orbit (q1, q2)", 0, 1))
    }
}

impl Hamiltonian for HenonHeiles {
    fn energy(&self, q: &[f64], p: &[f64]) -> f64 {
        0.5 * (p[0] * p[0] + p[1] * p[1]) + Self::potential(q)
    }

    fn formula(&self) -> Option<String> {
        Some("(p1^2 + p2^2)/2 + (q1^2 + q2^2)/2 + q1^2*q2 - q2^3/3".into())
    }

    /// ∂H/∂q = (q1 + 2 q1 q2, q2 + q1² − q2²).
    #[inline(always)]
    fn grad_q<T: Real>(&self, q: &[T], _p: &[T], out: &mut [T]) {
        let n = q.len() / 2;
        let (x, y) = q.split_at(n);
        let (gx, gy) = out.split_at_mut(n);
        // Zipped slices rather than indices: no bounds checks, so the loop vectorises.
        for (((gx, gy), &x), &y) in gx.iter_mut().zip(gy).zip(x).zip(y) {
            (*gx, *gy) = force(x, y);
        }
    }

    /// ∂H/∂p = p.
    #[inline(always)]
    fn grad_p<T: Real>(&self, _q: &[T], p: &[T], out: &mut [T]) {
        out.copy_from_slice(p);
    }

    /// H_qq v with H_qq = [[1 + 2 q2, 2 q1], [2 q1, 1 − 2 q2]] (H_qp = 0).
    #[inline(always)]
    fn grad_q_dir<T: Real>(&self, q: &[T], _p: &[T], vq: &[T], _vp: &[T], out: &mut [T]) {
        let n = q.len() / 2;
        let ((x, y), (vx, vy)) = (q.split_at(n), vq.split_at(n));
        let (ox, oy) = out.split_at_mut(n);
        // Zipped slices (as `grad_q`): the chaos indicators' deviation vector goes through
        // here at every force evaluation, and indexed loads kept it scalar.
        let points = ox
            .iter_mut()
            .zip(oy)
            .zip(x.iter().zip(y))
            .zip(vx.iter().zip(vy));
        for (((ox, oy), (&x, &y)), (&vx, &vy)) in points {
            (*ox, *oy) = force_dir(x, y, vx, vy);
        }
    }

    /// With one tangent column (the chaos indicators' deviation vector), the force and its
    /// linearisation in one loop over the points, so that q is loaded once for both: the same
    /// arithmetic as `grad_q` and `grad_q_dir`, so the same bits. Other column counts take
    /// the default (one pass per column).
    #[inline(always)]
    fn grad_q_tangent<T: Real>(&self, nd: usize, q: &[T], p: &[T], out: &mut [T]) {
        if q.len() != 2 * nd {
            return super::hamiltonian::grad_q_per_column(self, nd, q, p, out);
        }
        let n = nd / 2;
        let (q, out) = (&q[..4 * n], &mut out[..4 * n]);
        let (x, rest) = q.split_at(n);
        let (y, rest) = rest.split_at(n);
        let (vx, vy) = rest.split_at(n);
        let (gx, rest) = out.split_at_mut(n);
        let (gy, rest) = rest.split_at_mut(n);
        let (ox, oy) = rest.split_at_mut(n);
        let points = gx
            .iter_mut()
            .zip(gy)
            .zip(ox.iter_mut().zip(oy))
            .zip(x.iter().zip(y))
            .zip(vx.iter().zip(vy));
        for ((((gx, gy), (ox, oy)), (&x, &y)), (&vx, &vy)) in points {
            (*gx, *gy) = force(x, y);
            (*ox, *oy) = force_dir(x, y, vx, vy);
        }
    }

    /// ∂H/∂p = p of the points and H_pp v = v of their tangent columns: one copy of the
    /// whole block.
    #[inline(always)]
    fn grad_p_tangent<T: Real>(&self, _nd: usize, _q: &[T], p: &[T], out: &mut [T]) {
        out.copy_from_slice(p);
    }

    /// H_pp v = v (H_pq = 0).
    #[inline(always)]
    fn grad_p_dir<T: Real>(&self, _q: &[T], _p: &[T], _vq: &[T], vp: &[T], out: &mut [T]) {
        out.copy_from_slice(vp);
    }
}

/// ∂H/∂q of one point (x, y) = (q1, q2): (x + 2xy, y + x² − y²). The block loops
/// (`grad_q`, `grad_q_tangent`) and the WGSL file compute it in this order.
#[inline(always)]
fn force<T: Real>(x: T, y: T) -> (T, T) {
    let two = T::from_f64(2.0);
    (x + two * x * y, y + x * x - y * y)
}

/// H_qq v of one point: ((1 + 2y) vx + 2x vy, 2x vx + (1 − 2y) vy).
#[inline(always)]
fn force_dir<T: Real>(x: T, y: T, vx: T, vy: T) -> (T, T) {
    let two = T::from_f64(2.0);
    (
        (T::ONE + two * y) * vx + two * x * vy,
        two * x * vx + (T::ONE - two * y) * vy,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_state_is_on_the_regular_level() {
        let s = HenonHeiles;
        let z = s.default_state();
        assert!(z[2] > 0.0);
        assert!((s.energy(&z[..2], &z[2..]) - 1.0 / 12.0).abs() < 1e-15);
    }
}
