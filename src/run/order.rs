//! `phaseflow order`: a convergence study. The method runs at h0, h0/2, …, h0/2^N over the
//! same time span (f64, CPU engine), each against one reference solution (the reference
//! method at the finest h / K); at `SAMPLES` times evenly spread over the span it measures
//! the global error (the largest distance in phase space to the reference over the points)
//! and the energy error (the largest |H − H(z0)|), and keeps the largest of each per h.
//!
//! The fitted order is the least-squares slope of ln(error) against ln(h) over the step
//! sizes whose error is above their rounding floor, `FLOOR` · ε · √N · (1 + the largest
//! |component| of the initial states) for N steps of h (ε the f64 unit roundoff: N
//! roundings of the state's size grow as a random walk, and the floor stays a hundredfold
//! above them); nearer the floor f64 rounding and the reference's own error take over and
//! the slope flattens. With fewer than two step sizes above it there is no fit.
//!
//! A step size at which some point's implicit solve hit `--implicit-max-iter` (counted in the
//! state's `unconverged`, as runs count it) has errors that are the solver's, not the
//! method's: it is counted in order.csv, warned about and left out of the fits.

use std::path::Path;

use crate::config::accuracy::OrderJob;
use crate::engine::{CpuEngine, Engine, Integrator};
use crate::error::{num, Result};
use crate::measure::distance::distance_max;
use crate::measure::energy::{energies, snapshot_stats, RunEnergy};
use crate::output::{folder, write_atomic};
use crate::plot::{palette_color, write_figure, Figure, Series, Style};
use crate::state::State;

/// Times per step size at which the errors are measured (the last at the end of the span).
pub const SAMPLES: u64 = 10;

/// How far above the rounding of its steps an error must be to enter the fit (see the
/// module doc).
pub const FLOOR: f64 = 100.0;

/// One step size's errors: the largest over the sample times (none where no point is finite).
#[derive(Debug, Clone, PartialEq)]
pub struct OrderRow {
    pub h: f64,
    /// Errors at or below this are left out of the fits.
    pub floor: f64,
    pub global_err_max: Option<f64>,
    pub abs_energy_err_max: Option<f64>,
    /// Points whose implicit solve hit `--implicit-max-iter` at least once at this h: a row
    /// with any is left out of the fits.
    pub unconverged: usize,
}

/// A convergence study's results.
#[derive(Debug, Clone)]
pub struct OrderStudy {
    pub method: &'static str,
    /// The method's order as it is listed (`phaseflow list`): the slope of the figure's
    /// reference lines h^p.
    pub method_order: u32,
    pub system: String,
    pub reference: String,
    /// The time span every step size covers.
    pub t_end: f64,
    pub points: usize,
    pub rows: Vec<OrderRow>,
    /// The fitted orders of the global and the energy error, and the step sizes each used.
    pub global_order: Option<(f64, usize)>,
    pub energy_order: Option<(f64, usize)>,
}

/// The least-squares slope of ln(err) against ln|h| over the (h, err, floor) whose error is
/// finite and above its floor, with the number of step sizes it used; none with fewer than
/// two.
pub fn fitted_order(points: &[(f64, Option<f64>, f64)]) -> Option<(f64, usize)> {
    let used: Vec<(f64, f64)> = points
        .iter()
        .filter_map(|&(h, e, floor)| e.filter(|e| e.is_finite() && *e > floor).map(|e| (h, e)))
        .map(|(h, e)| (h.abs().ln(), e.ln()))
        .collect();
    let n = used.len() as f64;
    if used.len() < 2 {
        return None;
    }
    let (mx, my) = used
        .iter()
        .fold((0.0, 0.0), |(a, b), (x, y)| (a + x / n, b + y / n));
    let sxy: f64 = used.iter().map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = used.iter().map(|(x, _)| (x - mx) * (x - mx)).sum();
    Some((sxy / sxx, used.len()))
}

/// Steps at h0 after which the errors are measured: `SAMPLES` times evenly spread over
/// `steps` (fewer when `steps` is smaller), the last at `steps`.
fn sample_steps(steps: u64) -> Vec<u64> {
    let mut v: Vec<u64> = (1..=SAMPLES)
        .map(|j| (j * steps).div_ceil(SAMPLES))
        .collect();
    v.dedup();
    v
}

