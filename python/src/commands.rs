//! The keyword arguments of `study`, `bench`, `order` and `show_modified_hamiltonian`, read by
//! kind (`keywords`) into the typed settings those pipelines take (`cli::StudyArgs`,
//! `BenchArgs`, `OrderArgs`, `ShowModifiedArgs`: plain structs, which the command line's
//! parser fills from flags and this module from keyword arguments; no argv in between). The
//! library's conversions of those settings (`Study::try_from`, `BenchConfig::try_from`, …)
//! stay the one validation; a value the command line's parser would refuse before them (a
//! count below its least, an unknown method) is refused here by the same parser
//! (`Keywords::check_as_flag`), and keywords whose flags exclude each other are refused as
//! clap refuses them (`Keywords::finish`).

use pyo3::prelude::*;

use phaseflow::cli::{
    BenchArgs, ChaosArgs, EngineArgs, EnsembleArgs, LagrangianArgs, OrderArgs, OutputArgs,
    RefineArgs, ShowModifiedArgs, SolverArgs, StudyArgs, SystemArgs,
};
use phaseflow::config::{Backend, Precision};

use crate::keywords::Keywords;

/// `value`, refused as its flag's parser refuses it (`text`: the value as the flag holds it).
fn checked<T>(
    k: &Keywords<'_, '_>,
    keyword: &str,
    value: Option<T>,
    text: impl Fn(&T) -> String,
) -> PyResult<Option<T>> {
    if let Some(v) = &value {
        k.check_as_flag(keyword, &text(v))?;
    }
    Ok(value)
}

/// A text value checked by its flag's parser (a method's or system's name).
fn name(k: &mut Keywords<'_, '_>, keyword: &'static str) -> PyResult<Option<String>> {
    let v = k.text(keyword)?;
    checked(k, keyword, v, String::clone)
}

/// A count checked by its flag's parser (its least value).
fn count<T: TryFrom<u64> + ToString>(
    k: &mut Keywords<'_, '_>,
    keyword: &'static str,
) -> PyResult<Option<T>> {
    let v = k.count::<T>(keyword)?;
    checked(k, keyword, v, T::to_string)
}

fn comma_reals(v: Option<Vec<f64>>) -> Option<String> {
    v.map(|v| {
        v.iter()
            .map(|x| phaseflow::error::num(*x))
            .collect::<Vec<_>>()
            .join(",")
    })
}

fn system(k: &mut Keywords<'_, '_>) -> PyResult<SystemArgs> {
    Ok(SystemArgs {
        system: name(k, "system")?,
        hamiltonian: k.text("hamiltonian")?,
        lagrangian: k.text("lagrangian")?,
        lagrangian_options: LagrangianArgs {
            discretization: name(k, "discretization")?,
            momentum: k.text("momentum")?,
            velocities: k.switch("velocities")?.unwrap_or(false),
            constraints: k.texts("constraint")?,
        },
        dof: count(k, "dof")?,
        system_file: k.path("system_file")?,
        params: k.param_items()?,
    })
}

fn ensemble(k: &mut Keywords<'_, '_>) -> PyResult<EnsembleArgs> {
    Ok(EnsembleArgs {
        ensemble: name(k, "ensemble")?,
        points: count(k, "points")?,
        center: comma_reals(k.reals("center")?),
        radius: k.real("radius")?,
        lo: comma_reals(k.reals("lo")?),
        hi: comma_reals(k.reals("hi")?),
        energy: k.real("energy")?,
        grid_axes: k.words("grid_axes")?,
        sigma: k.real("sigma")?,
        seed: count(k, "seed")?,
        input: k.path("input")?,
        closed_loop: k.on("loop")?,
        positions: k.on("positions")?,
        raw_start: k.on("raw_start")?,
    })
}

fn engine(k: &mut Keywords<'_, '_>) -> PyResult<EngineArgs> {
    Ok(EngineArgs {
        backend: k.choice::<Backend>("backend")?,
        precision: k.choice::<Precision>("precision")?,
        compensated: k.switch("compensated")?,
    })
}

fn chaos(k: &mut Keywords<'_, '_>) -> PyResult<ChaosArgs> {
    Ok(ChaosArgs {
        chaos: k.words("chaos")?,
        deviation: k.words("deviation")?,
        deviation_metric: k.words("deviation_metric")?,
    })
}

