//! summary.csv: one `SummaryRow` per method, condensed from its run's statistics rows, and
//! the one-sentence verdict on each that report.md gives.

use serde::Serialize;

use super::format::{count, fmt_g, fmt_ratio, opt};
use super::reference::ReferenceDistance;
use super::StudyRun;
use crate::config::RunConfig;
use crate::measure::area::AREA_RATIO;
use crate::measure::constraint::CONSTRAINT_ERR_MAX;
use crate::measure::energy::columns::{
    ABS_ERR_MAX, ABS_ERR_MEAN, ANG_MOM_ERR_MAX, ESCAPED, FINITE, MOMENTUM_ERR_MAX, REL_ERR_MAX,
    STAYED_ABS_ERR_MAX, STAYED_REL_ERR_MAX,
};
use crate::measure::energy::{drift_fit, ESCAPE_FACTOR};
use crate::measure::floor::{AREA_FLOOR, DET_FLOOR, ENERGY_FLOOR};
use crate::measure::measurement::Column;
use crate::measure::registry::UNCONVERGED;
use crate::measure::row::{summary_cells, NamedCells, Row};
use crate::measure::tangent::{DET_MAX, DET_MEAN, DET_MIN};
use crate::run;

/// One row of summary.csv (columns documented in docs/commands.md): these fields, then the
/// measurements' summarised columns (`measured`).
#[derive(Debug, Clone, Serialize)]
pub struct SummaryRow {
    pub system: String,
    pub method: String,
    pub dt: f64,
    pub steps: u64,
    pub t_end: f64,
    /// Points at the end (loops: nodes after refinement) and how many of them are finite
    /// (those a `--stop-when` condition stopped among them).
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
    /// The most points that had escaped or blown up at any snapshot (stats.csv's `escaped`);
    /// empty only where a run's rows have no count. Last, so that the older columns
    /// keep their positions.
    pub escaped: Option<u64>,
    /// Where points escaped, the largest relative and absolute energy errors of the others
    /// (stats.csv's `stayed_*` columns) over the snapshots from `stayed_since` on, for the
    /// verdict; not in summary.csv.
    #[serde(skip)]
    pub stayed_max_rel_energy_err: Option<f64>,
    #[serde(skip)]
    pub stayed_max_abs_energy_err: Option<f64>,
    /// The time of the first snapshot at which as many points had escaped as ever did: from
    /// there on the points not escaped are those that stayed. Before it they include points
    /// on their way out, not yet past the threshold, whose errors are no figure of the rest.
    #[serde(skip)]
    pub stayed_since: Option<f64>,
    /// The standard error of `energy_drift_slope`, from the fit's residuals (summary.csv's
    /// columns after the measurements', `SummaryTail`).
    #[serde(skip)]
    pub energy_drift_slope_stderr: Option<f64>,
    /// The run's arithmetic as reports name it (`RunConfig::arithmetic`): "f32", "f64", "f32
    /// with compensated summation".
    #[serde(skip)]
    pub arithmetic: String,
    /// Whether the rounding floors are the implicit solver's tolerance (it is larger than the
    /// rounding: `measure::floor::StepError`).
    #[serde(skip)]
    pub floor_from_solver: bool,
    /// The columns the measurements add (`row::summary_cells`), written after these
    /// (`SummaryRow::record`).
    #[serde(skip)]
    pub measured: NamedCells,
    /// The run's distance from the study's reference solution, where it has one and the run
    /// can be compared with it (summary.csv's `reference_*` columns, `SummaryTail`).
    #[serde(skip)]
    pub reference: Option<ReferenceDistance>,
    /// A Lagrangian's discrete momentum (`--momentum`): largest |J − J(z0)| over all
    /// snapshots and points (summary.csv's `momentum_err_max`, `SummaryTail`).
    #[serde(skip)]
    pub max_momentum_err: Option<f64>,
}

