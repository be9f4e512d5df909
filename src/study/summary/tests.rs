//! Tests of the summary rows' verdicts: drift against bounded error, areas, escapes and
//! the figures of the points that stayed.

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
        escaped: Some(0),
        stayed_max_rel_energy_err: None,
        stayed_max_abs_energy_err: None,
        stayed_since: None,
        energy_drift_slope_stderr: None,
        arithmetic: "f64".into(),
        floor_from_solver: false,
        measured: Default::default(),
        reference: None,
        max_momentum_err: None,
    }
}

/// Symplectic Euler's row of pendulum-level: bounded error, area kept.
fn kept() -> SummaryRow {
    row("symplectic-euler-a", 4.917e-4, 6.588e-5, 1.034e-10)
}

/// Issue 14's escaping Hénon–Heiles grid (Verlet, h = 0.05, t = 200, tangent map):
/// 172 of 400 points non-finite, some finite ones far out, det_mean −3.3e49.
fn escaping() -> SummaryRow {
    SummaryRow {
        system: "henon-heiles".into(),
        dt: 0.05,
        steps: 4000,
        t_end: 200.0,
        points: 400,
        finite: 228,
        final_area_ratio: Some(-3.263e49),
        max_rel_energy_err: Some(4.575e71),
        max_abs_energy_err: Some(1.846e71),
        energy_drift_slope: Some(-1.387e65),
        escaped: Some(180),
        ..row("verlet", 0.0, 0.0, 0.0)
    }
}

fn says(v: &str, parts: &[&str]) {
    for p in parts {
        assert!(v.contains(p), "{p:?} missing from: {v}");
    }
}

fn never_says(v: &str, parts: &[&str]) {
    for p in parts {
        assert!(!v.contains(p), "{p:?} in: {v}");
    }
}

#[test]
fn verdict_tells_drift_from_bounded_error() {
    let euler = verdict(&row("euler", 1.534, 0.2055, 1.017e-4), false);
    says(
        &euler,
        &[
            "reached 1.534, of order one or more (drifting upwards)",
            "not symplectic",
        ],
    );
    let se = verdict(&kept(), true);
    says(
        &se,
        &[
            "**symplectic-euler-a** (h = 5.000e-4, 4000000 steps to t = 2000): the area was kept (final ratio 1 (exactly)); the relative energy error reached 4.917e-4 (bounded, without systematic drift): as expected of a symplectic method.",
        ],
    );
    // A symplectic method whose small error drifts: too large a step, or too short a run.
    let bad = verdict(&row("verlet", 1e-3, 1e-4, 1e-7), true);
    says(
        &bad,
        &[
            "(drifting upwards)",
            "yet its energy error grew over the run",
        ],
    );
    never_says(&bad, &["as expected"]);
}

