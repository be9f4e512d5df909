//! Energy statistics per snapshot (PHYSICS.md §4). H is evaluated in f64 even for f32 states.
//! Non-finite points are counted and excluded, never propagated into the statistics.

use rayon::prelude::*;
use serde::Serialize;

use crate::ensemble::State;
use crate::float::Real;
use crate::system::System;

/// |H(z0)| below this is "too small to divide by": such points are left out of the relative columns.
pub const REL_ENERGY_FLOOR: f64 = 1e-12;

/// Mergeable accumulator: count/mean/M2 (Chan et al.) for H, sums and maxima for the errors.
#[derive(Debug, Clone, Copy, Default)]
pub struct EnergyAccumulator {
    pub finite: u64,
    mean: f64,
    m2: f64,
    abs_err_sum: f64,
    abs_err_max: f64,
    rel_count: u64,
    rel_err_sum: f64,
    rel_err_max: f64,
}

impl EnergyAccumulator {
    pub fn push(&mut self, h: f64, h0: f64) {
        self.finite += 1;
        let delta = h - self.mean;
        self.mean += delta / self.finite as f64;
        self.m2 += delta * (h - self.mean);
        let err = (h - h0).abs();
        self.abs_err_sum += err;
        self.abs_err_max = self.abs_err_max.max(err);
        if h0.abs() > REL_ENERGY_FLOOR {
            let rel = err / h0.abs();
            self.rel_count += 1;
            self.rel_err_sum += rel;
            self.rel_err_max = self.rel_err_max.max(rel);
        }
    }

    /// An accumulator from its parts (the GPU engine's device reduction, `gpu::energy`):
    /// `abs` and `rel` are [sum, max] of the absolute and relative errors.
    pub fn from_parts(
        finite: u64,
        mean: f64,
        m2: f64,
        abs: [f64; 2],
        rel_count: u64,
        rel: [f64; 2],
    ) -> Self {
        EnergyAccumulator {
            finite,
            mean,
            m2,
            abs_err_sum: abs[0],
            abs_err_max: abs[1],
            rel_count,
            rel_err_sum: rel[0],
            rel_err_max: rel[1],
        }
    }

    pub fn merge(self, o: Self) -> Self {
        if self.finite == 0 {
            return o;
        }
        if o.finite == 0 {
            return self;
        }
        let n = (self.finite + o.finite) as f64;
        let delta = o.mean - self.mean;
        EnergyAccumulator {
            finite: self.finite + o.finite,
            mean: self.mean + delta * o.finite as f64 / n,
            m2: self.m2 + o.m2 + delta * delta * self.finite as f64 * o.finite as f64 / n,
            abs_err_sum: self.abs_err_sum + o.abs_err_sum,
            abs_err_max: self.abs_err_max.max(o.abs_err_max),
            rel_count: self.rel_count + o.rel_count,
            rel_err_sum: self.rel_err_sum + o.rel_err_sum,
            rel_err_max: self.rel_err_max.max(o.rel_err_max),
        }
    }
}

/// One row of stats.csv. Columns and units are documented in README.md.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct EnergyRow {
    pub step: u64,
    /// t = step · dt (computed from the step index, never accumulated)
    pub t: f64,
    pub points: u64,
    pub finite: u64,
    pub energy_mean: Option<f64>,
    pub energy_std: Option<f64>,
    pub abs_energy_err_mean: Option<f64>,
    pub abs_energy_err_max: Option<f64>,
    pub rel_energy_err_mean: Option<f64>,
    pub rel_energy_err_max: Option<f64>,
    /// Loop ensembles only (level, circle, rect): polygon area ∮ p·dq of the nodes, and its ratio
    /// to the initial area. Empty for filled ensembles and when a node is non-finite.
    pub area: Option<f64>,
    pub area_ratio: Option<f64>,
    /// Loop ensembles: nodes in the (refined) loop at this snapshot.
    pub loop_nodes: Option<u64>,
    /// `--tangent` only: det M = det DΦⁿ over the finite points (mean, min, max), and the largest
    /// symplecticity defect ‖MᵀJM − J‖_F/‖M‖_F² (0 for an exactly symplectic map).
    pub det_mean: Option<f64>,
    pub det_min: Option<f64>,
    pub det_max: Option<f64>,
    pub defect_max: Option<f64>,
    /// `--tangent` on a filled disk or grid (d = 1): |A0| · det_mean, the area of the evolved set.
    pub area_from_det: Option<f64>,
    /// Systems that conserve angular momentum (kepler, outer-solar-system): the largest
    /// |L − L(z0)| over the finite points (Euclidean norm of the 3-vector difference).
    pub ang_mom_err_max: Option<f64>,
    /// Points whose implicit solve (non-separable H, implicit midpoint) hit the iteration cap at
    /// least once since t = 0; always 0 for explicit kernels.
    pub unconverged: u64,
}

