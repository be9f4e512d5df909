//! The `--out` folder of one run or study: refused when it holds another run (unless
//! `--force`, which clears only what phaseflow wrote), locked for the run's lifetime (a file
//! lock on `DIR/.phaseflow.lock`, which records the holder's pid and host), and marked complete by
//! `manifest.toml`, written last.

use std::path::{Path, PathBuf};

use crate::error::{Error, Field, Piece, Result};
use crate::invalid;

mod lock;
pub use lock::{lock, OutLock, LOCK};

/// Completion marker, written last: the folder's files and their sizes.
pub const MANIFEST: &str = "manifest.toml";

/// What a folder holds: a `run`'s files, or a study's (summary, figures, report, one run
/// folder per method).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Layout {
    Run,
    Study,
    /// `phaseflow order`: order.csv and its plot.
    Order,
    /// `phaseflow run --sweep`: a run folder per value (`part_<i>`), stats.csv, sweep.csv,
    /// sweep.toml and the figures.
    Sweep,
}

/// The figures of a study (and of `plot DIR`) besides the phase portraits (`phase_*`).
const STUDY_FIGURES: [&str; 6] = [
    "energy_error",
    "observable",
    "path",
    "area_ratio",
    "chaotic_fraction",
    "energy_error_against_parameter",
];

/// Whether `name` is a file that phaseflow writes at the top of a folder of this layout
/// (including the temporary files of an interrupted atomic write).
fn own_file(name: &str, layout: Layout) -> bool {
    if name == MANIFEST || name == LOCK {
        return true;
    }
    if let Some(base) = temporary_of(name) {
        return own_file(base, layout);
    }
    // Both layouts may hold figures and report.md: a study's, or those `plot DIR` drew for a run.
    let figure_or_report = name == "report.md"
        || name
            .strip_suffix(".png")
            .or_else(|| name.strip_suffix(".svg"))
            .is_some_and(|stem| STUDY_FIGURES.contains(&stem) || stem.starts_with("phase_"));
    figure_or_report
        || match layout {
            Layout::Run => matches!(
                name,
                "stats.csv"
                    | "config.toml"
                    | "trajectory.csv"
                    | "section.npy"
                    | "section.png"
                    | "section.svg"
                    | "map.png"
                    | "map.svg"
            ),
            Layout::Study => matches!(name, "summary.csv" | "study.toml"),
            Layout::Order => matches!(name, "order.csv" | "order.png" | "order.svg"),
            Layout::Sweep => matches!(
                name,
                "stats.csv"
                    | "sweep.csv"
                    | "sweep.toml"
                    | "sweep.png"
                    | "sweep.svg"
                    | "sweep_chaos.png"
                    | "sweep_chaos.svg"
            ),
        }
}

/// The file name whose temporary `name` is: write_atomic's `.<name>.tmp-<pid>`.
fn temporary_of(name: &str) -> Option<&str> {
    let (base, pid) = name.strip_prefix('.')?.rsplit_once(".tmp-")?;
    (!pid.is_empty() && pid.bytes().all(|b| b.is_ascii_digit())).then_some(base)
}

/// Whether `name` is `step_<k>.<ext>` as phaseflow names it: k a step number, written as
/// `format!` writes a u64 (no sign, no leading zeros).
fn step_file(name: &str, ext: &str) -> bool {
    name.strip_prefix("step_")
        .and_then(|n| n.strip_suffix(ext))
        .and_then(|k| k.strip_suffix('.'))
        .and_then(|k| k.parse::<u64>().ok().filter(|v| v.to_string() == k))
        .is_some()
}

/// The most a manifest read back may hold (about 10⁶ files listed).
const MAX_MANIFEST_BYTES: u64 = 1 << 27;

/// A small text file phaseflow wrote, read whole when it is a regular file of at most `limit`
/// bytes (`None` otherwise, or when it is not UTF-8).
fn read_small(path: &Path, limit: u64) -> Option<String> {
    let bytes = crate::ensemble::read_regular(path, limit, "").ok()?;
    String::from_utf8(bytes).ok()
}

