//! The `run` pipeline: choose the engine, check memory, generate the initial set, prepare
//! `--out`, let the `Tracker` advance and measure, and write stats.csv, config.toml,
//! trajectory.csv and the portraits.

use std::path::{Path, PathBuf};

use crate::cluster::Peers;
use crate::config::{Devices, OutputDir, Precision, RunConfig};
use crate::engine::ranks::rank_slice;
use crate::engine::{
    gpu_layout, CpuEngine, Engine, GpuEngine, Integrator, MultiGpuEngine, RankEngine,
};
use crate::ensemble::shard::Shard;
use crate::error::{Field, Message, Result};
use crate::float::Real;
use crate::gpu;
use crate::measure::row::Row;
use crate::output::{folder, npy, write_atomic};
use crate::state::State;

use super::checkpoint::Checkpoint;
use super::checkpoint::Checkpoints;
use super::initial::{file_loop_nodes, Initial};
use super::interrupt;
use super::memory::{InMemory, Kept, StateRows};
use super::resources::{check_section_memory, choose_engine, run_bytes_per_point, EngineChoice};
use super::tracker::{EngineFactory, Tracker};
use crate::memory::check_host_memory;

/// What a finished run reports.
#[derive(Debug, Clone)]
pub struct RunSummary {
    pub engine: String,
    /// The method's name.
    pub method: &'static str,
    pub rows: Vec<Row>,
    pub out: PathBuf,
    /// Loop refinement stopped at --max-nodes at this step (the area is then under-resolved).
    pub refine_capped_at: Option<u64>,
    /// A loop gap could not be refined from this step on (nodes merged at the run's precision).
    pub refine_stuck_at: Option<u64>,
    /// (step, points) at each of `cfg.portrait_steps`.
    pub portraits: Vec<(u64, State<f64>)>,
    /// Single-point runs: (t, q1..qd p1..pd) at every snapshot (also written as trajectory.csv).
    pub trajectory: Vec<(f64, Vec<f64>)>,
    /// What `--reference` and `--reverse` found, a sentence each, for the terminal.
    pub accuracy: Vec<String>,
    /// The state after the last step, when the caller asked for it (`run_keeping_final`).
    pub final_state: Option<Box<StateRows>>,
    /// A run without a folder (`run_in_memory`): what it would have written.
    pub memory: Option<Box<InMemory>>,
    /// With --stop-when, where the points went (`basins::Exits`, exits.csv).
    pub exits: Option<super::basins::Exits>,
}

/// Where a run's results go: its folder, or back to the caller (`run_in_memory`).
#[derive(Clone, Copy)]
pub(super) enum Destination<'o> {
    Folder(&'o OutputDir),
    Memory,
}

