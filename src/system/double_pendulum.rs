//! Planar double pendulum with point masses m1, m2 on massless rods l1, l2, angles θ1, θ2 from
//! the downward vertical, canonical momenta p1, p2, Δ = θ1 − θ2:
//! H = [m2 l2² p1² + (m1+m2) l1² p2² − 2 m2 l1 l2 p1 p2 cos Δ] / [2 m2 l1² l2² (m1 + m2 sin²Δ)]
//!     − (m1+m2) g l1 cos θ1 − m2 g l2 cos θ2.
//! Mirror: shaders/system/double_pendulum.wgsl.
//!
//! Not separable and not triangular: symplectic methods are implicit (fixed-point iteration,
//! `sweeps: None`).
//!
//! How the gradients are computed (the same statements on both engines). Dividing numerator
//! and denominator by 2 m2 l1² l2², the kinetic term is A = n/e with
//!   n = (a p1² + b p2²)/2 − c p1 p2 cos Δ,  e = m1 + m2 sin²Δ,
//!   a = 1/l1² (DP_A), b = (m1+m2)/(m2 l2²) (DP_B), c = 1/(l1 l2) (DP_C).
//! With w = 1/e, n_p1 = a p1 − c p2 cos Δ, n_p2 = b p2 − c p1 cos Δ (so n = (p1 n_p1 + p2 n_p2)/2):
//!   A_p1 = w n_p1, A_p2 = w n_p2,
//!   A_Δ = w (n_Δ − A e_Δ), n_Δ = c p1 p2 sin Δ, e_Δ = 2 m2 sin Δ cos Δ,
//!   A_ΔΔ = w (n_ΔΔ − 2 A_Δ e_Δ − A e_ΔΔ), n_ΔΔ = c p1 p2 cos Δ, e_ΔΔ = 2 m2 (cos²Δ − sin²Δ),
//!   X1 = ∂A_p1/∂Δ = w (c p2 sin Δ − A_p1 e_Δ), X2 = ∂A_p2/∂Δ = w (c p1 sin Δ − A_p2 e_Δ),
//!   A_p1p1 = a w, A_p2p2 = b w, A_p1p2 = −c cos Δ w.
//! Then ∂H/∂θ1 = A_Δ + G1 sin θ1, ∂H/∂θ2 = −A_Δ + G2 sin θ2 (G1 = (m1+m2) g l1, G2 = m2 g l2),
//! ∂H/∂p_k = A_pk, and with dv = vθ1 − vθ2, t = A_ΔΔ dv + X1 vp1 + X2 vp2:
//!   H_qq vq + H_qp vp = (t + G1 cos θ1 vθ1, −t + G2 cos θ2 vθ2),
//!   H_pq vq + H_pp vp = (X1 dv + w (a vp1 − c cos Δ vp2), X2 dv + w (b vp2 − c cos Δ vp1)).
//!
//! Default state: θ1 = 0.5, θ2 = 1.0, p1 = p2 = 0.

use super::hamiltonian::literal;
use std::collections::BTreeMap;

use super::{
    named_components, require_positive, Hamiltonian, ParamSpec, SystemDef, SystemDescription,
    SystemInfo,
};
use crate::error::Result;
use crate::float::{cos_poly, sin_poly, Real};

pub const NAME: &str = "double-pendulum";
pub const INFO: SystemInfo = SystemInfo {
    name: NAME,
    summary: "double pendulum, angles θ1, θ2 from the downward vertical, canonical momenta (d = 2), not separable; default state θ1 = 0.5, θ2 = 1.0, p = 0",
    params: &[
        ParamSpec { name: "m1", default: 1.0, meaning: "mass of the inner bob" },
        ParamSpec { name: "m2", default: 1.0, meaning: "mass of the outer bob" },
        ParamSpec { name: "l1", default: 1.0, meaning: "length of the inner rod" },
        ParamSpec { name: "l2", default: 1.0, meaning: "length of the outer rod" },
        ParamSpec { name: "g", default: 1.0, meaning: "gravitational acceleration" },
    ],
    separable: false,
    sweeps: None,
    indexed: &[],
    variational: false,
};

