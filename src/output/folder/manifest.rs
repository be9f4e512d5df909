//! A finished folder's `manifest.toml`, written last: `complete = true`, the notes of what the
//! run found, and every file under the folder with its size (`[files]`) and CRC-32
//! (`[crc32]`), so that what reads the folder back later (`merge`, `resume` of a sweep or a
//! study, `--force`) can tell the folder's own files and refuse one changed since.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

use super::{read_dir, LOCK};

/// Completion marker, written last: the folder's files, their sizes and CRC-32s.
pub const MANIFEST: &str = "manifest.toml";

/// The most a manifest read back may hold (about 10⁶ files listed).
const MAX_MANIFEST_BYTES: u64 = 1 << 27;

/// The first characters of every manifest phaseflow writes.
const SIGNATURE: &str = "# phaseflow";

/// Write `DIR/manifest.toml` last: every file under `dir` (relative path, size in bytes and
/// CRC-32), `complete = true`. A folder without it holds an interrupted (or failed) run. Notes
/// an earlier manifest of the folder held (`manifest_notes`) are kept.
pub fn write_manifest(dir: &Path) -> Result<()> {
    let notes = manifest_notes(dir);
    let notes: Vec<(&str, u64)> = notes.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    write_manifest_noting(dir, &notes)
}

/// `write_manifest` with notes on what the run found that its other files do not record
/// (`refine_capped_at_step`, `refine_stuck_at_step`), written as `key = value` lines before
/// the file list, so a study resumed later summarises the run as it was.
pub fn write_manifest_noting(dir: &Path, notes: &[(&str, u64)]) -> Result<()> {
    let mut files = Vec::new();
    list(dir, Path::new(""), &mut files)?;
    let mut text = format!(
        "{SIGNATURE} {}: written last; a folder without this file holds an interrupted run\ncomplete = true\n",
        env!("CARGO_PKG_VERSION")
    );
    for (key, value) in notes {
        text.push_str(&format!("{key} = {value}\n"));
    }
    let quoted = |rel: &Path| key(rel).replace('\\', "\\\\").replace('"', "\\\"");
    text.push_str("\n[files]\n");
    for (rel, size, _) in &files {
        text.push_str(&format!("\"{}\" = {size}\n", quoted(rel)));
    }
    text.push_str("\n[crc32]\n");
    for (rel, _, crc) in &files {
        text.push_str(&format!("\"{}\" = \"{crc:08x}\"\n", quoted(rel)));
    }
    crate::output::write_atomic(&dir.join(MANIFEST), text.as_bytes())
}

/// The notes of `dir`'s manifest (`key = integer` lines before its file list, but
/// `complete`); none without a manifest.
pub fn manifest_notes(dir: &Path) -> Vec<(String, u64)> {
    let text = read_text(dir).unwrap_or_default();
    text.lines()
        .take_while(|l| !l.starts_with('['))
        .filter_map(|l| {
            let (k, v) = l.split_once(" = ")?;
            (k != "complete").then_some((k.to_string(), v.trim().parse().ok()?))
        })
        .collect()
}

/// `dir`'s manifest as text, when it is a regular file of a readable size in UTF-8.
fn read_text(dir: &Path) -> Option<String> {
    let bytes = crate::ensemble::read_regular(&dir.join(MANIFEST), MAX_MANIFEST_BYTES, "").ok()?;
    String::from_utf8(bytes).ok()
}

/// Every file under `dir` but the lock, the manifest and hidden files (write_atomic's
/// temporaries): its path relative to `dir`, size and CRC-32.
fn list(dir: &Path, rel: &Path, files: &mut Vec<(PathBuf, u64, u32)>) -> Result<()> {
    for e in read_dir(dir)? {
        let name = e.file_name();
        let n = name.to_string_lossy();
        if rel.as_os_str().is_empty() && (n == LOCK || n == MANIFEST) || n.starts_with('.') {
            continue;
        }
        let path = e.path();
        let io = |source| Error::Output {
            path: path.clone(),
            source,
        };
        if e.metadata().map_err(io)?.is_dir() {
            list(&path, &rel.join(&name), files)?;
        } else {
            let (size, crc) = crate::checksum::crc32_file(&path).map_err(io)?;
            files.push((rel.join(&name), size, crc));
        }
    }
    Ok(())
}

