//! `--backend auto` by size: how long this machine's CPU engine and GPU take for an ensemble of
//! a given size, measured once per machine and kept in a cache file.
//!
//! A GPU pays a start-up (pipelines compiled, buffers made, the state uploaded) and a fixed cost
//! per advance (dispatch, synchronisation, the read-back) that the CPU engine does not, and it
//! runs an ensemble too small to fill it at a fraction of its speed. So a small ensemble, or a
//! short run, finishes sooner on the CPU engine, the usual first disappointment with GPU
//! ensemble tools. The calibration times both engines on the pendulum with Verlet at a few
//! ensemble sizes (`SIZES`), each at two run lengths, and keeps per size and engine: the
//! start-up, the fixed seconds per advance and the seconds per step. A run's time on each
//! engine is then estimated from those (interpolated between sizes) with its own number of
//! points, steps, advances (one per snapshot) and work per point-step relative to the
//! pendulum's (`relative_work`); `--backend auto` takes the engine estimated faster and says
//! so, with both estimates, on stderr.
//!
//! The cache (`calibration.toml` in `$PHASEFLOW_CACHE_DIR`, else `$XDG_CACHE_HOME/phaseflow`,
//! else `~/.cache/phaseflow`) holds one entry per adapter, driver, CPU thread count and
//! phaseflow version: any of them changed, the machine is measured again.

use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::config::RunConfig;
use crate::engine::{CpuEngine, Engine, GpuEngine, Integrator};
use crate::ensemble::EnsembleRequest;
use crate::error::{Error, Result};
use crate::float::Real;
use crate::gpu::GpuContext;
use crate::method::{Method, Solver};
use crate::state::State;
use crate::system::System;

/// Where the cache file lives, when set (else the XDG cache folder).
pub const CACHE_DIR_VAR: &str = "PHASEFLOW_CACHE_DIR";
const FILE_NAME: &str = "calibration.toml";

/// The ensemble sizes timed: from a few thousand points (a GPU mostly idle) to half a million
/// (most GPUs full); beyond the largest a run's time grows in proportion to its points.
pub const SIZES: [usize; 4] = [1 << 10, 1 << 13, 1 << 16, 1 << 19];
/// The two run lengths timed at each size: their difference gives the seconds per step, the
/// rest of the shorter one the fixed cost of an advance.
const SHORT: u64 = 32;
const LONG: u64 = 160;
/// Rounds per measurement; the fastest is kept (the others met a busy machine).
const ROUNDS: usize = 3;
/// The step size of the timed runs (the pendulum from a disk of radius 0.3 around its
/// default state: nothing approaches a separatrix).
const DT: f64 = 0.01;

/// One engine's times at each calibrated size (all seconds).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EngineTimes {
    /// The ensemble sizes (points), increasing.
    pub points: Vec<u64>,
    /// Making the engine for that many points: the GPU's pipelines, buffers and upload.
    pub start: Vec<f64>,
    /// The fixed cost of one advance and its read-back of the state, whatever its steps.
    pub advance: Vec<f64>,
    /// One step of the pendulum with Verlet for all the points.
    pub step: Vec<f64>,
}

impl EngineTimes {
    /// `values` (one per size) at `n` points: interpolated in log–log between sizes, the
    /// smallest size's value below it (there the cost is overhead, not points), and beyond the
    /// largest size in proportion to the points (the device is full).
    fn at(&self, values: &[f64], n: f64) -> f64 {
        let sizes: Vec<f64> = self.points.iter().map(|&p| p as f64).collect();
        let (first, last) = (sizes[0], sizes[sizes.len() - 1]);
        if n <= first {
            return values[0];
        }
        if n >= last {
            return values[values.len() - 1] * n / last;
        }
        let i = sizes.iter().rposition(|&s| s <= n).unwrap_or(0);
        let (x0, x1) = (sizes[i].ln(), sizes[i + 1].ln());
        let (y0, y1) = (values[i].max(1e-12).ln(), values[i + 1].max(1e-12).ln());
        (y0 + (y1 - y0) * (n.ln() - x0) / (x1 - x0)).exp()
    }

