//! A phase portrait in (q1, p1): the kept snapshots (and a single state's path), the plot
//! range shared by the portraits of one system, and the exact level curves of H behind 1-DOF
//! sets.

use std::fmt::Write as _;

use super::format::fmt_t;
use crate::plot::{self, Figure, Series, Style};
use crate::state::State;
use crate::system::{HamiltonianSystem, System};

/// Whether q1 of `system` is an angle, which a reader expects wrapped to (−π, π].
fn q_is_angle(system: &System) -> bool {
    matches!(system.name(), "pendulum" | "double-pendulum")
}

/// An angle wrapped to (−π, π].
fn wrap_angle(q: f64) -> f64 {
    use std::f64::consts::PI;
    let w = q - 2.0 * PI * ((q + PI) / (2.0 * PI)).floor();
    if w <= -PI {
        w + 2.0 * PI
    } else {
        w
    }
}

/// The data of a phase portrait in (q1, p1), q1 wrapped where it is an angle: the kept
/// snapshots as dots coloured by time and, for a single state, its path through every
/// snapshot. Ranges, level curves and the title come from `finish_portrait`.
pub(super) fn portrait_data(
    system: &System,
    label: &str,
    dt: f64,
    snaps: &[(u64, State<f64>)],
    traj: &[(f64, Vec<f64>)],
) -> Figure {
    use std::f64::consts::PI;
    let wrap = q_is_angle(system);
    let q_of = |q: f64| if wrap { wrap_angle(q) } else { q };
    let d = system.dof();
    let mut series = Vec::new();
    let single = !snaps.is_empty() && snaps.iter().all(|(_, s)| s.n == 1) && traj.len() > 1;
    if single {
        let mut points: Vec<(f64, f64)> = Vec::with_capacity(traj.len());
        for (_, z) in traj {
            let (q, p) = (q_of(z[0]), z[d]);
            // A wrapped angle jumping by about 2π: break the line instead of crossing the box.
            if wrap && points.last().is_some_and(|&(q0, _)| (q - q0).abs() > PI) {
                points.push((f64::NAN, f64::NAN));
            }
            points.push((q, p));
        }
        let t_end = traj.last().map_or(0.0, |(t, _)| *t);
        series.push(Series {
            label: format!("path, t = 0 to {}", fmt_t(t_end)),
            points,
            style: Style::Line,
            color: None,
        });
    }
    let last = snaps.len().saturating_sub(1).max(1) as f64;
    for (k, (step, s)) in snaps.iter().enumerate() {
        series.push(Series {
            label: format!("t = {}", fmt_t(*step as f64 * dt)),
            points: (0..s.n).map(|i| (q_of(s.q[i]), s.p[i])).collect(),
            style: Style::Markers,
            color: Some(plot::time_color(k as f64 / last)),
        });
    }
    let (q, p) = if d == 1 { ("q", "p") } else { ("q1", "p1") };
    Figure {
        title: label.to_string(),
        x_label: if wrap {
            format!("{q} (wrapped to (−π, π])")
        } else {
            q.to_string()
        },
        y_label: p.into(),
        series,
        log_x: false,
        log_y: false,
        equal_aspect: false,
        x_range: None,
        y_range: None,
    }
}

/// The extent (q_lo, q_hi, p_lo, p_hi) of a figure's finite points. Where a few points
/// escaped far away (the full extent is over 20 times that of the central 98% of the points),
/// that axis takes the central extent, widened by half of it on each side, so the set is not
/// shrunk to a speck; `finish_portrait` counts the points left outside.
fn data_extent(fig: &Figure) -> Option<[f64; 4]> {
    let (mut qs, mut ps): (Vec<f64>, Vec<f64>) = fig
        .series
        .iter()
        .flat_map(|s| &s.points)
        .filter(|(q, p)| q.is_finite() && p.is_finite())
        .copied()
        .unzip();
    let axis = |v: &mut Vec<f64>| -> Option<(f64, f64)> {
        v.sort_by(f64::total_cmp);
        let (lo, hi) = (*v.first()?, *v.last()?);
        let k = v.len() / 100;
        let (tlo, thi) = (v[k], v[v.len() - 1 - k]);
        let central = thi - tlo;
        if k > 0 && hi - lo > 20.0 * central && central > 0.0 {
            Some(((tlo - 0.5 * central).max(lo), (thi + 0.5 * central).min(hi)))
        } else {
            Some((lo, hi))
        }
    };
    let (q, p) = (axis(&mut qs)?, axis(&mut ps)?);
    Some([q.0, q.1, p.0, p.1])
}

