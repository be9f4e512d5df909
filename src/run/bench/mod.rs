//! `phaseflow bench`: at f64 and then at f32, the reference loop, the CPU engine and the GPU
//! engine (f64 where the adapter has it), each also compensated with `--compensated`, timed on
//! one seeded disk ensemble, each row with its ratio to the reference loop of its precision;
//! with `--against SYSTEM` or `--against-method M` the same engines of a second system or
//! method too, in the same rounds, each main row with its ratio to the second's.

use std::time::Instant;

use serde::Serialize;

use crate::config::BenchConfig;
use crate::engine::{CpuEngine, Engine, GpuEngine, Integrator, ReferenceEngine};
use crate::ensemble::EnsembleRequest;
use crate::error::{Error, Result};
use crate::float::Real;
use crate::method::Method;
use crate::state::State;
use crate::system::System;

use super::validate::{compare_states, Deviation};
use crate::memory::check_memory;

pub mod peer;
mod table;

use peer::CPeer;

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
    /// Compensated summation (`--compensated`; the reference loop is always plain).
    pub compensated: bool,
    /// The system timed (with `--against`, the rows of both systems).
    pub system: String,
    /// With `--against` or `--against-method`: point_steps_per_s ÷ the row of the same engine,
    /// precision and summation of the system or method compared with (on the main rows).
    pub ratio_to_against: Option<f64>,
    /// The method timed (with `--against-method`, the rows of both methods).
    pub method: String,
    /// With `--peers`: point_steps_per_s ÷ the C peer's at the same precision, timed in the
    /// same rounds (empty for the peer's own row and without `--peers`).
    pub ratio_to_peer: Option<f64>,
}

/// What `bench` measured: the table, and how far the engines' final states lie apart.
pub struct BenchReport {
    pub rows: Vec<BenchRow>,
    /// Each GPU row's final state against the CPU engine's of the same precision and
    /// summation: ("gpu f32 vs cpu f32", its deviation).
    pub gpu_vs_cpu: Vec<(String, Deviation)>,
    /// Why the GPU did not run (no adapter, no f64, …), when it was asked for: the variant
    /// and precision ("plain f64"), and the error.
    pub gpu_error: Vec<(String, Error)>,
    /// The reference loop against the CPU engine at f64: the same method up to rounding
    /// (libm's sine is not `sin_poly`); with `--against-method`, the method's name too.
    pub reference_vs_cpu: Option<(Option<String>, Deviation)>,
}

impl BenchReport {
    /// The plain CPU engine rows whose ratio to the reference loop is below `floor`.
    pub fn below_ratio(&self, floor: f64) -> Vec<&BenchRow> {
        self.rows
            .iter()
            .filter(|r| r.backend == "cpu" && !r.compensated)
            .filter(|r| r.ratio_to_reference.is_some_and(|x| x < floor))
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
    system: String,
    method: Method,
    /// `Variant::label`.
    label: String,
    /// Of the system or method compared with (`--against`, `--against-method`).
    against: bool,
    backend: &'static str,
    compensated: bool,
    engine: Box<dyn Engine<T> + 'a>,
    best: f64,
}

impl<'a, T: Real> Timed<'a, T> {
    fn new(
        variant: &Variant,
        backend: &'static str,
        compensated: bool,
        engine: Box<dyn Engine<T> + 'a>,
    ) -> Self {
        Timed {
            system: variant.system.name().to_string(),
            method: variant.method,
            label: variant.label.clone(),
            against: variant.against,
            backend,
            compensated,
            engine,
            best: f64::INFINITY,
        }
    }

    /// The row of this engine's best round, for `work` point-steps.
    fn row(&self, o: &BenchConfig, reference: Option<f64>) -> BenchRow {
        let rate = o.points as f64 * o.steps as f64 / self.best;
        BenchRow {
            system: self.system.clone(),
            backend: self.backend.into(),
            device: self.engine.describe(),
            precision: T::NAME.into(),
            points: o.points,
            steps: o.steps,
            seconds: self.best,
            point_steps_per_s: rate,
            ratio_to_reference: reference
                .filter(|_| self.backend != "reference")
                .map(|r| rate / r),
            compensated: self.compensated,
            ratio_to_against: None,
            method: self.method.name().into(),
            ratio_to_peer: None,
        }
    }
}

/// A system and method timed: the main one, or the one it is compared with.
struct Variant<'a> {
    system: &'a System,
    method: Method,
    against: bool,
    /// How the text names its rows: by method with `--against-method`, else by system.
    label: String,
}