/// Say on stderr why `auto` chose its engine, and for a formula what it is.
fn announce(cfg: &RunConfig, note: Option<Message>) {
    if let Some(n) = note {
        crate::info_once!("phaseflow: {}", crate::console::render(&n));
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
pub fn preflight(cfg: &RunConfig) -> Result<(EngineChoice, Option<Message>)> {
    let (choice, note) = choose_engine(cfg);
    // A refined loop grows up to --max-nodes.
    let (field, n) = match cfg.refine {
        Some(r) if r.max_nodes > cfg.ensemble.points => (Field::MaxNodes, r.max_nodes),
        _ => (Field::Points, cfg.local_points()),
    };
    check_section_memory(cfg, choice == EngineChoice::Gpu, n)?;
    check_host_memory(
        field.clone(),
        n,
        run_bytes_per_point(cfg, choice == EngineChoice::Gpu),
    )?;
    if choice == EngineChoice::Gpu {
        let comps = cfg.components_per_point();
        let ctx = gpu::context()?;
        let f64 = cfg.precision == Precision::F64;
        if f64 {
            gpu_layout::check_f64_support(ctx.f64, &ctx.info.name, &cfg.system)?;
        }
        let words = gpu_layout::words_per_point(comps, cfg.compensated);
        let value_bytes = if f64 { 8 } else { 4 };
        gpu_layout::check_device_memory(ctx, field, n, words, value_bytes)?;
        gpu_layout::check_kernel_size(ctx, &cfg.integrator(), comps)?;
    }
    Ok((choice, note))
}

/// `phaseflow run`.
pub fn run(cfg: &RunConfig, out: &OutputDir) -> Result<RunSummary> {
    run_keeping_final(cfg, out, false)
}

/// `run`, and with `keep_final` the state after the last step in `RunSummary::final_state`
/// (read back from the GPU once more if nothing else needed it).
pub fn run_keeping_final(cfg: &RunConfig, out: &OutputDir, keep_final: bool) -> Result<RunSummary> {
    run_to(cfg, Destination::Folder(out), keep_final)
}

/// `run` without a folder: no file is written (nor a checkpoint: an interrupt stops the run
/// for good), and what `run` writes comes back in `RunSummary::memory` (the statistics rows
/// in `rows`), with the state after the last step when `keep_final`. Refused under MPI and
/// for a shard (their parts are files that `merge` reads), and with `checkpoint_every`.
pub fn run_in_memory(cfg: &RunConfig, keep_final: bool) -> Result<RunSummary> {
    let refused = match () {
        _ if Peers::current().many() => Some((Field::Out, "a run under mpirun")),
        _ if cfg.shard.is_some() => Some((Field::Shard, "a shard (merge reads its files)")),
        _ if cfg.checkpoint_every.is_some() => {
            Some((Field::CheckpointEvery, "keeping checkpoints"))
        }
        _ => None,
    };
    if let Some((field, what)) = refused {
        return Err(crate::invalid!(field.clone();
            field, format!(": {what} needs a folder; give "), Field::Out,
        ));
    }
    run_to(cfg, Destination::Memory, keep_final)
}

fn run_to(cfg: &RunConfig, dest: Destination<'_>, keep_final: bool) -> Result<RunSummary> {
    let peers = Peers::current();
    let on_ranks;
    let cfg = if peers.many() {
        on_ranks = for_rank(cfg, &peers)?;
        &on_ranks
    } else {
        cfg
    };
    let (choice, note) = preflight(cfg)?;
    if matches!(dest, Destination::Memory) {
        check_kept_states(cfg)?;
    }
    let k = cfg.integrator();
    let gpus = gpus(cfg, choice)?;
    match cfg.precision {
        Precision::F32 => {
            let engines = factory(&k, choice, &gpus, cfg.ensemble.is_loop());
            run_with::<f32>(cfg, dest, note, choice, &engines, None, keep_final)
        }
        Precision::F64 => {
            let engines = factory(&k, choice, &gpus, cfg.ensemble.is_loop());
            run_with::<f64>(cfg, dest, note, choice, &engines, None, keep_final)
        }
    }
}

/// `run` into `out` with its first engine built by `first` from the initial state (any
/// further one, refinement's, is the chosen kind's): the parts of a sweep advanced together
/// (`sweep::together`). `T` is the run's precision.
pub fn run_on_engine<T: Real>(
    cfg: &RunConfig,
    out: &OutputDir,
    first: &dyn Fn(State<T>) -> Result<Box<dyn Engine<T>>>,
) -> Result<RunSummary> {
    let (choice, note) = preflight(cfg)?;
    let k = cfg.integrator();
    let gpus = gpus(cfg, choice)?;
    let plain = factory::<T>(&k, choice, &gpus, cfg.ensemble.is_loop());
    let used = std::cell::Cell::new(false);
    let engines = |s: State<T>| match used.replace(true) {
        false => first(s),
        true => plain(s),
    };
    run_with::<T>(
        cfg,
        Destination::Folder(out),
        note,
        choice,
        &engines,
        None,
        false,
    )
}

/// A run without a folder keeps every saved snapshot in memory: the run's own bytes per
/// point and 2d values per point and saved snapshot, against the host's memory.
fn check_kept_states(cfg: &RunConfig) -> Result<()> {
    if !cfg.save_states {
        return Ok(());
    }
    let value = match cfg.precision {
        Precision::F32 => 4,
        Precision::F64 => 8,
    };
    let kept = cfg.snapshot_steps().len() as u64 * 2 * cfg.system.dof() as u64 * value;
    let choice = choose_engine(cfg).0 == EngineChoice::Gpu;
    check_host_memory(
        Field::Points,
        cfg.local_points(),
        run_bytes_per_point(cfg, choice).saturating_add(kept),
    )
}

/// The run as MPI rank `peers.rank()` of `peers.size()` makes it: a filled ensemble's slice
/// (`ensemble::shard`, aligned so that the ranks' statistics merge bit for bit); a loop
/// whole (`RankEngine` splits its advance).
fn for_rank(cfg: &RunConfig, peers: &Peers) -> Result<RunConfig> {
    if cfg.frequencies.is_some() {
        return Err(crate::input_err!(
            "--frequencies under mpirun: the ranks' samples are not gathered yet; run the frequency analysis on one process"
        ));
    }
    if cfg.section.is_some() {
        return Err(crate::input_err!(
            "--section under mpirun: the ranks' crossings are not gathered yet; run the section on one process"
        ));
    }
    if cfg.shard.is_some() || cfg.devices.is_some() {
        use crate::error::Field;
        return Err(crate::invalid!(Field::Shard;
            "under mpirun the ranks are the shards, one GPU each: drop ",
            Field::Shard,
            " and ",
            Field::Devices,
        ));
    }
    let mut cfg = cfg.clone();
    if !cfg.ensemble.is_loop() {
        let shard = Shard {
            index: peers.rank(),
            count: peers.size(),
        };
        shard.range(cfg.ensemble.points)?;
        cfg.rank = Some(shard);
    }
    Ok(cfg)
}

/// The GPUs of `--devices`, or under MPI the rank's GPU (its local rank among the node's
/// GPUs); none otherwise (the engine uses the default GPU).
pub(super) fn gpus(cfg: &RunConfig, choice: EngineChoice) -> Result<Vec<&'static gpu::GpuContext>> {
    if choice != EngineChoice::Gpu {
        return Ok(Vec::new());
    }
    let peers = Peers::current();
    let Some(devices) = &cfg.devices else {
        return Ok(if peers.many() {
            let count = gpu::device_count().max(1);
            vec![gpu::context_at(peers.local_rank() % count)?]
        } else {
            Vec::new()
        });
    };
    let list = match devices {
        Devices::All => (0..gpu::device_count()).collect(),
        Devices::List(l) => l.clone(),
    };
    list.into_iter().map(gpu::context_at).collect()
}

/// The engines of a run: the chosen kind, at precision T (on the `gpus` of `--devices`
/// when there are any); under MPI a loop's engine advances only the rank's slice
/// (`RankEngine`).
pub(super) fn factory<'a, T: Real>(
    k: &'a Integrator,
    choice: EngineChoice,
    gpus: &'a [&'static gpu::GpuContext],
    loop_on_ranks: bool,
) -> impl Fn(State<T>) -> Result<Box<dyn Engine<T>>> + 'a {
    let peers = Peers::current();
    move |s| -> Result<Box<dyn Engine<T>>> {
        if loop_on_ranks && peers.many() {
            let local = engine_for(k, choice, gpus, s.range(rank_slice(s.n, &peers)))?;
            return Ok(Box::new(RankEngine::new(peers, local, s)));
        }
        engine_for(k, choice, gpus, s)
    }
}

