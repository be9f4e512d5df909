//! Outputs: whole-file writes (temp file + rename) and the stats CSV. The `.npy` format
//! lives in `crate::npy` (it also reads `--input` files) and is re-exported here for writers.

pub mod folder;
pub mod target;
pub mod zarr;
pub use crate::npy;

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Write `bytes` to `path` via a temporary file in the same folder and a rename, so an
/// interrupted run never leaves a truncated file that looks complete. A `path` that is not a
/// regular file (a link, a FIFO, a device) is refused: the rename would replace it.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic_parts(path, &[bytes])
}

/// `write_atomic` of the concatenation of `parts`, without building it in memory (a
/// checkpoint's arrays).
pub fn write_atomic_parts(path: &Path, parts: &[&[u8]]) -> Result<()> {
    target::check_replaceable(path, None)?;
    // A folder the user may not write into is theirs to change; a full disk is a failure.
    let out_err = |source| target::unwritable(path, None, source);
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
    // A new file: never one a link left at the temporary name points to.
    let _ = std::fs::remove_file(&tmp);
    let result = (|| {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
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

/// A CSV file that grows a row at a time, each row written to the file whole as it comes: a
/// run's `stats.csv`, so an interrupted run keeps its statistics up to the last snapshot (its
/// folder then has no manifest, which is how an incomplete run is told from a complete one).
/// A row that cannot be written whole (a full disk) is cut back off, so the file always ends
/// with a complete row. The finished file is byte for byte what `write_csv` writes for the
/// same rows.
pub struct CsvRows {
    path: std::path::PathBuf,
    file: std::fs::File,
    /// The file's length: the header and the rows written whole so far.
    len: u64,
    /// Whether the next row goes after the header (a new file's first row).
    header: bool,
    /// The CRC-32 of those bytes, kept as they are written.
    crc: crate::checksum::Sealer,
}

/// Where `CsvRows::discard` writes.
const DISCARDED: &str = if cfg!(windows) { "NUL" } else { "/dev/null" };

impl CsvRows {
    pub fn create(path: &Path) -> Result<Self> {
        target::check_replaceable(path, None)?;
        let file = std::fs::File::create(path).map_err(|source| Error::Output {
            path: path.to_path_buf(),
            source,
        })?;
        Ok(CsvRows {
            path: path.to_path_buf(),
            file,
            len: 0,
            header: true,
            crc: Default::default(),
        })
    }

    /// Rows that go nowhere: an MPI rank other than 0 measures as rank 0 does but writes no
    /// files.
    pub fn discard() -> Result<Self> {
        let path = std::path::PathBuf::from(DISCARDED);
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .map_err(|source| Error::Output {
                path: path.clone(),
                source,
            })?;
        Ok(CsvRows {
            path,
            file,
            len: 0,
            header: true,
            crc: Default::default(),
        })
    }

    /// Continue a file that already holds its header and some rows (a resumed run), whose
    /// CRC-32 is `crc` (checked by the caller: `checkpoint::rewind_stats`).
    pub fn append(path: &Path, crc: u32) -> Result<Self> {
        let err = |source| Error::Output {
            path: path.to_path_buf(),
            source,
        };
        let file = std::fs::OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(err)?;
        let len = file.metadata().map_err(err)?.len();
        Ok(CsvRows {
            path: path.to_path_buf(),
            file,
            len,
            header: false,
            crc: crate::checksum::Sealer::continuing(crc, len),
        })
    }

    /// The file's length so far (every pushed row is written).
    pub fn bytes_written(&self) -> u64 {
        self.len
    }

    /// The CRC-32 of the file so far.
    pub fn crc(&self) -> u32 {
        self.crc.crc()
    }

    /// Check that the file holds what this writer wrote, byte for byte (its length and
    /// CRC-32), before the run is marked complete: another process that cut or wrote into it
    /// meanwhile (it is appended to in place, not replaced) makes this a failure naming it.
    pub fn check_unchanged(&self) -> Result<()> {
        if self.discards() {
            return Ok(());
        }
        let found = crate::checksum::crc32_file(&self.path).map_err(|source| Error::Output {
            path: self.path.clone(),
            source,
        })?;
        if found == (self.len, self.crc()) {
            return Ok(());
        }
        let how = match found.0 == self.len {
            true => format!("other contents of the same {} bytes", self.len),
            false => format!("{} bytes, where it wrote {}", found.0, self.len),
        };
        Err(Error::Output {
            path: self.path.clone(),
            source: std::io::Error::other(format!(
                "another process changed the file while this run was writing it ({how}); the run is not marked complete (no manifest.toml): run it again into a folder nothing else writes to"
            )),
        })
    }

    /// Whether the rows go nowhere (`discard`).
    fn discards(&self) -> bool {
        self.path == Path::new(DISCARDED)
    }

    /// Append one row (the header first, before the first row), written in one piece; on a
    /// failed write the file is cut back to its previous length.
    pub fn push<R: serde::Serialize>(&mut self, row: &R) -> Result<()> {
        let err = |source: std::io::Error| Error::Output {
            path: self.path.clone(),
            source,
        };
        let mut w = csv::WriterBuilder::new()
            .has_headers(self.header)
            .from_writer(Vec::new());
        w.serialize(row)
            .map_err(|e| err(std::io::Error::other(e)))?;
        let bytes = w
            .into_inner()
            .map_err(|e| err(std::io::Error::other(e.to_string())))?;
        if let Err(source) = self.file.write_all(&bytes) {
            // A part of the row may have reached the file (a short write on a full disk).
            use std::io::Seek;
            let _ = self.file.set_len(self.len);
            let _ = self.file.seek(std::io::SeekFrom::Start(self.len));
            return Err(err(source));
        }
        self.len += bytes.len() as u64;
        self.crc.update(&bytes);
        self.header = false;
        Ok(())
    }
}

/// Serialise rows with the csv crate and write the file whole.
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
