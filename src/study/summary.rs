//! summary.csv: one `SummaryRow` per method, condensed from its run's statistics rows, and
//! the one-sentence verdict on each that report.md gives.

use std::fmt::Write as _;

use serde::Serialize;

use super::format::{fmt_g, fmt_ratio, opt};
use super::StudyRun;
use crate::measure::energy::drift_slope;
use crate::run;

/// One row of summary.csv (columns documented in README.md).
#[derive(Debug, Clone, Serialize)]
pub struct SummaryRow {
    pub system: String,
    pub method: String,
    pub dt: f64,
    pub steps: u64,
    pub t_end: f64,
    /// Points at the end (loops: nodes after refinement) and how many of them are finite.
    pub points: u64,
    pub finite: u64,
    /// Loops: final `area_ratio` (loop area / the exact initial area, else the step-0 area). Filled sets with the tangent map: final mean det.
    pub final_area_ratio: Option<f64>,
    /// Largest |det DΦⁿ − 1| over all snapshots and points (tangent map).
    pub max_abs_det_minus_1: Option<f64>,
    /// Largest |H − H(z0)| / |H(z0)| over all snapshots and points.
    pub max_rel_energy_err: Option<f64>,
    /// Largest |H − H(z0)| over all snapshots and points (energy units).
    pub max_abs_energy_err: Option<f64>,
    /// Time average over the snapshots of the mean |H − H(z0)| (energy units).
    pub mean_abs_energy_err: Option<f64>,
    /// Least-squares slope of the mean |H − H(z0)| against t (energy per unit time).
    pub energy_drift_slope: Option<f64>,
    /// Systems with angular momentum: largest |L − L(z0)| over all snapshots and points.
    pub max_ang_mom_err: Option<f64>,
    /// Points whose implicit solve hit the iteration cap at least once (at the end).
    pub unconverged: u64,
    /// Step at which loop refinement hit --max-nodes (empty if never).
    pub refine_capped_at_step: Option<u64>,
    /// First step at which a loop gap could not be refined at the run's precision (its
    /// neighbouring nodes had merged); empty if never.
    pub refine_stuck_at_step: Option<u64>,
    pub engine: String,
}

/// The largest finite value, if any.
fn fold_max(it: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    it.flatten()
        .filter(|x| x.is_finite())
        .fold(None, |m, x| Some(m.map_or(x, |m: f64| m.max(x))))
}

/// The summary row of one run of the study (`system`: the run's system) from its statistics rows.
pub(super) fn summarise(system: &str, r: &StudyRun, res: &run::RunSummary) -> SummaryRow {
    let rows = &res.rows;
    let last = rows.last().expect("a run has at least the step-0 row");
    let (t, y): (Vec<f64>, Vec<f64>) = rows
        .iter()
        .filter_map(|row| row.abs_energy_err_mean.map(|e| (row.t, e)))
        .unzip();
    SummaryRow {
        system: system.into(),
        method: r.method.name().into(),
        dt: r.dt,
        steps: r.steps,
        t_end: r.steps as f64 * r.dt,
        points: last.points,
        finite: last.finite,
        final_area_ratio: last.area_ratio.or(last.det_mean),
        max_abs_det_minus_1: fold_max(rows.iter().flat_map(|row| {
            [
                row.det_max.map(|d| (d - 1.0).abs()),
                row.det_min.map(|d| (d - 1.0).abs()),
            ]
        })),
        max_rel_energy_err: fold_max(rows.iter().map(|row| row.rel_energy_err_max)),
        max_abs_energy_err: fold_max(rows.iter().map(|row| row.abs_energy_err_max)),
        mean_abs_energy_err: (!y.is_empty()).then(|| y.iter().sum::<f64>() / y.len() as f64),
        energy_drift_slope: drift_slope(&t, &y),
        max_ang_mom_err: fold_max(rows.iter().map(|row| row.ang_mom_err_max)),
        unconverged: last.unconverged,
        refine_capped_at_step: res.refine_capped_at,
        refine_stuck_at_step: res.refine_stuck_at,
        engine: res.engine.clone(),
    }
}

