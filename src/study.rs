//! `phaseflow study`: the same initial set evolved by several methods side by side, turned into
//! data (each run's stats.csv, config.toml and portrait states; summary.csv), pictures (phase
//! portraits, over the exact level curves where they are known, energy error and |area ratio − 1|
//! against time) and a short report.md. A study is data (`Study`): the presets below and the
//! custom study from flags are both just values of it.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::config::{EnsembleFile, RunConfig, RunFile};
use crate::ensemble::State;
use crate::error::Result;
use crate::input_err;
use crate::measure::energy::{drift_slope, EnergyRow};
use crate::method::Method;
use crate::output::{write_atomic, write_csv};
use crate::plot::{self, Figure, Series, Style};
use crate::run;
use crate::system::System;

/// One method of a study with its own step and step count (and, for studies that compare
/// coordinates, e.g. polar against Cartesian, its own system).
#[derive(Debug, Clone, PartialEq)]
pub struct StudyRun {
    pub method: Method,
    pub dt: f64,
    pub steps: u64,
    /// Overrides the study's system for this run.
    pub system: Option<String>,
}

/// A study: the shared settings (system, ensemble, backend, …) and the methods to compare.
#[derive(Debug, Clone)]
pub struct Study {
    /// Preset name, or "custom".
    pub name: String,
    /// What the study reproduces and with which parameters (first paragraph of report.md).
    pub description: String,
    /// Everything but method, dt and steps (those come from `runs`).
    pub base: RunFile,
    pub runs: Vec<StudyRun>,
    /// Times at which every method's points are kept for the phase portraits.
    pub portrait_times: Vec<f64>,
    /// Statistics rows per run (the snapshot interval is steps / this).
    pub stats_rows: u64,
}

/// Preset names with a one-line description (for errors and `phaseflow list`).
pub const PRESETS: &[(&str, &str)] = &[
    (
        "pendulum-level",
        "seed 000: 2000 points on the pendulum level E = 1 − cos(π/6), explicit Euler vs symplectic Euler and Verlet at h = 0.0005 to t = 2000",
    ),
    (
        "oscillator-rectangle",
        "seed 001: a small rectangle at 12 o'clock on the unit circle of the oscillator, forward Euler vs symplectic Euler for four periods",
    ),
    (
        "pendulum-disks",
        "GNI Example VI.3.2: a disk of pendulum states under the first-order methods at h = π/4 and the second-order ones at h = π/3",
    ),
    (
        "elastic-pendulum",
        "seed 002: the elastic pendulum (ĝ = 0.2) from r = 1, θ = π/2 at rest, polar against Cartesian stepping with symplectic Euler A and B at h = 0.2 to t = 10000",
    ),
    (
        "elastic-pendulum-short",
        "seed 002: the elastic pendulum to t = 120 with explicit Euler (h = 0.02), symplectic Euler A and B (h = 0.2) and RK4 (h = 0.002) as the reference",
    ),
    (
        "spring-chain-i",
        "seed 000, experiment I: the vertical spring chain N = 8 (Table 1), explicit Euler, RK3, Störmer–Verlet and symplectic Euler at h = 1/16384 for 200 000 steps; energy",
    ),
    (
        "spring-chain-ii",
        "seed 000, experiment II: the chain with N = 32 at h = 1/256 for 100 000 steps, RK3, Störmer–Verlet and symplectic Euler; the free end's x(t)",
    ),
    (
        "spring-chain-iii",
        "seed 000, experiment III: as II with an initial impulse of 2 on the free end (read as velocity 2: momentum 2/32), 150 000 steps; x(t) and energy",
    ),
    (
        "kepler",
        "GNI I.2.3: the Kepler orbit of eccentricity 0.6, explicit Euler against symplectic Euler and Störmer–Verlet; energy and angular momentum",
    ),
];

fn ensemble(kind: &str) -> EnsembleFile {
    EnsembleFile {
        kind: Some(kind.into()),
        ..Default::default()
    }
}

fn runs(list: &[(Method, f64)], t_end: f64) -> Vec<StudyRun> {
    list.iter()
        .map(|&(method, dt)| StudyRun {
            method,
            dt,
            steps: (t_end / dt).round() as u64,
            system: None,
        })
        .collect()
}

