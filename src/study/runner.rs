//! `run_study`: resolve every run of a study, run each into its own subfolder, then write
//! summary.csv, the figures that have data and report.md.

use std::path::{Path, PathBuf};

use super::figures::{study_figures, PlottedRun, StudyFigure};
use super::format::fmt_g;
use super::readback::run_summary;
use super::report::report_md;
use super::summary::{summarise, SummaryRow};
use super::{Study, StudyFile, StudyRun, STUDY_FILE};
use crate::config::{OutputDir, RunBuilder, RunConfig};
use crate::error::{Error, Result};
use crate::input_err;
use crate::output::folder::{self, Layout};
use crate::output::{write_atomic, write_csv};
use crate::plot::{self, Figure};
use crate::run::{self, RunSummary};
use crate::system::System;

/// Result of a study: the summary rows, the files written and the figures (each with its
/// file stem; only those with data, which report.md embeds).
pub struct StudyOutcome {
    pub summary: Vec<SummaryRow>,
    pub files: Vec<PathBuf>,
    pub figures: Vec<(String, Figure)>,
}

/// Run every method of the study into `out/<method>/`, then write summary, plots and report.
pub fn run_study(
    study: &Study,
    out: &Path,
    force: bool,
    command_line: &str,
) -> Result<StudyOutcome> {
    let (names, configs) = resolve_all(study, out)?;
    // Every run's memory and kernel checks pass before the study folder is touched.
    for (cfg, _) in &configs {
        run::preflight(cfg)?;
    }
    // The study folder is checked, cleared (--force) and locked once; each method then runs
    // into a fresh subfolder of it. study.toml records the study for `resume`.
    let _lock = folder::prepare(out, Layout::Study, force)?;
    let record = StudyFile::new(study, command_line).to_text(&out.join(STUDY_FILE))?;
    write_atomic(&out.join(STUDY_FILE), record.as_bytes())?;
    let results = run_all(study, &configs, out, false)?;
    finish(study, out, &names, configs, &results, command_line)
}

/// `phaseflow resume DIR` for a study: the study from DIR/study.toml; finished methods read
/// back from their folders (not run again), an interrupted one continued from its checkpoint,
/// the rest run; then the summary, figures and report an uninterrupted study writes.
pub fn resume_study(out: &Path) -> Result<StudyOutcome> {
    // Taken before anything is read: a study still running keeps its folder.
    let _lock = folder::lock(out, folder::LockFor::Resume)?;
    folder::remove_temporaries(out)?;
    let (study, command_line) = StudyFile::read(out)?;
    let (names, configs) = resolve_all(&study, out)?;
    let results = run_all(&study, &configs, out, true)?;
    finish(&study, out, &names, configs, &results, &command_line)
}

/// The folder names of the study recorded in `out` (its study.toml), in the study's order:
/// where each run's files are (`out/<name>/`).
pub fn run_folders(out: &Path) -> Result<Vec<String>> {
    let (study, _) = StudyFile::read(out)?;
    Ok(run_names(&study.runs, study.base.system.as_deref()))
}

/// Each run's configuration and folder.
type RunDirs = Vec<(RunConfig, OutputDir)>;

/// Every run's folder name and configuration, resolved before any work so bad input fails
/// fast.
fn resolve_all(study: &Study, out: &Path) -> Result<(Vec<String>, RunDirs)> {
    if study.runs.is_empty() {
        return Err(input_err!("--methods: a study needs at least one method"));
    }
    let names = run_names(&study.runs, study.base.system.as_deref());
    let configs = study
        .runs
        .iter()
        .zip(&names)
        .map(|(r, name)| {
            let dir = OutputDir {
                path: out.join(name),
                force: false,
            };
            Ok((resolve_run(study, r)?, dir))
        })
        .collect::<Result<Vec<_>>>()?;
    // A distance from the reference is a distance between two trajectories.
    if let Some(k) = study.runs.iter().position(|r| r.reference) {
        let cfg = &configs[k].0;
        if cfg.ensemble.points != 1 || cfg.ensemble.is_loop() {
            return Err(input_err!(
                "--reference {}: a reference solution is compared with single trajectories, and this study starts {} points; give one initial state (--ensemble point --center Q,P)",
                study.runs[k].method.name(),
                cfg.ensemble.points
            ));
        }
    }
    Ok((names, configs))
}

