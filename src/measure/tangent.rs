//! Tangent-map estimator (PHYSICS.md §4, estimator 2): per point, M = DΦⁿ as propagated by the
//! kernels (the tangent columns of `State`), its determinant and its symplecticity defect
//! ‖MᵀJM − J‖_F / ‖M‖_F², evaluated in f64.
//!
//! Long runs: M can grow (linearly under shear, exponentially when chaotic). At each snapshot
//! `renormalise` divides a point's columns by a power of two once they exceed `RESCALE_ABOVE`
//! and adds the exponent to that point's `log2_scale`, so M = 2^log2_scale · M_stored and
//! log det M = ln|det M_stored| + 2d · log2_scale · ln 2 is accumulated without overflow.

use nalgebra::DMatrix;
use rayon::prelude::*;

use crate::float::Real;
use crate::measure::measurement::{
    Cell, Column, Finish, Measurement, Part, Reads, RunSetup, Shape, Snapshot,
};
use crate::state::State;

/// Rescale a point's stored tangent columns once their largest entry passes this (far inside
/// f32 range, so a whole snapshot interval of growth fits before the next check).
pub const RESCALE_ABOVE: f64 = 1e12;

/// Per-snapshot tangent statistics over the points whose state and M are finite.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct TangentStats {
    pub finite: u64,
    pub det_mean: Option<f64>,
    pub det_min: Option<f64>,
    pub det_max: Option<f64>,
    pub defect_max: Option<f64>,
    /// The mean `det_conditioning` over the points: `det_mean`'s rounding floor is the
    /// run's relative error per entry times this (`measure::floor`).
    pub conditioning_mean: Option<f64>,
}

/// M of point i (2d × 2d, column-major: column j is ∂z/∂z0_j) as f64, unscaled.
fn matrix<T: Real>(s: &State<T>, i: usize) -> DMatrix<f64> {
    let (n, d) = (s.n, s.d);
    let m = 2 * d;
    DMatrix::from_fn(m, m, |r, j| {
        let c = d * (1 + j) + (r % d);
        // with compensated summation's carried errors (`State::q_f64`)
        if r < d {
            s.q_f64(c * n + i)
        } else {
            s.p_f64(c * n + i)
        }
    })
}

/// What one point's tangent map measures: ln|det M|, det's sign, the symplecticity defect and
/// the determinant's conditioning (`det_conditioning`, of M unscaled).
struct PointMeasures {
    log_det: f64,
    sign: f64,
    defect: f64,
    conditioning: f64,
}

/// How far relative rounding of M's entries moves det M: perturbing every entry by at most a
/// fraction u moves det M by at most u times this, to first order (det(M + δM) = det M +
/// Σ_ij δM_ij C_ij, C the cofactors): Σ_ij |M_ij C_ij|, for d = 1 2 (|a d| + |b c|). C_ij is
/// det M · (M⁻¹)_ji where M is invertible; else Hadamard's inequality bounds it by the product
/// of the other columns' norms. Of the stored M (scale 2^log2_scale: the caller multiplies by
/// 2^(2d · log2_scale)).
pub fn det_conditioning(mm: &DMatrix<f64>, det: f64) -> f64 {
    if mm.nrows() == 2 {
        let (a, b, c, d) = (mm[(0, 0)], mm[(0, 1)], mm[(1, 0)], mm[(1, 1)]);
        return 2.0 * ((a * d).abs() + (b * c).abs());
    }
    match mm.clone().try_inverse() {
        Some(inv) => det.abs() * mm.component_mul(&inv.transpose()).abs().sum(),
        None => {
            let norms: Vec<f64> = mm.column_iter().map(|c| c.norm()).collect();
            (0..mm.ncols())
                .map(|j| {
                    let others: f64 = (0..mm.ncols())
                        .filter(|&k| k != j)
                        .map(|k| norms[k])
                        .product();
                    mm.column(j).abs().sum() * others
                })
                .sum()
        }
    }
}

