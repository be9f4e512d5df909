//! Generating an initial set from a resolved spec: each kind's points in f64, stored straight
//! into the run's precision (the loop kinds through `loop_point`, `level` through its module).

use std::ops::Range;

use rand::SeedableRng;
use rand_distr::{Distribution, StandardNormal};

use super::level::level;
use super::plane::solve_p1;
use super::start::{Start, StartNote};
use super::{fill, plane_point, read_states, EnsembleSpec, GridPlane, InitialSet};
use crate::error::{Field, Result};
use crate::float::Real;
use crate::state::State;
use crate::system::System;

impl EnsembleSpec {
    /// Generate the initial states (f64) for the system run at step `dt` (a discrete map's
    /// discrete constraint and energy depend on it).
    pub fn generate(&self, system: &System, dt: f64) -> Result<State<f64>> {
        self.generate_as(system, dt)
    }

    /// Generate the initial states straight into precision `T`: each point is computed in f64
    /// and rounded once, exactly as `generate` followed by `State::convert`, but without the f64
    /// copy, and with one row buffer for all points rather than an allocation per point.
    pub fn generate_as<T: Real>(&self, system: &System, dt: f64) -> Result<State<T>> {
        let d = system.dof();
        let n = self.points;
        match &self.set {
            InitialSet::Level { energy } => level(system, *energy, n),
            InitialSet::Circle { .. } | InitialSet::Rect { .. } => {
                let none = State::zeros(0, d);
                let mut state = fill(0..n, d, |k, row| {
                    row.copy_from_slice(&self.loop_point(system, k as f64 / n as f64, &none)?);
                    Ok(())
                })?;
                start_points(system, &mut state, 0)?;
                Ok(state)
            }
            _ => self.generate_range_as(system, dt, 0..n),
        }
    }

    /// Points `range` of a filled set (a shard's, `ensemble::shard`), exactly as `generate_as`
    /// makes them: the seeded kinds start their stream where the range starts (`disk` jumps
    /// there, `gaussian` draws and drops the points before it).
    pub fn generate_range_as<T: Real>(
        &self,
        system: &System,
        dt: f64,
        range: Range<usize>,
    ) -> Result<State<T>> {
        Ok(self.generate_noted(system, dt, range)?.0)
    }

    /// `generate_range_as`, with what putting the points on the system's discrete constraint
    /// changed (`Start`; None where the points start as generated).
    pub fn generate_noted<T: Real>(
        &self,
        system: &System,
        dt: f64,
        range: Range<usize>,
    ) -> Result<(State<T>, Option<StartNote>)> {
        let d = system.dof();
        let mut start = Start::new(system, dt, self.raw_start);
        let s = &mut start;
        let first = range.start;
        let mut state = match &self.set {
            InitialSet::Disk { center, radius } => {
                uniform_disk(center, *radius, range, d, self.seed, s)
            }
            InitialSet::Grid { lo, hi, plane } => {
                grid(system, (lo, hi), plane, self.points, range, s)
            }
            InitialSet::Point { center } => fill_from(range, d, s, |_, row| {
                row.copy_from_slice(center);
                Ok(())
            }),
            InitialSet::Gaussian { center, sigma } => {
                gaussian(center, *sigma, range, d, self.seed, s)
            }
            InitialSet::File { input, .. } => {
                let read;
                let all = match &self.rows {
                    Some(rows) => rows.as_ref(),
                    None => {
                        read = read_states(input, d)?;
                        &read
                    }
                };
                if !s.projects() {
                    // Nothing to put on a constraint: the rows as read, without a copy per point.
                    let state = if range == (0..all.n) {
                        all.convert()
                    } else {
                        all.range(range).convert()
                    };
                    return Ok((state, None));
                }
                fill_from(range, d, s, |at, row| {
                    let (q, p) = row.split_at_mut(d);
                    all.point_f64(at, q, p);
                    Ok(())
                })
            }
            InitialSet::Level { .. } | InitialSet::Circle { .. } | InitialSet::Rect { .. } => {
                Err(crate::invalid!(Field::Ensemble;
                    Field::Ensemble.is(self.kind().name()),
                    ": a loop is refined across its whole length, so it is not split into shards; run it whole, or with MPI (mpirun), which keeps the loop whole on every rank"
                ))
            }
        }?;
        let moved = start_points(system, &mut state, first)?;
        Ok((state, StartNote::merged(start.note(), moved)))
    }