    /// Estimated seconds of a run of `points` points and `steps` steps in `advances`
    /// advances, each point-step `work` times the pendulum's.
    pub fn seconds(&self, points: usize, steps: u64, advances: u64, work: f64) -> f64 {
        let n = points as f64;
        self.at(&self.start, n)
            + advances as f64 * self.at(&self.advance, n)
            + steps as f64 * work * self.at(&self.step, n)
    }
}

/// Both engines' times at one precision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EnginePair {
    pub cpu: EngineTimes,
    pub gpu: EngineTimes,
}

/// One machine's calibration: which GPU and CPU it holds for, and the times.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// The phaseflow version that measured it (another version's engines may differ).
    pub phaseflow: String,
    /// The GPU's adapter name, backend and driver, as `phaseflow devices` prints them.
    pub adapter: String,
    pub backend: String,
    pub driver: String,
    /// The CPU engine's threads.
    pub threads: usize,
    /// When it was measured (seconds since 1970, UTC).
    pub measured_unix: u64,
    pub f32: EnginePair,
    /// Absent where the GPU has no f64 in shaders.
    pub f64: Option<EnginePair>,
}

/// The cache file: one calibration per machine setting.
#[derive(Debug, Default, Serialize, Deserialize)]
struct CacheFile {
    #[serde(default)]
    calibration: Vec<Calibration>,
}

/// Which machine setting a calibration holds for.
#[derive(Debug, Clone, PartialEq)]
pub struct Setting {
    pub adapter: String,
    pub backend: String,
    pub driver: String,
    pub threads: usize,
}

impl Setting {
    /// The setting of the GPU `ctx` and this process's CPU engine.
    pub fn of(ctx: &GpuContext) -> Setting {
        let info = &ctx.info;
        Setting {
            adapter: info.name.clone(),
            backend: format!("{:?}", info.backend),
            driver: format!("{} {}", info.driver, info.driver_info)
                .trim()
                .to_string(),
            threads: rayon::current_num_threads(),
        }
    }

    /// A calibration of this setting, measured by this phaseflow.
    fn matches(&self, c: &Calibration) -> bool {
        c.phaseflow == env!("CARGO_PKG_VERSION") && *self == c.setting()
    }
}

impl Calibration {
    /// The machine setting it was measured on.
    fn setting(&self) -> Setting {
        Setting {
            adapter: self.adapter.clone(),
            backend: self.backend.clone(),
            driver: self.driver.clone(),
            threads: self.threads,
        }
    }
}

/// The cache file's path (see the module's comment); None where no folder is known.
pub fn cache_path() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    let dir = var(CACHE_DIR_VAR)
        .map(PathBuf::from)
        .or_else(|| var("XDG_CACHE_HOME").map(|d| PathBuf::from(d).join("phaseflow")))
        .or_else(|| var("HOME").map(|h| PathBuf::from(h).join(".cache").join("phaseflow")))?;
    Some(dir.join(FILE_NAME))
}

/// The cache file at `path`; a file that cannot be read or parsed (another version's format, a
/// cut file) is as if absent: the machine is measured again and the file written whole.
fn read_cache(path: Option<&Path>) -> CacheFile {
    path.and_then(|p| std::fs::read_to_string(p).ok())
        .and_then(|text| toml::from_str(&text).ok())
        .unwrap_or_default()
}

/// The cached calibration for `setting`, if any.
pub fn cached(setting: &Setting) -> Option<Calibration> {
    cached_in(cache_path().as_deref(), setting)
}

fn cached_in(path: Option<&Path>, setting: &Setting) -> Option<Calibration> {
    read_cache(path)
        .calibration
        .into_iter()
        .find(|c| setting.matches(c))
}

/// Keep `c` in the cache (`cache_path`) in place of any entry of its setting; written to a
/// new file beside it and renamed, so a reader never sees half a file. Returns the path.
pub fn store(c: &Calibration) -> Result<PathBuf> {
    let path = cache_path().ok_or_else(|| {
        Error::Input(format!(
            "no folder for the calibration cache: set {CACHE_DIR_VAR} (or HOME) to a writable folder"
        ))
    })?;
    store_at(&path, c)?;
    Ok(path)
}

