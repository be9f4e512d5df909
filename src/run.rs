//! The pipelines behind the subcommands: run (ensemble → engine → snapshots → outputs),
//! validate (GPU vs CPU at f32), bench (CPU f64, CPU f32, GPU f32 in one run).

use std::path::{Path, PathBuf};
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use serde::Serialize;

use crate::config::{Backend, Precision, RunConfig};
use crate::engine::{CpuEngine, Engine, GpuEngine, ReferenceEngine};
use crate::ensemble::{EnsembleKind, EnsembleSpec, State};
use crate::error::{Error, Result};
use crate::float::Real;
use crate::gpu;
use crate::input_err;
use crate::measure::area::{loop_area, smooth_loop_area};
use crate::measure::energy::{
    ang_mom_err_max, angular_momenta, energies, row_from, snapshot_stats, EnergyRow,
};
use crate::measure::tangent::{renormalise, tangent_stats};
use crate::method::Method;
use crate::output::{folder, npy, write_atomic, write_csv};
use crate::system::System;

/// Default for `validate --tolerance`: the largest GPU−CPU deviation (f32, relative to the RMS
/// size of the state's components) accepted. Roundoff differences (fused multiply-adds on the
/// GPU) grow with the number of steps; 1e-3 leaves room for ~1e5 steps of a smooth flow while a
/// wrong kernel (any O(h) or sign error) deviates by far more.
pub const DEFAULT_VALIDATE_TOLERANCE: f64 = 1e-3;

/// Work between progress updates, in gradient evaluations × points (`Method::evals_per_step`
/// per step): one GPU dispatch (`engine::gpu::DISPATCH_EVALS`), about 1.6 s of symplectic
/// Euler on 1e6 pendulum points on the 2-core machine's CPU engine.
const PROGRESS_EVALS: u64 = crate::engine::gpu::DISPATCH_EVALS;

/// Which engine a run uses after `auto` is resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EngineChoice {
    Gpu,
    Cpu,
}

/// Resolve `--backend` (auto: hardware GPU when present and the precision is f32, else CPU).
pub fn choose_engine(cfg: &RunConfig) -> (EngineChoice, Option<String>) {
    match cfg.backend {
        Backend::Gpu => (EngineChoice::Gpu, None),
        Backend::Cpu => (EngineChoice::Cpu, None),
        Backend::Auto if cfg.precision == Precision::F64 => (
            EngineChoice::Cpu,
            Some("--backend auto: f64 runs on the CPU engine (the GPU engine is f32)".into()),
        ),
        Backend::Auto => {
            if gpu::hardware_gpu_available() {
                (EngineChoice::Gpu, None)
            } else {
                (
                    EngineChoice::Cpu,
                    Some("--backend auto: no hardware GPU found, using the CPU engine".into()),
                )
            }
        }
    }
}

/// Host bytes per point that `run` holds at its peak, for its configuration and engine
/// (`gpu`: the GPU engine). Measured, as peak RSS at 1e7 points minus a 1-point run: an f32
/// d = 1 run without --tangent holds 20 B per point (the checked figure):
/// - the engine's state: q and p, `2·comps` values of the run's precision (comps = d, or
///   d(1 + 2d) with --tangent), and the unconverged count (u32; the GPU engine's read-back writes
///   it, so it is not made lazy);
/// - H0 per point, f64 (an f32 evaluation cannot resolve the 1e-8 energy errors the studies
///   report); L0 (3 × f64) for systems with angular momentum.
///
/// Nothing else is n-sized: the initial set is generated straight into the run's precision,
/// the statistics are reduced chunk by chunk, and the loop parameters and tangent scales exist
/// only for loops and --tangent. Those, and what the GPU engine and --save-states hold on the
/// host, are added where they apply.
pub fn run_bytes_per_point(cfg: &RunConfig, gpu: bool) -> u64 {
    let d = cfg.system.dof() as u64;
    let comps = if cfg.tangent { d * (1 + 2 * d) } else { d };
    let bytes = if cfg.precision == Precision::F64 && !gpu {
        8
    } else {
        4
    };
    let state = 2 * comps * bytes + 4;
    let zero = vec![0.0; d as usize];
    let mut per_point = state + 8;
    if cfg.system.angular_momentum(&zero, &zero).is_some() {
        per_point += 24;
    }
    if cfg.tangent {
        // log2_scale; the plain initial state beside the one with columns; renormalise's copy
        per_point += 8 + 2 * d * bytes + state;
    }
    if cfg.refine.is_some() {
        // loop parameter s; the f64 initial set while it is converted (kept for a file loop);
        // a refinement pass's merged state and new s, H0 and scale vectors beside the old ones
        per_point += 8 + 16 * d + state + 24;
    }
    if gpu {
        // the upload vector and wgpu's staging copy of a chunk, or the read-back staging buffer
        per_point += 2 * (2 * comps + 1) * 4;
    }
    if cfg.save_states {
        per_point += 2 * d * bytes;
    }
    if cfg.ensemble.kind == EnsembleKind::File {
        // reading the file, before the rest exists: a .npy's bytes and its f64 values, then
        // those values and the f64 state, then that state and the run's copy of it
        per_point = per_point.max((32 * d + 4).max(16 * d + 8 + 2 * d * bytes));
    }
    // portraits (studies): the points in f64 at each portrait step, kept to the end
    per_point += cfg.portrait_steps.len() as u64 * (16 * d + 4);
    per_point
}

/// Refuse, before anything is allocated, an ensemble of `points` needing `per_point` host
/// bytes each that would not fit in 90 % of the memory available (MemAvailable, and the
/// cgroup's limit where there is one). `flag` sets the count (`--points`, or `--max-nodes`
/// for a refined loop, which grows up to it).
pub fn check_host_memory(flag: &str, points: usize, per_point: u64) -> Result<()> {
    let need = points as u128 * per_point as u128;
    let avail = available_memory().unwrap_or(u64::MAX) as u128;
    if need > avail * 9 / 10 {
        let gib = |b: u128| b as f64 / (1u64 << 30) as f64;
        let fix = if flag == "--points" {
            "fewer --points"
        } else {
            "a lower --max-nodes"
        };
        return Err(input_err!(
            "{flag} {points}: the ensemble needs about {:.1} GiB of memory ({per_point} bytes per point) but only {:.1} GiB is available; use {fix} (at most about {})",
            gib(need),
            gib(avail),
            avail * 9 / 10 / per_point.max(1) as u128
        ));
    }
    Ok(())
}

