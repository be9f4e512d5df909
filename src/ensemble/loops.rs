//! Ordered closed loops (circle, rect, `--loop` files): the exact point at a loop parameter
//! (refinement inserts exact members of the initial set), the exact enclosed area where one is
//! known, and the check that a loop file lists one closed loop.

use super::level::{level_area, level_point};
use super::{plane_point, EnsembleSpec, InitialSet};
use crate::error::{Field, Result};
use crate::measure::area::loop_area;
use crate::state::State;
use crate::system::System;

impl EnsembleSpec {
    /// The exact area of an ordered closed loop's initial set (∮ p·dq summed over the d planes,
    /// as `loop_area` measures it; only (q1, p1) varies), where it is known: circle πr²,
    /// rectangle (hi − lo) in q1 × in p1 when its four corners are nodes (else the polygon cuts
    /// them), level curve by `level_area`. None for file loops and wherever no exact value is
    /// known (and for the discrete maps): `area_ratio` then divides by the step-0 area.
    pub fn exact_loop_area(&self, system: &System) -> Option<f64> {
        // A discrete map's loop is drawn in its state (q, v) and measured in (q, p).
        if system.variational() {
            return None;
        }
        let d = system.dof();
        match &self.set {
            InitialSet::Circle { radius, .. } => Some(std::f64::consts::PI * radius * radius),
            InitialSet::Rect { lo, hi } => {
                let (w, h) = (hi[0] - lo[0], hi[d] - lo[d]);
                // Corner parameters s = a/(2(w + h)) for a = w, w + h, 2w + h: nodes at k/N.
                let n = self.points as f64;
                let on_node = |a: f64| {
                    let k = n * a / (2.0 * (w + h));
                    (k - k.round()).abs() < 1e-9
                };
                (on_node(w) && on_node(w + h) && on_node(2.0 * w + h)).then_some(w * h)
            }
            InitialSet::Level { energy } if d == 1 => level_area(system, *energy),
            _ => None,
        }
    }

    /// The initial point at loop parameter s ∈ [0, 1) (node k of N sits at s = k/N), used by
    /// refinement to insert exact members of the initial set. For a file loop, `file_nodes` are
    /// its rows and the set is the polygon through them.
    pub fn loop_point(&self, system: &System, s: f64, file_nodes: &State<f64>) -> Result<Vec<f64>> {
        let d = system.dof();
        match &self.set {
            InitialSet::Level { energy } => {
                level_point(system, *energy, 2.0 * std::f64::consts::PI * s)
            }
            InitialSet::Circle { center, radius } => Ok(circle_point(center, *radius, d, s)),
            InitialSet::Rect { lo, hi } => Ok(rect_point(lo, hi, d, s)),
            InitialSet::File {
                closed_loop: true, ..
            } => Ok(polygon_point(file_nodes, d, s)),
            _ => Err(crate::invalid!(Field::Ensemble;
                Field::Ensemble.is(self.kind().name()),
                ": not a loop ensemble, so it has no loop parameter"
            )),
        }
    }
}

/// The point at parameter s on the circle of radius `r` around `c` in (q1, p1),
/// counter-clockwise from angle 0.
fn circle_point(c: &[f64], r: f64, d: usize, s: f64) -> Vec<f64> {
    let angle = 2.0 * std::f64::consts::PI * s;
    let mut row = vec![0.0; 2 * d];
    plane_point(
        &mut row,
        c,
        d,
        c[0] + r * angle.cos(),
        c[d] + r * angle.sin(),
    );
    row
}

/// The point at parameter s on the boundary of the box `lo..hi` in (q1, p1), the other
/// components at the box's middle.
fn rect_point(lo: &[f64], hi: &[f64], d: usize, s: f64) -> Vec<f64> {
    let mid: Vec<f64> = lo.iter().zip(hi).map(|(a, b)| 0.5 * (a + b)).collect();
    let (w, h) = (hi[0] - lo[0], hi[d] - lo[d]);
    // Counter-clockwise from (lo_q, lo_p), evenly in arc length.
    let a = 2.0 * (w + h) * s;
    let (x, y) = if a < w {
        (lo[0] + a, lo[d])
    } else if a < w + h {
        (hi[0], lo[d] + (a - w))
    } else if a < 2.0 * w + h {
        (hi[0] - (a - w - h), hi[d])
    } else {
        (lo[0], hi[d] - (a - 2.0 * w - h))
    };
    let mut row = vec![0.0; 2 * d];
    plane_point(&mut row, &mid, d, x, y);
    row
}