/// Each portrait's plot range, (q_lo, q_hi, p_lo, p_hi) with a 5% margin: one range shared by
/// the portraits of the same system (`systems[i]` is figure i's), so they compare at a glance,
/// unless one run's set spread so far (by 20 times another's extent, e.g. an escaping point)
/// that the others would shrink to specks; then each its own. Different systems (polar and
/// Cartesian coordinates) do not share: their q1 and p1 are different quantities.
pub(super) fn shared_ranges(figs: &[Figure], systems: &[&str]) -> Vec<Option<[f64; 4]>> {
    let own: Vec<Option<[f64; 4]>> = figs.iter().map(data_extent).collect();
    let group = |system: &str| -> Vec<[f64; 4]> {
        own.iter()
            .zip(systems)
            .filter(|(_, s)| **s == system)
            .filter_map(|(e, _)| *e)
            .collect()
    };
    let pad = |e: Option<[f64; 4]>| {
        e.map(|[a, b, c, d]| {
            let (mq, mp) = (0.05 * (b - a).max(1e-9), 0.05 * (d - c).max(1e-9));
            [a - mq, b + mq, c - mp, d + mp]
        })
    };
    own.iter()
        .zip(systems)
        .map(|(&e, system)| {
            let members = group(system);
            let union = members.iter().copied().reduce(|a, b| {
                [
                    a[0].min(b[0]),
                    a[1].max(b[1]),
                    a[2].min(b[2]),
                    a[3].max(b[3]),
                ]
            });
            let comparable = union.is_some_and(|u| {
                members.iter().all(|e| {
                    u[1] - u[0] <= 20.0 * (e[1] - e[0]) && u[3] - u[2] <= 20.0 * (e[3] - e[2])
                })
            });
            pad(if comparable { union } else { e })
        })
        .collect()
}

/// Complete a portrait: its ranges, the same scale on both axes when their spans are within a
/// factor 3 (a portrait is not squeezed into a strip), exact level curves of H behind the
/// data for 1-DOF systems (through the initial energies and a few more), and a title that
/// mentions them only when they are drawn.
pub(super) fn finish_portrait(
    fig: &mut Figure,
    system: &System,
    snaps: &[(u64, State<f64>)],
    range: Option<[f64; 4]>,
) {
    let Some([qa, qb, pa, pb]) = range else {
        return;
    };
    fig.x_range = Some((qa, qb));
    fig.y_range = Some((pa, pb));
    let outside = fig
        .series
        .iter()
        .flat_map(|s| &s.points)
        .filter(|(q, p)| q.is_finite() && p.is_finite())
        .filter(|&&(q, p)| !(qa..=qb).contains(&q) || !(pa..=pb).contains(&p))
        .count();
    if outside > 0 {
        let _ = write!(fig.x_label, " ({outside} points outside the plot)");
    }
    let ratio = (qb - qa) / (pb - pa);
    fig.equal_aspect = (1.0 / 3.0..=3.0).contains(&ratio);
    let Some(z) = system.minimum().filter(|_| system.dof() == 1) else {
        return;
    };
    // Level curves of H: only a Hamiltonian system has them (and a minimum).
    let Some(system) = system.hamiltonian() else {
        return;
    };
    // Levels: the range of H over the initial set, and a few around it.
    let mut energies = Vec::new();
    if let Some((_, s0)) = snaps.first() {
        let h: Vec<f64> = (0..s0.n)
            .map(|i| system.energy(&[s0.q[i]], &[s0.p[i]]))
            .filter(|x| x.is_finite())
            .collect();
        if let (Some(lo), Some(hi)) = (
            h.iter().cloned().reduce(f64::min),
            h.iter().cloned().reduce(f64::max),
        ) {
            energies.push(lo);
            if hi > lo * (1.0 + 1e-9) {
                energies.push(hi);
            }
        }
    }
    let corner_max = [(qa, pa), (qa, pb), (qb, pa), (qb, pb)]
        .iter()
        .map(|&(q, p)| system.energy(&[q], &[p]))
        .fold(f64::NEG_INFINITY, f64::max);
    let e_min = system.energy(&z[..1], &z[1..]);
    for k in 1..=6 {
        energies.push(e_min + (corner_max - e_min) * k as f64 / 7.0);
    }
    let mut curves: Vec<Series> = energies
        .into_iter()
        .flat_map(|e| level_curves(system, e, (qa, qb), (pa, pb)))
        .collect();
    if !curves.is_empty() {
        fig.title.push_str(", over level curves of H");
        // Drawn first (below the data), unlabelled.
        curves.append(&mut fig.series);
        fig.series = curves;
    }
}

