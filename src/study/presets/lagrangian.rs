//! The presets of a Lagrangian given as a formula (`--lagrangian`): Fernández's pendulum
//! (J. Fernández, Análisis Numérico y Mecánica Geométrica, Instituto Balseiro), the discrete
//! Noether theorem on Kepler's problem in polar coordinates, and a spherical pendulum held on
//! its sphere by a holonomic constraint. One state each, in f64.

use std::f64::consts::FRAC_PI_2;

use super::{reference, run, run_in, Precision, Preset, PresetEnsemble, PresetRun, SINGLE_POINT};
use crate::config::RunFile;

/// A preset's Lagrangian L(q, v) and what runs it: its discretization, the symmetry whose
/// discrete momentum is followed and its holonomic constraints (`--lagrangian` and the
/// options beside it).
pub(super) struct LagrangianPreset {
    pub(super) formula: &'static str,
    pub(super) dof: usize,
    pub(super) discretization: &'static str,
    pub(super) momentum: Option<&'static str>,
    pub(super) constraints: &'static [&'static str],
}

impl Preset {
    /// The run-file keys of the preset's system: a built-in one by name, or a Hamiltonian or
    /// Lagrangian formula named `system` in the report.
    pub(super) fn system_keys(&self) -> RunFile {
        let name = Some(self.system.to_string());
        if let Some(l) = self.lagrangian {
            return RunFile {
                lagrangian: Some(l.formula.into()),
                dof: Some(l.dof),
                system_name: name,
                discretization: Some(l.discretization.into()),
                momentum: l.momentum.map(String::from),
                constraints: (!l.constraints.is_empty())
                    .then(|| l.constraints.iter().map(|c| c.to_string()).collect()),
                ..Default::default()
            };
        }
        match self.formula {
            Some(h) => RunFile {
                hamiltonian: Some(h.into()),
                dof: Some(1),
                system_name: name,
                ..Default::default()
            },
            None => RunFile {
                system: name,
                ..Default::default()
            },
        }
    }
}

/// A Lagrangian preset: one state (q, p) in f64, the tangent map where the step has one,
/// portraits at the start and the end.
#[allow(clippy::too_many_arguments)]
const fn single_state(
    name: &'static str,
    summary: &'static str,
    description: &'static str,
    system: &'static str,
    lagrangian: &'static LagrangianPreset,
    params: &'static [(&'static str, f64)],
    center: &'static [f64],
    runs: &'static [PresetRun],
    t_end: f64,
) -> Preset {
    Preset {
        name,
        summary,
        description,
        system,
        formula: None,
        lagrangian: Some(lagrangian),
        modified_hamiltonian: None,
        params,
        ensemble: PresetEnsemble {
            center: Some(center),
            ..SINGLE_POINT
        },
        precision: Some(Precision::F64),
        compensated: false,
        // A constrained step projects, and its Jacobian on the full space is singular.
        tangent: Some(lagrangian.constraints.is_empty()),
        refine_tol: None,
        runs,
        t_end,
        portraits: 2,
        stats_rows: 1000,
    }
}

/// The pendulum m l² θ̈ = −m g l sin θ as a Lagrangian; with the trapezoid rule its discrete
/// Euler–Lagrange map is Störmer–Verlet.
const PENDULUM: LagrangianPreset = LagrangianPreset {
    formula: "m*l^2*v^2/2 - m*g*l*(1 - cos(q))",
    dof: 1,
    discretization: "trapezoid",
    momentum: None,
    constraints: &[],
};

/// Kepler's problem in Cartesian coordinates: L is unchanged by rotations about the origin,
/// ξ_Q = (−q2, q1), whose discrete momentum is the angular momentum q1 p2 − q2 p1.
const KEPLER: LagrangianPreset = LagrangianPreset {
    formula: "(v1^2 + v2^2)/2 + 1/sqrt(q1^2 + q2^2)",
    dof: 2,
    discretization: "trapezoid",
    momentum: Some("-q2, q1"),
    constraints: &[],
};

/// A unit mass on the sphere |q| = l in Cartesian coordinates, z upwards: rotations about the
/// vertical, ξ_Q = (−q2, q1, 0), are a symmetry of L and of the constraint.
const SPHERICAL: LagrangianPreset = LagrangianPreset {
    formula: "(v1^2 + v2^2 + v3^2)/2 - g*(q3 + l)",
    dof: 3,
    discretization: "trapezoid",
    momentum: Some("-q2, q1, 0"),
    constraints: &["q1^2 + q2^2 + q3^2 - l^2"],
};

