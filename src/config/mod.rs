//! Validated run configuration. TOML files, flags and the library's setters all land in
//! `RunFile` (all optional; `file`): flags laid over the file (`args`), setters through
//! `RunConfig::builder` (`builder`), whose `build` checks everything and fills defaults; and
//! `RunConfig::to_toml` writes the resolved settings so `--config DIR/config.toml` reproduces a
//! run. Every subcommand's arguments become a typed job
//! here (`RunJob`, `ValidateJob`, `BenchConfig`; `study::Study` for studies), so `main` only
//! dispatches.

pub mod accuracy;
mod args;
mod bench;
mod builder;
mod chaos;
mod discrete;
mod file;
pub mod record;
mod section;
mod show_modified;
pub mod stability_plot;
mod step;
mod stops;
mod system;
pub mod system_file;
pub mod verdict;

pub use crate::options::{Backend, Precision, Store};
pub use args::{
    method_by_name_or_file, parse_params, parse_vec, refuse_unused_validate_options, require_all,
    OutputDir, RunJob, ShowKernelJob, ValidateJob, SYSTEM_FLAGS,
};
pub use bench::BenchConfig;
pub use builder::{MethodChoice, RunBuilder, SystemChoice};
use discrete::{check_variational, check_variational_kernel, two_positions};
pub use file::{
    load_recorded, load_toml, recorded_component_names, recorded_source, EnsembleFile, RunFile,
    MAX_CONFIG_BYTES,
};
pub use show_modified::show_modified;
pub use step::MAX_STEPS;
use step::{check_dt_at_precision, resolve_snapshot_every, resolve_step};
pub use system::resolve_system;

use crate::chaos::Layout;
use crate::engine::Integrator;
use crate::ensemble::shard::Shard;
use crate::ensemble::{EnsembleKind, EnsembleRequest, EnsembleSpec};
use crate::error::{num, Field, Result};
use crate::expr::modified::ModifiedEnergy;
use crate::method::modified::ModifiedHamiltonian;
use crate::method::{Method, Solver};
use crate::observe::chaos::ChaosObserver;
use crate::section::Section;
use crate::system::System;
use crate::{input_err, invalid};
use section::resolve_frequencies;

/// A validated run: what to compute (where it goes is `OutputDir`).
#[derive(Debug, Clone)]
pub struct RunConfig {
    pub system: System,
    pub method: Method,
    pub ensemble: EnsembleSpec,
    pub dt: f64,
    pub steps: u64,
    pub snapshot_every: u64,
    pub backend: Backend,
    pub precision: Precision,
    /// Compensated summation of every update (`--compensated`, `method::compensated`).
    pub compensated: bool,
    pub save_states: bool,
    /// `--store`: the saved states and chaos indicators as .npy files or one Zarr store.
    pub store: Store,
    pub tangent: bool,
    /// `--modified-hamiltonian K`: H̃ with K correction terms at `dt`, whose errors the `mod_*`
    /// columns measure (shared: a configuration is cloned per run).
    pub modified: Option<std::sync::Arc<ModifiedEnergy>>,
    /// Loop refinement (loop ensembles unless turned off).
    pub refine: Option<Refine>,
    /// Fixed-point solver of the implicit stages (defaults depend on the precision).
    pub solver: Solver,
    /// Steps at which the run also keeps the points (f64) for phase portraits (`study`; none
    /// for `run`): see `with_portraits_at`.
    pub portrait_steps: Vec<u64>,
    /// `--checkpoint-every K` steps; `None`: every `run::checkpoint::DEFAULT_SECONDS` of work.
    pub checkpoint_every: Option<u64>,
    /// `--shard K/N`: only the K-th of N contiguous shards of a filled ensemble is advanced,
    /// and each snapshot's parts are written for `phaseflow merge` (`ensemble::shard`).
    pub shard: Option<Shard>,
    /// `--devices`: the GPUs (`gpu::context_at` numbers) the run spreads over.
    pub devices: Option<Devices>,
    /// Under MPI with a filled ensemble: this rank's shard (not a setting: config.toml does
    /// not record it).
    pub rank: Option<Shard>,
    /// `--reference METHOD[/K]`: the global error against a reference solution.
    pub reference: Option<accuracy::Reference>,
    /// `--reverse`: after the steps, as many again with −h (the return error).
    pub reverse: bool,
    /// `--section`: the Poincaré section whose crossings the engine collects.
    pub section: Option<Section>,
    /// `--chaos`: the per-point chaos indicators (`crate::chaos`).
    pub chaos: Option<crate::chaos::Chaos>,
    /// `--stop-when`: the conditions that stop a point (`observe::stop`).
    pub stops: Option<std::sync::Arc<crate::observe::stop::StopConditions>>,
    /// `--frequencies`: the signals whose frequencies each point's analysis finds.
    pub frequencies: Option<crate::observe::frequencies::FrequencySpec>,
}

