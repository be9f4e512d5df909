//! A snapshot's stats.csv row (`Row`: step, t, points, then every registered measurement's
//! columns) and what it is reduced from (`RowParts`: each measurement's mergeable parts, in
//! registry order). A run reduces its own parts into its row; shards of one ensemble (`run
//! --shard K/N`, MPI ranks) hand theirs on, and the parts of shards that start at chunk
//! boundaries, appended in shard order, are exactly the whole ensemble's parts: the merged row
//! is the same bit for bit.

use std::sync::LazyLock;

use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};

use super::measurement::{
    Cell, Column, Finish, Kind, Part, Reads, RunSetup, Shape, Snapshot, Summary,
};
use super::registry::MEASUREMENTS;
use crate::error::{Error, Result};

/// The stats.csv columns after step, t and points: the registered measurements' columns,
/// in registry order.
pub fn columns() -> &'static [Column] {
    static ALL: LazyLock<Vec<Column>> = LazyLock::new(|| {
        MEASUREMENTS
            .iter()
            .flat_map(|m| m.columns().iter().copied())
            .collect()
    });
    &ALL
}

/// One row of stats.csv (written by `run` and `merge`, read back by `plot` and `resume`).
/// Columns and units are documented in docs/output-files.md.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub step: u64,
    /// t = step · dt (computed from the step index, never accumulated)
    pub t: f64,
    /// Points measured.
    pub points: u64,
    /// One cell per column of `columns()`.
    cells: Vec<Cell>,
}

impl Row {
    /// The cell of `column` (empty where this row does not have the column).
    pub fn cell(&self, column: &Column) -> Cell {
        columns()
            .iter()
            .position(|c| c.name == column.name)
            .and_then(|i| self.cells.get(i).copied())
            .unwrap_or_else(|| column.empty())
    }

    pub fn real(&self, column: &Column) -> Option<f64> {
        self.cell(column).real()
    }

    pub fn count(&self, column: &Column) -> Option<u64> {
        self.cell(column).count()
    }
}

impl Serialize for Row {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("Row", 3 + self.cells.len())?;
        st.serialize_field("step", &self.step)?;
        st.serialize_field("t", &self.t)?;
        st.serialize_field("points", &self.points)?;
        for (c, cell) in columns().iter().zip(&self.cells) {
            st.serialize_field(c.name, cell)?;
        }
        st.end()
    }
}

/// stats.csv's rows, each column read by its name (columns it lacks are empty, columns it
/// has besides are ignored): exact, since the file holds shortest round-trip decimals. The
/// error names the row and the column.
pub fn read_rows(bytes: &[u8]) -> std::result::Result<Vec<Row>, String> {
    let mut reader = csv::Reader::from_reader(bytes);
    let header = reader.headers().map_err(|e| e.to_string())?.clone();
    let at = |name: &str| header.iter().position(|h| h == name);
    let required = |name: &str| at(name).ok_or_else(|| format!("no `{name}` column"));
    let (step, t, points) = (required("step")?, required("t")?, required("points")?);
    let found: Vec<Option<usize>> = columns().iter().map(|c| at(c.name)).collect();
    let mut rows = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let record = record.map_err(|e| format!("row {}: {e}", i + 1))?;
        let field = |k: usize, name: &str| -> std::result::Result<&str, String> {
            record
                .get(k)
                .ok_or_else(|| format!("row {}: no `{name}` value", i + 1))
        };
        let bad =
            |name: &str, text: &str| format!("row {}: `{name}` = {text:?} is not a number", i + 1);
        let count = |k: usize, name: &str| -> std::result::Result<u64, String> {
            let text = field(k, name)?;
            text.parse().map_err(|_| bad(name, text))
        };
        let time = field(t, "t")?;
        let mut cells = Vec::with_capacity(found.len());
        for (c, k) in columns().iter().zip(&found) {
            let text = match k {
                Some(k) => field(*k, c.name)?,
                None => "",
            };
            cells.push(match (c.kind, text) {
                (_, "") => c.empty(),
                (Kind::Count, x) => Cell::Count(Some(x.parse().map_err(|_| bad(c.name, x))?)),
                (Kind::Real, x) => Cell::Real(Some(x.parse().map_err(|_| bad(c.name, x))?)),
            });
        }
        rows.push(Row {
            step: count(step, "step")?,
            t: time.parse().map_err(|_| bad("t", time))?,
            points: count(points, "points")?,
            cells,
        });
    }
    Ok(rows)
}

