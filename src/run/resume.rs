//! `phaseflow resume DIR` for a run: the configuration from DIR/config.toml, the state from
//! DIR/checkpoint/run.ckpt, stats.csv cut back to the checkpoint's rows, and the run continued
//! on the engine kind that wrote the checkpoint, so its files come out as an uninterrupted
//! run's would (tested with `cmp`). Without a checkpoint the run starts again from step 0.
//! The folder's lock is taken before anything in it is read, so a resume never touches a
//! folder that a run is still writing (a paused one included). A checkpoint is used only when
//! it is whole (`Checkpoint::read`), was written with this folder's config.toml, fits it, and
//! stats.csv still holds the rows it records.

use std::collections::BTreeMap;
use std::path::Path;

use crate::config::{load_recorded, OutputDir, Precision, RunBuilder, RunConfig, MAX_CONFIG_BYTES};
use crate::error::{Error, Result};
use crate::float::Real;
use crate::input_err;
use crate::output::folder;

use super::checkpoint::{self, Checkpoint};
use super::pipeline::{factory, gpus, run, run_with, Destination, RunSummary};
use super::resources::EngineChoice;

/// What `resume` found and did.
pub enum Resumed {
    /// The folder holds a complete run (its manifest): nothing to do.
    Complete,
    /// The run was continued (or, without a checkpoint, run again) to its end.
    Finished(Box<RunSummary>),
}

/// Continue the interrupted run in `dir`.
pub fn resume_run(dir: &Path) -> Result<Resumed> {
    if dir.join(folder::MANIFEST).exists() {
        return Ok(Resumed::Complete);
    }
    if let Some(study) = dir.parent().filter(|p| p.join("study.toml").is_file()) {
        return Err(input_err!(
            "{} is a method folder of the study {}; resume the study: phaseflow resume {}",
            dir.display(),
            study.display(),
            study.display()
        ));
    }
    let config = dir.join("config.toml");
    let no_run = || {
        input_err!(
            "{}: no config.toml, so no phaseflow run to resume (a study folder holds study.toml)",
            dir.display()
        )
    };
    if !dir.is_dir() {
        return Err(no_run());
    }
    // Before anything in the folder is read: a run still writing into it keeps it.
    let lock = folder::lock(dir, folder::LockFor::Resume)?;
    if !config.is_file() {
        return Err(no_run());
    }
    let cfg = RunBuilder::from(load_recorded(&config)?).build()?;
    resume_locked(&cfg, dir, lock).map(|s| Resumed::Finished(Box::new(s)))
}

/// Continue the run of `cfg` in `dir` from its checkpoint (a study passes its own
/// configuration, with the portrait steps config.toml does not hold), once its lock is taken.
pub fn resume_in(cfg: &RunConfig, dir: &Path) -> Result<RunSummary> {
    resume_locked(cfg, dir, folder::lock(dir, folder::LockFor::Resume)?)
}

fn resume_locked(cfg: &RunConfig, dir: &Path, lock: folder::OutLock) -> Result<RunSummary> {
    // Held: no other run writes here, so temporaries are those of a run that was killed.
    folder::remove_temporaries(dir)?;
    match cfg.precision {
        Precision::F32 => resume_as::<f32>(cfg, dir, lock),
        Precision::F64 => resume_as::<f64>(cfg, dir, lock),
    }
}

fn resume_as<T: Real>(cfg: &RunConfig, dir: &Path, lock: folder::OutLock) -> Result<RunSummary> {
    let out = OutputDir {
        path: dir.to_path_buf(),
        force: true,
    };
    let Some(c) = Checkpoint::<T>::read(dir)? else {
        crate::info!(
            "phaseflow: {}: no checkpoint; running it again from step 0",
            dir.display()
        );
        // `run` takes the lock again: nothing was read or changed meanwhile that it relies on.
        drop(lock);
        return run(cfg, &out);
    };
    let config = dir.join("config.toml");
    let written =
        crate::ensemble::read_regular(&config, MAX_CONFIG_BYTES, "the config.toml the run wrote")
            .map_err(|message| Error::InputFile {
            path: config.clone(),
            message,
        })?;
    if written != c.config.as_bytes() {
        return Err(config_mismatch(
            dir,
            &c.config,
            &String::from_utf8_lossy(&written),
        ));
    }
    fits(&c, cfg, dir)?;
    let rows = checkpoint::rewind_stats(dir, c.stats_bytes, c.stats_crc)?;
    let choice = if c.engine == "gpu" {
        EngineChoice::Gpu
    } else {
        EngineChoice::Cpu
    };
    crate::info!(
        "phaseflow: resuming {} at step {} of {} ({} engine, as before)",
        dir.display(),
        c.step,
        cfg.steps,
        c.engine
    );
    let k = cfg.integrator();
    let gpus = gpus(cfg, choice)?;
    let engines = factory(&k, choice, &gpus, cfg.ensemble.is_loop());
    run_with::<T>(
        cfg,
        Destination::Folder(&out),
        None,
        choice,
        &engines,
        Some((c, rows, lock)),
        false,
    )
}

