//! Loop area (PHYSICS.md §4, estimator 1): for an ordered closed loop of points, the sum over the
//! d planes (q_k, p_k) of the shoelace area ½ Σ_i (q_i p_{i+1} − q_{i+1} p_i), in f64 about the
//! centroid. This is ∮ p·dq (the Poincaré invariant), preserved by every symplectic map.
//! Without refinement it is the area of the polygon through the evolved nodes: exact for linear
//! flows, and an underestimate once the loop shears between nodes.

use crate::float::Real;
use crate::measure::measurement::{
    Cell, Column, Finish, Measurement, Part, Reads, RunSetup, Shape, Snapshot,
};
use crate::state::State;
use crate::system::System;

/// The loop's area, or None when a node is non-finite (the polygon is then undefined).
pub fn loop_area<T: Real>(s: &State<T>) -> Option<f64> {
    let (n, d) = (s.n, s.d);
    if n < 3 {
        return None;
    }
    let mut total = 0.0;
    for k in 0..d {
        // the nodes in f64, with compensated summation's carried errors (`State::q_f64`)
        let q: Vec<f64> = (k * n..(k + 1) * n).map(|i| s.q_f64(i)).collect();
        let p: Vec<f64> = (k * n..(k + 1) * n).map(|i| s.p_f64(i)).collect();
        if q.iter().chain(&p).any(|x| !x.is_finite()) {
            return None;
        }
        let qc = q.iter().sum::<f64>() / n as f64;
        let pc = p.iter().sum::<f64>() / n as f64;
        let mut twice = 0.0;
        for i in 0..n {
            let j = (i + 1) % n;
            let (qi, pi) = (q[i] - qc, p[i] - pc);
            let (qj, pj) = (q[j] - qc, p[j] - pc);
            twice += qi * pj - qj * pi;
        }
        total += 0.5 * twice;
    }
    Some(total)
}

/// The area of a smooth loop (circle, level curve) from its nodes: the polygon's area plus, per
/// segment and plane, the area between the chord and the cubic through the segment's two nodes
/// and their outer neighbours, interpolated in the loop parameter `param` (node i's s ∈ [0, 1),
/// increasing around the loop; empty means s = i/n). Exact for a cubic arc (3-point
/// Gauss–Legendre integrates ½ ∫ (c − P_i) × c′ dt exactly); for a smooth loop the error falls
/// as the fourth power of the node spacing instead of the polygon's square. None when a node is
/// non-finite.
pub fn smooth_loop_area<T: Real>(s: &State<T>, param: &[f64]) -> Option<f64> {
    let (polygon, corr) = polygon_and_correction(s, param)?;
    let total = polygon + corr;
    total.is_finite().then_some(total)
}

