//! `phaseflow merge`: the folders of `run --shard K/N` (K = 0 … N−1) joined into the whole
//! ensemble's run folder. Each shard wrote its snapshots' parts (`measure::parts`: the chunk
//! accumulators of its points, exact); appended in shard order they are the whole ensemble's,
//! so stats.csv is the one the unsharded run writes, bit for bit. Saved states are stacked
//! row after row (`npy::stack_rows`).
//!
//! Nothing is merged unchecked: every file read from a shard (config.toml, parts, saved
//! states, chaos indicators) must have the size and CRC-32 the shard's manifest records; each
//! parts file must be whole (its seal) and say that it holds this snapshot of this shard of
//! this run (its step, shard and the CRC-32 of the shard's config.toml), and each saved states
//! file must have the CRC-32 its shard's parts record. All of it is read and checked before
//! --out is touched, and --out must lie apart from the shards' folders (`--force` would
//! otherwise delete a shard before it is read). The merged folder holds the files the
//! unsharded run writes: stats.csv, config.toml, states/, chaos/ and a grid's map.

use std::path::{Path, PathBuf};

use crate::checksum::crc32;
use crate::config::{
    load_recorded, OutputDir, RunBuilder, RunConfig, RunFile, Store, MAX_CONFIG_BYTES,
};
use crate::ensemble::shard::Shard;
use crate::error::{Error, Result};
use crate::input_err;
use crate::measure::parts::PartsFile;
use crate::measure::row::{Row, RowParts};
use crate::npy;
use crate::output::folder::{self, Manifest};
use crate::output::target::resolved;
use crate::output::{write_atomic, write_csv};

use super::tracker::{parts_path, setup, writes_indicators, CHAOS_DIR, PARTS_DIR};

/// What `merge` reports.
#[derive(Debug)]
pub struct MergeSummary {
    pub shards: usize,
    pub rows: Vec<Row>,
    /// Snapshots whose states were stacked.
    pub states: usize,
}

/// One shard's folder, as `merge` reads it.
struct ShardDir {
    dir: PathBuf,
    shard: Shard,
    file: RunFile,
    /// The engine config.toml names (its second line).
    engine_line: String,
    /// CRC-32 of its config.toml, which its parts files record.
    config_crc: u32,
    /// Its manifest: the size and CRC-32 of every file merge reads from it.
    manifest: Manifest,
}

impl ShardDir {
    /// The shard's file `rel` read whole (a regular file of at most `limit` bytes) and checked
    /// against the shard's manifest.
    fn read(&self, rel: &Path, limit: u64) -> Result<Vec<u8>> {
        let path = self.dir.join(rel);
        let bytes = crate::ensemble::read_regular(
            &path,
            limit,
            "the file the shard wrote, or rerun that shard",
        )
        .map_err(|m| input_err!("{}: {m}", path.display()))?;
        self.manifest
            .check(rel, &bytes, "restore it, or rerun that shard")?;
        Ok(bytes)
    }
}

fn read_shard(dir: &Path) -> Result<ShardDir> {
    let config = dir.join("config.toml");
    if !config.is_file() {
        return Err(input_err!(
            "{}: no config.toml; merge takes the --out folders of `phaseflow run --shard K/N`",
            dir.display()
        ));
    }
    let file = load_recorded(&config)?;
    let shard = match &file.shard {
        Some(text) => Shard::parse(text)?,
        None => {
            return Err(input_err!(
                "{}: not a shard (its config.toml has no `shard`); merge takes the folders of `phaseflow run --shard K/N`",
                dir.display()
            ))
        }
    };
    if !dir.join(folder::MANIFEST).is_file() {
        return Err(input_err!(
            "{}: shard {} did not finish (no manifest.toml); continue it with `phaseflow resume {}` and merge again",
            dir.display(),
            shard.text(),
            dir.display()
        ));
    }
    let Some(manifest) = Manifest::read(dir) else {
        return Err(Error::InputFile {
            path: dir.join(folder::MANIFEST),
            message: "not a manifest phaseflow wrote, or unreadable; rerun that shard".into(),
        });
    };
    let mut s = ShardDir {
        dir: dir.to_path_buf(),
        shard,
        file,
        engine_line: String::new(),
        config_crc: 0,
        manifest,
    };
    let text = s.read(Path::new("config.toml"), MAX_CONFIG_BYTES)?;
    let text = String::from_utf8_lossy(&text);
    s.engine_line = text.lines().nth(1).unwrap_or("").to_string();
    s.config_crc = crc32(text.as_bytes());
    Ok(s)
}

