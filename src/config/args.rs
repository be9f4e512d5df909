//! From parsed flags (`cli`) to validated configurations: every subcommand's arguments become
//! a typed job through `TryFrom`, by laying the flags over the `--config` file's settings
//! (`RunFile`) and resolving (`RunConfig::resolve`). The flag groups shared by `run`, `validate`
//! and `study` are laid by one function each, so a new flag in a group reaches every subcommand.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::file::{load_toml, EnsembleFile, RunFile};
use super::{RunBuilder, RunConfig};
use crate::cli::{
    ChaosArgs, EngineArgs, EnsembleArgs, OutputArgs, RefineArgs, RunArgs, ShowKernelArgs,
    SolverArgs, SystemArgs, ValidateArgs,
};
use crate::engine::Integrator;
use crate::error::{Error, Result};
use crate::input_err;
use crate::method::Method;
use crate::options::{Precision, DEFAULT_VALIDATE_TOLERANCE, DEFAULT_VALIDATE_TOLERANCE_F64};
use crate::system::System;

/// Parse "1.5,-2" into numbers, naming the flag on error.
pub fn parse_vec(flag: &str, s: &str) -> Result<Vec<f64>> {
    s.split(',')
        .map(|t| {
            let t = t.trim();
            t.parse::<f64>().map_err(|_| {
                input_err!(
                    "{flag} {s}: '{t}' is not a number (give comma-separated values like 0.5,-1)"
                )
            })
        })
        .collect()
}

/// Parse repeated "--param key=value"; a name given twice is refused, since only one of its
/// values could be used and the other would be dropped without a word.
pub fn parse_params(items: &[String]) -> Result<BTreeMap<String, f64>> {
    let mut out = BTreeMap::new();
    for item in items {
        let (k, v) = item
            .split_once('=')
            .ok_or_else(|| input_err!("--param {item}: expected KEY=VALUE, e.g. --param m=2"))?;
        let v: f64 = v
            .trim()
            .parse()
            .map_err(|_| input_err!("--param {item}: '{v}' is not a number"))?;
        let key = k.trim();
        if let Some(first) = out.insert(key.to_string(), v) {
            return Err(input_err!(
                "--param {key} is given twice ({key}={} and {item}); give each parameter once",
                crate::error::num(first)
            ));
        }
    }
    Ok(out)
}

/// A method named on the command line where a file may stand instead (`study --methods`,
/// `method check`): a method file where `entry` is a path (holds '/' or ends in .toml), else a
/// method by name.
pub fn method_by_name_or_file(entry: &str) -> Result<Method> {
    if entry.contains('/') || entry.ends_with(".toml") {
        Method::from_file(std::path::Path::new(entry))
    } else {
        Method::from_name(entry)
    }
}

/// `a` over `b`: the flag when given, else the file's value.
fn over<T: Clone>(flag: &Option<T>, file: &mut Option<T>) {
    if flag.is_some() {
        *file = flag.clone();
    }
}

/// Laying flag groups over a file's settings: a flag given on the command line wins.
impl RunFile {
    /// `--system`, `--hamiltonian`, `--system-file`, `--dof` and `--param`. A system chosen
    /// by flag replaces the file's; parameters merge, a flag overriding the file's value
    /// (the file's are dropped when the flags choose a different system).
    pub fn lay_system(&mut self, a: &SystemArgs) -> Result<()> {
        let formula = [&a.hamiltonian, &a.lagrangian].iter().any(|f| f.is_some());
        if a.system.is_some() || formula || a.system_file.is_some() {
            let same = (a.system.is_some() && a.system == self.system)
                || (a.hamiltonian.is_some() && a.hamiltonian == self.hamiltonian)
                || (a.lagrangian.is_some() && a.lagrangian == self.lagrangian);
            if !same {
                self.forget_system();
                self.params = None;
            }
            self.system = a.system.clone();
            self.hamiltonian = a.hamiltonian.clone();
            self.lagrangian = a.lagrangian.clone();
            self.system_file = a.system_file.clone();
        }
        over(&a.dof, &mut self.dof);
        let l = &a.lagrangian_options;
        over(&l.discretization, &mut self.discretization);
        over(&l.momentum, &mut self.momentum);
        if l.velocities {
            self.velocities = Some(true);
        }
        if !l.constraints.is_empty() {
            self.constraints = Some(l.constraints.clone());
        }
        if !a.params.is_empty() {
            let mut p = self.params.take().unwrap_or_default();
            p.extend(parse_params(&a.params)?);
            self.params = Some(p);
        }
        Ok(())
    }