fn store_at(path: &Path, c: &Calibration) -> Result<()> {
    let mut file = read_cache(Some(path));
    // Entries of the same adapter, driver and threads are replaced, whatever phaseflow
    // version measured them.
    file.calibration.retain(|old| old.setting() != c.setting());
    file.calibration.push(c.clone());
    let output = |source: std::io::Error| Error::Output {
        path: path.to_path_buf(),
        source,
    };
    let text = toml::to_string(&file).map_err(|e| output(std::io::Error::other(e)))?;
    let dir = path.parent().expect("the cache path has a folder");
    std::fs::create_dir_all(dir).map_err(output)?;
    let partial = dir.join(format!("{FILE_NAME}.{}.partial", std::process::id()));
    std::fs::write(&partial, text).map_err(output)?;
    std::fs::rename(&partial, path).map_err(output)
}

/// The calibration `--backend auto` uses for `ctx`: the process's once measured, else the
/// cache's, else measured now (saying so on stderr, as it takes seconds) and kept in the cache
/// (a cache that cannot be written is said, and the figures used all the same).
pub fn for_context(ctx: &GpuContext) -> Result<Calibration> {
    static ONCE: std::sync::OnceLock<std::result::Result<Calibration, String>> =
        std::sync::OnceLock::new();
    ONCE.get_or_init(|| {
        let setting = Setting::of(ctx);
        if let Some(c) = cached(&setting) {
            return Ok(c);
        }
        crate::info!(
            "phaseflow: --backend auto: timing this machine's CPU engine and GPU ({}) once, to choose between them by ensemble size (a few seconds; `phaseflow devices` shows the result)",
            setting.adapter
        );
        let c = measure(ctx).map_err(|e| e.to_string())?;
        match store(&c) {
            Ok(path) => crate::info!("phaseflow: calibration kept in {}", path.display()),
            Err(e) => crate::warn!("phaseflow: the calibration could not be kept ({e}); it is used for this run only"),
        }
        Ok(c)
    })
    .clone()
    .map_err(Error::Gpu)
}

/// Time both engines on `ctx`'s GPU (the process's GPU context) and the CPU engine, at f32 and,
/// where the GPU has it, f64: a few seconds (2.5 s with lavapipe on 2 CPU threads).
pub fn measure(ctx: &GpuContext) -> Result<Calibration> {
    let setting = Setting::of(ctx);
    let system = System::new("pendulum", &Default::default())?;
    let k = Integrator::new(
        system.clone(),
        Method::Verlet,
        DT,
        Solver::default_for::<f64>(),
    )?;
    let mut starts = Vec::new();
    for &n in &SIZES {
        let spec = EnsembleRequest::disk(n, 0.3, 1).resolve(&system)?;
        starts.push(spec.generate(&system, DT)?);
    }
    let f32 = pair::<f32>(&k, &starts)?;
    let f64 = if ctx.f64 {
        Some(pair::<f64>(&k, &starts)?)
    } else {
        None
    };
    let measured_unix = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    Ok(Calibration {
        phaseflow: env!("CARGO_PKG_VERSION").into(),
        adapter: setting.adapter,
        backend: setting.backend,
        driver: setting.driver,
        threads: setting.threads,
        measured_unix,
        f32,
        f64,
    })
}

fn pair<T: Real>(k: &Integrator, starts: &[State<f64>]) -> Result<EnginePair> {
    let cpu = times::<T>(starts, |s| Ok(Box::new(CpuEngine::new(k, s))))?;
    let gpu = times::<T>(starts, |s| Ok(Box::new(GpuEngine::new(k, s)?)))?;
    Ok(EnginePair { cpu, gpu })
}

/// One engine's times at every size of `starts`.
fn times<T: Real>(
    starts: &[State<f64>],
    make: impl Fn(State<T>) -> Result<Box<dyn Engine<T>>>,
) -> Result<EngineTimes> {
    let mut t = EngineTimes {
        points: Vec::new(),
        start: Vec::new(),
        advance: Vec::new(),
        step: Vec::new(),
    };
    for init in starts {
        let init: State<T> = init.convert();
        // The start-up: making the engine and its first advance, where a GPU's first
        // dispatch finishes what making it began.
        let clock = Instant::now();
        let mut engine = make(init.clone())?;
        engine.advance(1)?;
        engine.state()?;
        let start = clock.elapsed().as_secs_f64();
        let (mut short, mut long) = (f64::INFINITY, f64::INFINITY);
        for _ in 0..ROUNDS {
            short = short.min(timed(engine.as_mut(), &init, SHORT)?);
            long = long.min(timed(engine.as_mut(), &init, LONG)?);
        }
        let (step, advance) = split(short, long);
        t.points.push(engine.points() as u64);
        t.start.push(start);
        t.advance.push(advance);
        t.step.push(step);
    }
    Ok(t)
}

