//! The vertical rolling disk (Torrente §2.1; Bloch 2007 §1.4.1), a nonholonomic variational
//! system: q = (x, y, φ, θ) — contact point, heading, rolling angle — with mass m, radius a,
//! moment of inertia I about the axle and J about the vertical. L = ½m(ẋ² + ẏ²) + ½Iθ̇² + ½Jφ̇²,
//! constraints ẋ = aθ̇ cos φ, ẏ = aθ̇ sin φ. Mirror: shaders/system/vertical_disk.wgsl.
//!
//! State (q_k, v_k), v_k = (q_{k+1} − q_k)/h. Discrete Lagrangian (25) L_d = h·L(v_k), discrete
//! constraint (24) at the midpoint heading φ_{k+½} = φ_k + h v^φ_k/2, discrete
//! Lagrange–d'Alembert equations (26) with the distribution at the shared configuration q_{k+1}:
//! - v^φ_{k+1} = v^φ_k (26b);
//! - I(v^θ_{k+1} − v^θ_k) + m a[(v^x_{k+1} − v^x_k) cos φ_{k+1} + (v^y_{k+1} − v^y_k) sin φ_{k+1}] = 0
//!   (26a) with v^{x,y}_{k+1} = a v^θ_{k+1}(cos, sin) φ_{k+3/2} (26d) gives
//!   v^θ_{k+1} = [I v^θ_k + m a (v^x_k cos φ_{k+1} + v^y_k sin φ_{k+1})] / (I + m a² cos(h v^φ/2)),
//!   which for I = ½ m a² is the thesis's (27). Explicit; on the constraint it returns v^θ_k
//!   exactly (up to rounding), so θ̇ and φ̇ are constants of the discrete motion, as of the
//!   continuous one, and the contact point steps along chords of length a h v^θ turning by
//!   h v^φ: the vertices of a regular polygon on a circle of radius a h v^θ / (2 sin(h v^φ/2))
//!   = (a θ̇/φ̇)(1 + O(h²)).
//!
//! An initial velocity off the discrete constraint (the thesis's figures 12 and 14 start so) is
//! projected onto it before the run (`project_start`), unless the run asks for the raw start:
//! then the first step puts the next one on it, the energy jumps once, and
//! `constraint_err_max` shows it at t = 0 only. Energy: E = ½m(v^x² + v^y²) + ½I v^θ² + ½J v^φ²,
//! exactly the continuous one.
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
use crate::float::{compensated_sum, cos_poly, sin_poly, Real};

pub const NAME: &str = "vertical-disk";
pub const INFO: SystemInfo = SystemInfo {
    name: NAME,
    summary: "vertical rolling disk (Torrente §2.1), variational, nonholonomic (d = 4): q = (x, y, φ, θ) contact point, heading, rolling angle; state (q, v); explicit discrete Lagrange–d'Alembert map (Torrente eq. 26–27)",
    params: &[
        ParamSpec { name: "m", default: 1.0, meaning: "mass" },
        ParamSpec { name: "a", default: 1.0, meaning: "radius" },
        ParamSpec { name: "inertia", default: 0.5, meaning: "moment of inertia I about the axle (thin disk: ½ m a²)" },
        ParamSpec { name: "j", default: 0.25, meaning: "moment of inertia J about the vertical diameter (thin disk: ¼ m a²)" },
    ],
    separable: false,
    sweeps: Some(1),
    indexed: &[],
    variational: true,
};

#[derive(Debug, Clone)]
pub struct VerticalDisk {
    pub m: f64,
    pub a: f64,
    pub inertia: f64,
    pub j: f64,
}

impl SystemDef for VerticalDisk {
    const INFO: SystemInfo = INFO;
    const WGSL: &'static str = include_str!("../../shaders/system/vertical_disk.wgsl");
    const ENERGY_WGSL: &'static str = include_str!("../../shaders/energy/vertical_disk.wgsl");

    fn new(params: &BTreeMap<String, f64>) -> Result<Self> {
        require_positive(NAME, params, &["m", "a", "inertia", "j"])?;
        Ok(VerticalDisk {
            m: params["m"],
            a: params["a"],
            inertia: params["inertia"],
            j: params["j"],
        })
    }
}

impl SystemDescription for VerticalDisk {
    fn dof(&self) -> usize {
        4
    }

    fn component_names(&self) -> Vec<String> {
        named_components(&["x", "y", "φ", "θ"], "v_")
    }

    fn params(&self) -> BTreeMap<String, f64> {
        BTreeMap::from([
            ("m".into(), self.m),
            ("a".into(), self.a),
            ("inertia".into(), self.inertia),
            ("j".into(), self.j),
        ])
    }

    /// DISK_A = a, DISK_I = I, DISK_MA = m a, DISK_MA2 = m a², DISK_M, DISK_J (energy).
    fn constants(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("DISK_A", self.a),
            ("DISK_I", self.inertia),
            ("DISK_MA", self.m * self.a),
            ("DISK_MA2", self.m * self.a * self.a),
            ("DISK_M", self.m),
            ("DISK_J", self.j),
        ]
    }

    /// The thesis's figure 14: q₀ = (−2, 3, 2, 0), q₁ = (−2, 3.1, 2.01, 0.1) at h = 0.01, as (q₀, v₀).
    fn default_state(&self) -> Vec<f64> {
        vec![-2.0, 3.0, 2.0, 0.0, 0.0, 10.0, 1.0, 10.0]
    }

    fn observable(&self) -> Option<(&'static str, usize)> {
        Some(("θ", 3))
    }

    fn path(&self) -> Option<(&'static str, usize, usize)> {
        Some(("contact point (x, y)", 0, 1))
    }
}

