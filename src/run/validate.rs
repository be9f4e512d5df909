//! `phaseflow validate`: the GPU and CPU engines at f32 side by side over the same snapshot
//! steps, compared component by component (`compare_states`), and with `--chaos` and
//! `--section` their indicators and crossings (`validate_extras`).

use crate::config::{Precision, RunConfig};
use crate::engine::{CpuEngine, Engine, GpuEngine};
use crate::error::Result;
use crate::float::Real;
use crate::state::State;

use super::progress::{advance_with_progress, Progress};
use super::stops::with_columns;
use super::validate_extras::{
    compare_chaos, compare_frequencies, compare_sections, compare_stops, ChaosDeviation,
    FrequencyDeviation, SectionDeviation, StopDeviation,
};
use crate::memory::check_memory;

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
    /// With `--tangent`: the largest deviation of the tangent columns DΦⁿ, relative to their
    /// RMS size (measured apart from the points, whose scale differs), over the points whose
    /// columns are finite on both engines.
    pub tangent_max_rel_dev: Option<f64>,
    /// With `--chaos`: the indicators' deviation at every snapshot, the worst (`compare_chaos`).
    pub chaos: Option<ChaosDeviation>,
    /// With `--section`: the crossings' deviation at the last step (`compare_sections`).
    pub section: Option<SectionDeviation>,
    /// With `--stop-when`: the stopped points, and those whose stop (step or condition)
    /// differs between the engines, the worst snapshot's (`compare_stops`).
    pub stops: Option<StopDeviation>,
    /// With `--frequencies`: the frequencies' deviation (`compare_frequencies`).
    pub frequencies: Option<FrequencyDeviation>,
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
        } else if let Some(dev) = self
            .tangent_max_rel_dev
            .filter(|dev| !(dev.is_finite() && *dev <= tolerance))
        {
            Some(format!(
                "GPU and CPU tangent maps disagree beyond the tolerance (tangent_max_rel_dev {dev:.3e} > {tolerance:e})"
            ))
        } else {
            self.extras_failure(tolerance)
        }
    }

    /// The chaos indicators' and the crossings' share of `failure`.
    fn extras_failure(&self, tolerance: f64) -> Option<String> {
        let within = |dev: f64| dev.is_finite() && dev <= tolerance;
        if let Some(c) = self
            .chaos
            .filter(|c| c.undefined_mismatch > 0 || !within(c.max_rel))
        {
            return Some(format!(
                "GPU and CPU chaos indicators disagree beyond the tolerance (chaos_max_rel_dev {:.3e} > {tolerance:e}, or chaos_undefined_mismatch {} > 0)",
                c.max_rel, c.undefined_mismatch
            ));
        }
        if let Some(s) = self.stops.filter(|s| s.mismatch > 0) {
            return Some(format!(
                "GPU and CPU stop points at different steps or by different conditions (stop_mismatch {} > 0)",
                s.mismatch
            ));
        }
        if let Some(f) = self
            .frequencies
            .filter(|f| f.mismatch > 0 || !within(f.max_rel))
        {
            return Some(format!(
                "GPU and CPU frequencies disagree (frequency_mismatch {} > 0, or frequency_max_rel_dev {:.3e} > {tolerance:e})",
                f.mismatch, f.max_rel
            ));
        }
        self.section
            .filter(|s| s.count_mismatch > 0 || !within(s.max_rel))
            .map(|s| format!(
                "GPU and CPU section crossings disagree (section_count_mismatch {} > 0, or section_max_rel_dev {:.3e} > {tolerance:e})",
                s.count_mismatch, s.max_rel
            ))
    }

    /// The chaos indicators' and the crossings' figures, as `validate` prints them after the
    /// states' (empty without `--chaos` and `--section`).
    pub fn extras_line(&self) -> String {
        let mut s = String::new();
        if let Some(c) = self.chaos {
            s.push_str(&format!(
                " chaos_max_rel_dev={:.3e} chaos_undefined_mismatch={}",
                c.max_rel, c.undefined_mismatch
            ));
        }
        if let Some(x) = self.stops {
            s.push_str(&format!(
                " stopped={} stop_mismatch={}",
                x.stopped, x.mismatch
            ));
        }
        if let Some(x) = self.frequencies {
            s.push_str(&format!(
                " frequencies={} frequency_mismatch={} frequency_max_rel_dev={:.3e}",
                x.compared, x.mismatch, x.max_rel
            ));
        }
        if let Some(x) = self.section {
            s.push_str(&format!(
                " section_crossings={} section_count_mismatch={} section_max_rel_dev={:.3e}",
                x.crossings, x.count_mismatch, x.max_rel
            ));
        }
        s
    }
}