fn refine(k: &mut Keywords<'_, '_>) -> PyResult<RefineArgs> {
    Ok(RefineArgs {
        no_refine: k.on("no_refine")?,
        refine_tol: k.real("refine_tol")?,
        max_nodes: count(k, "max_nodes")?,
    })
}

fn solver(k: &mut Keywords<'_, '_>) -> PyResult<SolverArgs> {
    Ok(SolverArgs {
        implicit_tol: k.real("implicit_tol")?,
        implicit_max_iter: count(k, "implicit_max_iter")?,
    })
}

fn output(k: &mut Keywords<'_, '_>) -> PyResult<OutputArgs> {
    Ok(OutputArgs {
        out: k.path("out")?,
        force: k.on("force")?,
        save_states: k.on("save_states")?,
        checkpoint_every: count(k, "checkpoint_every")?,
        quiet: k.on("quiet")?,
    })
}

/// `phaseflow.study`'s keywords.
pub fn study(k: &mut Keywords<'_, '_>) -> PyResult<StudyArgs> {
    Ok(StudyArgs {
        preset: k.text("preset")?,
        config: k.path("config")?,
        system: system(k)?,
        methods: k.words("methods")?,
        dt: k.real_or_reals("dt")?,
        steps: k.count_or_counts("steps")?,
        t_end: k.real("t_end")?,
        ensemble: ensemble(k)?,
        portraits: count(k, "portraits")?,
        reference: k.text("reference")?,
        snapshot_every: count(k, "snapshot_every")?,
        engine: engine(k)?,
        no_tangent: k.on("no_tangent")?,
        modified_hamiltonian: count(k, "modified_hamiltonian")?,
        chaos: chaos(k)?,
        refine: refine(k)?,
        solver: solver(k)?,
        output: output(k)?,
    })
}

/// `phaseflow.bench`'s keywords (the command line's defaults where one is left out).
pub fn bench(k: &mut Keywords<'_, '_>) -> PyResult<BenchArgs> {
    let defaults = default_bench();
    Ok(BenchArgs {
        system: system(k)?,
        against: name(k, "against")?,
        against_method: k.text("against_method")?,
        method: name(k, "method")?.unwrap_or(defaults.method),
        method_file: k.path("method_file")?,
        points: count(k, "points")?.unwrap_or(defaults.points),
        steps: count(k, "steps")?.unwrap_or(defaults.steps),
        dt: k.real("dt")?.unwrap_or(defaults.dt),
        seed: count(k, "seed")?.unwrap_or(defaults.seed),
        no_gpu: k.on("no_gpu")?,
        gpu_only: k.on("gpu_only")?,
        compensated: k.on("compensated")?,
        csv: k.path("csv")?,
        peers: k.on("peers")?,
        rounds: count(k, "rounds")?.unwrap_or(defaults.rounds),
        min_ratio: k.real("min_ratio")?,
    })
}

/// `phaseflow bench`'s defaults, as its flags declare them.
fn default_bench() -> BenchArgs {
    use clap::Parser;
    match phaseflow::cli::Cli::try_parse_from(["phaseflow", "bench"]).map(|c| c.command) {
        Ok(phaseflow::cli::Command::Bench(b)) => b,
        _ => unreachable!("`phaseflow bench` parses with no flags"),
    }
}

/// `phaseflow.order`'s keywords.
pub fn order(k: &mut Keywords<'_, '_>) -> PyResult<OrderArgs> {
    Ok(OrderArgs {
        system: system(k)?,
        method: name(k, "method")?,
        method_file: k.path("method_file")?,
        ensemble: ensemble(k)?,
        dt: k.real("dt")?,
        steps: count(k, "steps")?,
        halvings: count(k, "halvings")?,
        reference: k.text("reference")?,
        solver: solver(k)?,
        out: k.path("out")?,
        force: k.on("force")?,
        quiet: k.on("quiet")?,
    })
}

/// `phaseflow.show_modified_hamiltonian`'s keywords.
pub fn show_modified(k: &mut Keywords<'_, '_>) -> PyResult<ShowModifiedArgs> {
    Ok(ShowModifiedArgs {
        system: system(k)?,
        method: name(k, "method")?,
        method_file: k.path("method_file")?,
        dt: k.real("dt")?,
        order: count(k, "order")?.unwrap_or_default(),
    })
}
