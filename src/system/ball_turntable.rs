//! A homogeneous ball (mass m, radius a, J = ⅖ m a²) rolling without slipping on a plane that
//! turns at Ω about the vertical γ (Torrente §3, eq. 29–39, Appendix B), as a nonholonomic
//! variational system, in the plane's rotating frame. Mirror: shaders/system/ball_turntable.wgsl.
//! The derivation, its numerical checks and where it departs from the printed seed:
//! docs/derivations/ball-turntable.md. In short:
//!
//! - the rolling constraint involves the *spatial* angular velocity, so the step's rotation is
//!   the spatial increment F_k = R_{k+1} R_kᵗ (the thesis's body increment R_kᵗ R_{k+1} gives an
//!   unstable continuous model: no circles); with R₁ = I the thesis's F₁ is the same matrix;
//! - the multiplier term of (36b) has the opposite sign (so (38) and (39) change: 4 + 10A
//!   becomes 4 − 10A, and both 5(…) terms flip), found by differentiating the discrete action
//!   along constraint-compatible variations;
//! - F_k = cay(ξ̂_k); each step solves the corrected (38), multiplied by (1 + |ξ|²) into a cubic
//!   polynomial in ξ, by Newton iteration with its exact 3×3 Jacobian (Cramer's rule),
//!   starting from the previous ξ (1–4 iterations);
//! - the discrete constraint: `thesis_constraint = 1` is the thesis's (34),
//!   X_{k+1} − X_k = a[(F_k − I)γ]_{xy}, first order when the ball spins about the vertical;
//!   the default 0 is its symmetric form X_{k+1} − X_k = (a/2)[(F_k − F_kᵗ)γ]_{xy}, second order.
//!
//! State (d = 3): q = (x, y, z) the centre, z = a its height (constant, carried), and
//! v = 2ξ_k/h, the step's angular velocity in the Cayley chart (F_k = cay(h v̂/2) ≈ exp(h v̂)).
//! Energy (conserved by the continuous motion; not the fixed-frame kinetic energy the thesis
//! plots): E = ½m|ΔX/h|² + ½J|w|² − ½mΩ²|X_k + ½ΔX|², with ΔX the step's centre displacement
//! and w = (F − Fᵗ)^∨/(2h) = s ξ/h, s = 2/(1 + |ξ|²). Constraint error: |ΔX/h − a w × γ|, zero
//! for the symmetric constraint (its discrete velocities satisfy the continuous constraint
//! exactly), O(h) for the thesis's. Known fact (not in the thesis): in the fixed frame the centre
//! moves on a circle with angular frequency Ω J/(J + m a²) = 2Ω/7 (tests/variational.rs).
//!
//! Written by hand, not generated from a formula (`generated/mod.rs`): it is a discrete map
//! with nonholonomic constraints (`DiscreteMap`), not a Hamiltonian, and the generator writes a
//! Hamiltonian's gradients and their directional derivatives only.

use std::collections::BTreeMap;

use super::discrete::{Constraints, DiscreteMap};
use super::{require_positive, Newton, ParamSpec, SystemDef, SystemDescription, SystemInfo};
use crate::error::Result;
use crate::float::{cramer3, max3, Real};

pub const NAME: &str = "ball-turntable";
pub const INFO: SystemInfo = SystemInfo {
    name: NAME,
    summary: "homogeneous ball rolling on a plane turning at Ω (Torrente §3), variational, nonholonomic (d = 3): q = centre (x, y, height a) in the rotating frame, v = 2ξ/h (step rotation F = cay(ξ̂)); Newton solve of Torrente's eq. 38, corrected, per step",
    params: &[
        ParamSpec { name: "m", default: 1.0, meaning: "mass" },
        ParamSpec { name: "a", default: 1.0, meaning: "radius" },
        ParamSpec { name: "omega", default: 1.0, meaning: "the plane's angular velocity Ω (any sign; 0: a fixed plane)" },
        ParamSpec { name: "thesis_constraint", default: 0.0, meaning: "1: the thesis's discrete constraint (34), order 1 with vertical spin; 0: its symmetric form, order 2" },
    ],
    separable: false,
    sweeps: None,
    indexed: &[],
    variational: true,
};

