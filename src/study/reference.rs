//! A study's reference solution (`StudyRun::reference`: a fine step of an accurate method)
//! and every other single trajectory's distance from it: |q − q_ref| and |p − p_ref|
//! (Euclidean norms over the coordinates and over the momenta) at the times both runs have a
//! snapshot, drawn against time and stated per run in report.md and summary.csv. This is how
//! a study shows what Fernández's slides show: the position and velocity errors of two methods
//! against the exact solution, side by side.

use super::figures::{PlottedRun, StudyFigure};
use super::format::fmt_g;
use crate::plot::{palette_color, Figure, Series, Style};
use crate::system::System;

/// Two snapshot times this close, relative to max(1, |t|), are the same time: t = k·h rounds
/// differently for different steps h.
const SAME_TIME: f64 = 1e-9;

/// A trajectory as the runs keep it: (t, state) per snapshot.
type Trajectory = [(f64, Vec<f64>)];

/// One run's distance from the reference: (t, |Δq|, |Δp|) at each shared time, up to the
/// run's last finite state.
pub(super) struct Distance(Vec<(f64, f64, f64)>);

/// What report.md and summary.csv say of one run's distance from the reference.
#[derive(Debug, Clone, PartialEq)]
pub struct ReferenceDistance {
    /// The reference run as its legend names it ("rk4, h = 0.001").
    pub reference: String,
    /// The largest |q − q_ref| and |p − p_ref| over the shared times.
    pub position: f64,
    pub momentum: f64,
    /// The last shared time, and how many there were.
    pub until: f64,
    pub times: usize,
    /// "momentum", or "velocity" for a variational system (whose state is (q, v)).
    pub second_half: &'static str,
    /// The reference run's arithmetic as reports name it ("f64", "f32", "f32 with
    /// compensated summation"): below f64 its own rounding error can be as large as the
    /// distances of good runs, which the clause then says.
    pub reference_arithmetic: String,
}

impl Distance {
    fn largest(&self, pick: impl Fn(&(f64, f64, f64)) -> f64) -> f64 {
        self.0.iter().map(pick).fold(0.0, f64::max)
    }
}

/// The index of the study's reference run, if it has one.
pub(super) fn reference_index(runs: &[PlottedRun]) -> Option<usize> {
    runs.iter().position(|r| r.run.reference)
}

/// The reference run's legend label without its " (reference)" mark.
fn plain(label: &str) -> &str {
    label.trim_end_matches(" (reference)")
}

/// The state's second half as a word: momenta, or velocities for a variational system.
fn second_half(system: &System) -> &'static str {
    if system.stores_velocities() {
        "velocity"
    } else {
        "momentum"
    }
}

/// The distance of `run` from `reference` at their shared snapshot times, or None where they
/// cannot be compared: not both single trajectories, different dimensions or kinds of state
/// ((q, p) against a variational system's (q, v)), or fewer than two shared times. It stops
/// at the run's first non-finite state (a blown-up point is not a distance).
pub(super) fn distance(run: &PlottedRun, reference: &PlottedRun) -> Option<Distance> {
    let (traj, ref_traj) = (&run.result.trajectory, &reference.result.trajectory);
    let d = run.system.dof();
    if reference.system.dof() != d
        || second_half(run.system) != second_half(reference.system)
        || traj.is_empty()
        || ref_traj.is_empty()
    {
        return None;
    }
    let mut out = Vec::new();
    for (t, z) in traj.iter() {
        if !z.iter().all(|x| x.is_finite()) {
            break;
        }
        let Some(zr) = at_time(ref_traj, *t) else {
            continue;
        };
        if zr.len() != z.len() || !zr.iter().all(|x| x.is_finite()) {
            continue;
        }
        let norm = |range: std::ops::Range<usize>| {
            range.map(|i| (z[i] - zr[i]).powi(2)).sum::<f64>().sqrt()
        };
        out.push((*t, norm(0..d), norm(d..z.len())));
    }
    (out.len() >= 2).then_some(Distance(out))
}

/// The reference's state at time t, where it has a snapshot then (its snapshots are in order
/// of time).
fn at_time(reference: &Trajectory, t: f64) -> Option<&[f64]> {
    let i = reference.partition_point(|(tr, _)| *tr < t);
    let near = |j: usize| {
        reference
            .get(j)
            .filter(|(tr, _)| (tr - t).abs() <= SAME_TIME * t.abs().max(1.0))
    };
    (i.checked_sub(1).and_then(near).or_else(|| near(i))).map(|(_, z)| z.as_slice())
}