/// H of every point of the state (f64; NaN stays NaN).
pub fn energies<T: Real>(system: &System, s: &State<T>) -> Vec<f64> {
    let d = s.d;
    (0..s.n)
        .into_par_iter()
        .map_init(
            || (vec![0.0; d], vec![0.0; d]),
            |(q, p), i| {
                s.point_f64(i, q, p);
                if q.iter().chain(p.iter()).all(|x| x.is_finite()) {
                    system.energy(q, p)
                } else {
                    f64::NAN
                }
            },
        )
        .collect()
}

/// Statistics of a snapshot against the initial energies `h0` (one per point).
pub fn snapshot_stats<T: Real>(
    system: &System,
    s: &State<T>,
    h0: &[f64],
    step: u64,
    dt: f64,
) -> EnergyRow {
    let h = energies(system, s);
    // Fixed chunks merged in order: the statistics are bit-reproducible whatever the thread count.
    const CHUNK: usize = 4096;
    let acc = h
        .par_chunks(CHUNK)
        .zip(h0.par_chunks(CHUNK))
        .map(|(hs, h0s)| {
            let mut a = EnergyAccumulator::default();
            for (&hi, &h0i) in hs.iter().zip(h0s) {
                if hi.is_finite() {
                    a.push(hi, h0i);
                }
            }
            a
        })
        .collect::<Vec<_>>()
        .into_iter()
        .fold(EnergyAccumulator::default(), EnergyAccumulator::merge);
    row_from(&acc, s.n as u64, step, step as f64 * dt)
}

pub fn row_from(acc: &EnergyAccumulator, points: u64, step: u64, t: f64) -> EnergyRow {
    let some = |x: f64| if acc.finite > 0 { Some(x) } else { None };
    let rel = |x: f64| if acc.rel_count > 0 { Some(x) } else { None };
    let std = if acc.finite > 1 {
        (acc.m2 / (acc.finite - 1) as f64).sqrt()
    } else {
        0.0
    };
    EnergyRow {
        step,
        t,
        points,
        finite: acc.finite,
        energy_mean: some(acc.mean),
        energy_std: some(std),
        abs_energy_err_mean: some(acc.abs_err_sum / acc.finite.max(1) as f64),
        abs_energy_err_max: some(acc.abs_err_max),
        rel_energy_err_mean: rel(acc.rel_err_sum / acc.rel_count.max(1) as f64),
        rel_energy_err_max: rel(acc.rel_err_max),
        area: None,
        area_ratio: None,
        loop_nodes: None,
        det_mean: None,
        det_min: None,
        det_max: None,
        defect_max: None,
        area_from_det: None,
        ang_mom_err_max: None,
        unconverged: 0,
    }
}

/// Angular momentum L of every point (f64), or None when the system does not conserve it.
pub fn angular_momenta<T: Real>(system: &System, s: &State<T>) -> Option<Vec<[f64; 3]>> {
    let d = s.d;
    let (mut q, mut p) = (vec![0.0; d], vec![0.0; d]);
    (0..s.n)
        .map(|i| {
            s.point_f64(i, &mut q, &mut p);
            system.angular_momentum(&q, &p)
        })
        .collect()
}

/// max |L − L0| over the points whose L is finite (None without angular momentum or points).
pub fn ang_mom_err_max<T: Real>(system: &System, s: &State<T>, l0: &[[f64; 3]]) -> Option<f64> {
    let l = angular_momenta(system, s)?;
    l.iter()
        .zip(l0)
        .map(|(a, b)| {
            ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
        })
        .filter(|e| e.is_finite())
        .reduce(f64::max)
}

/// Least-squares slope of y against t (the energy drift), None with fewer than two points.
pub fn drift_slope(t: &[f64], y: &[f64]) -> Option<f64> {
    let n = t.len() as f64;
    if t.len() < 2 {
        return None;
    }
    let (mt, my) = (t.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let sxy: f64 = t.iter().zip(y).map(|(a, b)| (a - mt) * (b - my)).sum();
    let sxx: f64 = t.iter().map(|a| (a - mt) * (a - mt)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_equals_sequential() {
        let data: Vec<(f64, f64)> = (0..1000)
            .map(|i| ((i as f64 * 0.37).sin() + 2.0, 2.0))
            .collect();
        let mut all = EnergyAccumulator::default();
        data.iter().for_each(|&(h, h0)| all.push(h, h0));
        let (mut a, mut b) = (EnergyAccumulator::default(), EnergyAccumulator::default());
        data[..300].iter().for_each(|&(h, h0)| a.push(h, h0));
        data[300..].iter().for_each(|&(h, h0)| b.push(h, h0));
        let m = a.merge(b);
        let (r1, r2) = (row_from(&all, 1000, 0, 0.0), row_from(&m, 1000, 0, 0.0));
        assert!((r1.energy_mean.unwrap() - r2.energy_mean.unwrap()).abs() < 1e-14);
        assert!((r1.energy_std.unwrap() - r2.energy_std.unwrap()).abs() < 1e-12);
        assert_eq!(r1.abs_energy_err_max, r2.abs_energy_err_max);
    }

    #[test]
    fn slope_of_a_line() {
        let t = [0.0, 1.0, 2.0, 3.0];
        let y = [1.0, 3.0, 5.0, 7.0];
        assert!((drift_slope(&t, &y).unwrap() - 2.0).abs() < 1e-12);
    }
}