/// The point at parameter s on the closed polygon through a file loop's rows (row i at
/// s = i/n), linear between neighbouring rows.
fn polygon_point(nodes: &State<f64>, d: usize, s: f64) -> Vec<f64> {
    let n = nodes.n;
    let x = s * n as f64;
    let i = (x.floor() as usize).min(n - 1);
    let f = x - i as f64;
    let j = (i + 1) % n;
    let mut row = vec![0.0; 2 * d];
    for k in 0..d {
        let at = |v: &[f64], m: usize| v[k * n + m];
        row[k] = at(&nodes.q, i) + f * (at(&nodes.q, j) - at(&nodes.q, i));
        row[d + k] = at(&nodes.p, i) + f * (at(&nodes.p, j) - at(&nodes.p, i));
    }
    row
}

/// A `--loop` file must list the nodes of one closed loop, each once and in order.
pub(super) fn check_file_loop(nodes: &State<f64>, path: &std::path::Path) -> Result<()> {
    let (n, d) = (nodes.n, nodes.d);
    let bad = |why: String| {
        crate::invalid!(Field::Loop;
            Field::Loop.is(path.display()),
            format!(": not a closed loop: {why}. A loop file lists N ≥ 3 distinct nodes in order around the loop, each once (the last row joins back to the first)")
        )
    };
    if n < 3 {
        return Err(bad(format!("it has {n} rows")));
    }
    let dist = |i: usize, j: usize| {
        (0..d)
            .map(|k| {
                let dq = nodes.q[k * n + i] - nodes.q[k * n + j];
                let dp = nodes.p[k * n + i] - nodes.p[k * n + j];
                dq * dq + dp * dp
            })
            .sum::<f64>()
            .sqrt()
    };
    let mut gaps: Vec<f64> = (0..n).map(|i| dist(i, (i + 1) % n)).collect();
    if let Some(i) = gaps.iter().position(|&g| g == 0.0) {
        return Err(bad(if i == n - 1 {
            "the last row repeats the first (do not close the loop by hand)".to_string()
        } else {
            format!("rows {} and {} are the same point", i + 1, i + 2)
        }));
    }
    // Any repeat, not only of a neighbour: sort the rows and compare each with the next
    // (+ 0.0 makes -0 and 0 the same key).
    let row = |i: usize| -> Vec<f64> {
        (0..d)
            .map(|k| nodes.q[k * n + i] + 0.0)
            .chain((0..d).map(|k| nodes.p[k * n + i] + 0.0))
            .collect()
    };
    let mut order: Vec<(Vec<f64>, usize)> = (0..n).map(|i| (row(i), i)).collect();
    order.sort_by(|a, b| {
        a.0.iter()
            .zip(&b.0)
            .map(|(x, y)| x.total_cmp(y))
            .find(|c| c.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.1.cmp(&b.1))
    });
    if let Some(w) = order.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(bad(format!(
            "rows {} and {} are the same point (a loop passes each node once)",
            w[0].1 + 1,
            w[1].1 + 1
        )));
    }
    let closing = gaps[n - 1];
    gaps.sort_by(f64::total_cmp);
    let median = gaps[n / 2];
    if closing > 20.0 * median {
        return Err(bad(format!(
            "the step from the last row back to the first ({closing:.3e}) is {:.0}× the median node spacing ({median:.3e}): the rows look like an open curve",
            closing / median
        )));
    }
    check_loop_shape(nodes, median).map_err(bad)
}

