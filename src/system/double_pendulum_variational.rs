//! The double pendulum as a variational integrator (Torrente §1.2): point masses m1, m2 on rods
//! l1, l2, angles from the downward vertical, T = ½ vᵀM(q)v with M = [[(m1+m2) l1²,
//! m2 l1 l2 cos Δ], [m2 l1 l2 cos Δ, m2 l2²]], Δ = θ1 − θ2, V = −(m1+m2) g l1 cos θ1 −
//! m2 g l2 cos θ2 (the thesis prints (m1 + 2m2) in V, which does not match its point-mass T: we
//! use the H of `double-pendulum`). Mirror: shaders/system/double_pendulum_variational.wgsl.
//!
//! L_d = h[T(q_k, v_k) − ½V(q_k) − ½V(q_{k+1})]. Its discrete Euler–Lagrange equations on the
//! state (q_k, v_k): q_{k+1} = q_k + h v_k, then
//! M(q_{k+1}) v_{k+1} − h ∂_qT(q_{k+1}, v_{k+1}) = M(q_k) v_k − h ∇V(q_{k+1}),
//! i.e. the thesis's bilinear system a₁v₁ + b₁v₂ + c v₁v₂ = d₁, b₁v₁ + b₂v₂ − c v₁v₂ = d₂ with
//! c = h m2 l1 l2 sin Δ_{k+1}. The thesis picks the root nearest the previous velocity; we solve it
//! by Newton iteration from the previous velocity (the same root), with its exact Jacobian,
//! counted in `unconverged` when it hits the cap. Symplectic, order 1 (T at the left end).
//! Energy: T(q_k, v_k) + ½(V(q_k) + V(q_{k+1})).
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
    cramer2_with(j, det2(j), r)
}

/// The determinant of a 2×2 matrix, as `cramer2` divides by it.
#[inline(always)]
fn det2<T: Real>(j: [[T; 2]; 2]) -> T {
    j[0][0] * j[1][1] - j[0][1] * j[1][0]
}

/// `cramer2` with J's determinant `det` given, so that several right-hand sides share it.
#[inline(always)]
fn cramer2_with<T: Real>(j: [[T; 2]; 2], det: T, r: [T; 2]) -> [T; 2] {
    [
        (r[0] * j[1][1] - r[1] * j[0][1]) / det,
        (j[0][0] * r[1] - j[1][0] * r[0]) / det,
    ]
}

/// Values per point of the (q, p) map's linearisation that `tangent_columns` evaluates once
/// for all columns: the coefficients of δΔ in δp − ∂_q p δq (k₁, k₂), of δθ1, δθ2 there (e₁,
/// e₂) and in δp' (f₁, f₂), C cos Δ, C sin Δ v₁, C sin Δ v₂, J's four entries and det J.
const LINEARISATION_ROWS: usize = 14;

/// Points per run of `tangent_columns`: their values fit the stack and L1, and the loops over
/// them have a known bound, so they vectorise.
const LANES: usize = 16;

impl SystemDescription for DoublePendulumVariational {
    fn dof(&self) -> usize {
        2
    }

