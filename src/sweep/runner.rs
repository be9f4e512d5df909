//! `run_sweep`: resolve every part, run each into `DIR/part_<i>/` under one progress report,
//! then write stats.csv (the parts' rows under their sweep_index and values), sweep.csv and
//! the figure.

use std::path::{Path, PathBuf};

use super::{together, Part, Sweep, SweepJob, SWEEP_FILE};
use crate::chaos::{Indicator, ALIGNED_BELOW, CHAOTIC_ABOVE, FLI_FACTOR};
use crate::config::OutputDir;
use crate::error::{Error, Result};
use crate::measure::alignment::{
    FLI_CHAOTIC, FLI_MEAN, GALI_CHAOTIC, GALI_MEAN, SALI_CHAOTIC, SALI_MEAN,
};
use crate::measure::chaos::{CHAOTIC_FRACTION, LYAPUNOV_MAX, LYAPUNOV_MEAN, MEGNO_MEAN};
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
    /// With `--chaos`: the chaos columns of the last snapshot (`chaos_columns`), as (stats.csv
    /// column, value; NaN where the row has none); empty without.
    pub chaos: Vec<(&'static str, f64)>,
}

/// The stats.csv chaos columns sweep.csv takes at the last snapshot, for the indicators the
/// parts compute, the headline first (the one the sweep's chaos figure draws): with MEGNO the
/// fraction of chaotic points and the mean ⟨Y⟩, with λ its largest and mean value, with FLI,
/// SALI and GALI_k the fraction each classifies as chaotic and its mean.
fn chaos_columns(parts: &[Part]) -> Vec<&'static str> {
    let Some(chaos) = parts.first().and_then(|p| p.config.chaos.as_ref()) else {
        return Vec::new();
    };
    let mut names = Vec::new();
    if chaos.has(Indicator::Megno) {
        names.extend([CHAOTIC_FRACTION.name, MEGNO_MEAN.name]);
    }
    if chaos.has(Indicator::Lyapunov) {
        names.extend([LYAPUNOV_MAX.name, LYAPUNOV_MEAN.name]);
    }
    if chaos.has(Indicator::Fli) {
        names.extend([FLI_CHAOTIC.name, FLI_MEAN.name]);
    }
    if chaos.has(Indicator::Sali) {
        names.extend([SALI_CHAOTIC.name, SALI_MEAN.name]);
    }
    if !chaos.gali().is_empty() {
        names.extend([GALI_CHAOTIC.name, GALI_MEAN.name]);
    }
    names
}

/// `phaseflow run --sweep`: every part resolved and checked before `--out` is touched, then
/// run in turn, then the sweep's files.
pub fn run_sweep(job: &SweepJob) -> Result<SweepOutcome> {
    let parts = job.sweep.parts()?;
    let mut on_cpu = parts.len() > 1;
    for p in &parts {
        let (choice, _) = run::preflight(&p.config)?;
        // With checkpoints the parts run in turn: an interrupt then leaves the finished parts
        // whole and at most one part to continue.
        on_cpu &= choice == run::EngineChoice::Cpu && p.config.checkpoint_every.is_none();
    }
    let out = job.out.path.as_path();
    let _lock = folder::prepare(out, Layout::Sweep, job.out.force)?;
    let path = out.join(SWEEP_FILE);
    write_atomic(&path, job.sweep.record(&path)?.as_bytes())?;
    if on_cpu {
        // Every part on the CPU engine, without checkpoints: advanced together (`together`).
        crate::info!(
            "phaseflow: sweep: the {} parts run as one ensemble on the CPU engine, up to {} at a time",
            parts.len(),
            together::BATCH
        );
        let announce = |p: &Part| say_part(&job.sweep, p, parts.len(), false);
        together::run_parts(&parts, parts.len(), out, &announce)
            .map_err(|e| interrupted_in(e, out))?;
    } else {
        run_all(&job.sweep, &parts, out, false)?;
    }
    finish(&job.sweep, &parts, out)
}

/// `phaseflow resume DIR` for a sweep: the sweep from DIR/sweep.toml; finished parts kept, an
/// interrupted one continued from its checkpoint, the rest run; then the sweep's files.
pub fn resume_sweep(out: &Path) -> Result<SweepOutcome> {
    // Taken before anything is read: a sweep still running keeps its folder.
    let _lock = folder::lock(out, folder::LockFor::Resume)?;
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
pub(super) fn part_dir(index: usize, count: usize) -> String {
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
        say_part(sweep, p, parts.len(), finished);
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
        result.map_err(|e| interrupted_in(e, out))?;
    }
    Ok(())
}

/// The line that says which part runs (`finished`: kept from before).
fn say_part(sweep: &Sweep, p: &Part, count: usize, finished: bool) {
    crate::info!(
        "phaseflow: sweep [{}/{}]: {}{}",
        p.index + 1,
        count,
        sweep.label(&p.values),
        if finished { " (finished before)" } else { "" }
    );
}