/// The named preset study.
pub fn preset(name: &str) -> Result<Study> {
    use std::f64::consts::PI;
    let base = |system: &str, ens: EnsembleFile| RunFile {
        system: Some(system.into()),
        tangent: Some(true),
        ensemble: Some(ens),
        ..Default::default()
    };
    match name {
        "pendulum-level" => {
            let t_end = 2000.0;
            let h = 0.0005;
            Ok(Study {
                name: name.into(),
                description: "Seed 000's experiment: the pendulum H = p²/2 + 1 − cos q (m = g = l = 1), 2000 points evenly spaced in angle on the level curve E = 1 − cos(π/6) = 0.1339746 (the orbit through q = π/6 at rest), each method at h = 0.0005 up to t = 2000 (4 000 000 steps), phase portraits every 500 time units (as in the seed's figure 3). Loop refinement at 2e-3 of the loop's size (area resolved to ~2e-6). At f32 the round-off of 4 000 000 steps is as large as symplectic Euler's energy error and larger than Verlet's, and sheared neighbouring nodes can merge: for reference figures run with --precision f64 (CPU engine).".into(),
                // Refinement tolerance 2e-3 of the loop's size: the seed's 2000 points already
                // resolve the level curve to it (area to ~2e-6), so nodes are inserted only
                // where the methods stretch the set. The default 5e-4 would start from 10 000
                // nodes (5× the work).
                base: RunFile {
                    refine_tol: Some(2e-3),
                    ..base(
                        "pendulum",
                        EnsembleFile {
                            points: Some(2000),
                            energy: Some(1.0 - (PI / 6.0).cos()),
                            ..ensemble("level")
                        },
                    )
                },
                runs: runs(
                    &[
                        (Method::Euler, h),
                        (Method::SymplecticEulerA, h),
                        (Method::Verlet, h),
                    ],
                    t_end,
                ),
                portrait_times: (0..=4).map(|k| 500.0 * k as f64).collect(),
                stats_rows: 400,
            })
        }
        "oscillator-rectangle" => {
            let h = 2.0 * PI / 128.0;
            Ok(Study {
                name: name.into(),
                description: "Seed 001's experiment: the harmonic oscillator H = (p² + q²)/2, the boundary of the rectangle q ∈ [−0.15, 0.15], p ∈ [0.85, 1.15] (at 12 o'clock on the unit circle, 400 nodes), forward Euler against symplectic Euler at h = 2π/128 for four periods (512 steps), portraits every 4/9 of a period (as in the seed's figures 7.6 and 7.7).".into(),
                base: base(
                    "oscillator",
                    EnsembleFile {
                        points: Some(400),
                        lo: Some(vec![-0.15, 0.85]),
                        hi: Some(vec![0.15, 1.15]),
                        ..ensemble("rect")
                    },
                ),
                runs: runs(
                    &[(Method::Euler, h), (Method::SymplecticEulerA, h)],
                    8.0 * PI,
                ),
                // 4/9 of a period apart: the rectangle shows up all around the circle
                portrait_times: (0..=9).map(|k| 8.0 * PI * k as f64 / 9.0).collect(),
                stats_rows: 256,
            })
        }
        "pendulum-disks" => {
            let (h1, h2) = (PI / 4.0, PI / 3.0);
            Ok(Study {
                name: name.into(),
                description: "After Hairer, Lubich and Wanner, Geometric Numerical Integration, Example VI.3.2: a disk of initial values of the pendulum H = p²/2 − cos q evolved by the first-order methods (explicit Euler, symplectic Euler A and B) at h = π/4 and the second-order ones (Störmer–Verlet, position Verlet, implicit midpoint) at h = π/3, to t = 4π (16 resp. 12 steps). The disk (our choice, not GNI's): 4000 points uniform in the disk of radius 0.5 about (q, p) = (0, 1), seed 0, librations with energies 0.125 to 1.2. Area from the tangent map, |A0| · mean det DΦⁿ; portraits at t = 0, π, 2π, 3π, 4π.".into(),
                base: base(
                    "pendulum",
                    EnsembleFile {
                        points: Some(4000),
                        center: Some(vec![0.0, 1.0]),
                        radius: Some(0.5),
                        seed: Some(0),
                        ..ensemble("disk")
                    },
                ),
                runs: runs(
                    &[
                        (Method::Euler, h1),
                        (Method::SymplecticEulerA, h1),
                        (Method::SymplecticEulerB, h1),
                        (Method::Verlet, h2),
                        (Method::PositionVerlet, h2),
                        (Method::ImplicitMidpoint, h2),
                    ],
                    4.0 * PI,
                ),
                portrait_times: (0..=4).map(|k| PI * k as f64).collect(),
                stats_rows: 16,
            })
        }
        "elastic-pendulum" => {
            let (h, t_end) = (0.2, 10_000.0);
            let run = |system: &str, method| StudyRun {
                method,
                dt: h,
                steps: (t_end / h).round() as u64,
                system: Some(system.into()),
            };
            Ok(Study {
                name: name.into(),
                description: "Seed 002's comparison of coordinates: the elastic pendulum H = (p_r² + p_θ²/r²)/2 + (r − 1)²/2 − ĝ r cos θ with ĝ = 0.2, started at r = 1, θ = π/2 at rest (E = 0), advanced with symplectic Euler A and B at h = 0.2 to t = 10000 (50 000 steps) once in polar coordinates (r, θ; not separable, but both variants are explicit with the sub-updates ordered) and once in Cartesian coordinates (x = r sin θ, y = r cos θ; separable). The same physical motion, different discretisations: the energy-error statistics (absolute, since E = 0) differ with the coordinates.".into(),
                base: RunFile {
                    system: Some("elastic-pendulum".into()),
                    ensemble: Some(ensemble("point")),
                    precision: Some("f64".into()),
                    ..Default::default()
                },
                runs: vec![
                    run("elastic-pendulum", Method::SymplecticEulerA),
                    run("elastic-pendulum", Method::SymplecticEulerB),
                    run("elastic-pendulum-cartesian", Method::SymplecticEulerA),
                    run("elastic-pendulum-cartesian", Method::SymplecticEulerB),
                ],
                portrait_times: vec![0.0, t_end],
                stats_rows: 2000,
            })
        }
        "elastic-pendulum-short" => {
            Ok(Study {
                name: name.into(),
                description: "Seed 002's short run: the polar elastic pendulum (ĝ = 0.2) from r = 1, θ = π/2 at rest to t = 120 with explicit Euler at h = 0.02, symplectic Euler A and B at h = 0.2, and RK4 at h = 0.002 as the reference solution.".into(),
                base: RunFile {
                    system: Some("elastic-pendulum".into()),
                    ensemble: Some(ensemble("point")),
                    precision: Some("f64".into()),
                    ..Default::default()
                },
                runs: runs(
                    &[
                        (Method::Euler, 0.02),
                        (Method::SymplecticEulerA, 0.2),
                        (Method::SymplecticEulerB, 0.2),
                        (Method::Rk4, 0.002),
                    ],
                    120.0,
                ),
                portrait_times: vec![0.0, 120.0],
                stats_rows: 600,
            })
        }
        "spring-chain-i" | "spring-chain-ii" | "spring-chain-iii" => {
            let (n, h, steps, alpha, methods, what): (f64, f64, u64, f64, &[Method], &str) = match name {
                "spring-chain-i" => (8.0, 1.0 / 16384.0, 200_000, 1.5625e-2,
                    &[Method::Euler, Method::Rk3, Method::Verlet, Method::SymplecticEulerA],
                    "Experiment I: N = 8, h = 1/16384, 200 000 steps (t = 12.207), explicit Euler, RK3, Störmer–Verlet and symplectic Euler. The seed reports that explicit Euler gains energy exponentially from t ≈ 10 while the others keep it, symplectic Euler's oscillation staying below 1e-5 (its figure 6)."),
                "spring-chain-ii" => (32.0, 1.0 / 256.0, 100_000, 1.5625e-2,
                    &[Method::Rk3, Method::Verlet, Method::SymplecticEulerA],
                    "Experiment II: N = 32, h = 1/256, the three methods that survived experiment I (RK3, Störmer–Verlet, symplectic Euler), 100 000 steps (t = 390.6; the seed prints the count ambiguously as \"100,0000\", and 100 000 fits its panel times); the free end's x(t) (its figures 7–8)."),
                _ => (32.0, 1.0 / 256.0, 150_000, 2.0 / 32.0,
                    &[Method::Rk3, Method::Verlet, Method::SymplecticEulerA],
                    "Experiment III: as II with an initial impulse of 2 on the free end, 150 000 steps (t = 585.9); the seed reports that the methods agree at first and drift out of phase later, that RK3 loses energy and that Störmer–Verlet keeps it with smaller oscillations than symplectic Euler (its figures 9–12). Our reading: the free end starts with velocity 2, i.e. momentum α = 2·m_N = 2/32 = 0.0625. Read as a momentum of 2 (velocity 64, a quarter of the cord's length per step), the chain is torn apart and the symplectic methods' energy grows by a factor of thousands at h = 1/256, contrary to the seed; the velocity reading reproduces every observation it reports."),
            };
            let params = std::collections::BTreeMap::from([
                ("n".to_string(), n),
                ("alpha".to_string(), alpha),
            ]);
            Ok(Study {
                name: name.into(),
                description: format!("Seed 000's vertical elastic cord: N point masses hanging from a fixed point, joined by springs (total length 1, total mass 1, k_i = 1000, g = 9.81, y downwards; Table 1), started from the equilibrium with the free end given the horizontal momentum α. {what} The trajectory of the single state is in each method's trajectory.csv."),
                base: RunFile {
                    system: Some("spring-chain".into()),
                    params: Some(params),
                    ensemble: Some(ensemble("point")),
                    precision: Some("f64".into()),
                    tangent: Some(false),
                    ..Default::default()
                },
                runs: methods
                    .iter()
                    .map(|&method| StudyRun { method, dt: h, steps, system: None })
                    .collect(),
                portrait_times: vec![0.0, steps as f64 * h],
                stats_rows: 2000,
            })
        }
        "kepler" => {
            let t_end = 200.0;
            Ok(Study {
                name: name.into(),
                description: "After Hairer, Lubich and Wanner, Geometric Numerical Integration, Section I.2.3: the Kepler problem H = |p|²/2 − 1/|q| from the pericentre of the orbit of eccentricity e = 0.6 (q = (0.4, 0), p = (0, 2), H0 = −1/2, L0 = 0.8, period 2π), to t = 200 (about 32 periods). Steps (our choice, in the spirit of GNI's figure I.2.2): explicit Euler at h = 0.0005 (400 000 steps), symplectic Euler A and Störmer–Verlet at h = 0.05 (4000 steps). Explicit Euler's energy error grows like t·h and it loses angular momentum; the symplectic methods keep L to roundoff and their energy error bounded.".into(),
                base: RunFile {
                    system: Some("kepler".into()),
                    ensemble: Some(ensemble("point")),
                    precision: Some("f64".into()),
                    ..Default::default()
                },
                runs: runs(
                    &[
                        (Method::Euler, 0.0005),
                        (Method::SymplecticEulerA, 0.05),
                        (Method::Verlet, 0.05),
                    ],
                    t_end,
                ),
                portrait_times: vec![0.0, t_end],
                stats_rows: 1000,
            })
        }
        other => {
            let names: Vec<&str> = PRESETS.iter().map(|p| p.0).collect();
            Err(input_err!(
                "--preset {other}: unknown study preset (known: {})",
                names.join(", ")
            ))
        }
    }
}

