//! The double pendulum as a variational integrator (seed 003 §1.2): point masses m1, m2 on rods
//! l1, l2, angles from the downward vertical, T = ½ vᵀM(q)v with M = [[(m1+m2) l1²,
//! m2 l1 l2 cos Δ], [m2 l1 l2 cos Δ, m2 l2²]], Δ = θ1 − θ2, V = −(m1+m2) g l1 cos θ1 −
//! m2 g l2 cos θ2 (the seed prints (m1 + 2m2) in V, which does not match its point-mass T: we
//! use the H of `double-pendulum`). Mirror: shaders/system/double_pendulum_variational.wgsl.
//!
//! L_d = h[T(q_k, v_k) − ½V(q_k) − ½V(q_{k+1})]. Its discrete Euler–Lagrange equations on the
//! state (q_k, v_k): q_{k+1} = q_k + h v_k, then
//! M(q_{k+1}) v_{k+1} − h ∂_qT(q_{k+1}, v_{k+1}) = M(q_k) v_k − h ∇V(q_{k+1}),
//! i.e. the seed's bilinear system a₁v₁ + b₁v₂ + c v₁v₂ = d₁, b₁v₁ + b₂v₂ − c v₁v₂ = d₂ with
//! c = h m2 l1 l2 sin Δ_{k+1}. The seed picks the root nearest the previous velocity; we solve it
//! by Newton iteration from the previous velocity (the same root), with its exact Jacobian,
//! counted in `unconverged` when it hits the cap. Symplectic, order 1 (T at the left end).
//! Energy: T(q_k, v_k) + ½(V(q_k) + V(q_{k+1})).

use std::collections::BTreeMap;

use super::discrete::{Constraints, DiscreteMap};
use super::{require_positive, Newton, ParamSpec, SystemDef, SystemDescription, SystemInfo};
use crate::error::Result;
use crate::float::{cos_poly, sin_poly, Real};

pub const NAME: &str = "double-pendulum-variational";
pub const INFO: SystemInfo = SystemInfo {
    name: NAME,
    summary: "double pendulum as a variational integrator (Torrente §1.2) (d = 2): point masses, L_d = h[T(q_k, v_k) − ½V(q_k) − ½V(q_{k+1})]; state (q, v); the thesis's bilinear system for v solved by Newton iteration, order 1; defaults the thesis's m1 = 55/24, m2 = 3/8, l1 = 1, l2 = 8/3, g = 1",
    params: &[
        ParamSpec { name: "m1", default: 55.0 / 24.0, meaning: "inner mass" },
        ParamSpec { name: "m2", default: 3.0 / 8.0, meaning: "outer mass" },
        ParamSpec { name: "l1", default: 1.0, meaning: "inner rod length" },
        ParamSpec { name: "l2", default: 8.0 / 3.0, meaning: "outer rod length" },
        ParamSpec { name: "g", default: 1.0, meaning: "gravitational acceleration" },
    ],
    separable: false,
    sweeps: None,
    indexed: &[],
    variational: true,
};

#[derive(Debug, Clone)]
pub struct DoublePendulumVariational {
    pub m1: f64,
    pub m2: f64,
    pub l1: f64,
    pub l2: f64,
    pub g: f64,
}

impl SystemDef for DoublePendulumVariational {
    const INFO: SystemInfo = INFO;
    const WGSL: &'static str =
        include_str!("../../shaders/system/double_pendulum_variational.wgsl");
    const ENERGY_WGSL: &'static str =
        include_str!("../../shaders/energy/double_pendulum_variational.wgsl");

    fn new(params: &BTreeMap<String, f64>) -> Result<Self> {
        require_positive(NAME, params, &["m1", "m2", "l1", "l2", "g"])?;
        Ok(DoublePendulumVariational {
            m1: params["m1"],
            m2: params["m2"],
            l1: params["l1"],
            l2: params["l2"],
            g: params["g"],
        })
    }
}