/// `smooth_loop_area`'s two terms: the polygon's area and the curved correction.
fn polygon_and_correction<T: Real>(s: &State<T>, param: &[f64]) -> Option<(f64, f64)> {
    let (n, d) = (s.n, s.d);
    let polygon = loop_area(s)?;
    if n < 4 {
        return Some((polygon, 0.0));
    }
    // Parameters unwrapped around the seam: u(m) for node index m ∈ [−1, n + 1].
    let u = |m: isize| {
        let i = m.rem_euclid(n as isize) as usize;
        let base = if param.is_empty() {
            i as f64 / n as f64
        } else {
            param[i]
        };
        base + m.div_euclid(n as isize) as f64
    };
    // 3-point Gauss–Legendre on [0, 1].
    let r = (0.6f64).sqrt();
    let gauss = [
        (0.5 * (1.0 - r), 5.0 / 18.0),
        (0.5, 8.0 / 18.0),
        (0.5 * (1.0 + r), 5.0 / 18.0),
    ];
    let mut corr = 0.0;
    for k in 0..d {
        let q: Vec<f64> = (k * n..(k + 1) * n).map(|i| s.q_f64(i)).collect();
        let p: Vec<f64> = (k * n..(k + 1) * n).map(|i| s.p_f64(i)).collect();
        for i in 0..n {
            let m = i as isize;
            let t: [f64; 4] = [u(m - 1), u(m), u(m + 1), u(m + 2)];
            let at = |j: isize| (m + j).rem_euclid(n as isize) as usize;
            let (q0, p0) = (q[i], p[i]);
            // Nodes relative to P_i (its own term then vanishes).
            let dz: [(f64, f64); 4] = [-1isize, 0, 1, 2].map(|j| {
                let a = at(j);
                (q[a] - q0, p[a] - p0)
            });
            let h = t[2] - t[1];
            let mut seg = 0.0;
            for (x, w) in gauss {
                let tt = t[1] + x * h;
                let (mut cq, mut cp, mut dq, mut dp) = (0.0, 0.0, 0.0, 0.0);
                for j in 0..4 {
                    if j == 1 {
                        continue;
                    }
                    // Lagrange basis L_j and its derivative at tt.
                    let mut l = 1.0;
                    let mut dl = 0.0;
                    let mut denom = 1.0;
                    for (m2, &tm) in t.iter().enumerate() {
                        if m2 == j {
                            continue;
                        }
                        denom *= t[j] - tm;
                        let mut prod = 1.0;
                        for (m3, &tk) in t.iter().enumerate() {
                            if m3 != j && m3 != m2 {
                                prod *= tt - tk;
                            }
                        }
                        dl += prod;
                        l *= tt - tm;
                    }
                    let (l, dl) = (l / denom, dl / denom);
                    cq += l * dz[j].0;
                    cp += l * dz[j].1;
                    dq += dl * dz[j].0;
                    dp += dl * dz[j].1;
                }
                seg += w * (cq * dp - cp * dq);
            }
            corr += within_tangent_triangle(0.5 * seg * h, &dz);
        }
    }
    Some((polygon, corr))
}

/// How far rounding the nodes' coordinates moves the loop's area, per unit of relative error:
/// moving node i by δz_i changes the shoelace sum by ½ (δq_i (p_{i+1} − p_{i−1}) −
/// δp_i (q_{i+1} − q_{i−1})), so relative errors of at most u in every stored coordinate
/// move the area by at most u times this sum of ½ (|q_i| |p_{i+1} − p_{i−1}| + |p_i|
/// |q_{i+1} − q_{i−1}|) over the nodes and planes. The coordinates' own magnitudes count (not
/// their distance from the centroid): rounding is relative to what is stored.
pub fn area_rounding_scale<T: Real>(s: &State<T>) -> f64 {
    let (n, d) = (s.n, s.d);
    let mut total = 0.0;
    for k in 0..d {
        let q = |i: usize| s.q_f64(k * n + i % n);
        let p = |i: usize| s.p_f64(k * n + i % n);
        for i in 0..n {
            let (next, prev) = (i + 1, i + n - 1);
            total += 0.5
                * (q(i).abs() * (p(next) - p(prev)).abs() + p(i).abs() * (q(next) - q(prev)).abs());
        }
    }
    total
}

/// A segment's curved correction, kept within what the loop's own nodes allow. Where the
/// neighbouring chords turn the same way (the arc is locally convex), the arc between P_i and
/// P_{i+1} lies in the triangle of the chord and the neighbouring chords extended, P_{i−1}P_i
/// beyond P_i and P_{i+2}P_{i+1} beyond P_{i+1}: its area lies between 0 and the triangle's.
/// On a smooth arc the cubic's area is about a third of the triangle's and is kept; at a
/// corner (a level curve by a separatrix's hyperbolic point) the cubic through nodes on both
/// sides overshoots past the corner, and the triangle, whose apex is the corner, bounds it.
/// `dz`: P_{i−1}, P_i, P_{i+1}, P_{i+2} relative to P_i.
fn within_tangent_triangle(corr: f64, dz: &[(f64, f64); 4]) -> f64 {
    let cross = |x: (f64, f64), y: (f64, f64)| x.0 * y.1 - x.1 * y.0;
    // Apex X = t·a = P_{i+1} + u·b (relative to P_i), t, u ≥ 0 on the extensions.
    let a = (-dz[0].0, -dz[0].1);
    let b = (dz[2].0 - dz[3].0, dz[2].1 - dz[3].1);
    let det = cross(a, b);
    let t = cross(dz[2], b) / det;
    let u = -cross(a, dz[2]) / det;
    if !(t.is_finite() && u.is_finite() && t >= 0.0 && u >= 0.0) {
        // Chords turning opposite ways (an inflection) or parallel: no triangle bounds it.
        return corr;
    }
    let triangle = 0.5 * cross((t * a.0, t * a.1), dz[2]);
    corr.clamp(triangle.min(0.0), triangle.max(0.0))
}

