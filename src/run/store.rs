//! `--store zarr`: a run's per-point arrays in one Zarr v3 store, `DIR/states.zarr`
//! (`output::zarr`), in place of `states/step_<k>.npy`, `chaos/step_<k>.npy`, section.npy
//! and stops.npy.
//!
//! The store is a group of arrays named after the dimensions and variables of the run's
//! `to_xarray()` Dataset in Python: `state` (state_time, point, coordinate) with the
//! coordinates `state_time` (the saved snapshots' times), `point` (indices) and `coordinate`
//! (the system's names of the components, `System::component_names`); with --chaos,
//! `chaos_<indicator>` (chaos_time, point) and `chaos_time`; with --section, `section`
//! (crossing, column) with `crossing` and `column` (the columns' names); with --stop-when,
//! `stops` (stopped, stop_column) with `stop_column`. The two tables are written when
//! section.npy and stops.npy would be; a shard's are its own rows, appended by `merge`.
//! Its chunks hold one snapshot of `chunk_points` points each, written when the snapshot is
//! taken. A shard writes its own points' chunks into the store of its own folder, which has
//! the whole ensemble's shape, and the chunks fall on shard boundaries, so `merge` copies each
//! shard's chunk files into one store without reading their values. The group's attribute
//! `complete` is false until the run (or merge) has written everything; the folder's
//! manifest, written after it, records every file of the store.

use std::path::{Path, PathBuf};

use crate::cluster::Peers;
use crate::config::RunConfig;
use crate::ensemble::shard::{split, SHARD_ALIGN};
use crate::error::{Error, Result};
use crate::float::Real;
use crate::input_err;
use crate::npy;
use crate::output::zarr::{own_file, ArraySpec, Values, Zarr};

use super::tracker::writes_indicators;

pub use crate::output::zarr::STORE_DIR;

/// The most points a chunk holds: 2^18 (4 MiB of f64 values per chunk at d = 1). Every chunk
/// file is synced to disk when written, which costs about as much for 1 MiB as for 4 MiB on
/// the machine measured: larger chunks, fewer syncs (BENCHMARKS.md).
const MAX_CHUNK_POINTS: usize = 1 << 18;

/// Points per chunk of an ensemble of `points` cut into `shards` shards (1: not sharded): the
/// largest power of two up to `MAX_CHUNK_POINTS` that every shard's start is a multiple of
/// (at least `SHARD_ALIGN`, which they all are), or the whole ensemble when it is smaller.
pub fn chunk_points(points: usize, shards: usize) -> u64 {
    let starts: Vec<usize> = split(points, shards.max(1))
        .map(|r| r.iter().map(|r| r.start).collect())
        .unwrap_or_default();
    let mut p = MAX_CHUNK_POINTS;
    while p > SHARD_ALIGN && starts.iter().any(|s| s % p != 0) {
        p /= 2;
    }
    if shards <= 1 {
        p = p.min(points.max(1));
    }
    p as u64
}

/// The names of the chaos indicators' columns, as `chaos/step_<k>.npy` orders them.
fn indicator_names(cfg: &RunConfig) -> Vec<String> {
    cfg.chaos.as_ref().map_or_else(Vec::new, |c| {
        c.columns().iter().map(|c| c.to_string()).collect()
    })
}

/// The snapshot steps whose states (`save_states`) and whose indicators the run saves.
fn saved_steps(cfg: &RunConfig) -> (Vec<u64>, Vec<u64>) {
    let steps = cfg.snapshot_steps();
    let states = if cfg.save_states {
        steps.clone()
    } else {
        Vec::new()
    };
    let chaos = steps
        .into_iter()
        .filter(|&s| writes_indicators(cfg, s))
        .collect();
    (states, chaos)
}

/// The group's attributes: whether the store is complete, and a shard's `K/N`.
fn group_attributes(cfg: &RunConfig, complete: bool) -> serde_json::Map<String, serde_json::Value> {
    let mut a = serde_json::Map::new();
    a.insert("complete".into(), complete.into());
    if let Some(s) = cfg.shard {
        a.insert("shard".into(), s.text().into());
    }
    a
}

/// A one-dimensional f64 array `name` over itself (a time axis), written whole.
fn time_axis(z: &Zarr, name: &str, times: &[f64]) -> Result<()> {
    let n = times.len() as u64;
    z.create(&ArraySpec {
        name,
        shape: vec![n],
        chunks: vec![n.max(1)],
        values: Values::F64,
        dims: &[name],
        attributes: Default::default(),
    })?;
    z.write_rows(name, &[], 0, bytemuck::cast_slice(times))
}

