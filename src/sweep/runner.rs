//! `run_sweep`: resolve every part, run each into `DIR/part_<i>/` under one progress report,
//! then write stats.csv (the parts' rows under their sweep_index and values), sweep.csv and
//! the figure.

use std::path::{Path, PathBuf};

use super::{Part, Sweep, SweepJob, SWEEP_FILE};
use crate::config::OutputDir;
use crate::error::{Error, Result};
use crate::measure::energy::columns::{ABS_ERR_MAX, REL_ERR_MAX};
use crate::output::folder::{self, Layout};
use crate::output::{write_atomic, write_csv};
use crate::plot::{self, Figure, Series, Style};
use crate::run;

/// A finished sweep: one line per part (as sweep.csv has them) and the files written.
pub struct SweepOutcome {
    pub parts: Vec<PartLine>,
    pub files: Vec<PathBuf>,
}

/// sweep.csv's line of one part.
#[derive(Debug, Clone)]
pub struct PartLine {
    pub sweep_index: usize,
    /// `name=value` of each axis (sweep.csv writes each value in its own column).
    pub label: String,
    pub dir: String,
    /// rel_energy_err_max and abs_energy_err_max at the last snapshot, and their largest
    /// value over the snapshots (NaN where a row has none).
    pub final_rel_energy_err_max: f64,
    pub max_rel_energy_err_max: f64,
    pub final_abs_energy_err_max: f64,
    pub max_abs_energy_err_max: f64,
}

/// `phaseflow run --sweep`: every part resolved and checked before `--out` is touched, then
/// run in turn, then the sweep's files.
pub fn run_sweep(job: &SweepJob) -> Result<SweepOutcome> {
    let parts = job.sweep.parts()?;
    for p in &parts {
        run::preflight(&p.config)?;
    }
    let out = job.out.path.as_path();
    let _lock = folder::prepare(out, Layout::Sweep, job.out.force)?;
    let path = out.join(SWEEP_FILE);
    write_atomic(&path, job.sweep.record(&path)?.as_bytes())?;
    run_all(&job.sweep, &parts, out, false)?;
    finish(&job.sweep, &parts, out)
}

/// `phaseflow resume DIR` for a sweep: the sweep from DIR/sweep.toml; finished parts kept, an
/// interrupted one continued from its checkpoint, the rest run; then the sweep's files.
pub fn resume_sweep(out: &Path) -> Result<SweepOutcome> {
    // Taken before anything is read: a sweep still running keeps its folder.
    let _lock = folder::lock(out)?;
    folder::remove_temporaries(out)?;
    let sweep = Sweep::read(out)?;
    let parts = sweep.parts()?;
    run_all(&sweep, &parts, out, true)?;
    finish(&sweep, &parts, out)
}

/// The part folders of the finished or interrupted sweep in `out`, in part order, as its
/// sweep.toml records the sweep (`phaseflow plot` draws each part's figures).
pub fn part_folders(out: &Path) -> Result<Vec<PathBuf>> {
    let parts = Sweep::read(out)?.parts()?;
    Ok(parts
        .iter()
        .map(|p| out.join(part_dir(p.index, parts.len())))
        .collect())
}

/// Part i's folder name: `part_<i>`, i zero-padded to the width of the last index so the
/// folders list in order.
fn part_dir(index: usize, count: usize) -> String {
    let width = count.saturating_sub(1).to_string().len();
    format!("part_{index:0width$}")
}

/// Run each part into its folder, the progress report covering the whole sweep. When
/// resuming, a finished part (its manifest written) is kept once its files are found to be
/// those its manifest records, and an interrupted one continued from its checkpoint. An interrupt names the sweep's folder for `resume`.
fn run_all(sweep: &Sweep, parts: &[Part], out: &Path, resume: bool) -> Result<()> {
    let total: u64 = parts.iter().map(|p| p.config.total_steps()).sum();
    let mut before = 0;
    for p in parts {
        let dir = out.join(part_dir(p.index, parts.len()));
        let finished = resume && dir.join(folder::MANIFEST).is_file();
        crate::info!(
            "phaseflow: sweep [{}/{}]: {}{}",
            p.index + 1,
            parts.len(),
            sweep.label(&p.values),
            if finished { " (finished before)" } else { "" }
        );
        let _scope = run::ProgressScope::new(before, total);
        before += p.config.total_steps();
        let result = if finished {
            folder::verify_finished(&dir, out)
        } else if resume && std::fs::symlink_metadata(run::checkpoint::path(&dir)).is_ok() {
            // Anything at the checkpoint's path (a symlink too) is read, or refused.
            run::resume_in(&p.config, &dir).map(drop)
        } else {
            // A folder an interrupted sweep left without a checkpoint is run again.
            run::run(
                &p.config,
                &OutputDir {
                    path: dir,
                    force: resume,
                },
            )
            .map(drop)
        };
        result.map_err(|e| match e {
            Error::Interrupted { step, .. } => Error::Interrupted {
                path: out.to_path_buf(),
                step,
            },
            e => e,
        })?;
    }
    Ok(())
}

