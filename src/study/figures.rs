//! The figures of a study, in the order they are written and embedded: one phase portrait per
//! run, then the energy error, the observable of single trajectories and the deviation from
//! area preservation against time. Legend labels name the system and the step only when the
//! runs differ in them.

use std::fmt::Write as _;

use super::format::fmt_g;
use super::portrait::{finish_portrait, path_stride, portrait_data, shared_ranges, through_every};
use super::StudyRun;
use crate::config::RunConfig;
use crate::measure::area::AREA_RATIO;
use crate::measure::energy::columns::{
    ABS_ERR_MAX, ABS_ERR_MEAN, ANG_MOM_ERR_MAX, ENERGY_MEAN, MOMENTUM_ERR_MAX, REL_ERR_MEAN,
};
use crate::measure::floor::{AREA_FLOOR, DET_FLOOR, ENERGY_FLOOR};
use crate::measure::measurement::Column;
use crate::measure::modified::MOD_ABS_ERR_MAX;
use crate::measure::row::Row;
use crate::measure::tangent::DET_MEAN;
use crate::plot::{palette_color, Figure, Series, Style};
use crate::run::RunSummary;
use crate::system::System;

/// One finished run of a study, as its figures see it.
pub(super) struct PlottedRun<'a> {
    /// The run's folder name (the portrait's file is `phase_<name>`).
    pub name: &'a str,
    pub run: &'a StudyRun,
    pub system: &'a System,
    pub result: &'a RunSummary,
    /// What its rounding floors are, for the floor band's legend (`floor_label`).
    pub floor_label: String,
}

/// The legend of a run's floor band: "f32 rounding floor", "f32 compensated rounding floor",
/// or the implicit solver's tolerance where that sets the floor.
pub(super) fn floor_label(cfg: &RunConfig) -> String {
    if cfg.step_error().from_solver {
        return "implicit solver's tolerance".into();
    }
    let compensated = if cfg.compensated { " compensated" } else { "" };
    format!("{}{compensated} rounding floor", cfg.precision.name())
}

/// The shaded band of what the runs' arithmetic cannot resolve: the run with the largest
/// final floor's floor at each snapshot (`floor` of its rows), from the plot's bottom up.
/// None where no run has one.
fn floor_band(runs: &[PlottedRun], floor: &dyn Fn(&Row) -> Option<f64>) -> Option<Series> {
    let last = |r: &PlottedRun| r.result.rows.last().and_then(floor);
    let run = runs
        .iter()
        .filter(|r| last(r).is_some_and(f64::is_finite))
        .max_by(|a, b| last(a).unwrap_or(0.0).total_cmp(&last(b).unwrap_or(0.0)))?;
    Some(Series {
        label: run.floor_label.clone(),
        points: (run.result.rows.iter())
            .filter_map(|row| floor(row).map(|f| (row.t, f)))
            .collect(),
        style: Style::Band,
        color: None,
    })
}

/// A figure with the file stem it is written to and its heading in report.md.
pub(super) struct StudyFigure {
    pub stem: String,
    pub title: String,
    pub figure: Figure,
}

/// Every figure of the study, whether it has data or not (the caller skips empty ones).
pub(super) fn study_figures(runs: &[PlottedRun]) -> Vec<StudyFigure> {
    let systems: Vec<&str> = runs.iter().map(|r| r.system.name()).collect();
    let study_runs: Vec<&StudyRun> = runs.iter().map(|r| r.run).collect();
    let labels = legend_labels(&study_runs, &systems);
    let mut figures = portraits(runs, &systems, &labels);
    figures.push(energy_figure(runs, &labels));
    figures.extend(observable_figure(runs, &labels));
    figures.extend(path_figure(runs, &labels));
    figures.extend(super::reference::reference_figure(runs, &labels));
    figures.extend(momentum_figure(runs, &labels));
    figures.push(area_figure(runs, &labels));
    figures.extend(super::chaos::parameter_figures(runs));
    figures
}