/// Entries of `dir` that phaseflow did not write (relative paths), given its layout.
fn foreign(dir: &Path, layout: Layout, rel: &Path, found: &mut Vec<PathBuf>) -> Result<()> {
    for entry in read_dir(dir)? {
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        let is_dir = entry.file_type().map(|t| t.is_dir()).unwrap_or(false);
        // A method folder that a live `run` is writing into is not cleared.
        if name == LOCK && !rel.as_os_str().is_empty() {
            if let Some(refusal) = lock::held(dir, &path) {
                return Err(refusal);
            }
        }
        let ok = if is_dir {
            match (layout, name.as_str()) {
                // A run's checkpoint (`phaseflow resume`) and its saved states: their files
                // and write_atomic's temporaries of them.
                (Layout::Run, sub @ ("checkpoint" | "states" | "parts" | "chaos")) => {
                    for e in read_dir(&path)? {
                        let n = e.file_name().to_string_lossy().into_owned();
                        let n = temporary_of(&n).unwrap_or(&n);
                        let file = e.file_type().map(|t| t.is_file()).unwrap_or(false);
                        // Only the names phaseflow gives: `--force` removes these and nothing
                        // else (`step_abc.npy` is the user's).
                        let own = match sub {
                            "checkpoint" => n == "run.ckpt",
                            "parts" => step_file(n, "bin"),
                            _ => step_file(n, "npy"),
                        };
                        if !(file && own) {
                            found.push(rel.join(sub).join(e.file_name()));
                        }
                    }
                    true
                }
                // A method folder: a run's files only.
                (Layout::Study | Layout::Sweep, _) => {
                    foreign(&path, Layout::Run, &rel.join(&name), found)?;
                    true
                }
                _ => false,
            }
        } else {
            entry.file_type().map(|t| t.is_file()).unwrap_or(false) && own_file(&name, layout)
        };
        if !ok {
            found.push(rel.join(&name));
        }
    }
    Ok(())
}

fn read_dir(dir: &Path) -> Result<Vec<std::fs::DirEntry>> {
    let err = |source| Error::Output {
        path: dir.to_path_buf(),
        source,
    };
    let mut v = std::fs::read_dir(dir)
        .map_err(err)?
        .collect::<std::io::Result<Vec<_>>>()
        .map_err(err)?;
    v.sort_by_key(|e| e.file_name());
    Ok(v)
}

/// The layout whose files `dir` holds: `layout` when nothing in it is foreign to it (`others`
/// lists what is), else another layout whose folder phaseflow writes (a run's folder given to
/// `study`, a sweep's to `run`); a folder with files of none of them is refused, naming them.
fn layout_found(dir: &Path, layout: Layout, others: &[PathBuf]) -> Result<Layout> {
    let other_layouts: &[Layout] = match layout {
        Layout::Run => &[Layout::Study, Layout::Sweep],
        Layout::Study => &[Layout::Run, Layout::Sweep],
        Layout::Sweep => &[Layout::Run, Layout::Study],
        // A convergence study's folder is replaced only by another.
        Layout::Order => &[Layout::Order],
    };
    if others.is_empty() {
        return Ok(layout);
    }
    for &other in other_layouts {
        let mut as_other = Vec::new();
        foreign(dir, other, Path::new(""), &mut as_other)?;
        if as_other.is_empty() {
            return Ok(other);
        }
    }
    let names: Vec<String> = others.iter().map(|p| p.display().to_string()).collect();
    let shown = names.iter().take(5).cloned().collect::<Vec<_>>().join(", ");
    let more = if names.len() > 5 {
        format!(" and {} more", names.len() - 5)
    } else {
        String::new()
    };
    Err(invalid!(Field::Out;
        Field::Out.is(dir.display()),
        format!(": the folder holds files phaseflow did not write ({shown}{more}); choose a new or empty folder ("),
        Field::Force,
        " replaces only a previous phaseflow run)",
    ))
}