    /// The ensemble flags, into the file's `[ensemble]` table.
    pub fn lay_ensemble(&mut self, a: &EnsembleArgs) -> Result<()> {
        let e = self.ensemble.get_or_insert_with(EnsembleFile::default);
        if a.ensemble.is_some() && a.ensemble != e.kind {
            // Another kind: the file's values for its own kind do not apply to it.
            *e = EnsembleFile {
                points: e.points,
                seed: e.seed,
                ..EnsembleFile::default()
            };
        }
        over(&a.ensemble, &mut e.kind);
        over(&a.points, &mut e.points);
        let vec_of = |flag: &str, v: &Option<String>| v.as_deref().map(|s| parse_vec(flag, s));
        over(&vec_of("--center", &a.center).transpose()?, &mut e.center);
        over(&vec_of("--lo", &a.lo).transpose()?, &mut e.lo);
        over(&vec_of("--hi", &a.hi).transpose()?, &mut e.hi);
        over(&a.radius, &mut e.radius);
        over(&a.energy, &mut e.energy);
        over(&a.grid_axes, &mut e.grid_axes);
        over(&a.sigma, &mut e.sigma);
        over(&a.seed, &mut e.seed);
        over(&a.input, &mut e.input);
        if a.positions {
            e.positions = Some(true);
        }
        if a.closed_loop {
            e.closed_loop = Some(true);
        }
        if a.raw_start {
            e.raw_start = Some(true);
        }
        Ok(())
    }

    /// `--method` or `--method-file` (clap refuses both): either replaces the file's method,
    /// however it was given.
    pub fn lay_method(&mut self, name: &Option<String>, file: &Option<PathBuf>) {
        if name.is_some() || file.is_some() {
            self.method = name.clone();
            self.method_file = file.clone();
            self.method_source = None;
        }
    }

    /// `--chaos` and its deviation vector's start and metric.
    pub fn lay_chaos(&mut self, a: &ChaosArgs) {
        over(&a.chaos, &mut self.chaos);
        over(&a.deviation, &mut self.deviation);
        over(&a.deviation_metric, &mut self.deviation_metric);
    }

    /// `--backend` and `--precision`.
    pub fn lay_engine(&mut self, a: &EngineArgs) {
        over(&a.backend, &mut self.backend);
        over(&a.precision, &mut self.precision);
        over(&a.compensated, &mut self.compensated);
    }

    /// `--implicit-tol` and `--implicit-max-iter`.
    pub fn lay_solver(&mut self, a: &SolverArgs) {
        over(&a.implicit_tol, &mut self.implicit_tol);
        over(&a.implicit_max_iter, &mut self.implicit_max_iter);
    }

    /// `--no-refine`, `--refine-tol` and `--max-nodes`.
    pub fn lay_refine(&mut self, a: &RefineArgs) {
        if a.no_refine {
            self.refine = Some(false);
        }
        over(&a.refine_tol, &mut self.refine_tol);
        over(&a.max_nodes, &mut self.max_nodes);
    }

    /// `--out` and `--save-states` (`--force` and `--quiet` are not settings of the run).
    pub fn lay_output(&mut self, a: &OutputArgs) {
        over(&a.out, &mut self.out);
        over(&a.checkpoint_every, &mut self.checkpoint_every);
        if a.save_states {
            self.save_states = Some(true);
        }
    }

    /// The `--config` file (or nothing) with every flag of `run` laid over it.
    pub fn from_run_args(a: &RunArgs) -> Result<RunFile> {
        let mut f = match &a.config {
            Some(p) => load_toml(p)?,
            None => RunFile::default(),
        };
        f.lay_system(&a.system)?;
        f.lay_method(&a.method, &a.method_file);
        f.lay_ensemble(&a.ensemble)?;
        over(&a.dt, &mut f.dt);
        over(&a.steps, &mut f.steps);
        over(&a.snapshot_every, &mut f.snapshot_every);
        f.lay_engine(&a.engine);
        if a.tangent {
            f.tangent = Some(true);
        }
        over(&a.modified_hamiltonian, &mut f.modified_hamiltonian);
        f.lay_chaos(&a.chaos);
        f.lay_refine(&a.refine);
        f.lay_solver(&a.solver);
        f.lay_output(&a.output);
        over(&a.shard, &mut f.shard);
        over(&a.store, &mut f.store);
        over(&a.devices, &mut f.devices);
        over(&a.accuracy.reference, &mut f.reference);
        if a.accuracy.reverse {
            f.reverse = Some(true);
        }
        if !a.sweep.is_empty() {
            f.sweep = Some(a.sweep.clone());
        }
        over(&a.section.section, &mut f.section);
        over(&a.section.section_max, &mut f.section_max);
        over(&a.frequencies.frequencies, &mut f.frequencies);
        over(&a.frequencies.frequency_stride, &mut f.frequency_stride);
        if !a.stops.stop_when.is_empty() {
            f.stop_when = Some(a.stops.stop_when.clone());
        }
        Ok(f)
    }
}

