//! `phaseflow plot DIR`: the figures a study draws for a run, and a short report.md, made
//! again from a finished `run` folder's files alone (config.toml, stats.csv, trajectory.csv,
//! states/step_<k>.npy). The run is read back into the `RunSummary` it returned and drawn by
//! the study's own figure code (`figures::study_figures`), so both commands draw the same
//! figures. A study folder already has its figures and report, and is refused.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::figures::{PlottedRun, StudyFigure};
use super::format::{count, fmt_g, fmt_ratio, opt, parameters};
use super::readback::{engine_used, read_portraits, read_stats, read_trajectory, refine_notes};
use super::report::{conditions_line, start_sentence};
use super::runner::write_figures;
use super::summary::{summarise, verdict, SummaryRow};
use super::StudyRun;
use crate::config::{load_recorded, RunBuilder, RunConfig};
use crate::error::{Error, Result};
use crate::input_err;
use crate::output::folder::{self, Manifest, MANIFEST};
use crate::output::target::{make_dir, resolved, CreatedDirs};
use crate::output::write_atomic;
use crate::plot::Figure;
use crate::run::RunSummary;

/// What `plot_run` wrote: the figures with data (PNG and SVG) and report.md, and those
/// figures (each with its file stem), as `StudyOutcome` gives a study's.
pub struct PlotOutcome {
    pub files: Vec<PathBuf>,
    pub figures: Vec<(String, Figure)>,
    /// Whether phase portraits were drawn (they need saved states, or a single point's path).
    pub portraits: bool,
}

/// Draw the figures and report.md of the finished run in `dir` into `out` (default: `dir`
/// itself, whose manifest then lists them too, so the folder stays complete).
pub fn plot_run(dir: &Path, out: Option<&Path>) -> Result<PlotOutcome> {
    if dir.join(crate::sweep::SWEEP_FILE).is_file() {
        return plot_sweep(dir, out);
    }
    check_finished(dir)?;
    let _created = match out {
        Some(out) => figures_folder(dir, out)?,
        None => CreatedDirs::default(),
    };
    let config_path = dir.join("config.toml");
    let cfg = RunBuilder::from(load_recorded(&config_path)?).build()?;
    let trajectory_path = dir.join("trajectory.csv");
    let trajectory = if trajectory_path.is_file() {
        read_trajectory(&trajectory_path, cfg.system.dof())?
    } else {
        Vec::new()
    };
    let (refine_capped_at, refine_stuck_at) = refine_notes(dir);
    let rows = read_stats(&dir.join("stats.csv"))?;
    let exits = match rows.last() {
        Some(last) => crate::run::basins::tally(&cfg, dir, last)?,
        None => None,
    };
    let result = RunSummary {
        accuracy: Vec::new(),
        method: cfg.method.name(),
        engine: engine_used(&config_path)?,
        rows,
        out: dir.to_path_buf(),
        refine_capped_at,
        refine_stuck_at,
        portraits: read_portraits(dir, cfg.system.dof(), cfg.dt, &trajectory)?,
        trajectory,
        final_state: None,
        memory: None,
        exits,
    };
    let run = StudyRun {
        method: cfg.method,
        dt: cfg.dt,
        steps: cfg.steps,
        system: None,
        vary: None,
        reference: false,
    };
    let plotted = [PlottedRun {
        name: cfg.method.name(),
        run: &run,
        system: &cfg.system,
        result: &result,
        floor_label: super::figures::floor_label(&cfg),
    }];
    let target = out.unwrap_or(dir);
    let mut files = Vec::new();
    let drawn = write_figures(&plotted, target, &mut files)?;
    files.extend(crate::run::chaos_map::write(&cfg, dir, target)?);
    files.extend(crate::run::basins::write_maps(&cfg, dir, target)?);
    files.extend(crate::run::section::redraw(&cfg, dir, target)?);
    files.extend(crate::run::frequencies::redraw(&cfg, dir, target)?);
    let summary = summarise(&cfg, &run, &result);
    let portraits = !result.portraits.is_empty();
    let report = run_report_md(&cfg, &summary, &drawn, dir, portraits);
    write_atomic(&target.join("report.md"), report.as_bytes())?;
    files.push(target.join("report.md"));
    update_manifests(dir, target)?;
    Ok(PlotOutcome {
        files,
        figures: drawn.into_iter().map(|f| (f.stem, f.figure)).collect(),
        portraits,
    })
}