/// The shards' settings, which must be one run's but for `shard` and `out`.
fn common_settings(shards: &[ShardDir]) -> Result<RunFile> {
    let strip = |f: &RunFile| {
        let mut f = f.clone();
        f.shard = None;
        f.out = None;
        toml::to_string(&f).unwrap_or_default()
    };
    let first = strip(&shards[0].file);
    for s in &shards[1..] {
        if strip(&s.file) != first {
            return Err(input_err!(
                "{} and {}: the shards come from different runs (their config.toml differ beyond `shard` and `out`); merge the shards of one run",
                shards[0].dir.display(),
                s.dir.display()
            ));
        }
    }
    let mut f = shards[0].file.clone();
    f.shard = None;
    Ok(f)
}

/// Every shard of N present once, in shard order.
fn in_order(mut shards: Vec<ShardDir>) -> Result<Vec<ShardDir>> {
    if shards.is_empty() {
        return Err(input_err!(
            "merge: give the shards' folders (e.g. out/shard-*)"
        ));
    }
    shards.sort_by_key(|s| s.shard.index);
    let count = shards[0].shard.count;
    for (k, s) in shards.iter().enumerate() {
        if s.shard.count != count {
            return Err(input_err!(
                "{} is shard {} but {} is shard {}: the shards come from different splits",
                shards[0].dir.display(),
                shards[0].shard.text(),
                s.dir.display(),
                s.shard.text()
            ));
        }
        if s.shard.index != k {
            let which = if s.shard.index < k {
                format!("shard {}/{count} is given twice", s.shard.index)
            } else {
                format!("shard {k}/{count} is missing")
            };
            return Err(input_err!(
                "merge: {which}; give each of the {count} shards' folders once"
            ));
        }
    }
    if shards.len() != count {
        return Err(input_err!(
            "merge: shard {}/{count} is missing; give each of the {count} shards' folders once",
            shards.len()
        ));
    }
    Ok(shards)
}

/// Refuse an --out that is one of the shards' folders, lies inside one, or holds one (compared
/// resolved: symlinks, `.` and `..`), before anything is deleted.
fn check_out_apart(dirs: &[PathBuf], out: &Path) -> Result<()> {
    let out_at = resolved(out);
    for dir in dirs {
        let at = resolved(dir);
        let how = if out_at == at {
            "is the shard folder"
        } else if out_at.starts_with(&at) {
            "lies inside the shard folder"
        } else if at.starts_with(&out_at) {
            "holds the shard folder"
        } else {
            continue;
        };
        use crate::error::Field;
        return Err(crate::invalid!(Field::Out;
            Field::Out.is(out.display()),
            format!(": {how} {}; merge into a folder apart from the shards (", dir.display()),
            Field::Force,
            " would delete the shard before it is read)",
        ));
    }
    Ok(())
}

/// Shard `s`'s parts of snapshot `step`, checked to be that snapshot of that shard of this
/// run, holding its `points`; with the CRC-32 of its saved states there, if any.
fn read_parts(s: &ShardDir, step: u64, points: usize) -> Result<(RowParts, Option<u32>)> {
    let path = parts_path(&s.dir, step);
    if std::fs::symlink_metadata(&path).is_err() {
        return Err(input_err!(
            "{}: no {PARTS_DIR}/step_{step}.bin; the shard's folder is incomplete, rerun that shard",
            s.dir.display()
        ));
    }
    let limit = PartsFile::max_len(points);
    let rel = path.strip_prefix(&s.dir).unwrap_or(&path);
    let (file, parts) = PartsFile::decode(&s.read(rel, limit)?, &path.display().to_string())?;
    let (index, count) = (s.shard.index as u64, s.shard.count as u64);
    let wrong = if file.step != step {
        format!(
            "it holds the parts of step {}, not of step {step}",
            file.step
        )
    } else if file.shard != (index, count) {
        format!(
            "it holds the parts of shard {}/{}, not of shard {index}/{count}",
            file.shard.0, file.shard.1
        )
    } else if file.config_crc != s.config_crc {
        format!(
            "it belongs to another run (written with another config.toml than {})",
            s.dir.join("config.toml").display()
        )
    } else if parts.points != points as u64 {
        format!(
            "it holds {} points, shard {index}/{count} has {points}",
            parts.points
        )
    } else {
        return Ok((parts, file.states_crc));
    };
    Err(input_err!(
        "{}: {wrong} (copied or renamed from elsewhere); rerun that shard",
        path.display()
    ))
}