/// `validate` and `bench`: refuse ensembles whose f64 initial set and engine states (`d`
/// components of `bytes_per_component` each in q and p, two engines) would not fit in memory.
pub fn check_memory(points: usize, d: usize, bytes_per_component: usize) -> Result<()> {
    check_host_memory(
        "--points",
        points,
        (2 * d * (8 + 2 * bytes_per_component) + 16) as u64,
    )
}

/// Memory this process may still take: MemAvailable, capped by the cgroup (v2) limit.
pub(crate) fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    let cgroup = || -> Option<u64> {
        let read = |f: &str| std::fs::read_to_string(format!("/sys/fs/cgroup/{f}")).ok();
        let max: u64 = read("memory.max")?.trim().parse().ok()?;
        let current: u64 = read("memory.current")?.trim().parse().ok()?;
        Some(max.saturating_sub(current))
    };
    Some(match cgroup() {
        Some(c) => c.min(kb * 1024),
        None => kb * 1024,
    })
}

/// Progress of a long run: a bar on a terminal, and plain lines (about every 30 s) when stderr
/// is a log file or a pipe, so batch jobs show progress too. Hidden with `--quiet`.
struct Progress {
    bar: ProgressBar,
    /// Plain-line reporting (stderr is not a terminal): total steps, start, last line.
    plain: Option<(u64, Instant, Instant)>,
    done: u64,
}

/// Seconds between plain progress lines.
const PLAIN_PROGRESS_SECS: u64 = 30;

