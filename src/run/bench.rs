//! `phaseflow bench`: the reference loop, the CPU engine at f64 and f32 and the GPU engine at
//! f32 timed on one seeded disk ensemble, each row with its ratio to the reference loop.

use std::time::Instant;

use serde::Serialize;

use crate::config::BenchConfig;
use crate::engine::{CpuEngine, Engine, GpuEngine, Integrator, ReferenceEngine};
use crate::ensemble::EnsembleRequest;
use crate::error::Result;
use crate::float::Real;
use crate::state::State;

use super::validate::{compare_states, Deviation};
use crate::memory::check_memory;

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

/// What `bench` measured: the table, and how far the engines' final states lie apart.
pub struct BenchReport {
    pub rows: Vec<BenchRow>,
    /// GPU f32 against CPU f32 at the end, when the GPU ran.
    pub gpu_vs_cpu: Option<Deviation>,
    /// Why the GPU did not run (no adapter, …), when it was asked for.
    pub gpu_error: Option<String>,
    /// The reference loop against the CPU engine at f64: the same method up to rounding
    /// (libm's sine is not `sin_poly`).
    pub reference_vs_cpu: Option<Deviation>,
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
fn bench_precision<T: Real>(init: &State<f64>, o: &BenchConfig) -> Result<PrecisionBench<T>> {
    let k = Integrator::with_default_solver::<T>(o.system.clone(), o.method, o.dt);
    let start: State<T> = init.convert();
    let mut engines = Vec::new();
    if let Some(r) = ReferenceEngine::new(&k, start.clone()) {
        engines.push(Timed::new("reference", Box::new(r)));
    }
    engines.push(Timed::new(
        "cpu",
        Box::new(CpuEngine::new(&k, start.clone())),
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
pub fn bench(o: &BenchConfig) -> Result<BenchReport> {
    let system = &o.system;
    check_memory(o.points, system.dof(), 8)?;
    let spec = EnsembleRequest::disk(o.points, 0.3, o.seed).resolve(system)?;
    let init = spec.generate(system)?;
    let b64 = bench_precision::<f64>(&init, o)?;
    let reference_vs_cpu = b64.reference.as_ref().map(|r| compare_states(r, &b64.cpu));
    let mut rows = b64.rows;
    drop((b64.reference, b64.cpu)); // before the f32 engines take their memory
    let b32 = bench_precision::<f32>(&init, o)?;
    let (rows32, cpu32) = (b32.rows, b32.cpu);
    let reference32 = rows32
        .iter()
        .find(|r| r.backend == "reference")
        .map(|r| r.point_steps_per_s);
    rows.extend(rows32);
    let (mut gpu_vs_cpu, mut gpu_error) = (None, None);
    if o.use_gpu {
        let start: State<f32> = init.convert();
        let k = Integrator::with_default_solver::<f32>(system.clone(), o.method, o.dt);
        match GpuEngine::new(&k, start.clone()) {
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
                gpu_vs_cpu = Some(compare_states(g.engine.state()?, &cpu32));
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