/// Every run's distance from the reference, in the runs' order (None for the reference
/// itself and for the runs that cannot be compared with it), with `labels` naming the runs and
/// `arithmetic` each run's arithmetic (`RunConfig::arithmetic`).
pub(super) fn distances(
    runs: &[PlottedRun],
    labels: &[String],
    arithmetic: &[String],
) -> Vec<Option<ReferenceDistance>> {
    let Some(k) = reference_index(runs) else {
        return runs.iter().map(|_| None).collect();
    };
    runs.iter()
        .enumerate()
        .map(|(i, r)| {
            let d = (i != k).then(|| distance(r, &runs[k])).flatten()?;
            Some(ReferenceDistance {
                reference: plain(&labels[k]).to_string(),
                position: d.largest(|e| e.1),
                momentum: d.largest(|e| e.2),
                until: d.0.last().map_or(0.0, |e| e.0),
                times: d.0.len(),
                second_half: second_half(r.system),
                reference_arithmetic: arithmetic[k].clone(),
            })
        })
        .collect()
}

/// report.md's clause: "against the reference (rk4, h = 0.001), at 11 shared times up to
/// t = 10, the position was at most 0.545 away (|q − q_ref|) and the momentum at most 0.42
/// (|p − p_ref|)", and where the reference ran below f64, that it does not resolve distances
/// near its own rounding.
pub(super) fn clause(d: &ReferenceDistance) -> String {
    let p = if d.second_half == "velocity" {
        "v"
    } else {
        "p"
    };
    let caution = if d.reference_arithmetic == "f64" {
        String::new()
    } else {
        format!(
            " (the reference ran in {}: distances near its own rounding error are not resolved; --precision f64 resolves them)",
            d.reference_arithmetic
        )
    };
    format!(
        "against the reference ({}), at {} shared times up to t = {}, the position was at most {} away (|q − q_ref|) and the {} at most {} (|{p} − {p}_ref|){caution}",
        d.reference,
        d.times,
        fmt_g(d.until),
        fmt_g(d.position),
        d.second_half,
        fmt_g(d.momentum)
    )
}

/// The distance of each run from the reference against time, |Δq| solid and |Δp| dashed in
/// the run's colour; None without a reference or a run to compare with it.
pub(super) fn reference_figure(runs: &[PlottedRun], labels: &[String]) -> Option<StudyFigure> {
    let k = reference_index(runs)?;
    let mut series = Vec::new();
    for (i, (r, label)) in runs.iter().zip(labels).enumerate() {
        let Some(d) = (i != k).then(|| distance(r, &runs[k])).flatten() else {
            continue;
        };
        let p = if r.system.stores_velocities() {
            "v"
        } else {
            "p"
        };
        let color = Some(palette_color(i));
        series.push(Series {
            label: format!("{label}: |q − q_ref|"),
            points: d.0.iter().map(|e| (e.0, e.1)).collect(),
            style: Style::Line,
            color,
        });
        series.push(Series {
            label: format!("{label}: |{p} − {p}_ref|"),
            points: d.0.iter().map(|e| (e.0, e.2)).collect(),
            style: Style::Dashed,
            color,
        });
    }
    if series.is_empty() {
        return None;
    }
    let title = format!(
        "Distance from the reference solution ({})",
        plain(&labels[k])
    );
    Some(StudyFigure {
        stem: "reference_distance".into(),
        title: title.clone(),
        figure: Figure {
            title,
            x_label: "t".into(),
            y_label: format!(
                "position (solid) and {} (dashed) error",
                second_half(runs[k].system)
            ),
            series,
            log_x: false,
            log_y: true,
            equal_aspect: false,
            x_range: None,
            y_range: None,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_state_is_found_at_a_time_rounded_differently() {
        let reference: Vec<(f64, Vec<f64>)> = (0..=1000)
            .map(|k| (k as f64 * 0.001, vec![k as f64]))
            .collect();
        // 0.02 × 50 and 0.001 × 1000 round apart; both are t = 1.
        assert_eq!(at_time(&reference, 0.02 * 50.0), Some(&[1000.0][..]));
        assert_eq!(at_time(&reference, 0.5), Some(&[500.0][..]));
        assert_eq!(at_time(&reference, 0.0), Some(&[0.0][..]));
        // Between snapshots, and past the end: no shared time.
        assert_eq!(at_time(&reference, 0.0005), None);
        assert_eq!(at_time(&reference, 1.5), None);
    }
}
