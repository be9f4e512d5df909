//! The run's side of `--stop-when` (`observe::stop`): the stop words added to the state, and
//! `stops.npy`, one row per stopped point at the last snapshot (point index in the whole
//! ensemble, step, t, condition index from 0; f64), written by the run, stacked by `merge`.

use std::path::Path;

use crate::cluster::Peers;
use crate::config::{RunConfig, Store};
use crate::error::Result;
use crate::float::Real;
use crate::observe::stop::{stops_of, WIDTH};
use crate::output::npy;
use crate::output::write_atomic;
use crate::state::State;

/// The file's name in the run's folder.
pub const STOPS_FILE: &str = "stops.npy";

/// Columns of `stops.npy`: point, step, t, condition.
pub const COLUMNS: usize = 4;

/// The names of the columns (the store's `stop_column`).
pub(super) fn column_names() -> Vec<String> {
    ["point", "step", "t", "condition"]
        .map(String::from)
        .to_vec()
}

/// `state` with its tangent columns added when the run has --tangent, or its deviation
/// vector and indicator accumulators with --chaos (`state` holds the process's points: its
/// shard's or MPI rank's, whose first index in the whole ensemble the deviation vectors'
/// seeded start is drawn at), then with --stop-when the stop words.
pub(super) fn with_columns<T: Real>(cfg: &RunConfig, state: State<T>) -> State<T> {
    let state = if cfg.tangent {
        state.with_tangent()
    } else if let Some(chaos) = &cfg.chaos {
        let (seed, first) = (cfg.ensemble.seed, cfg.first_point());
        let (l, d) = (chaos.layout(), state.d);
        state.with_deviations(l.vectors, l.width(), |i, row| {
            chaos.deviation.write_vectors(seed, first + i, d, row)
        })
    } else {
        state
    };
    match cfg.stops {
        Some(_) => state.with_words(WIDTH),
        None => state,
    }
}

/// The rows of `stops.npy` for the process's points in `s` (their index in the whole
/// ensemble counted from `cfg.first_point()`).
pub fn rows<T: Real>(cfg: &RunConfig, s: &State<T>) -> Vec<f64> {
    let Some(column) = cfg.stop_column() else {
        return Vec::new();
    };
    let first = cfg.first_point();
    stops_of(s, column)
        .into_iter()
        .flat_map(|r| {
            [
                (first + r.point) as f64,
                r.step as f64,
                cfg.time_at(r.step),
                r.condition as f64,
            ]
        })
        .collect()
}

/// `stops.npy`'s bytes at the last snapshot of a run with --stop-when (else None).
pub(super) fn encode<T: Real>(cfg: &RunConfig, step: u64, s: &State<T>) -> Option<Vec<u8>> {
    let last = cfg.snapshot_steps().last().copied().unwrap_or(0);
    (cfg.stops.is_some() && step == last).then(|| {
        let rows = rows(cfg, s);
        npy::encode(rows.len() / COLUMNS, COLUMNS, &rows)
    })
}

/// Write `bytes` as `out/stops.npy` (or with `--store zarr` as the store's `stops`), under
/// MPI with a filled ensemble every rank's rows stacked on rank 0 in rank order; only rank 0
/// writes.
pub(super) fn save(
    peers: &Peers,
    gathers: bool,
    cfg: &RunConfig,
    out: &Path,
    bytes: Vec<u8>,
) -> Result<()> {
    let bytes = match gathers {
        false => Some(bytes).filter(|_| peers.is_root()),
        true => match peers.gather(&bytes)? {
            Some(all) => {
                Some(npy::stack_rows(&all).map_err(|m| crate::input_err!("gathering stops: {m}"))?)
            }
            None => None,
        },
    };
    let Some(bytes) = bytes else {
        return Ok(());
    };
    match cfg.store {
        Store::Npy => write_atomic(&out.join(STOPS_FILE), &bytes),
        Store::Zarr => {
            let rows = npy::decode_f64(&bytes)
                .map_err(|m| crate::input_err!("saving stops: {m}"))?
                .data;
            super::store::write_table(cfg, out, "stops", &column_names(), &rows)
        }
    }
}

/// `merge`: the shards' `stops.npy` stacked in shard order (their point indices are the
/// whole ensemble's already).
pub(super) fn stack(files: &[Vec<u8>]) -> Result<Vec<u8>> {
    npy::stack_rows(files)
        .map_err(|m| crate::input_err!("merge: {STOPS_FILE}: {m}; rerun the shards"))
}