/// Points per chunk of the run `cfg`'s store: its chunks fall on the boundaries of its shards
/// or MPI ranks' slices.
fn run_chunk_points(cfg: &RunConfig) -> u64 {
    chunk_points(
        cfg.ensemble.points,
        cfg.shard.or(cfg.rank).map_or(1, |s| s.count),
    )
}

/// Create the store's arrays (their metadata), then its group, incomplete; `values` are the
/// state's.
fn create(cfg: &RunConfig, z: &Zarr, values: Values) -> Result<()> {
    let n = cfg.ensemble.points as u64;
    let p = run_chunk_points(cfg);
    let (state_steps, chaos_steps) = saved_steps(cfg);
    let times = |steps: &[u64]| steps.iter().map(|&s| cfg.time_at(s)).collect::<Vec<_>>();
    z.create(&ArraySpec {
        name: "point",
        shape: vec![n],
        chunks: vec![p],
        values: Values::I64,
        dims: &["point"],
        attributes: Default::default(),
    })?;
    if cfg.save_states {
        // The system's names of its components, as Python's `Run.components`.
        let (d, names) = (cfg.system.dof(), cfg.system.component_names());
        z.write_names("coordinate", "coordinate", &names)?;
        time_axis(z, "state_time", &times(&state_steps))?;
        let mut attributes = serde_json::Map::new();
        attributes.insert("steps".into(), state_steps.clone().into());
        z.create(&ArraySpec {
            name: "state",
            shape: vec![state_steps.len() as u64, n, 2 * d as u64],
            chunks: vec![1, p, 2 * d as u64],
            values,
            dims: &["state_time", "point", "coordinate"],
            attributes,
        })?;
    }
    if !chaos_steps.is_empty() {
        time_axis(z, "chaos_time", &times(&chaos_steps))?;
        for name in indicator_names(cfg) {
            let mut attributes = serde_json::Map::new();
            attributes.insert("steps".into(), chaos_steps.clone().into());
            z.create(&ArraySpec {
                name: &format!("chaos_{name}"),
                shape: vec![chaos_steps.len() as u64, n],
                chunks: vec![1, p],
                values: Values::F64,
                dims: &["chaos_time", "point"],
                attributes,
            })?;
        }
    }
    z.write_group(group_attributes(cfg, false))
}

/// Write the snapshot `step`'s saved states and indicators (as `.npy` bytes: `saved` in the
/// state's precision T, `indicators` f64) into the run's store, created at the first. Under
/// MPI with a filled ensemble each rank writes its own points' chunks (its slice starts on a
/// chunk boundary) into the store rank 0 creates, and every rank waits for the others before
/// going on, so the store is whole when rank 0 marks it complete; a loop is whole on every
/// rank and rank 0 writes it.
pub(super) fn save<T: Real>(
    peers: &Peers,
    gathers: bool,
    out: &Path,
    cfg: &RunConfig,
    (step, saved, indicators): (u64, Option<Vec<u8>>, Option<Vec<u8>>),
) -> Result<()> {
    let writes = gathers || peers.is_root();
    if !writes || (saved.is_none() && indicators.is_none()) {
        return Ok(());
    }
    // The rows of this process's points (its shard's or rank's), else the whole ensemble's.
    let first = match peers.many() && !gathers {
        true => 0,
        false => cfg.first_point(),
    };
    let data = |bytes: Option<Vec<u8>>| -> Result<Option<(usize, Vec<u8>)>> {
        let Some(bytes) = bytes else {
            return Ok(None);
        };
        npy::data_of(&bytes)
            .map(|(rows, _, _, d)| Some((rows, d.to_vec())))
            .map_err(|m| input_err!("saving states: {m}"))
    };
    let (saved, indicators) = (data(saved)?, data(indicators)?);
    let count = saved
        .iter()
        .chain(&indicators)
        .map(|(rows, _)| *rows)
        .next()
        .unwrap_or(0);
    let root = out.join(STORE_DIR);
    let (state_steps, chaos_steps) = saved_steps(cfg);
    let missing = !root.join("point").join("zarr.json").is_file();
    let opening = match gathers {
        // Every rank decides alike: at the run's first saved snapshot (MPI runs do not resume).
        true => state_steps.iter().chain(&chaos_steps).min() == Some(&step),
        false => missing,
    };
    if opening && peers.is_root() && missing {
        let values = match std::mem::size_of::<T>() {
            4 => Values::F32,
            _ => Values::F64,
        };
        create(cfg, &Zarr::open(&root)?, values)?;
    }
    if opening && gathers {
        // The arrays' metadata (and the run's folder) before any other rank touches them.
        peers.barrier()?;
    }
    let z = Zarr::open(&root)?;
    if opening {
        let points: Vec<i64> = (first..first + count).map(|i| i as i64).collect();
        z.write_rows("point", &[], first as u64, bytemuck::cast_slice(&points))?;
    }
    let index = |steps: &[u64]| steps.iter().position(|&s| s == step).map(|i| i as u64);
    if let (Some((_, bytes)), Some(i)) = (saved, index(&state_steps)) {
        z.write_rows("state", &[i], first as u64, &bytes)?;
    }
    if let (Some((_, bytes)), Some(i)) = (indicators, index(&chaos_steps)) {
        let rows: Vec<f64> = bytemuck::pod_collect_to_vec(&bytes);
        let names = indicator_names(cfg);
        for (j, name) in names.iter().enumerate() {
            let column: Vec<f64> = rows.iter().skip(j).step_by(names.len()).copied().collect();
            z.write_rows(
                &format!("chaos_{name}"),
                &[i],
                first as u64,
                bytemuck::cast_slice(&column),
            )?;
        }
    }
    if gathers {
        // Every rank's chunks of this snapshot written before rank 0 goes on.
        peers.barrier()?;
    }
    Ok(())
}

