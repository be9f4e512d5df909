//! The chaos presets: a grid of initial conditions with the chaos indicators (`--chaos
//! megno,lyapunov`), each run's map.png of MEGNO over the grid and, with a section, its
//! Poincaré section coloured by MEGNO; studies across energies or a parameter run one grid per
//! value (`StudyRun::vary`) and draw the largest energy error and the chaotic fraction
//! against it. Sized to take well under two minutes each on a two-core CPU.

use super::super::{Study, StudyRun, Variation};
use crate::config::{EnsembleFile, Precision, RunFile};
use crate::error::Result;
use crate::method::Method;

/// One chaos preset as plain data.
pub(super) struct ChaosPreset {
    pub name: &'static str,
    pub summary: &'static str,
    description: &'static str,
    system: &'static str,
    /// The grid: its two coordinates (`--grid-axes`), corners (q1..qd, p1..pd; the other
    /// coordinates at the middle) and points (a perfect square).
    axes: &'static str,
    lo: &'static [f64],
    hi: &'static [f64],
    points: usize,
    /// The grid's energy surface (`--energy`; p1 solved), unless each run gives its own.
    energy: Option<f64>,
    method: &'static str,
    dt: f64,
    t_end: f64,
    /// `--section`, with each point's first `section_max` crossings kept.
    section: Option<(&'static str, u32)>,
    /// One run per entry (none: one run of the preset's settings).
    vary: &'static [Vary],
    /// `--chaos` (none: no indicators).
    chaos: Option<&'static str>,
    /// `--stop-when`, each condition one exit (`run::basins`).
    stop_when: &'static [&'static str],
}