/// The Lagrangian presets, after Torrente's.
pub(super) const TABLE: &[Preset] = &[
    single_state(
        "lagrangian-pendulum",
        "Fernández: the pendulum θ̈ = −2 sin θ from θ = π/2 at rest, Störmer–Verlet from its Lagrangian at h = 1 and 0.02 against explicit Euler at h = 0.02, to t = 10; errors against RK4 at h = 0.001",
        "Fernández's pendulum (J. Fernández, Análisis Numérico y Mecánica Geométrica, Instituto Balseiro): θ̈ = −(g/l) sin θ with l = g/2, from θ = π/2 at rest, here as the Lagrangian L = m l² θ̇²/2 − m g l (1 − cos θ) with m = 1, g = 2, l = 1, whose trapezoid-rule discrete Euler–Lagrange map is Störmer–Verlet. The slides observe that Störmer–Verlet at h = 1 has position and velocity errors comparable to those of explicit Euler at h = 0.02, fifty times smaller, and that Euler's energy grows while Verlet's oscillates about the exact value. The slides give no end time; we run to t = 10 (about two periods, 5.24 each). Runs: the Lagrangian at h = 1 and h = 0.02, explicit Euler on the built-in pendulum (same g and l) at h = 0.02, and RK4 at h = 0.001 as the reference solution (its own error below 1e-11 up to t = 10, against RK4 at h = 0.002). The distances from the reference are taken at the times the runs share: every t = 1 for h = 1, every 0.02 otherwise.",
        "pendulum (Lagrangian)",
        &PENDULUM,
        &[("m", 1.0), ("g", 2.0), ("l", 1.0)],
        &[FRAC_PI_2, 0.0],
        &[
            run("variational", 1.0),
            run("variational", 0.02),
            run_in("pendulum", "euler", 0.02),
            reference(Some("pendulum"), "rk4", 0.001),
        ],
        10.0,
    ),
    single_state(
        "lagrangian-kepler-noether",
        "The discrete Noether theorem: Kepler's problem from its Lagrangian (trapezoid rule) at h = 0.05 and 0.025 against RK4 at h = 0.05, to t = 200; the discrete angular momentum kept to rounding while the energy error oscillates at O(h²)",
        "The discrete Noether theorem (Marsden and West, Discrete mechanics and variational integrators, §1.3; Fernández's slides): a discrete Lagrangian invariant under a symmetry keeps the discrete momentum J = D₂L_d(q_k, q_{k+1})·ξ_Q(q_{k+1}) to rounding, step after step, where its energy is only nearly kept. Kepler's problem, L = |q̇|²/2 + 1/|q|, and its trapezoid-rule discrete Lagrangian are unchanged by rotations about the origin, ξ_Q = (−q2, q1), whose discrete momentum is the angular momentum J = q1 p2 − q2 p1. From the pericentre of the orbit of eccentricity 0.6 (q = (0.4, 0), p = (0, 2), period 2π), in f64, the Lagrangian at h = 0.05 and h = 0.025 to t = 200 (about 32 periods), beside RK4 on the built-in Kepler problem at h = 0.05, which is not symplectic and keeps neither.",
        "kepler (Lagrangian)",
        &KEPLER,
        &[],
        &[0.4, 0.0, 0.0, 2.0],
        &[
            run("variational", 0.05),
            run("variational", 0.025),
            run_in("kepler", "rk4", 0.05),
        ],
        200.0,
    ),
    single_state(
        "spherical-pendulum-constrained",
        "A spherical pendulum in Cartesian coordinates held on |q| = 1 by a holonomic constraint (RATTLE from the trapezoid rule) at h = 0.1 and 0.05 to t = 200; constraint, energy and the angular momentum about the vertical",
        "A spherical pendulum as a constrained Lagrangian system (Marsden and West, Discrete mechanics and variational integrators, §3.5; Hairer, Lubich and Wanner, Geometric Numerical Integration, §VII.1): a unit mass in Cartesian coordinates, z upwards, L = |q̇|²/2 − g (q3 + l) with g = 1 (the potential from the sphere's lowest point), held on the sphere g(q) = |q|² − l² = 0 (l = 1) by a Lagrange multiplier. With the trapezoid rule the constrained discrete Euler–Lagrange equations are RATTLE: the positions land on the sphere and the momenta on its tangent plane at every step. Rotations about the vertical, ξ_Q = (−q2, q1, 0), leave L and the constraint unchanged, so the discrete angular momentum J = q1 p2 − q2 p1 is kept. From 60° off the downward vertical, q = (sin 60°, 0, −cos 60°), with the horizontal momentum p = (0, 1, 0) (energy 1, J = 0.866), in f64, at h = 0.1 and h = 0.05 to t = 200.",
        "spherical pendulum (Lagrangian)",
        &SPHERICAL,
        &[("g", 1.0), ("l", 1.0)],
        &[0.8660254037844386, 0.0, -0.5, 0.0, 1.0, 0.0],
        &[run("variational", 0.1), run("variational", 0.05)],
        200.0,
    ),
];