/// Run the convergence study (`phaseflow order`).
pub fn order(job: &OrderJob) -> Result<OrderStudy> {
    let cfg = &job.config;
    let init = cfg.ensemble.generate(&cfg.system, cfg.dt)?;
    let energy = RunEnergy {
        system: &cfg.system,
        dt: cfg.dt,
    };
    let h0 = energies(&energy, &init);
    let samples = sample_steps(cfg.steps);
    let finest = job.halvings;
    // The reference's states at the sample times.
    let k = job
        .reference
        .integrator(&cfg.system, cfg.dt / f64::from(1u32 << finest));
    let per_step = u64::from(job.reference.substeps) << finest;
    let reference = states_at(&k, &init, &samples, per_step)?;
    let reference_unconverged = reference.last().map_or(0, unconverged_points);
    if reference_unconverged > 0 {
        crate::warn!(
            "phaseflow: warning: {reference_unconverged} of {} points of the reference solution hit the implicit solve's sweep cap without converging; every error is measured against it, so there is no fit (choose another --reference)",
            init.n
        );
    }
    let scale = init
        .q
        .iter()
        .chain(&init.p)
        .fold(0.0f64, |m, x| m.max(x.abs()));
    let mut rows = Vec::new();
    for halving in 0..=finest {
        let h = cfg.dt / f64::from(1u32 << halving);
        let k = Integrator::checked(cfg.system.clone(), cfg.method, h, cfg.solver);
        let states = states_at(&k, &init, &samples, 1 << halving)?;
        let unconverged = states.last().map_or(0, unconverged_points);
        let (mut global, mut energy) = (None::<f64>, None::<f64>);
        for (s, r) in states.iter().zip(&reference) {
            let larger = |a: Option<f64>, b: Option<f64>| match (a, b) {
                (Some(a), Some(b)) => Some(a.max(b)),
                (a, b) => a.or(b),
            };
            global = larger(global, distance_max(s, r));
            energy = larger(
                energy,
                snapshot_stats(&cfg.system, cfg.dt, s, &h0).abs_energy_err_max,
            );
        }
        let steps = (cfg.steps << halving) as f64;
        rows.push(OrderRow {
            h,
            floor: FLOOR * f64::EPSILON * steps.sqrt() * (1.0 + scale),
            global_err_max: global,
            abs_energy_err_max: energy,
            unconverged,
        });
    }
    warn_unconverged(&rows, init.n, cfg.solver.max_iter);
    let fit = |err: fn(&OrderRow) -> Option<f64>| {
        let points: Vec<_> = rows
            .iter()
            .filter(|r| r.unconverged == 0 && reference_unconverged == 0)
            .map(|r| (r.h, err(r), r.floor))
            .collect();
        fitted_order(&points)
    };
    Ok(OrderStudy {
        method: cfg.method.name(),
        method_order: cfg
            .system
            .lagrangian()
            .map_or(cfg.method.info().order, |l| l.spec.discretization.order()),
        system: cfg.system.name().to_string(),
        reference: format!(
            "{} (step h/{} at the finest h)",
            job.reference.method.name(),
            job.reference.substeps
        ),
        t_end: cfg.steps as f64 * cfg.dt,
        points: init.n,
        global_order: fit(|r| r.global_err_max),
        energy_order: fit(|r| r.abs_energy_err_max),
        rows,
    })
}

/// The points of `s` whose implicit solve hit the sweep cap at least once.
fn unconverged_points(s: &State<f64>) -> usize {
    s.unconverged.iter().filter(|&&u| u > 0).count()
}

/// A warning naming the step sizes at which some point's implicit solve gave up.
fn warn_unconverged(rows: &[OrderRow], points: usize, max_iter: u32) {
    let bad: Vec<String> = rows
        .iter()
        .filter(|r| r.unconverged > 0)
        .map(|r| format!("{} of {points} at h = {}", r.unconverged, num(r.h)))
        .collect();
    if !bad.is_empty() {
        crate::warn!(
            "phaseflow: warning: points whose implicit solve hit --implicit-max-iter {max_iter} without converging: {}; their errors are the solver's, so those step sizes are left out of the fits (raise --implicit-max-iter or take a smaller --dt)",
            bad.join(", ")
        );
    }
}

/// The states of `init` advanced by `k` to each sample step (of h0), `per_step` steps of
/// `k` per step of h0.
fn states_at(
    k: &Integrator,
    init: &State<f64>,
    samples: &[u64],
    per_step: u64,
) -> Result<Vec<State<f64>>> {
    let mut engine = CpuEngine::new(k, init.clone());
    let mut done = 0;
    let mut out = Vec::with_capacity(samples.len());
    for &s in samples {
        engine.advance((s - done) * per_step)?;
        done = s;
        out.push(engine.state()?.clone());
    }
    Ok(out)
}

