//! The preset studies as one table: each entry is the data of one study (system, initial set,
//! methods and steps, end time, portraits, descriptions), and `preset` turns an entry into a
//! `Study`. `PRESETS` (names and one-line summaries) is derived from the same table.

use std::f64::consts::PI;

mod chaos;
mod frequency;
mod lagrangian;
mod modified;
mod variational;

use lagrangian::LagrangianPreset;

use super::{Study, StudyRun};
use crate::config::{EnsembleFile, Precision, RunFile};
use crate::error::Result;
use crate::input_err;
use crate::method::Method;

/// One preset study as plain data.
struct Preset {
    name: &'static str,
    /// One line for errors and `phaseflow list`.
    summary: &'static str,
    /// What the study reproduces and with which parameters (first paragraph of report.md).
    description: &'static str,
    system: &'static str,
    /// A Hamiltonian given as a formula in one degree of freedom, in place of `system`
    /// (which then names it in the report).
    formula: Option<&'static str>,
    /// A Lagrangian given as a formula, in place of `system` and `formula` (`system` then
    /// names it in the report).
    lagrangian: Option<&'static LagrangianPreset>,
    /// `--modified-hamiltonian K`: the mod_* columns, K correction terms.
    modified_hamiltonian: Option<u32>,
    /// Parameters set apart from the system's defaults (none: the defaults).
    params: &'static [(&'static str, f64)],
    ensemble: PresetEnsemble,
    precision: Option<Precision>,
    /// Compensated summation by default (the long runs, where round-off would otherwise
    /// accumulate over 10⁵–10⁶ steps; `--compensated false` turns it off).
    compensated: bool,
    tangent: Option<bool>,
    refine_tol: Option<f64>,
    runs: &'static [PresetRun],
    /// Every run goes to this time, in round(t_end / h) steps.
    t_end: f64,
    /// Portraits evenly spaced from t = 0 to `t_end`, both included.
    portraits: usize,
    /// Statistics rows per run.
    stats_rows: u64,
}

/// A preset's initial set: the ensemble kind and the settings it needs.
struct PresetEnsemble {
    kind: &'static str,
    points: Option<usize>,
    energy: Option<f64>,
    center: Option<&'static [f64]>,
    radius: Option<f64>,
    lo: Option<&'static [f64]>,
    hi: Option<&'static [f64]>,
    seed: Option<u64>,
}

/// The single-state presets' initial set (the system's own initial state).
const SINGLE_POINT: PresetEnsemble = PresetEnsemble {
    kind: "point",
    points: None,
    energy: None,
    center: None,
    radius: None,
    lo: None,
    hi: None,
    seed: None,
};

/// One method of a preset at its step, on the preset's system unless `system` says otherwise.
/// Methods are named (`Method::from_name`), so a shipped method file can be listed.
struct PresetRun {
    method: &'static str,
    dt: f64,
    system: Option<&'static str>,
    /// The study's reference solution (`StudyRun::reference`).
    reference: bool,
}

/// A run on the preset's system.
const fn run(method: &'static str, dt: f64) -> PresetRun {
    PresetRun {
        method,
        dt,
        system: None,
        reference: false,
    }
}

/// A run on its own system (a study comparing coordinates names each run's).
const fn run_in(system: &'static str, method: &'static str, dt: f64) -> PresetRun {
    PresetRun {
        method,
        dt,
        system: Some(system),
        reference: false,
    }
}

/// The reference solution, on its own system when `system` names one.
const fn reference(system: Option<&'static str>, method: &'static str, dt: f64) -> PresetRun {
    PresetRun {
        method,
        dt,
        system,
        reference: true,
    }
}

/// The pendulum level through q = π/6 at rest: 1 − cos(π/6) (f64's `cos` is not const; a unit
/// test checks the digits).
const PENDULUM_LEVEL_E: f64 = 0.1339745962155613;

/// The pendulum-level presets' loop: 2000 points evenly spaced in angle on that level.
const PENDULUM_LEVEL: PresetEnsemble = PresetEnsemble {
    kind: "level",
    points: Some(2000),
    energy: Some(PENDULUM_LEVEL_E),
    ..SINGLE_POINT
};

