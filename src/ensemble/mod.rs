//! Initial sets of phase-space points (PHYSICS.md §3): the ensemble kinds, the resolved set
//! (`InitialSet`, one variant per kind holding exactly what that kind needs) and the spec that
//! carries it with its point count and seed (`EnsembleSpec`). A request becomes a spec in
//! `resolve` (defaults filled, every value checked); generation (`generate`), level curves
//! (`level`), closed loops (`loops`) and input files (`file`) each have their own file.
//! Generators work in f64 and round each point once into the run's precision.

mod file;
mod generate;
mod level;
mod loops;
pub mod plane;
mod resolve;
pub mod shard;
mod start;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::error::{Field, Result};
use crate::float::Real;

pub use crate::state::State;
pub use file::{read_regular, read_states};
pub(crate) use generate::start_points;
pub use level::level_area;
pub use plane::GridPlane;
pub use resolve::EnsembleRequest;
pub use start::StartNote;

/// The ensemble kinds, written once: each kind's name, its one-line help and the values its
/// resolved set holds. From this list `ensemble_kinds!` makes `EnsembleKind` (the name as a
/// type), `KINDS` (what `--ensemble` accepts and `list` shows) and `InitialSet` with its
/// `kind`, so a new kind is one entry here, one arm in `resolve` and one in `generate`.
macro_rules! ensemble_kinds {
    ($(
        $(#[$doc:meta])*
        $kind:ident $name:literal $help:literal { $($field:ident: $ty:ty),* $(,)? }
    )*) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
        #[serde(rename_all = "lowercase")]
        pub enum EnsembleKind {
            $($kind,)*
        }

        pub const KINDS: &[(EnsembleKind, &str, &str)] = &[
            $((EnsembleKind::$kind, $name, $help),)*
        ];

        /// A resolved initial set: one variant per ensemble kind, holding exactly the values
        /// that kind needs, with the system's defaults filled in and every value checked
        /// (`EnsembleRequest::resolve`). Points and vectors are full states (q1..qd, p1..pd);
        /// the planar kinds vary only (q1, p1).
        #[derive(Debug, Clone, PartialEq)]
        pub enum InitialSet {
            $(
                $(#[$doc])*
                $kind { $($field: $ty),* },
            )*
        }

        impl InitialSet {
            pub fn kind(&self) -> EnsembleKind {
                match self {
                    $(InitialSet::$kind { .. } => EnsembleKind::$kind,)*
                }
            }
        }
    };
}

ensemble_kinds! {
    /// The level curve H = `energy` around the minimum (1 DOF); an ordered closed loop.
    Level "level" "N points on the energy level H = --energy around the minimum (1 DOF); ordered closed loop" { energy: f64 }
    /// The circle of `radius` around `center`; an ordered closed loop.
    Circle "circle" "N points on the circle --center/--radius in the (q1, p1) plane; ordered closed loop" { center: Vec<f64>, radius: f64 }
    /// The boundary of the box `lo..hi`, the other components at its middle; an ordered closed loop.
    Rect "rect" "N points on the boundary of the rectangle --lo..--hi in the (q1, p1) plane; ordered closed loop" { lo: Vec<f64>, hi: Vec<f64> }
    /// Seeded points uniform in the disk of `radius` around `center`.
    Disk "disk" "N points uniform in the disk --center/--radius in the (q1, p1) plane (seeded)" { center: Vec<f64>, radius: f64 }
    /// A √N × √N lattice filling the box `lo..hi` in the plane of two coordinates, the other
    /// components at its middle (or p1 on the energy surface: `plane::GridPlane`).
    Grid "grid" "√N × √N lattice filling the box --lo..--hi in the (q1, p1) plane (N a perfect square)" { lo: Vec<f64>, hi: Vec<f64>, plane: GridPlane }
    /// Seeded points around `center`, standard deviation `sigma` in every component.
    Gaussian "gaussian" "N points around --center with standard deviation --sigma in every component (seeded)" { center: Vec<f64>, sigma: f64 }
    /// N copies of the state `center`.
    Point "point" "the single state --center (default: the system's named initial state, see `list`); N > 1 gives N copies" { center: Vec<f64> }
    /// The rows of `input` (an absolute path); with `closed_loop` (`--loop`) they are the
    /// nodes of an ordered closed loop.
    File "file" "states read from --input (CSV or .npy, N rows × 2d columns q1..qd p1..pd)" { input: PathBuf, closed_loop: bool }
}

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
                crate::invalid!(Field::Ensemble;
                    Field::Ensemble.is(name),
                    format!(
                        ": unknown ensemble kind{} (known: {})",
                        crate::error::did_you_mean(name, names.iter().copied()),
                        names.join(", ")
                    )
                )
            })
    }
}

/// Everything needed to build an initial set, resolved to concrete values: the set, its number
/// of points (a file's row count for `file`) and the seed of the random kinds.
#[derive(Debug, Clone, PartialEq)]
pub struct EnsembleSpec {
    pub points: usize,
    pub seed: u64,
    pub set: InitialSet,
    /// `--raw-start`: the points of a nonholonomic variational system start with their
    /// velocities as given, not put on its discrete constraint (`System::project_start`).
    pub raw_start: bool,
    /// A `file` set's rows given in memory (a library caller's array) instead of read from
    /// `input`: shared, so that a configuration's clones hold one copy.
    pub rows: Option<std::sync::Arc<State<f64>>>,
}

impl EnsembleSpec {
    pub fn kind(&self) -> EnsembleKind {
        self.set.kind()
    }

    /// Ordered closed loops (level, circle, rect, and file with --loop): loop area and refinement apply.
    pub fn is_loop(&self) -> bool {
        matches!(
            self.set,
            InitialSet::Level { .. }
                | InitialSet::Circle { .. }
                | InitialSet::Rect { .. }
                | InitialSet::File {
                    closed_loop: true,
                    ..
                }
        )
    }

    /// The area |A0| of a filled initial set in the (q1, p1) plane, where it is known and is the
    /// phase-space volume (d = 1): disk πr², grid (hi − lo) box. None otherwise.
    pub fn filled_area(&self, d: usize) -> Option<f64> {
        if d != 1 {
            return None;
        }
        match &self.set {
            InitialSet::Disk { radius, .. } => Some(std::f64::consts::PI * radius * radius),
            InitialSet::Grid { lo, hi, plane } if plane.energy.is_none() => {
                let [a, b] = plane.axes;
                Some((hi[a] - lo[a]) * (hi[b] - lo[b]))
            }
            _ => None,
        }
    }
}

/// A state of the points `range` of a set whose point i (q1..qd, p1..pd, in f64)
/// `point(i, row)` writes into one reused row, rounded to `T` as it is stored.
fn fill<T: Real>(
    range: std::ops::Range<usize>,
    d: usize,
    mut point: impl FnMut(usize, &mut [f64]) -> Result<()>,
) -> Result<State<T>> {
    let n = range.len();
    let mut s = State::zeros(n, d);
    let mut row = vec![0.0; 2 * d];
    for (i, at) in range.enumerate() {
        point(at, &mut row)?;
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