/// The columns summary.csv writes after the measurements' (added last, so that the older
/// columns keep their positions).
#[derive(Debug, Clone, Serialize)]
pub struct SummaryTail {
    pub energy_drift_slope_stderr: Option<f64>,
    pub momentum_err_max: Option<f64>,
    /// The largest |q − q_ref| and |p − p_ref| (|v − v_ref| for a variational system) at the
    /// times the run and the study's reference run share.
    pub reference_position_err_max: Option<f64>,
    pub reference_momentum_err_max: Option<f64>,
}

impl SummaryRow {
    /// The row as summary.csv writes it: these fields, the measurements' columns, the tail.
    pub fn record(&self) -> (&Self, &NamedCells, SummaryTail) {
        (
            self,
            &self.measured,
            SummaryTail {
                energy_drift_slope_stderr: self.energy_drift_slope_stderr,
                momentum_err_max: self.max_momentum_err,
                reference_position_err_max: self.reference.as_ref().map(|d| d.position),
                reference_momentum_err_max: self.reference.as_ref().map(|d| d.momentum),
            },
        )
    }

    /// The value of a summarised measurement's column (`row::summary_cells`).
    pub fn measured(&self, column: &Column) -> Option<f64> {
        self.measured
            .0
            .iter()
            .find(|(name, _)| *name == column.name)
            .and_then(|(_, cell)| cell.real())
    }

    /// The rounding floor of the final area ratio − 1 (`final_area_ratio`'s: the loop's
    /// area floor, else the tangent map's det floor), where the run has one.
    fn area_floor(&self) -> Option<f64> {
        self.measured(&AREA_FLOOR).or(self.measured(&DET_FLOOR))
    }
}

/// The largest finite value, if any.
fn fold_max(it: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    it.flatten()
        .filter(|x| x.is_finite())
        .fold(None, |m, x| Some(m.map_or(x, |m: f64| m.max(x))))
}

/// The summary row of one run of the study (`cfg`: the run's configuration) from its
/// statistics rows.
pub(super) fn summarise(cfg: &RunConfig, r: &StudyRun, res: &run::RunSummary) -> SummaryRow {
    let rows = &res.rows;
    let last = rows.last().expect("a run has at least the step-0 row");
    let stayed = since_the_last_escape(rows);
    let (t, y): (Vec<f64>, Vec<f64>) = rows
        .iter()
        .filter_map(|row| row.real(&ABS_ERR_MEAN).map(|e| (row.t, e)))
        .unzip();
    let drift = drift_fit(&t, &y);
    SummaryRow {
        system: cfg.system.name().into(),
        method: match &r.vary {
            Some(v) => format!("{} ({})", r.method.name(), v.label),
            None => r.method.name().into(),
        },
        dt: r.dt,
        steps: r.steps,
        t_end: r.steps as f64 * r.dt,
        points: last.points,
        // Points stopped by a --stop-when condition kept their finite state.
        finite: last.count(&FINITE).unwrap_or(0)
            + last.count(&crate::measure::stopped::STOPPED).unwrap_or(0),
        final_area_ratio: last.real(&AREA_RATIO).or(last.real(&DET_MEAN)),
        max_abs_det_minus_1: fold_max(rows.iter().flat_map(|row| {
            [
                row.real(&DET_MAX).map(|d| (d - 1.0).abs()),
                row.real(&DET_MIN).map(|d| (d - 1.0).abs()),
            ]
        })),
        max_rel_energy_err: fold_max(rows.iter().map(|row| row.real(&REL_ERR_MAX))),
        max_abs_energy_err: fold_max(rows.iter().map(|row| row.real(&ABS_ERR_MAX))),
        mean_abs_energy_err: (!y.is_empty()).then(|| y.iter().sum::<f64>() / y.len() as f64),
        energy_drift_slope: drift.map(|f| f.slope),
        max_ang_mom_err: fold_max(rows.iter().map(|row| row.real(&ANG_MOM_ERR_MAX))),
        unconverged: last.count(&UNCONVERGED).unwrap_or(0),
        refine_capped_at_step: res.refine_capped_at,
        refine_stuck_at_step: res.refine_stuck_at,
        engine: res.engine.clone(),
        escaped: rows
            .iter()
            .map(|row| row.count(&ESCAPED))
            .collect::<Option<Vec<u64>>>()
            .map(|counts| counts.into_iter().max().unwrap_or(0)),
        stayed_max_rel_energy_err: fold_max(stayed.iter().map(|row| row.real(&STAYED_REL_ERR_MAX))),
        stayed_max_abs_energy_err: fold_max(stayed.iter().map(|row| row.real(&STAYED_ABS_ERR_MAX))),
        stayed_since: stayed.first().map(|row| row.t),
        energy_drift_slope_stderr: drift.and_then(|f| f.stderr),
        arithmetic: cfg.arithmetic(),
        floor_from_solver: cfg.step_error().from_solver,
        measured: summary_cells(rows),
        reference: None,
        max_momentum_err: fold_max(rows.iter().map(|row| row.real(&MOMENTUM_ERR_MAX))),
    }
}