/// The tables of rows a run's store holds beside its per-point arrays, each with its
/// dimensions (rows, columns) and whether its rows get an index coordinate (as `to_xarray()`
/// gives them): the section's crossings (--section) and the stopped points (--stop-when).
const TABLES: [(&str, &str, &str, bool); 2] = [
    ("section", "crossing", "column", true),
    ("stops", "stopped", "stop_column", false),
];

/// Rows per chunk of a table.
const TABLE_CHUNK_ROWS: u64 = 1 << 16;

/// Whether `rel`, a file's path in the store, belongs to a table (the table itself, its rows'
/// index or its columns' names), which a shard writes at its own length.
fn in_table(rel: &Path) -> bool {
    let first = rel
        .components()
        .next()
        .map(|c| c.as_os_str().to_string_lossy());
    TABLES.iter().any(|(t, rows, cols, _)| {
        first
            .as_deref()
            .is_some_and(|f| [*t, *rows, *cols].contains(&f))
    })
}

/// Write the table `name` (`section` or `stops`): rows of `columns.len()` f64 values, the
/// array `name` over (rows, columns), with the columns' names as the text array named after
/// the column dimension and, for the section, the crossings' indices; into the store in `out`
/// (its group written, incomplete, when this is the store's first array).
pub(super) fn write_table(
    cfg: &RunConfig,
    out: &Path,
    name: &str,
    columns: &[String],
    data: &[f64],
) -> Result<()> {
    let Some(&(_, rows_dim, cols_dim, indexed)) = TABLES.iter().find(|t| t.0 == name) else {
        return Err(input_err!("{name}: not a table of the store"));
    };
    let z = Zarr::open(&out.join(STORE_DIR))?;
    if !z.root().join("zarr.json").is_file() {
        z.write_group(group_attributes(cfg, false))?;
    }
    let width = columns.len().max(1);
    let rows = (data.len() / width) as u64;
    let chunk = rows.clamp(1, TABLE_CHUNK_ROWS);
    z.write_names(cols_dim, cols_dim, columns)?;
    if indexed {
        z.create(&ArraySpec {
            name: rows_dim,
            shape: vec![rows],
            chunks: vec![chunk],
            values: Values::I64,
            dims: &[rows_dim],
            attributes: Default::default(),
        })?;
        let index: Vec<i64> = (0..rows as i64).collect();
        z.write_rows(rows_dim, &[], 0, bytemuck::cast_slice(&index))?;
    }
    z.create(&ArraySpec {
        name,
        shape: vec![rows, width as u64],
        chunks: vec![chunk, width as u64],
        values: Values::F64,
        dims: &[rows_dim, cols_dim],
        attributes: Default::default(),
    })?;
    z.write_rows(name, &[], 0, bytemuck::cast_slice(data))
}

/// The table `name` of the store in `dir` (`write_table`), or None when the store has none.
pub(super) fn read_table(dir: &Path, name: &str) -> Result<Option<npy::Array2>> {
    let root = dir.join(STORE_DIR);
    if !root.join(name).join("zarr.json").is_file() {
        return Ok(None);
    }
    let (shape, bytes) = Zarr::open(&root)?.read_all(name)?;
    Ok(Some(npy::Array2 {
        rows: shape[0] as usize,
        cols: shape.get(1).copied().unwrap_or(0) as usize,
        data: bytemuck::pod_collect_to_vec(&bytes),
    }))
}