/// `--devices`: every GPU of the machine, or the given ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Devices {
    All,
    List(Vec<usize>),
}

impl Devices {
    pub fn parse(text: &str) -> Result<Devices> {
        if text.trim() == "all" {
            return Ok(Devices::All);
        }
        let list = text
            .split(',')
            .map(|x| x.trim().parse::<usize>())
            .collect::<std::result::Result<Vec<_>, _>>()
            .ok()
            .filter(|l| !l.is_empty())
            .ok_or_else(|| {
                invalid!(Field::Devices;
                    Field::Devices.is(text),
                    ": expected `all` or GPU numbers separated by commas (e.g. 0,1; see `phaseflow devices`)"
                )
            })?;
        Ok(Devices::List(list))
    }

    /// How config.toml records it.
    pub fn text(&self) -> String {
        match self {
            Devices::All => "all".into(),
            Devices::List(l) => l
                .iter()
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(","),
        }
    }
}

/// `--shard K/N` of a filled ensemble large enough for N aligned shards.
fn resolve_shard(text: Option<&str>, ensemble: &EnsembleSpec) -> Result<Option<Shard>> {
    let Some(text) = text else {
        return Ok(None);
    };
    let shard = Shard::parse(text)?;
    if ensemble.is_loop() {
        return Err(invalid!(Field::Shard;
            Field::Shard,
            ": ",
            Field::Ensemble.is(ensemble.kind().name()),
            " is a loop, which refinement keeps whole; shards take filled ensembles (disk, grid, gaussian, point, file); run a loop on one machine or with MPI (mpirun -n R phaseflow run ...)"
        ));
    }
    shard.range(ensemble.points)?;
    Ok(Some(shard))
}

/// Adaptive loop refinement settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Refine {
    /// Largest allowed distance between neighbouring nodes, relative to the initial loop's size.
    pub tol: f64,
    pub max_nodes: usize,
}

/// Default `--refine-tol`: resolves a circle's area to ~3e-7 relative (an inscribed polygon with
/// chord c on radius r misses c²/(12 r²) of it), so ratios of refined areas meet 1e-6.
pub const DEFAULT_REFINE_TOL: f64 = 5e-4;
pub const DEFAULT_MAX_NODES: usize = 1_000_000;

