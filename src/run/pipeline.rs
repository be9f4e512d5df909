//! The `run` pipeline: choose the engine, check memory, generate the initial set, prepare
//! `--out`, let the `Tracker` advance and measure, and write stats.csv, config.toml,
//! trajectory.csv and the portraits.

use std::path::{Path, PathBuf};

use crate::config::{Devices, OutputDir, Precision, RunConfig};
use crate::engine::{gpu_layout, CpuEngine, Engine, GpuEngine, Integrator, MultiGpuEngine};
use crate::error::{Error, Result};
use crate::float::Real;
use crate::gpu;
use crate::measure::energy::EnergyRow;
use crate::output::{folder, npy, write_atomic};
use crate::state::State;
use crate::system::System;

use super::checkpoint::{self, Checkpoint};
use super::initial::{file_loop_nodes, Initial};
use super::interrupt;
use super::resources::{choose_engine, run_bytes_per_point, EngineChoice};
use super::tracker::{Checkpoints, EngineFactory, Tracker};
use crate::memory::check_host_memory;

/// What a finished run reports.
#[derive(Debug, Clone)]
pub struct RunSummary {
    pub engine: String,
    /// The method's name.
    pub method: &'static str,
    pub rows: Vec<EnergyRow>,
    pub out: PathBuf,
    /// Loop refinement stopped at --max-nodes at this step (the area is then under-resolved).
    pub refine_capped_at: Option<u64>,
    /// A loop gap could not be refined from this step on (nodes merged at the run's precision).
    pub refine_stuck_at: Option<u64>,
    /// (step, points) at each of `cfg.portrait_steps`.
    pub portraits: Vec<(u64, State<f64>)>,
    /// Single-point runs: (t, q1..qd p1..pd) at every snapshot (also written as trajectory.csv).
    pub trajectory: Vec<(f64, Vec<f64>)>,
}

/// Say on stderr why `auto` chose its engine, and for a formula what it is.
fn announce(cfg: &RunConfig, note: Option<String>) {
    if let Some(n) = note {
        crate::info!("phaseflow: {n}");
    }
    if let Some(x) = cfg.system.expression() {
        let coordinates = match &x.spec.coordinates {
            Some(_) => format!(" in coordinates {}", x.coordinates().join(", ")),
            None => String::new(),
        };
        crate::info!(
            "phaseflow: system {}: H = {} ({} degree(s) of freedom{coordinates}; {})",
            x.name(),
            x.spec.formula,
            cfg.system.dof(),
            if x.separable() {
                "separable, explicit stages"
            } else {
                "not separable, implicit stages with unconverged points counted"
            }
        );
    }
}

/// The checks a run passes before anything is written: the engine `auto` resolves to, the
/// host memory, and on the GPU the device memory and the kernel's size. `run` makes them,
/// and `study` makes them for every method before it touches its folder.
pub fn preflight(cfg: &RunConfig) -> Result<(EngineChoice, Option<String>)> {
    let (choice, note) = choose_engine(cfg);
    // A refined loop grows up to --max-nodes.
    let (flag, n) = match cfg.refine {
        Some(r) if r.max_nodes > cfg.ensemble.points => ("--max-nodes", r.max_nodes),
        _ => ("--points", cfg.ensemble.points),
    };
    check_host_memory(
        flag,
        n,
        run_bytes_per_point(cfg, choice == EngineChoice::Gpu),
    )?;
    if choice == EngineChoice::Gpu {
        let d = cfg.system.dof();
        let comps = if cfg.tangent { d * (1 + 2 * d) } else { d };
        let ctx = gpu::context()?;
        let f64 = cfg.precision == Precision::F64;
        if f64 {
            gpu_layout::check_f64_support(ctx.f64, &ctx.info.name, &cfg.system)?;
        }
        let words = gpu_layout::words_per_point(comps, cfg.compensated);
        let value_bytes = if f64 { 8 } else { 4 };
        gpu_layout::check_device_memory(ctx, flag, n, words, value_bytes)?;
        gpu_layout::check_kernel_size(ctx, &cfg.integrator(), comps)?;
    }
    Ok((choice, note))
}

/// `phaseflow run`.
pub fn run(cfg: &RunConfig, out: &OutputDir) -> Result<RunSummary> {
    let (choice, note) = preflight(cfg)?;
    let k = cfg.integrator();
    let gpus = gpus(cfg, choice)?;
    match cfg.precision {
        Precision::F32 => {
            let engines = factory(&k, choice, &gpus);
            run_with::<f32>(cfg, out, note, choice, &engines, None)
        }
        Precision::F64 => {
            let engines = factory(&k, choice, &gpus);
            run_with::<f64>(cfg, out, note, choice, &engines, None)
        }
    }
}

/// The GPUs of `--devices` (none without it: the engine uses the default GPU).
pub(super) fn gpus(cfg: &RunConfig, choice: EngineChoice) -> Result<Vec<&'static gpu::GpuContext>> {
    let Some(devices) = &cfg.devices else {
        return Ok(Vec::new());
    };
    if choice != EngineChoice::Gpu {
        return Ok(Vec::new());
    }
    let list = match devices {
        Devices::All => (0..gpu::device_count()).collect(),
        Devices::List(l) => l.clone(),
    };
    list.into_iter().map(gpu::context_at).collect()
}