/// Shard `s`'s saved states of snapshot `step`, checked against the CRC-32 its parts record.
fn read_states(s: &ShardDir, step: u64, crc: Option<u32>) -> Result<Vec<u8>> {
    let rel = Path::new("states").join(format!("step_{step}.npy"));
    let path = s.dir.join(&rel);
    // Stacking holds every shard's file and the whole: at most half the memory each.
    let limit = crate::memory::available_memory().map_or(u64::MAX, |m| m / 2);
    let bytes = s.read(&rel, limit)?;
    if crc != Some(crc32(&bytes)) {
        return Err(input_err!(
            "{}: not the states shard {} saved at step {step} (its CRC-32 differs from the one the shard's parts record: changed, or copied from another step, shard or run); rerun that shard",
            path.display(),
            s.shard.text()
        ));
    }
    Ok(bytes)
}

/// `--chaos`: each snapshot's per-point indicators that the shards wrote
/// (`chaos/step_<k>.npy` where `writes_indicators`), stacked in shard order like the states
/// into `out`; with `out` None only read, checked and stacked.
fn merge_indicators(cfg: &RunConfig, shards: &[ShardDir], out: Option<&Path>) -> Result<()> {
    let limit = crate::memory::available_memory().map_or(u64::MAX, |m| m / 2);
    for step in cfg.snapshot_steps() {
        if !writes_indicators(cfg, step) {
            continue;
        }
        let name = format!("step_{step}.npy");
        let rel = Path::new(CHAOS_DIR).join(&name);
        let files = shards
            .iter()
            .map(|s| s.read(&rel, limit))
            .collect::<Result<Vec<_>>>()?;
        let stacked = npy::stack_rows(&files)
            .map_err(|m| input_err!("merge: {CHAOS_DIR}/{name}: {m}; rerun the shards"))?;
        if let Some(out) = out {
            write_atomic(&out.join(rel), &stacked)?;
        }
    }
    Ok(())
}

/// `--stop-when`: the shards' `stops.npy` (checked against their manifests) stacked in shard
/// order (with `--store zarr` none: the stores' `stops` are appended by `store::merge`).
fn merge_stops(cfg: &RunConfig, shards: &[ShardDir]) -> Result<Option<Vec<u8>>> {
    if cfg.stops.is_none() || cfg.store == Store::Zarr {
        return Ok(None);
    }
    let limit = crate::memory::available_memory().map_or(u64::MAX, |m| m / 2);
    let rel = Path::new(super::stops::STOPS_FILE);
    let files = (shards.iter().map(|s| s.read(rel, limit))).collect::<Result<Vec<_>>>()?;
    super::stops::stack(&files).map(Some)
}

/// `--frequencies`: the shards' frequencies.npy stacked in shard order, which is point order.
fn merge_frequencies(cfg: &RunConfig, shards: &[ShardDir]) -> Result<Option<Vec<u8>>> {
    let name = super::frequencies::FREQUENCIES_FILE;
    if cfg.frequencies.is_none() {
        return Ok(None);
    }
    let limit = crate::memory::available_memory().map_or(u64::MAX, |m| m / 2);
    let files =
        (shards.iter().map(|s| s.read(Path::new(name), limit))).collect::<Result<Vec<_>>>()?;
    let stacked =
        npy::stack_rows(&files).map_err(|m| input_err!("merge: {name}: {m}; rerun the shards"))?;
    Ok(Some(stacked))
}

