//! Initial sets of phase-space points (PHYSICS.md §3) and the structure-of-arrays state.
//! Generators work in f64; the state is converted to the run's precision afterwards.

mod file;

use rand::SeedableRng;
use rand_distr::{Distribution, StandardNormal};
use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::float::Real;
use crate::input_err;
use crate::system::System;

pub use file::read_states;

/// N points with d degrees of freedom, component-major: `q[k*n + i]`, `p[k*n + i]`
/// (the layout the GPU buffers use, so loads of neighbouring threads coalesce).
#[derive(Debug, Clone, PartialEq)]
pub struct State<T> {
    pub n: usize,
    pub d: usize,
    pub q: Vec<T>,
    pub p: Vec<T>,
}

impl<T: Real> State<T> {
    pub fn zeros(n: usize, d: usize) -> Self {
        State {
            n,
            d,
            q: vec![T::ZERO; n * d],
            p: vec![T::ZERO; n * d],
        }
    }

    /// Convert precision (f64 generators → run precision, f32 states → f64 measurements).
    pub fn convert<U: Real>(&self) -> State<U> {
        State {
            n: self.n,
            d: self.d,
            q: self.q.iter().map(|x| U::from_f64(x.to_f64())).collect(),
            p: self.p.iter().map(|x| U::from_f64(x.to_f64())).collect(),
        }
    }

    /// Point i as f64 (q1..qd, p1..pd) into the given buffers.
    #[inline]
    pub fn point_f64(&self, i: usize, q: &mut [f64], p: &mut [f64]) {
        for k in 0..self.d {
            q[k] = self.q[k * self.n + i].to_f64();
            p[k] = self.p[k * self.n + i].to_f64();
        }
    }

    /// Build from rows (q1..qd, p1..pd) per point.
    pub fn from_rows(rows: &[Vec<f64>], d: usize) -> Self {
        let n = rows.len();
        let mut s = State::zeros(n, d);
        for (i, row) in rows.iter().enumerate() {
            for k in 0..d {
                s.q[k * n + i] = T::from_f64(row[k]);
                s.p[k * n + i] = T::from_f64(row[d + k]);
            }
        }
        s
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EnsembleKind {
    Level,
    Circle,
    Rect,
    Disk,
    Grid,
    Gaussian,
    File,
}

pub const KINDS: &[(EnsembleKind, &str, &str)] = &[
    (EnsembleKind::Level, "level", "N points on the energy level H = --energy around the minimum (1 DOF); ordered closed loop"),
    (EnsembleKind::Circle, "circle", "N points on the circle --center/--radius in the (q1, p1) plane; ordered closed loop"),
    (EnsembleKind::Rect, "rect", "N points on the boundary of the rectangle --lo..--hi in the (q1, p1) plane; ordered closed loop"),
    (EnsembleKind::Disk, "disk", "N points uniform in the disk --center/--radius in the (q1, p1) plane (seeded)"),
    (EnsembleKind::Grid, "grid", "√N × √N lattice filling the box --lo..--hi in the (q1, p1) plane (N a perfect square)"),
    (EnsembleKind::Gaussian, "gaussian", "N points around --center with standard deviation --sigma in every component (seeded)"),
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
        }
    }
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
                self.points = read_states(&path, d)?.n;
            }
        }
        Ok(self)
    }

    /// Generate the initial states (f64) for the system.
    pub fn generate(&self, system: &System) -> Result<State<f64>> {
        let d = system.dof();
        let n = self.points;
        match self.kind {
            EnsembleKind::Level => level(system, self.energy.unwrap_or(0.0), n),
            EnsembleKind::Circle => {
                let (c, r) = (self.center.clone().unwrap(), self.radius.unwrap());
                let rows = (0..n)
                    .map(|k| {
                        let phi = 2.0 * std::f64::consts::PI * k as f64 / n as f64;
                        plane_point(&c, d, c[0] + r * phi.cos(), c[d] + r * phi.sin())
                    })
                    .collect::<Vec<_>>();
                Ok(State::from_rows(&rows, d))
            }
            EnsembleKind::Rect => {
                let (lo, hi) = (self.lo.clone().unwrap(), self.hi.clone().unwrap());
                let mid: Vec<f64> = lo.iter().zip(&hi).map(|(a, b)| 0.5 * (a + b)).collect();
                let (w, h) = (hi[0] - lo[0], hi[d] - lo[d]);
                let perimeter = 2.0 * (w + h);
                // Counter-clockwise from (lo_q, lo_p), nodes evenly spaced in arc length.
                let rows = (0..n)
                    .map(|k| {
                        let s = perimeter * k as f64 / n as f64;
                        let (x, y) = if s < w {
                            (lo[0] + s, lo[d])
                        } else if s < w + h {
                            (hi[0], lo[d] + (s - w))
                        } else if s < 2.0 * w + h {
                            (hi[0] - (s - w - h), hi[d])
                        } else {
                            (lo[0], hi[d] - (s - 2.0 * w - h))
                        };
                        plane_point(&mid, d, x, y)
                    })
                    .collect::<Vec<_>>();
                Ok(State::from_rows(&rows, d))
            }
            EnsembleKind::Disk => {
                let (c, r) = (self.center.clone().unwrap(), self.radius.unwrap());
                let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(self.seed);
                let rows = (0..n)
                    .map(|_| {
                        let u: f64 = rand::Rng::random(&mut rng);
                        let v: f64 = rand::Rng::random(&mut rng);
                        let (rho, phi) = (r * u.sqrt(), 2.0 * std::f64::consts::PI * v);
                        plane_point(&c, d, c[0] + rho * phi.cos(), c[d] + rho * phi.sin())
                    })
                    .collect::<Vec<_>>();
                Ok(State::from_rows(&rows, d))
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
                let rows = (0..n)
                    .map(|idx| {
                        plane_point(
                            &mid,
                            d,
                            at(lo[0], hi[0], idx % m),
                            at(lo[d], hi[d], idx / m),
                        )
                    })
                    .collect::<Vec<_>>();
                Ok(State::from_rows(&rows, d))
            }
            EnsembleKind::Gaussian => {
                let (c, sigma) = (self.center.clone().unwrap(), self.sigma.unwrap());
                let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(self.seed);
                let rows = (0..n)
                    .map(|_| {
                        c.iter()
                            .map(|x| {
                                let g: f64 = StandardNormal.sample(&mut rng);
                                x + sigma * g
                            })
                            .collect()
                    })
                    .collect::<Vec<_>>();
                Ok(State::from_rows(&rows, d))
            }
            EnsembleKind::File => read_states(self.input.as_ref().unwrap(), d),
        }
    }
}