/// Refinement tolerance 2e-3 of the loop's size: the 2000 points of `PENDULUM_LEVEL` already
/// resolve the level curve to it (the polygon's area to ~2e-6, the curved one's to ~1e-10),
/// so nodes are inserted only where the methods
/// stretch the set. The default 5e-4 would start from 10 000 nodes (5× the work).
const PENDULUM_LEVEL_REFINE_TOL: f64 = 2e-3;

/// The spring chain experiments' steps: 1/16384 for N = 8, 1/256 for N = 32 (powers of two, so
/// the step counts below give their end times exactly).
const CHAIN_I_H: f64 = 1.0 / 16384.0;
const CHAIN_H: f64 = 1.0 / 256.0;

/// A spring chain experiment's description: the cord, then the experiment.
macro_rules! chain_description {
    ($experiment:literal) => {
        concat!(
            "González-Santos's vertical elastic cord: N point masses hanging from a fixed point, joined by springs (total length 1, total mass 1, k_i = 1000, g = 9.81, y downwards; Table 1), started from the equilibrium with the free end given the horizontal momentum α. ",
            $experiment,
            " The trajectory of the single state is in each method's trajectory.csv."
        )
    };
}

/// A spring chain experiment (`params`: N and the free end's initial momentum α): one state
/// in f64, its trajectory kept from start to end.
const fn chain(
    name: &'static str,
    summary: &'static str,
    description: &'static str,
    params: &'static [(&'static str, f64)],
    runs: &'static [PresetRun],
    t_end: f64,
) -> Preset {
    Preset {
        name,
        summary,
        description,
        system: "spring-chain",
        formula: None,
        lagrangian: None,
        modified_hamiltonian: None,
        params,
        ensemble: SINGLE_POINT,
        precision: Some(Precision::F64),
        compensated: true,
        // 64 degrees of freedom would carry 128 tangent columns each.
        tangent: Some(false),
        refine_tol: None,
        runs,
        t_end,
        portraits: 2,
        stats_rows: 2000,
    }
}

