//! `phaseflow._phaseflow`: the command line's own parser and pipelines, called from Python.
//!
//! Every entry point takes the arguments of one subcommand as the command line would receive
//! them (`["--system", "pendulum", "--dt", "0.01", ...]`; `phaseflow/__init__.py` writes them
//! from keyword arguments), parses them with the binary's clap definitions (`phaseflow::cli`),
//! validates them with the same `TryFrom` conversions and runs the same `run::run`,
//! `study::run_study`, `run::validate`, `run::bench` and `run::resume_run`. There is no second
//! implementation here: only the translation of results and errors into Python's.
//!
//! The work runs on a thread of its own with the GIL released; the calling thread, holding the
//! GIL in turns, polls Python's signal handlers (Ctrl-C raises `KeyboardInterrupt` there) and
//! turns an interrupt into the library's request to stop (`run::interrupt`: a checkpoint,
//! then `Error::Interrupted`), and reports progress to a Python callback.

use std::path::Path;
use std::time::Duration;

use clap::{ArgAction, CommandFactory, Parser};
use numpy::PyArray1;
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use phaseflow::cli::{Cli, Command};
use phaseflow::config::{BenchConfig, RunJob, ValidateJob};
use phaseflow::run::{self, interrupt, FinalState};
use phaseflow::{study, Error};

/// How often the calling thread looks at Python's signals and the progress while a run works.
const POLL: Duration = Duration::from_millis(50);

/// The library's error as Python's: input errors (the command line's exit code 2) are
/// `ValueError` with the command line's message, an interrupt is `KeyboardInterrupt`, anything
/// else `RuntimeError`.
fn py_error(e: &Error) -> PyErr {
    let message = phaseflow::cli::flags::message(e);
    match e {
        Error::Interrupted { .. } => PyKeyboardInterrupt::new_err(message),
        e if e.is_input() => PyValueError::new_err(message),
        _ => PyRuntimeError::new_err(message),
    }
}

/// `phaseflow SUBCOMMAND ARGS...` parsed by the command line's own definitions; a malformed
/// argument is a `ValueError` with clap's message (what the command line prints, without its
/// colours).
fn parse(subcommand: &str, args: Vec<String>) -> PyResult<Command> {
    let argv = ["phaseflow".to_string(), subcommand.to_string()]
        .into_iter()
        .chain(args);
    Cli::try_parse_from(argv)
        .map(|cli| cli.command)
        .map_err(|e| PyValueError::new_err(e.render().to_string().trim_end().to_string()))
}

/// Run `work` on a thread of its own with the GIL released, polling Python's signal handlers
/// and reporting `run::steps` to `progress` in between. Ctrl-C (or an exception from the
/// callback) asks the run to stop at its next piece of work, which writes a checkpoint; the
/// exception is raised once the run has stopped. A panic is a `RuntimeError`.
fn drive<R: Send>(
    py: Python<'_>,
    progress: Option<&Bound<'_, PyAny>>,
    work: impl FnOnce() -> phaseflow::Result<R> + Send,
) -> PyResult<R> {
    interrupt::clear();
    run::clear_steps();
    let caller = std::thread::current();
    std::thread::scope(|scope| {
        let worker = scope.spawn(move || {
            let result = work();
            // Wake the caller at once rather than at its next poll.
            caller.unpark();
            result
        });
        let mut stop: Option<PyErr> = None;
        while !worker.is_finished() {
            py.detach(|| std::thread::park_timeout(POLL));
            if stop.is_none() {
                let polled = py.check_signals().and_then(|()| match progress {
                    Some(callback) => callback.call1(run::steps()).map(|_| ()),
                    None => Ok(()),
                });
                if let Err(e) = polled {
                    interrupt::request();
                    stop = Some(e);
                }
            }
        }
        let result = match py.detach(|| worker.join()) {
            Ok(result) => result,
            Err(panic) => {
                let what = panic
                    .downcast_ref::<String>()
                    .map(String::as_str)
                    .or_else(|| panic.downcast_ref::<&str>().copied())
                    .unwrap_or("unknown cause");
                return Err(PyRuntimeError::new_err(format!(
                    "phaseflow failed (a panic: {what})"
                )));
            }
        };
        if let Some(progress) = progress {
            progress.call1(run::steps())?;
        }
        match (stop, result) {
            // Interrupted: the library's message says where the checkpoint is.
            (Some(e), Err(err @ Error::Interrupted { .. }))
                if e.is_instance_of::<PyKeyboardInterrupt>(py) =>
            {
                Err(py_error(&err))
            }
            (Some(e), _) => Err(e),
            (None, result) => result.map_err(|e| py_error(&e)),
        }
    })
}