impl Progress {
    fn new(total: u64, quiet: bool) -> Self {
        use std::io::IsTerminal;
        if quiet {
            return Self::hidden();
        }
        if !std::io::stderr().is_terminal() {
            let now = Instant::now();
            return Progress {
                bar: ProgressBar::hidden(),
                plain: Some((total, now, now)),
                done: 0,
            };
        }
        let bar = ProgressBar::new(total);
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} steps (eta {eta})",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        Progress {
            bar,
            plain: None,
            done: 0,
        }
    }

    fn hidden() -> Self {
        Progress {
            bar: ProgressBar::hidden(),
            plain: None,
            done: 0,
        }
    }

    fn inc(&mut self, steps: u64) {
        self.bar.inc(steps);
        self.done += steps;
        if let Some((total, start, last)) = &mut self.plain {
            if last.elapsed().as_secs() >= PLAIN_PROGRESS_SECS {
                *last = Instant::now();
                let secs = start.elapsed().as_secs_f64();
                let frac = self.done as f64 / (*total).max(1) as f64;
                let eta = if frac > 0.0 {
                    format!("{:.0} s", secs * (1.0 - frac) / frac)
                } else {
                    "?".into()
                };
                crate::note!(
                    "phaseflow: step {}/{} ({:.0} %), {secs:.0} s elapsed, eta {eta}",
                    self.done,
                    total,
                    100.0 * frac
                );
            }
        }
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// Advance by `steps`, in pieces small enough to keep the progress report moving
/// (`PROGRESS_EVALS` of work each, for `evals` gradient evaluations per step).
fn advance_with_progress<T: Real>(
    engine: &mut dyn Engine<T>,
    steps: u64,
    n: usize,
    evals: u64,
    pb: &mut Progress,
) -> Result<()> {
    let piece = (PROGRESS_EVALS / (n.max(1) as u64 * evals.max(1))).max(1);
    let mut left = steps;
    while left > 0 {
        let s = left.min(piece);
        engine.advance(s)?;
        pb.inc(s);
        left -= s;
    }
    Ok(())
}

/// What a finished run reports.
#[derive(Debug, Clone)]
pub struct RunSummary {
    pub engine: String,
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

/// Builds engines of the run's backend and precision (the main one, and the one refinement
/// uses to integrate inserted nodes from t = 0).
type EngineFactory<'a, T> = dyn Fn(State<T>) -> Result<Box<dyn Engine<T>>> + 'a;

/// `phaseflow run`.
pub fn run(cfg: &RunConfig) -> Result<RunSummary> {
    let out = cfg.out.clone().ok_or_else(|| {
        input_err!("--out DIR is required (the folder for stats.csv and config.toml)")
    })?;
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
        crate::engine::gpu::check_device_memory(gpu::context()?, flag, n, comps)?;
    }
    let (system, method, dt, solver) = (&cfg.system, cfg.method, cfg.dt, cfg.solver);
    match (choice, cfg.precision) {
        (EngineChoice::Gpu, _) => run_with::<f32>(cfg, &out, note, &|s| {
            Ok(Box::new(GpuEngine::with_options(
                system,
                method,
                dt,
                s,
                usize::MAX,
                solver,
            )?))
        }),
        (EngineChoice::Cpu, Precision::F32) => run_with::<f32>(cfg, &out, note, &|s| {
            Ok(Box::new(CpuEngine::with_solver(
                system.clone(),
                method,
                dt,
                s,
                solver,
            )))
        }),
        (EngineChoice::Cpu, Precision::F64) => run_with::<f64>(cfg, &out, note, &|s| {
            Ok(Box::new(CpuEngine::with_solver(
                system.clone(),
                method,
                dt,
                s,
                solver,
            )))
        }),
    }
}

fn run_with<T: Real>(
    cfg: &RunConfig,
    out: &Path,
    note: Option<String>,
    factory: &EngineFactory<T>,
) -> Result<RunSummary> {
    let init = Initial::<T>::generate(cfg)?;
    // Everything that can fail on user input has been checked: only now touch --out (refused
    // when it holds another run, unless --force; locked until this function returns).
    let _lock = folder::prepare(out, folder::Layout::Run, cfg.force)?;
    if let Some(n) = note {
        crate::note!("phaseflow: {n}");
    }
    let mut tracker = Tracker::new(cfg, init, factory)?;
    let describe = tracker.engine.describe();
    crate::note!(
        "phaseflow: engine {describe}, precision {}{}",
        cfg.precision.name(),
        if tracker.device_energy {
            ", energy statistics reduced on the device in f64"
        } else {
            ""
        }
    );
    write_atomic(&out.join("config.toml"), cfg.to_toml(&describe).as_bytes())?;
    let rows = tracker.snapshots(out)?;
    write_csv(&out.join("stats.csv"), &rows)?;
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
    folder::write_manifest(out)?;
    Ok(RunSummary {
        engine: describe,
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

/// The initial set as `run` needs it: the points in the run's precision, generated straight
/// into it (no f64 copy), and for loop ensembles what refinement needs of the f64 set.
struct Initial<T: Real> {
    state: State<T>,
    /// A file loop's rows, the polygon that refinement interpolates new nodes on (no points
    /// otherwise: the other loops compute theirs from the ensemble's parameters).
    file_nodes: State<f64>,
    /// Bounding-box diagonal of the f64 initial set (loop ensembles; 0 otherwise).
    diagonal: f64,
}

impl<T: Real> Initial<T> {
    fn generate(cfg: &RunConfig) -> Result<Self> {
        let (spec, system) = (&cfg.ensemble, &cfg.system);
        let none = State::zeros(0, system.dof());
        if !spec.is_loop() {
            return Ok(Initial {
                state: spec.generate_as(system)?,
                file_nodes: none,
                diagonal: 0.0,
            });
        }
        let init = spec.generate(system)?;
        let diagonal = bbox_diagonal(&init);
        Ok(Initial {
            state: init.convert(),
            file_nodes: if spec.kind == EnsembleKind::File {
                init
            } else {
                none
            },
            diagonal,
        })
    }
}

/// A run in progress: the engine, and per point what the measurements need besides the state
/// (initial energy; loop parameter for loops, tangent scale with --tangent).
struct Tracker<'a, T: Real> {
    cfg: &'a RunConfig,
    factory: &'a EngineFactory<'a, T>,
    engine: Box<dyn Engine<T>>,
    /// Engine for inserted loop nodes (made on first use).
    aux: Option<Box<dyn Engine<T>>>,
    /// A file loop's unrefined initial nodes (its polygon is defined by them); else no points.
    file_nodes: State<f64>,
    /// H(z0) per point, on the host (empty when the engine keeps it: `device_energy`).
    h0: Vec<f64>,
    /// The engine reduces the energy statistics where the state lives (the GPU engine with
    /// f64, for filled ensembles without --tangent): the state is then read back only for what
    /// else needs it (angular momentum, single-point trajectories, portraits, --save-states).
    device_energy: bool,
    /// Angular momentum L(z0) per point, for systems that conserve it (else empty).
    l0: Vec<[f64; 3]>,
    /// Loop parameter s ∈ [0, 1) of every node, increasing around the loop (refined loops
    /// only, else empty).
    s: Vec<f64>,
    /// Tangent columns are stored divided by 2^log2_scale (see measure::tangent); --tangent
    /// only, else empty.
    log2_scale: Vec<f64>,
    /// Absolute refinement distance: tol × the initial loop's bounding-box diagonal.
    refine_dist: Option<f64>,
    capped_at: Option<u64>,
    /// Step at which a gap could not be refined (refinement stops there; see `refine`).
    stuck_at: Option<u64>,
    portraits: Vec<(u64, State<f64>)>,
    trajectory: Vec<(f64, Vec<f64>)>,
}

/// Distance in phase space (f64) between points i and j of `s` (primal components only).
fn gap_len<T: Real>(s: &State<T>, i: usize, j: usize) -> f64 {
    let (n, d) = (s.n, s.d);
    (0..d)
        .map(|k| {
            let a = s.q[k * n + j].to_f64() - s.q[k * n + i].to_f64();
            let b = s.p[k * n + j].to_f64() - s.p[k * n + i].to_f64();
            a * a + b * b
        })
        .sum::<f64>()
        .sqrt()
}

/// Refinement passes allowed at one snapshot before the remaining long gaps are left alone
/// (each pass at least halves the gaps it treats where the loop is smooth, so a handful do).
const MAX_REFINE_PASSES: usize = 64;

/// Bounding-box diagonal of the points' (q, p) in f64.
fn bbox_diagonal<T: Real>(s: &State<T>) -> f64 {
    let (n, d) = (s.n, s.d);
    let mut sum = 0.0;
    for arr in [&s.q, &s.p] {
        for k in 0..d {
            let v = &arr[k * n..(k + 1) * n];
            let lo = v.iter().map(|x| x.to_f64()).fold(f64::INFINITY, f64::min);
            let hi = v
                .iter()
                .map(|x| x.to_f64())
                .fold(f64::NEG_INFINITY, f64::max);
            sum += (hi - lo) * (hi - lo);
        }
    }
    sum.sqrt()
}

impl<'a, T: Real> Tracker<'a, T> {
    fn new(
        cfg: &'a RunConfig,
        init: Initial<T>,
        factory: &'a EngineFactory<'a, T>,
    ) -> Result<Self> {
        let n = init.state.n;
        let start = if cfg.tangent {
            init.state.with_tangent()
        } else {
            init.state
        };
        let mut engine = factory(start)?;
        // H(z0) of the points as the run's precision holds them (an f32 run starts from rounded
        // points): kept by the engine where it reduces the statistics itself. Loops (refinement
        // inserts nodes with their own H0) and --tangent (renormalised on the host) read the
        // state at every snapshot anyway.
        let device_energy =
            !cfg.ensemble.is_loop() && !cfg.tangent && engine.reduce_energy(true)?.is_some();
        let h0 = if device_energy {
            Vec::new()
        } else {
            energies(&cfg.system, engine.state()?)
        };
        let l0 = angular_momenta(&cfg.system, engine.state()?).unwrap_or_default();
        let refine_dist = cfg.refine.map(|r| r.tol * init.diagonal);
        Ok(Tracker {
            cfg,
            factory,
            engine,
            aux: None,
            file_nodes: init.file_nodes,
            h0,
            device_energy,
            l0,
            s: match cfg.refine {
                Some(_) => (0..n).map(|k| k as f64 / n as f64).collect(),
                None => Vec::new(),
            },
            log2_scale: if cfg.tangent {
                vec![0.0; n]
            } else {
                Vec::new()
            },
            refine_dist,
            capped_at: None,
            stuck_at: None,
            portraits: Vec::new(),
            trajectory: Vec::new(),
        })
    }

    /// Insert nodes (integrated from t = 0 to `step`) until no neighbours are farther apart
    /// than the refinement distance, the node cap is reached, or a gap proves unresolvable at
    /// the run's precision (refinement then stops for good).
    fn refine(&mut self, step: u64) -> Result<()> {
        let (Some(dist), Some(r)) = (self.refine_dist, self.cfg.refine) else {
            return Ok(());
        };
        if self.stuck_at.is_some() {
            return Ok(());
        }
        for _pass in 0..MAX_REFINE_PASSES {
            let state = self.engine.state()?;
            let (n, d) = (state.n, state.d);
            let mut gaps: Vec<(usize, f64)> = (0..n)
                .filter_map(|i| {
                    let len = gap_len(state, i, (i + 1) % n);
                    (len.is_finite() && len > dist).then_some((i, len))
                })
                .collect();
            if gaps.is_empty() {
                return Ok(());
            }
            // Nodes per gap: enough to bring it under half the distance if the loop is locally
            // straight (later passes catch the rest), within the node cap. Half, not just under:
            // a loop that keeps stretching then needs a new pass only when its gaps have doubled,
            // so passes come at geometrically spaced times instead of at every snapshot (each
            // pass integrates its new nodes from t = 0, the cost that dominates long runs).
            let mut counts: Vec<usize> = gaps
                .iter()
                .map(|&(_, len)| ((2.0 * len / dist).ceil() as usize).clamp(2, 129) - 1)
                .collect();
            let room = r.max_nodes.saturating_sub(n);
            if counts.iter().sum::<usize>() > room {
                if self.capped_at.is_none() {
                    crate::note!(
                        "phaseflow: warning: loop refinement reached --max-nodes {} at step {step}; the loop is under-resolved from here on (raise --max-nodes or --refine-tol)",
                        r.max_nodes
                    );
                    self.capped_at = Some(step);
                }
                // One node each in the longest gaps that still fit.
                gaps.sort_by(|a, b| b.1.total_cmp(&a.1));
                gaps.truncate(room);
                gaps.sort_by_key(|g| g.0);
                counts = vec![1; gaps.len()];
                if gaps.is_empty() {
                    return Ok(());
                }
            }
            // New nodes: parameters evenly between their neighbours', states exact at t = 0.
            let new_s: Vec<f64> = gaps
                .iter()
                .zip(&counts)
                .flat_map(|(&(i, _), &k)| {
                    let next = if i + 1 < n {
                        self.s[i + 1]
                    } else {
                        1.0 + self.s[0]
                    };
                    let si = self.s[i];
                    (1..=k).map(move |j| {
                        let s = si + (next - si) * j as f64 / (k + 1) as f64;
                        if s >= 1.0 {
                            s - 1.0
                        } else {
                            s
                        }
                    })
                })
                .collect();
            let rows = new_s
                .iter()
                .map(|&s| {
                    self.cfg
                        .ensemble
                        .loop_point(&self.cfg.system, s, &self.file_nodes)
                })
                .collect::<Result<Vec<_>>>()?;
            let fresh = State::<f64>::from_rows(&rows, d).convert::<T>();
            let fresh_h0 = energies(&self.cfg.system, &fresh);
            let fresh_l0 = angular_momenta(&self.cfg.system, &fresh).unwrap_or_default();
            let fresh = if self.cfg.tangent {
                fresh.with_tangent()
            } else {
                fresh
            };
            if self.aux.is_none() {
                let empty = State::<T>::zeros(0, d);
                let empty = if self.cfg.tangent {
                    empty.with_tangent()
                } else {
                    empty
                };
                self.aux = Some((self.factory)(empty)?);
            }
            let aux = self.aux.as_mut().unwrap();
            aux.set_state(fresh)?;
            let evals = self.cfg.evals_per_step();
            advance_with_progress(
                aux.as_mut(),
                step,
                rows.len(),
                evals,
                &mut Progress::hidden(),
            )?;
            let moved = aux.state()?.clone();
            // Interleave: a gap's new nodes go right after the node that starts it.
            let mut from_old = Vec::with_capacity(n + rows.len());
            let (mut s2, mut h2, mut l2) = (Vec::new(), Vec::new(), Vec::new());
            let mut am2 = Vec::new();
            // Where each treated gap's chain of nodes starts in the new order, its new node
            // count and its length before.
            let mut chains = Vec::with_capacity(gaps.len());
            let mut g = gaps.iter().zip(&counts).peekable();
            let mut fresh_i = 0;
            for i in 0..n {
                if let Some((&(_, len), &k)) = g.peek().filter(|x| x.0 .0 == i) {
                    chains.push((s2.len(), k, len));
                }
                from_old.push(true);
                s2.push(self.s[i]);
                h2.push(self.h0[i]);
                am2.extend(self.l0.get(i));
                l2.extend(self.log2_scale.get(i));
                if let Some((_, &k)) = g.next_if(|x| x.0 .0 == i) {
                    for _ in 0..k {
                        from_old.push(false);
                        s2.push(new_s[fresh_i]);
                        h2.push(fresh_h0[fresh_i]);
                        am2.extend(fresh_l0.get(fresh_i));
                        if self.cfg.tangent {
                            l2.push(0.0);
                        }
                        fresh_i += 1;
                    }
                }
            }
            let merged = State::merge(self.engine.state()?, &moved, &from_old);
            // A gap that its new nodes did not shorten at all cannot be refined at this
            // precision: the nodes inserted into it coincide with its ends after evolving. In
            // f32 this is what rounding does to a long run: the points' energies random-walk,
            // their phases spread until neighbours pass each other and merge, and the evolved
            // loop is no longer a smooth curve that more nodes would resolve (inserting into it
            // only grows the node count). Refinement stops for the rest of the run, and says so.
            let m = merged.n;
            // (A new node off the chord, as at a fold's tip, may lengthen a gap; what marks a
            // merge is a new node that coincides with a neighbour while the gap stays as long.)
            let stuck = chains.iter().any(|&(start, k, len)| {
                let sub: Vec<f64> = (start..=start + k)
                    .map(|a| gap_len(&merged, a % m, (a + 1) % m))
                    .collect();
                sub.contains(&0.0) && sub.iter().any(|&g| g >= len)
            });
            self.engine.set_state(merged)?;
            (self.s, self.h0, self.log2_scale, self.l0) = (s2, h2, l2, am2);
            if stuck {
                crate::note!(
                    "phaseflow: warning: at step {step} a loop gap could not be refined: the nodes inserted into it coincide with its end at {} precision (neighbouring nodes have merged); refinement stops and the loop area from here on is under-resolved (use --precision f64)",
                    T::NAME
                );
                self.stuck_at = Some(step);
                return Ok(());
            }
        }
        crate::note!(
            "phaseflow: warning: loop refinement gave up after {MAX_REFINE_PASSES} passes at step {step} with gaps still longer than the tolerance; refinement stops and the loop area from here on is under-resolved"
        );
        self.stuck_at = Some(step);
        Ok(())
    }

    /// Advance between snapshots, measuring each; optionally save states.
    fn snapshots(&mut self, out: &Path) -> Result<Vec<EnergyRow>> {
        let cfg = self.cfg;
        let is_loop = cfg.ensemble.is_loop();
        let filled_area = cfg.ensemble.filled_area(cfg.system.dof());
        let mut pb = Progress::new(cfg.steps, cfg.quiet);
        let mut rows = Vec::new();
        // area_ratio's denominator: the initial set's exact area where it is known (circle,
        // rectangle, level curve), else the step-0 polygon's (file loops).
        let exact0 = if is_loop {
            cfg.ensemble.exact_loop_area(&cfg.system)
        } else {
            None
        };
        // Circles and level curves are smooth: their area is measured with the curved
        // correction (rectangles and file loops are polygons).
        let smooth = matches!(
            cfg.ensemble.kind,
            EnsembleKind::Circle | EnsembleKind::Level
        );
        if is_loop {
            crate::note!(
                "phaseflow: area_ratio = area / {}",
                match exact0 {
                    Some(a) => format!("the exact initial area {a:.15e}"),
                    None => "the step-0 polygon's area (no exact initial area known)".into(),
                }
            );
        }
        let mut area0 = exact0;
        let mut done = 0;
        for step in cfg.snapshot_steps() {
            let n = self.engine.points().max(1);
            let evals = cfg.evals_per_step();
            advance_with_progress(self.engine.as_mut(), step - done, n, evals, &mut pb)?;
            done = step;
            self.refine(step)?;
            if cfg.tangent {
                let mut st = self.engine.state()?.clone();
                if renormalise(&mut st, &mut self.log2_scale) {
                    self.engine.set_state(st)?;
                }
            }
            let device = if self.device_energy {
                self.engine.reduce_energy(false)?
            } else {
                None
            };
            let single = self.engine.points() == 1 && !is_loop;
            let portrait = cfg.portrait_steps.contains(&step);
            let device_row = device.map(|(acc, unconverged)| {
                let points = self.engine.points() as u64;
                let mut row = row_from(&acc, points, step, step as f64 * cfg.dt);
                row.unconverged = unconverged;
                row
            });
            if let Some(row) = &device_row {
                if self.l0.is_empty() && !single && !portrait && !cfg.save_states {
                    rows.push(row.clone());
                    continue; // nothing else needs the state: no read-back
                }
            }
            let state = self.engine.state()?;
            let mut row = match device_row {
                Some(row) => row,
                None => {
                    let mut row = snapshot_stats(&cfg.system, state, &self.h0, step, cfg.dt);
                    row.unconverged = state
                        .unconverged
                        .par_chunks(1 << 16)
                        .map(|c| c.iter().filter(|&&u| u > 0).count() as u64)
                        .sum();
                    row
                }
            };
            if !self.l0.is_empty() {
                row.ang_mom_err_max = ang_mom_err_max(&cfg.system, state, &self.l0);
            }
            if is_loop {
                row.area = if smooth {
                    smooth_loop_area(state, &self.s)
                } else {
                    loop_area(state)
                };
                if step == 0 && exact0.is_none() {
                    area0 = row.area;
                }
                row.area_ratio = row.area.zip(area0).map(|(a, a0)| a / a0);
                row.loop_nodes = Some(state.n as u64);
            }
            if cfg.tangent {
                let t = tangent_stats(state, &self.log2_scale);
                row.det_mean = t.det_mean;
                row.det_min = t.det_min;
                row.det_max = t.det_max;
                row.defect_max = t.defect_max;
                row.area_from_det = filled_area.zip(t.det_mean).map(|(a, m)| a * m);
            }
            rows.push(row);
            if single {
                let (mut q, mut p) = (vec![0.0; state.d], vec![0.0; state.d]);
                state.point_f64(0, &mut q, &mut p);
                q.extend(p);
                self.trajectory.push((step as f64 * cfg.dt, q));
            }
            if portrait {
                self.portraits.push((step, state.primal_f64()));
            }
            if cfg.save_states {
                write_atomic(
                    &out.join("states").join(format!("step_{step}.npy")),
                    &npy::encode_state(state),
                )?;
            }
        }
        pb.finish();
        Ok(rows)
    }
}

/// Result of `phaseflow validate`.
#[derive(Debug, Clone)]
pub struct Validation {
    pub max_abs_dev: f64,
    pub max_rel_dev: f64,
    /// Points finite on one engine and not on the other (any is a failure).
    pub finite_mismatch: usize,
    /// Points non-finite on both engines (left out of the deviations).
    pub both_nonfinite: usize,
    /// Points finite on both engines, the fewest at any snapshot: what the deviations cover.
    pub compared: usize,
    pub gpu: String,
}

impl Validation {
    /// Pass when some point was compared, the deviation is within `tolerance` and no point is
    /// finite on one engine only.
    pub fn passes(&self, tolerance: f64) -> bool {
        self.failure(tolerance).is_none()
    }

    /// Why the comparison fails, for the user; `None` when it passes.
    pub fn failure(&self, tolerance: f64) -> Option<String> {
        if self.compared == 0 {
            Some(format!(
                "nothing was compared: no point is finite on both engines ({} non-finite on both, {} on one only); use a smaller --dt, fewer --steps or an ensemble that stays finite",
                self.both_nonfinite, self.finite_mismatch
            ))
        } else if !(self.max_rel_dev.is_finite()
            && self.max_rel_dev <= tolerance
            && self.finite_mismatch == 0)
        {
            Some(format!(
                "GPU and CPU disagree beyond the tolerance (max_rel_dev {:.3e} > {tolerance:e}, or points finite on one engine only)",
                self.max_rel_dev
            ))
        } else {
            None
        }
    }
}

/// Compare two states component by component. Relative deviation: |g − c| divided by the
/// RMS magnitude of the CPU state's finite components (so components near zero do not blow it up).
pub fn compare_states<T: Real>(gpu: &State<T>, cpu: &State<T>) -> (f64, f64, usize, usize) {
    let (n, d) = (cpu.n, cpu.d);
    let (mut max_abs, mut sum_sq, mut count) = (0.0f64, 0.0f64, 0usize);
    let (mut mismatch, mut both_bad) = (0, 0);
    for i in 0..n {
        let finite =
            |s: &State<T>| (0..d).all(|k| s.q[k * n + i].is_finite() && s.p[k * n + i].is_finite());
        match (finite(gpu), finite(cpu)) {
            (true, true) => {
                for k in 0..d {
                    for (g, c) in [
                        (gpu.q[k * n + i], cpu.q[k * n + i]),
                        (gpu.p[k * n + i], cpu.p[k * n + i]),
                    ] {
                        let (g, c) = (g.to_f64(), c.to_f64());
                        max_abs = max_abs.max((g - c).abs());
                        sum_sq += c * c;
                        count += 1;
                    }
                }
            }
            (false, false) => both_bad += 1,
            _ => mismatch += 1,
        }
    }
    let rms = if count > 0 {
        (sum_sq / count as f64).sqrt()
    } else {
        0.0
    };
    let rel = if rms > 0.0 { max_abs / rms } else { max_abs };
    (max_abs, rel, mismatch, both_bad)
}

/// `phaseflow validate`: same ensemble on the GPU and the CPU engine at f32, compared at every snapshot.
pub fn validate(cfg: &RunConfig) -> Result<Validation> {
    if cfg.precision == Precision::F64 {
        return Err(input_err!(
            "validate compares at f32 (the GPU's precision): drop --precision f64"
        ));
    }
    check_memory(cfg.ensemble.points, cfg.system.dof(), 4)?;
    let init = cfg.ensemble.generate(&cfg.system)?;
    let mut gpu_engine = GpuEngine::with_options(
        &cfg.system,
        cfg.method,
        cfg.dt,
        init.convert(),
        usize::MAX,
        cfg.solver,
    )?;
    let mut cpu_engine = CpuEngine::<f32>::with_solver(
        cfg.system.clone(),
        cfg.method,
        cfg.dt,
        init.convert(),
        cfg.solver,
    );
    let mut pb = Progress::new(cfg.steps, cfg.quiet);
    let mut v = Validation {
        max_abs_dev: 0.0,
        max_rel_dev: 0.0,
        finite_mismatch: 0,
        both_nonfinite: 0,
        compared: 0,
        gpu: gpu_engine.describe(),
    };
    let mut done = 0;
    let n = cfg.ensemble.points;
    let evals = cfg.evals_per_step();
    let mut compared: Option<usize> = None;
    for step in cfg.snapshot_steps() {
        let hidden = &mut Progress::hidden();
        advance_with_progress(&mut gpu_engine, step - done, n, evals, hidden)?;
        advance_with_progress(&mut cpu_engine, step - done, n, evals, &mut pb)?;
        done = step;
        let (a, r, m, b) = compare_states(gpu_engine.state()?, cpu_engine.state()?);
        v.max_abs_dev = v.max_abs_dev.max(a);
        v.max_rel_dev = v.max_rel_dev.max(r);
        v.finite_mismatch = v.finite_mismatch.max(m);
        v.both_nonfinite = v.both_nonfinite.max(b);
        let finite_on_both = n.saturating_sub(m + b);
        compared = Some(compared.map_or(finite_on_both, |c| c.min(finite_on_both)));
    }
    pb.finish();
    v.compared = compared.unwrap_or(0);
    Ok(v)
}

/// One row of the benchmark table / CSV.
#[derive(Debug, Clone, Serialize)]
pub struct BenchRow {
    pub backend: String,
    pub device: String,
    pub precision: String,
    pub points: usize,
    pub steps: u64,
    /// The fastest of the rounds (`--rounds`).
    pub seconds: f64,
    pub point_steps_per_s: f64,
    /// point_steps_per_s ÷ the reference loop's at the same precision, timed in the same run
    /// (empty where the system/method has no reference loop, and for the reference itself).
    pub ratio_to_reference: Option<f64>,
}

/// What `bench` measures, besides the system and method.
#[derive(Debug, Clone, Copy)]
pub struct BenchOptions {
    pub points: usize,
    pub steps: u64,
    pub dt: f64,
    pub seed: u64,
    pub use_gpu: bool,
    /// Timed rounds per engine, interleaved; each row keeps its fastest round.
    pub rounds: u32,
}

pub struct BenchReport {
    pub rows: Vec<BenchRow>,
    /// GPU f32 against CPU f32 at the end: (max_abs_dev, max_rel_dev), when the GPU ran.
    pub gpu_vs_cpu: Option<(f64, f64)>,
    pub gpu_error: Option<String>,
    /// The reference loop against the CPU engine at f64 (max_abs_dev, max_rel_dev): the same
    /// method up to rounding (libm's sine is not `sin_poly`).
    pub reference_vs_cpu: Option<(f64, f64)>,
}

impl BenchReport {
    /// The CPU engine rows whose ratio to the reference loop is below `floor`.
    pub fn below_ratio(&self, floor: f64) -> Vec<&BenchRow> {
        self.rows
            .iter()
            .filter(|r| r.backend == "cpu" && r.ratio_to_reference.is_some_and(|x| x < floor))
            .collect()
    }
}

/// Seconds for `steps` steps from `init` (the engine is reset to it first); timed: the advance
/// and the final read of the state.
fn timed<T: Real>(engine: &mut dyn Engine<T>, init: &State<T>, steps: u64) -> Result<f64> {
    engine.set_state(init.clone())?;
    let t0 = Instant::now();
    engine.advance(steps)?;
    engine.state()?;
    Ok(t0.elapsed().as_secs_f64())
}

/// An engine timed in `bench`, with its best time so far.
struct Timed<'a, T: Real> {
    backend: &'static str,
    engine: Box<dyn Engine<T> + 'a>,
    best: f64,
}

impl<'a, T: Real> Timed<'a, T> {
    fn new(backend: &'static str, engine: Box<dyn Engine<T> + 'a>) -> Self {
        Timed {
            backend,
            engine,
            best: f64::INFINITY,
        }
    }
}

/// What `bench_precision` measured: the rows (best round each) and the final states.
struct PrecisionBench<T> {
    rows: Vec<BenchRow>,
    reference: Option<State<T>>,
    cpu: State<T>,
}

/// Time the reference loop (when there is one) and the CPU engine at precision T, `rounds`
/// times interleaved.
fn bench_precision<T: Real>(
    system: &System,
    method: Method,
    init: &State<f64>,
    o: &BenchOptions,
) -> Result<PrecisionBench<T>> {
    let start: State<T> = init.convert();
    let mut engines = Vec::new();
    if let Some(r) = ReferenceEngine::new(system, method, o.dt, start.clone()) {
        engines.push(Timed::new("reference", Box::new(r)));
    }
    engines.push(Timed::new(
        "cpu",
        Box::new(CpuEngine::new(system.clone(), method, o.dt, start.clone())),
    ));
    for _ in 0..o.rounds {
        for e in engines.iter_mut() {
            e.best = e.best.min(timed(e.engine.as_mut(), &start, o.steps)?);
        }
    }
    let work = o.points as f64 * o.steps as f64;
    let reference = engines
        .iter()
        .find(|e| e.backend == "reference")
        .map(|e| work / e.best);
    let mut rows = Vec::new();
    let mut states = Vec::new();
    for mut e in engines {
        let rate = work / e.best;
        rows.push(BenchRow {
            backend: e.backend.into(),
            device: e.engine.describe(),
            precision: T::NAME.into(),
            points: o.points,
            steps: o.steps,
            seconds: e.best,
            point_steps_per_s: rate,
            ratio_to_reference: reference
                .filter(|_| e.backend != "reference")
                .map(|r| rate / r),
        });
        states.push(e.engine.state()?.clone());
    }
    let cpu = states.pop().expect("the CPU engine always runs");
    Ok(PrecisionBench {
        rows,
        reference: states.pop(),
        cpu,
    })
}

/// `phaseflow bench`: the reference loop (a plain single-threaded Rust loop of the same step,
/// where there is one: `engine::reference`) and the CPU engine at f64 and f32, then GPU f32
/// (when an adapter exists), on the same ensemble, each `rounds` times. Timed: the advance of
/// all steps plus the final read-back; excluded: ensemble generation, shader compilation and
/// the initial upload.
pub fn bench(system: &System, method: Method, o: &BenchOptions) -> Result<BenchReport> {
    if o.points == 0 {
        return Err(input_err!("--points must be at least 1, got 0"));
    }
    if o.steps == 0 {
        return Err(input_err!("--steps must be at least 1, got 0"));
    }
    if o.rounds == 0 {
        return Err(input_err!("--rounds must be at least 1, got 0"));
    }
    if !(o.dt.is_finite() && o.dt > 0.0) {
        return Err(input_err!(
            "--dt must be a positive finite number, got {}",
            o.dt
        ));
    }
    method.check_system(system)?;
    check_memory(o.points, system.dof(), 8)?;
    let spec = EnsembleSpec::disk(o.points, 0.3, o.seed).resolve(system)?;
    let init = spec.generate(system)?;
    let b64 = bench_precision::<f64>(system, method, &init, o)?;
    let reference_vs_cpu = b64.reference.as_ref().map(|r| {
        let (a, rel, _, _) = compare_states(r, &b64.cpu);
        (a, rel)
    });
    let mut rows = b64.rows;
    drop((b64.reference, b64.cpu)); // before the f32 engines take their memory
    let b32 = bench_precision::<f32>(system, method, &init, o)?;
    let (rows32, cpu32) = (b32.rows, b32.cpu);
    let reference32 = rows32
        .iter()
        .find(|r| r.backend == "reference")
        .map(|r| r.point_steps_per_s);
    rows.extend(rows32);
    let (mut gpu_vs_cpu, mut gpu_error) = (None, None);
    if o.use_gpu {
        let start: State<f32> = init.convert();
        match GpuEngine::new(system, method, o.dt, start.clone()) {
            Ok(g) => {
                let mut g = Timed::new("gpu", Box::new(g));
                for _ in 0..o.rounds {
                    g.best = g.best.min(timed(g.engine.as_mut(), &start, o.steps)?);
                }
                let rate = o.points as f64 * o.steps as f64 / g.best;
                rows.push(BenchRow {
                    backend: "gpu".into(),
                    device: g.engine.describe(),
                    precision: "f32".into(),
                    points: o.points,
                    steps: o.steps,
                    seconds: g.best,
                    point_steps_per_s: rate,
                    ratio_to_reference: reference32.map(|r| rate / r),
                });
                let (a, r, _, _) = compare_states(g.engine.state()?, &cpu32);
                gpu_vs_cpu = Some((a, r));
            }
            Err(e) => gpu_error = Some(e.to_string()),
        }
    }
    Ok(BenchReport {
        rows,
        gpu_vs_cpu,
        gpu_error,
        reference_vs_cpu,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(extra: &[(&str, &str)], tangent: bool, save_states: bool) -> RunConfig {
        let mut args = vec!["phaseflow", "run", "--method", "verlet", "--dt", "0.1"];
        args.extend(["--steps", "10", "--out", "unused"]);
        for (k, v) in extra {
            args.extend([*k, *v]);
        }
        if tangent {
            args.push("--tangent");
        }
        if save_states {
            args.push("--save-states");
        }
        let cli = <crate::cli::Cli as clap::Parser>::try_parse_from(args).unwrap();
        let crate::cli::Command::Run(a) = cli.command else {
            panic!("not a run")
        };
        RunConfig::from_args(&a).unwrap()
    }

    /// The per-point estimate: the measured figure for an f32 d = 1 run (20 B, the ≤ 28 B
    /// target), and what precision, d, angular momentum, --tangent, loops, --save-states and the
    /// GPU engine add.
    #[test]
    fn memory_estimate_per_point() {
        let pend = [("--system", "pendulum"), ("--ensemble", "disk")];
        let f32_run = run_bytes_per_point(&config(&pend, false, false), false);
        assert_eq!(f32_run, 8 + 4 + 8);
        let f64_pend = [pend[0], pend[1], ("--precision", "f64")];
        assert_eq!(
            run_bytes_per_point(&config(&f64_pend, false, false), false),
            16 + 4 + 8
        );
        // --save-states adds the encoded .npy; the GPU engine its upload and staging copies
        assert_eq!(
            run_bytes_per_point(&config(&pend, false, true), false),
            20 + 8
        );
        assert_eq!(
            run_bytes_per_point(&config(&pend, false, false), true),
            20 + 24
        );
        // Kepler: d = 2 and L0
        let kepler = [("--system", "kepler"), ("--ensemble", "disk")];
        assert_eq!(
            run_bytes_per_point(&config(&kepler, false, false), false),
            16 + 4 + 8 + 24
        );
        // --tangent (d = 1: 3 components): state, log2_scale, the plain start, renormalise's copy
        assert_eq!(
            run_bytes_per_point(&config(&pend, true, false), false),
            28 + 8 + 8 + 28 + 8
        );
        // a loop: s, the f64 initial set, a refinement pass's merged state and vectors
        let circle = [("--system", "pendulum"), ("--ensemble", "circle")];
        assert_eq!(
            run_bytes_per_point(&config(&circle, false, false), false),
            20 + 8 + 16 + 12 + 24
        );
        // a file ensemble: reading it peaks at its f64 values twice over
        let mut cfg = config(&pend, false, false);
        cfg.ensemble.kind = EnsembleKind::File;
        assert_eq!(run_bytes_per_point(&cfg, false), 36);
        // refusal names the figure and the fix; a small ensemble passes
        let err = check_host_memory("--points", usize::MAX / 64, f32_run)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("20 bytes per point") && err.contains("use fewer --points (at most about"),
            "{err}"
        );
        assert!(check_host_memory("--points", 1000, f32_run).is_ok());
    }

    #[test]
    fn validation_verdict() {
        let v = |rel: f64, mismatch: usize| Validation {
            max_abs_dev: rel,
            max_rel_dev: rel,
            finite_mismatch: mismatch,
            both_nonfinite: 0,
            compared: 10,
            gpu: String::new(),
        };
        assert!(v(1e-6, 0).passes(1e-3));
        assert!(!v(1e-2, 0).passes(1e-3));
        assert!(!v(1e-6, 1).passes(1e-3));
        assert!(!v(f64::NAN, 0).passes(1e-3));
        // Issue 15, fault 10: with no point finite on both engines the deviations are 0 over
        // nothing; that is a failure with its reason, not a pass.
        let nothing = Validation {
            compared: 0,
            both_nonfinite: 10,
            ..v(0.0, 0)
        };
        assert!(!nothing.passes(1e-3));
        let why = nothing.failure(1e-3).unwrap();
        assert!(why.contains("nothing was compared"), "{why}");
    }

    #[test]
    fn compare_counts_finiteness_mismatches() {
        let a = State {
            n: 2,
            d: 1,
            nt: 0,
            q: vec![1.0f32, f32::NAN],
            p: vec![0.0, 0.0],
            unconverged: vec![0; 2],
        };
        let b = State {
            n: 2,
            d: 1,
            nt: 0,
            q: vec![1.5f32, 2.0],
            p: vec![0.0, 0.0],
            unconverged: vec![0; 2],
        };
        let (abs, _, mismatch, both) = compare_states(&a, &b);
        assert_eq!((abs, mismatch, both), (0.5, 1, 0));
    }

    /// A stand-in engine whose every advance snaps each point to the nearest of 8 directions
    /// on the unit circle: it merges neighbours, as f32 rounding does to a sheared loop.
    struct Snap8(State<f64>);

    impl Engine<f64> for Snap8 {
        fn describe(&self) -> String {
            "snap8".into()
        }
        fn advance(&mut self, _steps: u64) -> Result<()> {
            let step = std::f64::consts::FRAC_PI_4;
            for i in 0..self.0.n {
                let a = (self.0.p[i].atan2(self.0.q[i]) / step).round() * step;
                (self.0.q[i], self.0.p[i]) = (a.cos(), a.sin());
            }
            Ok(())
        }
        fn state(&mut self) -> Result<&State<f64>> {
            Ok(&self.0)
        }
        fn points(&self) -> usize {
            self.0.n
        }
        fn set_state(&mut self, state: State<f64>) -> Result<()> {
            self.0 = state;
            Ok(())
        }
    }

    #[test]
    fn refinement_stops_on_gaps_it_cannot_shorten() {
        let file = crate::config::RunFile {
            system: Some("oscillator".into()),
            method: Some("verlet".into()),
            dt: Some(0.1),
            steps: Some(2),
            snapshot_every: Some(1),
            ensemble: Some(crate::config::EnsembleFile {
                kind: Some("circle".into()),
                points: Some(64),
                center: Some(vec![0.0, 0.0]),
                radius: Some(1.0),
                ..Default::default()
            }),
            ..Default::default()
        };
        let cfg = RunConfig::resolve(file).unwrap();
        let init = Initial::generate(&cfg).unwrap();
        let factory = |s: State<f64>| -> Result<Box<dyn Engine<f64>>> { Ok(Box::new(Snap8(s))) };
        let mut tracker = Tracker::new(&cfg, init, &factory).unwrap();
        // Step 0: the circle is refined to the tolerance (no gap is stuck).
        tracker.refine(0).unwrap();
        let refined = tracker.engine.state().unwrap().n;
        assert!(refined > 64 * 10, "{refined}");
        assert_eq!(tracker.stuck_at, None);
        // After one advance every node sits on one of 8 points: 8 gaps of a chord 0.77 each,
        // which inserted nodes (snapped too) cannot shorten. Refinement must give up after
        // one pass instead of looping for ever.
        tracker.engine.advance(1).unwrap();
        tracker.refine(1).unwrap();
        assert_eq!(tracker.stuck_at, Some(1));
        let n = tracker.engine.state().unwrap().n;
        assert!(n <= refined + 8 * 128, "{n} nodes after the stuck pass");
        // Later snapshots refine no more.
        tracker.refine(2).unwrap();
        assert_eq!(tracker.engine.state().unwrap().n, n);
    }
}
