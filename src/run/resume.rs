//! `phaseflow resume DIR` for a run: the configuration from DIR/config.toml, the state from
//! DIR/checkpoint/run.ckpt, stats.csv cut back to the checkpoint's rows, and the run continued
//! on the engine kind that wrote the checkpoint, so its files come out as an uninterrupted
//! run's would (tested with `cmp`). Without a checkpoint the run starts again from step 0.

use std::path::Path;

use crate::config::{load_toml, OutputDir, Precision, RunConfig};
use crate::error::Result;
use crate::float::Real;
use crate::input_err;
use crate::output::folder;

use super::checkpoint::{self, Checkpoint};
use super::pipeline::{factory, gpus, run, run_with, RunSummary};
use super::resources::EngineChoice;

/// What `resume` found and did.
pub enum Resumed {
    /// The folder holds a complete run (its manifest): nothing to do.
    Complete,
    /// The run was continued (or, without a checkpoint, run again) to its end.
    Finished(RunSummary),
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
    if !config.is_file() {
        return Err(input_err!(
            "{}: no config.toml, so no phaseflow run to resume (a study folder holds study.toml)",
            dir.display()
        ));
    }
    let cfg = RunConfig::resolve(load_toml(&config)?)?;
    resume_in(&cfg, dir).map(Resumed::Finished)
}

/// Continue the run of `cfg` in `dir` from its checkpoint (a study passes its own
/// configuration, with the portrait steps config.toml does not hold).
pub fn resume_in(cfg: &RunConfig, dir: &Path) -> Result<RunSummary> {
    match cfg.precision {
        Precision::F32 => resume_as::<f32>(cfg, dir),
        Precision::F64 => resume_as::<f64>(cfg, dir),
    }
}

fn resume_as<T: Real>(cfg: &RunConfig, dir: &Path) -> Result<RunSummary> {
    let out = OutputDir {
        path: dir.to_path_buf(),
        force: true,
    };
    let Some(c) = Checkpoint::<T>::read(dir)? else {
        crate::info!(
            "phaseflow: {}: no checkpoint; running it again from step 0",
            dir.display()
        );
        return run(cfg, &out);
    };
    let written = std::fs::read(dir.join("config.toml")).unwrap_or_default();
    if checkpoint::hash(&written) != c.config_hash {
        return Err(input_err!(
            "{}: config.toml changed since the checkpoint was written; restore it, or start a new run with --config",
            dir.display()
        ));
    }
    let rows = checkpoint::rewind_stats(&dir.join("stats.csv"), c.stats_bytes)?;
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
    run_with::<T>(cfg, &out, None, choice, &engines, Some((c, rows)))
}