#[derive(Debug, Clone)]
pub struct BallTurntable {
    pub m: f64,
    pub a: f64,
    pub omega: f64,
    /// 1.0: the thesis's constraint (34); 0.0: the symmetric one.
    pub t: f64,
}

impl SystemDef for BallTurntable {
    const INFO: SystemInfo = INFO;
    const WGSL: &'static str = include_str!("../../shaders/system/ball_turntable.wgsl");
    const ENERGY_WGSL: &'static str = include_str!("../../shaders/energy/ball_turntable.wgsl");

    fn new(params: &BTreeMap<String, f64>) -> Result<Self> {
        require_positive(NAME, params, &["m", "a"])?;
        let t = params["thesis_constraint"];
        if t != 0.0 && t != 1.0 {
            return Err(super::bad_param(
                "thesis_constraint",
                t,
                ": give 1 (the thesis's discrete constraint) or 0 (its symmetric form, the default)",
            ));
        }
        Ok(BallTurntable {
            m: params["m"],
            a: params["a"],
            omega: params["omega"],
            t,
        })
    }
}

impl BallTurntable {
    /// ξ, s = 2/(1 + |ξ|²) and the centre's displacement ΔX of a state's step, in f64.
    fn step_geometry(&self, h: f64, v: &[f64]) -> ([f64; 3], f64, [f64; 2]) {
        let xi = [0.5 * h * v[0], 0.5 * h * v[1], 0.5 * h * v[2]];
        let s = 2.0 / (1.0 + xi[0] * xi[0] + xi[1] * xi[1] + xi[2] * xi[2]);
        let dx = [
            self.a * s * (xi[1] + self.t * xi[2] * xi[0]),
            self.a * s * (-xi[0] + self.t * xi[2] * xi[1]),
        ];
        (xi, s, dx)
    }
}

impl SystemDescription for BallTurntable {
    fn dof(&self) -> usize {
        3
    }

    /// The centre (its height z = a carried), then the scaled step rotation v = 2ξ/h.
    fn component_names(&self) -> Vec<String> {
        ["x", "y", "z", "v1", "v2", "v3"].map(String::from).to_vec()
    }

    fn params(&self) -> BTreeMap<String, f64> {
        BTreeMap::from([
            ("m".into(), self.m),
            ("a".into(), self.a),
            ("omega".into(), self.omega),
            ("thesis_constraint".into(), self.t),
        ])
    }

    /// BALL_A = a, BALL_KAPPA = 2 m a²/J = 5, BALL_OMEGA = Ω, BALL_T (the constraint's form),
    /// BALL_M and BALL_J (energy).
    fn constants(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("BALL_A", self.a),
            ("BALL_KAPPA", 5.0),
            ("BALL_OMEGA", self.omega),
            ("BALL_T", self.t),
            ("BALL_M", self.m),
            ("BALL_J", 0.4 * self.m * self.a * self.a),
        ]
    }

    /// The thesis's figure 21: X₁ = (2, 0) at Ω = 1.5, h = 0.001, F₁ the rotation about y by
    /// 0.002 (the thesis's convention: ξ = (0, −tan 0.001, 0)), so v = 2ξ/h.
    fn default_state(&self) -> Vec<f64> {
        vec![2.0, 0.0, 1.0, 0.0, -2.000000666666933, 0.0]
    }

    fn observable(&self) -> Option<(&'static str, usize)> {
        Some(("x", 0))
    }

    fn path(&self) -> Option<(&'static str, usize, usize)> {
        Some(("centre (x, y), rotating frame", 0, 1))
    }
}