/// Every preset, in the order `phaseflow list` shows them.
const TABLE: &[Preset] = &[
    Preset {
        name: "pendulum-level",
        summary: "González-Santos: 2000 points on the pendulum level E = 1 − cos(π/6), explicit Euler vs symplectic Euler and Verlet at h = 0.0005 to t = 2000",
        description: "González-Santos's experiment: the pendulum H = p²/2 + 1 − cos q (m = g = l = 1), 2000 points evenly spaced in angle on the level curve E = 1 − cos(π/6) = 0.1339746 (the orbit through q = π/6 at rest), each method at h = 0.0005 up to t = 2000 (4 000 000 steps), phase portraits every 500 time units (as in the paper's figure 3). Loop refinement at 2e-3 of the loop's size: a polygon through such nodes misses the area by ~2e-6, the curved correction between them (the area as measured) by ~1e-10, which is where the symplectic methods' area ratios lie. It runs with compensated summation by default, which keeps f32 within a few 1e-8 of the f64 figures (--precision f64 for the reference figures); without it (--compensated false) the round-off of 4 000 000 f32 steps is as large as symplectic Euler's energy error and larger than Verlet's, and sheared neighbouring nodes can merge.",
        system: "pendulum",
        formula: None,
        lagrangian: None,
        modified_hamiltonian: None,
        params: &[],
        ensemble: PENDULUM_LEVEL,
        precision: None,
        compensated: true,
        tangent: Some(true),
        refine_tol: Some(PENDULUM_LEVEL_REFINE_TOL),
        runs: &[
            run("euler", 0.0005),
            run("symplectic-euler-a", 0.0005),
            run("verlet", 0.0005),
        ],
        t_end: 2000.0,
        // Every 500 time units.
        portraits: 5,
        stats_rows: 400,
    },
    Preset {
        name: "rk-symplecticity",
        summary: "GNI VI.4: the pendulum level loop under Gauss and Lobatto IIIA–IIIB (symplectic) against Radau IIA and RK4 (not), f64, h = 0.05 for 100 000 steps; area",
        description: "The symplecticity conditions of Runge–Kutta methods (Hairer, Lubich and Wanner, Geometric Numerical Integration, Section VI.4: b_i a_ij + b_j a_ji = b_i b_j, and its form for partitioned methods) seen on a loop: the pendulum H = p²/2 + 1 − cos q, the 2000 points of the pendulum-level preset on the level E = 1 − cos(π/6) (loop refinement at 2e-3 of the loop's size), in f64 with compensated summation, under the 2-stage Gauss method (order 4) and the 3-stage Lobatto IIIA–IIIB pair (order 4), which satisfy the conditions, and under the 2-stage Radau IIA method (order 3) and the classical Runge–Kutta method RK4 (order 4), which do not; all at h = 0.05 for 100 000 steps (t = 5000, about 780 periods), phase portraits every 1250 time units. The loop's area (∮ p·dq, measured with the curved correction) is kept by a symplectic map: Gauss and Lobatto keep it to within 1e-11 of the initial area, while Radau IIA, dissipative, shrinks it by about 1.6 % and RK4 by about 2e-5. Under What happened, each method's second line says which conditions its coefficients satisfy (as `phaseflow method check` does).",
        system: "pendulum",
        formula: None,
        lagrangian: None,
        modified_hamiltonian: None,
        params: &[],
        ensemble: PENDULUM_LEVEL,
        precision: Some(Precision::F64),
        compensated: true,
        tangent: Some(true),
        refine_tol: Some(PENDULUM_LEVEL_REFINE_TOL),
        runs: &[
            run("gauss2", 0.05),
            run("lobatto-iiia-iiib-3", 0.05),
            run("radau-iia-2", 0.05),
            run("rk4", 0.05),
        ],
        t_end: 5000.0,
        // Every 1250 time units.
        portraits: 5,
        stats_rows: 500,
    },
    Preset {
        name: "oscillator-rectangle",
        summary: "Brorson: a small rectangle at 12 o'clock on the unit circle of the oscillator, forward Euler vs symplectic Euler for four periods",
        description: "Brorson's experiment: the harmonic oscillator H = (p² + q²)/2, the boundary of the rectangle q ∈ [−0.15, 0.15], p ∈ [0.85, 1.15] (at 12 o'clock on the unit circle, 400 nodes), forward Euler against symplectic Euler at h = 2π/128 for four periods (512 steps), portraits every 4/9 of a period (as in Brorson's figures 7.6 and 7.7).",
        system: "oscillator",
        formula: None,
        lagrangian: None,
        modified_hamiltonian: None,
        params: &[],
        ensemble: PresetEnsemble {
            kind: "rect",
            points: Some(400),
            lo: Some(&[-0.15, 0.85]),
            hi: Some(&[0.15, 1.15]),
            ..SINGLE_POINT
        },
        precision: None,
        compensated: false,
        tangent: Some(true),
        refine_tol: None,
        runs: &[
            run("euler", 2.0 * PI / 128.0),
            run("symplectic-euler-a", 2.0 * PI / 128.0),
        ],
        t_end: 8.0 * PI,
        // 4/9 of a period apart: the rectangle shows up all around the circle
        portraits: 10,
        stats_rows: 256,
    },
    Preset {
        name: "pendulum-disks",
        summary: "GNI Example VI.3.2: a disk of pendulum states under the first-order methods at h = π/4 and the second-order ones at h = π/3",
        description: "After Hairer, Lubich and Wanner, Geometric Numerical Integration, Example VI.3.2: a disk of initial values of the pendulum H = p²/2 − cos q evolved by the first-order methods (explicit Euler, symplectic Euler A and B) at h = π/4 and the second-order ones (Störmer–Verlet, position Verlet, implicit midpoint) at h = π/3, to t = 4π (16 resp. 12 steps). The disk (our choice, not GNI's): 4000 points uniform in the disk of radius 0.5 about (q, p) = (0, 1), seed 0, librations with energies 0.125 to 1.2. Area from the tangent map, |A0| · mean det DΦⁿ; portraits at t = 0, π, 2π, 3π, 4π.",
        system: "pendulum",
        formula: None,
        lagrangian: None,
        modified_hamiltonian: None,
        params: &[],
        ensemble: PresetEnsemble {
            kind: "disk",
            points: Some(4000),
            center: Some(&[0.0, 1.0]),
            radius: Some(0.5),
            seed: Some(0),
            ..SINGLE_POINT
        },
        precision: None,
        compensated: false,
        tangent: Some(true),
        refine_tol: None,
        runs: &[
            run("euler", PI / 4.0),
            run("symplectic-euler-a", PI / 4.0),
            run("symplectic-euler-b", PI / 4.0),
            run("verlet", PI / 3.0),
            run("position-verlet", PI / 3.0),
            run("implicit-midpoint", PI / 3.0),
        ],
        t_end: 4.0 * PI,
        portraits: 5,
        stats_rows: 16,
    },
    Preset {
        name: "elastic-pendulum",
        summary: "Takács and Fülöp: the elastic pendulum (ĝ = 0.2) from r = 1, θ = π/2 at rest, polar against Cartesian stepping with symplectic Euler A and B at h = 0.2 to t = 10000",
        description: "Takács and Fülöp's comparison of coordinates: the elastic pendulum H = (p_r² + p_θ²/r²)/2 + (r − 1)²/2 − ĝ r cos θ with ĝ = 0.2, started at r = 1, θ = π/2 at rest (E = 0), advanced with symplectic Euler A and B at h = 0.2 to t = 10000 (50 000 steps) once in polar coordinates (r, θ; not separable, but both variants are explicit with the sub-updates ordered) and once in Cartesian coordinates (x = r sin θ, y = r cos θ; separable). The same physical motion, different discretisations: the energy-error statistics (absolute, since E = 0) differ with the coordinates.",
        system: "elastic-pendulum",
        formula: None,
        lagrangian: None,
        modified_hamiltonian: None,
        params: &[],
        ensemble: SINGLE_POINT,
        precision: Some(Precision::F64),
        compensated: true,
        tangent: None,
        refine_tol: None,
        runs: &[
            run_in("elastic-pendulum", "symplectic-euler-a", 0.2),
            run_in("elastic-pendulum", "symplectic-euler-b", 0.2),
            run_in("elastic-pendulum-cartesian", "symplectic-euler-a", 0.2),
            run_in("elastic-pendulum-cartesian", "symplectic-euler-b", 0.2),
        ],
        t_end: 10_000.0,
        portraits: 2,
        stats_rows: 2000,
    },
    Preset {
        name: "elastic-pendulum-short",
        summary: "Takács and Fülöp: the elastic pendulum to t = 120 with explicit Euler (h = 0.02), symplectic Euler A and B (h = 0.2) and RK4 (h = 0.002) as the reference",
        description: "Takács and Fülöp's short run: the polar elastic pendulum (ĝ = 0.2) from r = 1, θ = π/2 at rest to t = 120 with explicit Euler at h = 0.02, symplectic Euler A and B at h = 0.2, and RK4 at h = 0.002 as the reference solution.",
        system: "elastic-pendulum",
        formula: None,
        lagrangian: None,
        modified_hamiltonian: None,
        params: &[],
        ensemble: SINGLE_POINT,
        precision: Some(Precision::F64),
        compensated: false,
        tangent: None,
        refine_tol: None,
        runs: &[
            run("euler", 0.02),
            run("symplectic-euler-a", 0.2),
            run("symplectic-euler-b", 0.2),
            run("rk4", 0.002),
        ],
        t_end: 120.0,
        portraits: 2,
        stats_rows: 600,
    },
    chain(
        "spring-chain-i",
        "González-Santos, experiment I: the vertical spring chain N = 8 (Table 1), explicit Euler, RK3, Störmer–Verlet and symplectic Euler at h = 1/16384 for 200 000 steps; energy",
        chain_description!("Experiment I: N = 8, h = 1/16384, 200 000 steps (t = 12.207), explicit Euler, RK3, Störmer–Verlet and symplectic Euler. The paper reports that explicit Euler gains energy exponentially from t ≈ 10 while the others keep it, symplectic Euler's oscillation staying below 1e-5 (its figure 6)."),
        &[("n", 8.0), ("alpha", 1.5625e-2)],
        &[
            run("euler", CHAIN_I_H),
            run("rk3", CHAIN_I_H),
            run("verlet", CHAIN_I_H),
            run("symplectic-euler-a", CHAIN_I_H),
        ],
        200_000.0 * CHAIN_I_H,
    ),
    chain(
        "spring-chain-ii",
        "González-Santos, experiment II: the chain with N = 32 at h = 1/256 for 100 000 steps, RK3, Störmer–Verlet and symplectic Euler; the free end's x(t)",
        chain_description!("Experiment II: N = 32, h = 1/256, the three methods that survived experiment I (RK3, Störmer–Verlet, symplectic Euler), 100 000 steps (t = 390.6; the paper prints the count ambiguously as \"100,0000\", and 100 000 fits its panel times); the free end's x(t) (its figures 7–8)."),
        &[("n", 32.0), ("alpha", 1.5625e-2)],
        &[
            run("rk3", CHAIN_H),
            run("verlet", CHAIN_H),
            run("symplectic-euler-a", CHAIN_H),
        ],
        100_000.0 * CHAIN_H,
    ),
    chain(
        "spring-chain-iii",
        "González-Santos, experiment III: as II with an initial impulse of 2 on the free end (read as velocity 2: momentum 2/32), 150 000 steps; x(t) and energy",
        chain_description!("Experiment III: as II with an initial impulse of 2 on the free end, 150 000 steps (t = 585.9); the paper reports that the methods agree at first and drift out of phase later, that RK3 loses energy and that Störmer–Verlet keeps it with smaller oscillations than symplectic Euler (its figures 9–12). Our reading: the free end starts with velocity 2, i.e. momentum α = 2·m_N = 2/32 = 0.0625. Read as a momentum of 2 (velocity 64, a quarter of the cord's length per step), the chain is torn apart and the symplectic methods' energy grows by a factor of thousands at h = 1/256, contrary to the paper; the velocity reading reproduces every observation it reports."),
        &[("n", 32.0), ("alpha", 2.0 / 32.0)],
        &[
            run("rk3", CHAIN_H),
            run("verlet", CHAIN_H),
            run("symplectic-euler-a", CHAIN_H),
        ],
        150_000.0 * CHAIN_H,
    ),
    Preset {
        name: "kepler",
        summary: "GNI I.2.3: the Kepler orbit of eccentricity 0.6, explicit Euler against symplectic Euler and Störmer–Verlet; energy and angular momentum",
        description: "After Hairer, Lubich and Wanner, Geometric Numerical Integration, Section I.2.3: the Kepler problem H = |p|²/2 − 1/|q| from the pericentre of the orbit of eccentricity e = 0.6 (q = (0.4, 0), p = (0, 2), H0 = −1/2, L0 = 0.8, period 2π), to t = 200 (about 32 periods). Steps (our choice, in the spirit of GNI's figure I.2.2): explicit Euler at h = 0.0005 (400 000 steps), symplectic Euler A and Störmer–Verlet at h = 0.05 (4000 steps). Explicit Euler's energy error grows like t·h and it loses angular momentum; the symplectic methods keep L to roundoff and their energy error bounded.",
        system: "kepler",
        formula: None,
        lagrangian: None,
        modified_hamiltonian: None,
        params: &[],
        ensemble: SINGLE_POINT,
        precision: Some(Precision::F64),
        compensated: true,
        tangent: None,
        refine_tol: None,
        runs: &[
            run("euler", 0.0005),
            run("symplectic-euler-a", 0.05),
            run("verlet", 0.05),
        ],
        t_end: 200.0,
        portraits: 2,
        stats_rows: 1000,
    },
];