/// The snapshots from the first at which as many points had escaped as ever did (none where
/// the rows count no escapes).
fn since_the_last_escape(rows: &[Row]) -> &[Row] {
    let peak = rows.iter().map(|row| row.count(&ESCAPED)).max().flatten();
    let from = rows
        .iter()
        .position(|row| peak.is_some() && row.count(&ESCAPED) == peak);
    from.map_or(&[], |i| &rows[i..])
}

/// Points that escaped or blew up by the end: the statistics' count where the run had one, and
/// at least the non-finite points where it did not (e.g. a stats.csv from before the column).
fn escaped_points(s: &SummaryRow) -> u64 {
    s.escaped.unwrap_or(0).max(s.points - s.finite)
}

/// A final area or det ratio that can be read as the evolved set's area: positive, finite and
/// within six orders of magnitude of 1. Anything else (−2.7e32, 3.6e33) is the arithmetic of
/// blown-up tangent maps or tangled loops, not an area.
fn is_measurable_ratio(r: f64) -> bool {
    r.is_finite() && r > 0.0 && r.log10().abs() <= 6.0
}

/// Relative errors from this size on are "of order one": the energy was not kept.
const ORDER_ONE: f64 = 0.5;

/// Whether the energy error is too large to call bounded: a relative error of order one or more,
/// or, where no relative error exists (H(z0) ≈ 0), an absolute one past the escape threshold.
fn energy_unbounded(s: &SummaryRow) -> bool {
    match (s.max_rel_energy_err, s.max_abs_energy_err) {
        (Some(e), _) => e >= ORDER_ONE,
        (None, Some(e)) => e > ESCAPE_FACTOR,
        (None, None) => false,
    }
}

/// A fitted slope counts only where it is this many standard errors above zero.
const SIGNIFICANT: f64 = 3.0;

/// Drift, from the least-squares line through the mean |H − H(z0)| over the whole run (not
/// its endpoints): the slope is significant (`SIGNIFICANT` standard errors above zero), its
/// growth over the run (slope × duration) is a material part of the error (more than half
/// its time average, or of its largest value where no average is known: a ramp from a to b
/// passes this once b − a > 2a/3) and more than the energy's rounding floor, whose random
/// walk grows too. A bounded oscillating error has a slope within its standard error.
fn is_drifting(s: &SummaryRow) -> bool {
    let Some(slope) = s.energy_drift_slope else {
        return false;
    };
    let growth = slope * s.t_end;
    let significant = slope > 0.0
        && s.energy_drift_slope_stderr
            .is_none_or(|se| slope > SIGNIFICANT * se);
    let size = s
        .mean_abs_energy_err
        .or(s.max_abs_energy_err)
        .unwrap_or(0.0);
    let beyond_rounding = s.measured(&ENERGY_FLOOR).is_none_or(|f| growth > f);
    significant && growth > 0.5 * size.max(1e-300) && beyond_rounding
}

/// Deviations from 1 of the area ratio below this are "kept"; a rounding floor above it
/// cannot tell a kept area from a changed one.
const KEPT: f64 = 1e-4;

/// What a run's deviations within their floors are kept to.
fn kept_to(s: &SummaryRow) -> &'static str {
    if s.floor_from_solver {
        "the implicit solver's tolerance"
    } else {
        "rounding"
    }
}

