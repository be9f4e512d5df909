//! Planar double pendulum with point masses m1, m2 on massless rods l1, l2, angles θ1, θ2 from
//! the downward vertical, canonical momenta p1, p2, Δ = θ1 − θ2:
//! H = [m2 l2² p1² + (m1+m2) l1² p2² − 2 m2 l1 l2 p1 p2 cos Δ] / [2 m2 l1² l2² (m1 + m2 sin²Δ)]
//!     − (m1+m2) g l1 cos θ1 − m2 g l2 cos θ2.
//! Its functions (the CPU's in `generated/double_pendulum.rs`, the GPU's in
//! shaders/system/double_pendulum.wgsl and shaders/energy/double_pendulum.wgsl) are generated
//! from `FORMULAS` (see `generated/mod.rs`).
//!
//! Not separable and not triangular: symplectic methods are implicit (fixed-point iteration,
//! `sweeps: None`).
//!
//! Default state: θ1 = 0.5, θ2 = 1.0, p1 = p2 = 0.

use std::collections::BTreeMap;

use super::generated::{generated_hamiltonian, Formulas};
use super::{
    named_components, require_positive, ParamSpec, SystemDef, SystemDescription, SystemInfo,
};
use crate::error::Result;

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

/// The dynamics (see `generated/mod.rs`): numerator and denominator of the kinetic term
/// divided by 2 m2 l1² l2², T = (DP_A p1² + DP_B p2² − 2 DP_C p1 p2 cos Δ)/(2 (DP_M1 + DP_M2
/// sin²Δ)), with DP_A = 1/l1², DP_B = (m1+m2)/(m2 l2²), DP_C = 1/(l1 l2), DP_M1 = m1,
/// DP_M2 = m2, and V = −DP_G1 cos θ1 − DP_G2 cos θ2, DP_G1 = (m1+m2) g l1, DP_G2 = m2 g l2.
pub const FORMULAS: Formulas = Formulas {
    name: NAME,
    dof: 2,
    constants: &[
        ("DP_A", "1/(l1*l1)"),
        ("DP_B", "(m1 + m2)/(m2*l2*l2)"),
        ("DP_C", "1/(l1*l2)"),
        ("DP_M1", "m1"),
        ("DP_M2", "m2"),
        ("DP_G1", "(m1 + m2)*g*l1"),
        ("DP_G2", "m2*g*l2"),
    ],
    hamiltonian: "(DP_A*p1^2 + DP_B*p2^2 - 2*DP_C*p1*p2*cos(q1 - q2))/(2*(DP_M1 + DP_M2*sin(q1 - q2)^2)) - DP_G1*cos(q1) - DP_G2*cos(q2)",
    statistics: None,
};

#[derive(Debug, Clone)]
pub struct DoublePendulum {
    pub m1: f64,
    pub m2: f64,
    pub l1: f64,
    pub l2: f64,
    pub g: f64,
    /// The values of `FORMULAS.constants`.
    c: Vec<f64>,
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
            c: FORMULAS.constant_values(params),
        })
    }
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

    fn constants(&self) -> Vec<(&'static str, f64)> {
        FORMULAS.named_constants(&self.c)
    }

    /// θ1 = 0.5, θ2 = 1.0, p1 = p2 = 0.
    fn default_state(&self) -> Vec<f64> {
        vec![0.5, 1.0, 0.0, 0.0]
    }

    fn path(&self) -> Option<(&'static str, usize, usize)> {
        Some(("angles (θ1, θ2)", 0, 1))
    }
}

generated_hamiltonian!(DoublePendulum, double_pendulum);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::Hamiltonian;

    fn unequal() -> DoublePendulum {
        // The variational double pendulum's parameters (Torrente), with g ≠ 1 so that every
        // coefficient matters.
        let params = [
            ("m1", 55.0 / 24.0),
            ("m2", 3.0 / 8.0),
            ("l1", 1.0),
            ("l2", 8.0 / 3.0),
            ("g", 1.7),
        ];
        DoublePendulum::new(&params.map(|(k, v)| (k.to_string(), v)).into()).unwrap()
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