/// One row of summary.csv (columns documented in README.md).
#[derive(Debug, Clone, Serialize)]
pub struct SummaryRow {
    pub system: String,
    pub method: String,
    pub dt: f64,
    pub steps: u64,
    pub t_end: f64,
    /// Points at the end (loops: nodes after refinement) and how many of them are finite.
    pub points: u64,
    pub finite: u64,
    /// Loops: final `area_ratio` (loop area / the exact initial area, else the step-0 area). Filled sets with the tangent map: final mean det.
    pub final_area_ratio: Option<f64>,
    /// Largest |det DΦⁿ − 1| over all snapshots and points (tangent map).
    pub max_abs_det_minus_1: Option<f64>,
    /// Largest |H − H(z0)| / |H(z0)| over all snapshots and points.
    pub max_rel_energy_err: Option<f64>,
    /// Largest |H − H(z0)| over all snapshots and points (energy units).
    pub max_abs_energy_err: Option<f64>,
    /// Time average over the snapshots of the mean |H − H(z0)| (energy units).
    pub mean_abs_energy_err: Option<f64>,
    /// Least-squares slope of the mean |H − H(z0)| against t (energy per unit time).
    pub energy_drift_slope: Option<f64>,
    /// Systems with angular momentum: largest |L − L(z0)| over all snapshots and points.
    pub max_ang_mom_err: Option<f64>,
    /// Points whose implicit solve hit the iteration cap at least once (at the end).
    pub unconverged: u64,
    /// Step at which loop refinement hit --max-nodes (empty if never).
    pub refine_capped_at_step: Option<u64>,
    /// First step at which a loop gap could not be refined at the run's precision (its
    /// neighbouring nodes had merged); empty if never.
    pub refine_stuck_at_step: Option<u64>,
    pub engine: String,
}

fn fold_max(it: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    it.flatten()
        .filter(|x| x.is_finite())
        .fold(None, |m, x| Some(m.map_or(x, |m: f64| m.max(x))))
}

fn summarise(system: &str, r: &StudyRun, res: &run::RunSummary) -> SummaryRow {
    let rows = &res.rows;
    let last = rows.last().expect("a run has at least the step-0 row");
    let (t, y): (Vec<f64>, Vec<f64>) = rows
        .iter()
        .filter_map(|row| row.abs_energy_err_mean.map(|e| (row.t, e)))
        .unzip();
    SummaryRow {
        system: system.into(),
        method: r.method.name().into(),
        dt: r.dt,
        steps: r.steps,
        t_end: r.steps as f64 * r.dt,
        points: last.points,
        finite: last.finite,
        final_area_ratio: last.area_ratio.or(last.det_mean),
        max_abs_det_minus_1: fold_max(rows.iter().flat_map(|row| {
            [
                row.det_max.map(|d| (d - 1.0).abs()),
                row.det_min.map(|d| (d - 1.0).abs()),
            ]
        })),
        max_rel_energy_err: fold_max(rows.iter().map(|row| row.rel_energy_err_max)),
        max_abs_energy_err: fold_max(rows.iter().map(|row| row.abs_energy_err_max)),
        mean_abs_energy_err: (!y.is_empty()).then(|| y.iter().sum::<f64>() / y.len() as f64),
        energy_drift_slope: drift_slope(&t, &y),
        max_ang_mom_err: fold_max(rows.iter().map(|row| row.ang_mom_err_max)),
        unconverged: last.unconverged,
        refine_capped_at_step: res.refine_capped_at,
        refine_stuck_at_step: res.refine_stuck_at,
        engine: res.engine.clone(),
    }
}

/// One sentence on what happened to a method's set (for report.md).
fn verdict(s: &SummaryRow, symplectic: bool) -> String {
    let mut out = format!("**{}** (h = {}, {} steps):", s.method, fmt_g(s.dt), s.steps);
    if s.finite < s.points {
        let _ = write!(
            out,
            " {} of {} points blew up (non-finite);",
            s.points - s.finite,
            s.points
        );
    }
    match s.final_area_ratio {
        Some(r) if (r - 1.0).abs() < 1e-4 => {
            let _ = write!(out, " the area was kept (final ratio {}),", fmt_ratio(r));
        }
        Some(r) => {
            let how = if r > 1.0 { "grew" } else { "shrank" };
            let _ = write!(out, " the area {how} by a factor {},", fmt_g(r));
        }
        None if s.finite < s.points => {
            out.push_str(" the area could not be measured (non-finite points),")
        }
        // neither a loop nor the tangent map: no area to report
        None => {}
    }
    // Drift: the run's least-squares growth of the mean |H − H(z0)| (slope × duration) against
    // the largest |H − H(z0)| seen, both in energy units. A bounded oscillating error has a
    // small slope; a drifting one accounts for most of its largest value.
    let drifting = match (s.max_abs_energy_err, s.energy_drift_slope) {
        (Some(e), Some(slope)) => slope > 0.0 && slope * s.t_end > 0.5 * e.max(1e-300),
        _ => false,
    };
    let kind = match s.energy_drift_slope {
        Some(_) if drifting => " (drifting upwards)",
        Some(_) => " (bounded, without systematic drift)",
        None => "",
    };
    match (s.max_rel_energy_err, s.max_abs_energy_err) {
        (Some(e), _) => {
            let _ = write!(
                out,
                " and the relative energy error reached {}{kind}",
                fmt_g(e)
            );
        }
        // H(z0) ≈ 0 (e.g. the elastic pendulum's E = 0): the absolute error is the measure.
        (None, Some(e)) => {
            let _ = write!(
                out,
                " and the absolute energy error reached {} (time average {}){kind}",
                fmt_g(e),
                opt(s.mean_abs_energy_err)
            );
        }
        (None, None) => out.push_str(" and the energy error is undefined"),
    }
    if let Some(l) = s.max_ang_mom_err {
        let _ = write!(out, "; angular momentum error at most {}", fmt_g(l));
    }
    if s.unconverged > 0 {
        let _ = write!(
            out,
            "; {} points had implicit solves that did not converge",
            s.unconverged
        );
    }
    // A symplectic method whose energy error drifts or reaches order one is past its step
    // size's range (instability or an unresolved motion), not showing symplectic behaviour.
    let broke = drifting || s.max_rel_energy_err.is_some_and(|e| e > 0.5) || s.finite < s.points;
    out.push_str(if symplectic && broke {
        ": a symplectic method, yet its energy was not kept: the step is too large for this motion."
    } else if symplectic {
        ": as expected of a symplectic method."
    } else {
        ": this method is not symplectic."
    });
    out
}

