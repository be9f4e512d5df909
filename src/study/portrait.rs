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
            label: format!(
                "path {}, t = 0 to {}",
                through_every(path_stride(traj, dt)),
                fmt_t(t_end)
            ),
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
            // Mixed, so that a later time never hides an earlier one where they coincide.
            style: Style::MixedMarkers,
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

/// Steps of `dt` between a single state's kept states (from the times of the first two; 1
/// with fewer).
pub(super) fn path_stride(traj: &[(f64, Vec<f64>)], dt: f64) -> u64 {
    match traj {
        [(t0, _), (t1, _), ..] => ((t1 - t0) / dt).round().max(1.0) as u64,
        _ => 1,
    }
}

/// How a path through every `k`-th step is described: "through every step", "through
/// every 8th step".
pub(super) fn through_every(k: u64) -> String {
    let suffix = match (k % 10, k % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    match k {
        0 | 1 => "through every step".to_string(),
        k => format!("through every {k}{suffix} step"),
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

/// Samples of a level curve evenly in q before refinement.
const LEVEL_SAMPLES: usize = 600;
/// The longest step between neighbouring points of a drawn level curve, as a fraction of the
/// plot range (the larger of its q and p parts): under 2 px in a 700 px box.
const LEVEL_STEP: f64 = 0.0025;
/// How often a step is halved at most: 2⁻²⁴ of the q sampling, far below a pixel.
const LEVEL_DEPTH: u32 = 24;

/// The level set H(q, p) = e over a q range, for 1-DOF systems whose H grows with |p|
/// (pendulum, oscillator, p²/2 + V(q)): its branches p(q) ≥ 0 and ≤ 0, solved for p by
/// bisection at each q. Evenly spaced q alone would leave gaps where the curve turns
/// vertical, at the turning points p = 0 and along a separatrix, so each branch also ends at
/// its turning points (located by bisection in q) and is refined by halving every step
/// longer than `LEVEL_STEP` of the plot range: the curve is drawn by arc length, not by q.
fn level_curves(
    system: &HamiltonianSystem,
    e: f64,
    (qa, qb): (f64, f64),
    (pa, pb): (f64, f64),
) -> Vec<Series> {
    let level = Level {
        system,
        e,
        pmax: pa.abs().max(pb.abs()) * 4.0 + 1.0,
        scale: ((qb - qa).abs().max(1e-300), (pb - pa).abs().max(1e-300)),
    };
    let q_at = |k: usize| qa + (qb - qa) * k as f64 / LEVEL_SAMPLES as f64;
    let mut out = Vec::new();
    for sign in [1.0, -1.0] {
        let mut run: Vec<(f64, f64)> = Vec::new();
        for k in 0..=LEVEL_SAMPLES {
            let q = q_at(k);
            match level.p(q, sign) {
                Some(p) => {
                    if run.is_empty() && k > 0 {
                        // The branch begins between the previous sample and this one.
                        let turn = level.turning_point(q_at(k - 1), q);
                        run.extend(level.p(turn, sign).map(|p| (turn, p)));
                    }
                    run.push((q, p));
                }
                None if !run.is_empty() => {
                    let turn = level.turning_point(q_at(k), run[run.len() - 1].0);
                    run.extend(level.p(turn, sign).map(|p| (turn, p)));
                    out.push(level.refined(&std::mem::take(&mut run), sign));
                }
                None => {}
            }
        }
        if !run.is_empty() {
            out.push(level.refined(&run, sign));
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

/// One level H = e of a 1-DOF system, and the plot scale its steps are measured in.
struct Level<'a> {
    system: &'a HamiltonianSystem,
    e: f64,
    /// p is searched in [0, pmax].
    pmax: f64,
    /// The plot range's q and p spans.
    scale: (f64, f64),
}

impl Level<'_> {
    fn excess(&self, q: f64, p: f64) -> f64 {
        self.system.energy(&[q], &[p]) - self.e
    }

    /// The p of sign `sign` with H(q, p) = e, or None where the level does not reach q.
    fn p(&self, q: f64, sign: f64) -> Option<f64> {
        let f = |p: f64| self.excess(q, sign * p);
        if !(f(0.0) <= 0.0 && f(self.pmax) > 0.0) {
            return None;
        }
        let (mut lo, mut hi) = (0.0, self.pmax);
        for _ in 0..80 {
            let mid = 0.5 * (lo + hi);
            if f(mid) > 0.0 {
                hi = mid
            } else {
                lo = mid
            }
        }
        Some(sign * 0.5 * (lo + hi))
    }

    /// The turning point (H(q, 0) = e) between `outside`, where the level does not reach, and
    /// `inside`, where it does; the end on the inside, so the level reaches it.
    fn turning_point(&self, outside: f64, inside: f64) -> f64 {
        let (mut out, mut inn) = (outside, inside);
        for _ in 0..60 {
            let mid = 0.5 * (out + inn);
            if self.excess(mid, 0.0) <= 0.0 {
                inn = mid
            } else {
                out = mid
            }
        }
        inn
    }

    /// The step from a to b as a fraction of the plot range.
    fn step(&self, a: (f64, f64), b: (f64, f64)) -> f64 {
        ((b.0 - a.0).abs() / self.scale.0).max((b.1 - a.1).abs() / self.scale.1)
    }

    /// The branch through `run` with every step longer than `LEVEL_STEP` halved in q (at
    /// most `LEVEL_DEPTH` times); a midpoint the level does not reach (two arcs of the level
    /// between neighbouring samples) breaks the line there (a NaN point).
    fn refined(&self, run: &[(f64, f64)], sign: f64) -> Vec<(f64, f64)> {
        let mut out = Vec::with_capacity(2 * run.len());
        out.extend(run.first());
        for w in run.windows(2) {
            // Depth-first: the stack holds the pieces still to add, the nearest last.
            let mut stack = vec![(w[1], 0)];
            let mut from = w[0];
            while let Some((to, depth)) = stack.pop() {
                if depth >= LEVEL_DEPTH || self.step(from, to) <= LEVEL_STEP {
                    out.push(to);
                    from = to;
                    continue;
                }
                let mid_q = 0.5 * (from.0 + to.0);
                match self.p(mid_q, sign) {
                    Some(p) => {
                        stack.push((to, depth + 1));
                        stack.push(((mid_q, p), depth + 1));
                    }
                    None => {
                        out.extend([(f64::NAN, f64::NAN), to]);
                        from = to;
                    }
                }
            }
        }
        out
    }
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

    /// Level curves of the pendulum, a libration well inside the well and one just below the
    /// separatrix: no step between neighbouring points longer than `LEVEL_STEP` of the plot
    /// range, and every branch ends at a turning point (p = 0) or at the edge of the range.
    #[test]
    fn level_curves_have_no_gaps_at_turning_points_or_near_the_separatrix() {
        use std::f64::consts::PI;
        let system = System::new("pendulum", &Default::default()).unwrap();
        let h = system.hamiltonian().unwrap();
        let energy = |q: f64| h.energy(&[q], &[0.0]);
        let (q_range, p_range) = ((-PI, PI), (-2.4, 2.4));
        let (bottom, saddle) = (energy(0.0), energy(PI));
        for e in [bottom + 0.134, saddle - 1e-4, saddle + 0.05] {
            let curves = level_curves(h, e, q_range, p_range);
            assert!(curves.len() >= 2, "e = {e}: {} branches", curves.len());
            for c in &curves {
                let points: Vec<(f64, f64)> = c
                    .points
                    .iter()
                    .copied()
                    .filter(|p| p.0.is_finite())
                    .collect();
                assert_eq!(points.len(), c.points.len(), "e = {e}: a break in a branch");
                for w in points.windows(2) {
                    let step =
                        ((w[1].0 - w[0].0).abs() / (2.0 * PI)).max((w[1].1 - w[0].1).abs() / 4.8);
                    assert!(
                        step <= LEVEL_STEP * 1.000001,
                        "e = {e}: step {step} at {w:?}"
                    );
                }
                for end in [points[0], points[points.len() - 1]] {
                    let at_edge =
                        (end.0 - q_range.0).abs() < 1e-12 || (end.0 - q_range.1).abs() < 1e-12;
                    assert!(
                        at_edge || end.1.abs() < 1e-6,
                        "e = {e}: a branch ends at {end:?}, neither a turning point nor the edge"
                    );
                    assert!((h.energy(&[end.0], &[end.1]) - e).abs() < 1e-9);
                }
            }
        }
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
