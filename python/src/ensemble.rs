//! `phaseflow.Ensemble`'s core: the library's `OpenRun` (an ensemble advanced on request, its
//! engine on a thread of its own, a GPU's state left on the device until read), each call
//! driven as the other entry points are (the GIL released, Ctrl-C polled).

use std::path::PathBuf;

use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use phaseflow::run::OpenRun;

use crate::keywords::{self, read};
use crate::settings::RunKeywords;
use crate::{arrays, drive, drive_posted, py_error, quiet};

/// An ensemble advanced step by step (`phaseflow.Ensemble` wraps it).
#[pyclass(name = "Ensemble", module = "phaseflow._phaseflow")]
pub struct Ensemble {
    run: OpenRun,
}

/// `run`'s result, a library error as Python's.
fn ok<T>(r: phaseflow::Result<T>) -> PyResult<T> {
    r.map_err(|e| py_error(&e))
}

#[pymethods]
impl Ensemble {
    /// The ensemble `settings` describe (`phaseflow.run`'s keywords but those of a whole
    /// run), or the points of `initial`; its initial set generated and measured.
    #[new]
    #[pyo3(signature = (settings, initial = None))]
    fn new(
        py: Python<'_>,
        settings: Bound<'_, PyDict>,
        initial: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let mut k = read("run", &settings, RunKeywords::EXEMPT, RunKeywords::read)?;
        quiet(k.quiet);
        if let Some(array) = initial {
            k.builder = k.builder.initial_rows(arrays::initial_rows(&array)?);
        }
        let file = std::mem::take(k.builder.settings_mut());
        let run = drive(py, None, move || OpenRun::new(file))?;
        Ok(Ensemble { run })
    }

    /// Advance by `steps`, measuring the snapshots passed.
    #[pyo3(signature = (steps, progress = None))]
    fn advance(
        &self,
        py: Python<'_>,
        steps: u64,
        progress: Option<Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        drive_posted(py, progress.as_ref(), || self.run.advance_posted(steps))
    }

    /// The step it is at.
    fn step(&self) -> PyResult<u64> {
        ok(self.run.step())
    }

    /// The time it is at, step · dt.
    fn time(&self) -> PyResult<f64> {
        ok(self.run.time())
    }

    /// The step size.
    fn dt(&self) -> PyResult<f64> {
        ok(self.run.dt())
    }

    /// The points now, (points, 2d) in the run's precision (read back from a GPU).
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let run = &self.run;
        let rows = drive(py, None, move || run.rows())?;
        arrays::rows_array(py, rows, None)
    }

    /// H of every point now (float64).
    fn energy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let run = &self.run;
        let h = drive(py, None, move || run.energies())?;
        Ok(PyArray1::from_vec(py, h))
    }

    /// The statistics rows so far, as (column, array) pairs.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        arrays::stats_columns(py, &ok(self.run.stats())?)
    }

    /// The statistics row of the points now, as (column, one-element array) pairs.
    fn measure<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let run = &self.run;
        let row = drive(py, None, move || run.measure())?;
        arrays::stats_columns(py, &[row])
    }

    /// stops.npy's rows so far as a (stopped, 4) array; None without stop conditions.
    fn stops<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let run = &self.run;
        let rows = drive(py, None, move || run.stops())?;
        rows.map(|r| arrays::stop_rows(py, r)).transpose()
    }

    /// The system's parameters in force.
    fn params<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (name, value) in ok(self.run.params())? {
            d.set_item(name, value)?;
        }
        Ok(d)
    }

    /// New parameter values from the next step on.
    fn set_params(&self, py: Python<'_>, params: Bound<'_, PyDict>) -> PyResult<()> {
        // Read as `params=` is: names, and numbers that are not bools.
        let given = PyDict::new(py);
        given.set_item("params", params)?;
        let values = keywords::Keywords::new("run", Some(&given)).params()?;
        let run = &self.run;
        drive(py, None, move || run.set_params(values))
    }

    /// A checkpoint folder that `phaseflow resume` continues to step `steps`.
    #[pyo3(signature = (path, steps, force = false))]
    fn save(
        &self,
        py: Python<'_>,
        path: Bound<'_, PyAny>,
        steps: u64,
        force: bool,
    ) -> PyResult<()> {
        let dir: PathBuf = keywords::path("path", &path)?;
        let run = &self.run;
        drive(py, None, move || run.save(dir, steps, force))
    }

    /// The engine, as `run` reports it.
    fn engine(&self) -> PyResult<String> {
        ok(self.run.engine())
    }
}