impl OrderStudy {
    /// The table `order` prints: a header line, one line per h, the fitted orders.
    pub fn table(&self) -> String {
        let mut t = format!(
            "order of {} on {} ({} point(s), t from 0 to {}), reference {}\n{:<14} {:<24} {:<24}\n",
            self.method,
            self.system,
            self.points,
            num(self.t_end),
            self.reference,
            "h",
            "global_err_max",
            "abs_energy_err_max"
        );
        let cell = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{x:.6e}"));
        for r in &self.rows {
            t.push_str(&format!(
                "{:<14} {:<24} {:<24}\n",
                num(r.h),
                cell(r.global_err_max),
                cell(r.abs_energy_err_max)
            ));
        }
        let unconverged = self.rows.iter().any(|r| r.unconverged > 0);
        let fit = |f: Option<(f64, usize)>| {
            match f {
            Some((p, n)) => format!("{p:.3} (over {n} step sizes)"),
            None if unconverged => "none (fewer than two step sizes above the floor with every implicit solve converged: raise --implicit-max-iter or take a smaller --dt)".into(),
            None => "none (fewer than two step sizes above the floor: take a larger --dt or fewer --halvings)".into(),
        }
        };
        t.push_str(&format!(
            "fitted order (slope of ln err against ln h, over the errors above 100·ε·√steps·(1 + max|z0|)): global error {}; energy error {}",
            fit(self.global_order),
            fit(self.energy_order)
        ));
        t
    }
}

/// Write `out`/order.csv (h, global_err_max, abs_energy_err_max, unconverged per step size,
/// then a row `fitted_order` with the two slopes; empty cells where there is none) and the log–log plot
/// order.png/svg, each whole, then the manifest; the folder prepared as `folder::prepare`
/// does for runs (a user's files are never replaced).
pub fn write_order(study: &OrderStudy, out: &Path, force: bool) -> Result<()> {
    let _lock = folder::prepare(out, folder::Layout::Order, force)?;
    let cell = |x: Option<f64>| x.map_or(String::new(), |x| format!("{x:e}"));
    let mut csv = String::from("h,global_err_max,abs_energy_err_max,unconverged\n");
    for r in &study.rows {
        csv.push_str(&format!(
            "{:e},{},{},{}\n",
            r.h,
            cell(r.global_err_max),
            cell(r.abs_energy_err_max),
            r.unconverged
        ));
    }
    csv.push_str(&format!(
        "fitted_order,{},{},\n",
        cell(study.global_order.map(|f| f.0)),
        cell(study.energy_order.map(|f| f.0))
    ));
    write_atomic(&out.join("order.csv"), csv.as_bytes())?;
    write_figure(&figure(study), &out.join("order"))?;
    folder::write_manifest(out)
}

/// The log–log plot: both errors against |h|, a line through a marker at each step size,
/// each labelled with its fitted order, and below each a dashed reference line C·h^p of the
/// method's order p (`reference_slope`), so a reader sees at a glance where the errors run
/// parallel to h^p and where rounding takes over.
fn figure(study: &OrderStudy) -> Figure {
    let label = |what: &str, f: Option<(f64, usize)>| match f {
        Some((p, _)) => format!("{what} (fitted order {p:.2})"),
        None => format!("{what} (no fit)"),
    };
    let global: ErrorOf = |r| r.global_err_max;
    let errors = [
        ("global_err_max", global, study.global_order),
        (
            "abs_energy_err_max",
            |r| r.abs_energy_err_max,
            study.energy_order,
        ),
    ];
    let mut fig = Figure::new(
        format!("Convergence of {} on {}", study.method, study.system),
        "step size |h|",
        "largest error over the samples",
    );
    fig.log_x = true;
    fig.log_y = true;
    let p = study.method_order;
    for (i, (name, err, fit)) in errors.into_iter().enumerate() {
        let color = Some(palette_color(i));
        let points: Vec<(f64, f64)> = (study.rows.iter())
            .map(|r| (r.h.abs(), err(r).unwrap_or(f64::NAN)))
            .collect();
        fig.series.push(Series {
            color,
            ..Series::new(label(name, fit), points.clone(), Style::Line)
        });
        fig.series.push(Series {
            color,
            ..Series::new("", points, Style::Markers)
        });
        if let Some(reference) = reference_slope(&study.rows, err, p) {
            fig.series.push(Series {
                color,
                ..Series::new(
                    format!("slope h^{p} below {name}"),
                    reference,
                    Style::Dashed,
                )
            });
        }
    }
    fig.series.push(Series::new(
        "rounding floor of the fit",
        study.rows.iter().map(|r| (r.h.abs(), r.floor)).collect(),
        Style::ThinLine,
    ));
    fig
}

/// One of a step size's errors (`OrderRow::global_err_max` or `abs_energy_err_max`).
type ErrorOf = fn(&OrderRow) -> Option<f64>;