fn fmt_g(x: f64) -> String {
    if x != 0.0 && (x.abs() < 1e-3 || x.abs() >= 1e5) {
        format!("{x:.3e}")
    } else {
        format!("{:.6}", x)
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    }
}

/// A time for a legend: four significant digits, without trailing zeros (500, 3.142).
fn fmt_t(t: f64) -> String {
    if t == 0.0 {
        "0".into()
    } else {
        let digits = (3 - t.abs().log10().floor() as i32).max(0) as usize;
        let s = format!("{t:.digits$}");
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    }
}

fn opt(x: Option<f64>) -> String {
    x.map(fmt_g).unwrap_or_else(|| "–".into())
}

/// A ratio near 1 as "1 + 2.3e-8" so small changes stay visible.
fn fmt_ratio(r: f64) -> String {
    let dev = r - 1.0;
    if dev == 0.0 {
        "1 (exactly)".into()
    } else if dev.abs() < 1e-3 {
        format!("1 {} {:.1e}", if dev > 0.0 { "+" } else { "−" }, dev.abs())
    } else {
        fmt_g(r)
    }
}

/// Result of a study: the summary rows, the files written and the figures (each with its
/// file stem; only those with data, which report.md embeds).
pub struct StudyOutcome {
    pub summary: Vec<SummaryRow>,
    pub files: Vec<PathBuf>,
    pub figures: Vec<(String, Figure)>,
}

/// Run every method of the study into `out/<method>/`, then write summary, plots and report.
pub fn run_study(
    study: &Study,
    out: &Path,
    quiet: bool,
    force: bool,
    command_line: &str,
) -> Result<StudyOutcome> {
    if study.runs.is_empty() {
        return Err(input_err!("--methods: a study needs at least one method"));
    }
    // Resolve every run before doing any work, so bad input fails fast.
    let mut configs = Vec::new();
    for r in &study.runs {
        let mut f = study.base.clone();
        if let Some(sys) = &r.system {
            f.system = Some(sys.clone());
        }
        f.method = Some(r.method.name().into());
        f.dt = Some(r.dt);
        f.steps = Some(r.steps);
        f.snapshot_every = Some((r.steps / study.stats_rows.max(1)).max(1));
        let mut cfg = RunConfig::resolve(f)?;
        cfg.quiet = quiet;
        cfg.portrait_steps = study
            .portrait_times
            .iter()
            .map(|t| ((t / r.dt).round() as u64).min(r.steps))
            .collect();
        configs.push(cfg);
    }
    let names = run_names(&study.runs, study.base.system.as_deref());
    // The study folder is checked, cleared (--force) and locked once; each method then runs
    // into a fresh subfolder of it.
    let _lock = crate::output::folder::prepare(out, crate::output::folder::Layout::Study, force)?;
    let mut summary = Vec::new();
    let mut portraits = Vec::new();
    let mut series = Vec::new();
    let mut files = Vec::new();
    let mut trajectories = Vec::new();
    for (i, (cfg, r)) in configs.iter_mut().zip(&study.runs).enumerate() {
        let dir = out.join(&names[i]);
        cfg.out = Some(dir.clone());
        if !quiet {
            crate::note!(
                "phaseflow: study {} [{}/{}]: {} {} with h = {}, {} steps",
                study.name,
                i + 1,
                study.runs.len(),
                cfg.system.name(),
                r.method.name(),
                fmt_g(r.dt),
                r.steps
            );
        }
        let res = run::run(cfg)?;
        files.push(dir.join("stats.csv"));
        summary.push(summarise(cfg.system.name(), r, &res));
        series.push((names[i].clone(), res.rows));
        portraits.push((names[i].clone(), cfg.system.clone(), r.dt, res.portraits));
        trajectories.push((names[i].clone(), cfg.system.clone(), res.trajectory));
    }
    write_csv(&out.join("summary.csv"), &summary)?;
    files.push(out.join("summary.csv"));
    // Plots. A figure with nothing to draw is neither written nor embedded.
    let systems: Vec<&str> = configs.iter().map(|c| c.system.name()).collect();
    let labels = legend_labels(&study.runs, &systems);
    let mut figures = Vec::new();
    let mut drawn = Vec::new();
    let mut write = |fig: &Figure, stem: &str, title: String| -> Result<()> {
        if fig.has_data() {
            files.extend(plot::write_figure(fig, &out.join(stem))?);
            figures.push((title, format!("{stem}.png")));
            drawn.push((stem.to_string(), fig.clone()));
        }
        Ok(())
    };
    let mut phase: Vec<Figure> = portraits
        .iter()
        .zip(&trajectories)
        .zip(&labels)
        .map(|(((_, system, dt, snaps), (_, _, traj)), label)| {
            portrait_data(system, label, *dt, snaps, traj)
        })
        .collect();
    let ranges = shared_ranges(&phase, &systems);
    for (i, fig) in phase.iter_mut().enumerate() {
        let (_, system, _, snaps) = &portraits[i];
        finish_portrait(fig, system, snaps, ranges[i]);
    }
    for ((name, ..), (fig, label)) in portraits.iter().zip(phase.iter().zip(&labels)) {
        write(
            fig,
            &format!("phase_{name}"),
            format!("Phase portrait: {label}"),
        )?;
    }
    let time_fig = |title: &str,
                    y_label: &str,
                    log_y: bool,
                    pick: &dyn Fn(&EnergyRow) -> Option<f64>| Figure {
        title: title.into(),
        x_label: "t".into(),
        y_label: y_label.into(),
        series: series
            .iter()
            .zip(&labels)
            .map(|((_, rows), label)| Series {
                label: label.clone(),
                points: rows
                    .iter()
                    .filter_map(|r| pick(r).map(|y| (r.t, y)))
                    .collect(),
                style: Style::Line,
                color: None,
            })
            .collect(),
        log_y,
        equal_aspect: false,
        x_range: None,
        y_range: None,
    };
    // Relative errors where every run has them; H(z0) ≈ 0 (e.g. E = 0) makes them undefined,
    // and then the absolute error is plotted.
    let relative = series
        .iter()
        .all(|(_, rows)| rows.iter().skip(1).all(|r| r.rel_energy_err_mean.is_some()));
    let energy = if relative {
        time_fig(
            "Mean relative energy error",
            "mean |H − H(z0)| / |H(z0)|",
            true,
            &|r| r.rel_energy_err_mean,
        )
    } else {
        time_fig(
            "Mean absolute energy error",
            "mean |H − H(z0)|",
            true,
            &|r| r.abs_energy_err_mean,
        )
    };
    write(
        &energy,
        "energy_error",
        format!(
            "{} energy error against time",
            if relative { "Relative" } else { "Absolute" }
        ),
    )?;
    // Single trajectories: the system's observable (e.g. the chain's free end x) against t.
    let observed: Vec<Series> = trajectories
        .iter()
        .zip(&labels)
        .filter_map(|((_, system, traj), label)| {
            let (_, k) = system.observable()?;
            (!traj.is_empty()).then(|| Series {
                label: label.clone(),
                points: traj.iter().map(|(t, z)| (*t, z[k])).collect(),
                style: Style::Line,
                color: None,
            })
        })
        .collect();
    if let Some((label, _)) = configs[0]
        .system
        .observable()
        .filter(|_| !observed.is_empty())
    {
        let fig = Figure {
            title: format!("{label} against time"),
            x_label: "t".into(),
            y_label: label.into(),
            series: observed,
            log_y: false,
            equal_aspect: false,
            x_range: None,
            y_range: None,
        };
        write(&fig, "observable", format!("{label} against time"))?;
    }
    // Area: the deviation from exact conservation, |ratio − 1|, on a log axis (1e-8 and 1e-6
    // apart by two decades). Loops give the area ratio, filled sets with the tangent map the
    // mean det DΦⁿ; exact zeros (step 0, or an exactly area-preserving step) cannot be drawn.
    let ratio = |r: &EnergyRow| r.area_ratio.or(r.det_mean);
    let loops = series
        .iter()
        .any(|(_, rows)| rows.iter().any(|r| r.area_ratio.is_some()));
    let exact = series
        .iter()
        .any(|(_, rows)| rows.iter().skip(1).any(|r| ratio(r) == Some(1.0)));
    let area = time_fig(
        if exact {
            "Deviation from area preservation (exact zeros not drawn)"
        } else {
            "Deviation from area preservation"
        },
        if loops {
            "|area(t) / area(0) − 1|"
        } else {
            "|mean det DΦ − 1|"
        },
        true,
        &|r| ratio(r).map(|v| (v - 1.0).abs()),
    );
    write(
        &area,
        "area_ratio",
        "Area ratio against time: |ratio − 1|".into(),
    )?;
    // Report.
    let report = report_md(study, &configs[0], &summary, &figures, command_line);
    write_atomic(&out.join("report.md"), report.as_bytes())?;
    files.push(out.join("report.md"));
    crate::output::folder::write_manifest(out)?;
    Ok(StudyOutcome {
        summary,
        files,
        figures: drawn,
    })
}