/// summary.csv, the figures with data, report.md and the manifest, from every run's result.
fn finish(
    study: &Study,
    out: &Path,
    names: &[String],
    configs: Vec<(RunConfig, OutputDir)>,
    results: &[RunSummary],
    command_line: &str,
) -> Result<StudyOutcome> {
    let configs: Vec<RunConfig> = configs.into_iter().map(|(cfg, _)| cfg).collect();
    let mut files: Vec<PathBuf> = names
        .iter()
        .map(|name| out.join(name).join("stats.csv"))
        .collect();
    let plotted: Vec<PlottedRun> = names
        .iter()
        .zip(&study.runs)
        .zip(configs.iter().zip(results))
        .map(|((name, run), (cfg, result))| PlottedRun {
            name,
            run,
            system: &cfg.system,
            result,
            floor_label: super::figures::floor_label(cfg),
        })
        .collect();
    let systems: Vec<&str> = configs.iter().map(|c| c.system.name()).collect();
    let labels = super::figures::legend_labels(&study.runs.iter().collect::<Vec<_>>(), &systems);
    let arithmetic: Vec<String> = configs.iter().map(RunConfig::arithmetic).collect();
    let summary: Vec<SummaryRow> = configs
        .iter()
        .zip(&study.runs)
        .zip(results)
        .zip(super::reference::distances(&plotted, &labels, &arithmetic))
        .map(|(((cfg, r), res), reference)| SummaryRow {
            reference,
            ..summarise(cfg, r, res)
        })
        .collect();
    let records: Vec<_> = summary.iter().map(SummaryRow::record).collect();
    write_csv(&out.join("summary.csv"), &records)?;
    files.push(out.join("summary.csv"));
    let drawn = write_figures(&plotted, out, &mut files)?;
    let mut report = report_md(study, &configs[0], &summary, &drawn, command_line);
    report.push_str(&super::chaos::report_section(&plotted, &configs));
    report.push_str(&super::chaos::exits_section(&plotted));
    write_atomic(&out.join("report.md"), report.as_bytes())?;
    files.push(out.join("report.md"));
    folder::write_manifest(out)?;
    Ok(StudyOutcome {
        summary,
        files,
        figures: drawn.into_iter().map(|f| (f.stem, f.figure)).collect(),
    })
}

/// The configuration of one run of the study: the study's base settings with the run's method,
/// step, step count and (where it has one) system, statistics rows spread over the run (unless
/// --snapshot-every says otherwise) and the points kept at the portrait times.
fn resolve_run(study: &Study, r: &StudyRun) -> Result<RunConfig> {
    let mut f = study.base.clone();
    if let Some(sys) = &r.system {
        // A run on a built-in system of its own (a Lagrangian study's comparison with the
        // built-in pendulum, say) takes the study's parameters but none of its formula's
        // settings.
        if f.system.as_ref() != Some(sys) {
            f.forget_system();
        }
        f.system = Some(sys.clone());
    }
    // A study propagates the tangent map by default (it has no --tangent flag, only
    // --no-tangent); a variational system has no Hamiltonian to linearise, and a Lagrangian
    // with constraints no written tangent step, so their runs go without it instead of being
    // refused for a flag the user never gave.
    let variational = f
        .system
        .as_deref()
        .and_then(|name| System::info_by_name(name).ok())
        .is_some_and(|info| info.variational);
    let constrained = f.lagrangian.is_some() && f.constraints.is_some();
    if variational || constrained {
        f.tangent = Some(false);
    }
    if let Some(v) = &r.vary {
        super::chaos::apply_variation(&mut f, v);
    }
    f.method = Some(r.method.name().into());
    (f.method_file, f.method_source) = (None, crate::config::recorded_source(r.method));
    f.dt = Some(r.dt);
    f.steps = Some(r.steps);
    let chosen = f.snapshot_every.is_some();
    if !chosen {
        f.snapshot_every = Some((r.steps / study.stats_rows.max(1)).max(1));
    }
    let mut cfg = RunBuilder::from(f).build()?;
    // A single state's path is drawn through its snapshots: every step, or as many as
    // `PATH_SNAPSHOTS` allows.
    if !chosen && cfg.ensemble.points == 1 && !cfg.ensemble.is_loop() {
        cfg.snapshot_every = cfg
            .snapshot_every
            .min(r.steps.div_ceil(PATH_SNAPSHOTS).max(1));
    }
    Ok(cfg.with_portraits_at(&study.portrait_times))
}