/// Refinement is on by default for loop ensembles; asking for it on a filled set is an error.
fn resolve_refine(
    ensemble: &EnsembleSpec,
    refine: Option<bool>,
    tol: Option<f64>,
    max_nodes: Option<usize>,
) -> Result<Option<Refine>> {
    if !ensemble.is_loop() {
        if refine == Some(true) || tol.is_some() || max_nodes.is_some() {
            return Err(invalid!(Field::Refine;
                Field::RefineTol,
                "/",
                Field::MaxNodes,
                ": loop refinement applies to ordered closed loops (level, circle, rect, or file with ",
                Field::Loop,
                "); ",
                Field::Ensemble.is(ensemble.kind().name()),
                " is a filled set, so drop these flags"
            ));
        }
        return Ok(None);
    }
    if refine == Some(false) {
        return Ok(None);
    }
    let tol = tol.unwrap_or(DEFAULT_REFINE_TOL);
    if !(tol.is_finite() && tol > 0.0 && tol < 1.0) {
        return Err(invalid!(Field::RefineTol;
            Field::RefineTol.is(num(tol)),
            ": expected a fraction of the loop's size between 0 and 1, e.g. 5e-4"
        ));
    }
    let max_nodes = max_nodes.unwrap_or(DEFAULT_MAX_NODES.max(ensemble.points));
    if max_nodes < ensemble.points {
        return Err(invalid!(Field::MaxNodes;
            Field::MaxNodes.is(max_nodes),
            format!(
                " is below the loop's {} initial nodes; raise it or use ",
                ensemble.points
            ),
            Field::Refine.is(false)
        ));
    }
    Ok(Some(Refine { tol, max_nodes }))
}

/// The ensemble table: the kind is required; the ensemble fills the kind's defaults and checks
/// the rest against the system.
fn resolve_ensemble(e: EnsembleFile, system: &System) -> Result<EnsembleSpec> {
    let kind = EnsembleKind::from_name(e.kind.as_deref().ok_or_else(|| {
        let kinds: Vec<&str> = crate::ensemble::KINDS.iter().map(|k| k.1).collect();
        invalid!(Field::Ensemble;
            Field::Ensemble,
            format!(" is required ({})", kinds.join(", "))
        )
    })?)?;
    EnsembleRequest {
        kind,
        points: e.points,
        seed: e.seed,
        center: e.center,
        radius: e.radius,
        lo: e.lo,
        hi: e.hi,
        energy: e.energy,
        sigma: e.sigma,
        input: e.input,
        closed_loop: e.closed_loop.unwrap_or(false),
        raw_start: e.raw_start.unwrap_or(false),
        grid_axes: e.grid_axes,
        rows: e.rows,
    }
    .resolve(system)
}

/// The implicit stages' solver: the precision's defaults, overridden and checked.
fn resolve_solver(precision: Precision, tol: Option<f64>, max_iter: Option<u32>) -> Result<Solver> {
    let default = match precision {
        Precision::F32 => Solver::default_for::<f32>(),
        Precision::F64 => Solver::default_for::<f64>(),
    };
    let solver = Solver {
        tol: tol.unwrap_or(default.tol),
        max_iter: max_iter.unwrap_or(default.max_iter),
    };
    crate::engine::check_solver(solver)?;
    Ok(solver)
}

/// The method a file of settings names: `method_file` (read now), else `method_source` (the
/// text config.toml recorded, whose name must be `method`'s when both are given), else
/// `method` by name.
pub fn resolve_method(f: &RunFile) -> Result<Method> {
    if let Some(path) = &f.method_file {
        return Method::from_file(path);
    }
    if let Some(text) = &f.method_source {
        let m = Method::from_source(text, "method_source (the method file config.toml recorded)")?;
        if let Some(name) = f.method.as_deref().filter(|&n| n != m.name()) {
            return Err(input_err!(
                "method = {name:?} but method_source describes {:?}: give one of them (remove method_source to run {name})",
                m.name()
            ));
        }
        return Ok(m);
    }
    Method::from_name(f.method.as_deref().ok_or_else(|| {
        invalid!(Field::Method;
            Field::Method.is("NAME"),
            " or ",
            Field::MethodFile.is("FILE.toml"),
            " is required (see `phaseflow list`)"
        )
    })?)
}

/// The engine asked for, as the other settings fix it: `--devices` means the GPU engine.
fn resolve_backend(backend: Backend, devices: bool) -> Result<Backend> {
    Ok(match (devices, backend) {
        (true, Backend::Cpu) => {
            return Err(invalid!(Field::Devices;
                Field::Devices,
                " spreads the run over GPUs; drop ",
                Field::Backend.is("cpu"),
                " (or ",
                Field::Devices,
                ")"
            ))
        }
        (true, _) => Backend::Gpu,
        (false, b) => b,
    })
}