/// Legend labels for a study's runs: the method, with the system in front when the study mixes
/// systems and the step behind when it mixes steps.
pub(super) fn legend_labels(runs: &[&StudyRun], systems: &[&str]) -> Vec<String> {
    let mixed_system = systems.iter().any(|s| Some(s) != systems.first());
    let mixed_h = runs.iter().any(|r| r.dt != runs[0].dt);
    runs.iter()
        .zip(systems)
        .map(|(r, system)| {
            let mut label = r.method.name().to_string();
            if mixed_system {
                label = format!("{system}, {label}");
            }
            if mixed_h {
                let _ = write!(label, ", h = {}", fmt_g(r.dt));
            }
            if let Some(v) = &r.vary {
                let _ = write!(label, ", {}", v.label);
            }
            if r.reference {
                label.push_str(" (reference)");
            }
            label
        })
        .collect()
}

/// One phase portrait per run, with the plot range its system's portraits share.
fn portraits(runs: &[PlottedRun], systems: &[&str], labels: &[String]) -> Vec<StudyFigure> {
    let mut phase: Vec<Figure> = runs
        .iter()
        .zip(labels)
        .map(|(r, label)| {
            portrait_data(
                r.system,
                label,
                r.run.dt,
                &r.result.portraits,
                &r.result.trajectory,
            )
        })
        .collect();
    let ranges = shared_ranges(&phase, systems);
    for ((fig, r), range) in phase.iter_mut().zip(runs).zip(ranges) {
        finish_portrait(fig, r.system, &r.result.portraits, range);
    }
    phase
        .into_iter()
        .zip(runs.iter().zip(labels))
        .map(|(figure, (r, label))| StudyFigure {
            stem: format!("phase_{}", r.name),
            title: format!("Phase portrait: {label}"),
            figure,
        })
        .collect()
}

/// A quantity of every run's statistics rows against t, on a log axis (errors span decades).
fn time_figure(
    title: &str,
    y_label: &str,
    runs: &[PlottedRun],
    labels: &[String],
    pick: &dyn Fn(&Row) -> Option<f64>,
) -> Figure {
    Figure {
        title: title.into(),
        x_label: "t".into(),
        y_label: y_label.into(),
        series: runs
            .iter()
            .zip(labels)
            .map(|(r, label)| Series {
                label: label.clone(),
                points: r
                    .result
                    .rows
                    .iter()
                    .filter_map(|row| pick(row).map(|y| (row.t, y)))
                    .collect(),
                style: Style::Line,
                color: None,
            })
            .collect(),
        log_x: false,
        log_y: true,
        equal_aspect: false,
        x_range: None,
        y_range: None,
    }
}

/// The mean energy error against time: relative where every run has it; H(z0) ≈ 0 (e.g.
/// E = 0) makes it undefined, and then the absolute error is plotted. Runs with the modified
/// Hamiltonian's columns (`--modified-hamiltonian`) get H's and H̃'s errors side by side.
fn energy_figure(runs: &[PlottedRun], labels: &[String]) -> StudyFigure {
    let modified = runs.iter().any(|r| {
        r.result
            .rows
            .iter()
            .any(|row| row.real(&MOD_ABS_ERR_MAX).is_some())
    });
    if modified {
        return modified_energy_figure(runs, labels);
    }
    let relative = runs.iter().all(|r| {
        r.result
            .rows
            .iter()
            .skip(1)
            .all(|row| row.real(&REL_ERR_MEAN).is_some())
    });
    let mut figure = if relative {
        time_figure(
            "Mean relative energy error",
            "mean |H − H(z0)| / |H(z0)|",
            runs,
            labels,
            &|r| r.real(&REL_ERR_MEAN),
        )
    } else {
        time_figure(
            "Mean absolute energy error",
            "mean |H − H(z0)|",
            runs,
            labels,
            &|r| r.real(&ABS_ERR_MEAN),
        )
    };
    // The floor is in energy units; relative to the mean |H| where the errors are relative.
    let band = if relative {
        floor_band(runs, &|r| {
            let mean = r.real(&ENERGY_MEAN)?.abs();
            r.real(&ENERGY_FLOOR)
                .filter(|_| mean > 0.0)
                .map(|f| f / mean)
        })
    } else {
        floor_band(runs, &|r| r.real(&ENERGY_FLOOR))
    };
    figure.series.extend(band);
    StudyFigure {
        stem: "energy_error".into(),
        title: format!(
            "{} energy error against time",
            if relative { "Relative" } else { "Absolute" }
        ),
        figure,
    }
}