/// `--quiet` as the binary sets it: the library's notes on stderr follow the flag.
fn quiet(q: bool) {
    phaseflow::console::set_quiet(q);
}

/// The final state as a numpy array of shape (points, 2d), its buffer the library's own
/// vector (no copy).
fn final_array<'py>(py: Python<'py>, state: FinalState) -> PyResult<Bound<'py, PyAny>> {
    let (columns, array) = match state {
        FinalState::F32 { columns, rows } => (columns, PyArray1::from_vec(py, rows).into_any()),
        FinalState::F64 { columns, rows } => (columns, PyArray1::from_vec(py, rows).into_any()),
    };
    let len = array.len()?;
    let points = len.checked_div(columns).unwrap_or(0);
    array.call_method1("reshape", ((points, columns),))
}

/// What a finished run hands back: the folder, the engine and method, the accuracy lines and
/// (when kept) the final state.
fn summary_dict<'py>(py: Python<'py>, s: run::RunSummary) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("out", s.out.display().to_string())?;
    d.set_item("engine", &s.engine)?;
    d.set_item("method", s.method)?;
    d.set_item("accuracy", PyList::new(py, &s.accuracy)?)?;
    d.set_item("refine_capped_at", s.refine_capped_at)?;
    d.set_item("refine_stuck_at", s.refine_stuck_at)?;
    match s.final_state {
        Some(state) => d.set_item("final_state", final_array(py, *state)?)?,
        None => d.set_item("final_state", py.None())?,
    }
    Ok(d)
}

/// `phaseflow run ARGS`: the run's summary (see `summary_dict`), its files in `--out`.
#[pyfunction(name = "run")]
#[pyo3(signature = (args, keep_final = true, progress = None))]
fn py_run<'py>(
    py: Python<'py>,
    args: Vec<String>,
    keep_final: bool,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let Command::Run(a) = parse("run", args)? else {
        return Err(PyRuntimeError::new_err("not a run"));
    };
    quiet(a.output.quiet);
    // A sweep (`sweep=`) is run by the command line's own sweep runner: one run per part.
    if let Some(job) = phaseflow::sweep::SweepJob::from_args(&a).map_err(|e| py_error(&e))? {
        let outcome = drive(py, progress.as_ref(), || phaseflow::sweep::run_sweep(&job))?;
        let d = PyDict::new(py);
        d.set_item("out", job.out.path.display().to_string())?;
        let dirs: Vec<&str> = outcome.parts.iter().map(|p| p.dir.as_str()).collect();
        d.set_item("sweep_parts", PyList::new(py, dirs)?)?;
        return Ok(d);
    }
    let job = RunJob::try_from(&a).map_err(|e| py_error(&e))?;
    let summary = drive(py, progress.as_ref(), || {
        run::run_keeping_final(&job.config, &job.out, keep_final)
    })?;
    summary_dict(py, summary)
}

/// `phaseflow study ARGS`: the files written (summary.csv, figures, report.md) and the folder.
#[pyfunction(name = "study")]
#[pyo3(signature = (args, command_line, progress = None))]
fn py_study<'py>(
    py: Python<'py>,
    args: Vec<String>,
    command_line: String,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let Command::Study(a) = parse("study", args)? else {
        return Err(PyRuntimeError::new_err("not a study"));
    };
    quiet(a.output.quiet);
    let out = study::out_dir(a.output.out.clone()).map_err(|e| py_error(&e))?;
    let st = study::Study::try_from(&a).map_err(|e| py_error(&e))?;
    let outcome = drive(py, progress.as_ref(), || {
        study::run_study(&st, &out, a.output.force, &command_line)
    })?;
    study_dict(py, &out, &outcome)
}

fn study_dict<'py>(
    py: Python<'py>,
    out: &Path,
    outcome: &study::StudyOutcome,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("out", out.display().to_string())?;
    let files: Vec<String> = outcome
        .files
        .iter()
        .map(|f| f.display().to_string())
        .collect();
    d.set_item("files", PyList::new(py, files)?)?;
    Ok(d)
}

