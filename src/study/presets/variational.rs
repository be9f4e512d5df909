//! The experiments of Torrente's practicum on variational and nonholonomic integrators (J.
//! Torrente Teruel, Integradores simplécticos en sistemas mecánicos simples, Universidad Rey
//! Juan Carlos, 2022) as presets: one state each, in f64, the practicum's step and initial
//! condition, 2¹² steps unless it ran longer. The practicum states initial conditions as two positions (q₀, q₁) one step apart (or,
//! for the ball, X₁ and the first rotation F₁); each centre below is that state as
//! (q₀, v₀ = (q₁ − q₀)/h) (the ball: v = 2ξ/h with F₁ = cay(ξ̂)).

use std::f64::consts::FRAC_PI_2;

use super::{run, run_in, Precision, Preset, PresetEnsemble, PresetRun, SINGLE_POINT};

/// One state, the given one or (None) the system's default, in f64, advanced `steps` steps
/// (`runs`: the variational method at the practicum's h, and any comparison run).
#[allow(clippy::too_many_arguments)]
const fn single_state(
    name: &'static str,
    summary: &'static str,
    description: &'static str,
    system: &'static str,
    params: &'static [(&'static str, f64)],
    center: Option<&'static [f64]>,
    runs: &'static [PresetRun],
    steps: u32,
) -> Preset {
    let ensemble = match center {
        Some(c) => PresetEnsemble {
            center: Some(c),
            ..SINGLE_POINT
        },
        None => SINGLE_POINT,
    };
    Preset {
        name,
        summary,
        description,
        system,
        formula: None,
        lagrangian: None,
        modified_hamiltonian: None,
        params,
        ensemble,
        precision: Some(Precision::F64),
        compensated: false,
        tangent: Some(false),
        refine_tol: None,
        runs,
        t_end: runs[0].dt * steps as f64,
        portraits: 2,
        stats_rows: 1000,
    }
}

/// The variational method at h.
const fn var(h: f64) -> PresetRun {
    run("variational", h)
}