/// The loop must enclose an area, since area_ratio divides by it: its ∮ p·dq (`loop_area`)
/// must stand clear of rounding, and a loop in one plane (q_k, p_k) must not cross itself
/// (the lobes of a figure eight count with opposite signs, so its area says nothing).
/// `spacing`: the median distance between neighbouring nodes.
fn check_loop_shape(nodes: &State<f64>, spacing: f64) -> Result<(), String> {
    let (n, d) = (nodes.n, nodes.d);
    let range = |v: &[f64], k: usize| {
        let c = &v[k * n..(k + 1) * n];
        let (lo, hi) = c
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
                (lo.min(x), hi.max(x))
            });
        hi - lo
    };
    let size = (0..d)
        .map(|k| range(&nodes.q, k).powi(2) + range(&nodes.p, k).powi(2))
        .sum::<f64>()
        .sqrt();
    let area = loop_area(nodes).unwrap_or(f64::NAN);
    // Shoelace sums over up to a million nodes round to about n·ε·size² ≈ 2e-10·size²: an
    // area below 1e-9·size² is indistinguishable from none.
    // (NaN, a loop_area of non-finite nodes, fails as well.)
    if area.is_nan() || area.abs() <= 1e-9 * size * size {
        return Err(format!(
            "its enclosed area ∮p·dq is {area:.3e}, nothing for a loop {size:.3e} across: its nodes lie on one line, retrace a path, or the loop crosses itself so that its lobes' areas cancel (a figure eight)"
        ));
    }
    let varying: Vec<usize> = (0..d)
        .filter(|&k| range(&nodes.q, k) > 0.0 || range(&nodes.p, k) > 0.0)
        .collect();
    if let [k] = varying[..] {
        let plane = |i: usize| (nodes.q[k * n + i], nodes.p[k * n + i]);
        let points: Vec<(f64, f64)> = (0..n).map(plane).collect();
        if let Some((i, j)) = self_crossing(&points, spacing) {
            return Err(format!(
                "it crosses itself: the edge from row {} to row {} meets the edge from row {} to row {} (a loop must be simple, since the lobes of a figure eight count with opposite signs in its area)",
                i + 1,
                (i + 1) % n + 1,
                j + 1,
                (j + 1) % n + 1
            ));
        }
    }
    Ok(())
}

/// The first pair of edges (i → i+1, j → j+1, i < j) of the closed polygon through `points`
/// that meet anywhere but at the node two neighbouring edges share (or fold back along each
/// other there), or None for a simple polygon. Edges are binned into a grid of cells about
/// `spacing` wide (coarsened while the bins would hold over 32 entries an edge) and only
/// edges sharing a cell are compared: about linear in n for evenly spaced nodes, quadratic at
/// worst (edges far longer than the spacing, all crossing the same cells).
fn self_crossing(points: &[(f64, f64)], spacing: f64) -> Option<(usize, usize)> {
    let n = points.len();
    let edge = |i: usize| (points[i], points[(i + 1) % n]);
    let (mut lo, mut hi) = (
        (f64::INFINITY, f64::INFINITY),
        (f64::NEG_INFINITY, f64::NEG_INFINITY),
    );
    for &(x, y) in points {
        lo = (lo.0.min(x), lo.1.min(y));
        hi = (hi.0.max(x), hi.1.max(y));
    }
    let extent = (hi.0 - lo.0).max(hi.1 - lo.1);
    // At least extent/n: at most n × n cells, whose indices fit any integer type.
    let mut cell = spacing.max(extent / n as f64);
    let span = |cell: f64, i: usize| {
        let ((x0, y0), (x1, y1)) = edge(i);
        let at = |v: f64, o: f64| ((v - o) / cell).floor() as i64;
        (
            (at(x0.min(x1), lo.0), at(x0.max(x1), lo.0)),
            (at(y0.min(y1), lo.1), at(y0.max(y1), lo.1)),
        )
    };
    let cells_of = |cell: f64, i: usize| {
        let ((a, b), (c, e)) = span(cell, i);
        ((b - a + 1) * (e - c + 1)) as f64
    };
    while (0..n).map(|i| cells_of(cell, i)).sum::<f64>() > 32.0 * n as f64 {
        cell *= 2.0;
    }
    let mut bins: std::collections::HashMap<(i64, i64), Vec<usize>> = Default::default();
    for i in 0..n {
        let ((a, b), (c, e)) = span(cell, i);
        for x in a..=b {
            for y in c..=e {
                bins.entry((x, y)).or_default().push(i);
            }
        }
    }
    let mut found: Option<(usize, usize)> = None;
    for members in bins.values() {
        for (m, &i) in members.iter().enumerate() {
            for &j in &members[m + 1..] {
                let (i, j) = (i.min(j), i.max(j));
                let meet = if j == i + 1 || (i == 0 && j == n - 1) {
                    // Neighbours share a node: they may only fold back along each other.
                    let (first, second) = if j == i + 1 { (i, j) } else { (j, i) };
                    folds_back(edge(first), edge(second))
                } else {
                    edges_meet(edge(i), edge(j))
                };
                if meet && found.is_none_or(|f| (i, j) < f) {
                    found = Some((i, j));
                }
            }
        }
    }
    found
}

