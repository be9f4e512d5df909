//! Initial sets of phase-space points (PHYSICS.md §3): the ensemble kinds and the spec that
//! describes a set. Resolution (`resolve`), generation (`generate`), level curves (`level`),
//! closed loops (`loops`) and input files (`file`) each have their own file. Generators work
//! in f64 and round each point once into the run's precision.

mod file;
mod generate;
mod level;
mod loops;
mod resolve;

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::float::Real;
use crate::input_err;

pub use crate::state::State;
pub use file::{read_regular, read_states};
pub use level::level_area;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EnsembleKind {
    Level,
    Circle,
    Rect,
    Disk,
    Grid,
    Gaussian,
    Point,
    File,
}

pub const KINDS: &[(EnsembleKind, &str, &str)] = &[
    (EnsembleKind::Level, "level", "N points on the energy level H = --energy around the minimum (1 DOF); ordered closed loop"),
    (EnsembleKind::Circle, "circle", "N points on the circle --center/--radius in the (q1, p1) plane; ordered closed loop"),
    (EnsembleKind::Rect, "rect", "N points on the boundary of the rectangle --lo..--hi in the (q1, p1) plane; ordered closed loop"),
    (EnsembleKind::Disk, "disk", "N points uniform in the disk --center/--radius in the (q1, p1) plane (seeded)"),
    (EnsembleKind::Grid, "grid", "√N × √N lattice filling the box --lo..--hi in the (q1, p1) plane (N a perfect square)"),
    (EnsembleKind::Gaussian, "gaussian", "N points around --center with standard deviation --sigma in every component (seeded)"),
    (EnsembleKind::Point, "point", "the single state --center (default: the system's named initial state, see `list`); N > 1 gives N copies"),
    (EnsembleKind::File, "file", "states read from --input (CSV or .npy, N rows × 2d columns q1..qd p1..pd)"),
];

impl EnsembleKind {
    pub fn name(self) -> &'static str {
        KINDS
            .iter()
            .find(|k| k.0 == self)
            .map(|k| k.1)
            .unwrap_or("?")
    }

    pub fn from_name(name: &str) -> Result<Self> {
        KINDS
            .iter()
            .find(|k| k.1 == name)
            .map(|k| k.0)
            .ok_or_else(|| {
                let names: Vec<&str> = KINDS.iter().map(|k| k.1).collect();
                input_err!(
                    "--ensemble {name}: unknown ensemble kind (known: {})",
                    names.join(", ")
                )
            })
    }
}

/// Everything needed to build an initial set, already resolved to concrete values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EnsembleSpec {
    pub kind: EnsembleKind,
    pub points: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub center: Option<Vec<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub radius: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lo: Option<Vec<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hi: Option<Vec<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub energy: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sigma: Option<f64>,
    pub seed: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input: Option<std::path::PathBuf>,
    /// `file` only: the rows are the nodes of an ordered closed loop (`--loop`).
    #[serde(default)]
    pub closed_loop: bool,
}

impl EnsembleSpec {
    /// A seeded uniform disk of `radius` around the system's default centre (unresolved).
    pub fn disk(points: usize, radius: f64, seed: u64) -> Self {
        EnsembleSpec {
            kind: EnsembleKind::Disk,
            points,
            center: None,
            radius: Some(radius),
            lo: None,
            hi: None,
            energy: None,
            sigma: None,
            seed,
            input: None,
            closed_loop: false,
        }
    }

    /// Ordered closed loops (level, circle, rect, and file with --loop): loop area and refinement apply.
    pub fn is_loop(&self) -> bool {
        match self.kind {
            EnsembleKind::Level | EnsembleKind::Circle | EnsembleKind::Rect => true,
            EnsembleKind::File => self.closed_loop,
            _ => false,
        }
    }

    /// The area |A0| of a filled initial set in the (q1, p1) plane, where it is known and is the
    /// phase-space volume (d = 1): disk πr², grid (hi − lo) box. None otherwise.
    pub fn filled_area(&self, d: usize) -> Option<f64> {
        if d != 1 {
            return None;
        }
        match self.kind {
            EnsembleKind::Disk => self.radius.map(|r| std::f64::consts::PI * r * r),
            EnsembleKind::Grid => {
                let (lo, hi) = (self.lo.as_ref()?, self.hi.as_ref()?);
                Some((hi[0] - lo[0]) * (hi[1] - lo[1]))
            }
            _ => None,
        }
    }
}

/// A state of `n` points whose point i (q1..qd, p1..pd, in f64) `point(i, row)` writes into
/// one reused row, rounded to `T` as it is stored.
fn fill<T: Real>(
    n: usize,
    d: usize,
    mut point: impl FnMut(usize, &mut [f64]) -> Result<()>,
) -> Result<State<T>> {
    let mut s = State::zeros(n, d);
    let mut row = vec![0.0; 2 * d];
    for i in 0..n {
        point(i, &mut row)?;
        for k in 0..d {
            s.q[k * n + i] = T::from_f64(row[k]);
            s.p[k * n + i] = T::from_f64(row[d + k]);
        }
    }
    Ok(s)
}

/// Into `row`: a point equal to `base` except for (q1, p1) = (x, y).
fn plane_point(row: &mut [f64], base: &[f64], d: usize, x: f64, y: f64) {
    row.copy_from_slice(base);
    row[0] = x;
    row[d] = y;
}