impl DoublePendulumVariational {
    /// V(θ1, θ2) in f64.
    fn potential(&self, t1: f64, t2: f64) -> f64 {
        -(self.m1 + self.m2) * self.g * self.l1 * t1.cos() - self.m2 * self.g * self.l2 * t2.cos()
    }

    /// The step's coefficients in T: [(m1+m2) l1², m2 l2², m2 l1 l2, (m1+m2) g l1, m2 g l2]
    /// (`constants`' DPV_A, DPV_B, DPV_C, DPV_G1, DPV_G2).
    fn coefficients<T: Real>(&self) -> [T; 5] {
        let (m1, m2, l1, l2, g) = (self.m1, self.m2, self.l1, self.l2, self.g);
        [
            (m1 + m2) * l1 * l1,
            m2 * l2 * l2,
            m2 * l1 * l2,
            (m1 + m2) * g * l1,
            m2 * g * l2,
        ]
        .map(T::from_f64)
    }
}

/// ∂p/∂v = M(q) − h ∂_v∂_qT(q, v) at velocity w, with cn = m2 l1 l2 cos Δ and
/// sn = h m2 l1 l2 sin Δ at q: the Jacobian of the momentum's bilinear form
/// (a w₁ + cn w₂ + sn w₁w₂, cn w₁ + b w₂ − sn w₁w₂) in w, which the step's Newton iteration
/// inverts at q_{k+1} and `tangent_step` at q_k.
#[inline(always)]
fn momentum_jacobian<T: Real>(a: T, b: T, cn: T, sn: T, w: [T; 2]) -> [[T; 2]; 2] {
    [
        [a + sn * w[1], cn + sn * w[0]],
        [cn - sn * w[1], b - sn * w[0]],
    ]
}

/// The solution x of J x = r for a 2×2 system by Cramer's rule, in this fixed order of
/// operations (mirrored by the Newton step of shaders/system/double_pendulum_variational.wgsl).
#[inline(always)]
fn cramer2<T: Real>(j: [[T; 2]; 2], r: [T; 2]) -> [T; 2] {
    let det = j[0][0] * j[1][1] - j[0][1] * j[1][0];
    [
        (r[0] * j[1][1] - r[1] * j[0][1]) / det,
        (j[0][0] * r[1] - j[1][0] * r[0]) / det,
    ]
}

impl SystemDescription for DoublePendulumVariational {
    fn dof(&self) -> usize {
        2
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

    /// DPV_A = (m1+m2) l1², DPV_B = m2 l2², DPV_C = m2 l1 l2, DPV_G1 = (m1+m2) g l1,
    /// DPV_G2 = m2 g l2.
    fn constants(&self) -> Vec<(&'static str, f64)> {
        let (m1, m2, l1, l2, g) = (self.m1, self.m2, self.l1, self.l2, self.g);
        vec![
            ("DPV_A", (m1 + m2) * l1 * l1),
            ("DPV_B", m2 * l2 * l2),
            ("DPV_C", m2 * l1 * l2),
            ("DPV_G1", (m1 + m2) * g * l1),
            ("DPV_G2", m2 * g * l2),
        ]
    }

    /// The seed's figure 5: q₀ = (0.1, 0.1), q₁ = (0.108, 0.108) at h = 0.01, as (q₀, v₀).
    fn default_state(&self) -> Vec<f64> {
        vec![0.1, 0.1, 0.8, 0.8]
    }

    fn observable(&self) -> Option<(&'static str, usize)> {
        Some(("θ2", 1))
    }
}

impl DiscreteMap for DoublePendulumVariational {
    /// T(q_k, v_k) + ½(V(q_k) + V(q_k + h v_k)).
    fn energy(&self, h: f64, q: &[f64], v: &[f64]) -> f64 {
        let (m1, m2, l1, l2) = (self.m1, self.m2, self.l1, self.l2);
        let t = 0.5
            * ((m1 + m2) * l1 * l1 * v[0] * v[0]
                + m2 * l2 * l2 * v[1] * v[1]
                + 2.0 * m2 * l1 * l2 * v[0] * v[1] * (q[0] - q[1]).cos());
        let (t1, t2) = (q[0] + h * v[0], q[1] + h * v[1]);
        t + 0.5 * (self.potential(q[0], q[1]) + self.potential(t1, t2))
    }