impl BenchConfig {
    /// What is timed: the system and method, then the `--against` system or the
    /// `--against-method` method.
    fn variants<'a>(&'a self) -> Vec<Variant<'a>> {
        let variant = |system: &'a System, method: Method, against: bool| Variant {
            system,
            method,
            against,
            label: if self.against_method.is_some() {
                method.name().into()
            } else {
                system.name().into()
            },
        };
        let main = variant(&self.system, self.method, false);
        let against = self
            .against
            .as_ref()
            .map(|system| variant(system, self.method, true))
            .or(self
                .against_method
                .map(|method| variant(&self.system, method, true)));
        std::iter::once(main).chain(against).collect()
    }
}

/// The engines timed at precision T for `variant`: the reference loop (where there is one), the
/// CPU engine, the GPU engine (when asked and possible), each plain and, with `--compensated`,
/// compensated.
fn engines_at<T: Real>(
    o: &BenchConfig,
    variant: &Variant,
    start: &State<T>,
    gpu_error: &mut Vec<(String, Error)>,
) -> Vec<Timed<'static, T>> {
    let system = variant.system;
    let mut engines = Vec::new();
    let summations: &[bool] = if o.compensated {
        &[false, true]
    } else {
        &[false]
    };
    let integrators: Vec<(bool, Integrator)> = summations
        .iter()
        .map(|&on| {
            // `BenchConfig` checked the method against the system and the step size.
            let solver = crate::method::Solver::default_for::<T>();
            let k = Integrator::checked(system.clone(), variant.method, o.dt, solver);
            (on, k.with_compensation(on))
        })
        .collect();
    for (on, k) in integrators.iter().filter(|_| o.use_cpu) {
        if !on {
            if let Some(r) = ReferenceEngine::new(k, start.clone()) {
                engines.push(Timed::new(
                    variant,
                    "reference",
                    false,
                    Box::new(r) as Box<dyn Engine<T>>,
                ));
            }
        }
        engines.push(Timed::new(
            variant,
            "cpu",
            *on,
            Box::new(CpuEngine::new(k, start.clone())),
        ));
    }
    if !o.use_gpu {
        return engines;
    }
    for &(on, ref k) in &integrators {
        match GpuEngine::new(k, start.clone()) {
            Ok(g) => engines.push(Timed::new(variant, "gpu", on, Box::new(g))),
            Err(e) => {
                gpu_error.push((format!("{} {}", variant.label, T::NAME), e));
                break;
            }
        }
    }
    engines
}

/// Time every engine at precision T, of each variant (`BenchConfig::variants`), `rounds` times
/// interleaved; append their rows, and each GPU row's deviation from the CPU row of the same
/// variant and summation.
fn bench_at<T: Real>(
    init: &State<f64>,
    o: &BenchConfig,
    peer: Option<&CPeer>,
    report: &mut BenchReport,
) -> Result<()> {
    let start: State<T> = init.convert();
    let variants = o.variants();
    let mut engines: Vec<Timed<'static, T>> = variants
        .iter()
        .flat_map(|v| engines_at::<T>(o, v, &start, &mut report.gpu_error))
        .collect();
    let mut peer_best = f64::INFINITY;
    for _ in 0..o.rounds {
        for e in engines.iter_mut() {
            e.best = e.best.min(timed(e.engine.as_mut(), &start, o.steps)?);
        }
        if let Some(c) = peer {
            peer_best = peer_best.min(c.time(T::NAME == "f64", o.points, o.steps)?);
        }
    }
    let work = o.points as f64 * o.steps as f64;
    let reference = |against: bool| {
        engines
            .iter()
            .find(|e| e.backend == "reference" && e.against == against)
            .map(|e| work / e.best)
    };
    let mut rows: Vec<BenchRow> = engines
        .iter()
        .map(|e| e.row(o, reference(e.against)))
        .collect();
    // Each main row over the compared variant's row of the same engine and summation.
    let ratios: Vec<Option<f64>> = engines
        .iter()
        .zip(&rows)
        .map(|(e, r)| {
            let (_, x) = engines.iter().zip(&rows).find(|(a, x)| {
                !e.against && a.against && x.backend == r.backend && x.compensated == r.compensated
            })?;
            Some(r.point_steps_per_s / x.point_steps_per_s)
        })
        .collect();
    for (r, x) in rows.iter_mut().zip(ratios) {
        r.ratio_to_against = x;
    }
    if let Some(c) = peer {
        let peer_rate = work / peer_best;
        for r in rows.iter_mut() {
            r.ratio_to_peer = Some(r.point_steps_per_s / peer_rate);
        }
        rows.push(peer_row::<T>(
            o,
            c,
            peer_best,
            reference(false).or(reference(true)),
        ));
    }
    report.rows.extend(rows);
    record_deviations(&mut engines, variants.len() > 1, o, report)
}