/// Torrente's presets, in the practicum's order.
pub(super) const TABLE: &[Preset] = &[
    single_state(
        "pendulum-variational",
        "Torrente §1.1, figure 1: the pendulum's variational integrator against explicit Euler, q₀ = 0.2, v₀ = 5e-4, h = 0.001, 4096 steps",
        "Torrente's simple pendulum (L = ½q̇² + cos q), its figure 1: q₀ = 0.2, v₀ = 5e-4, h = 0.001, 2¹² steps of the variational integrator (the discrete Euler–Lagrange map of the midpoint-rule L_d, which is Störmer–Verlet: tests/variational.rs) and of explicit Euler on `pendulum` from the same (q, p). The thesis reports nearly identical trajectories and an energy that grows under Euler; the variational integrator's energy E_d = ½v_k² − ½(cos q_k + cos q_{k+1}) stays bounded.",
        "pendulum-variational",
        &[],
        Some(&[0.2, 5e-4]),
        &[var(0.001), run_in("pendulum", "euler", 0.001)],
        4096,
    ),
    single_state(
        "pendulum-variational-coarse",
        "Torrente §1.1, figure 2: as figure 1 at h = 0.02 from q₁ = 0.1, v₁ = 1e-3, 4096 steps: Euler's energy growth is visible in the trajectory",
        "Torrente's simple pendulum, its figure 2: q₁ = 0.1, v₁ = 1e-3, h = 0.02, 2¹² steps of the variational integrator and of explicit Euler on `pendulum`. The thesis reports Euler's energy growth, visible in the trajectory at this step, while the variational integrator keeps the energy bounded.",
        "pendulum-variational",
        &[],
        Some(&[0.1, 1e-3]),
        &[var(0.02), run_in("pendulum", "euler", 0.02)],
        4096,
    ),
    single_state(
        "double-pendulum-variational-spin",
        "Torrente §1.2, figure 4: the double pendulum (m1 = 55/24, m2 = 3/8, l1 = 1, l2 = 8/3, g = 1) from q₀ = (0.1, 0.1), q₁ = (0.12, 0.12) at h = 0.008: it only turns over; 4096 steps",
        "Torrente's double pendulum (point masses m1 = 55/24, m2 = 3/8 on rods l1 = 1, l2 = 8/3, g = 1), its figure 4: q₀ = (0.1, 0.1), q₁ = (0.12, 0.12), h = 0.008, 2¹² steps of the discrete Euler–Lagrange map of L_d = h[T(q_k, v_k) − ½V(q_k) − ½V(q_{k+1})] (order 1; the bilinear system for the new velocity by Newton iteration from the old one). The initial push is so large that the pendulum only turns over. The thesis reports about 7 digits of energy; we measure 1.0e-2 relative (bounded): an order-1 scheme at h = 0.008 cannot keep 7 digits.",
        "double-pendulum-variational",
        &[],
        Some(&[0.1, 0.1, 2.5, 2.5]),
        &[var(0.008)],
        4096,
    ),
    single_state(
        "double-pendulum-variational",
        "Torrente §1.2, figure 5: the double pendulum from q₀ = (0.1, 0.1), q₁ = (0.108, 0.108) at h = 0.01, 4096 steps: chaotic motion",
        "Torrente's double pendulum, its figure 5: q₀ = (0.1, 0.1), q₁ = (0.108, 0.108), h = 0.01, 2¹² steps; the thesis reports the usual chaotic motion, θ1 oscillating with a smaller and steadier amplitude than θ2, and about 7 digits of energy. This scheme is of order 1 (measured in tests/variational.rs); its energy error at h = 0.01 is 6.2e-3 relative, bounded.",
        "double-pendulum-variational",
        &[],
        None,
        &[var(0.01)],
        4096,
    ),
    single_state(
        "elastic-pendulum-variational",
        "Torrente §1.3, figures 7–8: the elastic pendulum in (z, φ), ω_z = ω_φ = 1, q₀ = (1.011, 0.01), q₁ = (1.01, 0.0101), h = 0.002, 4096 steps of the variational integrator",
        "Torrente's elastic pendulum in (z, φ) with ω_z = ω_φ = 1 (σ = 1), its figures 7–8: q₀ = (1.011, 0.01), q₁ = (1.01, 0.0101), h = 0.002, 2¹² steps of the explicit discrete Euler–Lagrange map of L_d = h[T(q_k, v_k) − ½V(q_k) − ½V(q_{k+1})] (order 1, symplectic). The thesis reports oscillation of every variable and a bounded energy. The energy column is T(q_k, v_k) + ½(V(q_k) + V(q_{k+1})).",
        "elastic-pendulum-zphi",
        &[],
        None,
        &[var(0.002)],
        4096,
    ),
    single_state(
        "elastic-pendulum-variational-long",
        "Torrente §1.3, figures 9–10: the elastic pendulum from q₀ = (0.011, −0.23), q₁ = (0.011, −0.225) at h = 0.0035, 16 384 steps",
        "Torrente's elastic pendulum in (z, φ) (ω_z = ω_φ = 1), its figures 9–10: q₀ = (0.011, −0.23), q₁ = (0.011, −0.225), h = 0.0035, run longer than the other experiments (the thesis does not say how long; we take 2¹⁴ steps, t = 57.3). The thesis reports a bounded energy.",
        "elastic-pendulum-zphi",
        &[],
        Some(&[0.011, -0.23, 0.0, 1.4285714285714286]),
        &[var(0.0035)],
        16_384,
    ),
    single_state(
        "disk-vertical-line",
        "Torrente §2.1, figure 12: the vertical rolling disk pushed along the plane and in θ, q₁ = (10.01, −2, 2, 0), q₂ = (10.04, −2.02, 2, 0.1) (our reading), h = 0.01: a straight line, φ and E constant",
        "Torrente's vertical rolling disk (m = a = 1, I = ½, J = ¼; q = (x, y, φ, θ)), its figure 12: an initial push of the contact point and of θ. The thesis prints q₁ = (10.01, −2, 2, 0) and q₂ as \"(10.04 − 2.02.00.1)\"; we read it as (10.04, −2.02, 2, 0.1), the reading in which φ stays constant as the thesis says it does. h = 0.01, 2¹² steps. The thesis reports φ and the energy constant: the disk rolls on a straight line. The initial velocity is off the discrete constraint; it is put on it before the run (the energy from 31.5 to 1.245, the velocity the first step would give), and the energy is then constant to rounding. With --raw-start the first step projects it instead, and max_rel_dE (0.96) is that one change.",
        "vertical-disk",
        &[],
        Some(&[10.01, -2.0, 2.0, 0.0, 3.0, -2.0, 0.0, 10.0]),
        &[var(0.01)],
        4096,
    ),
    single_state(
        "disk-vertical-spin",
        "Torrente §2.1, figure 13: the vertical disk given only a turn, q₁ = (1, −2, 2, 0), q₂ = (1, −2, 2.01, 0), h = 0.01: it spins in place at constant φ̇",
        "Torrente's vertical rolling disk, its figure 13: only φ is pushed (q₁ = (1, −2, 2, 0), q₂ = (1, −2, 2.01, 0), h = 0.01, 2¹² steps). The thesis reports a spin at constant speed about the vertical, the contact point at rest. Exactly so here: φ̇ = 1, θ̇ = 0, x and y fixed, E = J/2 constant.",
        "vertical-disk",
        &[],
        Some(&[1.0, -2.0, 2.0, 0.0, 0.0, 0.0, 1.0, 0.0]),
        &[var(0.01)],
        4096,
    ),
    single_state(
        "disk-vertical",
        "Torrente §2.1, figure 14: the vertical rolling disk from q₁ = (−2, 3, 2, 0), q₂ = (−2, 3.1, 2.01, 0.1) at h = 0.01, 4096 steps; θ̇, φ̇ and the energy constant, the contact point on a circle",
        "Torrente's vertical rolling disk (m = a = 1, I = ½, J = ¼; q = (x, y, φ, θ)), its figure 14: two positions one step apart, q₁ = (−2, 3, 2, 0) and q₂ = (−2, 3.1, 2.01, 0.1), h = 0.01, 2¹² steps of the explicit discrete Lagrange–d'Alembert map (Torrente eq. 26–27), stored as (q₁, v₁ = (q₂ − q₁)/h). The thesis reports the energy constant up to machine precision and a periodic, circular path of the contact point. Exact facts of the discrete motion (tests/variational.rs): θ̇ and φ̇ constant, the contact point on a circle of radius a h θ̇ /(2 sin(h φ̇/2)) = a θ̇/φ̇ (1 + O(h²)). The thesis's q₂ is off the discrete constraint: the initial velocity is put on it before the run (the energy from 75.125 to 66.330), and every row is then constant to rounding. With --raw-start the first step projects it instead (to 65.935) and max_rel_dE (0.122) is that one change.",
        "vertical-disk",
        &[],
        None,
        &[var(0.01)],
        4096,
    ),
    single_state(
        "euler-disk-upright",
        "Torrente §2.2, figure 16: Euler's disk upright, turning about the vertical, q₁ = (π/2, 0, 0, 0, 0), q₂ = (π/2, h, 0, 0, 0), h = 0.01, 4096 steps",
        "Torrente's Euler disk (M = r = I₁ = I₂ = 1, I₃ = 2.5, g = 9.8, e = 0), its figure 16: upright (θ = π/2) and turning about the vertical only, q₁ = (π/2, 0, 0, 0, 0), q₂ = (π/2, h, 0, 0, 0), h = 0.01, 2¹² steps: the vertical disk of §2.1 spinning in place. The thesis reports the energy conserved up to machine precision. Here θ stays exactly at π/2 and the energy does not change (the spin and contact point move by about 1e-14, from cos(fl(π/2)) = 6e-17).",
        "euler-disk",
        &[],
        Some(&[FRAC_PI_2, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]),
        &[var(0.01)],
        4096,
    ),
    single_state(
        "euler-disk",
        "Torrente §2.2, figure 17: Euler's disk from q₁ = (π/2, 0, 0, 0, 0), q₂ = (π/2, h, h, h, h) at h = 0.001, 4096 steps of the implicit discrete Lagrange–d'Alembert map",
        "Torrente's Euler disk (M = r = I₁ = I₂ = 1, I₃ = 2.5, g = 9.8, e = 0; q = (θ, φ, ψ, x, y), θ = π/2 upright), its figure 17: q₁ = (π/2, 0, 0, 0, 0), q₂ = (π/2, h, h, h, h), h = 0.001, 2¹² steps; the disk tilts, rolls and turns. Each step solves the three discrete Lagrange–d'Alembert equations (derived again, docs/derivations/euler-disk.md; the printed ones are garbled) by Newton iteration. The thesis reports the energy kept to about 11 digits; a second-order scheme at h = 0.001 keeps it to about 2.4e-6 on this motion (O(h²), measured; the thesis's own equations give the same), and we reproduce that, not the thesis's claim. The thesis's q₂ is off the rolling constraint: the scheme does not use its (x, y) increments, and they are put on the constraint before the run, so the energy at t = 0 is the motion's, 24.1 (with --raw-start it is 25.1, and max_rel_dE, 0.0398, is that jump).",
        "euler-disk",
        &[],
        None,
        &[var(0.001)],
        4096,
    ),
    single_state(
        "ball-fixed-plane",
        "Torrente §3, figure 19a: a ball rolling on a fixed plane (Ω = 0), F₁ a rotation about x by −0.05, h = 0.001, 4096 steps: a straight line at constant speed",
        "Torrente's ball (a = m = 1, J = ⅖) on a plane at rest (Ω = 0), its figure 19a: X₁ = (0, 0), F₁ the rotation about x by −0.05 (ξ = (tan(−0.025), 0, 0), stored as v = 2ξ/h), h = 0.001, 2¹² steps. The ball rolls on a straight line at constant speed (tested); the thesis reports the energy at machine precision, as here.",
        "ball-turntable",
        &[("omega", 0.0)],
        Some(&[0.0, 0.0, 1.0, -50.01041927149229, 0.0, 0.0]),
        &[var(0.001)],
        4096,
    ),
    single_state(
        "ball-fixed-plane-coarse",
        "Torrente §3, figure 19b: the ball on a fixed plane, F₁ a rotation about y by 0.3, h = 0.1, 4096 steps",
        "Torrente's ball on a plane at rest (Ω = 0), its figure 19b: X₁ = (0, 0), F₁ the rotation about y by 0.3 (ξ = (0, −tan 0.15, 0) in the thesis's convention, stored as v = 2ξ/h), h = 0.1, 2¹² steps. A straight line at constant speed; the thesis reports the energy at machine precision, as here.",
        "ball-turntable",
        &[("omega", 0.0)],
        Some(&[0.0, 0.0, 1.0, 0.0, -3.022704361165901, 0.0]),
        &[var(0.1)],
        4096,
    ),
    single_state(
        "ball-turntable-centre",
        "Torrente §3, figure 20: the ball on a plane turning at Ω = 1 from its centre, X₁ = (0, 0), F₁ a rotation about y by −0.1, h = 0.02, 4096 steps",
        "Torrente's ball on a plane turning at Ω = 1, its figure 20: X₁ = (0, 0), F₁ the rotation about y by −0.1 (the caption says x, the text y; we follow the text), h = 0.02, 2¹² steps. The thesis reports only 3 digits of energy and blames initial conditions near the stability limit; with the corrected scheme (docs/derivations/ball-turntable.md) h = 0.02 is simply coarse for this motion (speed about 5, rotation up to 0.1 rad a step).",
        "ball-turntable",
        &[("omega", 1.0)],
        Some(&[0.0, 0.0, 1.0, 0.0, 5.004170837553879, 0.0]),
        &[var(0.02)],
        4096,
    ),
    single_state(
        "ball-turntable",
        "Torrente §3, figure 21: a ball rolling on a plane turning at Ω = 1.5, X₁ = (2, 0), F₁ a rotation about y by 0.002, h = 0.001, to t = 16.5 (more than one period 7π/Ω)",
        "Torrente's ball rolling on a rotating plane (a = m = 1, J = ⅖), its figure 21: Ω = 1.5, h = 0.001, X₁ = (2, 0), F₁ the rotation about y by 0.002 (stored as v = 2ξ/h with F₁ = cay(ξ̂)), to t = 16.5 (16 500 steps; the thesis ran 2¹² and notes that the cycle needs more). Our scheme corrects the thesis's (spatial rather than body rotation increment; the sign of the multiplier term in eq. 36b; the symmetric discrete constraint, order 2; docs/derivations/ball-turntable.md). The thesis reports energy kept to about 6 digits; the physics (not in the thesis) is a circle in the fixed frame traversed at 2Ω/7, period 7π/Ω = 14.66 (tests/variational.rs). trajectory.csv holds the centre in the rotating frame.",
        "ball-turntable",
        &[("omega", 1.5)],
        None,
        &[var(0.001)],
        16_500,
    ),
];
