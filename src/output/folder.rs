//! The `--out` folder of one run or study: refused when it holds another run (unless
//! `--force`, which clears only what phaseflow wrote), locked for the run's lifetime (a file
//! lock on `DIR/.phaseflow.lock`, which records the holder's pid and host), and marked complete by
//! `manifest.toml`, written last.

use std::path::{Path, PathBuf};

use crate::error::{Error, Field, Piece, Result};
use crate::invalid;

mod lock;
mod manifest;
pub use lock::{lock, LockFor, OutLock, LOCK};
pub use manifest::{manifest_notes, write_manifest, write_manifest_noting, Manifest, MANIFEST};

/// A run's initial points given in memory (a library caller's array), which its config.toml's
/// `input` names.
pub const INITIAL_FILE: &str = "initial.npy";

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
                    | INITIAL_FILE
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

/// Which files count as phaseflow's in `foreign`: those it names so in the layout only (what
/// tells the layouts apart), or also those a folder's manifest lists (the files of the run
/// that wrote it, whatever they are named).
#[derive(Clone, Copy, PartialEq)]
enum Own {
    Named,
    NamedOrListed,
}

/// Entries of `dir` that phaseflow did not write (relative paths), given its layout: not a
/// name phaseflow gives in that layout, nor (`Own::NamedOrListed`) a file `dir`'s manifest
/// lists.
fn foreign(
    dir: &Path,
    (layout, own): (Layout, Own),
    rel: &Path,
    found: &mut Vec<PathBuf>,
) -> Result<()> {
    let manifest = (own == Own::NamedOrListed)
        .then(|| Manifest::read(dir))
        .flatten();
    let listed = |file: &Path| manifest.as_ref().is_some_and(|m| m.lists(file));
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
                (Layout::Run, sub) if RUN_SUBFOLDERS.contains(&sub) => {
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
                        let listed = listed(&Path::new(sub).join(e.file_name()));
                        if !(file && (own || listed)) {
                            found.push(rel.join(sub).join(e.file_name()));
                        }
                    }
                    true
                }
                // A run's Zarr store: its metadata and chunk files.
                (Layout::Run, super::zarr::STORE_DIR) => {
                    let mut files = Vec::new();
                    store_files(&path, Path::new(""), &mut files)?;
                    for f in files {
                        let listed = listed(&Path::new(&name).join(&f));
                        if !(own_store_file(&f) || listed) {
                            found.push(rel.join(&name).join(f));
                        }
                    }
                    true
                }
                // A method folder: a run's files only.
                (Layout::Study | Layout::Sweep, _) => {
                    foreign(&path, (Layout::Run, own), &rel.join(&name), found)?;
                    true
                }
                _ => false,
            }
        } else {
            entry.file_type().map(|t| t.is_file()).unwrap_or(false)
                && (own_file(&name, layout) || listed(Path::new(&name)))
        };
        if !ok {
            found.push(rel.join(&name));
        }
    }
    Ok(())
}

/// The files under a store's folder `dir` (relative to it, `rel` so far); what is not a
/// regular file or folder (a link) is listed too, so that it counts as foreign.
fn store_files(dir: &Path, rel: &Path, files: &mut Vec<PathBuf>) -> Result<()> {
    for e in read_dir(dir)? {
        let path = rel.join(e.file_name());
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            store_files(&e.path(), &path, files)?;
        } else if e.file_type().is_ok_and(|t| t.is_file()) {
            files.push(path);
        } else {
            // Never own: a path that no store file has.
            files.push(Path::new("..").join(path));
        }
    }
    Ok(())
}

/// Whether `rel` is a file a run's store holds (`write_atomic`'s temporaries of them too).
fn own_store_file(rel: &Path) -> bool {
    let name = rel.file_name().map(|n| n.to_string_lossy().into_owned());
    match name.as_deref().and_then(temporary_of) {
        Some(base) => super::zarr::own_file(&rel.with_file_name(base)),
        None => super::zarr::own_file(rel),
    }
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

/// The file that a folder of `layout` holds from its start, and no other layout's does.
fn record_file(layout: Layout) -> &'static str {
    match layout {
        Layout::Run => "config.toml",
        Layout::Study => "study.toml",
        Layout::Sweep => "sweep.toml",
        Layout::Order => "order.csv",
    }
}