/// Each GPU engine's final state against the CPU engine's of the same variant and summation,
/// and at f64 the reference loop's against the CPU engine's, into `report`.
fn record_deviations<T: Real>(
    engines: &mut [Timed<'static, T>],
    several: bool,
    o: &BenchConfig,
    report: &mut BenchReport,
) -> Result<()> {
    let mut states = Vec::new();
    for e in engines.iter_mut() {
        states.push((
            e.against,
            e.label.clone(),
            e.backend,
            e.compensated,
            e.engine.state()?.clone(),
        ));
    }
    let cpu = |against: bool, on: bool| {
        states
            .iter()
            .find(|s| s.0 == against && s.2 == "cpu" && s.3 == on)
            .map(|s| &s.4)
    };
    for (against, label, backend, on, s) in states.iter().filter(|s| s.2 == "gpu") {
        let prefix = if several {
            format!("{label}: ")
        } else {
            String::new()
        };
        let label = format!(
            "{prefix}{backend} {0}{1} vs cpu {0}{1}",
            T::NAME,
            if *on { " comp" } else { "" },
        );
        if let Some(c) = cpu(*against, *on) {
            report.gpu_vs_cpu.push((label, compare_states(s, c)));
        }
    }
    if T::NAME == "f64" {
        // The first variant with a reference loop (a formula system has none: then the
        // built-in system of --against).
        let reference = states.iter().find(|s| s.2 == "reference");
        if let Some(r) = reference {
            if let Some(c) = cpu(r.0, false) {
                let label = o.against_method.is_some().then(|| r.1.clone());
                report.reference_vs_cpu = Some((label, compare_states(&r.4, c)));
            }
        }
    }
    Ok(())
}

/// The C peer's row at precision T: its best of the rounds, and its ratio to the reference
/// loop of the main system (the pendulum's) where there is one.
fn peer_row<T: Real>(o: &BenchConfig, c: &CPeer, best: f64, reference: Option<f64>) -> BenchRow {
    let rate = o.points as f64 * o.steps as f64 / best;
    BenchRow {
        backend: "c-peer".into(),
        device: c.describe(),
        precision: T::NAME.into(),
        points: o.points,
        steps: o.steps,
        seconds: best,
        point_steps_per_s: rate,
        ratio_to_reference: reference.map(|r| rate / r),
        compensated: false,
        system: "pendulum".into(),
        ratio_to_against: None,
        method: "symplectic-euler-a".into(),
        ratio_to_peer: None,
    }
}

/// `phaseflow bench`: the reference loop (a plain single-threaded Rust loop of the same step,
/// where there is one: `engine::reference`), the CPU engine and the GPU engine (when an
/// adapter exists; f64 where it has f64), at f64 and then f32, on the same ensemble, each
/// `rounds` times. Timed: the advance of all steps plus the final read-back; excluded:
/// ensemble generation, shader compilation and the initial upload.
pub fn bench(o: &BenchConfig) -> Result<BenchReport> {
    // With --against, the points lie around the built-in system's default centre.
    let system = o.against.as_ref().unwrap_or(&o.system);
    check_memory(o.points, system.dof(), if o.compensated { 16 } else { 8 })?;
    let spec = EnsembleRequest::disk(o.points, 0.3, o.seed).resolve(system)?;
    let init = spec.generate(system, o.dt)?;
    let mut report = BenchReport {
        rows: Vec::new(),
        gpu_vs_cpu: Vec::new(),
        gpu_error: Vec::new(),
        reference_vs_cpu: None,
    };
    // f64 first; its engines are dropped before the f32 ones take their memory
    // Built before any timing: a missing compiler is reported at once.
    let peer = o.peers.then(CPeer::build).transpose()?;
    bench_at::<f64>(&init, o, peer.as_ref(), &mut report)?;
    bench_at::<f32>(&init, o, peer.as_ref(), &mut report)?;
    if report.rows.is_empty() {
        // --gpu-only on a machine whose GPU ran nothing: its first failure, as it was
        return Err(match report.gpu_error.into_iter().next() {
            Some((_, e)) => e,
            None => crate::error::Error::Gpu("no GPU engine ran".into()),
        });
    }
    Ok(report)
}