/// summary.csv's columns from the measurements (those with a `Column::summary`), with their
/// values over a run's `rows`; written after the columns summary.csv has always had.
pub fn summary_cells(rows: &[Row]) -> NamedCells {
    NamedCells(
        columns()
            .iter()
            .filter_map(|c| match c.summary? {
                Summary::Max => Some((
                    c.name,
                    match c.kind {
                        Kind::Count => Cell::Count(rows.iter().filter_map(|r| r.count(c)).max()),
                        Kind::Real => Cell::Real(
                            rows.iter()
                                .filter_map(|r| r.real(c))
                                .filter(|x| x.is_finite())
                                .reduce(f64::max),
                        ),
                    },
                )),
            })
            .collect(),
    )
}

/// Cells with their column names, written as the columns of a CSV record (after another
/// record's: `(&row, &named)` serialises both, header too).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NamedCells(pub Vec<(&'static str, Cell)>);

impl Serialize for NamedCells {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("NamedCells", self.0.len())?;
        for (name, cell) in &self.0 {
            st.serialize_field(name, cell)?;
        }
        st.end()
    }
}

/// What a snapshot's row is reduced from (see the module doc).
#[derive(Debug, Clone, PartialEq)]
pub struct RowParts {
    /// Points measured.
    pub points: u64,
    /// One part per registered measurement, in registry order.
    parts: Vec<Part>,
}

impl Default for RowParts {
    fn default() -> Self {
        RowParts {
            points: 0,
            parts: MEASUREMENTS
                .iter()
                .map(|m| Part::empty(m.shape()))
                .collect(),
        }
    }
}

/// Whether a run's snapshots need the host state for the measurements it takes, as each
/// declares (`Measurement::reads`), with the state's measurements taken on the device when
/// an `Acceleration` is (`accelerated`).
pub fn needs_host_state(run: &RunSetup, accelerated: bool) -> bool {
    MEASUREMENTS.iter().any(|m| {
        m.taken(run)
            && match m.reads() {
                Reads::HostState => true,
                Reads::StateOnDevice => !accelerated,
                Reads::Parts => false,
            }
    })
}

/// The first bytes of an encoded `RowParts`.
const MAGIC: &[u8; 8] = b"PFPARTS6";

/// Words before the measurements' parts: points, the number of measurements.
const HEADER: usize = 2;