/// A loop's measured area with what bounds its resolution (`Area`'s parts).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeasuredArea {
    pub area: f64,
    /// `area_rounding_scale` of the nodes.
    pub rounding_scale: f64,
    /// The estimated error of the area's discretisation: for a smooth loop the curved
    /// correction's square over the area (the correction is the polygon's error, of the
    /// square of the node spacing; the corrected area's is of its fourth power, about the
    /// correction's relative size squared); 0 for polygon loops, whose nodes are the set.
    pub discretisation: f64,
}

/// The loop's area in (q, p): the state's own, or for a holonomic discrete map, whose state is
/// (q, v), that of its nodes' (q, p = −D₁L_d(q, q + h v)) (`in_phase_space`), the coordinates
/// its map is symplectic in. The rounding scale is the stored nodes' (q, v for a map: its
/// p are computed in f64 from them).
fn area_of<T: Real>(
    system: &System,
    dt: f64,
    st: &State<T>,
    smooth: bool,
    param: &[f64],
) -> Option<MeasuredArea> {
    fn area<T: Real>(st: &State<T>, smooth: bool, param: &[f64]) -> Option<(f64, f64)> {
        if smooth {
            let (polygon, corr) = polygon_and_correction(st, param)?;
            let total = polygon + corr;
            total
                .is_finite()
                .then(|| (total, corr * corr / total.abs().max(f64::MIN_POSITIVE)))
        } else {
            loop_area(st).map(|a| (a, 0.0))
        }
    }
    let (area, discretisation) = if system.holonomic_map() {
        area(&in_phase_space(system, dt, st), smooth, param)?
    } else {
        area(st, smooth, param)?
    };
    Some(MeasuredArea {
        area,
        rounding_scale: area_rounding_scale(st),
        discretisation,
    })
}

/// Words of `Area`'s parts: the area, its rounding scale and its discretisation estimate.
const AREA_WORDS: usize = 3;

/// The measured area of `Area`'s merged parts (None where a node was non-finite).
pub fn measured_of(part: &Part) -> Option<MeasuredArea> {
    match *part.words() {
        [a, r, d] => Some(MeasuredArea {
            area: f64::from_bits(a),
            rounding_scale: f64::from_bits(r),
            discretisation: f64::from_bits(d),
        }),
        _ => None,
    }
}

/// The points of a holonomic discrete map's state (q, v) in (q, p), p by the discrete Legendre
/// transform (`System::momentum`), in f64 with compensated parts; no tangent columns.
pub fn in_phase_space<T: Real>(system: &System, dt: f64, s: &State<T>) -> State<f64> {
    let (n, d) = (s.n, s.d);
    let mut out = State::<f64>::zeros(n, d);
    let (mut q, mut v, mut p) = (vec![0.0; d], vec![0.0; d], vec![0.0; d]);
    for i in 0..n {
        for k in 0..d {
            q[k] = s.q_f64(k * n + i);
            v[k] = s.p_f64(k * n + i);
        }
        system.momentum(dt, &q, &v, &mut p);
        for k in 0..d {
            out.q[k * n + i] = q[k];
            out.p[k * n + i] = p[k];
        }
    }
    out
}

/// The columns (stats.csv) these measurements fill.
pub const AREA: Column = Column::real("area");
pub const AREA_RATIO: Column = Column::real("area_ratio");
pub const LOOP_NODES: Column = Column::count("loop_nodes");

/// A loop's area (`area`, `area_ratio` against the exact initial area or the step-0 one) and
/// its node count; loop ensembles only. The loop is one piece, measured whole: its parts are
/// one chunk (`MeasuredArea`'s bits; none where a node is non-finite).
pub struct Area;

