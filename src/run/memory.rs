//! A run without a folder (`run::run_in_memory`): what `run` writes into `--out` (the
//! statistics rows, config.toml's text, the saved states, the chaos indicators, the section's
//! crossings) handed back to the caller as values, each array one buffer that a host such as
//! the Python module takes as its own without a copy.

use crate::config::RunConfig;
use crate::engine::FrequencyTable;
use crate::float::Real;
use crate::measure::chaos::indicator_rows;
use crate::section::Crossings;
use crate::state::State;

use super::tracker::writes_indicators;

/// Points as rows q1..qd p1..pd, one after another, in the run's precision: the values a
/// `--save-states` file holds (`npy::encode_state`), laid out for a host that takes the buffer
/// as its own array (the Python module hands it to numpy without a copy).
#[derive(Debug, Clone)]
pub enum StateRows {
    F32 { columns: usize, rows: Vec<f32> },
    F64 { columns: usize, rows: Vec<f64> },
}

impl StateRows {
    /// The points of `s` appended to `rows` (the primal columns only, as the files hold them).
    fn append<T: Real>(rows: &mut Vec<T>, s: &State<T>) {
        rows.reserve(s.n * 2 * s.d);
        for i in 0..s.n {
            rows.extend((0..s.d).map(|k| s.q[k * s.n + i]));
            rows.extend((0..s.d).map(|k| s.p[k * s.n + i]));
        }
    }

    /// The rows of `s` (`State::convert` to the other precision never runs: `T` is f32 or f64).
    pub fn of<T: Real>(s: &State<T>) -> StateRows {
        let mut rows = Vec::new();
        StateRows::append(&mut rows, s);
        StateRows::from_vec(2 * s.d, rows)
    }

    /// `rows` of `columns` values each, moved (not copied) into the variant of their type.
    fn from_vec<T: Real>(columns: usize, rows: Vec<T>) -> StateRows {
        let rows: Box<dyn std::any::Any> = Box::new(rows);
        match rows.downcast::<Vec<f32>>() {
            Ok(rows) => StateRows::F32 {
                columns,
                rows: *rows,
            },
            Err(rows) => StateRows::F64 {
                columns,
                rows: rows
                    .downcast::<Vec<f64>>()
                    .map_or_else(|_| Vec::new(), |r| *r),
            },
        }
    }

    /// The number of values.
    pub fn len(&self) -> usize {
        match self {
            StateRows::F32 { rows, .. } => rows.len(),
            StateRows::F64 { rows, .. } => rows.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What a run without a folder hands back besides its summary.
#[derive(Debug, Clone)]
pub struct InMemory {
    /// config.toml's text as the run would write it (its `out` left empty).
    pub config: String,
    /// `save_states`: every snapshot's points, one (points × 2d) block after another.
    pub states: Option<StateRows>,
    /// The step of each block of `states`.
    pub state_steps: Vec<u64>,
    /// `chaos`: the indicators of every point at each of `chaos_steps`, one (points ×
    /// indicators) block after another, in the order asked for.
    pub chaos: Vec<f64>,
    pub chaos_steps: Vec<u64>,
    /// `section`: every crossing, one row of `section_columns` values each (section.npy's).
    pub section: Option<Vec<f64>>,
    pub section_columns: usize,
    /// `frequencies`: frequencies.npy's rows (4 values per signal each, `frequencies::columns`),
    /// one per point.
    pub frequencies: Option<Vec<f64>>,
    /// `stop_when`: stops.npy's rows at the last snapshot (point, step, t, condition; four
    /// values each, `stops::COLUMNS`).
    pub stops: Option<Vec<f64>>,
}

/// What a run without a folder keeps while it goes (the tracker's `kept`).
pub(super) struct Kept<T> {
    states: Vec<T>,
    state_steps: Vec<u64>,
    chaos: Vec<f64>,
    chaos_steps: Vec<u64>,
    stops: Option<Vec<f64>>,
}

impl<T: Real> Kept<T> {
    pub(super) fn new() -> Self {
        Kept {
            states: Vec::new(),
            state_steps: Vec::new(),
            chaos: Vec::new(),
            chaos_steps: Vec::new(),
            stops: None,
        }
    }

    /// Keep what the snapshot at `step` would write: its states (`save_states`), its
    /// indicators (`tracker::writes_indicators`) and the stops so far (`stop_when`: the last
    /// snapshot's are stops.npy's).
    pub(super) fn snapshot(&mut self, cfg: &RunConfig, step: u64, state: &State<T>) {
        if cfg.stops.is_some() {
            self.stops = Some(super::stops::rows(cfg, state));
        }
        if cfg.save_states {
            StateRows::append(&mut self.states, state);
            self.state_steps.push(step);
        }
        if let Some(c) = cfg.chaos.as_ref().filter(|_| writes_indicators(cfg, step)) {
            self.chaos.extend(indicator_rows(state, cfg.dt, c));
            self.chaos_steps.push(step);
        }
    }

    /// The run's results: `config` (config.toml's text), the section's `crossings` and the
    /// frequency analysis's table.
    pub(super) fn finish(
        self,
        cfg: &RunConfig,
        config: String,
        (crossings, table): (Option<&Crossings>, Option<&FrequencyTable>),
    ) -> InMemory {
        let frequencies = cfg
            .frequencies
            .as_ref()
            .zip(table)
            .map(|(spec, t)| super::frequencies::rows(cfg, spec, t));
        let section = crossings.map(|c| c.rows(cfg.dt, cfg.first_point()).1);
        InMemory {
            config,
            states: cfg
                .save_states
                .then(|| StateRows::from_vec(2 * cfg.system.dof(), self.states)),
            state_steps: self.state_steps,
            chaos: self.chaos,
            chaos_steps: self.chaos_steps,
            section,
            section_columns: crossings.map_or(0, |c| c.section.columns().len()),
            frequencies,
            stops: self.stops,
        }
    }
}
