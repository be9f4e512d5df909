//! Generating an initial set from a resolved spec: each kind's points in f64, stored straight
//! into the run's precision (the loop kinds through `loop_point`, `level` through its module).

use rand::SeedableRng;
use rand_distr::{Distribution, StandardNormal};

use super::level::level;
use super::{fill, plane_point, read_states, EnsembleSpec, InitialSet};
use crate::error::Result;
use crate::float::Real;
use crate::state::State;
use crate::system::System;

impl EnsembleSpec {
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
        match &self.set {
            InitialSet::Level { energy } => level(system, *energy, n),
            InitialSet::Circle { .. } | InitialSet::Rect { .. } => {
                let none = State::zeros(0, d);
                fill(n, d, |k, row| {
                    row.copy_from_slice(&self.loop_point(system, k as f64 / n as f64, &none)?);
                    Ok(())
                })
            }
            InitialSet::Disk { center, radius } => uniform_disk(center, *radius, n, d, self.seed),
            InitialSet::Grid { lo, hi } => grid(lo, hi, n, d),
            InitialSet::Point { center } => fill(n, d, |_, row| {
                row.copy_from_slice(center);
                Ok(())
            }),
            InitialSet::Gaussian { center, sigma } => gaussian(center, *sigma, n, d, self.seed),
            InitialSet::File { input, .. } => Ok(read_states(input, d)?.convert()),
        }
    }
}

/// `disk`: `n` seeded points uniform in the disk of radius `r` around `c` in (q1, p1).
fn uniform_disk<T: Real>(c: &[f64], r: f64, n: usize, d: usize, seed: u64) -> Result<State<T>> {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
    fill(n, d, |_, row| {
        let u: f64 = rand::Rng::random(&mut rng);
        let v: f64 = rand::Rng::random(&mut rng);
        let (rho, phi) = (r * u.sqrt(), 2.0 * std::f64::consts::PI * v);
        plane_point(row, c, d, c[0] + rho * phi.cos(), c[d] + rho * phi.sin());
        Ok(())
    })
}

/// `grid`: a √n × √n lattice filling the box `lo..hi` in (q1, p1), q1 varying fastest;
/// the other components at the box's middle.
fn grid<T: Real>(lo: &[f64], hi: &[f64], n: usize, d: usize) -> Result<State<T>> {
    let mid: Vec<f64> = lo.iter().zip(hi).map(|(a, b)| 0.5 * (a + b)).collect();
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

/// `gaussian`: `n` seeded points around `c`, standard deviation `sigma` in every component.
fn gaussian<T: Real>(c: &[f64], sigma: f64, n: usize, d: usize, seed: u64) -> Result<State<T>> {
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
    fill(n, d, |_, row| {
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
                let spec = EnsembleRequest {
                    kind: EnsembleKind::from_name(kind).unwrap(),
                    energy: Some(0.5),
                    ..EnsembleRequest::disk(49, 0.3, 7)
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
}