/// Seconds per step and fixed seconds per advance from the best times of SHORT and LONG steps.
/// Where the machine's noise made the longer run no slower, the longer run's mean step stands
/// for the step and the advance costs nothing.
fn split(short: f64, long: f64) -> (f64, f64) {
    let step = (long - short) / (LONG - SHORT) as f64;
    if step > 0.0 {
        (step, (short - SHORT as f64 * step).max(0.0))
    } else {
        (long / LONG as f64, 0.0)
    }
}

fn timed<T: Real>(engine: &mut dyn Engine<T>, init: &State<T>, steps: u64) -> Result<f64> {
    engine.set_state(init.clone())?;
    engine.state()?;
    let clock = Instant::now();
    engine.advance(steps)?;
    engine.state()?;
    Ok(clock.elapsed().as_secs_f64())
}

/// A run's work per point-step relative to the calibration's (the pendulum with Verlet: one
/// force and one velocity of one degree of freedom): its method's gradient evaluations per step
/// (for implicit stages their iteration cap, an upper bound that leans toward the GPU) over
/// Verlet's two, times the values it carries per point (d, or d(1 + 2d) with its tangent map),
/// doubled for compensated summation. Both engines' steps are scaled alike, so what it moves
/// is where the GPU's start-up stops mattering.
pub fn relative_work(cfg: &RunConfig) -> f64 {
    let evals = cfg.method.evals_per_step(&cfg.system, cfg.solver).max(1) as f64;
    let values = cfg.components_per_point() as f64;
    let summation = if cfg.compensated { 2.0 } else { 1.0 };
    evals / CALIBRATED_EVALS * values * summation
}

/// The gradient evaluations of a Verlet step of the pendulum (one force, one velocity).
const CALIBRATED_EVALS: f64 = 2.0;

/// Both engines' estimated seconds for a run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    pub cpu: f64,
    pub gpu: f64,
}

impl Estimate {
    /// Whether the GPU is estimated faster, and the sentence that says so for a run of
    /// `points` points × `steps` steps on the GPU named `adapter`.
    pub fn choose(&self, points: usize, steps: u64, adapter: &str) -> (bool, String) {
        let gpu = self.gpu < self.cpu;
        let why = format!(
            ": {points} points × {steps} steps are estimated at {} on the CPU engine and {} on the GPU ({adapter}) from this machine's calibration (see `phaseflow devices`), so the {} runs them",
            seconds(self.cpu),
            seconds(self.gpu),
            if gpu { "GPU" } else { "CPU engine" }
        );
        (gpu, why)
    }
}

/// Seconds for a sentence: two significant digits.
pub fn seconds(x: f64) -> String {
    if x >= 10.0 {
        format!("{x:.0} s")
    } else if x >= 0.01 {
        format!("{:.2} s", x)
    } else {
        format!("{x:.1e} s")
    }
}

impl Calibration {
    /// The times at a precision (None: f64 on a GPU without it).
    pub fn pair(&self, f64: bool) -> Option<&EnginePair> {
        if f64 {
            self.f64.as_ref()
        } else {
            Some(&self.f32)
        }
    }

    /// Both engines' estimates for `points` points × `steps` steps in `advances` advances of
    /// `work` times the pendulum's work per point-step.
    pub fn estimate(
        &self,
        f64: bool,
        points: usize,
        steps: u64,
        advances: u64,
        work: f64,
    ) -> Option<Estimate> {
        let p = self.pair(f64)?;
        Some(Estimate {
            cpu: p.cpu.seconds(points, steps, advances, work),
            gpu: p.gpu.seconds(points, steps, advances, work),
        })
    }

