//! Initial sets of phase-space points (PHYSICS.md §3); their state type lives in `crate::state`.
//! Generators work in f64; the state is converted to the run's precision afterwards.

mod file;

use rand::SeedableRng;
use rand_distr::{Distribution, StandardNormal};
use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::float::Real;
use crate::input_err;
use crate::system::System;

pub use crate::state::State;
pub use file::{read_regular, read_states};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EnsembleKind {
    Level,
    Circle,
    Rect,
    Disk,
    Grid,
    Gaussian,
    Point,
    File,
}

pub const KINDS: &[(EnsembleKind, &str, &str)] = &[
    (EnsembleKind::Level, "level", "N points on the energy level H = --energy around the minimum (1 DOF); ordered closed loop"),
    (EnsembleKind::Circle, "circle", "N points on the circle --center/--radius in the (q1, p1) plane; ordered closed loop"),
    (EnsembleKind::Rect, "rect", "N points on the boundary of the rectangle --lo..--hi in the (q1, p1) plane; ordered closed loop"),
    (EnsembleKind::Disk, "disk", "N points uniform in the disk --center/--radius in the (q1, p1) plane (seeded)"),
    (EnsembleKind::Grid, "grid", "√N × √N lattice filling the box --lo..--hi in the (q1, p1) plane (N a perfect square)"),
    (EnsembleKind::Gaussian, "gaussian", "N points around --center with standard deviation --sigma in every component (seeded)"),
    (EnsembleKind::Point, "point", "the single state --center (default: the system's named initial state, see `list`); N > 1 gives N copies"),
    (EnsembleKind::File, "file", "states read from --input (CSV or .npy, N rows × 2d columns q1..qd p1..pd)"),
];

impl EnsembleKind {
    pub fn name(self) -> &'static str {
        KINDS
            .iter()
            .find(|k| k.0 == self)
            .map(|k| k.1)
            .unwrap_or("?")
    }

    pub fn from_name(name: &str) -> Result<Self> {
        KINDS
            .iter()
            .find(|k| k.1 == name)
            .map(|k| k.0)
            .ok_or_else(|| {
                let names: Vec<&str> = KINDS.iter().map(|k| k.1).collect();
                input_err!(
                    "--ensemble {name}: unknown ensemble kind (known: {})",
                    names.join(", ")
                )
            })
    }
}

/// Everything needed to build an initial set, already resolved to concrete values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EnsembleSpec {
    pub kind: EnsembleKind,
    pub points: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub center: Option<Vec<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub radius: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lo: Option<Vec<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hi: Option<Vec<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub energy: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sigma: Option<f64>,
    pub seed: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input: Option<std::path::PathBuf>,
    /// `file` only: the rows are the nodes of an ordered closed loop (`--loop`).
    #[serde(default)]
    pub closed_loop: bool,
}

impl EnsembleSpec {
    /// A seeded uniform disk of `radius` around the system's default centre (unresolved).
    pub fn disk(points: usize, radius: f64, seed: u64) -> Self {
        EnsembleSpec {
            kind: EnsembleKind::Disk,
            points,
            center: None,
            radius: Some(radius),
            lo: None,
            hi: None,
            energy: None,
            sigma: None,
            seed,
            input: None,
            closed_loop: false,
        }
    }

    /// Ordered closed loops (level, circle, rect, and file with --loop): loop area and refinement apply.
    pub fn is_loop(&self) -> bool {
        match self.kind {
            EnsembleKind::Level | EnsembleKind::Circle | EnsembleKind::Rect => true,
            EnsembleKind::File => self.closed_loop,
            _ => false,
        }
    }

    /// The area |A0| of a filled initial set in the (q1, p1) plane, where it is known and is the
    /// phase-space volume (d = 1): disk πr², grid (hi − lo) box. None otherwise.
    pub fn filled_area(&self, d: usize) -> Option<f64> {
        if d != 1 {
            return None;
        }
        match self.kind {
            EnsembleKind::Disk => self.radius.map(|r| std::f64::consts::PI * r * r),
            EnsembleKind::Grid => {
                let (lo, hi) = (self.lo.as_ref()?, self.hi.as_ref()?);
                Some((hi[0] - lo[0]) * (hi[1] - lo[1]))
            }
            _ => None,
        }
    }