/// One sentence on what happened to a method's set (for report.md).
pub(super) fn verdict(s: &SummaryRow, symplectic: bool) -> String {
    let mut out = format!("**{}** (h = {}, {} steps):", s.method, fmt_g(s.dt), s.steps);
    if s.finite < s.points {
        let _ = write!(
            out,
            " {} of {} points blew up (non-finite);",
            s.points - s.finite,
            s.points
        );
    }
    match s.final_area_ratio {
        Some(r) if (r - 1.0).abs() < 1e-4 => {
            let _ = write!(out, " the area was kept (final ratio {}),", fmt_ratio(r));
        }
        Some(r) => {
            let how = if r > 1.0 { "grew" } else { "shrank" };
            let _ = write!(out, " the area {how} by a factor {},", fmt_g(r));
        }
        None if s.finite < s.points => {
            out.push_str(" the area could not be measured (non-finite points),")
        }
        // neither a loop nor the tangent map: no area to report
        None => {}
    }
    // Drift: the run's least-squares growth of the mean |H − H(z0)| (slope × duration) against
    // the largest |H − H(z0)| seen, both in energy units. A bounded oscillating error has a
    // small slope; a drifting one accounts for most of its largest value.
    let drifting = match (s.max_abs_energy_err, s.energy_drift_slope) {
        (Some(e), Some(slope)) => slope > 0.0 && slope * s.t_end > 0.5 * e.max(1e-300),
        _ => false,
    };
    let kind = match s.energy_drift_slope {
        Some(_) if drifting => " (drifting upwards)",
        Some(_) => " (bounded, without systematic drift)",
        None => "",
    };
    match (s.max_rel_energy_err, s.max_abs_energy_err) {
        (Some(e), _) => {
            let _ = write!(
                out,
                " and the relative energy error reached {}{kind}",
                fmt_g(e)
            );
        }
        // H(z0) ≈ 0 (e.g. the elastic pendulum's E = 0): the absolute error is the measure.
        (None, Some(e)) => {
            let _ = write!(
                out,
                " and the absolute energy error reached {} (time average {}){kind}",
                fmt_g(e),
                opt(s.mean_abs_energy_err)
            );
        }
        (None, None) => out.push_str(" and the energy error is undefined"),
    }
    if let Some(l) = s.max_ang_mom_err {
        let _ = write!(out, "; angular momentum error at most {}", fmt_g(l));
    }
    if s.unconverged > 0 {
        let _ = write!(
            out,
            "; {} points had implicit solves that did not converge",
            s.unconverged
        );
    }
    // A symplectic method whose energy error drifts or reaches order one is past its step
    // size's range (instability or an unresolved motion), not showing symplectic behaviour.
    let broke = drifting || s.max_rel_energy_err.is_some_and(|e| e > 0.5) || s.finite < s.points;
    out.push_str(if symplectic && broke {
        ": a symplectic method, yet its energy was not kept: the step is too large for this motion."
    } else if symplectic {
        ": as expected of a symplectic method."
    } else {
        ": this method is not symplectic."
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pendulum-level figures (f64, t = 2000): explicit Euler's energy error grows
    /// steadily, symplectic Euler's oscillates.
    fn row(method: &str, max_rel: f64, max_abs: f64, slope: f64) -> SummaryRow {
        SummaryRow {
            system: "pendulum".into(),
            method: method.into(),
            dt: 5e-4,
            steps: 4_000_000,
            t_end: 2000.0,
            points: 2000,
            finite: 2000,
            final_area_ratio: Some(1.0),
            max_abs_det_minus_1: None,
            max_rel_energy_err: Some(max_rel),
            max_abs_energy_err: Some(max_abs),
            mean_abs_energy_err: None,
            energy_drift_slope: Some(slope),
            max_ang_mom_err: None,
            unconverged: 0,
            refine_capped_at_step: None,
            refine_stuck_at_step: None,
            engine: "cpu".into(),
        }
    }

    #[test]
    fn verdict_tells_drift_from_bounded_error() {
        let euler = verdict(&row("euler", 1.534, 0.2055, 1.017e-4), false);
        assert!(euler.contains("(drifting upwards)"), "{euler}");
        let se = verdict(
            &row("symplectic-euler-a", 4.917e-4, 6.588e-5, 1.034e-10),
            true,
        );
        assert!(se.contains("(bounded, without systematic drift)"), "{se}");
        assert!(se.contains("as expected of a symplectic method"), "{se}");
        // A symplectic method whose error drifts has too large a step.
        let bad = verdict(&row("verlet", 1e-3, 1e-4, 1e-7), true);
        assert!(
            bad.contains("(drifting upwards)") && bad.contains("step is too large"),
            "{bad}"
        );
    }
}
