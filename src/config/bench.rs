//! `phaseflow bench`'s settings (`BenchConfig`): the system, method and ensemble timed, and
//! what it is timed against.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::args::{check_min_ratio, method_by_name_or_file};
use super::file::RunFile;
use crate::cli::BenchArgs;
use crate::error::{Error, Field, Result};
use crate::input_err;
use crate::method::Method;
use crate::options::Precision;
use crate::system::System;

/// `phaseflow bench`: one seeded disk ensemble, timed on every engine.
#[derive(Debug, Clone)]
pub struct BenchConfig {
    pub system: System,
    /// `--against`: a built-in system timed beside `system` on the same points.
    pub against: Option<System>,
    pub method: Method,
    /// `--against-method`: a method timed beside `method` on the same system and points.
    pub against_method: Option<Method>,
    pub points: usize,
    pub steps: u64,
    pub dt: f64,
    pub seed: u64,
    pub use_gpu: bool,
    /// Time the reference loop and the CPU engine (not with `--gpu-only`).
    pub use_cpu: bool,
    /// Also time the CPU and GPU engines with compensated summation (`--compensated`).
    pub compensated: bool,
    /// Timed rounds per engine, interleaved; each row reports its fastest.
    pub rounds: u32,
    /// Speed guard: the lowest acceptable ratio of a CPU row to the reference loop.
    pub min_ratio: Option<f64>,
    /// Also write the table here as CSV.
    pub csv: Option<PathBuf>,
    /// Also time the C peer (`run::bench::peer`) in the same rounds (`--peers`).
    pub peers: bool,
}

impl TryFrom<&BenchArgs> for BenchConfig {
    type Error = Error;

    fn try_from(b: &BenchArgs) -> Result<BenchConfig> {
        let mut file = RunFile::default();
        file.lay_system(&b.system)?;
        if !file.chooses_system() {
            file.system = Some("pendulum".into());
        }
        let system = super::resolve_system(&file)?;
        let method = match &b.method_file {
            Some(path) => Method::from_file(path)?,
            None => Method::from_name(&b.method)?,
        };
        method.check_system(&system)?;
        super::check_variational_kernel(&system, false, b.compensated)?;
        let against = against_system(b, &system, method)?;
        let against_method = against_method(b, &system, method)?;
        if !(b.dt.is_finite() && b.dt > 0.0) {
            return Err(input_err!(
                "--dt must be a positive finite number, got {}",
                b.dt
            ));
        }
        // Its f32 rows run the f32 kernels.
        system.check_precision(b.dt, Precision::F32)?;
        for (flag, n) in [("--points", b.points as u64), ("--steps", b.steps)] {
            if n == 0 {
                return Err(input_err!("{flag} must be at least 1, got 0"));
            }
        }
        if b.rounds == 0 {
            return Err(input_err!("--rounds must be at least 1, got 0"));
        }
        if let Some(r) = b.min_ratio {
            check_min_ratio(r, &system, method, b.dt)?;
        }
        let pendulum = |s: &System| s.name() == "pendulum";
        if b.peers && !(pendulum(&system) || against.as_ref().is_some_and(pendulum)) {
            return Err(crate::invalid!(Field::Peers; Field::Peers, format!(
                ": the C peer advances the pendulum, and this benchmark times {}; use --system pendulum (or a formula with --against pendulum)",
                system.name()
            )));
        }
        // Before the timing rounds, which can take minutes.
        if let Some(csv) = &b.csv {
            crate::output::target::check_file(csv, Some(&crate::error::Field::Csv))?;
        }
        Ok(BenchConfig {
            system,
            against,
            method,
            against_method,
            points: b.points,
            steps: b.steps,
            dt: b.dt,
            seed: b.seed,
            use_gpu: !b.no_gpu,
            use_cpu: !b.gpu_only,
            compensated: b.compensated,
            rounds: b.rounds,
            min_ratio: b.min_ratio,
            csv: b.csv.clone(),
            peers: b.peers,
        })
    }
}

/// `bench --against SYSTEM`: a built-in system of the formula's size, timed beside it.
fn against_system(b: &BenchArgs, system: &System, method: Method) -> Result<Option<System>> {
    Ok(match &b.against {
        None => None,
        Some(name) => {
            let a = System::new(name, &BTreeMap::new())?;
            if system.expression().is_none() {
                return Err(input_err!(
                    "--against {name}: compares --hamiltonian or --system-file with a built-in system; give one of them instead of --system"
                ));
            }
            if a.dof() != system.dof() {
                return Err(input_err!(
                    "--against {name}: it has {} degrees of freedom, the Hamiltonian {}; compare systems of the same size",
                    a.dof(),
                    system.dof()
                ));
            }
            method.check_system(&a)?;
            Some(a)
        }
    })
}

/// `bench --against-method NAME|FILE.toml`: another method, timed beside `method`.
fn against_method(b: &BenchArgs, system: &System, method: Method) -> Result<Option<Method>> {
    Ok(match &b.against_method {
        None => None,
        Some(entry) => {
            let a = method_by_name_or_file(entry)?;
            if a.name() == method.name() {
                return Err(input_err!(
                    "--against-method {entry}: it is the method timed already ({}); name another method to compare with",
                    a.name()
                ));
            }
            a.check_system(system)?;
            Some(a)
        }
    })
}
