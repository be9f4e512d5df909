//! Validated run configuration. TOML files and flags both land in `RunFile` (all optional);
//! flags override the file; `RunConfig::resolve` checks everything and fills defaults, and
//! `RunConfig::to_toml` writes the resolved settings so `--config DIR/config.toml` reproduces a run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::cli::RunArgs;
use crate::ensemble::{EnsembleKind, EnsembleSpec};
use crate::error::{Error, Result};
use crate::input_err;
use crate::method::{Method, Solver};
use crate::system::System;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    Auto,
    Gpu,
    Cpu,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    F32,
    F64,
}

impl Precision {
    pub fn name(self) -> &'static str {
        match self {
            Precision::F32 => "f32",
            Precision::F64 => "f64",
        }
    }
}

/// The ensemble table of a TOML file.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnsembleFile {
    pub kind: Option<String>,
    pub points: Option<usize>,
    pub center: Option<Vec<f64>>,
    pub radius: Option<f64>,
    pub lo: Option<Vec<f64>>,
    pub hi: Option<Vec<f64>>,
    pub energy: Option<f64>,
    pub sigma: Option<f64>,
    pub seed: Option<u64>,
    pub input: Option<PathBuf>,
    #[serde(rename = "loop")]
    pub closed_loop: Option<bool>,
}

/// Everything a run can be told, each optional (a TOML file, flags, or both merged).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunFile {
    pub system: Option<String>,
    pub method: Option<String>,
    pub dt: Option<f64>,
    pub steps: Option<u64>,
    pub snapshot_every: Option<u64>,
    pub backend: Option<String>,
    pub precision: Option<String>,
    pub save_states: Option<bool>,
    pub tangent: Option<bool>,
    pub refine: Option<bool>,
    pub refine_tol: Option<f64>,
    pub max_nodes: Option<usize>,
    pub implicit_tol: Option<f64>,
    pub implicit_max_iter: Option<u32>,
    pub out: Option<PathBuf>,
    pub params: Option<BTreeMap<String, f64>>,
    pub ensemble: Option<EnsembleFile>,
}

/// A validated run.
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
    pub save_states: bool,
    pub tangent: bool,
    /// Loop refinement (loop ensembles unless turned off).
    pub refine: Option<Refine>,
    /// Fixed-point solver of the implicit stages (defaults depend on the precision).
    pub solver: Solver,
    /// Steps at which the run also keeps the points (f64) for phase portraits (`study`).
    pub portrait_steps: Vec<u64>,
    pub out: Option<PathBuf>,
    /// `--force`: replace a previous run in `out`.
    pub force: bool,
    pub quiet: bool,
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
            return Err(input_err!(
                "--refine-tol/--max-nodes: loop refinement applies to ordered closed loops (level, circle, rect, or file with --loop); --ensemble {} is a filled set, so drop these flags",
                ensemble.kind.name()
            ));
        }
        return Ok(None);
    }
    if refine == Some(false) {
        return Ok(None);
    }
    let tol = tol.unwrap_or(DEFAULT_REFINE_TOL);
    if !(tol.is_finite() && tol > 0.0 && tol < 1.0) {
        return Err(input_err!(
            "--refine-tol {tol}: expected a fraction of the loop's size between 0 and 1, e.g. 5e-4"
        ));
    }
    let max_nodes = max_nodes.unwrap_or(DEFAULT_MAX_NODES.max(ensemble.points));
    if max_nodes < ensemble.points {
        return Err(input_err!(
            "--max-nodes {max_nodes} is below the loop's {} initial nodes; raise it or use --no-refine",
            ensemble.points
        ));
    }
    Ok(Some(Refine { tol, max_nodes }))
}

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

/// Parse repeated "--param key=value".
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
        out.insert(k.trim().to_string(), v);
    }
    Ok(out)
}

/// The largest `--config` file read (a run's settings take a few kB).
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

pub fn load_toml(path: &Path) -> Result<RunFile> {
    let file_err = |message: String| Error::InputFile {
        path: path.to_path_buf(),
        message,
    };
    let bytes = crate::ensemble::read_regular(path, MAX_CONFIG_BYTES, "a TOML file of settings")
        .map_err(|m| file_err(format!("--config: {m}")))?;
    let text = String::from_utf8(bytes)
        .map_err(|e| file_err(format!("--config: malformed TOML: not UTF-8 text ({e})")))?;
    toml::from_str(&text).map_err(|e| file_err(format!("--config: malformed TOML: {e}")))
}

