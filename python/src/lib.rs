//! `phaseflow._phaseflow`: the library's pipelines, called from Python.
//!
//! Every entry point takes its keyword arguments as a dict and reads each by the kind of value
//! its option takes (`keywords`) into the typed settings the pipeline takes: `run` and
//! `validate` set them on the library's `RunConfig::builder` (`settings`), whose `build` is
//! the command line's own check; `study`, `bench`, `order` and `show_modified_hamiltonian` fill
//! the same settings structs the command line's parser fills (`commands`), converted by the
//! same `TryFrom`s. No argv is built, and there is no second implementation here: only the
//! translation of arguments, results and errors. What each reader asks for is also the
//! entry point's description (`keywords`), against which the package's signatures are
//! tested.
//!
//! A run without `out` writes nothing: the library keeps what it would write and the arrays
//! come back as numpy arrays over its own vectors (`arrays`); `initial=` is read from the
//! array's buffer. `Ensemble` (`ensemble`) keeps a run open between calls.
//!
//! The work runs on a thread of its own with the GIL released; the calling thread, holding the
//! GIL in turns, polls Python's signal handlers (Ctrl-C raises `KeyboardInterrupt` there) and
//! turns an interrupt into the library's request to stop (`run::interrupt`: a checkpoint,
//! then `Error::Interrupted`), and reports progress to a Python callback.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use clap::{ArgAction, CommandFactory};
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

mod arrays;
mod commands;
mod ensemble;
mod keywords;
mod settings;

use keywords::{describe, keyword_of, read, Keywords};
use settings::RunKeywords;

use phaseflow::cli::Cli;
use phaseflow::config::{BenchConfig, OutputDir, ValidateJob};
use phaseflow::error::Field;
use phaseflow::run::{self, interrupt};
use phaseflow::sweep::{Axis, Sweep, SweepJob};
use phaseflow::{study, Error};

/// How often the calling thread looks at Python's signals and the progress while a run works.
const POLL: Duration = Duration::from_millis(50);

/// The library's error as Python's: input errors (the command line's exit code 2) are
/// `ValueError` with the options named as keyword arguments (`dt=-1e-05`, not `--dt -1e-05`),
/// an interrupt is `KeyboardInterrupt`, anything else `RuntimeError`.
pub(crate) fn py_error(e: &Error) -> PyErr {
    match e {
        Error::Interrupted { .. } => PyKeyboardInterrupt::new_err(e.to_string()),
        e if e.is_input() => PyValueError::new_err(keywords_in(&e.render(&keyword))),
        _ => PyRuntimeError::new_err(e.render(&keyword)),
    }
}

/// An option as a Python caller sets it: the keyword argument and, where the message gives
/// one, its value (`dt=-1e-05`, `backend="gpu"`, `params={"k": 2}`).
fn keyword(field: &Field, value: Option<&str>) -> String {
    let literal = |v: &str| match v.parse::<f64>() {
        Ok(_) => v.to_string(),
        Err(_) => format!("{v:?}"),
    };
    match (field, value) {
        (Field::Param(name), Some(v)) => format!("params={{{name:?}: {}}}", literal(v)),
        (Field::Param(name), None) => format!("params[{name:?}]"),
        (field, value) => {
            let flag = phaseflow::cli::flags::flag(field, None);
            let name = keyword_of(flag.trim_start_matches("--"));
            match value {
                Some(v) => format!("{name}={}", literal(v)),
                None => format!("{name}="),
            }
        }
    }
}

/// A message written for the command line, its flags written as keyword arguments:
/// `--out DIR` → `out=DIR`, `'--points <N>'` → `'points='`, `--dt 5` → `dt=5`, any other
/// `--flag` → `flag=`.
pub(crate) fn keywords_in(message: &str) -> String {
    let message = message.trim_start_matches("error: ");
    // clap's closing paragraphs (a tip, the usage, `--help`) are for the command line; its
    // list of possible values joins the line it belongs to.
    let message = message.split("\n\n").next().unwrap_or(message).trim_end();
    let message = message.replace("\n  ", " ");
    let longs = long_flags();
    let mut out = String::with_capacity(message.len());
    let mut rest = message.as_str();
    while let Some(at) = rest.find("--") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .unwrap_or(after.len());
        let flag = &after[..len];
        if !longs.iter().any(|l| l == flag) {
            out.push_str("--");
            rest = after;
            continue;
        }
        out.push_str(&keyword_of(flag));
        out.push('=');
        rest = value_after_flag(&after[len..]);
    }
    out.push_str(rest);
    out
}