/// Folder names: the method name (prefixed by the run's own system where it overrides the
/// study's), with the step appended when that name appears twice.
fn run_names(runs: &[StudyRun], base_system: Option<&str>) -> Vec<String> {
    let stem = |r: &StudyRun| match r.system.as_deref() {
        Some(sys) if Some(sys) != base_system => format!("{sys}_{}", r.method.name()),
        _ => r.method.name().to_string(),
    };
    runs.iter()
        .map(|r| {
            let twice = runs.iter().filter(|o| stem(o) == stem(r)).count() > 1;
            if twice {
                format!("{}_h{}", stem(r), fmt_g(r.dt))
            } else {
                stem(r)
            }
        })
        .collect()
}

/// Legend labels for a study's runs: the method, with the system in front when the study mixes
/// systems and the step behind when it mixes steps.
fn legend_labels(runs: &[StudyRun], systems: &[&str]) -> Vec<String> {
    let mixed_system = systems.iter().any(|s| Some(s) != systems.first());
    let mixed_h = runs.iter().any(|r| r.dt != runs[0].dt);
    runs.iter()
        .zip(systems)
        .map(|(r, system)| {
            let mut label = r.method.name().to_string();
            if mixed_system {
                label = format!("{system}, {label}");
            }
            if mixed_h {
                let _ = write!(label, ", h = {}", fmt_g(r.dt));
            }
            label
        })
        .collect()
}

/// Whether q1 of `system` is an angle, which a reader expects wrapped to (−π, π].
fn q_is_angle(system: &System) -> bool {
    matches!(system.name(), "pendulum" | "double-pendulum")
}

/// An angle wrapped to (−π, π].
fn wrap_angle(q: f64) -> f64 {
    use std::f64::consts::PI;
    let w = q - 2.0 * PI * ((q + PI) / (2.0 * PI)).floor();
    if w <= -PI {
        w + 2.0 * PI
    } else {
        w
    }
}

/// The data of a phase portrait in (q1, p1), q1 wrapped where it is an angle: the kept
/// snapshots as dots coloured by time and, for a single state, its path through every
/// snapshot. Ranges, level curves and the title come from `finish_portrait`.
fn portrait_data(
    system: &System,
    label: &str,
    dt: f64,
    snaps: &[(u64, State<f64>)],
    traj: &[(f64, Vec<f64>)],
) -> Figure {
    use std::f64::consts::PI;
    let wrap = q_is_angle(system);
    let q_of = |q: f64| if wrap { wrap_angle(q) } else { q };
    let d = system.dof();
    let mut series = Vec::new();
    let single = !snaps.is_empty() && snaps.iter().all(|(_, s)| s.n == 1) && traj.len() > 1;
    if single {
        let mut points: Vec<(f64, f64)> = Vec::with_capacity(traj.len());
        for (_, z) in traj {
            let (q, p) = (q_of(z[0]), z[d]);
            // A wrapped angle jumping by about 2π: break the line instead of crossing the box.
            if wrap && points.last().is_some_and(|&(q0, _)| (q - q0).abs() > PI) {
                points.push((f64::NAN, f64::NAN));
            }
            points.push((q, p));
        }
        let t_end = traj.last().map_or(0.0, |(t, _)| *t);
        series.push(Series {
            label: format!("path, t = 0 to {}", fmt_t(t_end)),
            points,
            style: Style::Line,
            color: None,
        });
    }
    let last = snaps.len().saturating_sub(1).max(1) as f64;
    for (k, (step, s)) in snaps.iter().enumerate() {
        series.push(Series {
            label: format!("t = {}", fmt_t(*step as f64 * dt)),
            points: (0..s.n).map(|i| (q_of(s.q[i]), s.p[i])).collect(),
            style: Style::Markers,
            color: Some(plot::time_color(k as f64 / last)),
        });
    }
    let (q, p) = if d == 1 { ("q", "p") } else { ("q1", "p1") };
    Figure {
        title: label.to_string(),
        x_label: if wrap {
            format!("{q} (wrapped to (−π, π])")
        } else {
            q.to_string()
        },
        y_label: p.into(),
        series,
        log_y: false,
        equal_aspect: false,
        x_range: None,
        y_range: None,
    }
}