    /// What putting the set's points on the system's discrete constraint changes (None where
    /// they start as generated), for the reports written after a run: the set generated again
    /// in pieces of `NOTE_CHUNK` points, so that a large one is never held whole (a file set,
    /// read whole anyway, in one piece).
    pub fn start_note(&self, system: &System, dt: f64) -> Result<Option<StartNote>> {
        const NOTE_CHUNK: usize = 1 << 16;
        let constrained = system.lagrangian().is_some_and(|l| l.holonomic.is_some());
        if !Start::new(system, dt, self.raw_start).projects() && !constrained {
            return Ok(None);
        }
        let chunk = match self.set {
            InitialSet::File { .. } => self.points.max(1),
            _ => NOTE_CHUNK,
        };
        let mut note = None;
        for lo in (0..self.points).step_by(chunk) {
            let range = lo..(lo + chunk).min(self.points);
            let (_, part) = self.generate_noted::<f64>(system, dt, range)?;
            note = StartNote::merged(note, part);
        }
        Ok(note)
    }
}

/// A Lagrangian system's initial points as it starts them (`LagrangianSystem::start_point`:
/// with `--velocities` p = ∂L/∂v(q, v) in v's place, rounded once to the run's precision;
/// with constraints, put on them), refused where it cannot (a singular ∂²L/∂v²); `first`:
/// the first point's index in the set. What putting points on the constraints changed.
pub(crate) fn start_points<T: Real>(
    system: &System,
    state: &mut State<T>,
    first: usize,
) -> Result<Option<StartNote>> {
    let Some(l) = system.lagrangian() else {
        return Ok(None);
    };
    let (d, n) = (state.d, state.n);
    let (mut q, mut p) = (vec![0.0; d], vec![0.0; d]);
    let mut note = None;
    for i in 0..n {
        for k in 0..d {
            q[k] = state.q[k * n + i].to_f64();
            p[k] = state.p[k * n + i].to_f64();
        }
        if let Some((before, after)) = l.start_point(first + i, &mut q, &mut p)? {
            let moved = StartNote::holonomic(first + i, before, after);
            note = StartNote::merged(note, Some(moved));
        }
        for k in 0..d {
            state.q[k * n + i] = T::from_f64(q[k]);
            state.p[k * n + i] = T::from_f64(p[k]);
        }
    }
    Ok(note)
}

/// `fill` with each point put where the set's points start (`Start`).
fn fill_from<T: Real>(
    range: Range<usize>,
    d: usize,
    start: &mut Start,
    mut point: impl FnMut(usize, &mut [f64]) -> Result<()>,
) -> Result<State<T>> {
    fill(range, d, |at, row| {
        point(at, row)?;
        start.apply(at, row);
        Ok(())
    })
}

/// `disk`: seeded points uniform in the disk of radius `r` around `c` in (q1, p1); point i
/// takes the stream's draws 2i and 2i + 1.
fn uniform_disk<T: Real>(
    c: &[f64],
    r: f64,
    range: Range<usize>,
    d: usize,
    seed: u64,
    start: &mut Start,
) -> Result<State<T>> {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
    // One u64 per uniform f64: the stream of point `range.start` begins 2·start draws in.
    rng.advance(2 * range.start as u128);
    fill_from(range, d, start, |_, row| {
        let u: f64 = rand::Rng::random(&mut rng);
        let v: f64 = rand::Rng::random(&mut rng);
        let (rho, phi) = (r * u.sqrt(), 2.0 * std::f64::consts::PI * v);
        plane_point(row, c, d, c[0] + rho * phi.cos(), c[d] + rho * phi.sin());
        Ok(())
    })
}