impl RunConfig {
    /// Gradient evaluations one step takes at most (`Method::evals_per_step`): sizes `run`'s
    /// progress pieces and the GPU's dispatches.
    pub fn evals_per_step(&self) -> u64 {
        self.method.evals_per_step(&self.system, self.solver)
    }

    /// The integrator both engines are built from.
    /// The arithmetic as reports name it: "f32", or "f32 with compensated summation".
    pub fn arithmetic(&self) -> String {
        let name = self.precision.name();
        if self.compensated {
            format!("{name} with compensated summation")
        } else {
            name.to_string()
        }
    }

    /// The relative error one step leaves in a stored component, which the rounding floors
    /// grow from (`measure::floor`).
    pub fn step_error(&self) -> crate::measure::floor::StepError {
        crate::measure::floor::StepError::new(
            self.precision.unit_roundoff(),
            self.compensated,
            self.dt,
            self.iterates().then_some(self.solver.tol),
        )
    }

    /// Whether the method's steps iterate implicit stages on this system (non-separable H,
    /// the implicit midpoint rule): a step's evaluations then depend on the iteration cap.
    pub fn iterates(&self) -> bool {
        let evals = |max_iter| {
            self.method.evals_per_step(
                &self.system,
                crate::method::Solver {
                    max_iter,
                    ..self.solver
                },
            )
        };
        evals(1) != evals(2)
    }

    /// Components per point the engines carry (`State::comps`): d, or with `--tangent` the
    /// point and its 2d tangent columns, d·(1 + 2d).
    pub fn components_per_point(&self) -> usize {
        let d = self.system.dof();
        if self.tangent {
            d * (1 + 2 * d)
        } else {
            d
        }
    }

    pub fn integrator(&self) -> Integrator {
        Integrator::checked(self.system.clone(), self.method, self.dt, self.solver)
            .with_compensation(self.compensated)
            .with_section(self.section)
            .with_observers(
                (
                    ChaosObserver {
                        weights: self.chaos.as_ref().and_then(|c| c.deviation.weights()),
                        layout: self.chaos.as_ref().map_or(Layout::PLAIN, |c| c.layout()),
                    },
                    self.chaos.is_some(),
                ),
                self.stops.clone(),
            )
            .with_frequencies(self.frequencies.clone())
    }