#[derive(Debug, Clone)]
pub struct DoublePendulum {
    pub m1: f64,
    pub m2: f64,
    pub l1: f64,
    pub l2: f64,
    pub g: f64,
}

/// The f32/f64 coefficients both engines use (see the module doc).
struct Coeffs<T> {
    a: T,
    b: T,
    c: T,
    m1: T,
    m2: T,
    g1: T,
    g2: T,
}

/// What the gradient and its directional derivatives share at one point.
struct Core<T> {
    s: T,
    co: T,
    w: T,
    np1: T,
    np2: T,
    big_a: T,
    e_d: T,
    a_d: T,
}

impl SystemDef for DoublePendulum {
    const INFO: SystemInfo = INFO;
    const WGSL: &'static str = include_str!("../../shaders/system/double_pendulum.wgsl");
    const ENERGY_WGSL: &'static str = include_str!("../../shaders/energy/double_pendulum.wgsl");

    fn new(params: &BTreeMap<String, f64>) -> Result<Self> {
        require_positive(NAME, params, &["m1", "m2", "l1", "l2", "g"])?;
        Ok(DoublePendulum {
            m1: params["m1"],
            m2: params["m2"],
            l1: params["l1"],
            l2: params["l2"],
            g: params["g"],
        })
    }
}

impl DoublePendulum {
    /// [DP_A, DP_B, DP_C, DP_M1, DP_M2, DP_G1, DP_G2] in f64: the single source of the
    /// coefficients for `constants()` (GPU) and `coeffs()` (CPU).
    fn coeff_values(&self) -> [f64; 7] {
        let (m1, m2, l1, l2, g) = (self.m1, self.m2, self.l1, self.l2, self.g);
        [
            1.0 / (l1 * l1),
            (m1 + m2) / (m2 * l2 * l2),
            1.0 / (l1 * l2),
            m1,
            m2,
            (m1 + m2) * g * l1,
            m2 * g * l2,
        ]
    }

    fn coeffs<T: Real>(&self) -> Coeffs<T> {
        let [a, b, c, m1, m2, g1, g2] = self.coeff_values().map(T::from_f64);
        Coeffs {
            a,
            b,
            c,
            m1,
            m2,
            g1,
            g2,
        }
    }
}

#[inline(always)]
fn core<T: Real>(k: &Coeffs<T>, th1: T, th2: T, p1: T, p2: T) -> Core<T> {
    let two = T::from_f64(2.0);
    let dl = th1 - th2;
    let s = sin_poly(dl);
    let co = cos_poly(dl);
    let w = T::ONE / (k.m1 + k.m2 * s * s);
    let np1 = k.a * p1 - k.c * p2 * co;
    let np2 = k.b * p2 - k.c * p1 * co;
    let big_a = T::HALF * (p1 * np1 + p2 * np2) * w;
    let e_d = two * k.m2 * s * co;
    let a_d = w * (k.c * p1 * p2 * s - big_a * e_d);
    Core {
        s,
        co,
        w,
        np1,
        np2,
        big_a,
        e_d,
        a_d,
    }
}

/// X1 = ∂A_p1/∂Δ, X2 = ∂A_p2/∂Δ and A_ΔΔ.
#[inline(always)]
fn second<T: Real>(k: &Coeffs<T>, z: &Core<T>, p1: T, p2: T) -> (T, T, T) {
    let two = T::from_f64(2.0);
    let x1 = z.w * (k.c * p2 * z.s - z.np1 * z.w * z.e_d);
    let x2 = z.w * (k.c * p1 * z.s - z.np2 * z.w * z.e_d);
    let e_dd = two * k.m2 * (z.co * z.co - z.s * z.s);
    let a_dd = z.w * (k.c * p1 * p2 * z.co - two * z.a_d * z.e_d - z.big_a * e_dd);
    (x1, x2, a_dd)
}

impl SystemDescription for DoublePendulum {
    fn dof(&self) -> usize {
        2
    }

    fn component_names(&self) -> Vec<String> {
        named_components(&["θ1", "θ2"], "p_")
    }

