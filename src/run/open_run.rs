//! A run kept open (`OpenRun`): an ensemble advanced as its caller asks, any number of steps at
//! a time, inspected in between (the state is read back from the GPU only when asked for),
//! given new parameters, and saved as a checkpoint folder that `phaseflow resume` continues.
//!
//! Each advance lends the run's parts to the same `Tracker` that `run` drives
//! (`Tracker::from_parts`), so a snapshot is refined, renormalised and measured exactly as in
//! `run`: the statistics rows at steps 0, K, 2K, … (`snapshot_every` K) are `run`'s rows, and
//! the grouping of the steps into advances changes no bit of the state (the engines'
//! stepping is independent of it). The engine lives on a thread of its own (a GPU engine is
//! not handed between threads); the caller's thread sends it work and waits, so a host such
//! as Python can poll its signals meanwhile.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread::JoinHandle;

use crate::cluster::Peers;
use crate::config::{Precision, RunBuilder, RunConfig, RunFile};
use crate::engine::{CpuEngine, Engine, Integrator};
use crate::error::{Field, Result};
use crate::float::Real;
use crate::gpu::GpuContext;
use crate::measure::energy::{angular_momenta, energies, RunEnergy};
use crate::measure::measurement::PerPoint;
use crate::measure::modified::modified_energies;
use crate::measure::row::Row;
use crate::output::{folder, write_atomic, CsvRows};
use crate::state::State;

use super::checkpoint::Checkpoints;
use super::initial::Initial;
use super::interrupt;
use super::memory::{Kept, StateRows};
use super::pipeline::{factory, gpus, preflight, with_initial_file};
use super::progress::{advance_with_progress, Progress};
use super::resources::EngineChoice;
use super::tracker::{setup, EngineFactory, Tracker};

/// An ensemble advanced on request (see the module's description). Dropping it ends its
/// thread.
pub struct OpenRun {
    jobs: Option<mpsc::Sender<Job>>,
    thread: Option<JoinHandle<()>>,
}

type Job = Box<dyn FnOnce(&mut Held) + Send>;

/// Where the answer of a job sent to an open run's thread arrives (`OpenRun::advance_posted`).
pub type Reply<R> = mpsc::Receiver<Result<R>>;

/// The error of a call to a run whose thread has ended (also a reply channel closed without
/// an answer: `Reply`).
pub fn ended() -> crate::Error {
    crate::input_err!("the run's thread has ended (a failure inside it)")
}

/// The run in its precision.
enum Held {
    F32(Stepper<f32>),
    F64(Stepper<f64>),
}

/// What the caller asks of the run, answered on its thread.
macro_rules! on_run {
    ($held:expr, $s:ident => $body:expr) => {
        match $held {
            Held::F32($s) => $body,
            Held::F64($s) => $body,
        }
    };
}

impl OpenRun {
    /// The run `settings` describe (their `steps` unused: it goes as far as it is advanced),
    /// its initial set generated and measured (the row at step 0); statistics rows also at
    /// every multiple of `snapshot_every` passed, when given. Refused: what needs the whole
    /// run's length or a folder (`reverse`, `reference`, `shard`, `section`, `save_states`,
    /// `checkpoint_every`).
    pub fn new(settings: RunFile) -> Result<OpenRun> {
        let (jobs, inbox) = mpsc::channel::<Job>();
        let (reply, started) = mpsc::channel::<Result<()>>();
        let thread = std::thread::Builder::new()
            .name("phaseflow-open-run".into())
            .spawn(move || {
                let mut held = match Held::new(settings) {
                    Ok(held) => {
                        let _ = reply.send(Ok(()));
                        held
                    }
                    Err(e) => {
                        let _ = reply.send(Err(e));
                        return;
                    }
                };
                for job in inbox {
                    job(&mut held);
                }
            })
            .map_err(|e| crate::input_err!("cannot start the run's thread: {e}"))?;
        let run = OpenRun {
            jobs: Some(jobs),
            thread: Some(thread),
        };
        started
            .recv()
            .unwrap_or_else(|_| Err(crate::input_err!("the run's thread ended while starting")))?;
        Ok(run)
    }

