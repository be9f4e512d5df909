//! `phaseflow.run`'s keyword arguments, each set on the library's `RunBuilder` by its typed
//! setter (no command line in between): a value of the wrong kind is a `ValueError` naming the
//! keyword here, and what the library refuses names its option (`Error::field`), which
//! `py_error` writes as the keyword.

use std::path::PathBuf;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList, PyString, PyTuple};

use phaseflow::config::{Backend, MethodChoice, Precision, RunBuilder, SystemChoice};

/// A run as its keyword arguments give it: the settings, and what is not a setting of the run
/// (the folder, replacing it, the notes, the sweep's axes).
pub struct RunKeywords {
    pub builder: RunBuilder,
    pub out: Option<PathBuf>,
    pub force: bool,
    pub quiet: bool,
    pub sweep: Option<Vec<String>>,
}

/// The keywords `run` takes, in the order they are set: those choosing the system, the method
/// and the ensemble's kind first (choosing anew drops the former choice's options), `config`
/// before them all (the keywords are laid over the file's settings).
const KEYWORDS: &[&str] = &[
    "config",
    "system",
    "hamiltonian",
    "lagrangian",
    "system_file",
    "dof",
    "discretization",
    "momentum",
    "params",
    "method",
    "method_file",
    "ensemble",
    "points",
    "center",
    "radius",
    "lo",
    "hi",
    "energy",
    "sigma",
    "seed",
    "input",
    "loop",
    "positions",
    "raw_start",
    "grid_axes",
    "dt",
    "steps",
    "snapshot_every",
    "backend",
    "precision",
    "compensated",
    "save_states",
    "tangent",
    "modified_hamiltonian",
    "no_refine",
    "refine_tol",
    "max_nodes",
    "implicit_tol",
    "implicit_max_iter",
    "checkpoint_every",
    "shard",
    "devices",
    "reference",
    "reverse",
    "section",
    "section_max",
    "chaos",
    "deviation",
    "deviation_metric",
    "sweep",
    "out",
    "force",
    "quiet",
];

/// The keywords that choose the system: one of them.
const SYSTEM_KEYWORDS: &[&str] = &["system", "hamiltonian", "lagrangian", "system_file"];

/// The error for a keyword argument of the wrong kind: it names the keyword and its value.
fn bad(keyword: &str, value: &Bound<'_, PyAny>, want: &str) -> PyErr {
    let shown = value
        .repr()
        .map_or_else(|_| "?".to_string(), |r| r.to_string());
    PyValueError::new_err(format!("{keyword}={shown}: {want}"))
}

fn switch(keyword: &str, value: &Bound<'_, PyAny>) -> PyResult<bool> {
    value
        .extract::<bool>()
        .map_err(|_| bad(keyword, value, "give True or False"))
}

/// A number: an int or a float (numpy's included), not a bool.
fn real(keyword: &str, value: &Bound<'_, PyAny>) -> PyResult<f64> {
    let refused = || bad(keyword, value, "give a number");
    if value.is_instance_of::<PyBool>() || value.is_instance_of::<PyString>() {
        return Err(refused());
    }
    value.extract::<f64>().map_err(|_| refused())
}

/// A whole number ≥ 0 that `T` holds (numpy's integers included), not a bool.
fn count<T: TryFrom<u64>>(keyword: &str, value: &Bound<'_, PyAny>) -> PyResult<T> {
    let refused = || bad(keyword, value, "give a whole number ≥ 0");
    if value.is_instance_of::<PyBool>() {
        return Err(refused());
    }
    let n: u64 = value.extract().map_err(|_| refused())?;
    T::try_from(n).map_err(|_| refused())
}

/// A word, or a list or tuple of them joined by commas (`chaos=["megno", "lyapunov"]`).
fn text(keyword: &str, value: &Bound<'_, PyAny>) -> PyResult<String> {
    let refused = |why: &str| bad(keyword, value, why);
    let items: Vec<String> =
        if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
            value
                .extract()
                .map_err(|_| refused("give a string, or a list or tuple of strings"))?
        } else {
            vec![value
                .extract()
                .map_err(|_| refused("give a string, or a list or tuple of strings"))?]
        };
    if items.len() > 1 && items.iter().any(|i| i.contains(',')) {
        return Err(refused("an item holds a comma, which separates the items"));
    }
    let joined = items.join(",");
    if joined.contains('\0') {
        return Err(refused(
            "contains a NUL character, which no option may hold",
        ));
    }
    Ok(joined)
}

