//! The library's values as numpy arrays and back: every array handed to Python is a vector
//! the library filled, moved into numpy as its buffer (`PyArray1::from_vec`, then a reshape,
//! which is a view), never copied; the initial points are read from the array's own buffer.

use numpy::{PyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use phaseflow::measure::measurement::Cell;
use phaseflow::measure::row::{columns, Row};
use phaseflow::run::{InMemory, StateRows};
use phaseflow::state::State;

/// `values` moved into a numpy array of `shape` (no copy: the vector becomes its buffer).
fn shaped<'py, T: numpy::Element>(
    py: Python<'py>,
    values: Vec<T>,
    shape: &[usize],
) -> PyResult<Bound<'py, PyAny>> {
    PyArray1::from_vec(py, values)
        .into_any()
        .call_method1("reshape", (shape.to_vec(),))
}

/// Points as rows (`StateRows`): `blocks` blocks of (points, 2d) as an array of shape
/// (blocks, points, 2d), or with `blocks` None one block, (points, 2d).
pub fn rows_array<'py>(
    py: Python<'py>,
    rows: StateRows,
    blocks: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let columns = match &rows {
        StateRows::F32 { columns, .. } | StateRows::F64 { columns, .. } => *columns,
    };
    let per_block = rows.len() / columns.max(1) / blocks.unwrap_or(1).max(1);
    let shape = match blocks {
        Some(b) => vec![b, per_block, columns],
        None => vec![per_block, columns],
    };
    match rows {
        StateRows::F32 { rows, .. } => shaped(py, rows, &shape),
        StateRows::F64 { rows, .. } => shaped(py, rows, &shape),
    }
}

/// The statistics rows as stats.csv's columns, in its order: (name, array) pairs, a count
/// column int64 (float64 with NaN where a row lacks it), a real one float64 with NaN for an
/// empty cell, as a CSV reader gives them.
pub fn stats_columns<'py>(py: Python<'py>, rows: &[Row]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    let whole = |v: Vec<i64>| PyArray1::from_vec(py, v).into_any();
    let real = |v: Vec<f64>| PyArray1::from_vec(py, v).into_any();
    list.append(("step", whole(rows.iter().map(|r| r.step as i64).collect())))?;
    list.append(("t", real(rows.iter().map(|r| r.t).collect())))?;
    list.append((
        "points",
        whole(rows.iter().map(|r| r.points as i64).collect()),
    ))?;
    for c in columns() {
        let cells: Vec<Cell> = rows.iter().map(|r| r.cell(c)).collect();
        let counts: Option<Vec<i64>> = cells
            .iter()
            .map(|cell| match cell {
                Cell::Count(Some(n)) => Some(*n as i64),
                _ => None,
            })
            .collect();
        let array = match counts {
            Some(counts) if !rows.is_empty() => whole(counts),
            _ => real(cells.iter().map(|c| c.real().unwrap_or(f64::NAN)).collect()),
        };
        list.append((c.name, array))?;
    }
    Ok(list)
}

/// What a run without a folder kept, as the dict `phaseflow.run` reads: config (config.toml's
/// text), states (snapshots, points, 2d) and state_steps, chaos (snapshots, points,
/// indicators) and chaos_steps, section (crossings, columns); None where the run kept none.
pub fn in_memory<'py>(
    py: Python<'py>,
    d: &Bound<'py, PyDict>,
    m: InMemory,
    points: usize,
) -> PyResult<()> {
    d.set_item("config", m.config)?;
    let steps = |s: Vec<u64>| PyArray1::from_vec(py, s.into_iter().map(|k| k as i64).collect());
    let snapshots = m.state_steps.len();
    match m.states {
        Some(rows) => d.set_item("states", rows_array(py, rows, Some(snapshots))?)?,
        None => d.set_item("states", py.None())?,
    }
    d.set_item("state_steps", steps(m.state_steps))?;
    let blocks = m.chaos_steps.len();
    match blocks {
        0 => d.set_item("chaos", py.None())?,
        b => {
            let indicators = m.chaos.len() / (b * points.max(1));
            d.set_item("chaos", shaped(py, m.chaos, &[b, points, indicators])?)?
        }
    }
    d.set_item("chaos_steps", steps(m.chaos_steps))?;
    match m.section {
        Some(rows) => {
            let width = m.section_columns.max(1);
            let shape = [rows.len() / width, width];
            d.set_item("section", shaped(py, rows, &shape)?)?
        }
        None => d.set_item("section", py.None())?,
    }
    match m.frequencies {
        Some(rows) => {
            let width = rows.len() / points.max(1);
            d.set_item("frequencies", shaped(py, rows, &[points, width])?)?
        }
        None => d.set_item("frequencies", py.None())?,
    }
    match m.stops {
        Some(rows) => d.set_item("stops", stop_rows(py, rows)?)?,
        None => d.set_item("stops", py.None())?,
    }
    Ok(())
}

/// stops.npy's rows (point, step, t, condition) as a (stopped, 4) float64 array.
pub fn stop_rows(py: Python<'_>, rows: Vec<f64>) -> PyResult<Bound<'_, PyAny>> {
    let width = phaseflow::run::STOP_COLUMNS;
    let shape = [rows.len() / width, width];
    shaped(py, rows, &shape)
}

/// `initial=`: the points as rows q1..qd p1..pd of a C-contiguous float64 or float32 array in
/// the machine's byte order (the package converts any other once), read from its buffer
/// straight into the library's component-major state.
pub fn initial_rows(array: &Bound<'_, PyAny>) -> PyResult<State<f64>> {
    if let Ok(a) = array.extract::<PyReadonlyArray2<'_, f64>>() {
        return from_rows(a.shape(), a.as_slice()?);
    }
    if let Ok(a) = array.extract::<PyReadonlyArray2<'_, f32>>() {
        return from_rows(a.shape(), a.as_slice()?);
    }
    Err(PyValueError::new_err(
        "initial=: give an array of shape (points, 2d) of float32 or float64 values",
    ))
}

fn from_rows<T: Copy + Into<f64>>(shape: &[usize], values: &[T]) -> PyResult<State<f64>> {
    let (n, columns) = (shape[0], shape[1]);
    if columns == 0 || columns % 2 != 0 {
        return Err(PyValueError::new_err(format!(
            "initial=: the array has {columns} columns; give 2d columns q1..qd p1..pd per row"
        )));
    }
    let d = columns / 2;
    let mut s = State::zeros(n, d);
    for (i, row) in values.chunks_exact(columns).enumerate() {
        for k in 0..d {
            s.q[k * n + i] = row[k].into();
            s.p[k * n + i] = row[d + k].into();
        }
    }
    Ok(s)
}