impl DiscreteMap for BallTurntable {
    /// E = ½m|ΔX/h|² + ½J|sξ/h|² − ½mΩ²|X + ½ΔX|² (J = ⅖ m a²).
    fn energy(&self, h: f64, q: &[f64], v: &[f64]) -> f64 {
        let (xi, s, dx) = self.step_geometry(h, v);
        let h2 = h * h;
        let j = 0.4 * self.m * self.a * self.a;
        let w2 = s * s * (xi[0] * xi[0] + xi[1] * xi[1] + xi[2] * xi[2]) / h2;
        let (mx, my) = (q[0] + 0.5 * dx[0], q[1] + 0.5 * dx[1]);
        0.5 * self.m * (dx[0] * dx[0] + dx[1] * dx[1]) / h2 + 0.5 * j * w2
            - 0.5 * self.m * self.omega * self.omega * (mx * mx + my * my)
    }

    fn constraints(&self) -> Constraints {
        Constraints::Nonholonomic
    }

    /// The centre moves by the step's rotation (y = x + a s (…)), not by h v: `next` is not
    /// its step.
    fn drifts(&self) -> bool {
        false
    }

    /// The step's coefficients, and the cube of the largest: Cramer's rule multiplies three
    /// entries of the Newton matrix (each about 2·qc), so that product must be finite too.
    fn step_constants(&self, h: f64) -> Vec<(&'static str, f64)> {
        let k = BallStep::<f64>::new(self, h);
        let largest = [k.hw, k.ka, k.qc, k.c, k.c3, k.cx]
            .into_iter()
            .fold(0.0, |m: f64, x| m.max(x.abs()));
        vec![
            ("h·omega", k.hw),
            ("5((h·omega)²/4 − 1)", k.ka),
            ("5(h·omega)²/a", k.cx),
            (
                "the Newton matrix's determinant, about (2·5(h·omega)²/4)³",
                (2.0 * largest).powi(3),
            ),
        ]
    }

    /// |ΔX/h − a w × γ| with w = sξ/h: a s t |ξ₃| |(ξ₁, ξ₂)|/h.
    fn constraint_error(&self, h: f64, _q: &[f64], v: &[f64]) -> Option<f64> {
        let (xi, s, _) = self.step_geometry(h, v);
        Some(self.a * s * self.t * xi[2].abs() * xi[0].hypot(xi[1]) / h)
    }

    fn discrete_step<T: Real>(
        &self,
        h: T,
        q: &mut [T],
        _next: &[T],
        v: &mut [T],
        _ev: &mut [T],
        solver: Newton,
        unconverged: &mut [u32],
    ) {
        let n = q.len() / 3;
        let k = BallStep::new(self, h);
        let tol = T::from_f64(solver.tol);
        // Column loops over the block (vectorisable): the known side per point, then Newton's
        // sweeps (`Newton::solve`).
        let mut betas = vec![T::ZERO; 3 * n];
        let (b0, rest) = betas.split_at_mut(n);
        let (b1, b2) = rest.split_at_mut(n);
        let (xs, rest) = q.split_at_mut(n);
        let ys = &mut rest[..n];
        let (z0, rest) = v.split_at_mut(n);
        let (z1, z2) = rest.split_at_mut(n);
        for i in 0..n {
            let (y, e, b) = k.known([xs[i], ys[i]], [z0[i], z1[i], z2[i]]);
            (xs[i], ys[i]) = (y[0], y[1]);
            (z0[i], z1[i], z2[i]) = (e[0], e[1], e[2]);
            (b0[i], b1[i], b2[i]) = (b[0], b[1], b[2]);
        }
        solver.solve([z0, z1, z2], unconverged, |i, z| {
            k.newton(z, [b0[i], b1[i], b2[i]], tol)
        });
        let to_v = T::from_f64(2.0) / h;
        for z in v.iter_mut() {
            *z = to_v * *z;
        }
    }
}

/// The step's coefficients at precision T (`ball_coefficients` in the WGSL).
struct BallStep<T> {
    h: T,
    a: T,
    t: T,
    kappa: T,
    hw: T,
    ka: T,
    qc: T,
    c: T,
    c3: T,
    cx: T,
}