    /// The exact area of an ordered closed loop's initial set (∮ p·dq summed over the d planes,
    /// as `loop_area` measures it; only (q1, p1) varies), where it is known: circle πr²,
    /// rectangle (hi − lo) in q1 × in p1 when its four corners are nodes (else the polygon cuts
    /// them), level curve by `level_area`. None for file loops and wherever no exact value is
    /// known: `area_ratio` then divides by the step-0 polygon's area.
    pub fn exact_loop_area(&self, system: &System) -> Option<f64> {
        let d = system.dof();
        match self.kind {
            EnsembleKind::Circle => self.radius.map(|r| std::f64::consts::PI * r * r),
            EnsembleKind::Rect => {
                let (lo, hi) = (self.lo.as_ref()?, self.hi.as_ref()?);
                let (w, h) = (hi[0] - lo[0], hi[d] - lo[d]);
                // Corner parameters s = a/(2(w + h)) for a = w, w + h, 2w + h: nodes at k/N.
                let n = self.points as f64;
                let on_node = |a: f64| {
                    let k = n * a / (2.0 * (w + h));
                    (k - k.round()).abs() < 1e-9
                };
                (on_node(w) && on_node(w + h) && on_node(2.0 * w + h)).then_some(w * h)
            }
            EnsembleKind::Level if d == 1 => level_area(system, self.energy?),
            _ => None,
        }
    }

    /// The initial point at loop parameter s ∈ [0, 1) (node k of N sits at s = k/N), used by
    /// refinement to insert exact members of the initial set. For a file loop, `file_nodes` are
    /// its rows and the set is the polygon through them.
    pub fn loop_point(&self, system: &System, s: f64, file_nodes: &State<f64>) -> Result<Vec<f64>> {
        let d = system.dof();
        let tau = 2.0 * std::f64::consts::PI;
        match self.kind {
            EnsembleKind::Level => level_point(system, self.energy.unwrap_or(0.0), tau * s),
            EnsembleKind::Circle => {
                let (c, r) = (self.center.clone().unwrap(), self.radius.unwrap());
                let mut row = vec![0.0; 2 * d];
                plane_point(
                    &mut row,
                    &c,
                    d,
                    c[0] + r * (tau * s).cos(),
                    c[d] + r * (tau * s).sin(),
                );
                Ok(row)
            }
            EnsembleKind::Rect => {
                let (lo, hi) = (self.lo.clone().unwrap(), self.hi.clone().unwrap());
                let mid: Vec<f64> = lo.iter().zip(&hi).map(|(a, b)| 0.5 * (a + b)).collect();
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
                Ok(row)
            }
            EnsembleKind::File if self.closed_loop => {
                let n = file_nodes.n;
                let x = s * n as f64;
                let i = (x.floor() as usize).min(n - 1);
                let f = x - i as f64;
                let j = (i + 1) % n;
                let mut row = vec![0.0; 2 * d];
                for k in 0..d {
                    let at = |v: &[f64], m: usize| v[k * n + m];
                    row[k] =
                        at(&file_nodes.q, i) + f * (at(&file_nodes.q, j) - at(&file_nodes.q, i));
                    row[d + k] =
                        at(&file_nodes.p, i) + f * (at(&file_nodes.p, j) - at(&file_nodes.p, i));
                }
                Ok(row)
            }
            _ => Err(input_err!(
                "--ensemble {}: not a loop ensemble, so it has no loop parameter",
                self.kind.name()
            )),
        }
    }
}