/// stats.csv, sweep.csv, the figure (when it has data) and the manifest, from the parts'
/// folders.
fn finish(sweep: &Sweep, parts: &[Part], out: &Path) -> Result<SweepOutcome> {
    let mut stats = String::new();
    let mut lines = Vec::new();
    for p in parts {
        let dir = part_dir(p.index, parts.len());
        let path = out.join(&dir).join("stats.csv");
        let text = std::fs::read_to_string(&path).map_err(|source| Error::Output {
            path: path.clone(),
            source,
        })?;
        let (header, rows) = text.split_once('\n').unwrap_or((&text, ""));
        if p.index == 0 {
            let names: Vec<&str> = sweep.axes.iter().map(|a| a.name.as_str()).collect();
            stats.push_str(&format!("sweep_index,{},{header}\n", names.join(",")));
        }
        let values: Vec<String> = p.values.iter().map(|v| format!("{v}")).collect();
        for row in rows.lines() {
            stats.push_str(&format!("{},{},{row}\n", p.index, values.join(",")));
        }
        let rel = column(&text, REL_ERR_MAX.name);
        let abs = column(&text, ABS_ERR_MAX.name);
        lines.push(PartLine {
            sweep_index: p.index,
            label: sweep.label(&p.values),
            dir,
            final_rel_energy_err_max: rel.last().copied().unwrap_or(f64::NAN),
            max_rel_energy_err_max: largest(&rel),
            final_abs_energy_err_max: abs.last().copied().unwrap_or(f64::NAN),
            max_abs_energy_err_max: largest(&abs),
        });
    }
    let mut files = vec![out.join("stats.csv"), out.join("sweep.csv")];
    write_atomic(&files[0], stats.as_bytes())?;
    write_sweep_csv(&files[1], sweep, parts, &lines)?;
    let fig = figure(sweep, parts, &lines);
    if fig.has_data() {
        files.extend(plot::write_figure(&fig, &out.join("sweep"))?);
    }
    folder::write_manifest(out)?;
    Ok(SweepOutcome {
        parts: lines,
        files,
    })
}

/// sweep.csv: sweep_index, each swept parameter's value, then the part's folder and errors.
fn write_sweep_csv(path: &Path, sweep: &Sweep, parts: &[Part], lines: &[PartLine]) -> Result<()> {
    let mut header = vec!["sweep_index".to_string()];
    header.extend(sweep.axes.iter().map(|a| a.name.clone()));
    header.extend(
        [
            "dir",
            "final_rel_energy_err_max",
            "max_rel_energy_err_max",
            "final_abs_energy_err_max",
            "max_abs_energy_err_max",
        ]
        .map(String::from),
    );
    let mut records = vec![header];
    for (p, l) in parts.iter().zip(lines) {
        let mut r = vec![p.index.to_string()];
        r.extend(p.values.iter().map(|v| format!("{v}")));
        r.push(l.dir.clone());
        r.extend(
            [
                l.final_rel_energy_err_max,
                l.max_rel_energy_err_max,
                l.final_abs_energy_err_max,
                l.max_abs_energy_err_max,
            ]
            .map(|x| format!("{x}")),
        );
        records.push(r);
    }
    write_csv(path, &records)
}

/// The values of stats.csv column `name` (NaN where a cell is empty or not a number); none
/// when the run has no such column.
fn column(text: &str, name: &str) -> Vec<f64> {
    let mut lines = text.lines();
    let Some(k) = lines
        .next()
        .and_then(|h| h.split(',').position(|c| c == name))
    else {
        return Vec::new();
    };
    lines
        .map(|l| {
            l.split(',')
                .nth(k)
                .and_then(|c| c.parse().ok())
                .unwrap_or(f64::NAN)
        })
        .collect()
}

/// The largest finite value, NaN when there is none.
fn largest(xs: &[f64]) -> f64 {
    xs.iter()
        .copied()
        .filter(|x| x.is_finite())
        .fold(f64::NAN, f64::max)
}

/// sweep.png/svg: the energy error against the first swept parameter (log y). One swept
/// parameter: the final and the largest abs_energy_err_max; more: the largest, one line per
/// value of the other parameters. The absolute error, since the relative one divides by
/// |H0|, which a sweep may take through zero (the elastic pendulum's default state has E = 0).
pub(super) fn figure(sweep: &Sweep, parts: &[Part], lines: &[PartLine]) -> Figure {
    let first = &sweep.axes[0].name;
    let mut fig = Figure::new(
        format!("energy error against {first}"),
        first.clone(),
        "abs_energy_err_max",
    );
    fig.log_y = true;
    if sweep.axes.len() == 1 {
        let points = |f: fn(&PartLine) -> f64| {
            parts
                .iter()
                .zip(lines)
                .map(|(p, l)| (p.values[0], f(l)))
                .collect()
        };
        fig.series = vec![
            Series::new(
                "at the end",
                points(|l| l.final_abs_energy_err_max),
                Style::Line,
            ),
            Series::new(
                "largest over the run",
                points(|l| l.max_abs_energy_err_max),
                Style::Line,
            ),
        ];
        return fig;
    }
    // The first axis is the slowest, so the parts that share the other axes' values are
    // every (N/N1)-th.
    let stride = parts.len() / sweep.axes[0].n;
    fig.series = (0..stride)
        .map(|j| {
            let members: Vec<(&Part, &PartLine)> =
                parts.iter().zip(lines).skip(j).step_by(stride).collect();
            let label = sweep.axes[1..]
                .iter()
                .zip(&members[0].0.values[1..])
                .map(|(a, v)| format!("{}={}", a.name, crate::error::num(*v)))
                .collect::<Vec<_>>()
                .join(", ");
            let points = members
                .iter()
                .map(|(p, l)| (p.values[0], l.max_abs_energy_err_max))
                .collect();
            Series::new(format!("largest, {label}"), points, Style::Line)
        })
        .collect();
    fig
}