impl<T: Real> BallStep<T> {
    fn new(b: &BallTurntable, h: T) -> Self {
        let f = T::from_f64;
        let (one, two) = (T::ONE, f(2.0));
        let (a, t, kappa) = (f(b.a), f(b.t), f(5.0));
        let hw = h * f(b.omega);
        let ka = kappa * (f(0.25) * hw * hw - one);
        BallStep {
            h,
            a,
            t,
            kappa,
            hw,
            ka,
            qc: two - ka,
            c: (one + kappa) * hw,
            c3: (one + t * kappa) * hw,
            cx: kappa / a * hw * hw,
        }
    }

    /// The known side of a step from (X_k, v_k): X_{k+1}, the starting iterate ξ_k = h v_k/2
    /// and β.
    #[inline(always)]
    fn known(&self, x: [T; 2], v: [T; 3]) -> ([T; 2], [T; 3], [T; 3]) {
        let (one, two, half) = (T::ONE, T::from_f64(2.0), T::from_f64(0.5));
        let (t, ka, hw) = (self.t, self.ka, self.hw);
        let e = [
            half * self.h * v[0],
            half * self.h * v[1],
            half * self.h * v[2],
        ];
        let s = two / (one + e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
        let y1 = x[0] + self.a * s * (e[1] + t * e[2] * e[0]);
        let y2 = x[1] + self.a * s * (-e[0] + t * e[2] * e[1]);
        let tk = hw * (t * self.kappa - one);
        let b1 = s * (self.qc * e[0] + self.c * e[1] + t * ka * e[2] * e[1] + tk * e[2] * e[0])
            - self.cx * y2;
        let b2 = s * (self.qc * e[1] - self.c * e[0] - t * ka * e[2] * e[0] + tk * e[2] * e[1])
            + self.cx * y1;
        let b3 = s * (two * e[2] + hw * (one - e[2] * e[2]));
        ([y1, y2], e, [b1, b2, b3])
    }

    /// One Newton iteration on G(z) = 0 from z: the next iterate, and whether to go on.
    #[inline(always)]
    fn newton(&self, z: [T; 3], b: [T; 3], tol: T) -> ([T; 3], bool) {
        let (one, two) = (T::ONE, T::from_f64(2.0));
        let (t, ka, hw) = (self.t, self.ka, self.hw);
        let (b1, b2, b3) = (b[0], b[1], b[2]);
        let p = self.c - t * ka * z[2];
        let n2 = one + z[0] * z[0] + z[1] * z[1] + z[2] * z[2];
        let g1 = two * (self.qc * z[0] - p * z[1] - self.c3 * z[2] * z[0]) - n2 * b1;
        let g2 = two * (self.qc * z[1] + p * z[0] - self.c3 * z[2] * z[1]) - n2 * b2;
        let g3 = two * (two * z[2] + hw * (one - z[2] * z[2])) - n2 * b3;
        let d = self.qc - self.c3 * z[2];
        let j11 = two * d - two * b1 * z[0];
        let j12 = -two * p - two * b1 * z[1];
        let j13 = two * (t * ka * z[1] - self.c3 * z[0]) - two * b1 * z[2];
        let j21 = two * p - two * b2 * z[0];
        let j22 = two * d - two * b2 * z[1];
        let j23 = two * (-t * ka * z[0] - self.c3 * z[1]) - two * b2 * z[2];
        let j31 = -two * b3 * z[0];
        let j32 = -two * b3 * z[1];
        let j33 = two * (two - two * hw * z[2]) - two * b3 * z[2];
        let [d1, d2, d3] = cramer3(
            [[j11, j12, j13], [j21, j22, j23], [j31, j32, j33]],
            [g1, g2, g3],
        );
        let next = [z[0] - d1, z[1] - d2, z[2] - d3];
        let step = max3(d1.abs(), d2.abs(), d3.abs());
        let size = max3(next[0].abs(), next[1].abs(), next[2].abs());
        // A non-finite iterate stops too (the point is counted as escaped, not unconverged).
        (next, step > tol * size)
    }
}
