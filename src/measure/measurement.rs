//! What every measurement is (`Measurement`): the stats.csv columns it fills, whether it
//! reads the host state, the parts of a snapshot it measures (which merge across chunks,
//! shards and MPI ranks by one of three laws, `Shape`) and how its columns are finished from
//! the merged parts. The tracker, `merge` and the MPI gathering loop over the registry
//! (`registry::MEASUREMENTS`) and know no measurement by name; an engine may take some
//! measurements where the state lives (`Acceleration`), and the rest are taken on the host.

use serde::{Serialize, Serializer};

use crate::chaos::Chaos;
use crate::error::Result;
use crate::expr::modified::ModifiedEnergy;
use crate::state::State;
use crate::system::System;

use super::row::{Row, RowParts};

/// How a column's cells are written and read back: counts as integers, the rest as f64
/// (shortest round-trip decimals).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    Count,
    Real,
}

/// How summary.csv condenses a stats.csv column over a run's snapshots (a column of the
/// same name, after the columns summary.csv has always had).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Summary {
    /// The largest finite value over the snapshots (empty where none is).
    Max,
}

/// One stats.csv column.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Column {
    pub name: &'static str,
    pub kind: Kind,
    /// Whether (and how) summary.csv has it too.
    pub summary: Option<Summary>,
}

impl Column {
    pub const fn real(name: &'static str) -> Self {
        Column {
            name,
            kind: Kind::Real,
            summary: None,
        }
    }

    pub const fn count(name: &'static str) -> Self {
        Column {
            name,
            kind: Kind::Count,
            summary: None,
        }
    }

    /// The same column, condensed into summary.csv by `how`.
    pub const fn summarised(self, how: Summary) -> Self {
        Column {
            summary: Some(how),
            ..self
        }
    }

    /// This column's cell holding nothing (a value not measured).
    pub fn empty(&self) -> Cell {
        match self.kind {
            Kind::Count => Cell::Count(None),
            Kind::Real => Cell::Real(None),
        }
    }
}

/// One cell of a stats.csv row (empty: not measured).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Cell {
    Count(Option<u64>),
    Real(Option<f64>),
}

impl Cell {
    pub fn real(&self) -> Option<f64> {
        match *self {
            Cell::Real(x) => x,
            Cell::Count(n) => n.map(|n| n as f64),
        }
    }

    pub fn count(&self) -> Option<u64> {
        match *self {
            Cell::Count(n) => n,
            Cell::Real(_) => None,
        }
    }
}

impl Serialize for Cell {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            Cell::Count(n) => n.serialize(s),
            Cell::Real(x) => x.serialize(s),
        }
    }
}

/// How a measurement's parts of consecutive point ranges (chunks, shards, ranks, devices)
/// merge; each law is associative, so any split of the ensemble at chunk boundaries gives
/// the whole ensemble's parts, bit for bit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shape {
    /// No parts: the columns are finished from other measurements' parts.
    Derived,
    /// A count, added.
    Sum,
    /// A largest value over the points (none where no point has one), the larger kept.
    Max,
    /// Per-chunk accumulators of this many words each, in point order, appended.
    Chunks(usize),
}

/// A measurement's parts of a snapshot, of its `Shape`.
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    Derived,
    Sum(u64),
    Max(Option<f64>),
    /// The chunks' words one after the other.
    Chunks(Vec<u64>),
}

impl Part {
    /// The parts of no points.
    pub fn empty(shape: Shape) -> Part {
        match shape {
            Shape::Derived => Part::Derived,
            Shape::Sum => Part::Sum(0),
            Shape::Max => Part::Max(None),
            Shape::Chunks(_) => Part::Chunks(Vec::new()),
        }
    }

    /// Append the parts of the points that follow these (same measurement, same shape).
    pub fn append(&mut self, next: Part) {
        match (self, next) {
            (Part::Derived, Part::Derived) => {}
            (Part::Sum(a), Part::Sum(b)) => *a += b,
            (Part::Max(a), Part::Max(b)) => {
                *a = match (*a, b) {
                    (Some(x), Some(y)) => Some(x.max(y)),
                    (x, y) => x.or(y),
                }
            }
            (Part::Chunks(a), Part::Chunks(b)) => a.extend(b),
            (a, b) => unreachable!("one measurement's parts have one shape: {a:?}, {b:?}"),
        }
    }