/// The indicator `column`'s values per point at the last snapshot, from the store in `dir`.
pub(super) fn final_indicator(cfg: &RunConfig, dir: &Path, column: &str) -> Result<Vec<f64>> {
    let z = Zarr::open(&dir.join(STORE_DIR))?;
    let last = saved_steps(cfg).1.len().saturating_sub(1) as u64;
    let bytes = z.read_at(&format!("chaos_{column}"), last)?;
    Ok(bytemuck::pod_collect_to_vec(&bytes))
}

/// Mark the run's store complete (its group's `complete`), when it has one: the last write
/// to it, before the folder's manifest.
pub(super) fn finish(cfg: &RunConfig, out: &Path) -> Result<()> {
    let root = out.join(STORE_DIR);
    if !root.join("zarr.json").is_file() {
        return Ok(());
    }
    Zarr::open(&root)?.write_group(group_attributes(cfg, true))
}

/// The files of a store's folder `root`, relative to it, in order; an error naming any file
/// that a store phaseflow writes does not hold.
pub(super) fn files(root: &Path) -> Result<Vec<PathBuf>> {
    fn walk(dir: &Path, rel: &Path, found: &mut Vec<PathBuf>) -> std::io::Result<()> {
        let mut entries = std::fs::read_dir(dir)?.collect::<std::io::Result<Vec<_>>>()?;
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let rel = rel.join(e.file_name());
            if e.file_type()?.is_dir() {
                walk(&e.path(), &rel, found)?;
            } else {
                found.push(rel);
            }
        }
        Ok(())
    }
    let mut found = Vec::new();
    walk(root, Path::new(""), &mut found).map_err(|source| Error::Output {
        path: root.to_path_buf(),
        source,
    })?;
    match found.iter().find(|f| !own_file(f)) {
        Some(f) => Err(input_err!(
            "{}: not a file of the store phaseflow writes; remove it, or rerun that shard",
            root.join(f).display()
        )),
        None => Ok(found),
    }
}

/// `merge`: the shards' stores (`read(shard, rel)`: shard's file `rel` of its folder, checked
/// against its manifest) joined into one in `out`, or with `out` None only read and checked.
/// Each chunk file is copied as it is; the arrays' metadata must be the same in every shard;
/// the group is written last, complete.
pub(super) fn merge(
    cfg: &RunConfig,
    dirs: &[&Path],
    read: impl Fn(usize, &Path) -> Result<Vec<u8>>,
    out: Option<&Path>,
) -> Result<usize> {
    let mut chunks = 0;
    let store = Path::new(STORE_DIR);
    for (k, dir) in dirs.iter().enumerate() {
        let root = dir.join(STORE_DIR);
        if !root.join("zarr.json").is_file() {
            return Err(input_err!(
                "{}: no store (the shard was not run with --store zarr, or did not save anything); rerun that shard",
                root.display()
            ));
        }
        for rel in files(&root)? {
            if rel == Path::new("zarr.json") {
                continue;
            }
            let bytes = read(k, &store.join(&rel))?;
            if in_table(&rel) {
                // Checked here, appended below.
                continue;
            }
            let metadata = rel.ends_with("zarr.json");
            if metadata && k > 0 && bytes != read(0, &store.join(&rel))? {
                return Err(input_err!(
                    "{}: the array differs from shard 0's (its shape, chunks or attributes); the shards come from different runs",
                    root.join(&rel).display()
                ));
            }
            if let Some(out) = out {
                crate::output::write_atomic(&out.join(store).join(&rel), &bytes)?;
            }
            chunks += usize::from(!metadata);
        }
    }
    // The tables, each shard's rows appended in shard order.
    for (name, columns) in [("stops", super::stops::column_names())] {
        let mut rows = Vec::new();
        for dir in dirs {
            match read_table(dir, name)? {
                Some(t) if t.cols == columns.len() || t.rows == 0 => rows.extend(t.data),
                Some(t) => {
                    return Err(input_err!(
                        "{}: {} columns, not {}; rerun that shard",
                        dir.join(STORE_DIR).join(name).display(),
                        t.cols,
                        columns.len()
                    ))
                }
                None if dir == &dirs[0] => break,
                None => {
                    return Err(input_err!(
                        "{}: missing, where shard 0 has it; rerun that shard",
                        dir.join(STORE_DIR).join(name).display()
                    ))
                }
            }
        }
        if let (Some(out), true) = (out, dirs[0].join(STORE_DIR).join(name).is_dir()) {
            write_table(cfg, out, name, &columns, &rows)?;
        }
    }
    if let Some(out) = out {
        Zarr::open(&out.join(STORE_DIR))?.write_group(group_attributes(cfg, true))?;
    }
    Ok(chunks)
}