/// What follows a flag in a message, less the space before its value or placeholder
/// (` DIR`, ` <N>`, ` 5`, ` g=1:2:3`), which then reads as the keyword's value.
fn value_after_flag(rest: &str) -> &str {
    let Some(next) = rest.strip_prefix(' ') else {
        return rest;
    };
    let word = next.split([' ', ',', ';', ')']).next().unwrap_or("");
    let placeholder = !word.is_empty() && word.chars().all(|c| c.is_ascii_uppercase() || c == '_');
    let value = word.trim_end_matches(':').parse::<f64>().is_ok() || word.contains('=');
    if let Some(metavar) = next.strip_prefix('<').or_else(|| next.strip_prefix("[<")) {
        // clap's `<N>` (or `[<BOOL>]`, an optional value): the keyword alone says it.
        return metavar
            .split_once('>')
            .map_or(rest, |(_, tail)| tail.strip_prefix(']').unwrap_or(tail));
    }
    if placeholder || value {
        next
    } else {
        rest
    }
}

/// Every long flag of every subcommand (`dt`, `out`, `snapshot-every`, ...).
fn long_flags() -> Vec<String> {
    Cli::command()
        .get_subcommands()
        .flat_map(|sub| sub.get_arguments().filter_map(|a| a.get_long()))
        .map(str::to_string)
        .collect()
}

/// Run `work` on a thread of its own with the GIL released, polling Python's signal handlers
/// and reporting `run::steps` to `progress` in between (`wait`). Ctrl-C (or an exception from
/// the callback) asks the run to stop at its next piece of work, which writes a checkpoint;
/// the exception is raised once the run has stopped. A panic is a `RuntimeError`.
pub(crate) fn drive<R: Send>(
    py: Python<'_>,
    progress: Option<&Bound<'_, PyAny>>,
    work: impl FnOnce() -> phaseflow::Result<R> + Send,
) -> PyResult<R> {
    interrupt::clear();
    run::clear_steps();
    // The worker hands its result over a channel, so the caller wakes the moment it is
    // there. (Waking the caller by `unpark` before the worker had finished lost the wake-up
    // whenever the caller looked between the two: it then slept a whole poll, 50 ms.)
    let (done, finished) = std::sync::mpsc::sync_channel::<phaseflow::Result<R>>(1);
    std::thread::scope(|scope| {
        let worker = scope.spawn(move || {
            // The receiver outlives the worker, so the send cannot fail.
            let _ = done.send(work());
        });
        let (result, stop) = wait(py, progress, finished);
        let result = match (result, py.detach(|| worker.join())) {
            (Some(result), Ok(())) => result,
            (_, joined) => {
                let panic = joined.err();
                let what = panic
                    .as_ref()
                    .and_then(|p| p.downcast_ref::<String>().map(String::as_str))
                    .or_else(|| panic.as_ref()?.downcast_ref::<&str>().copied())
                    .unwrap_or("unknown cause");
                return Err(PyRuntimeError::new_err(format!(
                    "phaseflow failed (a panic: {what})"
                )));
            }
        };
        settle(py, progress, stop, result)
    })
}

/// `drive` for work already sent to a thread of the library's (an open run's): its answer
/// waited for on `reply` as `drive` waits for its worker's, without a thread of its own (a
/// short advance would otherwise pay for starting one, about 50 µs).
pub(crate) fn drive_posted<R: Send>(
    py: Python<'_>,
    progress: Option<&Bound<'_, PyAny>>,
    post: impl FnOnce() -> phaseflow::Result<run::Reply<R>>,
) -> PyResult<R> {
    interrupt::clear();
    run::clear_steps();
    let reply = post().map_err(|e| py_error(&e))?;
    let (result, stop) = wait(py, progress, reply);
    let result = result.unwrap_or_else(|| Err(run::run_thread_ended()));
    settle(py, progress, stop, result)
}