/// "not resolved at f32 (what) : rerun with …": a floor too coarse to decide, what lies
/// within it, and the remedy.
fn not_resolved(s: &SummaryRow, what: &str) -> String {
    let remedy = if s.floor_from_solver {
        ": rerun with a smaller --implicit-tol"
    } else if s.arithmetic == "f32" {
        ": rerun with --precision f64 (or --compensated)"
    } else if s.arithmetic.starts_with("f32") {
        ": rerun with --precision f64"
    } else {
        ""
    };
    format!("not resolved at {} ({what}){remedy}", s.arithmetic)
}

/// How a measurable final area ratio compares with its rounding floor.
#[derive(Debug, Clone, Copy, PartialEq)]
enum AreaReading {
    /// Within a floor fine enough to decide: kept to rounding.
    KeptToFloor(f64),
    /// Within a floor too coarse to decide.
    Unresolved(f64),
    /// Beyond its floor, or no floor known: the ratio is what it says.
    Measured,
}

fn area_reading(s: &SummaryRow, r: f64) -> AreaReading {
    match s.area_floor() {
        Some(f) if (r - 1.0).abs() <= f && f > KEPT => AreaReading::Unresolved(f),
        Some(f) if (r - 1.0).abs() <= f => AreaReading::KeptToFloor(f),
        _ => AreaReading::Measured,
    }
}

/// "3 of 400 points blew up (non-finite) and 2 more left …", or None when every point stayed.
fn escape_clause(s: &SummaryRow) -> Option<String> {
    let (escaped, blown) = (escaped_points(s), s.points - s.finite);
    let left = escaped - blown;
    let threshold = format!(
        "energy error above {} × (1 + |H(z0)|)",
        fmt_g(ESCAPE_FACTOR)
    );
    if s.points == 1 {
        return match (blown, left) {
            (0, 0) => None,
            (1, _) => Some("the point blew up (non-finite)".into()),
            _ => Some(format!("the point left the bounded region ({threshold})")),
        };
    }
    let of = if escaped == s.points {
        format!("all {}", count(s.points, "point"))
    } else {
        format!("{escaped} of {}", count(s.points, "point"))
    };
    match (blown, left) {
        (0, 0) => None,
        (_, 0) => Some(format!("{of} blew up (non-finite)")),
        (0, _) => Some(format!("{of} left the bounded region ({threshold})")),
        _ => Some(format!(
            "{of} escaped: {blown} blew up (non-finite) and {left} more left the bounded region ({threshold})"
        )),
    }
}

/// What became of the area (None where the run measured none and nothing escaped).
fn area_clause(s: &SummaryRow) -> Option<String> {
    let escaped = escaped_points(s);
    if escaped > 0 && (s.final_area_ratio.is_some() || s.finite < s.points) {
        let how = match (s.points - s.finite, escaped) {
            (0, _) => "escaped",
            (b, e) if b == e => "blew up",
            _ => "escaped or blew up",
        };
        let who = if s.points == 1 {
            format!("the point {how}")
        } else {
            format!("{} {how}", count(escaped, "point"))
        };
        return Some(format!("the area is not measurable: {who}"));
    }
    let r = s.final_area_ratio?;
    if !is_measurable_ratio(r) {
        return Some(format!(
            "the area is not measurable (final ratio {})",
            fmt_g(r)
        ));
    }
    Some(match area_reading(s, r) {
        AreaReading::KeptToFloor(f) => format!(
            "the area was kept to {} (final ratio {}, floor {})",
            kept_to(s),
            fmt_ratio(r),
            fmt_g(f)
        ),
        AreaReading::Unresolved(f) => format!(
            "the area is {}",
            not_resolved(
                s,
                &format!(
                    "final ratio {}, within its rounding floor {}",
                    fmt_ratio(r),
                    fmt_g(f)
                )
            ),
        ),
        AreaReading::Measured if s.area_floor().is_none() && (r - 1.0).abs() < KEPT => {
            format!("the area was kept (final ratio {})", fmt_ratio(r))
        }
        AreaReading::Measured => {
            let how = if r > 1.0 { "grew" } else { "shrank" };
            let beyond = s
                .area_floor()
                .map(|f| format!(" (beyond its rounding floor {})", fmt_g(f)))
                .unwrap_or_default();
            format!("the area {how} by a factor {}{beyond}", fmt_ratio(r))
        }
    })
}

