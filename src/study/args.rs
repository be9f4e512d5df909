//! The study the `phaseflow study` flags describe: a preset (with the few overrides it
//! allows) or a custom study, and the checks on the flags that are the study's own.

use std::path::PathBuf;

use super::format::fmt_g;
use super::presets::preset;
use super::{Study, StudyRun};
use crate::cli::StudyArgs;
use crate::config::{load_toml, parse_vec, Backend, Precision, RunFile};
use crate::error::{num, Error, Result};
use crate::input_err;

/// Parse a comma list of step sizes: one for all methods, or one per method.
pub fn parse_dt_list(s: &str, methods: usize) -> Result<Vec<f64>> {
    let v = parse_vec("--dt", s)?;
    if let Some(x) = v.iter().find(|x| !(x.is_finite() && **x > 0.0)) {
        return Err(input_err!(
            "--dt {s}: every step must be a positive finite number, got {}",
            num(*x)
        ));
    }
    one_or_per_method(v, methods, |n| {
        input_err!(
            "--dt {s}: give one step for all methods or one per method ({methods} methods, {n} steps)"
        )
    })
}

/// Output folder check shared by the CLI (nothing is written before the runs resolve).
pub fn out_dir(out: Option<PathBuf>) -> Result<PathBuf> {
    out.ok_or_else(|| {
        input_err!("--out DIR is required (the folder for the study's data, plots and report)")
    })
}

/// The study the flags describe: a preset (with the few overrides it allows) or a custom study.
impl TryFrom<&StudyArgs> for Study {
    type Error = Error;

    fn try_from(a: &StudyArgs) -> Result<Study> {
        let mut study = match &a.preset {
            Some(name) => {
                let mut st = retimed_preset(name, a.t_end)?;
                // The preset's ensemble takes only --points (clap refuses the other flags).
                st.base.lay_ensemble(&a.ensemble)?;
                st
            }
            None => custom(a)?,
        };
        apply_overrides(&mut study.base, a);
        if a.preset.is_none() {
            custom_precision(&mut study);
        }
        Ok(study)
    }
}

/// A custom study's precision, and why, in its description: f64 on the CPU engine unless a
/// precision was given, or the GPU or compensated summation asked for (f32). Its verdicts
/// rest on det DΦⁿ − 1 and on long runs' energy errors, which f32 often cannot resolve: the
/// tangent map's entries grow along the motion, and the rounding of many small steps adds up.
fn custom_precision(study: &mut Study) {
    let base = &mut study.base;
    let why = if let Some(p) = base.precision {
        format!("It runs in {}, as given.", p.name())
    } else if base.backend == Some(Backend::Gpu) || base.compensated == Some(true) {
        "It runs in f32, the GPU engine's and compensated summation's precision.".into()
    } else {
        base.precision = Some(Precision::F64);
        "It runs in f64 on the CPU engine, custom studies' default: f32 often cannot resolve what the verdicts rest on (det DΦⁿ − 1 once the tangent map's entries grow, the energy error of many small steps); `--precision f32` runs in f32, where the verdicts say what it does not resolve.".into()
    };
    study.description.push(' ');
    study.description.push_str(&why);
}

/// The preset, shortened or lengthened to `t_end` when given (its portraits spread evenly
/// over the new span).
fn retimed_preset(name: &str, t_end: Option<f64>) -> Result<Study> {
    let mut st = preset(name)?;
    if let Some(t_end) = t_end {
        check_t_end(t_end)?;
        let preset_t_end = st
            .runs
            .iter()
            .map(|r| r.steps as f64 * r.dt)
            .fold(0.0, f64::max);
        for r in &mut st.runs {
            r.steps = ((t_end / r.dt).round() as u64).max(1);
        }
        let k = st.portrait_times.len().max(2) - 1;
        st.portrait_times = (0..=k).map(|i| t_end * i as f64 / k as f64).collect();
        let how = if t_end < preset_t_end {
            "shortened"
        } else {
            "lengthened"
        };
        st.description
            .push_str(&format!(" This run was {how} to t = {}.", num(t_end)));
    }
    Ok(st)
}