/// The shards' saved states and chaos indicators: with `out` None only read and checked, else
/// written into `out` (the .npy files stacked, or with `--store zarr` the stores' chunk files
/// copied, `store::merge`); the number of snapshots whose states were merged.
fn merge_arrays(
    cfg: &RunConfig,
    shards: &[ShardDir],
    states_crc: &[Vec<Option<u32>>],
    out: Option<&Path>,
) -> Result<usize> {
    let steps = cfg.snapshot_steps();
    let stored = cfg.save_states || cfg.chaos.is_some() || cfg.stops.is_some();
    if cfg.store == Store::Zarr && stored {
        let dirs: Vec<&Path> = shards.iter().map(|s| s.dir.as_path()).collect();
        let read = |k: usize, rel: &Path| shards[k].read(rel, u64::MAX);
        super::store::merge(cfg, &dirs, read, out)?;
        return Ok(steps.len() * usize::from(cfg.save_states));
    }
    let mut states = 0;
    for (&step, crcs) in steps.iter().zip(states_crc).filter(|_| cfg.save_states) {
        let Some(out) = out else {
            for (s, &crc) in shards.iter().zip(crcs) {
                read_states(s, step, crc)?;
            }
            continue;
        };
        let name = format!("step_{step}.npy");
        let files = shards
            .iter()
            .zip(crcs)
            .map(|(s, &crc)| read_states(s, step, crc))
            .collect::<Result<Vec<_>>>()?;
        let stacked = npy::stack_rows(&files)
            .map_err(|m| input_err!("merge: states/{name}: {m}; rerun the shards"))?;
        write_atomic(&out.join("states").join(&name), &stacked)?;
        states += 1;
    }
    merge_indicators(cfg, shards, out)?;
    Ok(states)
}

/// `phaseflow merge SHARD_DIR... --out DIR`.
pub fn merge(dirs: &[PathBuf], dest: &OutputDir) -> Result<MergeSummary> {
    check_out_apart(dirs, &dest.path)?;
    let shards = in_order(dirs.iter().map(|d| read_shard(d)).collect::<Result<_>>()?)?;
    let mut file = common_settings(&shards)?;
    file.out = Some(dest.path.clone());
    let cfg = RunBuilder::from(file).build()?;
    let steps = cfg.snapshot_steps();
    let run = setup(&cfg);
    let points: Vec<usize> = shards
        .iter()
        .map(|s| s.shard.range(cfg.ensemble.points).map(|r| r.len()))
        .collect::<Result<_>>()?;
    let mut rows = Vec::with_capacity(steps.len());
    // The CRC-32 of each shard's saved states, per snapshot.
    let mut states_crc = Vec::with_capacity(steps.len());
    for &step in &steps {
        let mut all = RowParts::default();
        let mut crcs = Vec::with_capacity(shards.len());
        for (s, &n) in shards.iter().zip(&points) {
            let (parts, crc) = read_parts(s, step, n)?;
            all.append(parts);
            crcs.push(crc);
        }
        if all.points != cfg.ensemble.points as u64 {
            return Err(input_err!(
                "merge: the shards hold {} points at step {step}, the ensemble has {}; rerun the shards",
                all.points,
                cfg.ensemble.points
            ));
        }
        let row = all.row(&run, step, cfg.time_at(step), rows.first());
        rows.push(row);
        states_crc.push(crcs);
    }
    // Checked here and read again below: the files are not all held in memory at once.
    merge_arrays(&cfg, &shards, &states_crc, None)?;
    let stops = merge_stops(&cfg, &shards)?;
    let frequencies = merge_frequencies(&cfg, &shards)?;
    // Everything is read and checked: only now touch --out.
    let out = dest.path.as_path();
    let _lock = folder::prepare(out, folder::Layout::Run, dest.force)?;
    let states = merge_arrays(&cfg, &shards, &states_crc, Some(out))?;
    if let Some(stops) = stops {
        write_atomic(&out.join(super::stops::STOPS_FILE), &stops)?;
    }
    if let Some(f) = frequencies {
        write_atomic(&out.join(super::frequencies::FREQUENCIES_FILE), &f)?;
        super::frequencies::redraw(&cfg, out, out)?;
    }
    write_csv(&out.join("stats.csv"), &rows)?;
    // A grid's map, drawn from the merged indicators as the unsharded run draws it.
    super::chaos_map::write(&cfg, out, out)?;
    if let Some(last) = rows.last() {
        super::basins::write_exits(&cfg, out, last)?;
    }
    super::basins::write_maps(&cfg, out, out)?;
    let engine = shards[0]
        .engine_line
        .strip_prefix("# engine used: ")
        .unwrap_or("unknown");
    let text = cfg.to_toml(&format!("{engine}, {} shards merged", shards.len()), out);
    write_atomic(&out.join("config.toml"), text.as_bytes())?;
    folder::write_manifest(out)?;
    Ok(MergeSummary {
        shards: shards.len(),
        rows,
        states,
    })
}