/// Strings each (`sweep="g=1:2:3"` or a list of them).
fn texts(keyword: &str, value: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if value.is_instance_of::<PyString>() {
        return Ok(vec![text(keyword, value)?]);
    }
    let items: Vec<Bound<'_, PyAny>> = value
        .extract()
        .map_err(|_| bad(keyword, value, "give a string or a list of strings"))?;
    items.iter().map(|item| text(keyword, item)).collect()
}

/// Numbers (a list, a tuple or a one-dimensional array).
fn reals(keyword: &str, value: &Bound<'_, PyAny>) -> PyResult<Vec<f64>> {
    let refused = || bad(keyword, value, "give a list of numbers");
    if value.is_instance_of::<PyString>() {
        return Err(refused());
    }
    let items: Vec<Bound<'_, PyAny>> = value.extract().map_err(|_| refused())?;
    items
        .iter()
        .map(|x| real(keyword, x).map_err(|_| refused()))
        .collect()
}

/// A path: a str or an os.PathLike, without NUL (no file's name holds one).
fn path(keyword: &str, value: &Bound<'_, PyAny>) -> PyResult<PathBuf> {
    let refused = |why: &str| bad(keyword, value, why);
    let p: PathBuf = value
        .extract()
        .map_err(|_| refused("give a path: a str or a pathlib.Path"))?;
    if p.as_os_str().as_encoded_bytes().contains(&0) {
        return Err(refused("contains a NUL character, which no path may hold"));
    }
    Ok(p)
}

/// One of a `clap::ValueEnum`'s names (`backend="cpu"`).
fn choice<T: clap::ValueEnum>(keyword: &str, value: &Bound<'_, PyAny>) -> PyResult<T> {
    let names: Vec<String> = T::value_variants()
        .iter()
        .filter_map(|v| Some(v.to_possible_value()?.get_name().to_string()))
        .collect();
    let want = format!("give one of {}", names.join(", "));
    let word: String = value.extract().map_err(|_| bad(keyword, value, &want))?;
    T::from_str(&word, false).map_err(|_| bad(keyword, value, &want))
}

/// `params={"m": 2}`: each parameter set by name.
fn params(mut b: RunBuilder, value: &Bound<'_, PyAny>) -> PyResult<RunBuilder> {
    let dict = value.cast::<PyDict>().map_err(|_| {
        bad(
            "params",
            value,
            "give a dict of parameter names and numbers",
        )
    })?;
    for (name, v) in dict.iter() {
        let name: String = name
            .extract()
            .map_err(|_| bad("params", value, "a parameter's name is not a string"))?;
        b = b.param(&name, real("params", &v)?);
    }
    Ok(b)
}

impl RunKeywords {
    /// The keyword arguments of `phaseflow.run` (None values left out, as not given).
    pub fn from_dict(kwargs: &Bound<'_, PyDict>) -> PyResult<RunKeywords> {
        for key in kwargs.keys() {
            let key: String = key.extract()?;
            if !KEYWORDS.contains(&key.as_str()) {
                let hint = phaseflow::error::closest(&key, KEYWORDS.iter().copied())
                    .map(|k| format!("; did you mean {k}="))
                    .unwrap_or_default();
                return Err(PyValueError::new_err(format!(
                    "{key}=: phaseflow run has no such option{hint} (see help(phaseflow.run))"
                )));
            }
        }
        let mut k = RunKeywords {
            builder: RunBuilder::default(),
            out: None,
            force: false,
            quiet: false,
            sweep: None,
        };
        let mut systems = 0;
        for &key in KEYWORDS {
            if let Some(value) = kwargs.get_item(key)?.filter(|v| !v.is_none()) {
                k.set(key, &value, systems)?;
                systems += usize::from(SYSTEM_KEYWORDS.contains(&key));
            }
        }
        Ok(k)
    }