impl RunFile {
    /// The file's settings with every flag the user gave laid over them.
    pub fn merged_with(mut self, a: &RunArgs) -> Result<RunFile> {
        macro_rules! over {
            ($field:ident) => {
                if a.$field.is_some() {
                    self.$field = a.$field.clone();
                }
            };
        }
        over!(system);
        over!(method);
        over!(dt);
        over!(steps);
        over!(snapshot_every);
        over!(backend);
        over!(precision);
        over!(out);
        if a.save_states {
            self.save_states = Some(true);
        }
        if a.tangent {
            self.tangent = Some(true);
        }
        if a.no_refine {
            self.refine = Some(false);
        }
        over!(refine_tol);
        over!(max_nodes);
        over!(implicit_tol);
        over!(implicit_max_iter);
        if !a.params.is_empty() {
            let mut p = self.params.take().unwrap_or_default();
            p.extend(parse_params(&a.params)?);
            self.params = Some(p);
        }
        let mut e = self.ensemble.take().unwrap_or_default();
        if a.ensemble.is_some() {
            e.kind = a.ensemble.clone();
        }
        if a.points.is_some() {
            e.points = a.points;
        }
        if let Some(c) = &a.center {
            e.center = Some(parse_vec("--center", c)?);
        }
        if let Some(c) = &a.lo {
            e.lo = Some(parse_vec("--lo", c)?);
        }
        if let Some(c) = &a.hi {
            e.hi = Some(parse_vec("--hi", c)?);
        }
        if a.radius.is_some() {
            e.radius = a.radius;
        }
        if a.energy.is_some() {
            e.energy = a.energy;
        }
        if a.sigma.is_some() {
            e.sigma = a.sigma;
        }
        if a.seed.is_some() {
            e.seed = a.seed;
        }
        if a.input.is_some() {
            e.input = a.input.clone();
        }
        if a.closed_loop {
            e.closed_loop = Some(true);
        }
        self.ensemble = Some(e);
        Ok(self)
    }
}

impl RunConfig {
    /// Gradient evaluations one step takes at most (`Method::evals_per_step`): sizes `run`'s
    /// progress pieces and the GPU's dispatches.
    pub fn evals_per_step(&self) -> u64 {
        self.method.evals_per_step(&self.system, self.solver)
    }

    /// Load `--config` (if any), lay the flags over it and validate.
    pub fn from_args(args: &RunArgs) -> Result<RunConfig> {
        let base = match &args.config {
            Some(p) => load_toml(p)?,
            None => RunFile::default(),
        };
        let mut cfg = RunConfig::resolve(base.merged_with(args)?)?;
        cfg.quiet = args.quiet;
        cfg.force = args.force;
        Ok(cfg)
    }