/// A point equal to `base` except for (q1, p1) = (x, y).
fn plane_point(base: &[f64], d: usize, x: f64, y: f64) -> Vec<f64> {
    let mut row = base.to_vec();
    row[0] = x;
    row[d] = y;
    row
}

/// Points on the level set H = E, star-shaped around the system's minimum z*: along the ray at
/// angle φ_k = 2πk/N, march outwards until H exceeds E, then bisect to full f64 precision.
fn level(system: &System, energy: f64, n: usize) -> Result<State<f64>> {
    let zmin = system.minimum();
    let e_min = system.energy(&zmin[..1], &zmin[1..]);
    if energy <= e_min {
        return Err(input_err!(
            "--energy {energy}: the level must lie above the minimum energy {e_min} of '{}'",
            system.name()
        ));
    }
    let h_at =
        |r: f64, c: f64, s: f64| system.energy(&[zmin[0] + r * c], &[zmin[1] + r * s]) - energy;
    let mut rows = Vec::with_capacity(n);
    for k in 0..n {
        let phi = 2.0 * std::f64::consts::PI * k as f64 / n as f64;
        let (c, s) = (phi.cos(), phi.sin());
        // March with a step that grows slowly so small and large levels both bracket quickly.
        let (mut r_in, mut r_out) = (0.0, 0.0);
        let mut dr = 1e-6_f64.max(1e-3 * energy.sqrt());
        let mut found = false;
        for _ in 0..100_000 {
            let r = r_in + dr;
            if h_at(r, c, s) > 0.0 {
                r_out = r;
                found = true;
                break;
            }
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
        rows.push(vec![zmin[0] + r * c, zmin[1] + r * s]);
    }
    Ok(State::from_rows(&rows, 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn level_points_lie_on_the_level() {
        let sys = System::new("pendulum", &BTreeMap::new()).unwrap();
        let e = 1.0 - (std::f64::consts::PI / 6.0).cos();
        let s = level(&sys, e, 64).unwrap();
        for i in 0..64 {
            let h = sys.energy(&[s.q[i]], &[s.p[i]]);
            assert!((h - e).abs() < 1e-14, "point {i}: H = {h}");
        }
    }

    #[test]
    fn level_above_separatrix_is_rejected() {
        let sys = System::new("pendulum", &BTreeMap::new()).unwrap();
        assert!(level(&sys, 2.5, 8).is_err());
    }
}