/// Preset names with a one-line description (for errors and `phaseflow list`).
pub const PRESETS: &[(&str, &str)] = &summaries();

/// Every preset: this file's table, the modified Hamiltonian's (`modified.rs`), Torrente's
/// variational integrators (`variational.rs`), the Lagrangian formulas' (`lagrangian.rs`),
/// the chaos presets (`chaos.rs`), then the frequency maps (`frequency.rs`).
const COUNT: usize = TABLE.len()
    + modified::TABLE.len()
    + variational::TABLE.len()
    + lagrangian::TABLE.len()
    + chaos::TABLE.len()
    + frequency::TABLE.len();

/// The tables' names and one-line summaries, in order.
const fn summaries() -> [(&'static str, &'static str); COUNT] {
    let mut out = [("", ""); COUNT];
    let mut i = 0;
    while i < COUNT {
        let m = TABLE.len() + modified::TABLE.len();
        let v = m + variational::TABLE.len();
        let s = v + lagrangian::TABLE.len();
        let p = if i < TABLE.len() {
            &TABLE[i]
        } else if i < m {
            &modified::TABLE[i - TABLE.len()]
        } else if i < v {
            &variational::TABLE[i - m]
        } else if i < s {
            &lagrangian::TABLE[i - v]
        } else {
            out[i] = if i < s + chaos::TABLE.len() {
                (chaos::TABLE[i - s].name, chaos::TABLE[i - s].summary)
            } else {
                let f = &frequency::TABLE[i - s - chaos::TABLE.len()];
                (f.name, f.summary)
            };
            i += 1;
            continue;
        };
        out[i] = (p.name, p.summary);
        i += 1;
    }
    out
}