/// One engine of the chosen kind for `s`.
fn engine_for<T: Real>(
    k: &Integrator,
    choice: EngineChoice,
    gpus: &[&'static gpu::GpuContext],
    s: State<T>,
) -> Result<Box<dyn Engine<T>>> {
    {
        match choice {
            EngineChoice::Gpu if !gpus.is_empty() => {
                Ok(Box::new(MultiGpuEngine::new(gpus.to_vec(), k, s)?))
            }
            EngineChoice::Gpu => Ok(Box::new(GpuEngine::new(k, s)?)),
            EngineChoice::Cpu => Ok(Box::new(CpuEngine::new(k, s))),
        }
    }
}

/// The engine's description (with the MPI ranks it gathers), said on stderr with the run's
/// arithmetic.
fn announce_engine<T: Real>(cfg: &RunConfig, tracker: &Tracker<T>, peers: &Peers) -> String {
    let describe = match tracker.gathers() {
        true => format!(
            "{} MPI ranks, each {}",
            peers.size(),
            tracker.engine.describe()
        ),
        false => tracker.engine.describe(),
    };
    crate::info_once!(
        "phaseflow: engine {describe}, precision {}{}",
        cfg.arithmetic(),
        if tracker.accelerated {
            ", energy statistics reduced on the device in f64"
        } else {
            ""
        }
    );
    describe
}

/// A run from its initial set (`from`: `None`), or from a checkpoint, the statistics rows
/// stats.csv holds up to it and the folder's lock, taken before they were read (`resume`).
pub(super) fn run_with<T: Real>(
    cfg: &RunConfig,
    dest: Destination<'_>,
    note: Option<Message>,
    choice: EngineChoice,
    factory: &EngineFactory<T>,
    from: Option<(Checkpoint<T>, Vec<Row>, folder::OutLock)>,
    keep_final: bool,
) -> Result<RunSummary> {
    let (out, folder) = match dest {
        Destination::Folder(dir) => (dir.path.as_path(), Some(dir)),
        Destination::Memory => (Path::new(""), None),
    };
    // Under MPI rank 0 writes the files and the other ranks only compute.
    let peers = Peers::current();
    let (mut tracker, resume, config, _lock) = match from {
        None => {
            let init = Initial::<T>::generate(cfg)?;
            // Everything that can fail on user input has been checked: only now touch --out
            // (refused when it holds another run, unless --force; locked until the end).
            let lock = match folder {
                Some(dir) if peers.is_root() => {
                    Some(folder::prepare(out, folder::Layout::Run, dir.force)?)
                }
                _ => None,
            };
            announce(cfg, note);
            let mut tracker = Tracker::new(cfg, init, factory)?;
            if folder.is_none() {
                tracker.kept = Some(Kept::new());
            }
            (tracker, None, None, lock)
        }
        Some((c, rows, lock)) => {
            let lock = Some(lock);
            let config = c.config.clone();
            let (t, r) = Tracker::from_checkpoint(cfg, c, factory, file_loop_nodes(cfg)?, rows)?;
            (t, Some(r), Some(config), lock)
        }
    };
    interrupt::install();
    let describe = announce_engine(cfg, &tracker, &peers);
    let mut ck = checkpoints(cfg, dest, choice, (&describe, config), &peers)?;
    let rows = tracker.snapshots(out, &mut ck, resume)?;
    let crossings = tracker.engine.crossings()?;
    let frequencies = match tracker.engine.frequencies()? {
        Some(f) if cfg.stops.is_some() => {
            let state = tracker.engine.state()?;
            super::frequencies::without_stopped(cfg, Some(f), state)
        }
        f => f,
    };
    let mut exits = None;
    let memory = match tracker.kept.take() {
        Some(kept) => {
            let found = (crossings.as_ref(), frequencies.as_ref());
            Some(Box::new(kept.finish(cfg, ck.config, found)))
        }
        None if peers.is_root() => {
            exits = super::files::write_run_files(
                cfg,
                out,
                &tracker,
                (crossings.as_ref(), frequencies.as_ref()),
                rows.last(),
            )?;
            None
        }
        None => None,
    };
    let final_state = match keep_final && peers.is_root() {
        true => Some(Box::new(StateRows::of(tracker.engine.state()?))),
        false => None,
    };
    let accuracy = rows
        .last()
        .map(|last| accuracy_lines(cfg, last))
        .unwrap_or_default();
    Ok(RunSummary {
        accuracy,
        engine: describe,
        method: cfg.method.name(),
        rows,
        out: out.to_path_buf(),
        refine_capped_at: tracker.capped_at,
        refine_stuck_at: tracker.stuck_at,
        portraits: tracker.portraits,
        trajectory: tracker.trajectory,
        final_state,
        memory,
        exits,
    })
}

/// The run's `Checkpoints`: config.toml's text (a resumed run's `recorded` one, else written
/// into the folder now) and how often they are due (never without a folder, under MPI, or
/// for what `tracker::no_checkpoints` names).
fn checkpoints(
    cfg: &RunConfig,
    dest: Destination<'_>,
    choice: EngineChoice,
    (describe, recorded): (&str, Option<String>),
    peers: &Peers,
) -> Result<Checkpoints> {
    let (out, folder) = match dest {
        Destination::Folder(dir) => (dir.path.as_path(), true),
        Destination::Memory => (Path::new(""), false),
    };
    let config = match recorded {
        Some(text) => text,
        None if folder && peers.is_root() => {
            let text = with_initial_file(cfg, out)?.to_toml(describe, out);
            write_atomic(&out.join("config.toml"), text.as_bytes())?;
            text
        }
        None => cfg.to_toml(describe, out),
    };
    let kind = match choice {
        EngineChoice::Gpu => "gpu",
        EngineChoice::Cpu => "cpu",
    };
    let every = match (super::tracker::no_checkpoints(cfg, peers), folder) {
        (None, true) => cfg.checkpoint_every,
        _ => Some(u64::MAX),
    };
    Ok(Checkpoints::new(out, kind, config, every))
}

/// `cfg` as its folder `dir` records it: initial points given in memory are written there as
/// `initial.npy`, which config.toml's `input` then names (so that `resume`, `plot` and
/// `--config` find them); other configurations as they are.
pub(super) fn with_initial_file(cfg: &RunConfig, dir: &Path) -> Result<RunConfig> {
    let mut recorded = cfg.clone();
    if let Some(rows) = recorded.ensemble.rows.take() {
        let input = dir.join(folder::INITIAL_FILE);
        write_atomic(&input, &npy::encode_state(&rows))?;
        if let crate::ensemble::InitialSet::File { input: at, .. } = &mut recorded.ensemble.set {
            *at = std::fs::canonicalize(&input).unwrap_or(input);
        }
    }
    Ok(recorded)
}

/// What the last row says of `--reference` (the global error at the end) and `--reverse`
/// (the return error, and whether the method's symmetry promises a return up to rounding).
fn accuracy_lines(cfg: &RunConfig, last: &Row) -> Vec<String> {
    use crate::measure::distance::{
        GLOBAL_ERR_MAX, GLOBAL_ERR_MEAN, RETURN_ERR_MAX, RETURN_ERR_MEAN,
    };
    let cell = |c| last.real(c).map_or("-".into(), |x| format!("{x:.6e}"));
    let mut lines = Vec::new();
    if let Some(r) = &cfg.reference {
        lines.push(format!(
            "global error against {} (step dt/{}) at t = {}: global_err_max {}  global_err_mean {}",
            r.method.name(),
            r.substeps,
            crate::error::num(last.t),
            cell(&GLOBAL_ERR_MAX),
            cell(&GLOBAL_ERR_MEAN)
        ));
    }
    if cfg.reverse {
        let name = cfg.method.name();
        let why = match crate::config::verdict::verdicts(cfg.method) {
            Ok(Some(v)) if v.symmetric => format!(
                "{name} is symmetric (its adjoint is itself), so the steps with −dt undo those with dt up to rounding"
            ),
            Ok(Some(v)) => format!(
                "{name} is not symmetric (its adjoint is another method), so the steps with −dt do not undo those with dt: the points return off by O(h{})",
                match v.order {
                    1 => String::new(),
                    p => format!("^{p}"),
                }
            ),
            _ => format!("{name} has no tableau whose symmetry could be checked"),
        };
        lines.push(format!(
            "back at t = 0 after {} steps each way: return_err_max {}  return_err_mean {}; {why}",
            cfg.steps,
            cell(&RETURN_ERR_MAX),
            cell(&RETURN_ERR_MEAN)
        ));
    }
    lines
}