/// How a missing system is asked for (`run` and `study`).
pub const SYSTEM_FLAGS: &str =
    "--system NAME (or --hamiltonian EXPR, --lagrangian EXPR, --system-file FILE.toml)";

/// Every required setting left out, said at once: `missing` pairs whether each is left out
/// with the flag that gives it; `example` is a complete command. One alone is left to its
/// own message, where the setting is checked.
pub fn require_all(missing: &[(bool, &str)], example: &str) -> Result<()> {
    let flags: Vec<&str> = missing
        .iter()
        .filter_map(|&(left_out, flag)| left_out.then_some(flag))
        .collect();
    if flags.len() < 2 {
        return Ok(());
    }
    let command = example.split(' ').take(2).collect::<Vec<_>>().join(" ");
    Err(input_err!(
        "missing {}; e.g. {example} (`{command} --help` lists every option)",
        flags.join(", ")
    ))
}

impl RunFile {
    /// `run` (`out`: true) and `validate`: the system, method, ensemble, step and steps (and
    /// the folder), from the flags or the `--config` file.
    pub fn require(&self, command: &str, out: bool) -> Result<()> {
        let kind = self.ensemble.as_ref().and_then(|e| e.kind.as_ref());
        let method = self.method.is_some() || self.method_file.is_some();
        let example = format!(
            "phaseflow {command} --system pendulum --method verlet --ensemble disk --dt 0.01 --steps 1000{}",
            if out { " --out results" } else { "" }
        );
        require_all(
            &[
                (!self.chooses_system(), SYSTEM_FLAGS),
                (
                    !method && self.method_source.is_none(),
                    "--method NAME (or --method-file FILE.toml)",
                ),
                (kind.is_none(), "--ensemble KIND"),
                (self.dt.is_none(), "--dt H"),
                (self.steps.is_none(), "--steps N"),
                (out && self.out.is_none(), "--out DIR"),
            ],
            &example,
        )
    }
}

/// The folder a run writes to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputDir {
    pub path: PathBuf,
    /// `--force`: replace a previous phaseflow run there.
    pub force: bool,
}

/// `phaseflow run`: what to compute and where to write it.
#[derive(Debug, Clone)]
pub struct RunJob {
    pub config: RunConfig,
    pub out: OutputDir,
}

impl TryFrom<&RunArgs> for RunJob {
    type Error = Error;

    fn try_from(a: &RunArgs) -> Result<RunJob> {
        let file = RunFile::from_run_args(a)?;
        file.require("run", true)?;
        let path = file.out.clone().ok_or_else(|| {
            input_err!("--out DIR is required (the folder for stats.csv and config.toml)")
        })?;
        Ok(RunJob {
            config: RunBuilder::from(file).build()?,
            out: OutputDir {
                path,
                force: a.output.force,
            },
        })
    }
}

/// `phaseflow validate`: the run to compare on both engines, and the tolerance.
#[derive(Debug, Clone)]
pub struct ValidateJob {
    pub config: RunConfig,
    /// Largest allowed `max_rel_dev`.
    pub tolerance: f64,
}

impl TryFrom<&ValidateArgs> for ValidateJob {
    type Error = Error;

    fn try_from(a: &ValidateArgs) -> Result<ValidateJob> {
        let r = &a.run;
        refuse_unused_validate_options(|option| match option {
            "shard" => r.shard.is_some(),
            "devices" => r.devices.is_some(),
            "save-states" => r.output.save_states,
            "store" => r.store.is_some(),
            "checkpoint-every" => r.output.checkpoint_every.is_some(),
            "refine-tol" => r.refine.refine_tol.is_some(),
            "max-nodes" => r.refine.max_nodes.is_some(),
            "reference" => r.accuracy.reference.is_some(),
            _ => false,
        })?;
        ValidateJob::from_settings(RunFile::from_run_args(r)?, a.tolerance)
    }
}

impl ValidateJob {
    /// The run of `settings` (flags laid over a `--config` file, or a library caller's
    /// `RunBuilder::settings`) to compare on both engines, within `tolerance` (`None`: the
    /// precision's default).
    pub fn from_settings(settings: RunFile, tolerance: Option<f64>) -> Result<ValidateJob> {
        settings.require("validate", false)?;
        let config = RunBuilder::from(settings).build()?;
        let tolerance = tolerance.unwrap_or(match config.precision {
            Precision::F32 => DEFAULT_VALIDATE_TOLERANCE,
            Precision::F64 => DEFAULT_VALIDATE_TOLERANCE_F64,
        });
        if !(tolerance.is_finite() && tolerance > 0.0) {
            return Err(input_err!(
                "--tolerance must be a positive finite number, got {tolerance}"
            ));
        }
        Ok(ValidateJob { config, tolerance })
    }
}