/// `phaseflow validate ARGS`: the deviations between the GPU and CPU engines, the tolerance
/// and, when it fails, why.
#[pyfunction(name = "validate")]
#[pyo3(signature = (args, progress = None))]
fn py_validate<'py>(
    py: Python<'py>,
    args: Vec<String>,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let Command::Validate(a) = parse("validate", args)? else {
        return Err(PyRuntimeError::new_err("not a validation"));
    };
    quiet(a.run.output.quiet);
    let job = ValidateJob::try_from(&a).map_err(|e| py_error(&e))?;
    let v = drive(py, progress.as_ref(), || run::validate(&job.config))?;
    let d = PyDict::new(py);
    d.set_item("max_abs_dev", v.max_abs_dev)?;
    d.set_item("max_rel_dev", v.max_rel_dev)?;
    d.set_item("tangent_max_rel_dev", v.tangent_max_rel_dev)?;
    d.set_item("chaos_max_rel_dev", v.chaos.map(|c| c.max_rel))?;
    d.set_item("section_max_rel_dev", v.section.map(|s| s.max_rel))?;
    d.set_item(
        "section_count_mismatch",
        v.section.map(|s| s.count_mismatch),
    )?;
    d.set_item("finite_mismatch", v.finite_mismatch)?;
    d.set_item("both_nonfinite", v.both_nonfinite)?;
    d.set_item("compared", v.compared)?;
    d.set_item("gpu", &v.gpu)?;
    d.set_item("tolerance", job.tolerance)?;
    d.set_item("failure", v.failure(job.tolerance))?;
    d.set_item("passed", v.passes(job.tolerance))?;
    Ok(d)
}

/// `phaseflow bench ARGS`: the table's rows as JSON (the CSV's columns) and its printed lines.
#[pyfunction(name = "bench")]
#[pyo3(signature = (args, progress = None))]
fn py_bench(
    py: Python<'_>,
    args: Vec<String>,
    progress: Option<Bound<'_, PyAny>>,
) -> PyResult<(String, Vec<String>)> {
    let Command::Bench(a) = parse("bench", args)? else {
        return Err(PyRuntimeError::new_err("not a benchmark"));
    };
    let config = BenchConfig::try_from(&a).map_err(|e| py_error(&e))?;
    let report = drive(py, progress.as_ref(), || run::bench(&config))?;
    let rows =
        serde_json::to_string(&report.rows).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    Ok((rows, report.table(&config, &phaseflow::cli::flags::message)))
}

/// `phaseflow resume DIR`: ("complete", None) for a finished folder, ("run", summary) or
/// ("study", files) for what was continued.
#[pyfunction(name = "resume")]
#[pyo3(signature = (args, progress = None))]
fn py_resume<'py>(
    py: Python<'py>,
    args: Vec<String>,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<(String, Option<Bound<'py, PyDict>>)> {
    let Command::Resume(a) = parse("resume", args)? else {
        return Err(PyRuntimeError::new_err("not a resume"));
    };
    quiet(a.quiet);
    let dir = a.dir;
    let complete = dir.join(phaseflow::output::folder::MANIFEST).is_file();
    if dir.join(study::STUDY_FILE).is_file() {
        if complete {
            return Ok(("complete".into(), None));
        }
        let outcome = drive(py, progress.as_ref(), || study::resume_study(&dir))?;
        return Ok(("study".into(), Some(study_dict(py, &dir, &outcome)?)));
    }
    match drive(py, progress.as_ref(), || run::resume_run(&dir))? {
        run::Resumed::Complete => Ok(("complete".into(), None)),
        run::Resumed::Finished(s) => Ok(("run".into(), Some(summary_dict(py, s)?))),
    }
}

/// The systems, methods (with `method check --json`'s verdicts), presets and ensemble kinds,
/// as JSON: `phaseflow list` as data.
#[pyfunction(name = "catalogue")]
fn py_catalogue() -> PyResult<String> {
    use serde_json::{json, Value};
    let systems: Vec<Value> = phaseflow::system::CATALOGUE
        .iter()
        .map(|s| {
            let params: Vec<Value> = s
                .params
                .iter()
                .map(|p| json!({"name": p.name, "default": p.default, "meaning": p.meaning}))
                .collect();
            json!({"name": s.name, "summary": s.summary, "params": params, "separable": s.separable})
        })
        .collect();
    let methods = phaseflow::method::all()
        .iter()
        .map(|m| {
            let verdicts =
                phaseflow::config::verdict::check_output(*m, true).map_err(|e| py_error(&e))?;
            let verdicts: Value = serde_json::from_str(&verdicts)
                .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
            Ok(json!({"name": m.name(), "summary": m.info().summary, "verdicts": verdicts}))
        })
        .collect::<PyResult<Vec<Value>>>()?;
    let presets: Vec<Value> = study::PRESETS
        .iter()
        .map(|(name, summary)| json!({"name": name, "summary": summary}))
        .collect();
    let ensembles: Vec<Value> = phaseflow::ensemble::KINDS
        .iter()
        .map(|(_, name, what)| json!({"name": name, "summary": what}))
        .collect();
    Ok(
        json!({"systems": systems, "methods": methods, "presets": presets, "ensembles": ensembles})
            .to_string(),
    )
}

/// `phaseflow method check NAME|FILE --json`: a method's verdicts as JSON.
#[pyfunction(name = "method_check")]
fn py_method_check(method: &str) -> PyResult<String> {
    let m = phaseflow::config::method_by_name_or_file(method).map_err(|e| py_error(&e))?;
    phaseflow::config::verdict::check_output(m, true).map_err(|e| py_error(&e))
}