/// The answer on `answer` (`None`: its sender went away without one), waited for with the GIL
/// released, Python's signal handlers polled and `progress` called every `POLL` meanwhile; and
/// the exception one of those raised (the run asked to stop: `interrupt::request`).
fn wait<R: Send>(
    py: Python<'_>,
    progress: Option<&Bound<'_, PyAny>>,
    answer: Receiver<R>,
) -> (Option<R>, Option<PyErr>) {
    let mut answer = answer;
    let mut stop: Option<PyErr> = None;
    loop {
        // The receiver goes to the GIL-free wait and comes back (it is Send, not Sync).
        let (received, back) = py.detach(move || (answer.recv_timeout(POLL), answer));
        answer = back;
        match received {
            Ok(result) => return (Some(result), stop),
            Err(RecvTimeoutError::Disconnected) => return (None, stop),
            Err(RecvTimeoutError::Timeout) => {}
        }
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
}

/// The outcome of driven work: `result`, or the exception that stopped it (`stop`); the last
/// progress reported first.
fn settle<R>(
    py: Python<'_>,
    progress: Option<&Bound<'_, PyAny>>,
    stop: Option<PyErr>,
    result: phaseflow::Result<R>,
) -> PyResult<R> {
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
}

/// `--quiet` as the binary sets it: the library's notes on stderr follow the flag.
pub(crate) fn quiet(q: bool) {
    phaseflow::console::set_quiet(q);
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
        Some(state) => d.set_item("final_state", arrays::rows_array(py, *state, None)?)?,
        None => d.set_item("final_state", py.None())?,
    }
    if let Some(memory) = s.memory {
        d.set_item("stats", arrays::stats_columns(py, &s.rows)?)?;
        let points = s.rows.first().map_or(0, |r| r.points as usize);
        arrays::in_memory(py, &d, *memory, points)?;
    }
    Ok(d)
}

/// `phaseflow.run(**settings)`: the run's summary (see `summary_dict`), its files in `out`,
/// or without `out` what it would have written (`run::run_in_memory`; a sweep needs its
/// folder); the settings set on the library's `RunBuilder` (`settings`), the points of
/// `initial` taken from its buffer, a sweep's (`sweep=`) parts run by the library's sweep
/// runner, one run per part.
#[pyfunction(name = "run")]
#[pyo3(signature = (settings, keep_final = true, progress = None, initial = None))]
fn py_run<'py>(
    py: Python<'py>,
    settings: Bound<'py, PyDict>,
    keep_final: bool,
    progress: Option<Bound<'py, PyAny>>,
    initial: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let mut k = read("run", &settings, RunKeywords::EXEMPT, RunKeywords::read)?;
    quiet(k.quiet);
    if let Some(array) = initial {
        k.builder = k.builder.initial_rows(arrays::initial_rows(&array)?);
    }
    let file = k.builder.settings_mut();
    if k.out.is_some() {
        file.out = k.out.take();
    }
    let axes = k.sweep.take().or_else(|| file.sweep.take());
    let in_memory = file.out.is_none() && axes.is_none();
    file.require("run", !in_memory).map_err(|e| py_error(&e))?;
    if in_memory {
        let config = k.builder.build().map_err(|e| py_error(&e))?;
        let summary = drive(py, progress.as_ref(), || {
            run::run_in_memory(&config, keep_final)
        })?;
        return summary_dict(py, summary);
    }
    let out = OutputDir {
        path: file.out.take().unwrap_or_default(),
        force: k.force,
    };
    if let Some(axes) = axes {
        let sweep = Axis::parse_all(&axes)
            .and_then(|axes| Sweep::new(k.builder, axes))
            .map_err(|e| py_error(&e))?;
        let job = SweepJob { sweep, out };
        let outcome = drive(py, progress.as_ref(), || phaseflow::sweep::run_sweep(&job))?;
        let names = outcome.parts.iter().map(|p| p.dir.as_str());
        return sweep_dict(py, &job.out.path, names);
    }
    let config = k.builder.build().map_err(|e| py_error(&e))?;
    let summary = drive(py, progress.as_ref(), || {
        run::run_keeping_final(&config, &out, keep_final)
    })?;
    summary_dict(py, summary)
}