    pub fn resolve(f: RunFile) -> Result<RunConfig> {
        let system_name = f
            .system
            .ok_or_else(|| input_err!("--system is required (see `phaseflow list`)"))?;
        let system = System::new(&system_name, &f.params.unwrap_or_default())?;
        let method = Method::from_name(
            &f.method
                .ok_or_else(|| input_err!("--method is required (see `phaseflow list`)"))?,
        )?;
        method.check_system(&system)?;
        let dt =
            f.dt.ok_or_else(|| input_err!("--dt is required (the step size h, e.g. --dt 0.01)"))?;
        if !(dt.is_finite() && dt > 0.0) {
            return Err(input_err!(
                "--dt must be a positive finite number, got {dt}"
            ));
        }
        let steps = f
            .steps
            .ok_or_else(|| input_err!("--steps is required (the number of steps)"))?;
        if steps == 0 {
            return Err(input_err!("--steps must be at least 1, got 0"));
        }
        if steps > u32::MAX as u64 * 1024 {
            return Err(input_err!(
                "--steps {steps} is too large (at most {})",
                u32::MAX as u64 * 1024
            ));
        }
        let snapshot_every = f
            .snapshot_every
            .unwrap_or_else(|| steps.div_ceil(100).max(1));
        if snapshot_every == 0 {
            return Err(input_err!(
                "--snapshot-every must be at least 1 (a snapshot every K steps), got 0"
            ));
        }
        if steps / snapshot_every > 1_000_000 {
            return Err(input_err!(
                "--snapshot-every {snapshot_every}: {} snapshots is too many (at most 1000000); take a larger --snapshot-every",
                steps / snapshot_every
            ));
        }
        let backend = match f.backend.as_deref().unwrap_or("auto") {
            "auto" => Backend::Auto,
            "gpu" => Backend::Gpu,
            "cpu" => Backend::Cpu,
            other => return Err(input_err!("--backend {other}: expected auto, gpu or cpu")),
        };
        let precision = match f.precision.as_deref().unwrap_or("f32") {
            "f32" => Precision::F32,
            "f64" => Precision::F64,
            other => return Err(input_err!("--precision {other}: expected f32 or f64")),
        };
        if backend == Backend::Gpu && precision == Precision::F64 {
            return Err(input_err!(
                "--precision f64 with --backend gpu: the GPU engine computes in f32; use --precision f32, or --backend cpu for f64"
            ));
        }
        let e = f.ensemble.unwrap_or_default();
        let kind = EnsembleKind::from_name(e.kind.as_deref().ok_or_else(|| {
            input_err!(
                "--ensemble is required (level, circle, rect, disk, grid, gaussian, point, file)"
            )
        })?)?;
        let input = match e.input {
            Some(p) if kind == EnsembleKind::File => {
                if !p.exists() {
                    return Err(Error::InputFile {
                        path: p,
                        message: "--input: file not found".into(),
                    });
                }
                Some(std::fs::canonicalize(&p).unwrap_or(p))
            }
            other => other,
        };
        let ensemble = EnsembleSpec {
            kind,
            points: e
                .points
                .unwrap_or(if kind == EnsembleKind::Point { 1 } else { 1000 }),
            center: e.center,
            radius: e.radius,
            lo: e.lo,
            hi: e.hi,
            energy: e.energy,
            sigma: e.sigma,
            seed: e.seed.unwrap_or(0),
            input,
            closed_loop: e.closed_loop.unwrap_or(false),
        }
        .resolve(&system)?;
        let refine = resolve_refine(&ensemble, f.refine, f.refine_tol, f.max_nodes)?;
        let default_solver = match precision {
            Precision::F32 => Solver::default_for::<f32>(),
            Precision::F64 => Solver::default_for::<f64>(),
        };
        let solver = Solver {
            tol: f.implicit_tol.unwrap_or(default_solver.tol),
            max_iter: f.implicit_max_iter.unwrap_or(default_solver.max_iter),
        };
        if !(solver.tol.is_finite() && solver.tol > 0.0 && solver.tol < 1.0) {
            return Err(input_err!(
                "--implicit-tol {}: expected a small positive number, e.g. 1e-6 (f32) or 1e-14 (f64)",
                solver.tol
            ));
        }
        if solver.max_iter == 0 {
            return Err(input_err!(
                "--implicit-max-iter must be at least 1 (e.g. 100), got 0"
            ));
        }
        Ok(RunConfig {
            system,
            method,
            ensemble,
            dt,
            steps,
            snapshot_every,
            backend,
            precision,
            save_states: f.save_states.unwrap_or(false),
            tangent: f.tangent.unwrap_or(false),
            refine,
            solver,
            portrait_steps: Vec::new(),
            out: f.out,
            force: false,
            quiet: false,
        })
    }

    /// The resolved settings as TOML (what config.toml holds).
    pub fn to_toml(&self, backend_used: &str) -> String {
        let e = &self.ensemble;
        let file = RunFile {
            system: Some(self.system.name().into()),
            method: Some(self.method.name().into()),
            dt: Some(self.dt),
            steps: Some(self.steps),
            snapshot_every: Some(self.snapshot_every),
            backend: Some(
                match self.backend {
                    Backend::Auto => "auto",
                    Backend::Gpu => "gpu",
                    Backend::Cpu => "cpu",
                }
                .into(),
            ),
            precision: Some(self.precision.name().into()),
            save_states: Some(self.save_states),
            tangent: Some(self.tangent),
            refine: e.is_loop().then_some(self.refine.is_some()),
            refine_tol: self.refine.map(|r| r.tol),
            max_nodes: self.refine.map(|r| r.max_nodes),
            implicit_tol: Some(self.solver.tol),
            implicit_max_iter: Some(self.solver.max_iter),
            out: self.out.clone(),
            params: Some(self.system.params()),
            ensemble: Some(EnsembleFile {
                kind: Some(e.kind.name().into()),
                points: Some(e.points),
                center: e.center.clone(),
                radius: e.radius,
                lo: e.lo.clone(),
                hi: e.hi.clone(),
                energy: e.energy,
                sigma: e.sigma,
                seed: Some(e.seed),
                input: e.input.clone(),
                closed_loop: e.closed_loop.then_some(true),
            }),
        };
        let body = toml::to_string(&file).unwrap_or_default();
        format!(
            "# phaseflow {} resolved run configuration; reproduce with: phaseflow run --config <this file>\n# engine used: {backend_used}\n{body}",
            env!("CARGO_PKG_VERSION")
        )
    }

    /// Step indices at which statistics are taken: 0, K, 2K, …, always the last step, and the
    /// portrait steps.
    pub fn snapshot_steps(&self) -> Vec<u64> {
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