/// Make `dir` ready for a run of this layout and lock it. A missing or empty folder is used as
/// it is; one holding a previous phaseflow run is refused unless `force`, which removes that
/// run's files first; one holding anything phaseflow did not write is refused, naming it.
pub fn prepare(dir: &Path, layout: Layout, force: bool) -> Result<OutLock> {
    let guard = lock(dir)?;
    let mut others = Vec::new();
    foreign(dir, layout, Path::new(""), &mut others)?;
    let found = layout_found(dir, layout, &others)?;
    let previous: Vec<_> = read_dir(dir)?
        .into_iter()
        .filter(|e| e.file_name() != LOCK)
        .collect();
    if previous.is_empty() {
        return Ok(guard);
    }
    if !force {
        let interrupted = !dir.join(MANIFEST).exists()
            && (dir.join("checkpoint").is_dir()
                || dir.join("study.toml").is_file()
                || dir.join("sweep.toml").is_file());
        let what = match (found, layout) {
            (Layout::Run, Layout::Run) => "run",
            (Layout::Study, Layout::Study) => "study",
            (Layout::Sweep, Layout::Sweep) => "parameter sweep",
            (Layout::Sweep, _) => "parameter sweep (the files of `phaseflow run --sweep`)",
            (Layout::Run, Layout::Sweep) => "run (the files of `phaseflow run` without --sweep)",
            (Layout::Study, Layout::Sweep) => "study (the files of `phaseflow study`)",
            (Layout::Order, _) => "convergence study (the files of `phaseflow order`)",
            (_, Layout::Order) => "run or study",
            (Layout::Run, _) => "run (the files of `phaseflow run`, not a study)",
            (Layout::Study, _) => "study (the files of `phaseflow study`, not a run)",
        };
        let hint: Vec<Piece> = if interrupted {
            vec![
                format!(
                    "an interrupted phaseflow {what}; continue it with `phaseflow resume {}`, or pass ",
                    dir.display()
                )
                .into(),
                Field::Force.into(),
                " to replace it".into(),
            ]
        } else {
            vec![
                format!("a phaseflow {what}; pass ").into(),
                Field::Force.into(),
                " to replace it (its files are removed first) or choose another ".into(),
                Field::Out.into(),
            ]
        };
        let mut message = vec![
            Field::Out.is(dir.display()),
            ": the folder already holds ".into(),
        ];
        message.extend(hint);
        return Err(Error::Invalid {
            field: Field::Out,
            message: crate::error::Message(message),
        });
    }
    for e in previous {
        let path = e.path();
        let is_dir = e.file_type().map(|t| t.is_dir()).unwrap_or(false);
        let r = if is_dir {
            std::fs::remove_dir_all(&path)
        } else {
            std::fs::remove_file(&path)
        };
        r.map_err(|source| Error::Output { path, source })?;
    }
    Ok(guard)
}

/// Whether `dir` is the folder of a phaseflow run or study, finished (its manifest) or not
/// (a lock, a checkpoint, study.toml, or a run's config.toml beside its stats.csv).
pub fn holds_phaseflow(dir: &Path) -> bool {
    let manifest = read_small(&dir.join(MANIFEST), MAX_MANIFEST_BYTES).unwrap_or_default();
    manifest.starts_with("# phaseflow")
        || dir.join(LOCK).exists()
        || dir.join("checkpoint").join("run.ckpt").exists()
        || dir.join("study.toml").is_file()
        || dir.join("config.toml").is_file() && dir.join("stats.csv").is_file()
}

/// Write `DIR/manifest.toml` last: every file under `dir` (relative path and size in bytes),
/// `complete = true`. A folder without it holds an interrupted (or failed) run. Notes an
/// earlier manifest of the folder held (`manifest_notes`) are kept.
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
        "# phaseflow {}: written last; a folder without this file holds an interrupted run\ncomplete = true\n",
        env!("CARGO_PKG_VERSION")
    );
    for (key, value) in notes {
        text.push_str(&format!("{key} = {value}\n"));
    }
    text.push_str("\n[files]\n");
    for (rel, size) in files {
        let key = rel
            .to_string_lossy()
            .replace('\\', "\\\\")
            .replace('"', "\\\"");
        text.push_str(&format!("\"{key}\" = {size}\n"));
    }
    super::write_atomic(&dir.join(MANIFEST), text.as_bytes())
}

/// The notes of `dir`'s manifest (`key = integer` lines before its file list, but
/// `complete`); none without a manifest.
pub fn manifest_notes(dir: &Path) -> Vec<(String, u64)> {
    let text = read_small(&dir.join(MANIFEST), MAX_MANIFEST_BYTES).unwrap_or_default();
    text.lines()
        .take_while(|l| !l.starts_with('['))
        .filter_map(|l| {
            let (k, v) = l.split_once(" = ")?;
            (k != "complete").then_some((k.to_string(), v.trim().parse().ok()?))
        })
        .collect()
}

fn list(dir: &Path, rel: &Path, files: &mut Vec<(PathBuf, u64)>) -> Result<()> {
    for e in read_dir(dir)? {
        let name = e.file_name();
        let n = name.to_string_lossy();
        if rel.as_os_str().is_empty() && (n == LOCK || n == MANIFEST) || n.starts_with('.') {
            continue;
        }
        let meta = e.metadata().map_err(|source| Error::Output {
            path: e.path(),
            source,
        })?;
        if meta.is_dir() {
            list(&e.path(), &rel.join(&name), files)?;
        } else {
            files.push((rel.join(&name), meta.len()));
        }
    }
    Ok(())
}