/// `phaseflow.study(**settings)`: the files written (summary.csv, figures, report.md) and the
/// folder; `command_line` is recorded in study.toml and report.md.
#[pyfunction(name = "study")]
#[pyo3(signature = (settings, command_line, progress = None))]
fn py_study<'py>(
    py: Python<'py>,
    settings: Bound<'py, PyDict>,
    command_line: String,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let a = read("study", &settings, &[], commands::study)?;
    quiet(a.output.quiet);
    let out = study::out_dir(a.output.out.clone()).map_err(|e| py_error(&e))?;
    let st = study::Study::try_from(&a).map_err(|e| py_error(&e))?;
    let outcome = drive(py, progress.as_ref(), || {
        study::run_study(&st, &out, a.output.force, &command_line)
    })?;
    study_dict(py, &out, &outcome)
}

/// What a finished sweep hands back: its folder and its parts' folder names, in part order.
fn sweep_dict<'py, 'a>(
    py: Python<'py>,
    out: &Path,
    parts: impl Iterator<Item = &'a str>,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("out", out.display().to_string())?;
    d.set_item("sweep_parts", PyList::new(py, parts.collect::<Vec<_>>())?)?;
    Ok(d)
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

/// `validate`'s keywords: `run`'s and the tolerance.
fn validate_keywords(k: &mut Keywords<'_, '_>) -> PyResult<(RunKeywords, Option<f64>)> {
    Ok((RunKeywords::read(k)?, k.real("tolerance")?))
}

/// `phaseflow.validate(**settings)`: the deviations between the GPU and CPU engines, the
/// tolerance and, when it fails, why.
#[pyfunction(name = "validate")]
#[pyo3(signature = (settings, progress = None))]
fn py_validate<'py>(
    py: Python<'py>,
    settings: Bound<'py, PyDict>,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let (mut k, tolerance) = read(
        "validate",
        &settings,
        RunKeywords::EXEMPT,
        validate_keywords,
    )?;
    quiet(k.quiet);
    phaseflow::config::refuse_unused_validate_options(|option| {
        let keyword = keyword_of(option);
        // A switch set to False is not given.
        match settings.get_item(&keyword) {
            Ok(Some(v)) if !v.is_none() => v.extract::<bool>().unwrap_or(true),
            _ => false,
        }
    })
    .map_err(|e| py_error(&e))?;
    let file = k.builder.settings_mut();
    file.sweep = k.sweep.take();
    let job =
        ValidateJob::from_settings(std::mem::take(file), tolerance).map_err(|e| py_error(&e))?;
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

/// `phaseflow.bench(**settings)`: the table's rows as JSON (the CSV's columns) and its
/// printed lines.
#[pyfunction(name = "bench")]
#[pyo3(signature = (settings, progress = None))]
fn py_bench<'py>(
    py: Python<'py>,
    settings: Bound<'py, PyDict>,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<(String, Vec<String>)> {
    let a = read("bench", &settings, &[], commands::bench)?;
    let config = BenchConfig::try_from(&a).map_err(|e| py_error(&e))?;
    let report = drive(py, progress.as_ref(), || run::bench(&config))?;
    let rows =
        serde_json::to_string(&report.rows).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    Ok((rows, report.table(&config, &phaseflow::cli::flags::message)))
}

/// `phaseflow resume DIR`: what the folder holds ("run", "study" or "sweep") and what was
/// continued: a run's summary, a study's files or a sweep's part folders; None for a run or
/// study found complete (a complete sweep's part folders are listed all the same).
#[pyfunction(name = "resume")]
#[pyo3(signature = (dir, settings, progress = None))]
fn py_resume<'py>(
    py: Python<'py>,
    dir: Bound<'py, PyAny>,
    settings: Bound<'py, PyDict>,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<(&'static str, Option<Bound<'py, PyDict>>)> {
    use phaseflow::resume::Resumption;
    let dir = keywords::path("out", &dir)?;
    quiet(read("resume", &settings, &[], resume_keywords)?);
    Ok(
        match drive(py, progress.as_ref(), || phaseflow::resume::resume(&dir))? {
            Resumption::StudyComplete => ("study", None),
            Resumption::Study(outcome) => ("study", Some(study_dict(py, &dir, &outcome)?)),
            Resumption::SweepComplete => {
                let folders = phaseflow::sweep::part_folders(&dir).map_err(|e| py_error(&e))?;
                let names = folders.iter().filter_map(|f| f.file_name()?.to_str());
                ("sweep", Some(sweep_dict(py, &dir, names)?))
            }
            Resumption::Sweep(outcome) => {
                let names = outcome.parts.iter().map(|p| p.dir.as_str());
                ("sweep", Some(sweep_dict(py, &dir, names)?))
            }
            Resumption::Run(run::Resumed::Complete) => ("run", None),
            Resumption::Run(run::Resumed::Finished(s)) => ("run", Some(summary_dict(py, *s)?)),
        },
    )
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