    /// Set `key` to `v`; `systems`: how many of `SYSTEM_KEYWORDS` were set before (a second
    /// is kept beside the first, for the library to refuse the two).
    fn set(&mut self, key: &str, v: &Bound<'_, PyAny>, systems: usize) -> PyResult<()> {
        let b = std::mem::take(&mut self.builder);
        let system = |b: RunBuilder, choice| match systems {
            0 => b.system(choice),
            _ => b.also_system(choice),
        };
        self.builder = match key {
            "config" => {
                let file = phaseflow::config::load_toml(&path(key, v)?)
                    .map_err(|e| crate::py_error(&e))?;
                RunBuilder::from(file)
            }
            "system" => system(b, SystemChoice::BuiltIn(text(key, v)?)),
            "hamiltonian" => system(
                b,
                SystemChoice::Formula {
                    formula: text(key, v)?,
                    dof: None,
                },
            ),
            "lagrangian" => system(
                b,
                SystemChoice::Lagrangian {
                    formula: text(key, v)?,
                    dof: None,
                },
            ),
            "discretization" => b.discretization(text(key, v)?),
            "momentum" => b.momentum(text(key, v)?),
            "system_file" => system(b, SystemChoice::File(path(key, v)?)),
            "dof" => b.dof(count(key, v)?),
            "params" => params(b, v)?,
            "method" => b.method(MethodChoice::Name(text(key, v)?)),
            "method_file" => b.method(MethodChoice::File(path(key, v)?)),
            "ensemble" => b.ensemble(&text(key, v)?),
            "points" => b.points(count(key, v)?),
            "center" => b.center(&reals(key, v)?),
            "lo" => b.lo(&reals(key, v)?),
            "hi" => b.hi(&reals(key, v)?),
            "radius" => b.radius(real(key, v)?),
            "energy" => b.energy(real(key, v)?),
            "sigma" => b.sigma(real(key, v)?),
            "seed" => b.seed(count(key, v)?),
            "input" => b.input(path(key, v)?),
            "loop" => b.closed_loop(switch(key, v)?),
            "positions" => b.positions(switch(key, v)?),
            "raw_start" => b.raw_start(switch(key, v)?),
            "grid_axes" => b.grid_axes(&text(key, v)?),
            "dt" => b.dt(real(key, v)?),
            "steps" => b.steps(count(key, v)?),
            "snapshot_every" => b.snapshot_every(count(key, v)?),
            "backend" => b.backend(choice::<Backend>(key, v)?),
            "precision" => b.precision(choice::<Precision>(key, v)?),
            "compensated" => b.compensated(switch(key, v)?),
            "save_states" => b.save_states(switch(key, v)?),
            "tangent" => b.tangent(switch(key, v)?),
            "modified_hamiltonian" => b.modified_hamiltonian(count(key, v)?),
            // Refinement is on for loops unless turned off; `no_refine=False` leaves it alone.
            "no_refine" if switch(key, v)? => b.refine(false),
            "no_refine" => b,
            "refine_tol" => b.refine_tol(real(key, v)?),
            "max_nodes" => b.max_nodes(count(key, v)?),
            "implicit_tol" => b.implicit_tol(real(key, v)?),
            "implicit_max_iter" => b.implicit_max_iter(count(key, v)?),
            "checkpoint_every" => b.checkpoint_every(count(key, v)?),
            "shard" => b.shard(&text(key, v)?),
            "devices" => b.devices(&text(key, v)?),
            "reference" => b.reference(&text(key, v)?),
            "reverse" => b.reverse(switch(key, v)?),
            "section" => b.section(&text(key, v)?),
            "section_max" => b.section_max(count(key, v)?),
            "chaos" => b.chaos(&text(key, v)?),
            "deviation" => b.deviation(&text(key, v)?),
            "deviation_metric" => b.deviation_metric(&text(key, v)?),
            _ => {
                self.set_other(key, v)?;
                b
            }
        };
        Ok(())
    }

    /// The keywords that are not settings of the run.
    fn set_other(&mut self, key: &str, v: &Bound<'_, PyAny>) -> PyResult<()> {
        match key {
            "sweep" => self.sweep = Some(texts(key, v)?),
            "out" => self.out = Some(path(key, v)?),
            "force" => self.force = switch(key, v)?,
            "quiet" => self.quiet = switch(key, v)?,
            other => {
                return Err(PyValueError::new_err(format!(
                    "{other}=: phaseflow run has no such option"
                )))
            }
        }
        Ok(())
    }
}