/// `row` with the measurements' floors (`det_floor`, `area_floor`, `energy_floor`) set.
fn with_floors(r: SummaryRow, floors: &[(&'static str, f64)]) -> SummaryRow {
    SummaryRow {
        measured: NamedCells(
            floors
                .iter()
                .map(|&(name, f)| (name, crate::measure::measurement::Cell::Real(Some(f))))
                .collect(),
        ),
        ..r
    }
}

/// The Kepler study in f32: det 1.0195 and 0.947 within a floor of 41 (tangent entries of
/// order 10², 20000 steps). Neither "grew … as expected" nor "step too large": not resolved.
#[test]
fn a_deviation_within_a_coarse_floor_is_not_resolved() {
    let kepler = |ratio: f64| {
        with_floors(
            SummaryRow {
                system: "kepler".into(),
                dt: 0.01,
                steps: 20_000,
                t_end: 200.0,
                points: 1,
                finite: 1,
                final_area_ratio: Some(ratio),
                arithmetic: "f32".into(),
                ..row("verlet", 7.5e-4, 3.8e-4, -4.2e-8)
            },
            &[("det_floor", 41.5), ("energy_floor", 6e-4)],
        )
    };
    for ratio in [1.01948, 0.947126] {
        let v = verdict(&kepler(ratio), true);
        says(
            &v,
            &[
                "the area is not resolved at f32 (final ratio",
                "within its rounding floor 41.5): rerun with --precision f64 (or --compensated)",
                "the relative energy error reached 7.500e-4, not resolved at f32 (the absolute error is within its rounding floor 6.000e-4)",
                "cannot show whether it kept the area and bounded its energy error.",
            ],
        );
        never_says(&v, &["grew", "shrank", "as expected", "too large"]);
    }
    // Compensated f32 needs f64 for more; f64 itself has no precision to suggest.
    let compensated = SummaryRow {
        arithmetic: "f32 with compensated summation".into(),
        ..kepler(1.01948)
    };
    says(
        &verdict(&compensated, true),
        &["not resolved at f32 with compensated summation (final ratio 1.01948, within its rounding floor 41.5): rerun with --precision f64;"],
    );
}

/// Within a fine floor the area is kept to rounding; beyond it, a change is measured even
/// below 1e-4 (RK4's contraction), and a symplectic method is never said to change it as
/// expected.
#[test]
fn deviations_against_fine_floors() {
    let to_rounding = with_floors(
        SummaryRow {
            final_area_ratio: Some(1.0 - 6.4e-12),
            ..kept()
        },
        &[("det_floor", 7.9e-8)],
    );
    says(
        &verdict(&to_rounding, true),
        &[
            "the area was kept to rounding (final ratio 1 − 6.4e-12, floor 7.900e-8);",
            "as expected of a symplectic method.",
        ],
    );
    let solver = SummaryRow {
        floor_from_solver: true,
        ..to_rounding
    };
    says(
        &verdict(&solver, true),
        &["the area was kept to the implicit solver's tolerance (final ratio"],
    );
    let contracted = with_floors(
        SummaryRow {
            final_area_ratio: Some(0.9998613),
            ..kept()
        },
        &[("det_floor", 2.2e-12)],
    );
    says(
        &verdict(&contracted, false),
        &["the area shrank by a factor 1 − 1.4e-4 (beyond its rounding floor 2.200e-12);"],
    );
    let v = verdict(&contracted, true);
    says(&v, &["yet the area changed beyond rounding"]);
    never_says(&v, &["as expected"]);
}

/// Drift is a fitted slope significant against its standard error, growing by a material
/// part of the error and by more than the rounding floor; not the endpoints.
#[test]
fn drift_needs_a_significant_slope_beyond_rounding() {
    // The tour's quartic run in f32: the mean error rises 20× over t = 10 (slope × t = 0.95 of
    // its largest value), all of it rounding: kept to rounding, not drifting.
    let quartic = with_floors(
        SummaryRow {
            t_end: 10.0,
            max_rel_energy_err: Some(1.9e-5),
            max_abs_energy_err: Some(5.7e-7),
            mean_abs_energy_err: Some(1.8e-8),
            energy_drift_slope: Some(3.4e-9),
            energy_drift_slope_stderr: Some(2e-11),
            arithmetic: "f32".into(),
            ..kept()
        },
        &[("energy_floor", 2.7e-6)],
    );
    let v = verdict(&quartic, true);
    says(
        &v,
        &["(kept to rounding: the absolute error is within its rounding floor 2.700e-6): as expected"],
    );
    never_says(&v, &["drifting", "bounded, without"]);
    // The same rise at f64, far above its floor: drifting, with the fitted slope.
    let drifting = with_floors(quartic.clone(), &[("energy_floor", 1e-13)]);
    says(
        &verdict(&drifting, true),
        &["(drifting upwards: fitted slope 3.400e-9 ± 2.000e-11 per unit time)"],
    );
    // A slope within three standard errors is no drift, however the endpoints lie.
    let noisy = SummaryRow {
        energy_drift_slope_stderr: Some(2e-9),
        ..drifting
    };
    says(
        &verdict(&noisy, true),
        &["(bounded, without systematic drift)"],
    );
}

#[test]
fn area_grew_or_shrank_by_a_readable_factor() {
    let grew = verdict(
        &SummaryRow {
            final_area_ratio: Some(2.569134),
            ..row("euler", 1.534, 0.2055, 1.017e-4)
        },
        false,
    );
    says(&grew, &["the area grew by a factor 2.569134;"]);
    let shrank = SummaryRow {
        final_area_ratio: Some(0.25),
        ..kept()
    };
    says(
        &verdict(&shrank, false),
        &["the area shrank by a factor 0.25;"],
    );
    let near = SummaryRow {
        final_area_ratio: Some(1.0 - 3e-12),
        ..kept()
    };
    says(
        &verdict(&near, true),
        &["the area was kept (final ratio 1 − 3.0e-12)"],
    );
}

/// Issue 14: no "shrank by a factor −3.3e49", no "bounded" 1e71 error, and the symplectic
/// method is said to have left the region where its guarantees hold.
#[test]
fn escaping_points_are_counted_and_nothing_is_called_bounded() {
    let v = verdict(&escaping(), true);
    says(
        &v,
        &[
            "(h = 0.05, 4000 steps to t = 200)",
            "180 of 400 points escaped: 172 blew up (non-finite) and 8 more left the bounded region (energy error above 1000 × (1 + |H(z0)|))",
            "the area is not measurable: 180 points escaped or blew up",
            "the relative energy error reached 4.575e71 (not bounded",
            "part of the ensemble left the region where its guarantees",
        ],
    );
    // The points that stayed, with their own figure (stats.csv's stayed columns).
    let kept_by_the_rest = SummaryRow {
        stayed_max_rel_energy_err: Some(3.1e-4),
        stayed_since: Some(12.5),
        ..escaping()
    };
    says(
        &verdict(&kept_by_the_rest, true),
        &["(not bounded: the escaped points' error); the 220 points that stayed (from t = 12.5 on, after the last escape): relative energy error at most 3.100e-4, bounded: a symplectic method, but part of the ensemble"],
    );
    let abs_only = SummaryRow {
        max_rel_energy_err: None,
        stayed_max_abs_energy_err: Some(0.0172),
        stayed_since: Some(12.5),
        ..escaping()
    };
    says(
        &verdict(&abs_only, true),
        &["; the 220 points that stayed (from t = 12.5 on, after the last escape): absolute energy error at most 0.0172:"],
    );
    never_says(&v, &["factor", "bounded, without", "as expected"]);
    // Statistics reduced on the GPU count no escapes: the non-finite points still are.
    let gpu = SummaryRow {
        escaped: None,
        ..escaping()
    };
    says(
        &verdict(&gpu, true),
        &[
            "172 of 400 points blew up (non-finite);",
            "172 points blew up",
        ],
    );
}

#[test]
fn finite_escapes_alone_make_the_area_unmeasurable() {
    let v = verdict(
        &SummaryRow {
            escaped: Some(3),
            final_area_ratio: Some(3.6e33),
            max_rel_energy_err: Some(1.2e9),
            ..kept()
        },
        true,
    );
    says(
        &v,
        &[
            "3 of 2000 points left the bounded region",
            "the area is not measurable: 3 points escaped;",
        ],
    );
}

#[test]
fn every_point_blown_up() {
    let v = verdict(
        &SummaryRow {
            finite: 0,
            escaped: Some(2000),
            final_area_ratio: None,
            max_rel_energy_err: None,
            max_abs_energy_err: None,
            energy_drift_slope: None,
            ..kept()
        },
        true,
    );
    says(
        &v,
        &[
            "all 2000 points blew up (non-finite); the area is not measurable: 2000 points blew up; no point stayed finite, so no energy error: a symplectic method, but the ensemble left",
        ],
    );
}

/// A negative, non-finite or absurd ratio with no escape counted is not an area either.
#[test]
fn absurd_ratios_are_not_measurable() {
    for r in [-2.667e32, f64::NAN, 0.0, 3e7, 1e-7] {
        let v = verdict(
            &SummaryRow {
                final_area_ratio: Some(r),
                ..kept()
            },
            true,
        );
        says(&v, &["the area is not measurable (final ratio"]);
        never_says(&v, &["factor"]);
    }
}

#[test]
fn order_one_error_is_never_bounded() {
    let v = verdict(&row("verlet", 0.8, 0.1, -1e-9), true);
    says(
        &v,
        &[
            "reached 0.8 (of order one or more: not bounded)",
            "step is too large",
        ],
    );
    never_says(&v, &["bounded, without"]);
}

/// H(z0) ≈ 0 (the elastic pendulum's E = 0): the absolute error, bounded or not.
#[test]
fn absolute_error_where_the_energy_is_zero() {
    let zero = |abs: f64, escaped| SummaryRow {
        final_area_ratio: None,
        max_rel_energy_err: None,
        max_abs_energy_err: Some(abs),
        mean_abs_energy_err: Some(abs / 2.0),
        energy_drift_slope: Some(0.0),
        escaped: Some(escaped),
        ..kept()
    };
    let v = verdict(&zero(0.0172, 0), true);
    says(
        &v,
        &["the absolute energy error reached 0.0172 (time average 0.0086) (bounded, without systematic drift): as expected"],
    );
    let v = verdict(&zero(5e4, 0), true);
    says(
        &v,
        &["(of order one or more: not bounded)", "step is too large"],
    );
    let v = verdict(&zero(5e4, 1), true);
    says(&v, &["(not bounded: the escaped points' error)"]);
}

#[test]
fn a_single_point_reads_in_the_singular() {
    let one = SummaryRow {
        points: 1,
        finite: 1,
        steps: 1,
        t_end: 5e-4,
        final_area_ratio: None,
        unconverged: 1,
        max_ang_mom_err: Some(1e-14),
        ..kept()
    };
    let v = verdict(&one, true);
    says(
        &v,
        &[
            "(h = 5.000e-4, 1 step to t = 5.000e-4): the relative energy error",
            "; the angular momentum error was at most 1.000e-14; 1 point had implicit solves",
        ],
    );
    never_says(&v, &["): and", "of 1 point"]);
    let blown = SummaryRow {
        finite: 0,
        escaped: Some(1),
        max_rel_energy_err: None,
        max_abs_energy_err: None,
        ..one.clone()
    };
    says(
        &verdict(&blown, false),
        &["the point blew up (non-finite); the area is not measurable: the point blew up;"],
    );
    let gone = SummaryRow {
        escaped: Some(1),
        ..one
    };
    says(
        &verdict(&gone, true),
        &["the point left the bounded region", "but the ensemble left"],
    );
}

#[test]
fn the_discrete_momentum_the_constraints_and_the_reference_are_stated() {
    let lagrangian = SummaryRow {
        max_momentum_err: Some(6.7e-15),
        measured: NamedCells(vec![(
            CONSTRAINT_ERR_MAX.name,
            crate::measure::measurement::Cell::Real(Some(4.4e-16)),
        )]),
        reference: Some(ReferenceDistance {
            reference: "pendulum, rk4, h = 0.001".into(),
            position: 0.54473,
            momentum: 0.419813,
            until: 10.0,
            times: 11,
            second_half: "momentum",
            reference_arithmetic: "f64".into(),
        }),
        ..kept()
    };
    says(
        &verdict(&lagrangian, true),
        &[
            "; the discrete momentum J changed by at most 6.700e-15",
            "; the constraints were violated by at most 4.400e-16",
            "; against the reference (pendulum, rk4, h = 0.001), at 11 shared times up to t = 10, the position was at most 0.54473 away (|q − q_ref|) and the momentum at most 0.419813 (|p − p_ref|)",
        ],
    );
    // A reference in f32 is said not to resolve what lies near its own rounding.
    let mut coarse = lagrangian.clone();
    if let Some(d) = coarse.reference.as_mut() {
        d.reference_arithmetic = "f32".into();
    }
    says(
        &verdict(&coarse, true),
        &["(|p − p_ref|) (the reference ran in f32: distances near its own rounding error are not resolved; --precision f64 resolves them)"],
    );
    never_says(&verdict(&lagrangian, true), &["the reference ran in"]);
    let (_, _, tail) = lagrangian.record();
    assert_eq!(tail.momentum_err_max, Some(6.7e-15));
    assert_eq!(tail.reference_position_err_max, Some(0.54473));
    assert_eq!(tail.reference_momentum_err_max, Some(0.419813));
    // Without them, none of the three clauses.
    never_says(
        &verdict(&kept(), true),
        &["discrete momentum", "constraints", "reference"],
    );
}