/// The largest |H − H(z0)| up to t (solid) beside the largest |H̃ − H̃(z0)| (dashed), one
/// colour per run: the gap between them is the factor report.md states. Running maxima, as a
/// single orbit's error passes through zero twice a period and its snapshots would scatter
/// over decades.
fn modified_energy_figure(runs: &[PlottedRun], labels: &[String]) -> StudyFigure {
    let running_max = |r: &PlottedRun, column: &Column| {
        let mut top = 0.0_f64;
        (r.result.rows.iter())
            .filter_map(|row| row.real(column).map(|y| (row.t, y)))
            .map(|(t, y)| {
                top = top.max(y);
                (t, top)
            })
            .collect()
    };
    let mut series = Vec::new();
    for (i, (r, label)) in runs.iter().zip(labels).enumerate() {
        let color = Some(palette_color(i));
        series.push(Series {
            label: format!("{label}: H"),
            points: running_max(r, &ABS_ERR_MAX),
            style: Style::Line,
            color,
        });
        series.push(Series {
            label: format!("{label}: modified H"),
            points: running_max(r, &MOD_ABS_ERR_MAX),
            style: Style::Dashed,
            color,
        });
    }
    StudyFigure {
        stem: "energy_error".into(),
        title: "Energy error against time: H and the modified Hamiltonian".into(),
        figure: Figure {
            title: "Largest error of H (solid) and of the modified H (dashed)".into(),
            x_label: "t".into(),
            y_label: "max |X − X(z0)| up to t, X = H or modified H".into(),
            series,
            log_x: false,
            log_y: true,
            equal_aspect: false,
            x_range: None,
            y_range: None,
        },
    }
}

/// Single trajectories: the first run's system's observable (e.g. the chain's free end x)
/// against t; none when the system has no observable or no run kept a trajectory.
fn observable_figure(runs: &[PlottedRun], labels: &[String]) -> Option<StudyFigure> {
    let observed: Vec<Series> = runs
        .iter()
        .zip(labels)
        .filter_map(|(r, label)| {
            let (_, k) = r.system.observable()?;
            let traj = &r.result.trajectory;
            (!traj.is_empty()).then(|| Series {
                label: label.clone(),
                points: traj.iter().map(|(t, z)| (*t, z[k])).collect(),
                style: Style::Line,
                color: None,
            })
        })
        .collect();
    let (label, _) = runs[0]
        .system
        .observable()
        .filter(|_| !observed.is_empty())?;
    Some(StudyFigure {
        stem: "observable".into(),
        title: format!("{label} against time"),
        figure: Figure {
            title: format!("{label} against time"),
            x_label: "t".into(),
            y_label: label.into(),
            series: observed,
            log_x: false,
            log_y: false,
            equal_aspect: false,
            x_range: None,
            y_range: None,
        },
    })
}

/// The change of the momentum each run follows (`System::conserved`: the angular momentum, or
/// a Lagrangian's discrete momentum of the symmetry `--momentum` names), largest over the
/// points, against time; None where no run follows one. Noether's theorem, discrete or not,
/// says it stays at rounding under a method that keeps it.
fn momentum_figure(runs: &[PlottedRun], labels: &[String]) -> Option<StudyFigure> {
    let change = |row: &Row| row.real(&MOMENTUM_ERR_MAX).or(row.real(&ANG_MOM_ERR_MAX));
    let follows = |r: &PlottedRun| r.result.rows.iter().any(|row| change(row).is_some());
    if !runs.iter().any(follows) {
        return None;
    }
    let has = |column: &Column| {
        (runs.iter()).any(|r| r.result.rows.iter().any(|row| row.real(column).is_some()))
    };
    let (title, y_label) = match (has(&MOMENTUM_ERR_MAX), has(&ANG_MOM_ERR_MAX)) {
        (true, false) => ("Change of the discrete momentum", "max |J − J(z0)|"),
        (false, _) => ("Change of the angular momentum", "max |L − L(z0)|"),
        (true, true) => (
            "Change of the discrete and the angular momentum",
            "max |J − J(z0)| or max |L − L(z0)|",
        ),
    };
    Some(StudyFigure {
        stem: "momentum_error".into(),
        title: format!("{title} against time"),
        figure: time_figure(title, y_label, runs, labels, &change),
    })
}