/// The measures of point i, or None when anything is non-finite.
fn point_measures<T: Real>(s: &State<T>, i: usize, log2_scale: f64) -> Option<PointMeasures> {
    let d = s.d;
    let mm = matrix(s, i);
    if mm.iter().any(|x| !x.is_finite())
        || (0..d).any(|k| !(s.q[k * s.n + i].is_finite() && s.p[k * s.n + i].is_finite()))
    {
        return None;
    }
    let det = if d == 1 {
        mm[(0, 0)] * mm[(1, 1)] - mm[(0, 1)] * mm[(1, 0)]
    } else {
        mm.clone().determinant()
    };
    let ln2 = std::f64::consts::LN_2;
    let log_det = det.abs().ln() + (2 * d) as f64 * log2_scale * ln2;
    // defect of M = 2^e M_s: ‖M_sᵀ J M_s − 2^(−2e) J‖ / ‖M_s‖²
    let mut j = DMatrix::<f64>::zeros(2 * d, 2 * d);
    for k in 0..d {
        j[(k, d + k)] = 1.0;
        j[(d + k, k)] = -1.0;
    }
    let j_scale = (-2.0 * log2_scale * ln2).exp();
    let defect = (mm.transpose() * &j * &mm - j * j_scale).norm() / mm.norm_squared();
    Some(PointMeasures {
        log_det,
        sign: det.signum(),
        defect,
        conditioning: det_conditioning(&mm, det) * (2.0 * d as f64 * log2_scale).exp2(),
    })
}

/// One chunk's tangent statistics: (finite points, Σ det, min det, max det, max defect,
/// Σ `det_conditioning`).
pub type TangentAcc = (u64, f64, f64, f64, f64, f64);

/// The accumulator of no points.
pub const TANGENT_EMPTY: TangentAcc = (0, 0.0, f64::INFINITY, f64::NEG_INFINITY, 0.0, 0.0);

/// Points per chunk of `tangent_chunks` (the energy statistics' chunk, so a shard boundary at
/// a multiple of it splits neither).
const CHUNK: usize = crate::measure::energy::CHUNK;

fn merge(a: TangentAcc, b: TangentAcc) -> TangentAcc {
    (
        a.0 + b.0,
        a.1 + b.1,
        a.2.min(b.2),
        a.3.max(b.3),
        a.4.max(b.4),
        a.5 + b.5,
    )
}

/// det and defect statistics of the state's tangent columns (`nt` must be 2d).
pub fn tangent_stats<T: Real>(s: &State<T>, log2_scale: &[f64]) -> TangentStats {
    TangentStats::from_chunks(&tangent_chunks(s, log2_scale))
}

/// The per-chunk accumulators of `tangent_stats`, in point order (fixed chunks merged in
/// order: reproducible whatever the thread count, and mergeable across shards).
pub fn tangent_chunks<T: Real>(s: &State<T>, log2_scale: &[f64]) -> Vec<TangentAcc> {
    assert_eq!(s.nt, 2 * s.d, "tangent_stats needs the tangent columns");
    let idx: Vec<usize> = (0..s.n).collect();
    idx.par_chunks(CHUNK)
        .map(|ch| {
            let mut a = TANGENT_EMPTY;
            for &i in ch {
                if let Some(m) = point_measures(s, i, log2_scale[i]) {
                    let det = m.sign * m.log_det.exp();
                    a = merge(a, (1, det, det, det, m.defect, m.conditioning));
                }
            }
            a
        })
        .collect()
}

impl TangentStats {
    /// The statistics of chunk accumulators folded left to right.
    pub fn from_chunks(chunks: &[TangentAcc]) -> Self {
        let acc = chunks.iter().fold(TANGENT_EMPTY, |a, &b| merge(a, b));
        let some = |x: f64| (acc.0 > 0).then_some(x);
        TangentStats {
            finite: acc.0,
            det_mean: some(acc.1 / acc.0.max(1) as f64),
            det_min: some(acc.2),
            det_max: some(acc.3),
            defect_max: some(acc.4),
            conditioning_mean: some(acc.5 / acc.0.max(1) as f64),
        }
    }
}

/// Divide each point's tangent columns by 2^e when their largest entry exceeds `RESCALE_ABOVE`
/// (exact: a power of two), adding e to `log2_scale[i]`. Returns whether anything changed.
pub fn renormalise<T: Real>(s: &mut State<T>, log2_scale: &mut [f64]) -> bool {
    let (n, d) = (s.n, s.d);
    let comps = s.comps();
    let mut changed = false;
    for (i, scale) in log2_scale.iter_mut().enumerate().take(n) {
        let mut big = 0.0f64;
        for c in d..comps {
            big = big
                .max(s.q[c * n + i].to_f64().abs())
                .max(s.p[c * n + i].to_f64().abs());
        }
        if big.is_finite() && big > RESCALE_ABOVE {
            let e = big.log2().floor();
            let f = T::from_f64((-e).exp2());
            for c in d..comps {
                s.q[c * n + i] *= f;
                s.p[c * n + i] *= f;
                if s.compensated() {
                    // the carried errors scale with their columns (exactly: a power of two)
                    s.eq[c * n + i] *= f;
                    s.ep[c * n + i] *= f;
                }
            }
            *scale += e;
            changed = true;
        }
    }
    changed
}