/// A sweep's folder: every part's figures and report.md, each into its own folder (or
/// `out`/part_<i>), as `plot` draws them for a run; the parts must all be finished.
fn plot_sweep(dir: &Path, out: Option<&Path>) -> Result<PlotOutcome> {
    let mut all = PlotOutcome {
        files: Vec::new(),
        figures: Vec::new(),
        portraits: false,
    };
    for part in crate::sweep::part_folders(dir)? {
        let target = match (out, part.file_name()) {
            (Some(out), Some(name)) => Some(out.join(name)),
            _ => None,
        };
        let one = plot_run(&part, target.as_deref())?;
        all.files.extend(one.files);
        all.figures.extend(one.figures);
        all.portraits |= one.portraits;
    }
    if dir.join(MANIFEST).is_file() && out.is_none() {
        folder::write_manifest(dir)?;
    }
    Ok(all)
}

/// Figures written into the run's folder (by default, or --out naming it) join its manifest,
/// and, for a study's method folder, the study's, so both folders stay complete.
fn update_manifests(dir: &Path, target: &Path) -> Result<()> {
    let run_folder = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    if std::fs::canonicalize(target).ok().as_ref() != Some(&run_folder) {
        return Ok(());
    }
    folder::write_manifest(&run_folder)?;
    let study = run_folder
        .parent()
        .filter(|p| p.join("summary.csv").is_file() && p.join(MANIFEST).is_file());
    match study {
        Some(study) => folder::write_manifest(study),
        None => Ok(()),
    }
}

/// The folder `out` for the figures of the run in `dir`, created if missing. The run's own
/// folder is fine; any other phaseflow folder, or a folder inside one (`dir` included), is
/// refused: figures there would sit beside another run's files as if it had drawn them, and a
/// folder inside a run's makes `--force` refuse that run's folder later.
fn figures_folder(dir: &Path, out: &Path) -> Result<CreatedDirs> {
    let at = resolved(out);
    if at == resolved(dir) {
        return Ok(CreatedDirs::default());
    }
    if let Some(owner) = at.ancestors().find(|a| folder::holds_phaseflow(a)) {
        let (shown, out_shown) = (dir.display(), out.display());
        let is = if at == owner { "is" } else { "is inside" };
        return Err(input_err!(
            "plot {shown} --out {out_shown}: {is} the folder of a phaseflow run or study ({}), whose files the figures would mix with; omit --out to draw into {shown} itself, or choose a folder outside any run's",
            owner.display()
        ));
    }
    make_dir(out, Some(&crate::error::Field::Out))
}

/// Refuse anything but a finished run: a missing folder, a study folder, a folder without a
/// complete manifest (an interrupted run, or not phaseflow's), or one whose files are not
/// those its manifest lists.
fn check_finished(dir: &Path) -> Result<()> {
    let shown = dir.display();
    if !dir.is_dir() {
        return Err(input_err!("plot {shown}: not a folder"));
    }
    if dir.join("summary.csv").is_file() {
        return Err(input_err!(
            "plot {shown}: this is a study folder, which already has its figures and report.md; plot one of its method folders (e.g. {}), or run the study again to redraw them",
            dir.join("<method>").display()
        ));
    }
    let manifest = dir.join(MANIFEST);
    if !manifest.is_file() {
        return Err(input_err!(
            "plot {shown}: no {MANIFEST}: not a finished phaseflow run (an interrupted run, or a folder phaseflow did not write)"
        ));
    }
    let bad = |message: String| Error::InputFile {
        path: manifest.clone(),
        message,
    };
    let text = std::fs::read_to_string(&manifest).map_err(|e| bad(e.to_string()))?;
    let table: toml::Table = toml::from_str(&text).map_err(|e| bad(format!("malformed: {e}")))?;
    if table.get("complete").and_then(toml::Value::as_bool) != Some(true) {
        return Err(bad(
            "the run is not marked complete (complete = true)".into()
        ));
    }
    check_listed(dir, &table, bad)?;
    for needed in ["config.toml", "stats.csv"] {
        if !dir.join(needed).is_file() {
            return Err(input_err!(
                "plot {shown}: no {needed}: not the folder of a `phaseflow run`"
            ));
        }
    }
    Ok(())
}