/// The named preset study.
pub fn preset(name: &str) -> Result<Study> {
    TABLE
        .iter()
        .chain(modified::TABLE)
        .chain(variational::TABLE)
        .chain(lagrangian::TABLE)
        .find(|p| p.name == name)
        .map(Preset::study)
        .or_else(|| {
            (chaos::TABLE.iter())
                .find(|p| p.name == name)
                .map(chaos::ChaosPreset::study)
        })
        .or_else(|| {
            (frequency::TABLE.iter())
                .find(|p| p.name == name)
                .map(frequency::FrequencyPreset::study)
        })
        .transpose()?
        .ok_or_else(|| {
            let names: Vec<&str> = PRESETS.iter().map(|p| p.0).collect();
            input_err!(
                "--preset {name}: unknown study preset{} (known: {})",
                crate::error::did_you_mean(name, names.iter().copied()),
                names.join(", ")
            )
        })
}

impl Preset {
    /// The preset as a study: its runs to `t_end`, its portraits spread evenly over it.
    fn study(&self) -> Result<Study> {
        let t_end = self.t_end;
        let last = self.portraits - 1;
        Ok(Study {
            name: self.name.into(),
            description: self.description.into(),
            base: RunFile {
                modified_hamiltonian: self.modified_hamiltonian,
                params: (!self.params.is_empty()).then(|| {
                    self.params
                        .iter()
                        .map(|&(k, v)| (k.to_string(), v))
                        .collect()
                }),
                ensemble: Some(self.ensemble.file()),
                precision: self.precision,
                compensated: Some(self.compensated),
                tangent: self.tangent,
                refine_tol: self.refine_tol,
                ..self.system_keys()
            },
            runs: self
                .runs
                .iter()
                .map(|r| {
                    Ok(StudyRun {
                        method: Method::from_name(r.method)?,
                        dt: r.dt,
                        steps: (t_end / r.dt).round() as u64,
                        system: r.system.map(String::from),
                        vary: None,
                        reference: r.reference,
                    })
                })
                .collect::<Result<_>>()?,
            portrait_times: (0..=last).map(|k| t_end * k as f64 / last as f64).collect(),
            stats_rows: self.stats_rows,
        })
    }
}