    fn constraints(&self) -> Constraints {
        Constraints::Holonomic
    }

    /// p = −D₁L_d(q, q + h v) = M(q) v − h ∂_qT(q, v) + (h/2)∇V(q), with
    /// ∂_qT = (−1, 1)·m2 l1 l2 v₁ v₂ sin Δ and ∇V = ((m1+m2) g l1 sin θ1, m2 g l2 sin θ2).
    fn momentum(&self, h: f64, q: &[f64], v: &[f64], p: &mut [f64]) {
        let (m1, m2, l1, l2, g) = (self.m1, self.m2, self.l1, self.l2, self.g);
        let delta = q[0] - q[1];
        let c = m2 * l1 * l2;
        let coupling = c * delta.cos();
        let twist = h * c * v[0] * v[1] * delta.sin();
        p[0] = (m1 + m2) * l1 * l1 * v[0]
            + coupling * v[1]
            + twist
            + 0.5 * h * (m1 + m2) * g * l1 * q[0].sin();
        p[1] = coupling * v[0] + m2 * l2 * l2 * v[1] - twist + 0.5 * h * m2 * g * l2 * q[1].sin();
    }

    fn linearised(&self) -> bool {
        true
    }

    /// The map in (q, p) is the step read through the discrete Legendre transform:
    /// p_k = −D₁L_d(q_k, q_{k+1}) = M(q_k) v_k − h ∂_qT(q_k, v_k) + (h/2)∇V(q_k) (`momentum`)
    /// fixes v_k implicitly, then q_{k+1} = q_k + h v_k and p_{k+1} = D₂L_d(q_k, q_{k+1}) =
    /// M(q_k) v_k − (h/2)∇V(q_{k+1}) are explicit. The equation the step solves by Newton for
    /// v_{k+1} is p_{k+1} = −D₁L_d(q_{k+1}, q_{k+2}), the same transform one step on, so the
    /// only implicit part of the (q, p) map is that transform's inverse p ↦ v. By the implicit
    /// function theorem its derivative at the root is the inverse of ∂p/∂v (the step's Newton
    /// Jacobian, `momentum_jacobian`) at (q_k, v_k), the root the previous step found and the
    /// state keeps: one 2×2 solve per point, no iteration, and the new velocity's Jacobian is
    /// the next step's. With Δ = θ1 − θ2, C = m2 l1 l2 and δΔ = δθ1 − δθ2:
    /// - δv = J⁻¹(δp − ∂_q p δq), where ∂_q p δq = (k₁ δΔ + (h/2) g₁ cos θ1 δθ1,
    ///   k₂ δΔ + (h/2) g₂ cos θ2 δθ2) with k₁ = h C v₁v₂ cos Δ − C sin Δ v₂ and
    ///   k₂ = −h C v₁v₂ cos Δ − C sin Δ v₁ (g₁ = (m1+m2) g l1, g₂ = m2 g l2);
    /// - δq' = δq + h δv;
    /// - δp' = M(q) δv − C sin Δ (v₂, v₁) δΔ − (h/2)(g₁ cos θ1' δθ1', g₂ cos θ2' δθ2').
    ///
    /// A Newton root found only to `--implicit-tol` leaves the state's (q, p) off this map by
    /// that much; the columns are the derivative of the exact map.
    fn tangent_step<T: Real>(&self, h: T, q: &[T], v: &[T], tq: &mut [T], tp: &mut [T]) {
        let n = q.len() / 2;
        let [a, b, c, g1, g2] = self.coefficients::<T>();
        let half_h = T::HALF * h;
        let (tq1, tq2) = tq.split_at_mut(n);
        let (tp1, tp2) = tp.split_at_mut(n);
        for i in 0..n {
            let (t1, t2, v1, v2) = (q[i], q[n + i], v[i], v[n + i]);
            let (dt1, dt2, dp1, dp2) = (tq1[i], tq2[i], tp1[i], tp2[i]);
            let delta = t1 - t2;
            let (cn, sc) = (c * cos_poly(delta), c * sin_poly(delta));
            let twist = h * cn * v1 * v2;
            let dd = dt1 - dt2;
            let r1 = dp1 - (twist - sc * v2) * dd - half_h * g1 * cos_poly(t1) * dt1;
            let r2 = dp2 + (twist + sc * v1) * dd - half_h * g2 * cos_poly(t2) * dt2;
            let [dv1, dv2] = cramer2(momentum_jacobian(a, b, cn, h * sc, [v1, v2]), [r1, r2]);
            let (n1, n2) = (t1 + h * v1, t2 + h * v2);
            let (dn1, dn2) = (dt1 + h * dv1, dt2 + h * dv2);
            tq1[i] = dn1;
            tq2[i] = dn2;
            tp1[i] = a * dv1 + cn * dv2 - sc * v2 * dd - half_h * g1 * cos_poly(n1) * dn1;
            tp2[i] = cn * dv1 + b * dv2 - sc * v1 * dd - half_h * g2 * cos_poly(n2) * dn2;
        }
    }