    /// Check every setting and fill the defaults: the one place a run's configuration is
    /// validated (input errors name their option and the fix), reached through
    /// `RunBuilder::build`.
    fn resolve(f: RunFile) -> Result<RunConfig> {
        f.refuse_sweep()?;
        let system = resolve_system(&f)?;
        let method = resolve_method(&f)?;
        method.check_system(&system)?;
        let (dt, steps) = resolve_step(f.dt, f.steps)?;
        let snapshot_every = resolve_snapshot_every(f.snapshot_every, steps)?;
        let backend = f.backend.unwrap_or_default();
        let precision = f.precision.unwrap_or_default();
        check_dt_at_precision(dt, steps, precision)?;
        system.check_precision(dt, precision)?;
        let ensemble = resolve_ensemble(two_positions(f.ensemble.clone(), &system, dt)?, &system)?;
        check_variational(&system, &f, &ensemble)?;
        let refine = resolve_refine(&ensemble, f.refine, f.refine_tol, f.max_nodes)?;
        let reverse = f.reverse.unwrap_or(false);
        accuracy::check_direction(method, dt, reverse, refine)?;
        let reference = f
            .reference
            .as_deref()
            .map(|r| accuracy::Reference::parse(r, &system))
            .transpose()?;
        accuracy::check_beside(reference.is_some(), reverse, refine, f.checkpoint_every)?;
        let section = section::resolve(&f, &system, dt, reverse, refine.is_some())?;
        let solver = resolve_solver(precision, f.implicit_tol, f.implicit_max_iter)?;
        let shard = resolve_shard(f.shard.as_deref(), &ensemble)?;
        let devices = f.devices.as_deref().map(Devices::parse).transpose()?;
        let modified = f
            .modified_hamiltonian
            .map(|k| {
                ModifiedHamiltonian::of_system(&system, method, k, "--modified-hamiltonian").map(
                    |m| {
                        for note in m.terms().iter().filter_map(|t| t.undecided_note()) {
                            crate::info_once!(
                                "phaseflow: the modified Hamiltonian's {note}; the mod_* columns include it"
                            );
                        }
                        std::sync::Arc::new(m.at_step(dt))
                    },
                )
            })
            .transpose()?;
        let chaos = chaos::resolve(&f, &system, &ensemble)?;
        let stops = stops::resolve(&f, &system, ensemble.is_loop(), chaos.as_ref())?;
        let frequencies = resolve_frequencies(&f, &system, (dt, steps, reverse), refine.is_some())?;
        let backend = resolve_backend(backend, devices.is_some())?;
        Ok(RunConfig {
            system,
            method,
            ensemble,
            dt,
            steps,
            snapshot_every,
            backend,
            precision,
            compensated: f.compensated.unwrap_or(false),
            save_states: f.save_states.unwrap_or(false),
            store: f.store.unwrap_or_default(),
            tangent: f.tangent.unwrap_or(false),
            modified,
            refine,
            solver,
            portrait_steps: Vec::new(),
            checkpoint_every: match f.checkpoint_every {
                Some(0) => {
                    return Err(invalid!(Field::CheckpointEvery;
                        Field::CheckpointEvery,
                        " must be at least 1 (a checkpoint every K steps), got 0"
                    ))
                }
                k => k,
            },
            shard,
            devices,
            rank: None,
            reference,
            reverse,
            section,
            chaos,
            stops,
            frequencies,
        })
    }

    /// `--stop-when`: the column of `State::chaos` where the stop words start (after the
    /// chaos indicators' accumulators).
    pub fn stop_column(&self) -> Option<usize> {
        let after = self.chaos.as_ref().map_or(0, |c| c.layout().width());
        self.stops.as_ref().map(|_| after)
    }

    /// The points this process generates and advances: its shard's (`--shard`, an MPI
    /// rank's slice of a filled ensemble), else all.
    pub fn local_points(&self) -> usize {
        self.shard
            .or(self.rank)
            .and_then(|s| s.range(self.ensemble.points).ok())
            .map_or(self.ensemble.points, |r| r.len())
    }

    /// The index in the whole ensemble of the first point this process generates and
    /// advances (`local_points`): its shard's start, else 0.
    pub fn first_point(&self) -> usize {
        self.shard
            .or(self.rank)
            .and_then(|s| s.range(self.ensemble.points).ok())
            .map_or(0, |r| r.start)
    }

    /// The same run, also keeping the points at these times for phase portraits (each rounded
    /// to the nearest step, at most the last).
    pub fn with_portraits_at(mut self, times: &[f64]) -> RunConfig {
        self.portrait_steps = times
            .iter()
            .map(|t| ((t / self.dt).round() as u64).min(self.steps))
            .collect();
        self
    }

    /// Step indices at which statistics are taken: 0, K, 2K, …, always the last step, and the
    /// portrait steps; with `--reverse` the same times again on the way back.
    pub fn snapshot_steps(&self) -> Vec<u64> {
        let forward = self.forward_snapshot_steps();
        let back = forward.iter().rev().map(|s| 2 * self.steps - s);
        match self.reverse {
            true => forward.iter().copied().chain(back.skip(1)).collect(),
            false => forward,
        }
    }

    fn forward_snapshot_steps(&self) -> Vec<u64> {
        let mut v: Vec<u64> = (0..=self.steps)
            .step_by(self.snapshot_every as usize)
            .collect();
        v.push(self.steps);
        v.extend(self.portrait_steps.iter().filter(|&&s| s <= self.steps));
        v.sort_unstable();
        v.dedup();
        v
    }
}