    fn params(&self) -> BTreeMap<String, f64> {
        BTreeMap::from([
            ("m1".into(), self.m1),
            ("m2".into(), self.m2),
            ("l1".into(), self.l1),
            ("l2".into(), self.l2),
            ("g".into(), self.g),
        ])
    }

    /// WGSL constants: DP_A = 1/l1², DP_B = (m1+m2)/(m2 l2²), DP_C = 1/(l1 l2), DP_M1 = m1,
    /// DP_M2 = m2, DP_G1 = (m1+m2) g l1, DP_G2 = m2 g l2.
    fn constants(&self) -> Vec<(&'static str, f64)> {
        let names = ["DP_A", "DP_B", "DP_C", "DP_M1", "DP_M2", "DP_G1", "DP_G2"];
        names.into_iter().zip(self.coeff_values()).collect()
    }

    /// θ1 = 0.5, θ2 = 1.0, p1 = p2 = 0.
    fn default_state(&self) -> Vec<f64> {
        vec![0.5, 1.0, 0.0, 0.0]
    }

    fn path(&self) -> Option<(&'static str, usize, usize)> {
        Some(("angles (θ1, θ2)", 0, 1))
    }
}

impl Hamiltonian for DoublePendulum {
    fn energy(&self, q: &[f64], p: &[f64]) -> f64 {
        let (m1, m2, l1, l2, g) = (self.m1, self.m2, self.l1, self.l2, self.g);
        let (p1, p2) = (p[0], p[1]);
        let dl = q[0] - q[1];
        let num = m2 * l2 * l2 * p1 * p1 + (m1 + m2) * l1 * l1 * p2 * p2
            - 2.0 * m2 * l1 * l2 * p1 * p2 * dl.cos();
        let den = 2.0 * m2 * l1 * l1 * l2 * l2 * (m1 + m2 * dl.sin() * dl.sin());
        num / den - (m1 + m2) * g * l1 * q[0].cos() - m2 * g * l2 * q[1].cos()
    }

    fn formula(&self) -> Option<String> {
        let [m1, m2, l1, l2, g] = [self.m1, self.m2, self.l1, self.l2, self.g].map(literal);
        Some(format!(
            "({m2}*{l2}^2*p1^2 + ({m1} + {m2})*{l1}^2*p2^2 - 2*{m2}*{l1}*{l2}*p1*p2*cos(q1 - q2)) \
             / (2*{m2}*{l1}^2*{l2}^2*({m1} + {m2}*sin(q1 - q2)^2)) \
             - ({m1} + {m2})*{g}*{l1}*cos(q1) - {m2}*{g}*{l2}*cos(q2)"
        ))
    }

    /// ∂H/∂θ1 = A_Δ + G1 sin θ1, ∂H/∂θ2 = −A_Δ + G2 sin θ2.
    #[inline(always)]
    fn grad_q<T: Real>(&self, q: &[T], p: &[T], out: &mut [T]) {
        let n = q.len() / 2;
        let k = self.coeffs::<T>();
        for i in 0..n {
            let (th1, th2) = (q[i], q[n + i]);
            let z = core(&k, th1, th2, p[i], p[n + i]);
            out[i] = z.a_d + k.g1 * sin_poly(th1);
            out[n + i] = k.g2 * sin_poly(th2) - z.a_d;
        }
    }

    /// ∂H/∂p_k = w n_pk.
    #[inline(always)]
    fn grad_p<T: Real>(&self, q: &[T], p: &[T], out: &mut [T]) {
        let n = q.len() / 2;
        let k = self.coeffs::<T>();
        for i in 0..n {
            let z = core(&k, q[i], q[n + i], p[i], p[n + i]);
            out[i] = z.np1 * z.w;
            out[n + i] = z.np2 * z.w;
        }
    }