/// Whether the final area ratio changed beyond its rounding floor (a measurable ratio, no
/// escape).
fn area_changed(s: &SummaryRow) -> bool {
    escaped_points(s) == 0
        && s.final_area_ratio.is_some_and(|r| {
            is_measurable_ratio(r)
                && area_reading(s, r) == AreaReading::Measured
                && (s.area_floor().is_some() || (r - 1.0).abs() >= KEPT)
        })
}

/// Whether the final area ratio lies within a floor too coarse to decide.
fn area_unresolved(s: &SummaryRow) -> bool {
    escaped_points(s) == 0
        && s.final_area_ratio.is_some_and(|r| {
            is_measurable_ratio(r) && matches!(area_reading(s, r), AreaReading::Unresolved(_))
        })
}

/// Whether the largest energy error is within the energy's rounding floor.
fn energy_within_floor(s: &SummaryRow) -> Option<f64> {
    let floor = s.measured(&ENERGY_FLOOR)?;
    (s.max_abs_energy_err? <= floor).then_some(floor)
}

/// Whether the largest energy error lies within a floor too coarse to decide: relative to
/// the energy (the largest relative error over the largest absolute one: |H(z0)| of a single
/// point) above `KEPT`. Where H(z0) ≈ 0 there is no relative floor, and none is too coarse.
fn energy_unresolved(s: &SummaryRow) -> bool {
    let (Some(floor), Some(rel), Some(abs)) = (
        energy_within_floor(s),
        s.max_rel_energy_err,
        s.max_abs_energy_err,
    ) else {
        return false;
    };
    abs > 0.0 && floor * rel / abs > KEPT
}

/// The largest energy error and what kind it is.
fn energy_clause(s: &SummaryRow) -> String {
    let (drifting, unbounded) = (is_drifting(s), energy_unbounded(s));
    let trend = match (s.energy_drift_slope, s.energy_drift_slope_stderr) {
        (Some(slope), Some(se)) => format!(
            ": fitted slope {} ± {} per unit time",
            fmt_g(slope),
            fmt_g(se)
        ),
        _ => String::new(),
    };
    let kind = if drifting && unbounded {
        format!(", of order one or more (drifting upwards{trend})")
    } else if drifting {
        format!(" (drifting upwards{trend})")
    } else if escaped_points(s) > 0 {
        " (not bounded: the escaped points' error)".into()
    } else if unbounded {
        " (of order one or more: not bounded)".into()
    } else if let Some(floor) = energy_within_floor(s) {
        let within = format!(
            "the absolute error is within its rounding floor {}",
            fmt_g(floor)
        );
        if energy_unresolved(s) {
            format!(", {}", not_resolved(s, &within))
        } else {
            format!(" (kept to {}: {within})", kept_to(s))
        }
    } else if s.energy_drift_slope.is_some() {
        " (bounded, without systematic drift)".into()
    } else {
        String::new()
    };
    match (s.max_rel_energy_err, s.max_abs_energy_err) {
        (Some(e), _) => format!("the relative energy error reached {}{kind}", fmt_g(e)),
        // H(z0) ≈ 0 (e.g. the elastic pendulum's E = 0): the absolute error is the measure.
        (None, Some(e)) => format!(
            "the absolute energy error reached {} (time average {}){kind}",
            fmt_g(e),
            opt(s.mean_abs_energy_err)
        ),
        (None, None) if s.finite == 0 => "no point stayed finite, so no energy error".into(),
        (None, None) => "the energy error is undefined".into(),
    }
}