/// One run's own energy surface or parameter value.
struct Vary {
    label: &'static str,
    energy: Option<f64>,
    param: Option<(&'static str, f64)>,
}

const fn energy(label: &'static str, e: f64) -> Vary {
    Vary {
        label,
        energy: Some(e),
        param: None,
    }
}

const fn g_hat(label: &'static str, g: f64) -> Vary {
    Vary {
        label,
        energy: None,
        param: Some(("g_hat", g)),
    }
}

/// The Hénon–Heiles section q1 = 0 in (q2, p2): a box holding the whole surface up to the
/// escape energy 1/6 (q2 from −1/2 to 1, |p2| ≤ √(1/3)).
const HH_LO: &[f64] = &[0.0, -0.5, 0.0, -0.6];
const HH_HI: &[f64] = &[0.0, 1.0, 0.0, 0.6];

/// The chaos presets, after the other tables.
pub(super) const TABLE: &[ChaosPreset] = &[
    ChaosPreset {
        name: "henon-heiles-section",
        summary: "Hénon & Heiles 1964: sections q1 = 0 at E = 1/12, 1/8, 1/6 from a 60 × 60 grid in (q2, p2), coloured by MEGNO; the chaotic fraction per energy",
        description: concat!(
            "The Hénon–Heiles system H = (p1² + p2²)/2 + (q1² + q2²)/2 + q1² q2 − q2³/3 at the three energies of Hénon & Heiles 1964, \"The applicability of the third integral of motion: some numerical experiments\": E = 1/12, 1/8 and 1/6. ",
            "At each energy a 60 × 60 grid of initial conditions in (q2, p2) on q1 = 0 (q2 from −0.5 to 1, p2 from −0.6 to 0.6; p1 ≥ 0 solved from H = E, grid points outside the energy surface left out), Yoshida's fourth-order composition at h = 0.05 to t = 1000, in f64. ",
            "Each energy's folder holds the Poincaré section q1 = 0 (upward crossings, the first 200 of each orbit) coloured by the orbit's MEGNO ⟨Y⟩ (Cincotta & Simó 2000, \"Simple tools to study global dynamics in non-axisymmetric galactic potentials\") and the MEGNO map over the grid. ",
            "Hénon and Heiles found the section filled by invariant curves at E = 1/12, a chaotic sea between islands at E = 1/8 and almost all of it chaotic at E = 1/6; the chaotic fraction (points with ⟨Y⟩ > 4) grows accordingly."
        ),
        system: "henon-heiles",
        axes: "q2,p2",
        lo: HH_LO,
        hi: HH_HI,
        points: 3600,
        energy: None,
        method: "yoshida4",
        dt: 0.05,
        t_end: 1000.0,
        section: Some(("q1=0", 200)),
        vary: &[
            energy("E=1/12", 1.0 / 12.0),
            energy("E=1/8", 1.0 / 8.0),
            energy("E=1/6", 1.0 / 6.0),
        ],
        chaos: Some(MEGNO),
        stop_when: &[],
    },
    ChaosPreset {
        name: "henon-heiles-megno-map",
        summary: "Cincotta & Simó 2000: the MEGNO map of Hénon–Heiles at E = 1/8 over a 150 × 150 grid in (q2, p2) on q1 = 0, yoshida4 at h = 0.05 to t = 500",
        description: "The MEGNO map of the Hénon–Heiles system (Hénon & Heiles 1964, \"The applicability of the third integral of motion: some numerical experiments\") at E = 1/8, as in Cincotta & Simó 2000, \"Simple tools to study global dynamics in non-axisymmetric galactic potentials\": a 150 × 150 grid of initial conditions in (q2, p2) on q1 = 0 (q2 from −0.45 to 0.7, p2 from −0.52 to 0.52; p1 ≥ 0 solved from H = E), Yoshida's fourth-order composition at h = 0.05 to t = 500, in f64. MEGNO ⟨Y⟩ approaches 2 on the invariant tori of the islands and grows like λt/2 in the chaotic sea; map.png shows ⟨Y⟩ per grid point (colours clipped to 0–8), grid points off the energy surface in grey.",
        system: "henon-heiles",
        axes: "q2,p2",
        lo: &[0.0, -0.45, 0.0, -0.52],
        hi: &[0.0, 0.7, 0.0, 0.52],
        points: 22_500,
        energy: Some(1.0 / 8.0),
        method: "yoshida4",
        dt: 0.05,
        t_end: 500.0,
        section: None,
        vary: &[],
        chaos: Some(MEGNO),
        stop_when: &[],
    },
    ChaosPreset {
        name: "double-pendulum-chaos-map",
        summary: "The double pendulum released from rest: the MEGNO map over θ1, θ2 in (−3.1, 3.1)², a 64 × 64 grid, 2-stage Gauss at h = 0.02 to t = 50",
        description: "The double pendulum (unit masses and rods, g = 1; angles from the downward vertical, canonical momenta) released from rest at every (θ1, θ2) of a 64 × 64 grid over (−3.1, 3.1)², as in the chaos maps of Stachowiak & Okada 2006, \"A numerical analysis of chaos in the double pendulum\": the 2-stage Gauss method (its Hamiltonian is not separable) at h = 0.02 to t = 50, in f64. Small releases stay regular (MEGNO ⟨Y⟩ near 2 or below), large ones, where the outer bob can turn over, are chaotic; map.png shows ⟨Y⟩ over (θ1, θ2), colours clipped to 0–8.",
        system: "double-pendulum",
        axes: "q1,q2",
        lo: &[-3.1, -3.1, 0.0, 0.0],
        hi: &[3.1, 3.1, 0.0, 0.0],
        points: 4096,
        energy: None,
        method: "gauss2",
        dt: 0.02,
        t_end: 50.0,
        section: None,
        vary: &[],
        chaos: Some(MEGNO),
        stop_when: &[],
    },
    ChaosPreset {
        name: "elastic-pendulum-sweep",
        summary: "Lynch 2002: the elastic pendulum released from rest over a 32 × 32 grid of positions, ĝ from 0.01 to 0.5 in 8 values; energy error and chaotic fraction against ĝ",
        description: "The elastic pendulum (a mass on a spring of natural length 1 swinging in a plane; Lynch 2002, \"The swinging spring: a simple model of atmospheric balance\") in Cartesian coordinates, H = |p|²/2 + (|q| − 1)²/2 − ĝ y with y downwards, where ĝ = g m/(k l) measures gravity against the spring. For each of 8 values of ĝ from 0.01 to 0.5 (step 0.07) the mass is released from rest at every position of a 32 × 32 grid (x from 0.5 to 1.2, y from 0 to 0.8), Störmer–Verlet at h = 0.02 to t = 1000, in f64. The figures show, against ĝ, the largest energy error over each run's points and times and the fraction of points whose MEGNO ⟨Y⟩ exceeds 4 at the end; each value's folder holds its MEGNO map over the grid.",
        system: "elastic-pendulum-cartesian",
        axes: "q1,q2",
        lo: &[0.5, 0.0, 0.0, 0.0],
        hi: &[1.2, 0.8, 0.0, 0.0],
        points: 1024,
        energy: None,
        method: "verlet",
        dt: 0.02,
        t_end: 1000.0,
        section: None,
        vary: &[
            g_hat("g_hat=0.01", 0.01),
            g_hat("g_hat=0.08", 0.08),
            g_hat("g_hat=0.15", 0.15),
            g_hat("g_hat=0.22", 0.22),
            g_hat("g_hat=0.29", 0.29),
            g_hat("g_hat=0.36", 0.36),
            g_hat("g_hat=0.43", 0.43),
            g_hat("g_hat=0.5", 0.5),
        ],
        chaos: Some(MEGNO),
        stop_when: &[],
    },
    ChaosPreset {
        name: "henon-heiles-exit-basins",
        summary: "Aguirre, Vallejo & Sanjuán 2001: the exit basins of Hénon–Heiles at E = 0.25 over a 300 × 300 grid in (q2, p2) on q1 = 0, the three channels as exits; escape times and the fraction per exit",
        description: concat!(
            "The exit basins of the Hénon–Heiles system above its escape energy 1/6, as in Aguirre, Vallejo & Sanjuán 2001, \"Wada basins and chaotic invariant sets in the Hénon–Heiles system\": at E = 0.25 a 300 × 300 grid of initial conditions in (q2, p2) on q1 = 0 (q2 from −0.7 to 1.1, p2 from −0.75 to 0.75; p1 ≥ 0 solved from H = E, grid points outside the energy surface left out), Yoshida's fourth-order composition at h = 0.01 to t = 100, in f64. ",
            "The potential opens in three channels, at the angles π/2, 7π/6 and 11π/6 of the (q1, q2) plane, each past a saddle at distance 1 from the origin. A point leaves by channel k once its position's component along the channel's direction u_k exceeds 2, twice the saddle's distance (u1 = (0, 1), u2 = (−√3/2, −1/2), u3 = (√3/2, −1/2); beyond it the energy surface is confined to the channels, and orbits there do not come back): exit 1 is q2 > 2, exit 2 −√3 q1 − q2 > 4, exit 3 √3 q1 − q2 > 4, and a point stops when it first meets one. ",
            "basins.png colours each grid point by its exit (black: none by t = 100), escape_time.png by the time it left; exits.csv and the table below give the fraction per exit and of the points that did not leave. ",
            "Large basins of one exit are bounded by thin bands where all three exits alternate at every scale: the boundary points of one basin are boundary points of all three (the Wada property Aguirre, Vallejo and Sanjuán found), and the points that stay longest lie along them, near the stable manifold of the chaotic invariant set."
        ),
        system: "henon-heiles",
        axes: "q2,p2",
        lo: &[0.0, -0.7, 0.0, -0.75],
        hi: &[0.0, 1.1, 0.0, 0.75],
        points: 90_000,
        energy: Some(0.25),
        method: "yoshida4",
        dt: 0.01,
        t_end: 100.0,
        section: None,
        vary: &[],
        chaos: None,
        stop_when: HH_EXITS,
    },
];

/// The indicators of the MEGNO presets.
const MEGNO: &str = "megno,lyapunov";

/// Hénon–Heiles's three channels as exits: the position's component along the channel's
/// direction (angles π/2, 7π/6, 11π/6) beyond 2, twice the saddles' distance.
pub(super) const HH_EXITS: &[&str] = &["q2 > 2", "-sqrt(3)*q1 - q2 > 4", "sqrt(3)*q1 - q2 > 4"];

impl ChaosPreset {
    /// The preset as a study: one run per variation (or one), each to `t_end`.
    pub(super) fn study(&self) -> Result<Study> {
        let method = Method::from_name(self.method)?;
        let steps = (self.t_end / self.dt).round() as u64;
        let run = |vary: Option<Variation>| StudyRun {
            method,
            dt: self.dt,
            steps,
            system: None,
            vary,
            reference: false,
        };
        let runs = match self.vary {
            [] => vec![run(None)],
            vary => vary
                .iter()
                .map(|v| {
                    run(Some(Variation {
                        label: v.label.into(),
                        energy: v.energy,
                        params: v
                            .param
                            .map(|(k, x)| (k.to_string(), x))
                            .into_iter()
                            .collect(),
                    }))
                })
                .collect(),
        };
        Ok(Study {
            name: self.name.into(),
            description: self.description.into(),
            base: RunFile {
                system: Some(self.system.into()),
                ensemble: Some(grid_ensemble(
                    self.points,
                    (self.lo, self.hi),
                    self.energy,
                    self.axes,
                )),
                precision: Some(Precision::F64),
                // The indicators' deviation vector takes the tangent column, and is advanced
                // without compensated summation (and stopped points none).
                compensated: Some(false),
                tangent: Some(false),
                chaos: self.chaos.map(Into::into),
                stop_when: match self.stop_when {
                    [] => None,
                    s => Some(s.iter().map(|c| c.to_string()).collect()),
                },
                section: self.section.map(|(s, _)| s.into()),
                section_max: self.section.map(|(_, m)| m),
                ..Default::default()
            },
            runs,
            portrait_times: vec![0.0, self.t_end],
            stats_rows: 100,
        })
    }
}

/// A preset's grid ensemble: `points` over the box (`lo`, `hi`) in the plane `axes`, on the
/// energy surface H = `energy` where given.
pub(super) fn grid_ensemble(
    points: usize,
    (lo, hi): (&[f64], &[f64]),
    energy: Option<f64>,
    axes: &str,
) -> EnsembleFile {
    EnsembleFile {
        kind: Some("grid".into()),
        points: Some(points),
        lo: Some(lo.to_vec()),
        hi: Some(hi.to_vec()),
        energy,
        grid_axes: Some(axes.into()),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn henon_heiles_cites_the_paper_and_its_energies_grow() {
        let hh = TABLE
            .iter()
            .find(|p| p.name == "henon-heiles-section")
            .unwrap();
        assert!(hh.description.contains("Hénon & Heiles 1964"));
        let e: Vec<f64> = hh.vary.iter().filter_map(|v| v.energy).collect();
        assert_eq!(e, [1.0 / 12.0, 1.0 / 8.0, 1.0 / 6.0]);
        for p in TABLE {
            let m = (p.points as f64).sqrt() as usize;
            assert_eq!(
                m * m,
                p.points,
                "{}: the grid needs a perfect square",
                p.name
            );
            let st = p.study().unwrap();
            assert_eq!(st.runs.len(), p.vary.len().max(1), "{}", p.name);
        }
    }
}