    /// The smallest ensemble (a power of two up to 2³⁰) that the GPU is estimated to run
    /// faster than the CPU engine, for `steps` steps in `advances` advances of the pendulum's
    /// work; None where it never is.
    pub fn gpu_from(&self, f64: bool, steps: u64, advances: u64) -> Option<usize> {
        (6..=30).map(|k| 1usize << k).find(|&n| {
            self.estimate(f64, n, steps, advances, 1.0)
                .is_some_and(|e| e.gpu < e.cpu)
        })
    }

    /// The UTC date it was measured, as YYYY-MM-DD.
    pub fn date(&self) -> String {
        utc_date(self.measured_unix)
    }
}

/// The steps and snapshots `describe` states the GPU's break-even size for.
const SHOWN_STEPS: u64 = 1000;
const SHOWN_ADVANCES: u64 = 100;

/// What `phaseflow devices` prints about the calibrations of the adapters `list`ed: for each
/// cached one of this phaseflow and thread count, both engines' speed at the largest size, the
/// GPU's start-up and the ensemble size from which `--backend auto` takes the GPU; else how to
/// measure one.
pub fn describe(list: &[crate::gpu::AdapterSummary]) -> Vec<String> {
    let threads = rayon::current_num_threads();
    let found: Vec<Calibration> = list
        .iter()
        .filter_map(|a| {
            cached(&Setting {
                adapter: a.name.clone(),
                backend: a.backend.clone(),
                driver: a.driver.clone(),
                threads,
            })
        })
        .collect();
    if found.is_empty() {
        return vec![
            "no calibration of this machine yet: `phaseflow devices --calibrate` measures one; `--backend auto` measures it on its first run that finds a hardware GPU, and chooses between the CPU engine and the GPU by ensemble size".into(),
        ];
    }
    let place = cache_path().map_or("no cache folder".into(), |p| p.display().to_string());
    let mut lines = Vec::new();
    for c in &found {
        lines.push(format!(
            "calibration of {} with {} CPU threads (measured {}, kept in {place}; pendulum, Verlet):",
            c.adapter,
            c.threads,
            c.date()
        ));
        for (name, f64) in [("f32", false), ("f64", true)] {
            let Some(p) = c.pair(f64) else {
                lines.push(format!("  {name}: the GPU has no f64 in shaders"));
                continue;
            };
            let last = p.cpu.points.len() - 1;
            let n = p.cpu.points[last] as f64;
            let choice = match c.gpu_from(f64, SHOWN_STEPS, SHOWN_ADVANCES) {
                Some(n) => format!("takes the GPU from about {n} points"),
                None => {
                    "never takes the GPU (the CPU engine is estimated faster at every size)".into()
                }
            };
            lines.push(format!(
                "  {name}: at {n} points the CPU engine {:.2e} and the GPU {:.2e} point-steps/s; the GPU's start-up {}; for {SHOWN_STEPS} steps in {SHOWN_ADVANCES} snapshots --backend auto {choice}",
                n / p.cpu.step[last],
                n / p.gpu.step[last],
                seconds(p.gpu.start[last]),
            ));
        }
    }
    lines
}

/// YYYY-MM-DD of a time in seconds since 1970 (UTC), by the civil-from-days algorithm of
/// Howard Hinnant's "chrono-Compatible Low-Level Date Algorithms".
fn utc_date(seconds: u64) -> String {
    let z = (seconds / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

/// A machine for tests: a GPU that starts in `start` seconds and then steps 1 000 times faster
/// than its CPU engine (1e-12 against 1e-9 s per point-step at every size), no f64 figures.
#[cfg(test)]
pub(crate) fn test_machine(start: f64) -> Calibration {
    let points: Vec<u64> = SIZES.iter().map(|&n| n as u64).collect();
    let engine = |start: f64, step: f64| EngineTimes {
        points: points.clone(),
        start: vec![start; points.len()],
        advance: vec![0.0; points.len()],
        step: points.iter().map(|&n| step * n as f64).collect(),
    };
    Calibration {
        phaseflow: env!("CARGO_PKG_VERSION").into(),
        adapter: "test GPU".into(),
        backend: "Vulkan".into(),
        driver: "test driver 1".into(),
        threads: 2,
        measured_unix: 1_796_687_012,
        f32: EnginePair {
            cpu: engine(0.0, 1e-9),
            gpu: engine(start, 1e-12),
        },
        f64: None,
    }
}

#[cfg(test)]
mod tests;