/// The columns (stats.csv) these measurements fill.
pub const DET_MEAN: Column = Column::real("det_mean");
pub const DET_MIN: Column = Column::real("det_min");
pub const DET_MAX: Column = Column::real("det_max");
pub const DEFECT_MAX: Column = Column::real("defect_max");
pub const AREA_FROM_DET: Column = Column::real("area_from_det");

/// det M and the symplecticity defect over the finite points (`--tangent`), and where the
/// set is a filled d = 1 one, the evolved set's area |A0| · det_mean.
pub struct Tangent;

/// Words of a `TangentAcc` in the tangent measurement's parts.
const TANGENT_WORDS: usize = 6;

/// The tangent statistics of the tangent measurement's merged parts.
pub fn stats_of(part: &Part) -> TangentStats {
    let f = f64::from_bits;
    let chunks: Vec<TangentAcc> = part
        .words()
        .chunks_exact(TANGENT_WORDS)
        .map(|c| (c[0], f(c[1]), f(c[2]), f(c[3]), f(c[4]), f(c[5])))
        .collect();
    TangentStats::from_chunks(&chunks)
}

impl Measurement for Tangent {
    fn name(&self) -> &'static str {
        "tangent"
    }

    fn columns(&self) -> &'static [Column] {
        &[DET_MEAN, DET_MIN, DET_MAX, DEFECT_MAX, AREA_FROM_DET]
    }

    fn shape(&self) -> Shape {
        Shape::Chunks(TANGENT_WORDS)
    }

    fn reads(&self) -> Reads {
        Reads::HostState
    }

    fn taken(&self, run: &RunSetup) -> bool {
        run.tangent
    }

    fn measure(&self, at: &Snapshot) -> Part {
        let scale = &at.per_point.log2_scale;
        let chunks = on_state!(at.state, s => tangent_chunks(s, scale));
        Part::Chunks(
            chunks
                .iter()
                .flat_map(|t| {
                    [
                        t.0,
                        t.1.to_bits(),
                        t.2.to_bits(),
                        t.3.to_bits(),
                        t.4.to_bits(),
                        t.5.to_bits(),
                    ]
                })
                .collect(),
        )
    }

    fn finish(&self, at: &Finish) -> Vec<Cell> {
        let t = stats_of(at.part(self));
        vec![
            Cell::Real(t.det_mean),
            Cell::Real(t.det_min),
            Cell::Real(t.det_max),
            Cell::Real(t.defect_max),
            Cell::Real(at.run.filled_area.zip(t.det_mean).map(|(a, m)| a * m)),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_and_scaled_shear() {
        let s0 = State::<f64>::zeros(2, 1).with_tangent();
        let t = tangent_stats(&s0, &[0.0, 0.0]);
        assert_eq!(
            (t.finite, t.det_mean, t.defect_max),
            (2, Some(1.0), Some(0.0))
        );
        // point 1: M = [[2, 0], [0, 3]] stored as 2^-40 M with log2_scale 40
        let mut s = s0.clone();
        let f = (-40.0f64).exp2();
        // q-row of column 0 is component 1 of q; p-row of column 1 is component 2 of p
        s.q[2 + 1] = 2.0 * f;
        s.p[2 * 2 + 1] = 3.0 * f;
        let t = tangent_stats(&s, &[0.0, 40.0]);
        assert!((t.det_max.unwrap() - 6.0).abs() < 1e-12, "{t:?}");
        assert_eq!(t.det_min, Some(1.0));
        // defect of diag(2, 3): MᵀJM = 6J → ‖5J‖/‖M‖² = 5√2/13
        assert!((t.defect_max.unwrap() - 5.0 * 2f64.sqrt() / 13.0).abs() < 1e-12);
    }

    #[test]
    fn renormalise_keeps_det() {
        let mut s = State::<f64>::zeros(1, 1).with_tangent();
        s.q[1] = 3e13;
        s.p[2] = 1.0 / 3e13 * 2.0;
        let before = tangent_stats(&s, &[0.0]).det_mean.unwrap();
        let mut ls = vec![0.0];
        assert!(renormalise(&mut s, &mut ls));
        assert!(ls[0] > 40.0);
        let after = tangent_stats(&s, &ls).det_mean.unwrap();
        assert!((after / before - 1.0).abs() < 1e-12, "{before} {after}");
    }
}