/// The flags of a subcommand: (name, takes a value, may repeat), so keyword arguments map
/// onto them (`snapshot_every=10` → `--snapshot-every 10`; `tangent=True` → `--tangent`).
#[pyfunction(name = "flags")]
fn py_flags(subcommand: &str) -> PyResult<Vec<(String, bool, bool)>> {
    let cli = Cli::command();
    let sub = cli
        .find_subcommand(subcommand)
        .ok_or_else(|| PyValueError::new_err(format!("no such command: {subcommand}")))?;
    Ok(sub
        .get_arguments()
        .filter_map(|arg| {
            let long = arg.get_long()?;
            let action = arg.get_action();
            Some((
                long.to_string(),
                action.takes_values(),
                matches!(action, ArgAction::Append),
            ))
        })
        .collect())
}

/// `phaseflow order ARGS`: the convergence study written into its folder (order.csv and the
/// figure), and the table the command line prints.
#[pyfunction(name = "order")]
#[pyo3(signature = (args, progress = None))]
fn py_order<'py>(
    py: Python<'py>,
    args: Vec<String>,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let Command::Order(a) = parse("order", args)? else {
        return Err(PyRuntimeError::new_err("not a convergence study"));
    };
    quiet(a.quiet);
    let job = phaseflow::config::accuracy::OrderJob::try_from(&a).map_err(|e| py_error(&e))?;
    let table = drive(py, progress.as_ref(), || {
        let study = run::order(&job)?;
        run::write_order(&study, &job.out.path, job.out.force)?;
        Ok(study.table())
    })?;
    let d = PyDict::new(py);
    d.set_item("out", job.out.path.display().to_string())?;
    d.set_item("table", table)?;
    Ok(d)
}

/// `phaseflow show-modified-hamiltonian ARGS`: the correction terms as the command line
/// prints them.
#[pyfunction(name = "show_modified_hamiltonian")]
fn py_show_modified_hamiltonian(args: Vec<String>) -> PyResult<String> {
    let Command::ShowModifiedHamiltonian(a) = parse("show-modified-hamiltonian", args)? else {
        return Err(PyRuntimeError::new_err("not show-modified-hamiltonian"));
    };
    phaseflow::config::show_modified(&a).map_err(|e| py_error(&e))
}

/// `phaseflow merge SHARD_DIR... --out DIR`: the shards' statistics and states merged into
/// `--out`; the folder.
#[pyfunction(name = "merge")]
fn py_merge(py: Python<'_>, args: Vec<String>) -> PyResult<String> {
    let Command::Merge(m) = parse("merge", args)? else {
        return Err(PyRuntimeError::new_err("not a merge"));
    };
    quiet(m.quiet);
    let dest = phaseflow::config::OutputDir {
        path: m.out.clone(),
        force: m.force,
    };
    drive(py, None, || run::merge(&m.shards, &dest).map(|_| ()))?;
    Ok(m.out.display().to_string())
}

/// `phaseflow plot DIR [--out FIGDIR]`: a run's or study's figures and report drawn again from
/// its files; the files written.
#[pyfunction(name = "plot")]
fn py_plot(py: Python<'_>, args: Vec<String>) -> PyResult<Vec<String>> {
    let Command::Plot(a) = parse("plot", args)? else {
        return Err(PyRuntimeError::new_err("not a plot"));
    };
    quiet(a.quiet);
    let outcome = drive(py, None, || study::plot_run(&a.dir, a.out.as_deref()))?;
    Ok(outcome
        .files
        .iter()
        .map(|f| f.display().to_string())
        .collect())
}

#[pymodule]
fn _phaseflow(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Python's SIGINT handler stays: `drive` polls it and asks the run to stop.
    interrupt::host_handles_signals();
    m.add_function(wrap_pyfunction!(py_run, m)?)?;
    m.add_function(wrap_pyfunction!(py_study, m)?)?;
    m.add_function(wrap_pyfunction!(py_validate, m)?)?;
    m.add_function(wrap_pyfunction!(py_bench, m)?)?;
    m.add_function(wrap_pyfunction!(py_resume, m)?)?;
    m.add_function(wrap_pyfunction!(py_catalogue, m)?)?;
    m.add_function(wrap_pyfunction!(py_method_check, m)?)?;
    m.add_function(wrap_pyfunction!(py_flags, m)?)?;
    m.add_function(wrap_pyfunction!(py_order, m)?)?;
    m.add_function(wrap_pyfunction!(py_merge, m)?)?;
    m.add_function(wrap_pyfunction!(py_plot, m)?)?;
    m.add_function(wrap_pyfunction!(py_show_modified_hamiltonian, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