    pub fn sum(&self) -> u64 {
        match *self {
            Part::Sum(n) => n,
            _ => 0,
        }
    }

    pub fn max(&self) -> Option<f64> {
        match *self {
            Part::Max(x) => x,
            _ => None,
        }
    }

    /// The chunks' words (empty for other shapes).
    pub fn words(&self) -> &[u64] {
        match self {
            Part::Chunks(w) => w,
            _ => &[],
        }
    }
}

/// A host state at the run's precision.
#[derive(Clone, Copy)]
pub enum HostState<'a> {
    F32(&'a State<f32>),
    F64(&'a State<f64>),
}

impl<'a> HostState<'a> {
    /// The state as one of the two precisions `Real` has.
    pub fn of<T: crate::float::Real>(s: &'a State<T>) -> Self {
        let any: &dyn std::any::Any = s;
        if let Some(s) = any.downcast_ref::<State<f32>>() {
            return HostState::F32(s);
        }
        match any.downcast_ref::<State<f64>>() {
            Some(s) => HostState::F64(s),
            None => unreachable!("Real is implemented for f32 and f64 only"),
        }
    }

    pub fn n(&self) -> usize {
        match self {
            HostState::F32(s) => s.n,
            HostState::F64(s) => s.n,
        }
    }
}

/// What each point carries besides its state for the measurements, in the engine's point
/// order (refinement inserts new nodes into every vector at once).
#[derive(Default)]
pub struct PerPoint {
    /// H(z0) per point, on the host (empty when an `Acceleration` keeps it).
    pub h0: Vec<f64>,
    /// Angular momentum L(z0) per point, for systems that conserve it (else empty).
    pub l0: Vec<[f64; 3]>,
    /// Loop parameter s ∈ [0, 1) of every node, increasing around the loop (refined loops
    /// only, else empty).
    pub s: Vec<f64>,
    /// Tangent columns are stored divided by 2^log2_scale (see measure::tangent); --tangent
    /// only, else empty.
    pub log2_scale: Vec<f64>,
    /// The points' initial states as the run's precision holds them (`--reverse` only).
    pub z0: Option<State<f64>>,
    /// The reference solution at the current snapshot (`--reference` only).
    pub reference: Option<State<f64>>,
    /// H̃(z0) per point, the modified Hamiltonian's initial values (`--modified-hamiltonian`
    /// only, else empty).
    pub mod_h0: Vec<f64>,
}

impl PerPoint {
    /// Append point `i` of `from` (its entries in the vectors `from` has; refinement, which
    /// calls it, runs without `z0` and `reference`).
    pub fn push_from(&mut self, from: &PerPoint, i: usize) {
        self.s.push(from.s[i]);
        self.h0.push(from.h0[i]);
        self.l0.extend(from.l0.get(i));
        self.log2_scale.extend(from.log2_scale.get(i));
        self.mod_h0.extend(from.mod_h0.get(i));
    }
}

/// A loop ensemble's area measurement: how the area is measured and what area_ratio
/// divides by.
#[derive(Debug, Clone, Copy)]
pub struct LoopArea {
    /// Circles and level curves are smooth: their area is measured with the curved
    /// correction (rectangles and file loops are polygons).
    pub smooth: bool,
    /// The initial set's exact area where it is known (circle, rectangle, level curve);
    /// else area_ratio divides by the step-0 polygon's area.
    pub exact0: Option<f64>,
}

/// What the measurements know of the run (built from its configuration by `run`).
pub struct RunSetup<'a> {
    pub system: &'a System,
    /// `--tangent`: the state carries the tangent map.
    pub tangent: bool,
    /// Loop ensembles only.
    pub loop_area: Option<LoopArea>,
    /// |A0| of a filled d = 1 set (disk, grid), for area_from_det.
    pub filled_area: Option<f64>,
    /// `--reference`: a reference solution is advanced beside the run.
    pub reference: bool,
    /// `--reverse`: the run goes back to t = 0 after this many steps (so it is back at twice
    /// as many).
    pub reverse: Option<u64>,
    /// `--modified-hamiltonian K`: H̃ with K correction terms at the run's step size.
    pub modified: Option<&'a ModifiedEnergy>,
    /// `--chaos`: the indicators the run computes.
    pub chaos: Option<&'a Chaos>,
    /// `--stop-when`: the column of `State::chaos` holding the stop words (`observe::stop`);
    /// the statistics leave out the stopped points.
    pub stops: Option<usize>,
    /// The step size (the indicators' time is step · |dt|).
    pub dt: f64,
    /// The relative error one step leaves in a stored component (the rounding floors').
    pub step_error: super::floor::StepError,
}