    /// H_qq vq + H_qp vp = (t + G1 cos θ1 vθ1, −t + G2 cos θ2 vθ2), t = A_ΔΔ dv + X1 vp1 + X2 vp2.
    #[inline(always)]
    fn grad_q_dir<T: Real>(&self, q: &[T], p: &[T], vq: &[T], vp: &[T], out: &mut [T]) {
        let n = q.len() / 2;
        let k = self.coeffs::<T>();
        for i in 0..n {
            let (th1, th2, p1, p2) = (q[i], q[n + i], p[i], p[n + i]);
            let z = core(&k, th1, th2, p1, p2);
            let (x1, x2, a_dd) = second(&k, &z, p1, p2);
            let dv = vq[i] - vq[n + i];
            let t = a_dd * dv + x1 * vp[i] + x2 * vp[n + i];
            out[i] = t + k.g1 * cos_poly(th1) * vq[i];
            out[n + i] = k.g2 * cos_poly(th2) * vq[n + i] - t;
        }
    }

    /// H_pq vq + H_pp vp = (X1 dv + w (a vp1 − c cos Δ vp2), X2 dv + w (b vp2 − c cos Δ vp1)).
    #[inline(always)]
    fn grad_p_dir<T: Real>(&self, q: &[T], p: &[T], vq: &[T], vp: &[T], out: &mut [T]) {
        let n = q.len() / 2;
        let k = self.coeffs::<T>();
        for i in 0..n {
            let (p1, p2) = (p[i], p[n + i]);
            let z = core(&k, q[i], q[n + i], p1, p2);
            let (x1, x2, _) = second(&k, &z, p1, p2);
            let dv = vq[i] - vq[n + i];
            out[i] = x1 * dv + z.w * (k.a * vp[i] - k.c * z.co * vp[n + i]);
            out[n + i] = x2 * dv + z.w * (k.b * vp[n + i] - k.c * z.co * vp[i]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unequal() -> DoublePendulum {
        // Seed 003 parameters, with g ≠ 1 so every coefficient matters.
        DoublePendulum {
            m1: 55.0 / 24.0,
            m2: 3.0 / 8.0,
            l1: 1.0,
            l2: 8.0 / 3.0,
            g: 1.7,
        }
    }

    /// ∂H/∂p is the angular velocity: check it against the Lagrangian relation p = M(θ) θ̇,
    /// M = [[(m1+m2) l1², m2 l1 l2 cos Δ], [m2 l1 l2 cos Δ, m2 l2²]].
    #[test]
    fn momentum_gradient_inverts_the_mass_matrix() {
        let s = unequal();
        let (q, p): ([f64; 2], [f64; 2]) = ([0.3, -1.2], [0.8, -0.45]);
        let mut v = [0.0; 2];
        s.grad_p(&q, &p, &mut v);
        let c = (q[0] - q[1]).cos();
        let m11 = (s.m1 + s.m2) * s.l1 * s.l1;
        let m12 = s.m2 * s.l1 * s.l2 * c;
        let m22 = s.m2 * s.l2 * s.l2;
        assert!((m11 * v[0] + m12 * v[1] - p[0]).abs() < 1e-13);
        assert!((m12 * v[0] + m22 * v[1] - p[1]).abs() < 1e-13);
    }

    /// Gradients and directional derivatives against finite differences, with unequal
    /// parameters and non-zero momenta (the catalogue test uses the defaults).
    #[test]
    fn derivatives_match_finite_differences_with_unequal_parameters() {
        let s = unequal();
        let eps = 1e-6;
        let z = [0.7, -0.4, 0.9, -0.6];
        let grads = |z: &[f64]| {
            let (mut gq, mut gp) = ([0.0; 2], [0.0; 2]);
            s.grad_q(&z[..2], &z[2..], &mut gq);
            s.grad_p(&z[..2], &z[2..], &mut gp);
            [gq[0], gq[1], gp[0], gp[1]]
        };
        let g = grads(&z);
        for c in 0..4 {
            let (mut a, mut b) = (z, z);
            a[c] += eps;
            b[c] -= eps;
            let fd = (s.energy(&a[..2], &a[2..]) - s.energy(&b[..2], &b[2..])) / (2.0 * eps);
            assert!((g[c] - fd).abs() < 1e-7, "component {c}: {} vs {fd}", g[c]);
        }
        let v = [0.3, -0.7, 0.5, 1.1];
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
                "dir component {c}: {} vs {fd}",
                analytic[c]
            );
        }
    }
}