/// Why the configuration a checkpoint was written with is not config.toml's: the checkpoint
/// of another run (its config.toml names another --out), or config.toml edited (the settings
/// that differ are named).
fn config_mismatch(dir: &Path, then: &str, now: &str) -> Error {
    let (then, now) = (settings(then), settings(now));
    if then.get("out") != now.get("out") {
        let out = then
            .get("out")
            .map_or("another folder", |v| v.trim_matches('"'));
        return input_err!(
            "{}: the checkpoint belongs to another run (the one written to --out {out}), not to this folder's config.toml; put back this folder's own checkpoint, or {}",
            checkpoint::path(dir).display(),
            checkpoint::restart_hint(dir)
        );
    }
    let mut keys: Vec<&String> = then.keys().chain(now.keys()).collect();
    keys.sort();
    keys.dedup();
    let unset = String::from("unset");
    let changes: Vec<String> = keys
        .into_iter()
        .filter(|k| then.get(*k) != now.get(*k))
        .map(|k| {
            let (a, b) = (then.get(k).unwrap_or(&unset), now.get(k).unwrap_or(&unset));
            format!("{k} = {a} then, {b} now")
        })
        .collect();
    let what = match changes.len() {
        0 => "its comments or layout".to_string(),
        1..=3 => changes.join("; "),
        n => format!("{} and {} more", changes[..3].join("; "), n - 3),
    };
    input_err!(
        "{}: config.toml changed since the checkpoint was written ({what}); restore it, or start a new run with --config",
        dir.display()
    )
}

/// A config.toml's settings as `key` or `table.key` → value (empty when it is not TOML).
fn settings(text: &str) -> BTreeMap<String, String> {
    fn walk(prefix: &str, table: &toml::Table, out: &mut BTreeMap<String, String>) {
        for (k, v) in table {
            let key = format!("{prefix}{k}");
            match v {
                toml::Value::Table(t) => walk(&format!("{key}."), t, out),
                v => {
                    out.insert(key, v.to_string());
                }
            }
        }
    }
    let mut out = BTreeMap::new();
    walk("", &text.parse().unwrap_or_default(), &mut out);
    out
}

/// The checkpoint's state and bookkeeping have the shapes config.toml's run gives them (a
/// sealed file with the right configuration always does; this keeps a file made to look like
/// one from reaching the engine).
fn fits<T: Real>(c: &Checkpoint<T>, cfg: &RunConfig, dir: &Path) -> Result<()> {
    let (n, d) = (c.state.n, c.state.d);
    let per_point = |len: usize| len == 0 || len == n;
    let ok = d == cfg.system.dof()
        && c.state.nt
            == if cfg.tangent {
                2 * d
            } else {
                cfg.chaos.as_ref().map_or(0, |c| c.layout().vectors)
            }
        && c.state.chaos_width()
            == cfg.chaos.as_ref().map_or(0, |c| c.layout().width())
                + cfg
                    .stops
                    .as_ref()
                    .map_or(0, |_| crate::observe::stop::WIDTH)
        && c.step <= cfg.steps
        && per_point(c.h0.len())
        && per_point(c.l0.len())
        && per_point(c.s.len())
        && per_point(c.log2_scale.len());
    if ok {
        return Ok(());
    }
    Err(Error::InputFile {
        path: checkpoint::path(dir),
        message: format!(
            "not a usable checkpoint: its state does not fit config.toml's run; {}",
            checkpoint::restart_hint(dir)
        ),
    })
}