type Edge = ((f64, f64), (f64, f64));

/// (b − a) × (c − a): positive when a → b → c turns left.
fn orient(a: (f64, f64), b: (f64, f64), c: (f64, f64)) -> f64 {
    (b.0 - a.0) * (c.1 - a.1) - (b.1 - a.1) * (c.0 - a.0)
}

/// Whether two edges share a point (crossing, touching, or overlapping).
fn edges_meet((a, b): Edge, (c, e): Edge) -> bool {
    let (d1, d2) = (orient(c, e, a), orient(c, e, b));
    let (d3, d4) = (orient(a, b, c), orient(a, b, e));
    if d1 * d2 < 0.0 && d3 * d4 < 0.0 {
        return true;
    }
    // A node on the other edge's line, within its box: they touch.
    let within = |p: (f64, f64), (u, v): Edge| {
        p.0 >= u.0.min(v.0) && p.0 <= u.0.max(v.0) && p.1 >= u.1.min(v.1) && p.1 <= u.1.max(v.1)
    };
    (d1 == 0.0 && within(a, (c, e)))
        || (d2 == 0.0 && within(b, (c, e)))
        || (d3 == 0.0 && within(c, (a, b)))
        || (d4 == 0.0 && within(e, (a, b)))
}

/// Whether the edge after `first` (sharing its end node) runs back along it.
fn folds_back((a, b): Edge, (_, c): Edge) -> bool {
    let back = (b.0 - a.0) * (c.0 - b.0) + (b.1 - a.1) * (c.1 - b.1) < 0.0;
    orient(a, b, c) == 0.0 && back
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn nodes(rows: &[(f64, f64)]) -> State<f64> {
        State {
            n: rows.len(),
            d: 1,
            nt: 0,
            q: rows.iter().map(|r| r.0).collect(),
            p: rows.iter().map(|r| r.1).collect(),
            unconverged: vec![0; rows.len()],
            eq: Vec::new(),
            ep: Vec::new(),
            chaos: Vec::new(),
        }
    }

    /// Issue 15, fault 8: a node repeated away from its neighbours was accepted.
    #[test]
    fn loop_file_with_a_repeated_node_is_refused() {
        let path = std::path::Path::new("loop.csv");
        let square = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)];
        assert!(check_file_loop(&nodes(&square), path).is_ok());
        for (rows, pair) in [
            (
                vec![(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (1.0, 0.0), (0.0, 1.0)],
                "rows 2 and 4",
            ),
            (
                vec![(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (-0.0, 0.0), (0.0, 1.0)],
                "rows 1 and 4",
            ),
        ] {
            let err = check_file_loop(&nodes(&rows), path)
                .unwrap_err()
                .to_string();
            assert!(err.contains(&format!("{pair} are the same point")), "{err}");
        }
    }

    /// A loop file must enclose an area: collinear nodes, a path retraced, a figure eight
    /// (equal lobes cancel; unequal ones count with opposite signs) and a spike folding back
    /// along itself are refused; simple polygons, convex or not, pass, and a 200 000-node
    /// circle is checked in well under a second (the grid keeps it about linear).
    #[test]
    fn loop_files_must_be_simple_and_enclose_an_area() {
        let path = std::path::Path::new("loop.csv");
        let err = |rows: &[(f64, f64)]| {
            check_file_loop(&nodes(rows), path)
                .map_err(|e| e.to_string())
                .err()
        };
        for rows in [
            &[(0.0, 0.0), (1.0, 0.0), (2.0, 0.0), (3.0, 0.0)][..],
            &[(0.0, 0.0), (1.0, 0.0), (2.0, 0.0), (1.0, 0.5e-20)],
            &[(0.0, 0.0), (1.0, 1.0), (1.0, 0.0), (0.0, 1.0)],
        ] {
            let e = err(rows).expect("refused");
            assert!(e.contains("enclosed area"), "{rows:?}: {e}");
        }
        for (rows, edges) in [
            (
                &[(0.0, 0.0), (2.0, 0.0), (2.0, 2.0), (1.0, -1.0), (0.0, 1.0)][..],
                "row 1 to row 2 meets the edge from row 3 to row 4",
            ),
            // A spike: row 3 runs back along the edge from row 2.
            (
                &[(0.0, 0.0), (2.0, 0.0), (2.0, 2.0), (2.0, 1.0), (0.0, 1.0)],
                "row 2 to row 3 meets the edge from row 3 to row 4",
            ),
            // A node touching another edge.
            (
                &[(0.0, 0.0), (2.0, 0.0), (2.0, 2.0), (1.0, 0.0), (0.0, 2.0)],
                "meets",
            ),
        ] {
            let e = err(rows).expect("refused");
            assert!(e.contains(edges), "{rows:?}: {e}");
        }
        let arrow = [(0.0, 0.0), (2.0, 1.0), (0.0, 2.0), (0.5, 1.0)];
        assert_eq!(err(&arrow), None);
        let n = 200_000;
        let circle: Vec<(f64, f64)> = (0..n)
            .map(|i| {
                let a = std::f64::consts::TAU * i as f64 / n as f64;
                (0.3 * a.cos(), 1.0 + 0.3 * a.sin())
            })
            .collect();
        let start = std::time::Instant::now();
        assert_eq!(err(&circle), None);
        assert!(start.elapsed().as_secs_f64() < 2.0, "{:?}", start.elapsed());
        // A loop in the (q2, p2) plane of a d = 2 system is checked in that plane.
        let mut eight = nodes(&[(0.0, 0.0), (2.0, 0.0), (2.0, 2.0), (1.0, -1.0), (0.0, 1.0)]);
        eight.d = 2;
        eight.q = [vec![0.5; 5], eight.q].concat();
        eight.p = [vec![0.25; 5], eight.p].concat();
        let e = check_file_loop(&eight, path).unwrap_err().to_string();
        assert!(e.contains("crosses itself"), "{e}");
    }

    /// Issue 14: the circle's and the level curve's exact areas, the rectangle's only when its
    /// corners are nodes, none for file loops.
    #[test]
    fn exact_loop_areas() {
        let pend = System::new("pendulum", &BTreeMap::new()).unwrap();
        let spec = |set: InitialSet, points: usize| EnsembleSpec {
            points,
            seed: 0,
            set,
            raw_start: false,
            rows: None,
        };
        let center = vec![0.0, 0.5];
        let circle = InitialSet::Circle {
            center: center.clone(),
            radius: 0.3,
        };
        let circle = spec(circle, 100).exact_loop_area(&pend).unwrap();
        assert!((circle / (std::f64::consts::PI * 0.09) - 1.0).abs() < 1e-15);
        let rect = || InitialSet::Rect {
            lo: vec![-0.1, 0.9],
            hi: vec![0.1, 1.2],
        };
        let area = spec(rect(), 100).exact_loop_area(&pend).unwrap();
        assert!((area / 0.06 - 1.0).abs() < 1e-14, "{area}");
        assert_eq!(spec(rect(), 101).exact_loop_area(&pend), None);
        let level = InitialSet::Level { energy: 0.5 };
        assert!(spec(level, 100).exact_loop_area(&pend).is_some());
        let disk = InitialSet::Disk {
            center,
            radius: 0.3,
        };
        assert_eq!(spec(disk, 100).exact_loop_area(&pend), None);
        let file_loop = InitialSet::File {
            input: "loop.csv".into(),
            closed_loop: true,
        };
        assert_eq!(spec(file_loop, 100).exact_loop_area(&pend), None);
    }
}
