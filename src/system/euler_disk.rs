//! Euler's disk (Torrente §2.2, after Campos et al. 2011): a disk rolling without slipping on a
//! fixed plane, free to tilt, as a nonholonomic variational system. q = (θ, φ, ψ, x, y): θ the
//! angle between the disk's normal and the vertical (π/2: upright), φ the heading, ψ the spin,
//! (x, y) the contact point. Mirror: shaders/system/euler_disk.wgsl. The derivation, its
//! symbolic and numerical checks, and the thesis's typos: docs/derivations/euler-disk.md.
//!
//! Scaled Lagrangian 2L/(M r²) = K − V with V = 2g/r (sin θ + ē cos θ), ē = e/2, Ī = I/(M r²);
//! rolling constraint (ẋ, ẏ) = −r ψ̇ (cos φ, sin φ). Discrete Lagrangian (28, corrected):
//! L_d = K(θ_{k+½}, φ_{k+½}; Δq_k) − h² V(θ_{k+½}); discrete constraint at the midpoint heading;
//! the discrete Lagrange–d'Alembert equations along X_θ = ∂θ, X_φ = ∂φ,
//! X_ψ = ∂ψ − r cos φ ∂x − r sin φ ∂y at the shared configuration are three equations in the new
//! increments (Δθ, Δφ, Δψ), solved per point by Newton iteration with their exact Jacobian
//! (Cramer's rule), from the previous increments; the new Δx, Δy follow from the constraint.
//! The old step's momenta are taken on the discrete constraint (its x, y increments are not
//! used: the thesis's own code does the same), so an initial velocity off the constraint is put on
//! it before the run (`project_start`), or, with the raw start, by the first step. Second
//! order, energy bounded with no drift.
//!
//! State (q_k, v_k), v_k = (q_{k+1} − q_k)/h. Energy (scaled, 2E/(M r²)): K + V evaluated at the
//! midpoint configuration q_k + h v_k/2 with v_k, which is conserved to O(h²) (at q_k only O(h),
//! since v_k is a midpoint velocity). Constraint error: |(v^x, v^y) + r v^ψ (cos, sin) φ_{k+½}|.
//!
//! Written by hand, not generated from a formula (`generated/mod.rs`): it is a discrete map
//! with nonholonomic constraints (`DiscreteMap`), not a Hamiltonian, and the generator writes a
//! Hamiltonian's gradients and their directional derivatives only.

use std::collections::BTreeMap;

use super::discrete::{Constraints, DiscreteMap};
use super::{
    named_components, require_positive, Newton, ParamSpec, SystemDef, SystemDescription, SystemInfo,
};
use crate::error::Result;
use crate::float::{cos_poly, cramer3, max3, sin_poly, Real};

pub const NAME: &str = "euler-disk";
pub const INFO: SystemInfo = SystemInfo {
    name: NAME,
    summary: "Euler's disk (Torrente §2.2), variational, nonholonomic (d = 5): q = (θ, φ, ψ, x, y) tilt from the vertical normal, heading, spin, contact point; state (q, v); Newton solve of the discrete Lagrange–d'Alembert equations per step, order 2; energy in units of M r²/2",
    params: &[
        ParamSpec { name: "m", default: 1.0, meaning: "mass M" },
        ParamSpec { name: "r", default: 1.0, meaning: "radius" },
        ParamSpec { name: "i1", default: 1.0, meaning: "moment of inertia I₁ = I₂ about a diameter" },
        ParamSpec { name: "i3", default: 2.5, meaning: "moment of inertia I₃ about the axis" },
        ParamSpec { name: "g", default: 9.8, meaning: "gravitational acceleration" },
        ParamSpec { name: "e", default: 0.0, meaning: "thickness e (ē = e/2)" },
    ],
    separable: false,
    sweeps: None,
    indexed: &[],
    variational: true,
};

#[derive(Debug, Clone)]
pub struct EulerDisk {
    pub m: f64,
    pub r: f64,
    pub i1: f64,
    pub i3: f64,
    pub g: f64,
    pub e: f64,
}

impl SystemDef for EulerDisk {
    const INFO: SystemInfo = INFO;
    const WGSL: &'static str = include_str!("../../shaders/system/euler_disk.wgsl");
    const ENERGY_WGSL: &'static str = include_str!("../../shaders/energy/euler_disk.wgsl");