/// Where part of the set escaped, what the rest did: the escaped points' error dominates the
/// energy clause's figure, so the points that stayed get their own.
fn stayed_clause(s: &SummaryRow) -> Option<String> {
    let escaped = escaped_points(s);
    if escaped == 0 || escaped >= s.points {
        return None;
    }
    let who = match s.points - escaped {
        1 => "the 1 point that stayed".to_string(),
        n => format!("the {n} points that stayed"),
    };
    let who = format!(
        "{who} (from t = {} on, after the last escape)",
        fmt_g(s.stayed_since?)
    );
    match (s.stayed_max_rel_energy_err, s.stayed_max_abs_energy_err) {
        (Some(e), _) => Some(format!(
            "{who}: relative energy error at most {}, {}",
            fmt_g(e),
            if e >= ORDER_ONE {
                "of order one or more"
            } else {
                "bounded"
            }
        )),
        (None, Some(e)) => Some(format!("{who}: absolute energy error at most {}", fmt_g(e))),
        (None, None) => None,
    }
}

/// How the run reads given the method: what a symplectic method promises, and whether it held.
fn closing(s: &SummaryRow, symplectic: bool) -> &'static str {
    if !symplectic {
        return "this method is not symplectic.";
    }
    // Area and bounded energy error are guaranteed only where the step resolves the motion; a
    // point running off to infinity is outside that region, whatever the method.
    if escaped_points(s) > 0 {
        return if escaped_points(s) == s.points {
            "a symplectic method, but the ensemble left the region where its guarantees (kept area, bounded energy error) hold."
        } else {
            "a symplectic method, but part of the ensemble left the region where its guarantees (kept area, bounded energy error) hold."
        };
    }
    // A symplectic method whose energy error reaches order one is past its step size's
    // range (instability or an unresolved motion), not showing symplectic behaviour.
    if energy_unbounded(s) {
        return "a symplectic method, yet its energy was not kept: the step is too large for this motion.";
    }
    // A steady rise of a small error is either that, or a bounded error still rising
    // towards its bound: the slowest points' periods can be longer than the run.
    if is_drifting(s) {
        return "a symplectic method, yet its energy error grew over the run: either the step does not resolve the motion, or the run is shorter than the slowest points' periods and the bounded error is still rising towards its bound (a longer run tells them apart).";
    }
    match (area_unresolved(s), energy_unresolved(s)) {
        (true, true) => return "a symplectic method, but at this precision the run cannot show whether it kept the area and bounded its energy error.",
        (true, false) => return "a symplectic method, but at this precision the run cannot show whether it kept the area.",
        (false, true) => return "a symplectic method, but at this precision the run cannot show whether its energy error stays bounded.",
        (false, false) => {}
    }
    // A symplectic map keeps the area exactly: a change beyond the rounding floor is the
    // measurement's (an under-resolved loop) or an unstable step's, never the method's.
    if area_changed(s) {
        return "a symplectic method, yet the area changed beyond rounding: the loop or the step does not resolve the motion.";
    }
    "as expected of a symplectic method."
}

/// One sentence on what happened to a method's set (for report.md): its clauses joined by
/// semicolons, then what that means for the method.
pub(super) fn verdict(s: &SummaryRow, symplectic: bool) -> String {
    let mut clauses: Vec<String> = escape_clause(s).into_iter().collect();
    clauses.extend(area_clause(s));
    clauses.push(energy_clause(s));
    clauses.extend(stayed_clause(s));
    if let Some(l) = s.max_ang_mom_err {
        clauses.push(format!(
            "the angular momentum error was at most {}",
            fmt_g(l)
        ));
    }
    if let Some(j) = s.max_momentum_err {
        clauses.push(format!(
            "the discrete momentum J changed by at most {}",
            fmt_g(j)
        ));
    }
    if let Some(g) = s.measured(&CONSTRAINT_ERR_MAX) {
        clauses.push(format!(
            "the constraints were violated by at most {}",
            fmt_g(g)
        ));
    }
    clauses.extend(s.reference.as_ref().map(super::reference::clause));
    if s.unconverged > 0 {
        clauses.push(format!(
            "{} had implicit solves that did not converge",
            count(s.unconverged, "point")
        ));
    }
    format!(
        "**{}** (h = {}, {} to t = {}): {}: {}",
        s.method,
        fmt_g(s.dt),
        count(s.steps, "step"),
        fmt_g(s.t_end),
        clauses.join("; "),
        closing(s, symplectic)
    )
}

#[cfg(test)]
mod tests;