/// How far below the error a reference line runs, so that it does not hide the data it is
/// compared with when they follow h^p exactly.
const REFERENCE_BELOW: f64 = 3.0;

/// The line C·|h|^p over the study's step sizes through 1/`REFERENCE_BELOW` of the error at
/// the largest step whose error is above its floor (the one rounding affects least); none
/// when no error is.
fn reference_slope(rows: &[OrderRow], err: ErrorOf, p: u32) -> Option<Vec<(f64, f64)>> {
    let (h0, e0) = rows.iter().find_map(|r| {
        err(r)
            .filter(|e| e.is_finite() && *e > r.floor)
            .map(|e| (r.h.abs(), e / REFERENCE_BELOW))
    })?;
    let order = f64::from(p);
    Some(
        rows.iter()
            .map(|r| (r.h.abs(), e0 * (r.h.abs() / h0).powf(order)))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Errors C·h^p give slope p; those at or below the floor are left out; one is no fit.
    #[test]
    fn fit_is_the_slope_above_the_floor() {
        let at = |floor: f64| -> Vec<(f64, Option<f64>, f64)> {
            (0..6)
                .map(|k| {
                    let h = 0.4 / f64::from(1 << k);
                    (h, Some(3.0 * h.powi(4)), floor)
                })
                .chain([(1e-3, None, 0.0), (1e-4, Some(f64::NAN), 0.0)])
                .collect()
        };
        let (p, n) = fitted_order(&at(1e-12)).unwrap();
        assert!((p - 4.0).abs() < 1e-9, "{p}");
        assert_eq!(n, 6);
        // 3·0.025^4 ≈ 1.2e-6 is kept, 3·0.0125^4 ≈ 7.3e-8 left out
        let (p, n) = fitted_order(&at(1e-6)).unwrap();
        assert_eq!(n, 5);
        assert!((p - 4.0).abs() < 1e-9, "{p}");
        assert_eq!(fitted_order(&at(0.0)[..1]), None);
        assert_eq!(
            sample_steps(100),
            (1..=10).map(|j| 10 * j).collect::<Vec<_>>()
        );
        assert_eq!(sample_steps(3), vec![1, 2, 3]);
    }

    /// The figure marks every step size's errors and draws h^p of the method's order through
    /// the largest step above the floor; a step size without an error gets no marker.
    #[test]
    fn figure_marks_each_step_size_beside_reference_slopes() {
        let rows: Vec<OrderRow> = (0..5)
            .map(|k| {
                let h = 0.2 / f64::from(1 << k);
                OrderRow {
                    h,
                    floor: 1e-7,
                    global_err_max: Some(if k == 0 { 1e-8 } else { 5.0 * h.powi(4) }),
                    abs_energy_err_max: (k != 2).then(|| 0.3 * h.powi(4)),
                    unconverged: 0,
                }
            })
            .collect();
        let study = OrderStudy {
            method: "rk4",
            method_order: 4,
            system: "pendulum".into(),
            reference: "rk4".into(),
            t_end: 1.0,
            points: 1,
            global_order: None,
            energy_order: None,
            rows,
        };
        let fig = figure(&study);
        let markers: Vec<&Series> = (fig.series.iter())
            .filter(|s| s.style == Style::Markers)
            .collect();
        assert_eq!(markers.len(), 2);
        let drawn = |s: &Series| s.points.iter().filter(|p| p.1.is_finite()).count();
        assert_eq!((drawn(markers[0]), drawn(markers[1])), (5, 4));
        let slopes: Vec<&Series> = (fig.series.iter())
            .filter(|s| s.style == Style::Dashed)
            .collect();
        assert_eq!(slopes.len(), 2);
        for (s, anchor) in slopes
            .iter()
            .zip([(0.1, 5.0 * 0.1f64.powi(4)), (0.2, 0.3 * 0.2f64.powi(4))])
        {
            assert!(s.label.starts_with("slope h^4"), "{}", s.label);
            assert_eq!(s.points.len(), 5);
            let (a, b) = (s.points[0], s.points[4]);
            let slope = (b.1 / a.1).ln() / (b.0 / a.0).ln();
            assert!((slope - 4.0).abs() < 1e-9, "{slope}");
            // A third of the error at the largest step above the floor (the first global
            // error, 1e-8, is below it).
            let at = s.points.iter().find(|p| p.0 == anchor.0).unwrap();
            assert!(
                (at.1 * REFERENCE_BELOW / anchor.1 - 1.0).abs() < 1e-12,
                "{at:?} {anchor:?}"
            );
        }
        crate::plot::check_figure(&fig).unwrap();
    }
}