/// The flags of a subcommand: (name, takes a value, may repeat, what the value is: "path",
/// "bool" or "text"), so keyword arguments map onto them (`snapshot_every=10` →
/// `--snapshot-every=10`; `tangent=True` → `--tangent`) and a path or yes/no keyword is given
/// one.
#[pyfunction(name = "flags")]
fn py_flags(subcommand: &str) -> PyResult<Vec<(String, bool, bool, &'static str)>> {
    let cli = Cli::command();
    let sub = cli
        .find_subcommand(subcommand)
        .ok_or_else(|| PyValueError::new_err(format!("no such command: {subcommand}")))?;
    Ok(sub
        .get_arguments()
        .filter_map(|arg| {
            let long = arg.get_long()?;
            let action = arg.get_action();
            let value = arg.get_value_parser().type_id();
            let kind = if value == std::any::TypeId::of::<PathBuf>() {
                "path"
            } else if value == std::any::TypeId::of::<bool>() {
                "bool"
            } else {
                "text"
            };
            Some((
                long.to_string(),
                action.takes_values(),
                matches!(action, ArgAction::Append),
                kind,
            ))
        })
        .collect())
}

/// `phaseflow.order(**settings)`: the convergence study written into its folder (order.csv
/// and the figure), and the table the command line prints.
#[pyfunction(name = "order")]
#[pyo3(signature = (settings, progress = None))]
fn py_order<'py>(
    py: Python<'py>,
    settings: Bound<'py, PyDict>,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let a = read("order", &settings, &[], commands::order)?;
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

/// `phaseflow.show_modified_hamiltonian(**settings)`: the correction terms as the command
/// line prints them.
#[pyfunction(name = "show_modified_hamiltonian")]
fn py_show_modified_hamiltonian(settings: Bound<'_, PyDict>) -> PyResult<String> {
    let a = read(
        "show-modified-hamiltonian",
        &settings,
        &[],
        commands::show_modified,
    )?;
    phaseflow::config::show_modified(&a).map_err(|e| py_error(&e))
}

/// `merge`'s keywords: the merged folder, replacing it, and the notes.
fn merge_keywords(k: &mut Keywords<'_, '_>) -> PyResult<(Option<PathBuf>, bool, bool)> {
    Ok((k.path("out")?, k.on("force")?, k.on("quiet")?))
}

/// `resume`'s keyword: the notes.
fn resume_keywords(k: &mut Keywords<'_, '_>) -> PyResult<bool> {
    k.on("quiet")
}

/// `plot`'s keywords: the figures' folder and the notes.
fn plot_keywords(k: &mut Keywords<'_, '_>) -> PyResult<(Option<PathBuf>, bool)> {
    Ok((k.path("out")?, k.on("quiet")?))
}

/// `phaseflow.merge(shards, **settings)`: the shards' statistics and states merged into
/// `out`; the folder.
#[pyfunction(name = "merge")]
fn py_merge(
    py: Python<'_>,
    shards: Vec<Bound<'_, PyAny>>,
    settings: Bound<'_, PyDict>,
) -> PyResult<String> {
    let shards = shards
        .iter()
        .map(|s| keywords::path("shards", s))
        .collect::<PyResult<Vec<PathBuf>>>()?;
    let (out, force, q) = read("merge", &settings, &[], merge_keywords)?;
    quiet(q);
    let dest = phaseflow::config::OutputDir {
        path: out.unwrap_or_default(),
        force,
    };
    drive(py, None, || run::merge(&shards, &dest).map(|_| ()))?;
    Ok(dest.path.display().to_string())
}

/// `phaseflow.plot(folder, **settings)`: a run's or study's figures and report drawn again
/// from its files; the files written.
#[pyfunction(name = "plot")]
fn py_plot(
    py: Python<'_>,
    folder: Bound<'_, PyAny>,
    settings: Bound<'_, PyDict>,
) -> PyResult<Vec<String>> {
    let dir = keywords::path("folder", &folder)?;
    let (out, q) = read("plot", &settings, &[], plot_keywords)?;
    quiet(q);
    let outcome = drive(py, None, || study::plot_run(&dir, out.as_deref()))?;
    Ok(outcome
        .files
        .iter()
        .map(|f| f.display().to_string())
        .collect())
}

