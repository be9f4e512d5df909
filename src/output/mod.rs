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
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(out_err)
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