impl PresetEnsemble {
    /// The ensemble section of the preset's run file.
    fn file(&self) -> EnsembleFile {
        EnsembleFile {
            kind: Some(self.kind.into()),
            points: self.points,
            energy: self.energy,
            center: self.center.map(<[f64]>::to_vec),
            radius: self.radius,
            lo: self.lo.map(<[f64]>::to_vec),
            hi: self.hi.map(<[f64]>::to_vec),
            seed: self.seed,
            ..Default::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pendulum_level_energy_is_one_minus_cos_pi_over_six() {
        assert_eq!(PENDULUM_LEVEL_E, 1.0 - (PI / 6.0).cos());
    }

    #[test]
    fn every_listed_preset_builds_and_unknown_names_are_refused() {
        for (name, _) in PRESETS {
            let st = preset(name).unwrap();
            assert_eq!(st.name, *name);
            assert_eq!(st.portrait_times.first(), Some(&0.0), "{name}");
        }
        let chain = preset("spring-chain-i").unwrap();
        assert!(chain.runs.iter().all(|r| r.steps == 200_000));
        assert_eq!(chain.portrait_times, [0.0, 200_000.0 / 16384.0]);
        let err = preset("no-such-study").unwrap_err().to_string();
        assert!(
            err.contains("unknown study preset (known: pendulum-level,"),
            "{err}"
        );
    }
}