/// A phaseflow manifest read back: the files it lists, each with its size and, in manifests
/// written since they record one, its CRC-32.
#[derive(Debug)]
pub struct Manifest {
    dir: PathBuf,
    files: BTreeMap<String, (u64, Option<u32>)>,
}

impl Manifest {
    /// `dir`'s manifest, when it has one that phaseflow wrote (`None` otherwise: no file, a
    /// file of someone else's, or one too damaged to read).
    pub fn read(dir: &Path) -> Option<Manifest> {
        let text = read_text(dir).filter(|t| t.starts_with(SIGNATURE))?;
        let table: toml::Table = text.parse().ok()?;
        let crcs = table.get("crc32").and_then(toml::Value::as_table);
        let crc_of = |rel: &str| {
            let hex = crcs?.get(rel)?.as_str()?;
            u32::from_str_radix(hex, 16).ok()
        };
        let files = table
            .get("files")?
            .as_table()?
            .iter()
            .filter_map(|(rel, size)| {
                let size = u64::try_from(size.as_integer()?).ok()?;
                Some((rel.clone(), (size, crc_of(rel))))
            })
            .collect();
        Some(Manifest {
            dir: dir.to_path_buf(),
            files,
        })
    }

    /// Whether the manifest records CRC-32s (`[crc32]`), as those written since it has one do;
    /// a folder of an earlier version can be checked by its sizes only.
    pub fn records_crcs(&self) -> bool {
        self.files.values().any(|(_, crc)| crc.is_some())
    }

    /// Whether the manifest lists the file at `rel` (relative to its folder, `/`-separated).
    pub fn lists(&self, rel: &Path) -> bool {
        self.files.contains_key(&key(rel))
    }

    /// `bytes`, read from the folder's file `rel`, checked to be what the manifest records of
    /// it (size and CRC-32): an input error naming the file when it is not, or when the
    /// manifest does not list it or records no CRC-32 of it. `fix` says what to do then.
    pub fn check(&self, rel: &Path, bytes: &[u8], fix: &str) -> Result<()> {
        let found = (bytes.len() as u64, crate::checksum::crc32(bytes));
        self.compare(rel, Ok(found), fix)
    }

    /// Every file the manifest lists checked on disk (`check`, a piece at a time): a file
    /// changed, cut, swapped or removed since the manifest was written is refused, naming it.
    pub fn verify(&self, fix: &str) -> Result<()> {
        for rel in self.files.keys() {
            let path = self.dir.join(rel);
            let found = match std::fs::symlink_metadata(&path) {
                Ok(m) if m.is_file() => Ok(crate::checksum::crc32_file(&path).map_err(
                    |source| Error::Output {
                        path: path.clone(),
                        source,
                    },
                )?),
                Ok(_) => Err("not a regular file (a link or a folder put in its place)"),
                Err(_) => Err("missing (removed since the run finished)"),
            };
            self.compare(Path::new(rel), found, fix)?;
        }
        Ok(())
    }

    /// The file `rel`, found with `found` (its size and CRC-32, or why it has none), against
    /// the manifest's record of it.
    fn compare(&self, rel: &Path, found: Result<(u64, u32), &str>, fix: &str) -> Result<()> {
        let manifest = self.dir.join(MANIFEST);
        let manifest = manifest.display();
        let why = match (self.files.get(&key(rel)), found) {
            (None, _) => format!("{manifest} does not list it"),
            (Some(_), Err(why)) => format!("{why}; {manifest} lists it"),
            (Some((_, None)), _) => format!(
                "{manifest} records no CRC-32 of it (written by an earlier version of phaseflow)"
            ),
            (Some(&(size, Some(crc))), Ok(found)) if (size, crc) == found => return Ok(()),
            (Some(&(size, Some(_))), Ok((len, _))) => format!(
                "changed since the run wrote it ({}, by the size and CRC-32 {manifest} records)",
                if size == len {
                    format!("other contents of the same {size} bytes")
                } else {
                    format!("{len} bytes, where the run wrote {size}")
                }
            ),
        };
        Err(Error::InputFile {
            path: self.dir.join(rel),
            message: format!("{why}; {fix}"),
        })
    }
}

/// A path as the manifest lists it: relative, with `/` between folders.
fn key(rel: &Path) -> String {
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}