/// Every file the manifest `table` of `dir` lists checked to be as the run wrote it: by its
/// size and CRC-32 where the manifest records them (a byte changed in place would otherwise be
/// drawn as the run's), by its size in a manifest of an earlier version. `bad`: an error about
/// the manifest.
fn check_listed(dir: &Path, table: &toml::Table, bad: impl Fn(String) -> Error) -> Result<()> {
    if let Some(m) = Manifest::read(dir).filter(Manifest::records_crcs) {
        return m.verify(&format!(
            "restore it, or run again into a new folder (phaseflow run --config {} --out NEW_FOLDER) and plot that",
            dir.join("config.toml").display()
        ));
    }
    let listed = table.get("files").and_then(toml::Value::as_table);
    for (rel, size) in listed.into_iter().flatten() {
        let actual = std::fs::metadata(dir.join(rel)).ok().map(|m| m.len());
        if actual.is_none() || actual != size.as_integer().map(|s| s as u64) {
            return Err(bad(format!(
                "lists {rel} ({size} bytes), which is missing or has changed since the run"
            )));
        }
    }
    Ok(())
}

/// report.md of one run: what ran (from config.toml), the verdict a study gives, the final
/// statistics and the figures drawn.
fn run_report_md(
    cfg: &RunConfig,
    row: &SummaryRow,
    figures: &[StudyFigure],
    dir: &Path,
    portraits: bool,
) -> String {
    let mut s = format!(
        "# phaseflow run: {} on {}\n\nDrawn by `phaseflow plot` from the files of `{}`.\n\n",
        cfg.method.name(),
        cfg.system.name(),
        dir.display()
    );
    let _ = writeln!(
        s,
        "System {}{}, ensemble `{}` ({}), method `{}` with h = {} for {} steps (t = {}), precision {}, engine {}. Tangent map: {}. Loop refinement: {}.\n",
        cfg.system.describe(),
        parameters(&cfg.system.params()),
        cfg.ensemble.kind().name(),
        count(cfg.ensemble.points as u64, "initial point"),
        cfg.method.name(),
        fmt_g(cfg.dt),
        cfg.steps,
        fmt_g(row.t_end),
        cfg.arithmetic(),
        row.engine,
        if cfg.tangent { "on" } else { "off" },
        if cfg.refine.is_some() { "on" } else { "off" },
    );
    if let Some(start) = start_sentence(cfg) {
        let _ = writeln!(s, "{start}\n");
    }
    let _ = writeln!(
        s,
        "Reproduce: `phaseflow run --config {} --out NEW_FOLDER`\n",
        dir.join("config.toml").display()
    );
    let _ = writeln!(
        s,
        "## What happened\n\n- {}\n  - {}\n",
        // A nonholonomic system's discrete Lagrange–d'Alembert map is not symplectic.
        verdict(
            row,
            cfg.method.info().symplectic && !cfg.system.constrained()
        ),
        conditions_line(cfg.method)
    );
    write_final_table(&mut s, row);
    let _ = writeln!(s, "\n## Plots\n");
    for fig in figures {
        let (title, file) = (&fig.title, format!("{}.png", fig.stem));
        let _ = writeln!(s, "### {title}\n\n![{title}]({file})\n");
    }
    if !portraits {
        let _ = writeln!(
            s,
            "No phase portrait: the run kept no states (run it with `--save-states`).\n"
        );
    }
    s.push_str("Plots are also written as SVG.\n");
    s
}

/// The run's statistics condensed as a study's summary.csv row has them.
fn write_final_table(s: &mut String, r: &SummaryRow) {
    let rows = [
        (
            "points at the end (finite)",
            format!("{} ({})", r.points, r.finite),
        ),
        (
            "final area ratio",
            r.final_area_ratio.map_or("–".into(), fmt_ratio),
        ),
        ("max abs(det − 1)", opt(r.max_abs_det_minus_1)),
        ("max rel. energy error", opt(r.max_rel_energy_err)),
        ("max abs. energy error", opt(r.max_abs_energy_err)),
        ("mean abs. energy error", opt(r.mean_abs_energy_err)),
        ("energy drift slope", opt(r.energy_drift_slope)),
        ("max angular momentum error", opt(r.max_ang_mom_err)),
        (
            "points with capped implicit solves",
            r.unconverged.to_string(),
        ),
    ];
    let _ = writeln!(
        s,
        "## Statistics (stats.csv)\n\n| quantity | value |\n|---|---|"
    );
    for (name, value) in rows {
        let _ = writeln!(s, "| {name} | {value} |");
    }
}
