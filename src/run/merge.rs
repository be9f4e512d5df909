//! `phaseflow merge`: the folders of `run --shard K/N` (K = 0 … N−1) joined into the whole
//! ensemble's run folder. Each shard wrote its snapshots' parts (`measure::parts`: the chunk
//! accumulators of its points, exact); appended in shard order they are the whole ensemble's,
//! so stats.csv is the one the unsharded run writes, bit for bit. Saved states are stacked
//! row after row (`npy::stack_rows`).

use std::path::{Path, PathBuf};

use crate::config::{load_toml, OutputDir, RunConfig, RunFile};
use crate::ensemble::shard::Shard;
use crate::error::Result;
use crate::input_err;
use crate::measure::energy::EnergyRow;
use crate::measure::parts::RowParts;
use crate::npy;
use crate::output::{folder, write_atomic, write_csv};

use super::tracker::{parts_path, PARTS_DIR};

/// What `merge` reports.
#[derive(Debug)]
pub struct MergeSummary {
    pub shards: usize,
    pub rows: Vec<EnergyRow>,
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
}

fn read_shard(dir: &Path) -> Result<ShardDir> {
    let config = dir.join("config.toml");
    if !config.is_file() {
        return Err(input_err!(
            "{}: no config.toml; merge takes the --out folders of `phaseflow run --shard K/N`",
            dir.display()
        ));
    }
    let file = load_toml(&config)?;
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
    let text = std::fs::read_to_string(&config).unwrap_or_default();
    let engine_line = text.lines().nth(1).unwrap_or("").to_string();
    Ok(ShardDir {
        dir: dir.to_path_buf(),
        shard,
        file,
        engine_line,
    })
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

fn read(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path)
        .map_err(|e| input_err!("{}: cannot read ({e}); rerun that shard", path.display()))
}

/// `phaseflow merge SHARD_DIR... --out DIR`.
pub fn merge(dirs: &[PathBuf], dest: &OutputDir) -> Result<MergeSummary> {
    let shards = in_order(dirs.iter().map(|d| read_shard(d)).collect::<Result<_>>()?)?;
    let mut file = common_settings(&shards)?;
    file.out = Some(dest.path.clone());
    let cfg = RunConfig::resolve(file)?;
    let steps = cfg.snapshot_steps();
    let filled_area = cfg.ensemble.filled_area(cfg.system.dof());
    let mut rows = Vec::with_capacity(steps.len());
    for &step in &steps {
        let mut all = RowParts::default();
        for s in &shards {
            let path = parts_path(&s.dir, step);
            if !path.is_file() {
                return Err(input_err!(
                    "{}: no {PARTS_DIR}/step_{step}.bin; the shard's folder is incomplete, rerun that shard",
                    s.dir.display()
                ));
            }
            all.append(RowParts::decode(
                &read(&path)?,
                &path.display().to_string(),
            )?);
        }
        if all.points != cfg.ensemble.points as u64 {
            return Err(input_err!(
                "merge: the shards hold {} points at step {step}, the ensemble has {}; rerun the shards",
                all.points,
                cfg.ensemble.points
            ));
        }
        rows.push(all.row(step, cfg.dt, cfg.tangent, filled_area));
    }
    // Everything is read and checked: only now touch --out.
    let out = dest.path.as_path();
    let _lock = folder::prepare(out, folder::Layout::Run, dest.force)?;
    let mut states = 0;
    if cfg.save_states {
        for &step in &steps {
            let name = format!("step_{step}.npy");
            let files = shards
                .iter()
                .map(|s| read(&s.dir.join("states").join(&name)))
                .collect::<Result<Vec<_>>>()?;
            let stacked = npy::stack_rows(&files)
                .map_err(|m| input_err!("merge: states/{name}: {m}; rerun the shards"))?;
            write_atomic(&out.join("states").join(&name), &stacked)?;
            states += 1;
        }
    }
    write_csv(&out.join("stats.csv"), &rows)?;
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
