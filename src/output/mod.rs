//! Outputs: whole-file writes (temp file + rename) and the stats CSV. The `.npy` format
//! lives in `crate::npy` (it also reads `--input` files) and is re-exported here for writers.

pub mod folder;
pub use crate::npy;

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Write `bytes` to `path` via a temporary file in the same folder and a rename, so an
/// interrupted run never leaves a truncated file that looks complete.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic_parts(path, &[bytes])
}

/// `write_atomic` of the concatenation of `parts`, without building it in memory (a
/// checkpoint's arrays).
pub fn write_atomic_parts(path: &Path, parts: &[&[u8]]) -> Result<()> {
    let out_err = |source| Error::Output {
        path: path.to_path_buf(),
        source,
    };
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(out_err)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp: PathBuf = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        for bytes in parts {
            f.write_all(bytes)?;
        }
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(out_err)
}

/// Serialise rows with the csv crate and write the file whole.
/// A CSV file that grows a row at a time, each row flushed to the file as it is written: a
/// run's `stats.csv`, so an interrupted run keeps its statistics up to the last snapshot (its
/// folder then has no manifest, which is how an incomplete run is told from a complete one).
/// The finished file is byte for byte what `write_csv` writes for the same rows.
pub struct CsvRows {
    path: std::path::PathBuf,
    w: csv::Writer<std::fs::File>,
}

impl CsvRows {
    pub fn create(path: &Path) -> Result<Self> {
        let file = std::fs::File::create(path).map_err(|source| Error::Output {
            path: path.to_path_buf(),
            source,
        })?;
        Ok(CsvRows {
            path: path.to_path_buf(),
            w: csv::Writer::from_writer(file),
        })
    }

    /// Rows that go nowhere: an MPI rank other than 0 measures as rank 0 does but writes no
    /// files.
    pub fn discard() -> Result<Self> {
        let path = std::path::PathBuf::from(if cfg!(windows) { "NUL" } else { "/dev/null" });
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .map_err(|source| Error::Output {
                path: path.clone(),
                source,
            })?;
        Ok(CsvRows {
            path,
            w: csv::Writer::from_writer(file),
        })
    }

    /// Continue a file that already holds its header and some rows (a resumed run).
    pub fn append(path: &Path) -> Result<Self> {
        let file = std::fs::OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(|source| Error::Output {
                path: path.to_path_buf(),
                source,
            })?;
        Ok(CsvRows {
            path: path.to_path_buf(),
            w: csv::WriterBuilder::new()
                .has_headers(false)
                .from_writer(file),
        })
    }

    /// The file's length so far (every pushed row is flushed).
    pub fn bytes_written(&self) -> Result<u64> {
        std::fs::metadata(&self.path)
            .map(|m| m.len())
            .map_err(|source| Error::Output {
                path: self.path.clone(),
                source,
            })
    }

    /// Append one row (the header first, before the first row) and flush it to the file.
    pub fn push<R: serde::Serialize>(&mut self, row: &R) -> Result<()> {
        let err = |source: std::io::Error| Error::Output {
            path: self.path.clone(),
            source,
        };
        self.w
            .serialize(row)
            .map_err(|e| err(std::io::Error::other(e)))?;
        self.w.flush().map_err(err)
    }
}

pub fn write_csv<R: serde::Serialize>(path: &Path, rows: &[R]) -> Result<()> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in rows {
        w.serialize(r).map_err(|e| Error::Output {
            path: path.to_path_buf(),
            source: std::io::Error::other(e),
        })?;
    }
    let bytes = w.into_inner().map_err(|e| Error::Output {
        path: path.to_path_buf(),
        source: std::io::Error::other(e.to_string()),
    })?;
    write_atomic(path, &bytes)
}