impl Measurement for Area {
    fn name(&self) -> &'static str {
        "area"
    }

    fn columns(&self) -> &'static [Column] {
        &[AREA, AREA_RATIO, LOOP_NODES]
    }

    fn shape(&self) -> Shape {
        Shape::Chunks(AREA_WORDS)
    }

    fn reads(&self) -> Reads {
        Reads::HostState
    }

    fn taken(&self, run: &RunSetup) -> bool {
        run.loop_area.is_some()
    }

    fn measure(&self, at: &Snapshot) -> Part {
        let smooth = at.run.loop_area.is_some_and(|l| l.smooth);
        let area = on_state!(at.state, st => area_of(at.run.system, at.run.dt, st, smooth, &at.per_point.s));
        Part::Chunks(
            area.iter()
                .flat_map(|m| [m.area, m.rounding_scale, m.discretisation].map(f64::to_bits))
                .collect(),
        )
    }

    fn finish(&self, at: &Finish) -> Vec<Cell> {
        let area = measured_of(at.part(self)).map(|m| m.area);
        let first = at.first.filter(|r| r.step == 0 && at.step != 0);
        let area0 = at.run.loop_area.and_then(|l| l.exact0).or(match first {
            Some(row) => row.real(&AREA),
            None if at.step == 0 => area,
            None => None,
        });
        vec![
            Cell::Real(area),
            Cell::Real(area.zip(area0).map(|(a, a0)| a / a0)),
            Cell::Count(Some(at.parts.points)),
        ]
    }

    fn announce(&self, run: &RunSetup) {
        crate::info!(
            "phaseflow: area_ratio = area / {}",
            match run.loop_area.and_then(|l| l.exact0) {
                Some(a) => format!("the exact initial area {a:.15e}"),
                None => "the step-0 polygon's area (no exact initial area known)".into(),
            }
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 14: the curved estimate of a circle's area from nodes at uneven parameters is
    /// accurate to the fourth power of the spacing, where the polygon's is to the square.
    #[test]
    fn smooth_area_of_a_circle() {
        let n = 2000;
        // Uneven parameters: s_i = i/n + a small smooth wobble, increasing.
        let s: Vec<f64> = (0..n)
            .map(|i| {
                let x = i as f64 / n as f64;
                x + 0.02 * (std::f64::consts::TAU * x).sin() / std::f64::consts::TAU
            })
            .collect();
        let r: f64 = 0.3;
        let th = |x: f64| std::f64::consts::TAU * x;
        let circle = State {
            n,
            d: 1,
            nt: 0,
            q: s.iter().map(|&x| 0.1 + r * th(x).cos()).collect(),
            p: s.iter().map(|&x| 1.0 + r * th(x).sin()).collect(),
            unconverged: vec![0; n],
            eq: Vec::new(),
            ep: Vec::new(),
            chaos: Vec::new(),
        };
        let exact = std::f64::consts::PI * r * r;
        let poly = loop_area(&circle).unwrap();
        assert!((poly / exact - 1.0).abs() > 1e-6);
        let smooth = smooth_loop_area(&circle, &s).unwrap();
        // (2π/n)⁴ ≈ 1e-10, times the cubic remainder's small constant: 3e-12 here.
        assert!((smooth / exact - 1.0).abs() < 1e-11, "{smooth} vs {exact}");
    }

    #[test]
    fn unit_square_and_orientation() {
        let ccw = State {
            n: 4,
            d: 1,
            nt: 0,
            q: vec![0.0, 1.0, 1.0, 0.0],
            p: vec![0.0, 0.0, 1.0, 1.0],
            unconverged: vec![0; 4],
            eq: Vec::new(),
            ep: Vec::new(),
            chaos: Vec::new(),
        };
        assert_eq!(loop_area(&ccw), Some(1.0));
        let cw = State {
            n: 4,
            d: 1,
            nt: 0,
            q: vec![0.0, 0.0, 1.0, 1.0],
            p: vec![0.0, 1.0, 1.0, 0.0],
            unconverged: vec![0; 4],
            eq: Vec::new(),
            ep: Vec::new(),
            chaos: Vec::new(),
        };
        assert_eq!(loop_area(&cw), Some(-1.0));
        let bad = State {
            n: 4,
            d: 1,
            nt: 0,
            q: vec![0.0, f64::NAN, 1.0, 0.0],
            p: vec![0.0, 0.0, 1.0, 1.0],
            unconverged: vec![0; 4],
            eq: Vec::new(),
            ep: Vec::new(),
            chaos: Vec::new(),
        };
        assert_eq!(loop_area(&bad), None);
    }
}