/// The extent (q_lo, q_hi, p_lo, p_hi) of a figure's finite points. Where a few points
/// escaped far away (the full extent is over 20 times that of the central 98% of the points),
/// that axis takes the central extent, widened by half of it on each side, so the set is not
/// shrunk to a speck; `finish_portrait` counts the points left outside.
fn data_extent(fig: &Figure) -> Option<[f64; 4]> {
    let (mut qs, mut ps): (Vec<f64>, Vec<f64>) = fig
        .series
        .iter()
        .flat_map(|s| &s.points)
        .filter(|(q, p)| q.is_finite() && p.is_finite())
        .copied()
        .unzip();
    let axis = |v: &mut Vec<f64>| -> Option<(f64, f64)> {
        v.sort_by(f64::total_cmp);
        let (lo, hi) = (*v.first()?, *v.last()?);
        let k = v.len() / 100;
        let (tlo, thi) = (v[k], v[v.len() - 1 - k]);
        let central = thi - tlo;
        if k > 0 && hi - lo > 20.0 * central && central > 0.0 {
            Some(((tlo - 0.5 * central).max(lo), (thi + 0.5 * central).min(hi)))
        } else {
            Some((lo, hi))
        }
    };
    let (q, p) = (axis(&mut qs)?, axis(&mut ps)?);
    Some([q.0, q.1, p.0, p.1])
}

/// Each portrait's plot range, (q_lo, q_hi, p_lo, p_hi) with a 5% margin: one range shared by
/// the portraits of the same system (`systems[i]` is figure i's), so they compare at a glance,
/// unless one run's set spread so far (by 20 times another's extent, e.g. an escaping point)
/// that the others would shrink to specks; then each its own. Different systems (polar and
/// Cartesian coordinates) do not share: their q1 and p1 are different quantities.
fn shared_ranges(figs: &[Figure], systems: &[&str]) -> Vec<Option<[f64; 4]>> {
    let own: Vec<Option<[f64; 4]>> = figs.iter().map(data_extent).collect();
    let group = |system: &str| -> Vec<[f64; 4]> {
        own.iter()
            .zip(systems)
            .filter(|(_, s)| **s == system)
            .filter_map(|(e, _)| *e)
            .collect()
    };
    let pad = |e: Option<[f64; 4]>| {
        e.map(|[a, b, c, d]| {
            let (mq, mp) = (0.05 * (b - a).max(1e-9), 0.05 * (d - c).max(1e-9));
            [a - mq, b + mq, c - mp, d + mp]
        })
    };
    own.iter()
        .zip(systems)
        .map(|(&e, system)| {
            let members = group(system);
            let union = members.iter().copied().reduce(|a, b| {
                [
                    a[0].min(b[0]),
                    a[1].max(b[1]),
                    a[2].min(b[2]),
                    a[3].max(b[3]),
                ]
            });
            let comparable = union.is_some_and(|u| {
                members.iter().all(|e| {
                    u[1] - u[0] <= 20.0 * (e[1] - e[0]) && u[3] - u[2] <= 20.0 * (e[3] - e[2])
                })
            });
            pad(if comparable { union } else { e })
        })
        .collect()
}

/// Complete a portrait: its ranges, the same scale on both axes when their spans are within a
/// factor 3 (a portrait is not squeezed into a strip), exact level curves of H behind the
/// data for 1-DOF systems (through the initial energies and a few more), and a title that
/// mentions them only when they are drawn.
fn finish_portrait(
    fig: &mut Figure,
    system: &System,
    snaps: &[(u64, State<f64>)],
    range: Option<[f64; 4]>,
) {
    let Some([qa, qb, pa, pb]) = range else {
        return;
    };
    fig.x_range = Some((qa, qb));
    fig.y_range = Some((pa, pb));
    let outside = fig
        .series
        .iter()
        .flat_map(|s| &s.points)
        .filter(|(q, p)| q.is_finite() && p.is_finite())
        .filter(|&&(q, p)| !(qa..=qb).contains(&q) || !(pa..=pb).contains(&p))
        .count();
    if outside > 0 {
        let _ = write!(fig.x_label, " ({outside} points outside the plot)");
    }
    let ratio = (qb - qa) / (pb - pa);
    fig.equal_aspect = (1.0 / 3.0..=3.0).contains(&ratio);
    let Some(z) = system.minimum().filter(|_| system.dof() == 1) else {
        return;
    };
    // Levels: the range of H over the initial set, and a few around it.
    let mut energies = Vec::new();
    if let Some((_, s0)) = snaps.first() {
        let h: Vec<f64> = (0..s0.n)
            .map(|i| system.energy(&[s0.q[i]], &[s0.p[i]]))
            .filter(|x| x.is_finite())
            .collect();
        if let (Some(lo), Some(hi)) = (
            h.iter().cloned().reduce(f64::min),
            h.iter().cloned().reduce(f64::max),
        ) {
            energies.push(lo);
            if hi > lo * (1.0 + 1e-9) {
                energies.push(hi);
            }
        }
    }
    let corner_max = [(qa, pa), (qa, pb), (qb, pa), (qb, pb)]
        .iter()
        .map(|&(q, p)| system.energy(&[q], &[p]))
        .fold(f64::NEG_INFINITY, f64::max);
    let e_min = system.energy(&z[..1], &z[1..]);
    for k in 1..=6 {
        energies.push(e_min + (corner_max - e_min) * k as f64 / 7.0);
    }
    let mut curves: Vec<Series> = energies
        .into_iter()
        .flat_map(|e| level_curves(system, e, (qa, qb), (pa, pb)))
        .collect();
    if !curves.is_empty() {
        fig.title.push_str(", over level curves of H");
        // Drawn first (below the data), unlabelled.
        curves.append(&mut fig.series);
        fig.series = curves;
    }
}

/// Branches p(q) ≥ 0 and ≤ 0 of the level set H(q, p) = e over a q range, for 1-DOF systems whose
/// H grows with |p| (pendulum, oscillator): bisection in p at each q; runs split where no solution.
fn level_curves(
    system: &System,
    e: f64,
    (qa, qb): (f64, f64),
    (pa, pb): (f64, f64),
) -> Vec<Series> {
    let pmax = pa.abs().max(pb.abs()) * 4.0 + 1.0;
    let mut out = Vec::new();
    for sign in [1.0, -1.0] {
        let mut run: Vec<(f64, f64)> = Vec::new();
        for k in 0..=600 {
            let q = qa + (qb - qa) * k as f64 / 600.0;
            let f = |p: f64| system.energy(&[q], &[sign * p]) - e;
            let sol = if f(0.0) <= 0.0 && f(pmax) > 0.0 {
                let (mut lo, mut hi) = (0.0, pmax);
                for _ in 0..80 {
                    let mid = 0.5 * (lo + hi);
                    if f(mid) > 0.0 {
                        hi = mid
                    } else {
                        lo = mid
                    }
                }
                Some(sign * 0.5 * (lo + hi))
            } else {
                None
            };
            match sol {
                Some(p) => run.push((q, p)),
                None if !run.is_empty() => out.push(std::mem::take(&mut run)),
                None => {}
            }
        }
        if !run.is_empty() {
            out.push(run);
        }
    }
    out.into_iter()
        .map(|points| Series {
            label: String::new(),
            points,
            style: Style::ThinLine,
            color: None,
        })
        .collect()
}