/// Single trajectories of systems with a configuration plane (`System::path`): the path
/// drawn in it, e.g. Kepler's orbit in (q1, q2) or a rolling disk's contact point, for the
/// runs whose system draws the same path as the first run's, or a path in the same axes (a
/// Lagrangian formula's (q1, q2) beside the built-in Kepler orbit); none otherwise, or when every
/// path stays at one point. The title says when every path runs through every step, and
/// otherwise the legend labels the runs whose path runs through every k-th.
fn path_figure(runs: &[PlottedRun], labels: &[String]) -> Option<StudyFigure> {
    let (label, ..) = runs[0].system.path()?;
    let (x_label, y_label) = runs[0].system.path_axes()?;
    let drawn: Vec<(u64, Series)> = runs
        .iter()
        .zip(labels)
        .filter(|(r, _)| {
            r.system.path().is_some_and(|p| p.0 == label)
                || r.system
                    .path_axes()
                    .is_some_and(|a| (&a.0, &a.1) == (&x_label, &y_label))
        })
        .filter(|(r, _)| !r.result.trajectory.is_empty())
        .map(|(r, label)| {
            let points = (r.result.trajectory.iter())
                .filter_map(|(_, z)| r.system.path_point(&z[..r.system.dof()]))
                .collect();
            let every = path_stride(&r.result.trajectory, r.run.dt);
            let label = match every {
                1 => label.clone(),
                k => format!("{label}, {}", through_every(k)),
            };
            (every, Series::new(label, points, Style::Line))
        })
        // A path that stays at one point (a disk spinning in place) has nothing to draw.
        .filter(|(_, s)| s.points.iter().any(|p| *p != s.points[0]))
        .collect();
    let sampling = if drawn.iter().all(|(every, _)| *every == 1) {
        through_every(1)
    } else {
        "through every step unless labelled".to_string()
    };
    (!drawn.is_empty()).then(|| StudyFigure {
        stem: "path".into(),
        title: format!("Path of the {label}"),
        figure: Figure {
            title: format!("Path of the {label}, {sampling}"),
            x_label,
            y_label,
            series: drawn.into_iter().map(|(_, s)| s).collect(),
            log_x: false,
            log_y: false,
            equal_aspect: true,
            x_range: None,
            y_range: None,
        },
    })
}

/// Area: the deviation from exact conservation, |ratio − 1|, on a log axis (1e-8 and 1e-6
/// apart by two decades). Loops give the area ratio, filled sets with the tangent map the
/// mean det DΦⁿ; exact zeros (step 0, or an exactly area-preserving step) cannot be drawn.
fn area_figure(runs: &[PlottedRun], labels: &[String]) -> StudyFigure {
    let ratio = |r: &Row| r.real(&AREA_RATIO).or(r.real(&DET_MEAN));
    let loops = runs.iter().any(|r| {
        r.result
            .rows
            .iter()
            .any(|row| row.real(&AREA_RATIO).is_some())
    });
    let exact = runs.iter().any(|r| {
        r.result
            .rows
            .iter()
            .skip(1)
            .any(|row| ratio(row) == Some(1.0))
    });
    let mut figure = time_figure(
        if exact {
            "Deviation from area preservation (exact zeros not drawn)"
        } else {
            "Deviation from area preservation"
        },
        if loops {
            "|area(t) / area(0) − 1|"
        } else {
            "|mean det DΦ − 1|"
        },
        runs,
        labels,
        &|r| ratio(r).map(|v| (v - 1.0).abs()),
    );
    figure.series.extend(floor_band(runs, &|r| {
        r.real(&AREA_FLOOR).or(r.real(&DET_FLOOR))
    }));
    StudyFigure {
        stem: "area_ratio".into(),
        title: "Area ratio against time: |ratio − 1|".into(),
        figure,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::method::Method;

    #[test]
    fn legend_labels_name_system_and_step_only_when_they_differ() {
        let run = |method, dt, system: Option<&str>| StudyRun {
            method,
            dt,
            steps: 10,
            system: system.map(String::from),
            vary: None,
            reference: false,
        };
        let same = [
            &run(Method::Euler, 0.1, None),
            &run(Method::Verlet, 0.1, None),
        ];
        assert_eq!(
            legend_labels(&same, &["pendulum", "pendulum"]),
            ["euler", "verlet"]
        );
        let mixed = [
            &run(Method::Euler, 0.25, None),
            &run(Method::Verlet, 0.5, Some("kepler")),
        ];
        assert_eq!(
            legend_labels(&mixed, &["oscillator", "kepler"]),
            ["oscillator, euler, h = 0.25", "kepler, verlet, h = 0.5"]
        );
    }
}