/// A `--loop` file must list the nodes of one closed loop, each once and in order.
fn check_file_loop(nodes: &State<f64>, path: &std::path::Path) -> Result<()> {
    let (n, d) = (nodes.n, nodes.d);
    let bad = |why: String| {
        input_err!(
            "--loop {}: not a closed loop: {why}. A loop file lists N ≥ 3 distinct nodes in order around the loop, each once (the last row joins back to the first)",
            path.display()
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
    Ok(())
}

fn need<T: Clone>(v: &Option<T>, flag: &str, kind: &str) -> Result<T> {
    v.clone()
        .ok_or_else(|| input_err!("--ensemble {kind} needs {flag}"))
}

fn check_vec(v: &[f64], flag: &str, d: usize, system: &str) -> Result<()> {
    if v.len() != 2 * d {
        return Err(input_err!(
            "{flag}: expected {} comma-separated values (q1..qd, p1..pd) for system '{system}' with d = {d}, got {}",
            2 * d,
            v.len()
        ));
    }
    if let Some(x) = v.iter().find(|x| !x.is_finite()) {
        return Err(input_err!("{flag}: values must be finite numbers, got {x}"));
    }
    Ok(())
}

fn positive(v: f64, flag: &str) -> Result<f64> {
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(input_err!(
            "{flag} must be a positive finite number, got {v}"
        ))
    }
}

impl EnsembleSpec {
    /// Fill unset values with sensible defaults for the system and check the rest, so that
    /// the spec written into config.toml is complete and reproduces the same set.
    pub fn resolve(mut self, system: &System) -> Result<Self> {
        let d = system.dof();
        let name = system.name();
        let kind = self.kind.name();
        if self.kind != EnsembleKind::File && self.points == 0 {
            return Err(input_err!("--points must be at least 1, got 0"));
        }
        match self.kind {
            EnsembleKind::Level => {
                if d != 1 {
                    return Err(input_err!("--ensemble level needs a system with one degree of freedom; '{name}' has {d}"));
                }
                let e = need(&self.energy, "--energy E (the energy level)", kind)?;
                positive(e, "--energy")?;
            }
            EnsembleKind::Circle | EnsembleKind::Disk => {
                let c = self
                    .center
                    .clone()
                    .unwrap_or_else(|| system.default_center());
                check_vec(&c, "--center", d, name)?;
                self.center = Some(c);
                self.radius = Some(positive(self.radius.unwrap_or(0.3), "--radius")?);
            }
            EnsembleKind::Point => {
                let c = self
                    .center
                    .clone()
                    .unwrap_or_else(|| system.default_state());
                check_vec(&c, "--center", d, name)?;
                self.center = Some(c);
            }
            EnsembleKind::Gaussian => {
                let c = self
                    .center
                    .clone()
                    .unwrap_or_else(|| system.default_center());
                check_vec(&c, "--center", d, name)?;
                self.center = Some(c);
                self.sigma = Some(positive(self.sigma.unwrap_or(0.1), "--sigma")?);
            }
            EnsembleKind::Rect | EnsembleKind::Grid => {
                let c = system.default_center();
                let lo = self
                    .lo
                    .clone()
                    .unwrap_or_else(|| c.iter().map(|x| x - 0.25).collect());
                let hi = self
                    .hi
                    .clone()
                    .unwrap_or_else(|| c.iter().map(|x| x + 0.25).collect());
                check_vec(&lo, "--lo", d, name)?;
                check_vec(&hi, "--hi", d, name)?;
                if !(hi[0] > lo[0] && hi[d] > lo[d]) {
                    return Err(input_err!(
                        "--lo/--hi: the box must have hi > lo in q1 and p1 (got q1 {}..{}, p1 {}..{})",
                        lo[0], hi[0], lo[d], hi[d]
                    ));
                }
                if self.kind == EnsembleKind::Grid {
                    let m = (self.points as f64).sqrt().floor() as usize;
                    if m * m != self.points {
                        return Err(input_err!(
                            "--points {}: a grid needs a perfect square number of points (try {} or {})",
                            self.points,
                            m * m,
                            (m + 1) * (m + 1)
                        ));
                    }
                }
                if self.kind == EnsembleKind::Rect && self.points < 4 {
                    return Err(input_err!(
                        "--points must be at least 4 for a rect loop, got {}",
                        self.points
                    ));
                }
                self.lo = Some(lo);
                self.hi = Some(hi);
            }
            EnsembleKind::File => {
                let path = need(&self.input, "--input FILE (CSV or .npy)", kind)?;
                // The file decides the point count; reading it here also reports a bad file early.
                let nodes = read_states(&path, d)?;
                if self.closed_loop {
                    check_file_loop(&nodes, &path)?;
                }
                self.points = nodes.n;
            }
        }
        if self.closed_loop && self.kind != EnsembleKind::File {
            return Err(input_err!(
                "--loop applies to --ensemble file only ({kind} is already a loop or a filled set)"
            ));
        }
        Ok(self)
    }

    /// Generate the initial states (f64) for the system.
    pub fn generate(&self, system: &System) -> Result<State<f64>> {
        self.generate_as(system)
    }

    /// Generate the initial states straight into precision `T`: each point is computed in f64
    /// and rounded once, exactly as `generate` followed by `State::convert`, but without the f64
    /// copy, and with one row buffer for all points rather than an allocation per point.
    pub fn generate_as<T: Real>(&self, system: &System) -> Result<State<T>> {
        let d = system.dof();
        let n = self.points;
        match self.kind {
            EnsembleKind::Level => level(system, self.energy.unwrap_or(0.0), n),
            EnsembleKind::Circle | EnsembleKind::Rect => {
                let none = State::zeros(0, d);
                fill(n, d, |k, row| {
                    row.copy_from_slice(&self.loop_point(system, k as f64 / n as f64, &none)?);
                    Ok(())
                })
            }
            EnsembleKind::Disk => {
                let (c, r) = (self.center.clone().unwrap(), self.radius.unwrap());
                let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(self.seed);
                fill(n, d, |_, row| {
                    let u: f64 = rand::Rng::random(&mut rng);
                    let v: f64 = rand::Rng::random(&mut rng);
                    let (rho, phi) = (r * u.sqrt(), 2.0 * std::f64::consts::PI * v);
                    plane_point(row, &c, d, c[0] + rho * phi.cos(), c[d] + rho * phi.sin());
                    Ok(())
                })
            }
            EnsembleKind::Grid => {
                let (lo, hi) = (self.lo.clone().unwrap(), self.hi.clone().unwrap());
                let mid: Vec<f64> = lo.iter().zip(&hi).map(|(a, b)| 0.5 * (a + b)).collect();
                let m = (n as f64).sqrt().round() as usize;
                let at = |a: f64, b: f64, j: usize| {
                    if m == 1 {
                        0.5 * (a + b)
                    } else {
                        a + (b - a) * j as f64 / (m - 1) as f64
                    }
                };
                fill(n, d, |idx, row| {
                    let (x, y) = (at(lo[0], hi[0], idx % m), at(lo[d], hi[d], idx / m));
                    plane_point(row, &mid, d, x, y);
                    Ok(())
                })
            }
            EnsembleKind::Point => {
                let c = self.center.clone().unwrap();
                fill(n, d, |_, row| {
                    row.copy_from_slice(&c);
                    Ok(())
                })
            }
            EnsembleKind::Gaussian => {
                let (c, sigma) = (self.center.clone().unwrap(), self.sigma.unwrap());
                let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(self.seed);
                fill(n, d, |_, row| {
                    for (z, x) in row.iter_mut().zip(&c) {
                        let g: f64 = StandardNormal.sample(&mut rng);
                        *z = x + sigma * g;
                    }
                    Ok(())
                })
            }
            EnsembleKind::File => Ok(read_states(self.input.as_ref().unwrap(), d)?.convert()),
        }
    }
}

/// A state of `n` points whose point i (q1..qd, p1..pd, in f64) `point(i, row)` writes into
/// one reused row, rounded to `T` as it is stored.
fn fill<T: Real>(
    n: usize,
    d: usize,
    mut point: impl FnMut(usize, &mut [f64]) -> Result<()>,
) -> Result<State<T>> {
    let mut s = State::zeros(n, d);
    let mut row = vec![0.0; 2 * d];
    for i in 0..n {
        point(i, &mut row)?;
        for k in 0..d {
            s.q[k * n + i] = T::from_f64(row[k]);
            s.p[k * n + i] = T::from_f64(row[d + k]);
        }
    }
    Ok(s)
}

/// Into `row`: a point equal to `base` except for (q1, p1) = (x, y).
fn plane_point(row: &mut [f64], base: &[f64], d: usize, x: f64, y: f64) {
    row.copy_from_slice(base);
    row[0] = x;
    row[d] = y;
}

/// Points on the level set H = E, star-shaped around the system's minimum z*, at angles
/// φ_k = 2πk/N (loop parameter s = k/N).
fn level<T: Real>(system: &System, energy: f64, n: usize) -> Result<State<T>> {
    let tau = 2.0 * std::f64::consts::PI;
    let mut points = Vec::with_capacity(n);
    let s = fill(n, 1, |k, row| {
        row.copy_from_slice(&level_point(system, energy, tau * k as f64 / n as f64)?);
        points.push((row[0], row[1]));
        Ok(())
    })?;
    check_level_loop(&points).map_err(|why| {
        input_err!(
            "--energy {energy}: the level set of '{}' is not one closed curve around its minimum ({why}); choose a lower energy",
            system.name()
        )
    })?;
    Ok(s)
}

/// A safety net for the march: the points of one closed level curve around the minimum,
/// taken at evenly spaced angles, lie close to their neighbours; a point far from them sits
/// on another branch of the level set (outside the well).
fn check_level_loop(points: &[(f64, f64)]) -> Result<(), String> {
    let n = points.len();
    if n < 8 {
        return Ok(());
    }
    let gaps: Vec<f64> = (0..n)
        .map(|i| {
            let (a, b) = (points[i], points[(i + 1) % n]);
            (b.0 - a.0).hypot(b.1 - a.1)
        })
        .collect();
    let mut sorted = gaps.clone();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[n / 2];
    match gaps.iter().position(|&g| g > 50.0 * median) {
        Some(i) => Err(format!(
            "points {} and {} are {:.3e} apart, {:.0}× the median spacing",
            i + 1,
            (i + 1) % n + 1,
            gaps[i],
            gaps[i] / median
        )),
        None => Ok(()),
    }
}

/// The point of the level set H = E along the ray from z* at angle φ: march outwards until H
/// exceeds E, then bisect to full f64 precision.
fn level_point(system: &System, energy: f64, phi: f64) -> Result<Vec<f64>> {
    let zmin = system.minimum().ok_or_else(|| {
        input_err!(
            "--ensemble level: system '{}' has no stable equilibrium to draw level curves around; use circle, rect or another kind",
            system.name()
        )
    })?;
    let e_min = system.energy(&zmin[..1], &zmin[1..]);
    if energy <= e_min {
        return Err(input_err!(
            "--energy {energy}: the level must lie above the minimum energy {e_min} of '{}'",
            system.name()
        ));
    }
    let h_at =
        |r: f64, c: f64, s: f64| system.energy(&[zmin[0] + r * c], &[zmin[1] + r * s]) - energy;
    let (c, s) = (phi.cos(), phi.sin());
    // March with a step that grows slowly so small and large levels both bracket quickly.
    // Near a separatrix the region where H > E along the ray can be much narrower than the
    // step (issue 15, fault 3), so the march also watches for H turning down: the three last
    // points then bracket a maximum of H, which a golden-section search examines; if H exceeds
    // E anywhere there, the first crossing lies before it.
    let (mut r_in, mut r_out) = (0.0, 0.0);
    let mut dr = 1e-6_f64.max(1e-3 * energy.sqrt());
    let mut found = false;
    // (r, H − E) at the previous two march points.
    let mut before = (0.0, h_at(0.0, c, s));
    let mut last = before;
    for _ in 0..100_000 {
        let r = r_in + dr;
        let g = h_at(r, c, s);
        if g > 0.0 {
            r_out = r;
            found = true;
            break;
        }
        if g < last.1 {
            // H rose to `last` and fell again: a maximum lies in [before.0, r].
            if let Some((a, above)) = exceeds_near_max(&|x| h_at(x, c, s), before.0, last.0, r) {
                (r_in, r_out) = (a, above);
                found = true;
                break;
            }
        }
        (before, last) = (last, (r, g));
        r_in = r;
        dr *= 1.02;
        if r_in > 1e6 {
            break;
        }
    }
    if !found {
        return Err(input_err!(
            "--energy {energy}: the level set of '{}' is not a closed curve around its minimum (no crossing along angle {phi:.3}); choose a lower energy",
            system.name()
        ));
    }
    for _ in 0..200 {
        let mid = 0.5 * (r_in + r_out);
        if mid <= r_in || mid >= r_out {
            break;
        }
        if h_at(mid, c, s) > 0.0 {
            r_out = mid;
        } else {
            r_in = mid;
        }
    }
    let r = 0.5 * (r_in + r_out);
    Ok(vec![zmin[0] + r * c, zmin[1] + r * s])
}

/// The area enclosed by the level curve H = E around the minimum z*, which `level` samples:
/// in polar coordinates about z*, A = ½ ∫₀^{2π} r(φ)² dφ with r(φ) from `level_point` (full
/// f64 precision). The integrand is smooth and periodic, so the trapezoidal rule converges
/// geometrically (no turning-point singularity arises in this form); the node count doubles
/// until two estimates agree to 1e-15 relative. None when the level is not one closed curve
/// around the minimum or the rule has not converged to 1e-13 by 2^17 nodes (near a
/// separatrix): the caller then falls back to the step-0 polygon.
pub fn level_area(system: &System, energy: f64) -> Option<f64> {
    let tau = 2.0 * std::f64::consts::PI;
    let zmin = system.minimum()?;
    let r2 = |phi: f64| -> Option<f64> {
        let z = level_point(system, energy, phi).ok()?;
        Some((z[0] - zmin[0]).powi(2) + (z[1] - zmin[1]).powi(2))
    };
    let mut n = 16usize;
    let mut sum = 0.0;
    for k in 0..n {
        sum += r2(tau * k as f64 / n as f64)?;
    }
    let mut area = 0.5 * sum * tau / n as f64;
    while n < 1 << 17 {
        // The midpoints of the current rule's intervals.
        for k in 0..n {
            sum += r2(tau * (k as f64 + 0.5) / n as f64)?;
        }
        n *= 2;
        let next = 0.5 * sum * tau / n as f64;
        let diff = (next - area).abs();
        area = next;
        if diff <= 1e-15 * area && n >= 64 {
            return Some(area);
        }
        if n == 1 << 17 {
            return (diff <= 1e-13 * area).then_some(area);
        }
    }
    None
}

/// Golden-section search for the maximum of `g` in [a, c] (with a < b < c and g(b) ≥ g(a),
/// g(b) > g(c)), stopping at the first point where g > 0. Returns (a', x): g(x) > 0 and g < 0
/// at a', g rising on [a', x] (so the first crossing after a' is in [a', x]), or None when the
/// maximum stays ≤ 0.
fn exceeds_near_max(g: &dyn Fn(f64) -> f64, a: f64, b: f64, c: f64) -> Option<(f64, f64)> {
    let (mut lo, mut hi) = (a, c);
    let mut best = b;
    let mut g_best = g(b);
    let ratio = 0.5 * (5f64.sqrt() - 1.0);
    for _ in 0..200 {
        if g_best > 0.0 {
            return Some((lo, best));
        }
        // Probe the larger of the two sub-intervals around `best`.
        let x = if best - lo > hi - best {
            best - (1.0 - ratio) * (best - lo)
        } else {
            best + (1.0 - ratio) * (hi - best)
        };
        if x <= lo || x >= hi || x == best {
            break;
        }
        let gx = g(x);
        if gx > g_best {
            // The maximum moves to x; the side beyond `best` is cut off.
            if x < best {
                hi = best;
            } else {
                lo = best;
            }
            (best, g_best) = (x, gx);
        } else if x < best {
            lo = x;
        } else {
            hi = x;
        }
    }
    (g_best > 0.0).then_some((lo, best))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// Issue 15, fault 3: near the pendulum's separatrix (E → 2) the march stepped over the
    /// narrow region around q = ±π where H > E and put points on periodic copies of the level
    /// (q = ±15.7, ±22.0), or found no crossing at all. Every point must lie on the level and
    /// inside the well |q| < π, and the loop enclose less than the separatrix's area 16.
    #[test]
    fn level_near_the_separatrix_stays_in_the_well() {
        let sys = System::new("pendulum", &BTreeMap::new()).unwrap();
        for e in [1.9999, 1.99999, 1.9999999] {
            let n = 2000;
            let s: State<f64> = level(&sys, e, n).unwrap();
            let mut area = 0.0;
            for i in 0..n {
                let h = sys.energy(&[s.q[i]], &[s.p[i]]);
                assert!((h - e).abs() < 1e-12, "E = {e}, point {i}: H = {h}");
                assert!(
                    s.q[i].abs() < std::f64::consts::PI,
                    "E = {e}, point {i}: q = {}",
                    s.q[i]
                );
                let j = (i + 1) % n;
                area += 0.5 * (s.q[i] * s.p[j] - s.q[j] * s.p[i]);
            }
            assert!(area > 15.0 && area < 16.0, "E = {e}: area {area}");
        }
        // The safety net: a point on a periodic copy of the level is refused.
        let mut ring: Vec<(f64, f64)> = (0..64)
            .map(|k| {
                let a = std::f64::consts::TAU * k as f64 / 64.0;
                (3.0 * a.cos(), 2.0 * a.sin())
            })
            .collect();
        assert!(check_level_loop(&ring).is_ok());
        ring[0] = (21.98, 0.0);
        assert!(check_level_loop(&ring)
            .unwrap_err()
            .contains("points 1 and 2"));
    }

    fn nodes(rows: &[(f64, f64)]) -> State<f64> {
        State {
            n: rows.len(),
            d: 1,
            nt: 0,
            q: rows.iter().map(|r| r.0).collect(),
            p: rows.iter().map(|r| r.1).collect(),
            unconverged: vec![0; rows.len()],
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

    #[test]
    fn level_points_lie_on_the_level() {
        let sys = System::new("pendulum", &BTreeMap::new()).unwrap();
        let e = 1.0 - (std::f64::consts::PI / 6.0).cos();
        let s: State<f64> = level(&sys, e, 64).unwrap();
        for i in 0..64 {
            let h = sys.energy(&[s.q[i]], &[s.p[i]]);
            assert!((h - e).abs() < 1e-14, "point {i}: H = {h}");
        }
    }

    /// `generate_as::<f32>` gives exactly `generate` rounded to f32, for every generated kind
    /// (d = 1 and d = 2), so runs start from the same points as with an f64 copy.
    #[test]
    fn generate_as_f32_equals_generate_then_convert() {
        for (system, kinds) in [
            (
                "pendulum",
                &[
                    "level", "circle", "rect", "disk", "grid", "gaussian", "point",
                ][..],
            ),
            (
                "kepler",
                &["circle", "rect", "disk", "grid", "gaussian", "point"][..],
            ),
        ] {
            let sys = System::new(system, &BTreeMap::new()).unwrap();
            for kind in kinds {
                let spec = EnsembleSpec {
                    kind: EnsembleKind::from_name(kind).unwrap(),
                    points: 49,
                    energy: Some(0.5),
                    seed: 7,
                    ..EnsembleSpec::disk(49, 0.3, 7)
                }
                .resolve(&sys)
                .unwrap();
                let f64_state = spec.generate(&sys).unwrap();
                assert_eq!(f64_state.n, 49);
                assert_eq!(
                    spec.generate_as::<f32>(&sys).unwrap(),
                    f64_state.convert::<f32>(),
                    "{system} {kind}"
                );
            }
        }
    }

    /// By the arithmetic–geometric mean: the complete elliptic integral K(k) and
    /// E(k) − (1 − k²)K(k) = K·(k²/2 − Σ_{n≥1} 2^{n−1} c_n²), a form without cancellation.
    fn ellip_k_and_area_term(k: f64) -> (f64, f64) {
        let (mut a, mut b) = (1.0, (1.0 - k * k).sqrt());
        let mut rest = 0.0;
        let mut pow2 = 0.5;
        for _ in 0..40 {
            let c = 0.5 * (a - b);
            let an = 0.5 * (a + b);
            b = (a * b).sqrt();
            a = an;
            pow2 *= 2.0;
            rest += pow2 * c * c;
            if c.abs() < 1e-17 * a {
                break;
            }
        }
        let kk = std::f64::consts::PI / (2.0 * a);
        (kk, kk * (0.5 * k * k - rest))
    }

    /// Issue 14: the level curve's area by quadrature against closed forms: the oscillator's
    /// 2πE·sqrt(m/k) and the pendulum's 16[E(k) − (1 − k²)K(k)], k² = E/2 (m = g = l = 1).
    #[test]
    fn level_area_matches_closed_forms() {
        let mut params = BTreeMap::new();
        params.insert("m".to_string(), 2.0);
        params.insert("k".to_string(), 0.5);
        let osc = System::new("oscillator", &params).unwrap();
        for e in [1e-3, 0.5, 3.0] {
            let a = level_area(&osc, e).unwrap();
            let exact = 2.0 * std::f64::consts::PI * e * (2.0f64 / 0.5).sqrt();
            assert!(
                (a / exact - 1.0).abs() < 1e-14,
                "oscillator E = {e}: {a} vs {exact}"
            );
        }
        let pend = System::new("pendulum", &BTreeMap::new()).unwrap();
        // The AGM reference: K(0) = π/2, and A → 2πE in the harmonic limit.
        assert_eq!(ellip_k_and_area_term(0.0).0, std::f64::consts::FRAC_PI_2);
        let small = 16.0 * ellip_k_and_area_term(1e-4).1;
        assert!((small / (2.0 * std::f64::consts::PI * 2e-8) - 1.0).abs() < 1e-7);
        for e in [0.01, 0.3, 1.0, 1.5, 1.9] {
            let k = (e / 2.0f64).sqrt();
            let exact = 16.0 * ellip_k_and_area_term(k).1;
            let a = level_area(&pend, e).unwrap();
            assert!(
                (a / exact - 1.0).abs() < 1e-14,
                "pendulum E = {e}: {a} vs {exact}"
            );
        }
    }

    /// Issue 14: the circle's and the level curve's exact areas, the rectangle's only when its
    /// corners are nodes, none for file loops.
    #[test]
    fn exact_loop_areas() {
        let pend = System::new("pendulum", &BTreeMap::new()).unwrap();
        let spec = |kind: &str, points: usize| EnsembleSpec {
            kind: EnsembleKind::from_name(kind).unwrap(),
            points,
            center: Some(vec![0.0, 0.5]),
            lo: Some(vec![-0.1, 0.9]),
            hi: Some(vec![0.1, 1.2]),
            energy: Some(0.5),
            ..EnsembleSpec::disk(points, 0.3, 0)
        };
        let circle = spec("circle", 100).exact_loop_area(&pend).unwrap();
        assert!((circle / (std::f64::consts::PI * 0.09) - 1.0).abs() < 1e-15);
        let rect = spec("rect", 100).exact_loop_area(&pend).unwrap();
        assert!((rect / 0.06 - 1.0).abs() < 1e-14, "{rect}");
        assert_eq!(spec("rect", 101).exact_loop_area(&pend), None);
        assert!(spec("level", 100).exact_loop_area(&pend).is_some());
        assert_eq!(spec("disk", 100).exact_loop_area(&pend), None);
    }

    #[test]
    fn level_above_separatrix_is_rejected() {
        let sys = System::new("pendulum", &BTreeMap::new()).unwrap();
        assert!(level::<f64>(&sys, 2.5, 8).is_err());
    }
}