fn report_md(
    study: &Study,
    cfg: &RunConfig,
    summary: &[SummaryRow],
    figures: &[(String, String)],
    command_line: &str,
) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# phaseflow study: {}\n", study.name);
    let _ = writeln!(s, "{}\n", study.description);
    let _ = writeln!(
        s,
        "System `{}` (parameters {:?}), ensemble `{}` ({} initial points), precision {}, engine {}. Tangent map: {}. Loop refinement: {}.\n",
        cfg.system.name(),
        cfg.system.params(),
        cfg.ensemble.kind.name(),
        cfg.ensemble.points,
        cfg.precision.name(),
        summary.first().map(|r| r.engine.as_str()).unwrap_or("?"),
        if cfg.tangent { "on" } else { "off" },
        match cfg.refine {
            Some(r) => format!("tolerance {} of the initial loop's size, at most {} nodes", r.tol, r.max_nodes),
            None => "off".into(),
        }
    );
    let _ = writeln!(s, "Reproduce: `{command_line}`\n");
    let _ = writeln!(s, "## What happened\n");
    for row in summary {
        let symplectic = Method::from_name(&row.method)
            .map(|m| m.info().symplectic)
            .unwrap_or(false);
        let _ = writeln!(s, "- {}", verdict(row, symplectic));
        if let Some(step) = row.refine_capped_at_step {
            let _ = writeln!(
                s,
                "  - Loop refinement hit its node cap at step {step}: the loop area after that is under-resolved."
            );
        }
        if let Some(step) = row.refine_stuck_at_step {
            let _ = writeln!(
                s,
                "  - From step {step} a loop gap could not be refined at this precision (neighbouring nodes had merged): the loop area after that is under-resolved; run with `--precision f64`."
            );
        }
    }
    let _ = writeln!(s, "\n## Summary (summary.csv)\n");
    let _ = writeln!(
        s,
        "| system | method | h | steps | t_end | points | finite | final area ratio | max abs(det − 1) | max rel. energy error | max abs. energy error | mean abs. energy error | energy drift slope |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for r in summary {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.system,
            r.method,
            fmt_g(r.dt),
            r.steps,
            fmt_g(r.t_end),
            r.points,
            r.finite,
            r.final_area_ratio
                .map(fmt_ratio)
                .unwrap_or_else(|| "–".into()),
            opt(r.max_abs_det_minus_1),
            opt(r.max_rel_energy_err),
            opt(r.max_abs_energy_err),
            opt(r.mean_abs_energy_err),
            opt(r.energy_drift_slope)
        );
    }
    let _ = writeln!(s, "\n## Plots\n");
    for (title, file) in figures {
        let _ = writeln!(s, "### {title}\n\n![{title}]({file})\n");
    }
    let _ = writeln!(
        s,
        "Each method's folder holds its stats.csv (columns in the README), config.toml (reproduces that run) and states/step_<k>.npy (the points at the portrait times). Plots are also written as SVG."
    );
    s
}

/// Parse a comma list of step sizes: one for all methods, or one per method.
pub fn parse_dt_list(s: &str, methods: usize) -> Result<Vec<f64>> {
    let v = crate::config::parse_vec("--dt", s)?;
    if let Some(x) = v.iter().find(|x| !(x.is_finite() && **x > 0.0)) {
        return Err(input_err!(
            "--dt {s}: every step must be a positive finite number, got {x}"
        ));
    }
    match v.len() {
        1 => Ok(vec![v[0]; methods]),
        n if n == methods => Ok(v),
        n => Err(input_err!(
            "--dt {s}: give one step for all methods or one per method ({methods} methods, {n} steps)"
        )),
    }
}

/// Output folder check shared by the CLI (nothing is written before the runs resolve).
pub fn out_dir(out: Option<PathBuf>) -> Result<PathBuf> {
    out.ok_or_else(|| {
        input_err!("--out DIR is required (the folder for the study's data, plots and report)")
    })
}