    /// `f` on the run's thread, waited for.
    fn call<R: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Held) -> Result<R> + Send + 'static,
    ) -> Result<R> {
        self.post(f)?.recv().map_err(|_| ended())?
    }

    /// `f` sent to the run's thread; its answer comes on the receiver returned.
    fn post<R: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Held) -> Result<R> + Send + 'static,
    ) -> Result<Reply<R>> {
        let (reply, answer) = mpsc::channel();
        let job: Job = Box::new(move |held| {
            let _ = reply.send(f(held));
        });
        self.jobs
            .as_ref()
            .ok_or_else(ended)?
            .send(job)
            .map_err(|_| ended())?;
        Ok(answer)
    }

    /// `advance`, not waited for: its answer comes on the receiver returned (closed without
    /// one if the run's thread ends), so a caller can wait in pieces and do its own work in
    /// between (the Python package looks for Ctrl-C) without a thread of its own.
    pub fn advance_posted(&self, steps: u64) -> Result<Reply<()>> {
        self.post(move |h| on_run!(h, s => s.advance(steps)))
    }

    /// Advance every point by `steps` steps, measuring the snapshots passed.
    pub fn advance(&self, steps: u64) -> Result<()> {
        self.call(move |h| on_run!(h, s => s.advance(steps)))
    }

    /// The step the run is at.
    pub fn step(&self) -> Result<u64> {
        self.call(|h| Ok(on_run!(h, s => s.step)))
    }

    /// The time it is at: step · dt.
    pub fn time(&self) -> Result<f64> {
        self.call(|h| Ok(on_run!(h, s => s.cfg.time_at(s.step))))
    }

    /// The step size.
    pub fn dt(&self) -> Result<f64> {
        self.call(|h| Ok(on_run!(h, s => s.cfg.dt)))
    }

    /// The points as rows q1..qd p1..pd in the run's precision (read back from a GPU).
    pub fn rows(&self) -> Result<StateRows> {
        self.call(|h| on_run!(h, s => s.state().map(StateRows::of)))
    }

    /// H of every point now (f64), with the parameters in force.
    pub fn energies(&self) -> Result<Vec<f64>> {
        self.call(|h| {
            on_run!(h, s => {
                let system = s.cfg.system.clone();
                let dt = s.cfg.dt;
                s.state().map(|st| energies(&RunEnergy { system: &system, dt }, st))
            })
        })
    }

    /// The statistics rows measured so far.
    pub fn stats(&self) -> Result<Vec<Row>> {
        self.call(|h| Ok(on_run!(h, s => s.rows.clone())))
    }

    /// The statistics row of the points now (stats.csv's columns), measured as at a snapshot
    /// but without refining a loop or renormalising deviation vectors, so the state and the
    /// rows to come are left as they are; not added to `stats`.
    pub fn measure(&self) -> Result<Row> {
        self.call(|h| on_run!(h, s => s.measure()))
    }

    /// The points stopped so far (`stop_when`): stops.npy's rows (point, step, t,
    /// condition; `STOP_COLUMNS` values each); None without stop conditions.
    pub fn stops(&self) -> Result<Option<Vec<f64>>> {
        self.call(|h| {
            on_run!(h, s => {
                let cfg = s.cfg.clone();
                match cfg.stops.is_some() {
                    true => s.state().map(|st| Some(super::stops::rows(&cfg, st))),
                    false => Ok(None),
                }
            })
        })
    }

    /// The system's parameters in force.
    pub fn params(&self) -> Result<Vec<(String, f64)>> {
        self.call(|h| Ok(on_run!(h, s => s.cfg.system.params().into_iter().collect())))
    }

    /// Change system parameters from the next step on (see `Stepper::set_params`).
    pub fn set_params(&self, params: Vec<(String, f64)>) -> Result<()> {
        self.call(move |h| on_run!(h, s => s.set_params(&params)))
    }

    /// The run as a checkpoint folder `dir` (see `Stepper::save`).
    pub fn save(&self, dir: PathBuf, steps: u64, force: bool) -> Result<()> {
        self.call(move |h| on_run!(h, s => s.save(&dir, steps, force)))
    }

    /// The engine that advances it, as `run` reports it.
    pub fn engine(&self) -> Result<String> {
        self.call(|h| Ok(on_run!(h, s => s.describe.clone())))
    }
}