/// A part's interrupt as the sweep's: `resume` takes the sweep's folder.
fn interrupted_in(e: Error, out: &Path) -> Error {
    match e {
        Error::Interrupted { step, .. } => Error::Interrupted {
            path: out.to_path_buf(),
            step,
        },
        e => e,
    }
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
        let chaos = (chaos_columns(parts).into_iter())
            .map(|name| (name, last(&column(&text, name))))
            .collect();
        lines.push(PartLine {
            sweep_index: p.index,
            label: sweep.label(&p.values),
            dir,
            final_rel_energy_err_max: last(&rel),
            max_rel_energy_err_max: largest(&rel),
            final_abs_energy_err_max: last(&abs),
            max_abs_energy_err_max: largest(&abs),
            chaos,
        });
    }
    let mut files = vec![out.join("stats.csv"), out.join("sweep.csv")];
    write_atomic(&files[0], stats.as_bytes())?;
    write_sweep_csv(&files[1], sweep, parts, &lines)?;
    let figures = [
        (figure(sweep, parts, &lines), "sweep"),
        (chaos_figure(sweep, parts, &lines), "sweep_chaos"),
    ];
    for (fig, stem) in figures {
        if fig.has_data() {
            files.extend(plot::write_figure(&fig, &out.join(stem))?);
        }
    }
    folder::write_manifest(out)?;
    Ok(SweepOutcome {
        parts: lines,
        files,
    })
}

/// sweep.csv: sweep_index, each swept parameter's value, then the part's folder and errors,
/// and with `--chaos` the chaos columns at the last snapshot (`final_<column>`).
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
    header.extend(chaos_columns(parts).iter().map(|c| format!("final_{c}")));
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
        r.extend(l.chaos.iter().map(|(_, x)| format!("{x}")));
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

/// The last value, NaN when there is none.
fn last(xs: &[f64]) -> f64 {
    xs.last().copied().unwrap_or(f64::NAN)
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
    fig.series = if sweep.axes.len() == 1 {
        let final_err = against_first(parts, lines, |l| l.final_abs_energy_err_max);
        let largest_err = against_first(parts, lines, |l| l.max_abs_energy_err_max);
        [
            marked_line(0, "at the end", final_err),
            marked_line(1, "largest over the run", largest_err),
        ]
        .concat()
    } else {
        per_other_values(sweep, parts, lines, "largest", |l| l.max_abs_energy_err_max)
    };
    fig
}

/// sweep_chaos.png/svg, with `--chaos`: the headline chaos column at the last snapshot (the
/// fraction of chaotic points, or with λ alone its largest value) against the first swept
/// parameter, one line per value of the others; no series without `--chaos`.
pub(super) fn chaos_figure(sweep: &Sweep, parts: &[Part], lines: &[PartLine]) -> Figure {
    let first = &sweep.axes[0].name;
    let Some(&(name, _)) = lines.first().and_then(|l| l.chaos.first()) else {
        return Figure::default();
    };
    let fraction = |by: &str| {
        (
            format!("chaotic fraction against {first}"),
            format!("fraction of points {by} at the end"),
        )
    };
    let (title, y_label) = if name == CHAOTIC_FRACTION.name {
        fraction(&format!("with MEGNO ⟨Y⟩ > {CHAOTIC_ABOVE}"))
    } else if name == FLI_CHAOTIC.name {
        fraction(&format!("with FLI > {FLI_FACTOR} ln(1 + t)"))
    } else if name == SALI_CHAOTIC.name {
        fraction(&format!("whose SALI fell below {ALIGNED_BELOW:e}"))
    } else if name == GALI_CHAOTIC.name {
        fraction(&format!("whose GALI fell below {ALIGNED_BELOW:e}"))
    } else {
        (
            format!("largest Lyapunov exponent against {first}"),
            "largest λ over the points at the end".to_string(),
        )
    };
    let mut fig = Figure::new(title, first.clone(), y_label);
    let headline = |l: &PartLine| l.chaos.first().map_or(f64::NAN, |c| c.1);
    fig.series = if sweep.axes.len() == 1 {
        marked_line(0, "", against_first(parts, lines, headline))
    } else {
        per_other_values(sweep, parts, lines, "", headline)
    };
    if name.ends_with("chaotic_fraction") {
        fig.y_range = Some((-0.02, 1.02));
    }
    fig
}

/// (first parameter's value, `value` of the part) of each part.
fn against_first(
    parts: &[Part],
    lines: &[PartLine],
    value: impl Fn(&PartLine) -> f64,
) -> Vec<(f64, f64)> {
    parts
        .iter()
        .zip(lines)
        .map(|(p, l)| (p.values[0], value(l)))
        .collect()
}

/// A labelled line through `points` and a marker at each (unlabelled), both in the palette's
/// `i`-th colour: a sweep's values are the parts that ran, the line only guides the eye
/// between them.
fn marked_line(i: usize, label: &str, points: Vec<(f64, f64)>) -> Vec<Series> {
    let color = Some(plot::palette_color(i));
    vec![
        Series {
            color,
            ..Series::new(label, points.clone(), Style::Line)
        },
        Series {
            color,
            ..Series::new("", points, Style::Markers)
        },
    ]
}

/// One marked line per combination of the other parameters' values, against the first (the
/// first axis is the slowest, so the parts that share the other values are every
/// (N/N1)-th), labelled with those values after `prefix`.
fn per_other_values(
    sweep: &Sweep,
    parts: &[Part],
    lines: &[PartLine],
    prefix: &str,
    value: impl Fn(&PartLine) -> f64,
) -> Vec<Series> {
    let stride = parts.len() / sweep.axes[0].n;
    (0..stride)
        .flat_map(|j| {
            let members: Vec<(&Part, &PartLine)> =
                parts.iter().zip(lines).skip(j).step_by(stride).collect();
            let values = sweep.axes[1..]
                .iter()
                .zip(&members[0].0.values[1..])
                .map(|(a, v)| format!("{}={}", a.name, crate::error::num(*v)))
                .collect::<Vec<_>>()
                .join(", ");
            let label = if prefix.is_empty() {
                values
            } else {
                format!("{prefix}, {values}")
            };
            let points = members
                .iter()
                .map(|(p, l)| (p.values[0], value(l)))
                .collect();
            marked_line(j, &label, points)
        })
        .collect()
}