impl RowParts {
    /// The snapshot's parts of `points` points: those `accelerated` gives (by measurement
    /// name), the others measured on `host` (which `needs_host_state` said to read).
    pub fn measure(
        run: &RunSetup,
        points: u64,
        host: Option<&Snapshot>,
        mut accelerated: Vec<(&'static str, Part)>,
    ) -> Self {
        let parts = MEASUREMENTS
            .iter()
            .map(|m| {
                let shape = m.shape();
                if !m.taken(run) || m.reads() == Reads::Parts {
                    return Part::empty(shape);
                }
                if let Some(i) = accelerated.iter().position(|(n, _)| *n == m.name()) {
                    return accelerated.swap_remove(i).1;
                }
                host.map_or(Part::empty(shape), |at| m.measure(at))
            })
            .collect();
        RowParts { points, parts }
    }

    /// The merged parts of the measurement named `name`.
    pub fn of(&self, name: &str) -> &Part {
        let i = MEASUREMENTS
            .iter()
            .position(|m| m.name() == name)
            .unwrap_or_else(|| unreachable!("no measurement is named {name}"));
        &self.parts[i]
    }

    /// Replace the parts of the measurement named `name` (tests build parts with it).
    #[cfg(test)]
    pub fn set(&mut self, name: &str, part: Part) {
        let i = MEASUREMENTS.iter().position(|m| m.name() == name).unwrap();
        self.parts[i] = part;
    }

    /// Append the parts of the points that follow these (the next shard's).
    pub fn append(&mut self, next: RowParts) {
        self.points += next.points;
        for (a, b) in self.parts.iter_mut().zip(next.parts) {
            a.append(b);
        }
    }

    /// The stats.csv row at `step`, time `t` (`RunConfig::time_at`); `first`: the run's step-0 row, once
    /// written.
    pub fn row(&self, run: &RunSetup, step: u64, t: f64, first: Option<&Row>) -> Row {
        let at = Finish {
            run,
            step,
            parts: self,
            first,
        };
        let mut cells = Vec::with_capacity(columns().len());
        for m in MEASUREMENTS {
            if m.taken(run) {
                let got = m.finish(&at);
                debug_assert_eq!(got.len(), m.columns().len(), "{}", m.name());
                cells.extend(got);
            } else {
                cells.extend(m.columns().iter().map(Column::empty));
            }
        }
        Row {
            step,
            t,
            points: self.points,
            cells,
        }
    }

    /// The parts as bytes (little-endian words; floats as their bits, so nothing is rounded).
    pub fn encode(&self) -> Vec<u8> {
        let mut w: Vec<u64> = vec![self.points, self.parts.len() as u64];
        for p in &self.parts {
            match p {
                Part::Derived => {}
                Part::Sum(n) => w.push(*n),
                Part::Max(x) => w.extend([u64::from(x.is_some()), x.unwrap_or(0.0).to_bits()]),
                Part::Chunks(words) => {
                    w.push(words.len() as u64);
                    w.extend(words);
                }
            }
        }
        let mut out = MAGIC.to_vec();
        for x in w {
            out.extend(x.to_le_bytes());
        }
        out
    }

    /// The largest encoding of the parts of `points` points (at most one chunk per point and
    /// one more, of every chunked measurement): how much a reader may read.
    pub fn max_len(points: usize) -> u64 {
        let chunks = points as u64 + 1;
        let words: u64 = MEASUREMENTS
            .iter()
            .map(|m| match m.shape() {
                Shape::Derived => 0,
                Shape::Sum => 1,
                Shape::Max => 2,
                Shape::Chunks(width) => 1 + chunks * width as u64,
            })
            .sum();
        (MAGIC.len() as u64) + 8 * (HEADER as u64 + words)
    }

    /// The parts `encode` wrote; `what` names the source in errors (a file's path).
    pub fn decode(bytes: &[u8], what: &str) -> Result<Self> {
        let bad = |why: &str| {
            Error::Input(format!(
                "{what}: not a phaseflow parts file ({why}); it is written by `run --shard K/N`, rerun that shard"
            ))
        };
        let body = bytes.strip_prefix(MAGIC).ok_or_else(|| bad("no header"))?;
        if body.len() % 8 != 0 {
            return Err(bad("truncated"));
        }
        let words: Vec<u64> = body
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        if words.len() < HEADER {
            return Err(bad("truncated"));
        }
        if words[1] != MEASUREMENTS.len() as u64 {
            return Err(bad(
                "written by another version of phaseflow, with other measurements",
            ));
        }
        let mut rest = &words[HEADER..];
        let mut take = |k: usize| -> Result<&[u64]> {
            if rest.len() < k {
                return Err(bad("its length does not match its counts"));
            }
            let (head, tail) = rest.split_at(k);
            rest = tail;
            Ok(head)
        };
        let mut parts = Vec::with_capacity(MEASUREMENTS.len());
        for m in MEASUREMENTS {
            parts.push(match m.shape() {
                Shape::Derived => Part::Derived,
                Shape::Sum => Part::Sum(take(1)?[0]),
                Shape::Max => {
                    let w = take(2)?;
                    Part::Max((w[0] != 0).then(|| f64::from_bits(w[1])))
                }
                Shape::Chunks(width) => {
                    let len = take(1)?[0];
                    let len = usize::try_from(len)
                        .ok()
                        .filter(|l| l % width == 0)
                        .ok_or_else(|| bad("its length does not match its counts"))?;
                    Part::Chunks(take(len)?.to_vec())
                }
            });
        }
        if !rest.is_empty() {
            return Err(bad("its length does not match its counts"));
        }
        Ok(RowParts {
            points: words[0],
            parts,
        })
    }
}
