//! `phaseflow.run`'s keyword arguments, each set on the library's `RunBuilder` by its typed
//! setter (no command line in between): a value of the wrong kind is a `ValueError` naming the
//! keyword here, and what the library refuses names its option (`Error::field`), which
//! `py_error` writes as the keyword.

use std::path::PathBuf;

use pyo3::prelude::*;

use phaseflow::config::{Backend, MethodChoice, Precision, RunBuilder, Store, SystemChoice};

use crate::keywords::Keywords;

/// A run as its keyword arguments give it: the settings, and what is not a setting of the run
/// (the folder, replacing it, the notes, the sweep's axes).
pub struct RunKeywords {
    pub builder: RunBuilder,
    pub out: Option<PathBuf>,
    pub force: bool,
    pub quiet: bool,
    pub sweep: Option<Vec<String>>,
}

/// The keywords that choose the system: one of them (the library refuses two, naming both).
const SYSTEM_KEYWORDS: &[&str] = &["system", "hamiltonian", "lagrangian", "system_file"];

impl RunKeywords {
    /// The keyword arguments of `phaseflow.run` (and `validate`; None values are left out, as
    /// not given), set in this order: `config` first (the keywords are laid over the file's
    /// settings), then those choosing the system, the method and the ensemble's kind
    /// (choosing anew drops the former choice's options), then the rest.
    pub fn read(k: &mut Keywords<'_, '_>) -> PyResult<RunKeywords> {
        let mut b = match k.path("config")? {
            Some(file) => RunBuilder::from(
                phaseflow::config::load_toml(&file).map_err(|e| crate::py_error(&e))?,
            ),
            None => RunBuilder::default(),
        };
        b = system(b, k)?;
        if let Some(name) = k.text("method")? {
            b = b.method(MethodChoice::Name(name));
        }
        if let Some(file) = k.path("method_file")? {
            b = b.method(MethodChoice::File(file));
        }
        b = ensemble(b, k)?;
        b = stepping(b, k)?;
        b = measuring(b, k)?;
        Ok(RunKeywords {
            builder: b,
            sweep: Some(k.texts("sweep")?).filter(|s| !s.is_empty()),
            out: k.path("out")?,
            force: k.on("force")?,
            quiet: k.on("quiet")?,
        })
    }

    /// `finish`'s exemptions: the system's keywords, whose pairs the library refuses itself.
    pub const EXEMPT: &'static [&'static str] = SYSTEM_KEYWORDS;
}

/// Set `value` by `set` when given.
fn opt<T>(
    b: RunBuilder,
    value: Option<T>,
    set: impl FnOnce(RunBuilder, T) -> RunBuilder,
) -> RunBuilder {
    match value {
        Some(v) => set(b, v),
        None => b,
    }
}

/// The system: one of `SYSTEM_KEYWORDS` (a second is kept beside the first, for the library
/// to refuse the two), its degrees of freedom and parameters.
fn system(mut b: RunBuilder, k: &mut Keywords<'_, '_>) -> PyResult<RunBuilder> {
    let choices = [
        k.text("system")?.map(SystemChoice::BuiltIn),
        k.text("hamiltonian")?
            .map(|formula| SystemChoice::Formula { formula, dof: None }),
        k.text("lagrangian")?
            .map(|formula| SystemChoice::Lagrangian { formula, dof: None }),
        k.path("system_file")?.map(SystemChoice::File),
    ];
    for (n, choice) in choices.into_iter().flatten().enumerate() {
        b = if n == 0 {
            b.system(choice)
        } else {
            b.also_system(choice)
        };
    }
    b = opt(b, k.count("dof")?, RunBuilder::dof);
    b = opt(b, k.text("discretization")?, RunBuilder::discretization);
    b = opt(b, k.text("momentum")?, RunBuilder::momentum);
    b = opt(b, k.switch("velocities")?, RunBuilder::velocities);
    let constraints = k.texts("constraint")?;
    if !constraints.is_empty() {
        b = b.constraints(constraints);
    }
    for (name, value) in k.params()? {
        b = b.param(&name, value);
    }
    Ok(b)
}