/// The engines of a run: the chosen kind, at precision T (on the `gpus` of `--devices`
/// when there are any).
pub(super) fn factory<'a, T: Real>(
    k: &'a Integrator,
    choice: EngineChoice,
    gpus: &'a [&'static gpu::GpuContext],
) -> impl Fn(State<T>) -> Result<Box<dyn Engine<T>>> + 'a {
    move |s| -> Result<Box<dyn Engine<T>>> {
        match choice {
            EngineChoice::Gpu if !gpus.is_empty() => {
                Ok(Box::new(MultiGpuEngine::new(gpus.to_vec(), k, s)?))
            }
            EngineChoice::Gpu => Ok(Box::new(GpuEngine::new(k, s)?)),
            EngineChoice::Cpu => Ok(Box::new(CpuEngine::new(k, s))),
        }
    }
}

/// A run from its initial set (`from`: `None`), or from a checkpoint and the statistics rows
/// stats.csv holds up to it (`resume`).
pub(super) fn run_with<T: Real>(
    cfg: &RunConfig,
    dest: &OutputDir,
    note: Option<String>,
    choice: EngineChoice,
    factory: &EngineFactory<T>,
    from: Option<(Checkpoint<T>, Vec<EnergyRow>)>,
) -> Result<RunSummary> {
    let out = dest.path.as_path();
    let (mut tracker, resume, config_hash, _lock) = match from {
        None => {
            let init = Initial::<T>::generate(cfg)?;
            // Everything that can fail on user input has been checked: only now touch --out
            // (refused when it holds another run, unless --force; locked until the end).
            let lock = folder::prepare(out, folder::Layout::Run, dest.force)?;
            announce(cfg, note);
            (Tracker::new(cfg, init, factory)?, None, None, lock)
        }
        Some((c, rows)) => {
            let lock = folder::lock(out)?;
            let hash = c.config_hash.clone();
            let (t, r) = Tracker::from_checkpoint(cfg, c, factory, file_loop_nodes(cfg)?, rows)?;
            (t, Some(r), Some(hash), lock)
        }
    };
    interrupt::install();
    let describe = tracker.engine.describe();
    crate::info!(
        "phaseflow: engine {describe}, precision {}{}",
        cfg.arithmetic(),
        if tracker.device_energy {
            ", energy statistics reduced on the device in f64"
        } else {
            ""
        }
    );
    let config_hash = match config_hash {
        Some(h) => h,
        None => {
            let text = cfg.to_toml(&describe, out);
            write_atomic(&out.join("config.toml"), text.as_bytes())?;
            checkpoint::hash(text.as_bytes())
        }
    };
    let kind = match choice {
        EngineChoice::Gpu => "gpu",
        EngineChoice::Cpu => "cpu",
    };
    let mut ck = Checkpoints::new(out, kind, config_hash, cfg.checkpoint_every);
    let rows = tracker.snapshots(out, &mut ck, resume)?;
    if !tracker.trajectory.is_empty() {
        write_trajectory(
            &out.join("trajectory.csv"),
            &cfg.system,
            &tracker.trajectory,
        )?;
    }
    // Phase portraits (studies) belong to the run's folder, before its manifest.
    for (step, st) in &tracker.portraits {
        let path = out.join("states").join(format!("step_{step}.npy"));
        write_atomic(&path, &npy::encode_state(st))?;
    }
    // The run is complete: its checkpoint is not needed any more.
    let ckpt_dir = out.join(checkpoint::DIR);
    if ckpt_dir.exists() {
        std::fs::remove_dir_all(&ckpt_dir).map_err(|source| Error::Output {
            path: ckpt_dir,
            source,
        })?;
    }
    let notes: Vec<(&str, u64)> = [
        ("refine_capped_at_step", tracker.capped_at),
        ("refine_stuck_at_step", tracker.stuck_at),
    ]
    .into_iter()
    .filter_map(|(k, v)| v.map(|v| (k, v)))
    .collect();
    folder::write_manifest_noting(out, &notes)?;
    Ok(RunSummary {
        engine: describe,
        method: cfg.method.name(),
        rows,
        out: out.to_path_buf(),
        refine_capped_at: tracker.capped_at,
        refine_stuck_at: tracker.stuck_at,
        portraits: tracker.portraits,
        trajectory: tracker.trajectory,
    })
}

/// trajectory.csv: t, then q1..qd, p1..pd of the single point, then H (f64), per snapshot.
fn write_trajectory(path: &Path, system: &System, traj: &[(f64, Vec<f64>)]) -> Result<()> {
    let d = system.dof();
    let mut header = vec!["t".to_string()];
    header.extend((1..=d).map(|k| format!("q{k}")));
    header.extend((1..=d).map(|k| format!("p{k}")));
    header.push("energy".into());
    let mut w = csv::Writer::from_writer(Vec::new());
    let io = |e: csv::Error| Error::Output {
        path: path.to_path_buf(),
        source: std::io::Error::other(e),
    };
    w.write_record(&header).map_err(io)?;
    for (t, z) in traj {
        let mut rec = vec![format!("{t}")];
        rec.extend(z.iter().map(|x| format!("{x}")));
        rec.push(format!("{}", system.energy(&z[..d], &z[d..])));
        w.write_record(&rec).map_err(io)?;
    }
    let bytes = w.into_inner().map_err(|e| io(e.into_error().into()))?;
    write_atomic(path, &bytes)
}