    fn new(params: &BTreeMap<String, f64>) -> Result<Self> {
        require_positive(NAME, params, &["m", "r", "i1", "i3", "g"])?;
        Ok(EulerDisk {
            m: params["m"],
            r: params["r"],
            i1: params["i1"],
            i3: params["i3"],
            g: params["g"],
            e: params["e"],
        })
    }
}

impl EulerDisk {
    /// (Ī₁, Ī₃, ē).
    fn scaled(&self) -> (f64, f64, f64) {
        let mr2 = self.m * self.r * self.r;
        (self.i1 / mr2, self.i3 / mr2, 0.5 * self.e)
    }

    /// The scaled energy K + V at configuration (θ, φ) with velocity v, in f64.
    pub fn energy_at(&self, th: f64, ph: f64, v: &[f64]) -> f64 {
        let (i1, i3, e) = self.scaled();
        let (st, ct, sp, cp) = (th.sin(), th.cos(), ph.sin(), ph.cos());
        let (vt, vp, vs, vx, vy) = (v[0], v[1], v[2], v[3], v[4]);
        let r = self.r;
        let k = vt * vt
            + vp * vp * ct * ct
            + (i1 + e * e) * (vt * vt + vp * vp * st * st)
            + i3 * (vp * ct + vs).powi(2)
            + (vx * vx + vy * vy) / (r * r)
            - e * vp * vp * 2.0 * st * ct
            + 2.0 * vx * (vt * st * sp - vp * ct * cp + e * (vp * cp * st + vt * ct * sp)) / r
            - 2.0 * vy * (vt * st * cp + vp * ct * sp - e * (vp * sp * st - vt * ct * cp)) / r;
        k + 2.0 * self.g / r * (st + e * ct)
    }
}

impl SystemDescription for EulerDisk {
    fn dof(&self) -> usize {
        5
    }

    fn component_names(&self) -> Vec<String> {
        named_components(&["θ", "φ", "ψ", "x", "y"], "v_")
    }

    fn params(&self) -> BTreeMap<String, f64> {
        BTreeMap::from([
            ("m".into(), self.m),
            ("r".into(), self.r),
            ("i1".into(), self.i1),
            ("i3".into(), self.i3),
            ("g".into(), self.g),
            ("e".into(), self.e),
        ])
    }

    /// ED_A = 1 + Ī₁ + ē², ED_K2 = 1 − Ī₁ + Ī₃ − ē², ED_I1E = Ī₁ + ē², ED_I3 = Ī₃, ED_E = ē,
    /// ED_G_R = g/r, ED_R = r; ED_I1 for the energy.
    fn constants(&self) -> Vec<(&'static str, f64)> {
        let (i1, i3, e) = self.scaled();
        vec![
            ("ED_A", 1.0 + i1 + e * e),
            ("ED_K2", 1.0 - i1 + i3 - e * e),
            ("ED_I1E", i1 + e * e),
            ("ED_I3", i3),
            ("ED_E", e),
            ("ED_G_R", self.g / self.r),
            ("ED_R", self.r),
            ("ED_I1", i1),
        ]
    }

    /// The thesis's figure 17 at h = 0.001: q₁ = (π/2, 0, 0, 0, 0), q₂ = (π/2, h, h, h, h), as
    /// (q₁, v₁ = (0, 1, 1, 1, 1)); v₁'s (x, y) part is off the constraint, and the scheme does
    /// not use it (`project_start`).
    fn default_state(&self) -> Vec<f64> {
        let half_pi = std::f64::consts::FRAC_PI_2;
        vec![half_pi, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]
    }

    fn observable(&self) -> Option<(&'static str, usize)> {
        Some(("θ", 0))
    }

    fn path(&self) -> Option<(&'static str, usize, usize)> {
        Some(("contact point (x, y)", 3, 4))
    }
}

impl DiscreteMap for EulerDisk {
    /// K + V at the midpoint configuration q + h v/2, with v.
    fn energy(&self, h: f64, q: &[f64], v: &[f64]) -> f64 {
        self.energy_at(q[0] + 0.5 * h * v[0], q[1] + 0.5 * h * v[1], v)
    }

    fn constraints(&self) -> Constraints {
        Constraints::Nonholonomic
    }