/// The options of `run` that `validate` refuses rather than drops, with why: it writes no
/// files, never refines a loop (both engines advance the same nodes) and compares the whole
/// ensemble on one GPU. Each entry names its options as flags without the dashes.
/// (`--out`, `--force` and `--backend` are accepted and unused, as documented; a `--config`
/// file's values for these are ignored, so a run's config.toml can be validated as it is.)
const VALIDATE_UNUSED: &[(&[&str], &str)] = &[
    (&["shard"], "it compares the whole ensemble"),
    (&["devices"], "it compares one GPU with the CPU engine"),
    (&["save-states"], "it writes no files"),
    (&["store"], "it writes no files"),
    (&["checkpoint-every"], "it writes no files"),
    (
        &["refine-tol", "max-nodes"],
        "both engines advance the same loop nodes, never refined",
    ),
    (
        &["reference"],
        "it compares the engines' states, which the global error measures against one CPU reference",
    ),
];

/// Refuse the options of `VALIDATE_UNUSED` that `given` says were given (by flag or keyword,
/// never by the `--config` file).
pub fn refuse_unused_validate_options(given: impl Fn(&str) -> bool) -> Result<()> {
    for (options, why) in VALIDATE_UNUSED {
        if options.iter().any(|o| given(o)) {
            let flag = options
                .iter()
                .map(|o| format!("--{o}"))
                .collect::<Vec<_>>()
                .join("/");
            return Err(input_err!(
                "{flag}: validate does not use it ({why}); drop {flag}"
            ));
        }
    }
    Ok(())
}

/// `--min-ratio` needs a positive ratio and a reference loop to compare with.
pub(super) fn check_min_ratio(r: f64, system: &System, method: Method, dt: f64) -> Result<()> {
    if !(r.is_finite() && r > 0.0) {
        return Err(input_err!(
            "--min-ratio must be a positive finite number, got {r}"
        ));
    }
    let probe = crate::state::State::<f64>::zeros(1, system.dof());
    let k = Integrator::with_default_solver::<f64>(system.clone(), method, dt)?;
    if crate::engine::ReferenceEngine::new(&k, probe).is_none() {
        return Err(input_err!(
            "--min-ratio: system {} with method {} has no reference loop to compare with; use --system pendulum or oscillator with a kick-drift method, a composition or rk4",
            system.name(),
            method.name()
        ));
    }
    Ok(())
}

/// `phaseflow show-kernel`: the system, and the kernel to print.
#[derive(Debug, Clone)]
pub struct ShowKernelJob {
    pub system: System,
    /// `--method`: the whole kernel of this method (else the system's functions).
    pub method: Option<Method>,
    pub spec: crate::gpu::shader::KernelSpec,
}

impl TryFrom<&ShowKernelArgs> for ShowKernelJob {
    type Error = Error;

    fn try_from(a: &ShowKernelArgs) -> Result<ShowKernelJob> {
        let mut file = RunFile::default();
        file.lay_system(&a.system)?;
        let system = super::resolve_system(&file)?;
        let method = match &a.method_file {
            Some(path) => Some(Method::from_file(path)?),
            None => a.method.as_deref().map(Method::from_name).transpose()?,
        };
        if method.is_none() && (a.precision.is_some() || a.tangent || a.compensated) {
            return Err(input_err!(
                "--precision, --tangent and --compensated describe an integration kernel: add --method NAME or --method-file FILE.toml"
            ));
        }
        if let Some(m) = method {
            m.check_system(&system)?;
        }
        super::check_variational_kernel(&system, a.tangent, a.compensated)?;
        let f64 = a.precision == Some(Precision::F64);
        if f64 {
            system.check_gpu_f64()?;
        }
        let solver = if f64 {
            crate::method::Solver::default_for::<f64>()
        } else {
            crate::method::Solver::default_for::<f32>()
        };
        Ok(ShowKernelJob {
            method,
            spec: crate::gpu::shader::KernelSpec {
                nt: if a.tangent { 2 * system.dof() } else { 0 },
                solver,
                f64,
                compensated: a.compensated,
            },
            system,
        })
    }
}

impl ShowKernelJob {
    /// The WGSL to print (`gpu::shader::listing`).
    pub fn listing(&self) -> String {
        crate::gpu::shader::listing(&self.system, self.method, &self.spec)
    }
}
