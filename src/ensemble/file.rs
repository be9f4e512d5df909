//! `--ensemble file`: initial states from CSV or `.npy` (N rows × 2d columns q1..qd p1..pd).

use std::path::{Path, PathBuf};

use super::loops::check_file_loop;
use super::resolve::need;
use super::{EnsembleRequest, InitialSet};
use crate::error::{Error, Field, Result};
use crate::invalid;
use crate::npy;
use crate::state::State;
use crate::system::System;

fn file_err(path: &Path, message: impl Into<String>) -> Error {
    Error::InputFile {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

/// An error about the initial-states file `path`, its message opening with the option's name.
fn input_err(path: &Path, rest: impl Into<String>) -> Error {
    Error::in_file(Field::Input, path, rest)
}

/// The bytes of a file the user named: a regular file (after symlinks; a device such as
/// /dev/zero, a FIFO or a directory is refused) of at most `limit` bytes. `what` says what to
/// give instead. Errors are messages for the user.
pub fn read_regular(path: &Path, limit: u64, what: &str) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let not_regular = |m: &std::fs::Metadata| {
        let kind = if m.is_dir() {
            "a directory"
        } else {
            "a device, FIFO or socket"
        };
        format!("not a regular file ({kind}); give {what}")
    };
    // Checked before opening: opening a FIFO would wait for a writer.
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read: {e}"))?;
    if !meta.is_file() {
        return Err(not_regular(&meta));
    }
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read: {e}"))?;
    let meta = file.metadata().map_err(|e| format!("cannot read: {e}"))?;
    if !meta.is_file() {
        return Err(not_regular(&meta));
    }
    let too_large = |len: u64| {
        format!(
            "the file holds {len} bytes, more than the {limit} bytes it may hold here; give {what}"
        )
    };
    if meta.len() > limit {
        return Err(too_large(meta.len()));
    }
    // The size was checked; `take` also bounds a file that grows while it is read.
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read: {e}"))?;
    if bytes.len() as u64 > limit {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(bytes)
}

/// Read N×2d states. CSV: comma-separated numbers, an optional header row, `#` comments.
pub fn read_states(path: &Path, d: usize) -> Result<State<f64>> {
    if !path.exists() {
        return Err(input_err(
            path,
            ": file not found (give a CSV or .npy file with q1..qd p1..pd columns)",
        ));
    }
    let is_npy = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("npy"));
    // Parsing takes up to about 10 bytes of memory per byte of file (CSV: text, values, state).
    let limit = crate::memory::available_memory().map_or(u64::MAX, |m| m / 10 * 9 / 10);
    let bytes = read_regular(path, limit, "a CSV or .npy file with q1..qd p1..pd columns")
        .map_err(|m| input_err(path, format!(": {m}")))?;
    let (rows, cols, data) = if is_npy {
        let arr = npy::decode_f64(&bytes).map_err(|m| file_err(path, m))?;
        (arr.rows, arr.cols, arr.data)
    } else {
        let text = String::from_utf8(bytes)
            .map_err(|e| file_err(path, format!("cannot read CSV: not UTF-8 text ({e})")))?;
        parse_csv(&text).map_err(|m| file_err(path, m))?
    };
    // Before the column check: an empty file or a header-only CSV has no columns either.
    if rows == 0 {
        return Err(input_err(
            path,
            " holds no points (zero rows): an ensemble needs at least one point",
        ));
    }
    if cols != 2 * d {
        return Err(input_err(
            path,
            format!(
                " has {cols} columns but the system has d = {d}: expected {} columns q1..qd p1..pd",
                2 * d
            ),
        ));
    }
    if let Some(i) = data.iter().position(|x| !x.is_finite()).map(|at| at / cols) {
        return Err(input_err(
            path,
            format!(
                " row {} holds a non-finite value; initial states must be finite",
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

/// Rows of comma-separated numbers; blank lines and lines starting with `#` are skipped; the
/// first line may be a header of column names. Errors name the line (counting every line).
fn parse_csv(text: &str) -> Result<(usize, usize, Vec<f64>), String> {
    let mut cols = None;
    let mut data = Vec::new();
    let mut rows = 0;
    let mut first = true;
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = trimmed.split(',').map(field).collect();
        let parsed: Result<Vec<f64>, _> = fields.iter().map(|f| f.parse::<f64>()).collect();
        let values = match parsed {
            Ok(v) => v,
            // Only a first line of names is a header: `0.1,O` is a bad row, not a header.
            Err(_) if first && fields.iter().all(|f| is_name(f)) => {
                first = false;
                continue;
            }
            Err(e) => {
                return Err(format!(
                    "malformed CSV at line {line}: {e} in {trimmed:?} (rows are numbers; an optional first line of column names such as q1,p1 is a header)"
                ))
            }
        };
        first = false;
        match cols {
            None => cols = Some(values.len()),
            Some(c) if c != values.len() => {
                return Err(format!(
                    "malformed CSV at line {line}: {} values where earlier rows had {c}",
                    values.len()
                ))
            }
            _ => {}
        }
        data.extend(values);
        rows += 1;
    }
    Ok((rows, cols.unwrap_or(0), data))
}

/// A CSV field without surrounding blanks or double quotes.
fn field(f: &str) -> &str {
    let f = f.trim();
    f.strip_prefix('"')
        .and_then(|f| f.strip_suffix('"'))
        .unwrap_or(f)
}

/// A header field: a column name like an identifier (`q1`, `p_2`): a letter or `_`, then
/// letters, digits and `_`; not a number (`inf`, `nan`).
fn is_name(field: &str) -> bool {
    let mut chars = field.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
        && field.parse::<f64>().is_err()
}

/// A `file` set's rows: read from `input`, or given in memory (`EnsembleRequest::rows`).
impl EnsembleRequest {
    /// `file`: `--input`, which must exist (made absolute, so config.toml finds it from
    /// anywhere), read here because the file decides the point count, and reading it also
    /// reports a bad file early; with `--loop`, its rows checked as one closed loop.
    pub(super) fn file(&self, system: &System) -> Result<(InitialSet, usize)> {
        if let Some(rows) = &self.rows {
            return self.rows_in_memory(rows, system);
        }
        let path = need(&self.input, Field::Input, " FILE (CSV or .npy)", "file")?;
        if !path.exists() {
            return Err(Error::in_file(Field::Input, &path, ": file not found"));
        }
        let input = std::fs::canonicalize(&path).unwrap_or(path);
        let nodes = read_states(&input, system.dof())?;
        if self.closed_loop {
            check_file_loop(&nodes, &input)?;
        }
        let set = InitialSet::File {
            input,
            closed_loop: self.closed_loop,
        };
        Ok((set, nodes.n))
    }

    /// `file` with its rows given in memory: no `input` beside them, the columns the
    /// system's, every value finite, and with `--loop` one closed loop.
    fn rows_in_memory(&self, rows: &State<f64>, system: &System) -> Result<(InitialSet, usize)> {
        let what = Path::new("the initial array");
        if self.input.is_some() {
            return Err(invalid!(Field::Input;
                "the initial states are given as an array; drop ", Field::Input
            ));
        }
        let refuse = |why: String| Err(invalid!(Field::Input; format!("the initial array {why}")));
        if rows.d != system.dof() {
            let want = 2 * system.dof();
            return refuse(format!(
                "has {} columns but the system has d = {}: expected {want} columns q1..qd p1..pd",
                2 * rows.d,
                system.dof()
            ));
        }
        if rows.n == 0 {
            return refuse(
                "holds no points (zero rows): an ensemble needs at least one point".into(),
            );
        }
        let finite = |i: usize| {
            (0..rows.d)
                .all(|k| rows.q[k * rows.n + i].is_finite() && rows.p[k * rows.n + i].is_finite())
        };
        if let Some(i) = (0..rows.n).find(|&i| !finite(i)) {
            return refuse(format!(
                "row {} holds a non-finite value; initial states must be finite",
                i + 1
            ));
        }
        if self.closed_loop {
            check_file_loop(rows, what)?;
        }
        let set = InitialSet::File {
            input: PathBuf::new(),
            closed_loop: self.closed_loop,
        };
        Ok((set, rows.n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<(usize, usize, Vec<f64>), String> {
        parse_csv(text)
    }

    /// Issue 15, fault 9: devices (and symlinks to them), FIFOs and directories are refused
    /// without reading them; a regular file is read up to its limit.
    #[test]
    fn only_regular_files_of_bounded_size_are_read() {
        let dir = tempfile::TempDir::new().unwrap();
        let link = dir.path().join("zero.npy");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        for path in [Path::new("/dev/zero"), &link, dir.path()] {
            let err = read_regular(path, u64::MAX, "a file").unwrap_err();
            assert!(
                err.contains("not a regular file"),
                "{}: {err}",
                path.display()
            );
        }
        let small = dir.path().join("small.csv");
        std::fs::write(&small, "0.1,0.2\n").unwrap();
        assert_eq!(read_regular(&small, 8, "a file").unwrap(), b"0.1,0.2\n");
        assert!(read_regular(&small, 7, "a file")
            .unwrap_err()
            .contains("holds 8 bytes, more than the 7"));
    }

    /// Issue 15, fault 7: any non-numeric first line was taken for the header, so a bad first
    /// data row was dropped without a word.
    #[test]
    fn only_a_line_of_names_is_a_header() {
        assert_eq!(read("q1,p1\n0.1,0.2\n").unwrap(), (1, 2, vec![0.1, 0.2]));
        assert_eq!(read("# c\nq,p_1\n0.1,0.2\n").unwrap().0, 1);
        assert_eq!(read("0.1,0.2\n0.3,0.4\n").unwrap().0, 2);
        assert_eq!(
            read("\"q\",\"p\"\r\n \"1\" , 2 \r\n").unwrap().2,
            vec![1.0, 2.0]
        );
        for (text, line) in [
            ("0.1,O\n0.3,0.4\n", 1),
            ("0.1,0  # c\n0.3,0.4\n", 1),
            ("q,\n0.3,0.4\n", 1),
            ("q,1p\n0.3,0.4\n", 1),
            ("q [m],p\n0.3,0.4\n", 1),
            ("\"q\",\"p\"\n0.1,0.2\n0.3\n", 3),
            ("# comment\n\n0.1,x\n0.3,0.4\n", 3),
            ("q,p\n0.1,0.2\n0.3,oops\n", 3),
        ] {
            let err = read(text).unwrap_err();
            assert!(
                err.contains(&format!("malformed CSV at line {line}:")),
                "{text:?}: {err}"
            );
        }
    }
}