/// The most snapshots a single state's run in a study takes for its path (one per step up to
/// this many steps): enough for a smooth orbit at every step of the presets' runs up to
/// 50 000 steps, while stats.csv and trajectory.csv stay a few megabytes.
const PATH_SNAPSHOTS: u64 = 50_000;

/// Run each configuration into its folder in turn, announcing it (unless --quiet). When
/// resuming, a finished method is read back from its folder (once its files are found to be
/// those its manifest records) and an interrupted one continued from its checkpoint. An interrupt names the study's folder for `resume`.
fn run_all(
    study: &Study,
    configs: &[(RunConfig, OutputDir)],
    out: &Path,
    resume: bool,
) -> Result<Vec<RunSummary>> {
    // The methods share the engine: it is said once.
    let _once = crate::console::Repeats::dropped();
    configs
        .iter()
        .zip(&study.runs)
        .enumerate()
        .map(|(i, ((cfg, dir), r))| {
            let finished = resume && dir.path.join(folder::MANIFEST).is_file();
            crate::info!(
                "phaseflow: study {} [{}/{}]: {} {} with h = {}, {} steps{}",
                study.name,
                i + 1,
                study.runs.len(),
                cfg.system.name(),
                r.method.name(),
                fmt_g(r.dt),
                r.steps,
                if finished {
                    " (finished before: read back)"
                } else {
                    ""
                }
            );
            let result = if finished {
                folder::verify_finished(&dir.path, out).and_then(|()| run_summary(cfg, &dir.path))
            } else if resume && std::fs::symlink_metadata(run::checkpoint::path(&dir.path)).is_ok()
            {
                // Anything at the checkpoint's path (a symlink too) is read, or refused.
                run::resume_in(cfg, &dir.path)
            } else {
                // A folder an interrupted study left without a checkpoint is run again.
                let dir = OutputDir {
                    path: dir.path.clone(),
                    force: resume,
                };
                run::run(cfg, &dir)
            };
            result.map_err(|e| match e {
                Error::Interrupted { step, .. } => Error::Interrupted {
                    path: out.to_path_buf(),
                    step,
                },
                e => e,
            })
        })
        .collect()
}

/// Write the figures that have data (a figure with nothing to draw is neither written nor
/// embedded), adding their files to `files`. Returns the figures drawn, which report.md embeds.
/// `plot DIR` draws a finished run's figures with it too.
pub(super) fn write_figures(
    runs: &[PlottedRun],
    out: &Path,
    files: &mut Vec<PathBuf>,
) -> Result<Vec<StudyFigure>> {
    let mut drawn = Vec::new();
    for fig in study_figures(runs) {
        if fig.figure.has_data() {
            files.extend(plot::write_figure(&fig.figure, &out.join(&fig.stem))?);
            drawn.push(fig);
        }
    }
    Ok(drawn)
}

/// Folder names: the method name (prefixed by the run's own system where it overrides the
/// study's), with the step appended when that name appears twice.
fn run_names(runs: &[StudyRun], base_system: Option<&str>) -> Vec<String> {
    let stem = |r: &StudyRun| match (&r.vary, r.system.as_deref()) {
        (Some(v), _) => v.folder(),
        (None, Some(sys)) if Some(sys) != base_system => format!("{sys}_{}", r.method.name()),
        _ => r.method.name().to_string(),
    };
    runs.iter()
        .map(|r| {
            let twice = runs.iter().filter(|o| stem(o) == stem(r)).count() > 1;
            if twice {
                format!("{}_h{}", stem(r), fmt_g(r.dt))
            } else {
                stem(r)
            }
        })
        .collect()
}