/// What a measurement reads on the host at a snapshot.
pub struct Snapshot<'a> {
    pub run: &'a RunSetup<'a>,
    pub state: HostState<'a>,
    pub per_point: &'a PerPoint,
}

/// What a measurement's columns are finished from: the snapshot's merged parts of every
/// measurement, and the run's first (step-0) row once it is written.
pub struct Finish<'a> {
    pub run: &'a RunSetup<'a>,
    pub step: u64,
    pub parts: &'a RowParts,
    pub first: Option<&'a Row>,
}

impl Finish<'_> {
    /// The merged parts of `m` at this snapshot.
    pub fn part(&self, m: &dyn Measurement) -> &Part {
        self.parts.of(m.name())
    }
}

/// What taking a measurement reads, declared by each: whether a GPU run must read its state
/// back to the host for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reads {
    /// The state on the host: a GPU run reads the state back at every snapshot that takes it.
    HostState,
    /// The state where it lives: an `Acceleration` (the GPU engine's energy reduction) takes
    /// it on the device; the host measures it where there is none.
    StateOnDevice,
    /// Other measurements' parts only, not the state (`Shape::Derived`).
    Parts,
}

/// One measurement (see the module doc). Registered once in `registry::MEASUREMENTS`, whose
/// order is the order of the stats.csv columns.
pub trait Measurement: Sync {
    /// Its name among the measurements (parts are looked up by it; unique).
    fn name(&self) -> &'static str;
    /// Its stats.csv columns, in order.
    fn columns(&self) -> &'static [Column];
    /// How its parts merge; every shape but `Derived` is measured on the host state unless
    /// an `Acceleration` takes it.
    fn shape(&self) -> Shape;
    /// What taking it reads: `Parts` exactly when the shape is `Derived` (the default there);
    /// a measurement of the points declares `HostState` or `StateOnDevice`.
    fn reads(&self) -> Reads {
        match self.shape() {
            Shape::Derived => Reads::Parts,
            _ => Reads::HostState,
        }
    }
    /// Whether this run takes it (else its parts are empty and its columns stay empty).
    fn taken(&self, run: &RunSetup) -> bool;
    /// Its parts of the snapshot's points, measured on the host (not called for `Derived`).
    fn measure(&self, at: &Snapshot) -> Part;
    /// Its columns' cells (as many as `columns`) from the merged parts.
    fn finish(&self, at: &Finish) -> Vec<Cell>;
    /// Says on stderr, once at the start of a run that takes it, what its columns are
    /// relative to (where that depends on the run).
    fn announce(&self, _run: &RunSetup) {}
}

/// Measurements an engine takes where the state lives, so that the host does not read the
/// state back for them: the GPU engine's energy statistics reduced on the device (with f64).
/// The tracker asks the engine for one and falls back to the host where there is none.
pub trait Acceleration {
    /// Record the points' initial values (H(z0)) from the current state.
    fn start(&mut self) -> Result<()>;
    /// The parts of the measurements it takes at the current state, by measurement name.
    fn parts(&mut self) -> Result<Vec<(&'static str, Part)>>;
    /// The initial values `start` recorded, in point order (for a checkpoint).
    fn initial(&mut self) -> Result<Vec<f64>>;
    /// Record `initial` as the points' initial values without measuring (a resumed run).
    fn restore(&mut self, initial: &[f64]) -> Result<()>;
}