impl Drop for OpenRun {
    fn drop(&mut self) {
        // The thread ends when its inbox closes.
        self.jobs.take();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Held {
    fn new(mut settings: RunFile) -> Result<Held> {
        // The run goes as far as it is advanced; the checks that take its length see one step.
        settings.steps = Some(1);
        let every = settings.snapshot_every;
        settings.snapshot_every = Some(1);
        let builder = RunBuilder::from(settings.clone());
        let cfg = builder.build()?;
        refuse_whole_run_options(&cfg)?;
        Ok(match cfg.precision {
            Precision::F32 => Held::F32(Stepper::new(settings, cfg, every)?),
            Precision::F64 => Held::F64(Stepper::new(settings, cfg, every)?),
        })
    }
}

/// The options an open run cannot take: those that need the run's length or a folder.
fn refuse_whole_run_options(cfg: &RunConfig) -> Result<()> {
    let refused = [
        (cfg.reverse, "reverse"),
        (cfg.reference.is_some(), "reference"),
        (cfg.shard.is_some(), "shard"),
        (cfg.section.is_some(), "section"),
        (cfg.frequencies.is_some(), "frequencies"),
        (cfg.save_states, "save_states"),
        (cfg.store == crate::config::Store::Zarr, "store"),
        (cfg.checkpoint_every.is_some(), "checkpoint_every"),
    ];
    match refused.into_iter().find(|(given, _)| *given) {
        Some((_, option)) => Err(crate::input_err!(
            "{option} does not apply to an ensemble advanced step by step (it needs the run's length or a folder); give it to a run"
        )),
        None => Ok(()),
    }
}

/// Steps an ensemble is taken to run for when `--backend auto` chooses its engine: how far
/// it will be advanced is not known when it is made, and an ensemble kept to be stepped is
/// meant for long runs, where the GPU's start-up no longer counts.
const OPEN_ENDED_STEPS: u64 = 1_000_000;

/// `cfg` as `--backend auto` sees an ensemble that is advanced on demand: `OPEN_ENDED_STEPS`
/// steps in one advance (its `steps` is a placeholder).
pub(super) fn open_ended(cfg: &RunConfig) -> RunConfig {
    let mut long = cfg.clone();
    long.steps = OPEN_ENDED_STEPS;
    long.snapshot_every = OPEN_ENDED_STEPS;
    long
}

/// The run at precision `T`.
struct Stepper<T: Real> {
    /// The settings it was made from (their `steps` one, `snapshot_every` one), which a
    /// parameter change and `save` build again.
    settings: RunFile,
    cfg: RunConfig,
    integrator: Integrator,
    choice: EngineChoice,
    gpus: Vec<&'static GpuContext>,
    /// The tracker's parts, lent to a tracker for each advance (None only meanwhile).
    parts: Option<TrackerParts<T>>,
    step: u64,
    /// Statistics every K steps (`snapshot_every`); else only at step 0.
    every: Option<u64>,
    rows: Vec<Row>,
    describe: String,
}

impl<T: Real> Stepper<T> {
    fn new(settings: RunFile, cfg: RunConfig, every: Option<u64>) -> Result<Self> {
        let (choice, _) = preflight(&open_ended(&cfg))?;
        let integrator = cfg.integrator();
        let gpus = gpus(&cfg, choice)?;
        let init = Initial::<T>::generate(&cfg)?;
        let (parts, row, describe) = {
            let engines = factory(&integrator, choice, &gpus, cfg.ensemble.is_loop());
            let mut t = Tracker::new(&cfg, init, &engines)?;
            // Nothing is written: what a snapshot would save stays in memory, unread.
            t.kept = Some(Kept::new());
            let row = t.snapshot(0, Path::new(""), 0, None)?;
            let describe = t.engine.describe();
            (t.into_parts(), row, describe)
        };
        Ok(Stepper {
            settings,
            cfg,
            integrator,
            choice,
            gpus,
            parts: Some(parts),
            step: 0,
            every: every.filter(|&k| k > 0),
            rows: vec![row],
            describe,
        })
    }

    /// The state, read back from a GPU.
    fn state(&mut self) -> Result<&State<T>> {
        self.parts_mut()?.engine_state()
    }

    fn parts_mut(&mut self) -> Result<&mut TrackerParts<T>> {
        self.parts
            .as_mut()
            .ok_or_else(|| crate::input_err!("the ensemble was left unusable by a failure"))
    }

    /// `f` on a tracker lent the run's parts, which come back whatever `f` returns.
    fn with_tracker<R>(
        &mut self,
        f: impl FnOnce(&mut Tracker<'_, T>, &mut u64, &mut Vec<Row>) -> Result<R>,
    ) -> Result<R> {
        let parts = self
            .parts
            .take()
            .ok_or_else(|| crate::input_err!("the ensemble was left unusable by a failure"))?;
        let engines = factory(
            &self.integrator,
            self.choice,
            &self.gpus,
            self.cfg.ensemble.is_loop(),
        );
        let mut t = Tracker::from_parts(&self.cfg, &engines, parts);
        let result = f(&mut t, &mut self.step, &mut self.rows);
        self.parts = Some(t.into_parts());
        result
    }

    /// Advance by `steps`, in pieces that keep the progress moving and stop at each snapshot
    /// (a multiple of `every`) to refine, renormalise and measure as `run` does. An interrupt
    /// stops between pieces, the run at the step it reached.
    fn advance(&mut self, steps: u64) -> Result<()> {
        let target = self
            .step
            .checked_add(steps)
            .filter(|&t| t <= crate::config::MAX_STEPS)
            .ok_or_else(|| {
                crate::invalid!(Field::Steps;
                    Field::Steps.is(steps),
                    format!(": beyond the most steps a run takes ({})", crate::config::MAX_STEPS)
                )
            })?;
        let every = self.every;
        self.with_tracker(|t, step, rows| {
            let mut pb = Progress::new(target - *step);
            let (n, evals) = (t.engine.points().max(1), t.cfg.evals_per_step());
            while *step < target {
                if interrupt::requested() {
                    pb.finish();
                    return Err(crate::input_err!(
                        "interrupted at step {step}: the ensemble stays there; advance it again to go on"
                    ));
                }
                let snapshot = every.map(|k| (*step / k + 1).saturating_mul(k));
                let stop = snapshot.map_or(target, |s| s.min(target));
                let mut early = interrupt::requested;
                *step += advance_with_progress(
                    t.engine.as_mut(),
                    stop - *step,
                    n,
                    evals,
                    &mut pb,
                    &mut early,
                )?;
                if Some(*step) == snapshot {
                    t.at_snapshot(*step)?;
                    let row = t.snapshot(*step, Path::new(""), 0, rows.first())?;
                    rows.push(row);
                    t.kept = Some(Kept::new());
                }
            }
            pb.finish();
            Ok(())
        })
    }

    /// `OpenRun::measure`: a snapshot's row whose side effects on the tracker (what it keeps
    /// of the state, a single point's trajectory) are undone.
    fn measure(&mut self) -> Result<Row> {
        self.with_tracker(|t, step, rows| {
            let drawn = t.trajectory.len();
            let row = t.snapshot(*step, Path::new(""), 0, rows.first());
            t.trajectory.truncate(drawn);
            t.kept = Some(Kept::new());
            row
        })
    }

    /// New values of system parameters, in force from the next step: the engine is built
    /// again from the current points (read back from a GPU), and the energy statistics start
    /// anew from them (H0, and L0 or the modified energies where measured, taken with the new
    /// parameters), since the old H is no longer conserved.
    fn set_params(&mut self, params: &[(String, f64)]) -> Result<()> {
        let mut settings = self.settings.clone();
        let given = settings.params.get_or_insert_with(Default::default);
        for (name, value) in params {
            given.insert(name.clone(), *value);
        }
        let cfg = RunBuilder::from(settings.clone()).build()?;
        let integrator = cfg.integrator();
        let state = self.state()?.clone();
        let mut engine = {
            let engines = factory(&integrator, self.choice, &self.gpus, cfg.ensemble.is_loop());
            engines(state)?
        };
        let parts = self.parts_mut()?;
        let accelerated = match engine.acceleration()? {
            Some(a) if parts.accelerated() => a.start().map(|()| true)?,
            _ => false,
        };
        let st = engine.state()?;
        let p = &mut parts.points;
        if !accelerated {
            p.h0 = energies(
                &RunEnergy {
                    system: &cfg.system,
                    dt: cfg.dt,
                },
                st,
            );
        }
        p.l0 = angular_momenta(&cfg.system, st).unwrap_or_default();
        if let Some(m) = &cfg.modified {
            p.mod_h0 = modified_energies(m, st);
        }
        parts.replace_engine(engine);
        (self.settings, self.cfg, self.integrator) = (settings, cfg, integrator);
        Ok(())
    }

    /// The run as a checkpoint folder `dir` that `phaseflow resume` continues to step `steps`:
    /// config.toml (these settings, `steps`, statistics every `snapshot_every` or only at the
    /// end), stats.csv (the rows measured so far), `checkpoint/run.ckpt` (the state and what
    /// each point carries) and, for points given in memory, `initial.npy` (config.toml's
    /// `input`). `dir` is prepared as `run` prepares `--out` (`force` replaces a run there).
    fn save(&mut self, dir: &Path, steps: u64, force: bool) -> Result<()> {
        if steps <= self.step {
            return Err(crate::invalid!(Field::Steps;
                Field::Steps.is(steps),
                format!(": the ensemble is at step {} already; give more steps for the resumed run to go", self.step)
            ));
        }
        let mut settings = self.settings.clone();
        settings.steps = Some(steps);
        settings.snapshot_every = Some(self.every.unwrap_or(steps));
        // Checked before the folder is touched.
        let cfg = RunBuilder::from(settings).build()?;
        let _lock = folder::prepare(dir, folder::Layout::Run, force)?;
        let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        let cfg = with_initial_file(&cfg, &dir)?;
        let config = cfg.to_toml(&self.describe, &dir);
        write_atomic(&dir.join("config.toml"), config.as_bytes())?;
        let mut stats = CsvRows::create(&dir.join("stats.csv"))?;
        for row in &self.rows {
            stats.push(row)?;
        }
        let kind = match self.choice {
            EngineChoice::Gpu => "gpu",
            EngineChoice::Cpu => "cpu",
        };
        let ck = Checkpoints::new(&dir, kind, config, cfg.checkpoint_every);
        let at = self.step;
        self.with_tracker(|t, _, _| t.write_checkpoint(&ck, at, &stats))
    }
}

/// What a `Tracker` owns, apart from the configuration and the engine factory it borrows: a
/// run kept open between calls (`open_run`) holds these and lends them to a tracker for each
/// advance.
pub(super) struct TrackerParts<T: Real> {
    engine: Box<dyn Engine<T>>,
    aux: Option<Box<dyn Engine<T>>>,
    reference: Option<CpuEngine<f64>>,
    file_nodes: State<f64>,
    pub(super) points: PerPoint,
    accelerated: bool,
    refine_dist: Option<f64>,
    capped_at: Option<u64>,
    stuck_at: Option<u64>,
    portraits: Vec<(u64, State<f64>)>,
    trajectory: Vec<(f64, Vec<f64>)>,
    kept: Option<Kept<T>>,
}

impl<T: Real> TrackerParts<T> {
    /// The engine's state (read back from a GPU).
    pub(super) fn engine_state(&mut self) -> Result<&State<T>> {
        self.engine.state()
    }

    /// Whether the engine takes the energy statistics where the state lives.
    pub(super) fn accelerated(&self) -> bool {
        self.accelerated
    }

    /// Another engine (new parameters) over the same points; refinement's engine, built with
    /// the old ones, is made again when next needed.
    pub(super) fn replace_engine(&mut self, engine: Box<dyn Engine<T>>) {
        (self.engine, self.aux) = (engine, None);
    }
}

impl<'a, T: Real> Tracker<'a, T> {
    /// The tracker's own parts, its borrows released (`from_parts` lends them again).
    pub(super) fn into_parts(self) -> TrackerParts<T> {
        TrackerParts {
            engine: self.engine,
            aux: self.aux,
            reference: self.reference,
            file_nodes: self.file_nodes,
            points: self.points,
            accelerated: self.accelerated,
            refine_dist: self.refine_dist,
            capped_at: self.capped_at,
            stuck_at: self.stuck_at,
            portraits: self.portraits,
            trajectory: self.trajectory,
            kept: self.kept,
        }
    }

    /// A tracker of `cfg` over the parts `into_parts` gave.
    pub(super) fn from_parts(
        cfg: &'a RunConfig,
        factory: &'a EngineFactory<'a, T>,
        p: TrackerParts<T>,
    ) -> Self {
        Tracker {
            cfg,
            factory,
            engine: p.engine,
            aux: p.aux,
            reference: p.reference,
            file_nodes: p.file_nodes,
            points: p.points,
            setup: setup(cfg),
            accelerated: p.accelerated,
            refine_dist: p.refine_dist,
            capped_at: p.capped_at,
            stuck_at: p.stuck_at,
            portraits: p.portraits,
            trajectory: p.trajectory,
            peers: Peers::current(),
            kept: p.kept,
        }
    }
}