/// The study the flags describe: a preset (with the few overrides it allows) or a custom study.
pub fn from_args(a: &crate::cli::StudyArgs) -> Result<Study> {
    use crate::config::{parse_params, parse_vec};
    let mut study = match &a.preset {
        Some(name) => {
            let mut st = preset(name)?;
            if let Some(t_end) = a.t_end {
                check_t_end(t_end)?;
                for r in &mut st.runs {
                    r.steps = ((t_end / r.dt).round() as u64).max(1);
                }
                let k = st.portrait_times.len().max(2) - 1;
                st.portrait_times = (0..=k).map(|i| t_end * i as f64 / k as f64).collect();
                st.description.push_str(&format!(
                    " This run was shortened or lengthened to t = {t_end}."
                ));
            }
            st
        }
        None => {
            let system = a.system.clone().ok_or_else(|| {
                input_err!("study: give --preset NAME, or a custom study with --system, --methods, --dt, --steps or --t-end, --ensemble")
            })?;
            let methods = a
                .methods
                .as_deref()
                .ok_or_else(|| {
                    input_err!(
                        "--methods is required for a custom study (e.g. --methods euler,verlet)"
                    )
                })?
                .split(',')
                .map(|m| Method::from_name(m.trim()))
                .collect::<Result<Vec<_>>>()?;
            let dts = parse_dt_list(
                a.dt.as_deref().ok_or_else(|| {
                    input_err!("--dt is required for a custom study (one step, or one per method)")
                })?,
                methods.len(),
            )?;
            let steps: Vec<u64> = match (&a.steps, a.t_end) {
                (Some(_), Some(_)) => {
                    return Err(input_err!(
                        "--steps and --t-end: give one of them, not both"
                    ))
                }
                (Some(s), None) => {
                    let v = s
                        .split(',')
                        .map(|x| {
                            x.trim().parse::<u64>().map_err(|_| {
                                input_err!("--steps {s}: '{x}' is not a whole number of steps")
                            })
                        })
                        .collect::<Result<Vec<_>>>()?;
                    match v.len() {
                        1 => vec![v[0]; methods.len()],
                        n if n == methods.len() => v,
                        n => {
                            return Err(input_err!(
                                "--steps {s}: give one count for all methods or one per method ({} methods, {n} counts)",
                                methods.len()
                            ))
                        }
                    }
                }
                (None, Some(t)) => {
                    check_t_end(t)?;
                    dts.iter()
                        .map(|h| ((t / h).round() as u64).max(1))
                        .collect()
                }
                (None, None) => {
                    return Err(input_err!("a custom study needs --steps N or --t-end T"))
                }
            };
            let runs: Vec<StudyRun> = methods
                .iter()
                .zip(&dts)
                .zip(&steps)
                .map(|((&method, &dt), &steps)| StudyRun {
                    method,
                    dt,
                    steps,
                    system: None,
                })
                .collect();
            let t_end = runs
                .iter()
                .map(|r| r.steps as f64 * r.dt)
                .fold(0.0, f64::max);
            let k = a.portraits.unwrap_or(5);
            if k == 0 {
                return Err(input_err!("--portraits must be at least 1"));
            }
            let portrait_times = if k == 1 {
                vec![0.0]
            } else {
                (0..k).map(|i| t_end * i as f64 / (k - 1) as f64).collect()
            };
            let vec_of = |flag: &str, v: &Option<String>| -> Result<Option<Vec<f64>>> {
                v.as_deref().map(|s| parse_vec(flag, s)).transpose()
            };
            let ensemble = EnsembleFile {
                kind: Some(a.ensemble.clone().ok_or_else(|| {
                    input_err!("--ensemble is required for a custom study (level, circle, rect, disk, grid, gaussian, point, file)")
                })?),
                points: None,
                center: vec_of("--center", &a.center)?,
                radius: a.radius,
                lo: vec_of("--lo", &a.lo)?,
                hi: vec_of("--hi", &a.hi)?,
                energy: a.energy,
                sigma: a.sigma,
                seed: a.seed,
                input: a.input.clone(),
                closed_loop: a.closed_loop.then_some(true),
            };
            Study {
                name: "custom".into(),
                description: format!(
                    "A custom study of `{system}` with {}.",
                    runs.iter()
                        .map(|r| format!(
                            "{} at h = {} ({} steps)",
                            r.method.name(),
                            fmt_g(r.dt),
                            r.steps
                        ))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                base: RunFile {
                    system: Some(system),
                    params: Some(parse_params(&a.params)?),
                    ensemble: Some(ensemble),
                    ..Default::default()
                },
                runs,
                portrait_times,
                stats_rows: 200,
            }
        }
    };
    let base = &mut study.base;
    if let Some(n) = a.points {
        base.ensemble.get_or_insert_with(Default::default).points = Some(n);
    }
    base.backend = a.backend.clone();
    if a.precision.is_some() {
        base.precision = a.precision.clone();
    }
    // The tangent map is on unless turned off, or the preset leaves it off (the chains of
    // 64 degrees of freedom would carry 128 tangent columns each).
    base.tangent = Some(!a.no_tangent && base.tangent.unwrap_or(true));
    if a.no_refine {
        base.refine = Some(false);
    }
    if a.refine_tol.is_some() {
        base.refine_tol = a.refine_tol;
    }
    if a.max_nodes.is_some() {
        base.max_nodes = a.max_nodes;
    }
    Ok(study)
}

fn check_t_end(t: f64) -> Result<()> {
    if t.is_finite() && t > 0.0 {
        Ok(())
    } else {
        Err(input_err!(
            "--t-end must be a positive finite time, got {t}"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pendulum-level figures (f64, t = 2000): explicit Euler's energy error grows
    /// steadily, symplectic Euler's oscillates.
    fn row(method: &str, max_rel: f64, max_abs: f64, slope: f64) -> SummaryRow {
        SummaryRow {
            system: "pendulum".into(),
            method: method.into(),
            dt: 5e-4,
            steps: 4_000_000,
            t_end: 2000.0,
            points: 2000,
            finite: 2000,
            final_area_ratio: Some(1.0),
            max_abs_det_minus_1: None,
            max_rel_energy_err: Some(max_rel),
            max_abs_energy_err: Some(max_abs),
            mean_abs_energy_err: None,
            energy_drift_slope: Some(slope),
            max_ang_mom_err: None,
            unconverged: 0,
            refine_capped_at_step: None,
            refine_stuck_at_step: None,
            engine: "cpu".into(),
        }
    }

    #[test]
    fn legend_times_have_no_trailing_zeros() {
        assert_eq!(fmt_t(0.0), "0");
        assert_eq!(fmt_t(500.0), "500");
        assert_eq!(fmt_t(1000.0), "1000");
        assert_eq!(fmt_t(std::f64::consts::PI), "3.142");
        assert_eq!(fmt_t(2.5), "2.5");
    }

    #[test]
    fn angles_wrap_to_the_half_open_interval() {
        use std::f64::consts::PI;
        assert_eq!(wrap_angle(0.5), 0.5);
        assert_eq!(wrap_angle(PI), PI);
        assert_eq!(wrap_angle(-PI), PI);
        assert!((wrap_angle(3.0 * PI + 0.25) - (-PI + 0.25)).abs() < 1e-12);
        assert!((wrap_angle(-20.0) - (-20.0 + 6.0 * PI)).abs() < 1e-12);
    }

    #[test]
    fn portrait_ranges_leave_out_far_escapes_only() {
        let cloud: Vec<(f64, f64)> = (0..1000)
            .map(|i| ((i as f64 * 0.1).sin(), (i as f64 * 0.1).cos()))
            .collect();
        let mut fig = Figure::new("t", "q", "p");
        fig.series
            .push(Series::new("", cloud.clone(), Style::Markers));
        let [a, b, c, d] = data_extent(&fig).unwrap();
        assert!(a < -0.99 && b > 0.99 && c < -0.99 && d > 0.99);
        // Five escaped points far away: the range stays near the cloud, and they are counted.
        let mut escaped = cloud;
        escaped.extend([(1e6, 0.0); 5]);
        fig.series[0].points = escaped;
        let [a, b, ..] = data_extent(&fig).unwrap();
        assert!(a > -3.1 && b < 3.1, "{a} {b}");
        let system = System::new("oscillator", &Default::default()).unwrap();
        let range = shared_ranges(&[fig.clone()], &["oscillator"])[0];
        finish_portrait(&mut fig, &system, &[], range);
        assert!(
            fig.x_label.contains("(5 points outside the plot)"),
            "{}",
            fig.x_label
        );
    }

    #[test]
    fn legend_labels_name_system_and_step_only_when_they_differ() {
        let run = |method, dt, system: Option<&str>| StudyRun {
            method,
            dt,
            steps: 10,
            system: system.map(String::from),
        };
        let same = [
            run(Method::Euler, 0.1, None),
            run(Method::Verlet, 0.1, None),
        ];
        assert_eq!(
            legend_labels(&same, &["pendulum", "pendulum"]),
            ["euler", "verlet"]
        );
        let mixed = [
            run(Method::Euler, 0.25, None),
            run(Method::Verlet, 0.5, Some("kepler")),
        ];
        assert_eq!(
            legend_labels(&mixed, &["oscillator", "kepler"]),
            ["oscillator, euler, h = 0.25", "kepler, verlet, h = 0.5"]
        );
    }

    #[test]
    fn verdict_tells_drift_from_bounded_error() {
        let euler = verdict(&row("euler", 1.534, 0.2055, 1.017e-4), false);
        assert!(euler.contains("(drifting upwards)"), "{euler}");
        let se = verdict(
            &row("symplectic-euler-a", 4.917e-4, 6.588e-5, 1.034e-10),
            true,
        );
        assert!(se.contains("(bounded, without systematic drift)"), "{se}");
        assert!(se.contains("as expected of a symplectic method"), "{se}");
        // A symplectic method whose error drifts has too large a step.
        let bad = verdict(&row("verlet", 1e-3, 1e-4, 1e-7), true);
        assert!(
            bad.contains("(drifting upwards)") && bad.contains("step is too large"),
            "{bad}"
        );
    }
}