/// The layout whose files `dir` holds: `layout` when nothing in it is foreign to it, else
/// another layout whose folder phaseflow writes (a run's folder given to `study`, a sweep's to
/// `run`), told apart by the names of their files first, then (a folder with its layout's
/// `record_file`) with the files its manifest lists counted too; a folder with files of none
/// of them is refused, naming those foreign to `layout`.
fn layout_found(dir: &Path, layout: Layout) -> Result<Layout> {
    let other_layouts: &[Layout] = match layout {
        Layout::Run => &[Layout::Study, Layout::Sweep],
        Layout::Study => &[Layout::Run, Layout::Sweep],
        Layout::Sweep => &[Layout::Run, Layout::Study],
        // A convergence study's folder is replaced only by another.
        Layout::Order => &[Layout::Order],
    };
    let foreign_to = |candidate: Layout, own: Own| -> Result<Vec<PathBuf>> {
        let mut found = Vec::new();
        foreign(dir, (candidate, own), Path::new(""), &mut found)?;
        Ok(found)
    };
    // (files not named so in the layout, the layout) of those whose manifests list the rest.
    let mut listed: Option<(usize, Layout)> = None;
    for &candidate in std::iter::once(&layout).chain(other_layouts) {
        let named = foreign_to(candidate, Own::Named)?.len();
        if named == 0 {
            return Ok(candidate);
        }
        let closer = listed.is_none_or(|(fewest, _)| named < fewest);
        let its_kind = dir.join(record_file(candidate)).is_file();
        if closer && its_kind && foreign_to(candidate, Own::NamedOrListed)?.is_empty() {
            listed = Some((named, candidate));
        }
    }
    if let Some((_, candidate)) = listed {
        return Ok(candidate);
    }
    let others = foreign_to(layout, Own::NamedOrListed)?;
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
    let guard = lock(dir, LockFor::NewRun)?;
    let found = layout_found(dir, layout)?;
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

/// The folders of a run's own files besides its top level: its checkpoint, saved states,
/// chaos indicators and a shard's parts.
const RUN_SUBFOLDERS: [&str; 4] = ["checkpoint", "states", "parts", "chaos"];

/// Remove the temporary files that write_atomic leaves when its process is killed mid-write
/// (`.<name>.tmp-<pid>`) from `dir` and its run subfolders; the caller holds `dir`'s lock, so
/// no live process is writing them. Nothing else is touched, nested run folders (a sweep's
/// parts, a study's methods) neither: each is cleaned when it is resumed under its own lock.
pub fn remove_temporaries(dir: &Path) -> Result<()> {
    let subfolders = RUN_SUBFOLDERS
        .iter()
        .map(|s| dir.join(s))
        .filter(|d| std::fs::symlink_metadata(d).is_ok_and(|m| m.is_dir()));
    for folder in std::iter::once(dir.to_path_buf()).chain(subfolders) {
        for e in read_dir(&folder)? {
            let name = e.file_name().to_string_lossy().into_owned();
            let file = e.file_type().is_ok_and(|t| t.is_file());
            if file && temporary_of(&name).is_some() {
                let path = e.path();
                std::fs::remove_file(&path).map_err(|source| Error::Output { path, source })?;
            }
        }
    }
    Ok(())
}

/// Check that the finished run in `dir`, a part of the sweep or study in `whole` that is being
/// resumed, still holds the files its manifest records (sizes and CRC-32s), so that none
/// changed since enters the sweep's or study's results; refused naming the file otherwise.
pub fn verify_finished(dir: &Path, whole: &Path) -> Result<()> {
    let fix = format!(
        "restore it, or delete {} and `phaseflow resume {}` runs it again",
        dir.display(),
        whole.display()
    );
    match Manifest::read(dir) {
        Some(m) => m.verify(&fix),
        None => Err(Error::InputFile {
            path: dir.join(MANIFEST),
            message: format!("not a manifest phaseflow wrote, or unreadable; {fix}"),
        }),
    }
}

/// Whether `dir` is the folder of a phaseflow run or study, finished (its manifest) or not
/// (a lock, a checkpoint, study.toml, or a run's config.toml beside its stats.csv).
pub fn holds_phaseflow(dir: &Path) -> bool {
    Manifest::read(dir).is_some()
        || dir.join(LOCK).exists()
        || dir.join("checkpoint").join("run.ckpt").exists()
        || dir.join("study.toml").is_file()
        || dir.join("config.toml").is_file() && dir.join("stats.csv").is_file()
}