/// The keywords of one entry point (`run`, `study`, `validate`, `bench`, `order`,
/// `show-modified-hamiltonian`, `merge`, `plot`, `resume`), as its reader asks for them:
/// (keyword, Python type, the help of its flag, whether it is required). The package's
/// signatures are tested against this list, and this list against the command line's flags.
/// The run folders of the study in `out`, in the study's order (from its study.toml).
#[pyfunction(name = "study_runs")]
fn py_study_runs(out: Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    let out = keywords::path("out", &out)?;
    study::run_folders(&out).map_err(|e| py_error(&e))
}

/// The names of the state components (q first, then p) of the system a run's config.toml text
/// records: the coordinate labels of `Run.to_xarray`.
#[pyfunction(name = "component_names")]
fn py_component_names(config_toml: &str) -> PyResult<Vec<String>> {
    phaseflow::config::recorded_component_names(config_toml).map_err(|e| py_error(&e))
}

/// `python -m phaseflow ARGS`: the command line itself, in this process, with `args` after the
/// program's name; its exit status back. The process is the command line's from now on: the
/// run's own SIGINT/SIGTERM handling (a checkpoint, then exit status 130) replaces Python's.
#[pyfunction(name = "cli")]
fn py_cli(py: Python<'_>, args: Vec<String>) -> u8 {
    interrupt::process_handles_signals();
    let argv: Vec<std::ffi::OsString> = std::iter::once("phaseflow".to_string())
        .chain(args)
        .map(Into::into)
        .collect();
    py.detach(|| phaseflow::app::main(argv))
}

#[pyfunction(name = "keywords")]
fn py_keywords(command: &str) -> PyResult<Vec<(String, String, String, bool)>> {
    let asked = match command {
        "run" => describe("run", RunKeywords::read)?,
        "validate" => describe("validate", validate_keywords)?,
        "study" => describe("study", commands::study)?,
        "bench" => describe("bench", commands::bench)?,
        "order" => describe("order", commands::order)?,
        "show-modified-hamiltonian" => {
            describe("show-modified-hamiltonian", commands::show_modified)?
        }
        "merge" => describe("merge", merge_keywords)?,
        "plot" => describe("plot", plot_keywords)?,
        "resume" => describe("resume", resume_keywords)?,
        other => {
            return Err(PyValueError::new_err(format!(
                "{other:?}: no entry point of that name"
            )))
        }
    };
    Ok(asked
        .into_iter()
        .map(|(keyword, kind)| {
            let (help, required) = keywords::flag_help(command, keyword);
            let help = keywords_in(&help.replace('\n', " "));
            (keyword.to_string(), kind.annotation(), help, required)
        })
        .collect())
}

#[pymodule]
fn _phaseflow(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Python's SIGINT handler stays: `drive` polls it and asks the run to stop.
    interrupt::host_handles_signals();
    // Notes name options as the keyword arguments that set them.
    phaseflow::console::set_naming(keyword);
    m.add_function(wrap_pyfunction!(py_run, m)?)?;
    m.add_class::<ensemble::Ensemble>()?;
    m.add_function(wrap_pyfunction!(py_study, m)?)?;
    m.add_function(wrap_pyfunction!(py_validate, m)?)?;
    m.add_function(wrap_pyfunction!(py_bench, m)?)?;
    m.add_function(wrap_pyfunction!(py_resume, m)?)?;
    m.add_function(wrap_pyfunction!(py_catalogue, m)?)?;
    m.add_function(wrap_pyfunction!(py_method_check, m)?)?;
    m.add_function(wrap_pyfunction!(py_flags, m)?)?;
    m.add_function(wrap_pyfunction!(py_keywords, m)?)?;
    m.add_function(wrap_pyfunction!(py_order, m)?)?;
    m.add_function(wrap_pyfunction!(py_merge, m)?)?;
    m.add_function(wrap_pyfunction!(py_plot, m)?)?;
    m.add_function(wrap_pyfunction!(py_show_modified_hamiltonian, m)?)?;
    m.add_function(wrap_pyfunction!(py_cli, m)?)?;
    m.add_function(wrap_pyfunction!(py_study_runs, m)?)?;
    m.add_function(wrap_pyfunction!(py_component_names, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