impl DiscreteMap for VerticalDisk {
    /// E = ½m(v^x² + v^y²) + ½I v^θ² + ½J v^φ².
    fn energy(&self, _h: f64, _q: &[f64], v: &[f64]) -> f64 {
        0.5 * self.m * (v[0] * v[0] + v[1] * v[1])
            + 0.5 * self.inertia * v[3] * v[3]
            + 0.5 * self.j * v[2] * v[2]
    }

    fn constraints(&self) -> Constraints {
        Constraints::Nonholonomic
    }

    /// max |v^{x,y} − a v^θ (cos, sin) φ_{k+½}|: zero up to rounding once on the discrete constraint.
    fn constraint_error(&self, h: f64, q: &[f64], v: &[f64]) -> Option<f64> {
        let mid = q[2] + 0.5 * h * v[2];
        let ex = v[0] - self.a * v[3] * mid.cos();
        let ey = v[1] - self.a * v[3] * mid.sin();
        Some(ex.abs().max(ey.abs()))
    }

    /// The discrete Lagrange–d'Alembert equations (26) at q₀ itself, with the given velocity
    /// v as the step arriving there: the velocity v' leaving q₀ on the discrete constraint,
    /// v'^{x,y} = a v'^θ (cos, sin) φ_{½} with φ_{½} = φ₀ + h v'^φ/2, whose momentum G v'
    /// (G = diag(m, m, J, I), L_d = h·L(v)) matches G v along the distribution at q₀,
    /// X_φ = ∂φ and X_θ = ∂θ + a cos φ₀ ∂x + a sin φ₀ ∂y: an ideal constraint's impulse, which
    /// removes only momentum the constraint forbids. Along X_φ: v'^φ = v^φ. Along X_θ:
    /// I(v'^θ − v^θ) + m a[(v'^x − v^x) cos φ₀ + (v'^y − v^y) sin φ₀] = 0, and with
    /// (cos, sin) φ_{½} · (cos, sin) φ₀ = cos(h v^φ/2):
    /// v'^θ = [I v^θ + m a (v^x cos φ₀ + v^y sin φ₀)] / (I + m a² cos(h v^φ/2)),
    /// the map's own formula with φ₀ for φ_{k+1}. The first step then changes nothing: from a
    /// state on the discrete constraint the map returns v^θ (module doc). For φ̇ = 0 this is
    /// exactly the velocity the raw start's first step computes.
    fn project_start(&self, h: f64, q: &[f64], v: &mut [f64]) {
        let (phi, vphi) = (q[2], v[2]);
        let turn = 0.5 * h * vphi;
        let ma = self.m * self.a;
        let vth = (self.inertia * v[3] + ma * (v[0] * phi.cos() + v[1] * phi.sin()))
            / (self.inertia + ma * self.a * turn.cos());
        let mid = phi + turn;
        v[0] = self.a * vth * mid.cos();
        v[1] = self.a * vth * mid.sin();
        v[3] = vth;
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
        ev: &mut [T],
        _newton: Newton,
        _unconverged: &mut [u32],
    ) {
        let n = q.len() / 4;
        let c = |x: f64| T::from_f64(x);
        let (a, inertia, ma, ma2) = (
            c(self.a),
            c(self.inertia),
            c(self.m * self.a),
            c(self.m * self.a * self.a),
        );
        let (half, two) = (c(0.5), c(2.0));
        // Column loops over the block's points (vectorisable): the map at the drift (`next`,
        // summed by the method), which then becomes q.
        let (vx, rest) = v.split_at_mut(n);
        let (vy, rest) = rest.split_at_mut(n);
        let (vphis, vths) = rest.split_at_mut(n);
        let mut evths = (!ev.is_empty()).then(|| &mut ev[3 * n..4 * n]);
        for i in 0..n {
            let phi = next[2 * n + i];
            let turn = half * h * vphis[i];
            // v^θ_{k+1} − v^θ_k = m a [P − a v^θ cos(turn)] / (I + m a² cos(turn)), P the old
            // velocity along the new heading (a v^θ cos(turn) on the constraint). In f32 the
            // ratio form of the map multiplied v^θ every step by the same rounded
            // 1 / (I + m a² cos(turn)) (v^φ is constant), a bias that drifted the energy by
            // 3·10⁻³ in 3·10⁴ steps; as an increment, with 1 − cos(turn) = 2 sin²(turn/2) to
            // full relative precision, the rounding of that factor scales only the increment,
            // which is summed compensated when the run is.
            let along = vx[i] * cos_poly(phi) + vy[i] * sin_poly(phi);
            let sh = sin_poly(half * turn);
            let dvth = ma * ((along - a * vths[i]) + a * (two * sh * sh) * vths[i])
                / (inertia + ma2 * cos_poly(turn));
            let vth = match evths {
                Some(ref mut e) => {
                    let (x, err) = compensated_sum(vths[i], dvth, e[i]);
                    e[i] = err;
                    x
                }
                None => vths[i] + dvth,
            };
            let mid = phi + turn;
            vx[i] = a * vth * cos_poly(mid);
            vy[i] = a * vth * sin_poly(mid);
            vths[i] = vth;
        }
        q.copy_from_slice(next);
    }
}