    fn discrete_step<T: Real>(
        &self,
        h: T,
        q: &mut [T],
        next: &[T],
        v: &mut [T],
        _ev: &mut [T],
        solver: Newton,
        unconverged: &mut [u32],
    ) {
        let n = q.len() / 2;
        let [a, b, c, g1, g2] = self.coefficients::<T>();
        let tol = T::from_f64(solver.tol);
        // Column loops over the block (vectorisable): the known side per point, then Newton's
        // sweeps (`Newton::solve`).
        let mut scratch = vec![T::ZERO; 4 * n];
        let (d1s, rest) = scratch.split_at_mut(n);
        let (d2s, rest) = rest.split_at_mut(n);
        let (cns, sns) = rest.split_at_mut(n);
        let (t1s, t2s) = q.split_at_mut(n);
        let (w1s, w2s) = v.split_at_mut(n);
        for i in 0..n {
            let (t1, t2, v1, v2) = (t1s[i], t2s[i], w1s[i], w2s[i]);
            // The old momentum M(q_k) v_k, then the kick of the potential at q_{k+1}.
            let co = c * cos_poly(t1 - t2);
            let (n1, n2) = (next[i], next[n + i]);
            d1s[i] = a * v1 + co * v2 - h * g1 * sin_poly(n1);
            d2s[i] = co * v1 + b * v2 - h * g2 * sin_poly(n2);
            let dn = n1 - n2;
            cns[i] = c * cos_poly(dn);
            sns[i] = h * c * sin_poly(dn);
            t1s[i] = n1;
            t2s[i] = n2;
        }
        solver.solve([w1s, w2s], unconverged, |i, [w1, w2]| {
            let (cn, sn) = (cns[i], sns[i]);
            let r1 = a * w1 + cn * w2 + sn * w1 * w2 - d1s[i];
            let r2 = cn * w1 + b * w2 - sn * w1 * w2 - d2s[i];
            let [e1, e2] = cramer2(momentum_jacobian(a, b, cn, sn, [w1, w2]), [r1, r2]);
            let (n1, n2) = (w1 - e1, w2 - e2);
            let step = if e1.abs() > e2.abs() {
                e1.abs()
            } else {
                e2.abs()
            };
            let size = if n1.abs() > n2.abs() {
                n1.abs()
            } else {
                n2.abs()
            };
            // A non-finite iterate stops too (counted as escaped, not unconverged).
            ([n1, n2], step > tol * size)
        });
    }
}