/// Branches p(q) ≥ 0 and ≤ 0 of the level set H(q, p) = e over a q range, for 1-DOF systems whose
/// H grows with |p| (pendulum, oscillator): bisection in p at each q; runs split where no solution.
fn level_curves(
    system: &HamiltonianSystem,
    e: f64,
    (qa, qb): (f64, f64),
    (pa, pb): (f64, f64),
) -> Vec<Series> {
    let pmax = pa.abs().max(pb.abs()) * 4.0 + 1.0;
    let mut out = Vec::new();
    for sign in [1.0, -1.0] {
        let mut run: Vec<(f64, f64)> = Vec::new();
        for k in 0..=600 {
            let q = qa + (qb - qa) * k as f64 / 600.0;
            let f = |p: f64| system.energy(&[q], &[sign * p]) - e;
            let sol = if f(0.0) <= 0.0 && f(pmax) > 0.0 {
                let (mut lo, mut hi) = (0.0, pmax);
                for _ in 0..80 {
                    let mid = 0.5 * (lo + hi);
                    if f(mid) > 0.0 {
                        hi = mid
                    } else {
                        lo = mid
                    }
                }
                Some(sign * 0.5 * (lo + hi))
            } else {
                None
            };
            match sol {
                Some(p) => run.push((q, p)),
                None if !run.is_empty() => out.push(std::mem::take(&mut run)),
                None => {}
            }
        }
        if !run.is_empty() {
            out.push(run);
        }
    }
    out.into_iter()
        .map(|points| Series {
            label: String::new(),
            points,
            style: Style::ThinLine,
            color: None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn angles_wrap_to_the_half_open_interval() {
        use std::f64::consts::PI;
        assert_eq!(wrap_angle(0.5), 0.5);
        assert_eq!(wrap_angle(PI), PI);
        assert_eq!(wrap_angle(-PI), PI);
        assert!((wrap_angle(3.0 * PI + 0.25) - (-PI + 0.25)).abs() < 1e-12);
        assert!((wrap_angle(-20.0) - (-20.0 + 6.0 * PI)).abs() < 1e-12);
    }

    #[test]
    fn portrait_ranges_leave_out_far_escapes_only() {
        let cloud: Vec<(f64, f64)> = (0..1000)
            .map(|i| ((i as f64 * 0.1).sin(), (i as f64 * 0.1).cos()))
            .collect();
        let mut fig = Figure::new("t", "q", "p");
        fig.series
            .push(Series::new("", cloud.clone(), Style::Markers));
        let [a, b, c, d] = data_extent(&fig).unwrap();
        assert!(a < -0.99 && b > 0.99 && c < -0.99 && d > 0.99);
        // Five escaped points far away: the range stays near the cloud, and they are counted.
        let mut escaped = cloud;
        escaped.extend([(1e6, 0.0); 5]);
        fig.series[0].points = escaped;
        let [a, b, ..] = data_extent(&fig).unwrap();
        assert!(a > -3.1 && b < 3.1, "{a} {b}");
        let system = System::new("oscillator", &Default::default()).unwrap();
        let range = shared_ranges(&[fig.clone()], &["oscillator"])[0];
        finish_portrait(&mut fig, &system, &[], range);
        assert!(
            fig.x_label.contains("(5 points outside the plot)"),
            "{}",
            fig.x_label
        );
    }
}