    fn component_names(&self) -> Vec<String> {
        named_components(&["θ1", "θ2"], "v_")
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

    /// The thesis's figure 5: q₀ = (0.1, 0.1), q₁ = (0.108, 0.108) at h = 0.01, as (q₀, v₀).
    fn default_state(&self) -> Vec<f64> {
        vec![0.1, 0.1, 0.8, 0.8]
    }

    fn observable(&self) -> Option<(&'static str, usize)> {
        Some(("θ2", 1))
    }

    fn path(&self) -> Option<(&'static str, usize, usize)> {
        Some(("angles (θ1, θ2)", 0, 1))
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
        self.tangent_columns(h, q, v, tq, tp);
    }

    /// `tangent_step`'s arithmetic with the sines, cosines and J (and det J) of each point
    /// evaluated once for all columns instead of once per column: a run of `LANES` points'
    /// values on the stack, then each column's update of those points, a loop of products and
    /// two divisions per point. The operations are those of one column alone, in the same
    /// order, so the columns are bit for bit the same.
    fn tangent_columns<T: Real>(&self, h: T, q: &[T], v: &[T], tq: &mut [T], tp: &mut [T]) {
        let n = q.len() / 2;
        let [a, b, c, g1, g2] = self.coefficients::<T>();
        let half_h = T::HALF * h;
        let mut rows = [[T::ZERO; LANES]; LINEARISATION_ROWS];
        // The run's points, then a column's entries, copied into arrays of fixed length: the
        // loops below then run over LANES values that alias nothing, and vectorise. A short
        // last run also computes its unused lanes (from zeros, or an earlier run's values)
        // and writes back only its own.
        let mut point = [[T::ZERO; LANES]; 4];
        let mut column = [[T::ZERO; LANES]; 4];
        for start in (0..n).step_by(LANES) {
            let m = (n - start).min(LANES);
            let at = |part: usize| part * n + start..part * n + start + m;
            for (k, x) in point.iter_mut().enumerate() {
                let from = if k < 2 { &q[at(k)] } else { &v[at(k - 2)] };
                x[..m].copy_from_slice(from);
            }
            let [k1, k2, e1, e2, f1, f2, cns, sv1s, sv2s, j11, j12, j21, j22, dets] = &mut rows;
            for i in 0..LANES {
                let (t1, t2, v1, v2) = (point[0][i], point[1][i], point[2][i], point[3][i]);
                let delta = t1 - t2;
                let (cn, sc) = (c * cos_poly(delta), c * sin_poly(delta));
                let twist = h * cn * v1 * v2;
                let (sv1, sv2) = (sc * v1, sc * v2);
                k1[i] = twist - sv2;
                k2[i] = twist + sv1;
                e1[i] = half_h * g1 * cos_poly(t1);
                e2[i] = half_h * g2 * cos_poly(t2);
                let j = momentum_jacobian(a, b, cn, h * sc, [v1, v2]);
                [j11[i], j12[i], j21[i], j22[i]] = [j[0][0], j[0][1], j[1][0], j[1][1]];
                dets[i] = det2(j);
                let (n1, n2) = (t1 + h * v1, t2 + h * v2);
                f1[i] = half_h * g1 * cos_poly(n1);
                f2[i] = half_h * g2 * cos_poly(n2);
                [cns[i], sv1s[i], sv2s[i]] = [cn, sv1, sv2];
            }
            for (cq, cp) in tq.chunks_exact_mut(2 * n).zip(tp.chunks_exact_mut(2 * n)) {
                for (k, x) in column.iter_mut().enumerate() {
                    let from = if k < 2 { &cq[at(k)] } else { &cp[at(k - 2)] };
                    x[..m].copy_from_slice(from);
                }
                let [dq1, dq2, dp1, dp2] = &mut column;
                for i in 0..LANES {
                    let (dt1, dt2) = (dq1[i], dq2[i]);
                    let dd = dt1 - dt2;
                    let r1 = dp1[i] - k1[i] * dd - e1[i] * dt1;
                    let r2 = dp2[i] + k2[i] * dd - e2[i] * dt2;
                    let j = [[j11[i], j12[i]], [j21[i], j22[i]]];
                    let [dv1, dv2] = cramer2_with(j, dets[i], [r1, r2]);
                    let (dn1, dn2) = (dt1 + h * dv1, dt2 + h * dv2);
                    let cn = cns[i];
                    dq1[i] = dn1;
                    dq2[i] = dn2;
                    dp1[i] = a * dv1 + cn * dv2 - sv2s[i] * dd - f1[i] * dn1;
                    dp2[i] = cn * dv1 + b * dv2 - sv1s[i] * dd - f2[i] * dn2;
                }
                for (k, x) in column.iter().enumerate() {
                    let to = if k < 2 {
                        &mut cq[at(k)]
                    } else {
                        &mut cp[at(k - 2)]
                    };
                    to.copy_from_slice(&x[..m]);
                }
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// One tangent column of one point through the (q, p) map, written out as the derivation
    /// in `tangent_step`'s comment reads, every coefficient evaluated where it is used.
    fn column_alone<T: Real>(
        s: &DoublePendulumVariational,
        h: T,
        [t1, t2, v1, v2]: [T; 4],
        [dt1, dt2, dp1, dp2]: [T; 4],
    ) -> [T; 4] {
        let [a, b, c, g1, g2] = s.coefficients::<T>();
        let half_h = T::HALF * h;
        let delta = t1 - t2;
        let (cn, sc) = (c * cos_poly(delta), c * sin_poly(delta));
        let twist = h * cn * v1 * v2;
        let dd = dt1 - dt2;
        let r1 = dp1 - (twist - sc * v2) * dd - half_h * g1 * cos_poly(t1) * dt1;
        let r2 = dp2 + (twist + sc * v1) * dd - half_h * g2 * cos_poly(t2) * dt2;
        let [dv1, dv2] = cramer2(momentum_jacobian(a, b, cn, h * sc, [v1, v2]), [r1, r2]);
        let (n1, n2) = (t1 + h * v1, t2 + h * v2);
        let (dn1, dn2) = (dt1 + h * dv1, dt2 + h * dv2);
        [
            dn1,
            dn2,
            a * dv1 + cn * dv2 - sc * v2 * dd - half_h * g1 * cos_poly(n1) * dn1,
            cn * dv1 + b * dv2 - sc * v1 * dd - half_h * g2 * cos_poly(n2) * dn2,
        ]
    }

    /// `tangent_columns` on blocks shorter than, equal to and longer than its runs of `LANES`
    /// points (a short last run included), four columns each, gives every column the bits of
    /// the column alone, in f32 and f64, at large angles and velocities.
    #[test]
    fn double_pendulum_columns_are_each_column_alone_bit_for_bit() {
        fn check<T: Real>(n: usize) {
            let defaults = INFO.params.iter().map(|p| (p.name.to_string(), p.default));
            let s = DoublePendulumVariational::new(&defaults.collect()).unwrap();
            let h = T::from_f64(0.01);
            let val = |k: usize, scale: f64| {
                T::from_f64(scale * (((k * 37 + 11) % 101) as f64 / 101.0 - 0.5))
            };
            let (nd, cols) = (2 * n, 4);
            let q: Vec<T> = (0..nd).map(|k| val(k, 5.0)).collect();
            let v: Vec<T> = (0..nd).map(|k| val(k + 3, 3.0)).collect();
            let tq0: Vec<T> = (0..nd * cols).map(|k| val(k + 7, 2.0)).collect();
            let tp0: Vec<T> = (0..nd * cols).map(|k| val(k + 13, 2.0)).collect();
            let (mut tq, mut tp) = (tq0.clone(), tp0.clone());
            s.tangent_columns(h, &q, &v, &mut tq, &mut tp);
            for j in 0..cols {
                for i in 0..n {
                    let at = |k: usize| j * nd + k * n + i;
                    let want = column_alone(
                        &s,
                        h,
                        [q[i], q[n + i], v[i], v[n + i]],
                        [tq0[at(0)], tq0[at(1)], tp0[at(0)], tp0[at(1)]],
                    );
                    let got = [tq[at(0)], tq[at(1)], tp[at(0)], tp[at(1)]];
                    for (g, w) in got.iter().zip(want) {
                        assert!(
                            g.to_f64().to_bits() == w.to_f64().to_bits(),
                            "{} n = {n}, column {j}, point {i}: {got:?} against {:?}",
                            T::NAME,
                            w.to_f64()
                        );
                    }
                }
            }
        }
        for n in [0, 1, 5, LANES, LANES + 1, 3 * LANES + 7] {
            check::<f32>(n);
            check::<f64>(n);
        }
    }
}