    /// |(v^x, v^y) + r v^ψ (cos, sin) φ_{k+½}|, the larger component.
    fn constraint_error(&self, h: f64, q: &[f64], v: &[f64]) -> Option<f64> {
        let mid = q[1] + 0.5 * h * v[1];
        let ex = v[3] + self.r * v[2] * mid.cos();
        let ey = v[4] + self.r * v[2] * mid.sin();
        Some(ex.abs().max(ey.abs()))
    }

    /// The scheme takes a step's momenta along X_θ, X_φ, X_ψ from its angle increments
    /// alone, the step on the discrete constraint (`DiskStep::known`): the discrete Lagrangian
    /// with the constraint substituted. A state is therefore the motion its angle velocities
    /// give, and its consistent (v^x, v^y) are the constraint's at the midpoint heading,
    /// −r v^ψ (cos, sin)(φ + h v^φ/2), as `DiskStep::velocities` sets them after every step.
    /// The angles then move exactly as from the raw start; only the first drift of (x, y) and
    /// the energy at t = 0, which depends on (v^x, v^y), change.
    fn project_start(&self, h: f64, q: &[f64], v: &mut [f64]) {
        let heading = q[1] + 0.5 * h * v[1];
        v[3] = -self.r * v[2] * heading.cos();
        v[4] = -self.r * v[2] * heading.sin();
    }

    fn projects_start(&self) -> bool {
        true
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
        let n = q.len() / 5;
        let k = DiskStep::new(self, h);
        let tol = T::from_f64(solver.tol);
        // Column loops over the block (vectorisable): the drift (`next`) and the old step's momenta per
        // point, then Newton's sweeps (`Newton::solve`), then the new velocities.
        q.copy_from_slice(next);
        let mut momenta = vec![T::ZERO; 3 * n];
        let (p0, rest) = momenta.split_at_mut(n);
        let (p1, p2) = rest.split_at_mut(n);
        let (th, rest) = q.split_at_mut(n);
        let ph = &rest[..n];
        let (ua, rest) = v.split_at_mut(n);
        let (ub, rest) = rest.split_at_mut(n);
        let (uc, rest) = rest.split_at_mut(n);
        let (vx, vy) = rest.split_at_mut(n);
        for i in 0..n {
            let (u, p) = k.known(th[i], [ua[i], ub[i], uc[i]]);
            (ua[i], ub[i], uc[i]) = (u[0], u[1], u[2]);
            (p0[i], p1[i], p2[i]) = (p[0], p[1], p[2]);
        }
        solver.solve([&mut *ua, &mut *ub, &mut *uc], unconverged, |i, u| {
            k.newton(th[i], u, [p0[i], p1[i], p2[i]], tol)
        });
        for i in 0..n {
            let v = k.velocities(ph[i], [ua[i], ub[i], uc[i]]);
            (ua[i], ub[i], uc[i], vx[i], vy[i]) = (v[0], v[1], v[2], v[3], v[4]);
        }
    }
}

/// The step's coefficients at precision T (the prelude's `ED_*` constants on the GPU).
struct DiskStep<T> {
    h: T,
    a: T,
    k2: T,
    i1e: T,
    i3: T,
    e: T,
    r: T,
    gamma: T,
}

/// The angle functions of the scheme at one angle t (`disk_angles` in the WGSL).
struct Angles<T> {
    s: T,
    c: T,
    sigma: T,
    kappa: T,
    phi: T,
    psi: T,
    lambda: T,
    gphi: T,
    /// K2 cos 2t − 2ē sin 2t (= Φ'/2).
    dphi: T,
}

impl<T: Real> DiskStep<T> {
    fn new(d: &EulerDisk, h: T) -> Self {
        let f = T::from_f64;
        let (i1, i3, e) = d.scaled();
        DiskStep {
            h,
            a: f(1.0 + i1 + e * e),
            k2: f(1.0 - i1 + i3 - e * e),
            i1e: f(i1 + e * e),
            i3: f(i3),
            e: f(e),
            r: f(d.r),
            gamma: h * h * f(d.g / d.r),
        }
    }

    fn angles(&self, t: T) -> Angles<T> {
        let two = T::from_f64(2.0);
        let (s, c) = (sin_poly(t), cos_poly(t));
        let (s2, c2) = (two * s * c, c * c - s * s);
        let e = self.e;
        let i3p = T::ONE + self.i3;
        Angles {
            s,
            c,
            sigma: s + e * c,
            kappa: c - e * s,
            phi: self.k2 * s2 + two * e * c2,
            psi: i3p * s + e * c,
            lambda: i3p * c - e * s,
            gphi: i3p * c * c + self.i1e * s * s - e * s2,
            dphi: self.k2 * c2 - two * e * s2,
        }
    }

