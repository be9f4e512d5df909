//! The frequency-map presets: a grid of initial conditions with the frequency analysis
//! (`--frequencies`), each run's frequency map (the two fundamental frequencies against each
//! other, coloured by the diffusion index) and diffusion map over the grid.

use super::super::{Study, StudyRun};
use super::chaos::grid_ensemble;
use crate::config::{Precision, RunFile};
use crate::error::Result;
use crate::method::Method;

/// One frequency-map preset as plain data.
pub(super) struct FrequencyPreset {
    pub name: &'static str,
    pub summary: &'static str,
    description: &'static str,
    system: &'static str,
    /// The grid: its two coordinates, corners (q1..qd, p1..pd) and points (a perfect square).
    axes: &'static str,
    lo: &'static [f64],
    hi: &'static [f64],
    points: usize,
    energy: Option<f64>,
    method: &'static str,
    dt: f64,
    t_end: f64,
    /// `--frequencies` and `--frequency-stride`.
    signals: &'static str,
    stride: u64,
}

pub(super) const TABLE: &[FrequencyPreset] = &[FrequencyPreset {
    name: "henon-heiles-frequency-map",
    summary: "Laskar 1993: the frequency map of Hénon–Heiles at E = 1/8 from a 120 × 120 grid in (q2, p2) on q1 = 0, NAFF of q1 − i p1 and q2 − i p2 over t = 400 and its halves",
    description: concat!(
        "The frequency map of the Hénon–Heiles system H = (p1² + p2²)/2 + (q1² + q2²)/2 + q1² q2 − q2³/3 at E = 1/8, after J. Laskar, \"Frequency analysis for multi-dimensional systems. Global dynamics and diffusion\" (Physica D 67, 1993): ",
        "a 120 × 120 grid of initial conditions in (q2, p2) on q1 = 0 (q2 from −0.45 to 0.7, p2 from −0.52 to 0.52; p1 ≥ 0 solved from H = E, grid points outside the energy surface left out), Yoshida's fourth-order composition at h = 0.05 to t = 400, in f64. ",
        "Every 4 steps (Δt = 0.2) the complex signals q1 − i p1 and q2 − i p2 are sampled; NAFF (the Hann-windowed Fourier projection, its modulus maximised to the rounding level) gives each orbit's two fundamental frequencies ν1, ν2 over the whole run and over each half. ",
        "frequency-map.png shows ν2 against ν1, coloured by the diffusion index log10‖ν(first half) − ν(second half)‖: regular orbits (invariant tori) lie on a smooth curve with small indices, resonant islands gather on the lines k1 ν1 + k2 ν2 = 0 (the gaps and clusters along the curve), and the chaotic orbits scatter with large indices. diffusion-map.png shows the index over the initial grid."
    ),
    system: "henon-heiles",
    axes: "q2,p2",
    lo: &[0.0, -0.45, 0.0, -0.52],
    hi: &[0.0, 0.7, 0.0, 0.52],
    points: 14_400,
    energy: Some(1.0 / 8.0),
    method: "yoshida4",
    dt: 0.05,
    t_end: 400.0,
    signals: "q1-ip1,q2-ip2",
    stride: 4,
}];

impl FrequencyPreset {
    /// The preset as a study: one run to `t_end`.
    pub(super) fn study(&self) -> Result<Study> {
        let steps = (self.t_end / self.dt).round() as u64;
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
                compensated: Some(false),
                tangent: Some(false),
                frequencies: Some(self.signals.into()),
                frequency_stride: Some(self.stride),
                ..Default::default()
            },
            runs: vec![StudyRun {
                method: Method::from_name(self.method)?,
                dt: self.dt,
                steps,
                system: None,
                vary: None,
                reference: false,
            }],
            portrait_times: vec![0.0, self.t_end],
            stats_rows: 100,
        })
    }
}
