//! `--ensemble file`: initial states from CSV or `.npy` (N rows × 2d columns q1..qd p1..pd).

use std::path::Path;

use super::State;
use crate::error::{Error, Result};
use crate::output::npy;

fn file_err(path: &Path, message: impl Into<String>) -> Error {
    Error::InputFile {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

/// Read N×2d states. CSV: comma-separated numbers, an optional header row, `#` comments.
pub fn read_states(path: &Path, d: usize) -> Result<State<f64>> {
    if !path.exists() {
        return Err(file_err(
            path,
            "--input: file not found (give a CSV or .npy file with q1..qd p1..pd columns)",
        ));
    }
    let is_npy = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("npy"));
    let (rows, cols, data) = if is_npy {
        let arr = npy::read_f64(path).map_err(|m| file_err(path, m))?;
        (arr.rows, arr.cols, arr.data)
    } else {
        read_csv(path)?
    };
    // Before the column check: an empty file or a header-only CSV has no columns either.
    if rows == 0 {
        return Err(file_err(
            path,
            "--input holds no points (zero rows): an ensemble needs at least one point",
        ));
    }
    if cols != 2 * d {
        return Err(file_err(
            path,
            format!("--input has {cols} columns but the system has d = {d}: expected {} columns q1..qd p1..pd", 2 * d),
        ));
    }
    if let Some(i) = data.iter().position(|x| !x.is_finite()).map(|at| at / cols) {
        return Err(file_err(
            path,
            format!(
                "--input row {} holds a non-finite value; initial states must be finite",
                i + 1
            ),
        ));
    }
    // Straight from the row-major values into the component-major state (no copy per row).
    let mut s = State::zeros(rows, d);
    for (i, row) in data.chunks_exact(cols).enumerate() {
        for k in 0..d {
            s.q[k * rows + i] = row[k];
            s.p[k * rows + i] = row[d + k];
        }
    }
    Ok(s)
}

fn read_csv(path: &Path) -> Result<(usize, usize, Vec<f64>)> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .comment(Some(b'#'))
        .trim(csv::Trim::All)
        .flexible(true)
        .from_path(path)
        .map_err(|e| file_err(path, format!("cannot read CSV: {e}")))?;
    let mut cols = None;
    let mut data = Vec::new();
    let mut rows = 0;
    for (line, rec) in reader.records().enumerate() {
        let rec = rec.map_err(|e| file_err(path, format!("malformed CSV: {e}")))?;
        let parsed: Result<Vec<f64>, _> = rec.iter().map(|f| f.parse::<f64>()).collect();
        let values = match parsed {
            Ok(v) => v,
            // A first line that is not numeric is a header.
            Err(_) if line == 0 => continue,
            Err(e) => {
                return Err(file_err(
                    path,
                    format!("malformed CSV at record {}: {e} in {:?}", line + 1, rec),
                ))
            }
        };
        match cols {
            None => cols = Some(values.len()),
            Some(c) if c != values.len() => {
                return Err(file_err(
                    path,
                    format!(
                        "malformed CSV at record {}: {} values where earlier rows had {c}",
                        line + 1,
                        values.len()
                    ),
                ))
            }
            _ => {}
        }
        data.extend(values);
        rows += 1;
    }
    Ok((rows, cols.unwrap_or(0), data))
}