    /// The old step at θ_{k+1} (after the drift) from its velocity: its increments
    /// (Newton's start) and its momenta along X_θ, X_φ, X_ψ at θ_{k+½}.
    #[inline(always)]
    fn known(&self, theta: T, v: [T; 3]) -> ([T; 3], [T; 3]) {
        let (two, half) = (T::from_f64(2.0), T::from_f64(0.5));
        let h = self.h;
        let (a0, b0, c0) = (h * v[0], h * v[1], h * v[2]);
        let o = self.angles(theta - half * a0);
        let (ch0, sh0) = (cos_poly(half * b0), sin_poly(half * b0));
        let p_th =
            two * self.a * a0 - half * b0 * b0 * o.phi - b0 * c0 * o.psi - self.gamma * o.kappa;
        let p_ph = two * b0 * o.gphi + two * c0 * o.lambda - a0 * c0 * o.sigma;
        let p_ps = two * c0 * (self.i3 + ch0)
            + two * b0 * (self.i3 * o.c + o.kappa * ch0)
            + two * a0 * o.sigma * sh0;
        ([a0, b0, c0], [p_th, p_ph, p_ps])
    }

    /// One Newton iteration on the three equations from the increments u = (Δθ, Δφ, Δψ):
    /// the next iterate, and whether to go on.
    #[inline(always)]
    fn newton(&self, theta: T, u: [T; 3], p: [T; 3], tol: T) -> ([T; 3], bool) {
        let (two, half) = (T::from_f64(2.0), T::from_f64(0.5));
        let (a, b, c) = (u[0], u[1], u[2]);
        let m = self.angles(theta + half * a);
        let (ch, sh) = (cos_poly(half * b), sin_poly(half * b));
        let r0 =
            -two * self.a * a - half * b * b * m.phi - b * c * m.psi - self.gamma * m.kappa + p[0];
        let r1 = -two * b * m.gphi - two * c * m.lambda - a * c * m.sigma + p[1];
        let r2 = -two * c * (self.i3 + ch) - two * b * (self.i3 * m.c + m.kappa * ch)
            + two * a * m.sigma * sh
            + p[2];
        let j00 = -two * self.a - half * b * b * m.dphi - half * b * c * m.lambda
            + half * self.gamma * m.sigma;
        let j01 = -b * m.phi - c * m.psi;
        let j02 = -b * m.psi;
        let j10 = b * m.phi + self.i3 * c * m.s - half * a * c * m.kappa;
        let j11 = -two * m.gphi;
        let j12 = -two * m.lambda - a * m.sigma;
        let j20 = b * (self.i3 * m.s + m.sigma * ch) + two * m.sigma * sh + a * m.kappa * sh;
        let j21 =
            c * sh - two * (self.i3 * m.c + m.kappa * ch) + b * m.kappa * sh + a * m.sigma * ch;
        let j22 = -two * (self.i3 + ch);
        let [d0, d1, d2] = cramer3(
            [[j00, j01, j02], [j10, j11, j12], [j20, j21, j22]],
            [r0, r1, r2],
        );
        let next = [a - d0, b - d1, c - d2];
        // A non-finite iterate stops too (the point is counted as escaped, not unconverged).
        let more = max3(d0.abs(), d1.abs(), d2.abs())
            > tol * max3(next[0].abs(), next[1].abs(), next[2].abs());
        (next, more)
    }

    /// The new velocities from the increments, Δx and Δy from the constraint at the midpoint
    /// heading φ_{k+1} + Δφ/2.
    #[inline(always)]
    fn velocities(&self, phi: T, u: [T; 3]) -> [T; 5] {
        let half = T::from_f64(0.5);
        let (a, b, c) = (u[0], u[1], u[2]);
        let heading = phi + half * b;
        let inv_h = T::ONE / self.h;
        [
            a * inv_h,
            b * inv_h,
            c * inv_h,
            -self.r * c * cos_poly(heading) * inv_h,
            -self.r * c * sin_poly(heading) * inv_h,
        ]
    }
}