/// A custom study from --config (its settings as the base, its method, step and steps as the
/// one run unless flags give others), --system, --methods, --dt, --steps or --t-end,
/// --portraits and the ensemble flags.
fn custom(a: &StudyArgs) -> Result<Study> {
    let mut base = match &a.config {
        Some(p) => load_toml(p)?,
        None => RunFile::default(),
    };
    // A study's figures and verdicts follow t forward from one initial set.
    if base.reverse.is_some() || base.reference.is_some() {
        return Err(input_err!(
            "study --config: the file sets reverse or reference, which `phaseflow run` takes and a study does not; remove those keys (or run the file with `phaseflow run --config`)"
        ));
    }
    base.lay_system(&a.system)?;
    base.lay_ensemble(&a.ensemble)?;
    let kind = base.ensemble.as_ref().and_then(|e| e.kind.as_ref());
    let method = base.method.is_some() || base.method_file.is_some();
    crate::config::require_all(
        &[
            (
                !base.chooses_system(),
                crate::config::SYSTEM_FLAGS,
            ),
            (
                a.methods.is_none() && !method && base.method_source.is_none(),
                "--methods M,M,..",
            ),
            (a.dt.is_none() && base.dt.is_none(), "--dt H"),
            (
                a.steps.is_none() && a.t_end.is_none() && base.steps.is_none(),
                "--steps N (or --t-end T)",
            ),
            (kind.is_none(), "--ensemble KIND"),
            (a.output.out.is_none(), "--out DIR"),
        ],
        "phaseflow study --system pendulum --methods euler,verlet --ensemble circle --dt 0.05 --steps 400 --out study (or --preset NAME --out DIR)",
    )?;
    let system = base
        .system
        .clone()
        .or_else(|| base.system_file.as_ref().map(|p| p.display().to_string()))
        .or_else(|| {
            base.hamiltonian
                .as_ref()
                .map(|h| format!("H = {h}"))
        })
        .or_else(|| base.lagrangian.as_ref().map(|l| format!("L = {l}")))
        .ok_or_else(|| {
            input_err!("study: give --preset NAME, or a custom study with --system (or --hamiltonian, --system-file), --methods, --dt, --steps or --t-end, --ensemble")
        })?;
    if base
        .ensemble
        .as_ref()
        .and_then(|e| e.kind.as_ref())
        .is_none()
    {
        return Err(input_err!("--ensemble is required for a custom study (level, circle, rect, disk, grid, gaussian, point, file)"));
    }
    let runs = custom_runs(a, &base)?;
    // The runs carry their own method, step and steps; the study writes into --out.
    (base.method, base.dt, base.steps, base.out) = (None, None, None, None);
    (base.method_file, base.method_source) = (None, None);
    let portrait_times = portrait_times(a.portraits.unwrap_or(5), &runs)?;
    Ok(Study {
        name: "custom".into(),
        description: format!(
            "A custom study of `{system}` with {}.",
            runs.iter()
                .map(|r| format!(
                    "{} at h = {} ({} steps)",
                    r.method.name(),
                    fmt_g(r.dt),
                    r.steps
                ))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        base,
        runs,
        portrait_times,
        stats_rows: 200,
    })
}

/// The custom study's runs: each method with its step and step count (from the flags, else
/// from the --config file's method, dt and steps).
fn custom_runs(a: &StudyArgs, file: &RunFile) -> Result<Vec<StudyRun>> {
    let methods = match &a.methods {
        Some(list) => list
            .split(',')
            .map(|m| crate::config::method_by_name_or_file(m.trim()))
            .collect::<Result<Vec<_>>>()?,
        None if file.method.is_some()
            || file.method_file.is_some()
            || file.method_source.is_some() =>
        {
            vec![crate::config::resolve_method(file)?]
        }
        None => {
            return Err(input_err!(
                "--methods is required for a custom study (e.g. --methods euler,verlet)"
            ))
        }
    };
    let dts = parse_dt_list(
        &a.dt
            .clone()
            .or_else(|| file.dt.map(|h| h.to_string()))
            .ok_or_else(|| {
                input_err!("--dt is required for a custom study (one step, or one per method)")
            })?,
        methods.len(),
    )?;
    let file_steps = file.steps.map(|n| n.to_string());
    let steps = match (&a.steps, a.t_end) {
        (None, None) => step_counts(file_steps.as_deref(), None, &dts)?,
        (s, t) => step_counts(s.as_deref(), t, &dts)?,
    };
    let mut runs: Vec<StudyRun> = methods
        .iter()
        .zip(&dts)
        .zip(&steps)
        .map(|((&method, &dt), &steps)| StudyRun {
            method,
            dt,
            steps,
            system: None,
            vary: None,
            reference: false,
        })
        .collect();
    if let Some(name) = &a.reference {
        mark_reference(&mut runs, name.trim())?;
    }
    Ok(runs)
}

/// `--reference METHOD`: the run of that method (at its smallest step, where it appears
/// twice) is the study's reference solution.
fn mark_reference(runs: &mut [StudyRun], name: &str) -> Result<()> {
    let finest = (runs.iter_mut())
        .filter(|r| r.method.name() == name)
        .min_by(|a, b| a.dt.total_cmp(&b.dt));
    match finest {
        Some(r) => {
            r.reference = true;
            Ok(())
        }
        None => {
            let names: Vec<&str> = runs.iter().map(|r| r.method.name()).collect();
            Err(input_err!(
                "--reference {name}: not one of the study's methods ({}); name the method of --methods whose run is the reference solution, e.g. --methods euler,verlet,rk4 --dt 0.05,0.05,0.001 --reference rk4",
                names.join(", ")
            ))
        }
    }
}

/// Each method's step count, from --steps (one for all, or one per method) or from --t-end.
fn step_counts(steps: Option<&str>, t_end: Option<f64>, dts: &[f64]) -> Result<Vec<u64>> {
    match (steps, t_end) {
        (Some(_), Some(_)) => Err(input_err!(
            "--steps and --t-end: give one of them, not both"
        )),
        (Some(s), None) => {
            let v = s
                .split(',')
                .map(|x| {
                    crate::cli::values::parse_count(x, u64::MAX)
                        .map_err(|e| input_err!("--steps {s}: '{x}' {}", e.needs(1)))
                })
                .collect::<Result<Vec<_>>>()?;
            one_or_per_method(v, dts.len(), |n| {
                input_err!(
                    "--steps {s}: give one count for all methods or one per method ({} methods, {n} counts)",
                    dts.len()
                )
            })
        }
        (None, Some(t)) => {
            check_t_end(t)?;
            Ok(dts
                .iter()
                .map(|h| ((t / h).round() as u64).max(1))
                .collect())
        }
        (None, None) => Err(input_err!("a custom study needs --steps N or --t-end T")),
    }
}

/// A per-method list given once for all methods or once per method; `wrong_count` is the
/// error for any other length.
fn one_or_per_method<T: Copy>(
    v: Vec<T>,
    methods: usize,
    wrong_count: impl FnOnce(usize) -> Error,
) -> Result<Vec<T>> {
    match v.len() {
        1 => Ok(vec![v[0]; methods]),
        n if n == methods => Ok(v),
        n => Err(wrong_count(n)),
    }
}

/// `count` portrait times spread evenly from 0 to the longest run's end (one: t = 0 only).
fn portrait_times(count: usize, runs: &[StudyRun]) -> Result<Vec<f64>> {
    let t_end = runs
        .iter()
        .map(|r| r.steps as f64 * r.dt)
        .fold(0.0, f64::max);
    match count {
        0 => Err(input_err!("--portraits must be at least 1")),
        1 => Ok(vec![0.0]),
        k => Ok((0..k).map(|i| t_end * i as f64 / (k - 1) as f64).collect()),
    }
}

/// The flags that apply to presets and custom studies alike: engine, precision, tangent map,
/// loop refinement, implicit solver, snapshot spacing, state output and checkpoints.
fn apply_overrides(base: &mut RunFile, a: &StudyArgs) {
    base.lay_engine(&a.engine);
    base.lay_chaos(&a.chaos);
    // The tangent map is on unless turned off, or the preset leaves it off (the chains of
    // 64 degrees of freedom would carry 128 tangent columns each), or the chaos indicators'
    // deviation vector takes the one tangent column.
    base.tangent = Some(!a.no_tangent && base.tangent.unwrap_or(base.chaos.is_none()));
    base.lay_refine(&a.refine);
    base.lay_solver(&a.solver);
    if a.modified_hamiltonian.is_some() {
        base.modified_hamiltonian = a.modified_hamiltonian;
    }
    if a.snapshot_every.is_some() {
        base.snapshot_every = a.snapshot_every;
    }
    if a.output.save_states {
        base.save_states = Some(true);
    }
    if a.output.checkpoint_every.is_some() {
        base.checkpoint_every = a.output.checkpoint_every;
    }
}

/// --t-end must be a positive finite time.
fn check_t_end(t: f64) -> Result<()> {
    if t.is_finite() && t > 0.0 {
        Ok(())
    } else {
        Err(input_err!(
            "--t-end must be a positive finite time, got {}",
            num(t)
        ))
    }
}