/// `grid`: a √n × √n lattice filling the box `lo..hi` in the plane's two coordinates, the
/// first varying fastest; the other components at the box's middle, or p1 on the plane's
/// energy surface (NaN where there is none: `plane`).
fn grid<T: Real>(
    system: &System,
    (lo, hi): (&[f64], &[f64]),
    plane: &GridPlane,
    n: usize,
    range: Range<usize>,
    start: &mut Start,
) -> Result<State<T>> {
    let d = system.dof();
    let [a, b] = plane.axes;
    let mid: Vec<f64> = lo.iter().zip(hi).map(|(a, b)| 0.5 * (a + b)).collect();
    let m = (n as f64).sqrt().round() as usize;
    let at = |a: f64, b: f64, j: usize| {
        if m == 1 {
            0.5 * (a + b)
        } else {
            a + (b - a) * j as f64 / (m - 1) as f64
        }
    };
    let dt = start.dt();
    fill_from(range, d, start, |idx, row| {
        row.copy_from_slice(&mid);
        row[a] = at(lo[a], hi[a], idx % m);
        row[b] = at(lo[b], hi[b], idx / m);
        if let Some(e) = plane.energy {
            if solve_p1(system, dt, row, e).is_none() {
                row.fill(f64::NAN);
            }
        }
        Ok(())
    })
}

/// `gaussian`: seeded points around `c`, standard deviation `sigma` in every component; the
/// points before `range` are drawn and dropped (the normal sampler's draws per value vary).
fn gaussian<T: Real>(
    c: &[f64],
    sigma: f64,
    range: Range<usize>,
    d: usize,
    seed: u64,
    start: &mut Start,
) -> Result<State<T>> {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
    for _ in 0..range.start * 2 * d {
        let _: f64 = StandardNormal.sample(&mut rng);
    }
    fill_from(range, d, start, |_, row| {
        for (z, x) in row.iter_mut().zip(c) {
            let g: f64 = StandardNormal.sample(&mut rng);
            *z = x + sigma * g;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ensemble::{EnsembleKind, EnsembleRequest};
    use std::collections::BTreeMap;

    /// A request for `kind` of `points` points from `seed`, of radius 0.3 where it has one.
    fn seeded(kind: EnsembleKind, points: usize, seed: u64) -> EnsembleRequest {
        let round = [EnsembleKind::Circle, EnsembleKind::Disk].contains(&kind);
        EnsembleRequest {
            kind,
            radius: round.then_some(0.3),
            ..EnsembleRequest::disk(points, 0.3, seed)
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
                let kind_of = EnsembleKind::from_name(kind).unwrap();
                // The level's energy only: a grid given an energy lies on the energy surface.
                let spec = EnsembleRequest {
                    energy: (kind_of == EnsembleKind::Level).then_some(0.5),
                    ..seeded(kind_of, 49, 7)
                }
                .resolve(&sys)
                .unwrap();
                let f64_state = spec.generate(&sys, 0.01).unwrap();
                assert_eq!(f64_state.n, 49);
                assert_eq!(
                    spec.generate_as::<f32>(&sys, 0.01).unwrap(),
                    f64_state.convert::<f32>(),
                    "{system} {kind}"
                );
            }
        }
    }

    /// A range of a filled set is exactly those points of the whole set, for every filled
    /// kind (the seeded ones jump or draw their way to the range's start).
    #[test]
    fn ranges_are_slices_of_the_whole_set() {
        let sys = System::new("kepler", &BTreeMap::new()).unwrap();
        for kind in ["disk", "grid", "gaussian", "point"] {
            let spec = seeded(EnsembleKind::from_name(kind).unwrap(), 100, 11)
                .resolve(&sys)
                .unwrap();
            let whole = spec.generate_as::<f32>(&sys, 0.01).unwrap();
            for range in [0..100, 37..64, 99..100] {
                let idx: Vec<usize> = range.clone().collect();
                assert_eq!(
                    spec.generate_range_as::<f32>(&sys, 0.01, range).unwrap(),
                    whole.select(&idx),
                    "{kind}"
                );
            }
        }
    }
}