/// The initial set: its kind first, then its options.
fn ensemble(mut b: RunBuilder, k: &mut Keywords<'_, '_>) -> PyResult<RunBuilder> {
    if let Some(kind) = k.text("ensemble")? {
        b = b.ensemble(&kind);
    }
    b = opt(b, k.count("points")?, RunBuilder::points);
    b = opt(b, k.reals("center")?, |b, v| b.center(&v));
    b = opt(b, k.real("radius")?, RunBuilder::radius);
    b = opt(b, k.reals("lo")?, |b, v| b.lo(&v));
    b = opt(b, k.reals("hi")?, |b, v| b.hi(&v));
    b = opt(b, k.real("energy")?, RunBuilder::energy);
    b = opt(b, k.words("grid_axes")?, |b, v| b.grid_axes(&v));
    b = opt(b, k.real("sigma")?, RunBuilder::sigma);
    b = opt(b, k.count("seed")?, RunBuilder::seed);
    b = opt(b, k.path("input")?, RunBuilder::input);
    b = opt(b, k.switch("loop")?, RunBuilder::closed_loop);
    b = opt(b, k.switch("positions")?, RunBuilder::positions);
    Ok(opt(b, k.switch("raw_start")?, RunBuilder::raw_start))
}

/// The steps, the engine and what is carried along.
fn stepping(mut b: RunBuilder, k: &mut Keywords<'_, '_>) -> PyResult<RunBuilder> {
    b = opt(b, k.real("dt")?, RunBuilder::dt);
    b = opt(b, k.count("steps")?, RunBuilder::steps);
    b = opt(b, k.count("snapshot_every")?, RunBuilder::snapshot_every);
    b = opt(b, k.choice::<Backend>("backend")?, RunBuilder::backend);
    b = opt(
        b,
        k.choice::<Precision>("precision")?,
        RunBuilder::precision,
    );
    b = opt(b, k.switch("compensated")?, RunBuilder::compensated);
    b = opt(b, k.switch("tangent")?, RunBuilder::tangent);
    // Refinement is on for loops unless turned off; `no_refine=False` leaves it alone.
    if k.on("no_refine")? {
        b = b.refine(false);
    }
    b = opt(b, k.real("refine_tol")?, RunBuilder::refine_tol);
    b = opt(b, k.count("max_nodes")?, RunBuilder::max_nodes);
    b = opt(b, k.real("implicit_tol")?, RunBuilder::implicit_tol);
    b = opt(
        b,
        k.count("implicit_max_iter")?,
        RunBuilder::implicit_max_iter,
    );
    b = opt(b, k.switch("save_states")?, RunBuilder::save_states);
    b = opt(b, k.choice::<Store>("store")?, RunBuilder::store);
    b = opt(
        b,
        k.count("checkpoint_every")?,
        RunBuilder::checkpoint_every,
    );
    b = opt(b, k.text("shard")?, |b, v| b.shard(&v));
    Ok(opt(b, k.words("devices")?, |b, v| b.devices(&v)))
}

/// What is measured beside the ensemble.
fn measuring(mut b: RunBuilder, k: &mut Keywords<'_, '_>) -> PyResult<RunBuilder> {
    b = opt(
        b,
        k.count("modified_hamiltonian")?,
        RunBuilder::modified_hamiltonian,
    );
    b = opt(b, k.words("chaos")?, |b, v| b.chaos(&v));
    b = opt(b, k.words("deviation")?, |b, v| b.deviation(&v));
    b = opt(b, k.words("deviation_metric")?, |b, v| {
        b.deviation_metric(&v)
    });
    b = opt(b, k.text("reference")?, |b, v| b.reference(&v));
    b = opt(b, k.switch("reverse")?, RunBuilder::reverse);
    b = opt(b, k.text("section")?, |b, v| b.section(&v));
    b = opt(b, k.count("section_max")?, RunBuilder::section_max);
    b = opt(b, k.words("frequencies")?, |b, v| b.frequencies(&v));
    b = opt(
        b,
        k.count("frequency_stride")?,
        RunBuilder::frequency_stride,
    );
    let stops = k.texts("stop_when")?;
    Ok(match stops.is_empty() {
        true => b,
        false => b.stop_when(&stops),
    })
}