/// How far one state is from another (`compare_states`), over the points finite in both.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Deviation {
    /// Largest |g − c| over the components of the points finite in both states.
    pub max_abs: f64,
    /// `max_abs` divided by the RMS magnitude of the CPU state's finite components (so
    /// components near zero do not blow it up); `max_abs` itself when that RMS is 0.
    pub max_rel: f64,
    /// Points finite in one state and not in the other.
    pub finite_mismatch: usize,
    /// Points non-finite in both states (left out of the deviations).
    pub both_nonfinite: usize,
}

/// Compare two states' points component by component (`gpu` against the reference `cpu`).
pub fn compare_states<T: Real>(gpu: &State<T>, cpu: &State<T>) -> Deviation {
    compare_components(gpu, cpu, 0..cpu.d)
}

/// Compare two states' tangent columns (components d.. of each point, `State::with_tangent`),
/// or None when they carry none.
pub fn compare_tangents<T: Real>(gpu: &State<T>, cpu: &State<T>) -> Option<Deviation> {
    (cpu.nt > 0).then(|| compare_components(gpu, cpu, cpu.d..cpu.comps()))
}

/// The deviation over components `comps` of q and of p (`q[k·n + i]`, k in `comps`).
fn compare_components<T: Real>(
    gpu: &State<T>,
    cpu: &State<T>,
    comps: std::ops::Range<usize>,
) -> Deviation {
    let n = cpu.n;
    let (mut max_abs, mut sum_sq, mut count) = (0.0f64, 0.0f64, 0usize);
    let (mut mismatch, mut both_bad) = (0, 0);
    for i in 0..n {
        let finite = |s: &State<T>| {
            comps
                .clone()
                .all(|k| s.q[k * n + i].is_finite() && s.p[k * n + i].is_finite())
        };
        match (finite(gpu), finite(cpu)) {
            (true, true) => {
                for k in comps.clone() {
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
    Deviation {
        max_abs,
        max_rel: rel,
        finite_mismatch: mismatch,
        both_nonfinite: both_bad,
    }
}

/// `phaseflow validate`: the same ensemble on the GPU and the CPU engine at the run's precision
/// (and summation), compared at every snapshot (with `--reverse`, on the way back too).
pub fn validate(cfg: &RunConfig) -> Result<Validation> {
    match cfg.precision {
        Precision::F32 => validate_at::<f32>(cfg),
        Precision::F64 => validate_at::<f64>(cfg),
    }
}

fn validate_at<T: Real>(cfg: &RunConfig) -> Result<Validation> {
    // compensated, each component carries its error beside it: twice the bytes
    let per_component = size_of::<T>() * if cfg.compensated { 2 } else { 1 };
    check_memory(
        cfg.ensemble.points,
        cfg.components_per_point(),
        per_component,
    )?;
    // With --tangent both engines carry the tangent columns, compared as well.
    let init = with_columns(cfg, cfg.ensemble.generate(&cfg.system, cfg.dt)?);
    let k = cfg.integrator();
    let mut gpu_engine = GpuEngine::<T>::new(&k, init.convert())?;
    let mut cpu_engine = CpuEngine::<T>::new(&k, init.convert());
    let mut pb = Progress::new(cfg.total_steps());
    let mut v = Validation {
        max_abs_dev: 0.0,
        max_rel_dev: 0.0,
        finite_mismatch: 0,
        both_nonfinite: 0,
        compared: 0,
        tangent_max_rel_dev: None,
        chaos: None,
        section: None,
        stops: None,
        frequencies: None,
        gpu: gpu_engine.describe(),
    };
    let mut done = 0;
    let n = cfg.ensemble.points;
    let evals = cfg.evals_per_step();
    let mut compared: Option<usize> = None;
    for step in cfg.snapshot_steps() {
        let hidden = &mut Progress::hidden();
        advance_with_progress(&mut gpu_engine, step - done, n, evals, hidden, &mut || {
            false
        })?;
        advance_with_progress(&mut cpu_engine, step - done, n, evals, &mut pb, &mut || {
            false
        })?;
        done = step;
        let (gpu_state, cpu_state) = (gpu_engine.state()?, cpu_engine.state()?);
        if let Some(t) = compare_tangents(gpu_state, cpu_state) {
            let worst = v.tangent_max_rel_dev.unwrap_or(0.0).max(t.max_rel);
            // A column finite on one engine only is as much a disagreement as a deviation.
            v.tangent_max_rel_dev = Some(if t.finite_mismatch > 0 {
                f64::INFINITY
            } else {
                worst
            });
        }
        if let Some(c) = &cfg.chaos {
            let dev = compare_chaos(gpu_state, cpu_state, cfg.dt, c);
            v.chaos = Some(v.chaos.map_or(dev, |w| ChaosDeviation {
                max_rel: w.max_rel.max(dev.max_rel),
                undefined_mismatch: w.undefined_mismatch.max(dev.undefined_mismatch),
            }));
        }
        if let Some(column) = cfg.stop_column() {
            let dev = compare_stops(gpu_state, cpu_state, column);
            v.stops = Some(v.stops.map_or(dev, |w| StopDeviation {
                stopped: dev.stopped,
                mismatch: w.mismatch.max(dev.mismatch),
            }));
        }
        let dev = compare_states(gpu_state, cpu_state);
        v.max_abs_dev = v.max_abs_dev.max(dev.max_abs);
        v.max_rel_dev = v.max_rel_dev.max(dev.max_rel);
        v.finite_mismatch = v.finite_mismatch.max(dev.finite_mismatch);
        v.both_nonfinite = v.both_nonfinite.max(dev.both_nonfinite);
        let finite_on_both = n.saturating_sub(dev.finite_mismatch + dev.both_nonfinite);
        compared = Some(compared.map_or(finite_on_both, |c| c.min(finite_on_both)));
        // --reverse: both engines run back from the last forward step (`Tracker::snapshots`).
        if cfg.reverse && step == cfg.steps {
            gpu_engine.reverse();
            cpu_engine.reverse();
        }
    }
    pb.finish();
    v.compared = compared.unwrap_or(0);
    compare_at_end(&mut v, &mut gpu_engine, &mut cpu_engine)?;
    Ok(v)
}

/// What accumulates from t = 0, compared once at the last step: the crossings and the
/// frequencies.
fn compare_at_end<T: Real>(
    v: &mut Validation,
    gpu_engine: &mut GpuEngine<T>,
    cpu_engine: &mut CpuEngine<T>,
) -> Result<()> {
    if let (Some(g), Some(c)) = (gpu_engine.crossings()?, cpu_engine.crossings()?) {
        v.section = Some(compare_sections(&g, &c));
    }
    if let (Some(g), Some(c)) = (gpu_engine.frequencies()?, cpu_engine.frequencies()?) {
        v.frequencies = Some(compare_frequencies(&g, &c));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation_verdict() {
        let v = |rel: f64, mismatch: usize| Validation {
            max_abs_dev: rel,
            max_rel_dev: rel,
            finite_mismatch: mismatch,
            both_nonfinite: 0,
            compared: 10,
            tangent_max_rel_dev: None,
            chaos: None,
            section: None,
            stops: None,
            frequencies: None,
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

    /// `validate --tangent`: the tangent columns are compared apart from the points, so two
    /// states equal in their points but not in their columns differ there.
    #[test]
    fn tangent_columns_are_compared() {
        let base = State {
            n: 2,
            d: 1,
            nt: 0,
            q: vec![0.5f64, -0.25],
            p: vec![1.0, 0.75],
            unconverged: vec![0; 2],
            eq: Vec::new(),
            ep: Vec::new(),
            chaos: Vec::new(),
        };
        assert_eq!(compare_tangents(&base, &base), None);
        let cpu = base.with_tangent();
        let mut gpu = cpu.clone();
        // Column 0's p-row of point 1: ∂p/∂q0 (component d·(1 + 0) + 0 = 1 of p).
        gpu.p[gpu.n + 1] += 0.5;
        assert_eq!(compare_states(&gpu, &cpu).max_abs, 0.0);
        let t = compare_tangents(&gpu, &cpu).unwrap();
        assert_eq!((t.max_abs, t.finite_mismatch), (0.5, 0));
        assert!(t.max_rel > 0.0);
        let failing = Validation {
            max_abs_dev: 0.0,
            max_rel_dev: 0.0,
            finite_mismatch: 0,
            both_nonfinite: 0,
            compared: 2,
            tangent_max_rel_dev: Some(t.max_rel),
            chaos: None,
            section: None,
            stops: None,
            frequencies: None,
            gpu: String::new(),
        };
        let why = failing.failure(1e-3).unwrap();
        assert!(why.contains("tangent maps disagree"), "{why}");
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
            eq: Vec::new(),
            ep: Vec::new(),
            chaos: Vec::new(),
        };
        let b = State {
            n: 2,
            d: 1,
            nt: 0,
            q: vec![1.5f32, 2.0],
            p: vec![0.0, 0.0],
            unconverged: vec![0; 2],
            eq: Vec::new(),
            ep: Vec::new(),
            chaos: Vec::new(),
        };
        let dev = compare_states(&a, &b);
        assert_eq!(
            (dev.max_abs, dev.finite_mismatch, dev.both_nonfinite),
            (0.5, 1, 0)
        );
    }
}
