//! The deviation vector's start and metric (`--deviation`, `--deviation-metric`).
//!
//! The metric: |δ|² = Σ_k (δ_k / s_k)² over the 2d components (q1..qd, p1..pd) with a scale
//! s_k per component. `natural` measures positions and velocities: s = 1 for every
//! coordinate and s = m for a momentum p = m q̇ of a system that names its masses
//! (`System::masses`: the outer solar system's p_i = m_i v_i), 1 elsewhere; `unit` measures
//! (q, p) as they are; a list gives the 2d scales. ⟨Y⟩ and λ are then those of |δ| in this
//! metric: λ does not depend on it for a long enough run (all norms on a finite-dimensional
//! space are equivalent), but the finite-time values do, and a metric that weighs one body's
//! momenta 10⁸ times less than its positions reports the shear of the positions.
//!
//! The start: `random` (the default) draws a direction per point uniform on the metric's
//! unit sphere from the run's seed and the point's index in the whole ensemble, so a shard,
//! an MPI rank or a resumed run gives a point the same start as the whole run; a list gives
//! one direction for every point, and `ones` is the list (1, …, 1). Either is normalised to
//! |δ| = 1 in the metric.

use rand::SeedableRng;
use rand_distr::{Distribution, StandardNormal};

use crate::error::{Field, Result};
use crate::float::Real;
use crate::invalid;

/// Where every point's deviation vector starts.
#[derive(Debug, Clone, PartialEq)]
pub enum Start {
    /// A seeded random direction per point.
    Random,
    /// (1, …, 1), normalised.
    Ones,
    /// One given direction (2d components), normalised.
    Given(Vec<f64>),
}

/// How the deviation vector's length is measured.
#[derive(Debug, Clone, PartialEq)]
pub enum Metric {
    /// Positions and velocities (momenta divided by the system's masses).
    Natural,
    /// (q, p) as they are.
    Unit,
    /// A scale per component.
    Scales(Vec<f64>),
}

/// The deviation vector's start and metric, resolved for a system: `scales` holds the 2d
/// scales, or nothing where they are all 1 (the engines then skip the weights).
#[derive(Debug, Clone, PartialEq)]
pub struct Deviation {
    pub start: Start,
    pub metric: Metric,
    scales: Vec<f64>,
}

/// Mixed into the run's seed so that the deviation vectors' stream is not the one the
/// seeded ensembles draw their points from.
const STREAM: u64 = 0x6465_7669_6174_696f;

/// SplitMix64's finaliser (Steele, Lea & Flood, "Fast splittable pseudorandom number
/// generators"): a bijection of u64 that spreads every input bit over the output.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A list of 2d finite numbers for `field`, or an error naming the expected length.
fn parse_list(field: Field, text: &str, d: usize, what: &str) -> Result<Vec<f64>> {
    let bad = |why: String| invalid!(field.clone(); field.is(text), why);
    let values: Vec<f64> = text
        .split(',')
        .map(|w| w.trim().parse::<f64>())
        .collect::<std::result::Result<_, _>>()
        .map_err(|_| {
            bad(format!(
                ": expected {what} or 2d = {} numbers separated by commas (q1..qd, p1..pd)",
                2 * d
            ))
        })?;
    if values.len() != 2 * d {
        return Err(bad(format!(
            ": {} numbers given, the system has 2d = {} components (q1..qd, p1..pd)",
            values.len(),
            2 * d
        )));
    }
    if let Some(x) = values.iter().find(|x| !x.is_finite()) {
        return Err(bad(format!(": {x} is not a finite number")));
    }
    Ok(values)
}

impl Deviation {
    /// `--deviation` and `--deviation-metric` (absent: random, natural) for a system of `d`
    /// degrees of freedom whose momenta are p = m q̇ with `masses` (`System::masses`; none:
    /// the momenta are the velocities).
    pub fn resolve(
        start: Option<&str>,
        metric: Option<&str>,
        d: usize,
        masses: Option<Vec<f64>>,
    ) -> Result<Self> {
        let metric = match metric.map(str::trim) {
            None | Some("natural") => Metric::Natural,
            Some("unit") => Metric::Unit,
            Some(text) => {
                let s = parse_list(Field::DeviationMetric, text, d, "natural, unit")?;
                if s.iter().any(|&x| x <= 0.0) {
                    return Err(invalid!(Field::DeviationMetric;
                        Field::DeviationMetric.is(text),
                        ": every scale must be positive (the length of one unit of its component)"
                    ));
                }
                Metric::Scales(s)
            }
        };
        let scales = match &metric {
            Metric::Natural => {
                let mut s = vec![1.0; d];
                s.extend(masses.unwrap_or_else(|| vec![1.0; d]));
                s
            }
            Metric::Unit => vec![1.0; 2 * d],
            Metric::Scales(s) => s.clone(),
        };
        let scales = if scales.iter().all(|&s| s == 1.0) {
            Vec::new()
        } else {
            scales
        };
        let start = match start.map(str::trim) {
            None | Some("random") => Start::Random,
            Some("ones") => Start::Ones,
            Some(text) => {
                let v = parse_list(Field::Deviation, text, d, "random, ones")?;
                if v.iter().all(|&x| x == 0.0) {
                    return Err(invalid!(Field::Deviation;
                        Field::Deviation.is(text),
                        ": the direction is zero; give a nonzero vector, or random"
                    ));
                }
                Start::Given(v)
            }
        };
        Ok(Deviation {
            start,
            metric,
            scales,
        })
    }

    /// How config.toml records the start.
    pub fn start_text(&self) -> String {
        match &self.start {
            Start::Random => "random".into(),
            Start::Ones => "ones".into(),
            Start::Given(v) => list_text(v),
        }
    }

    /// How config.toml records the metric.
    pub fn metric_text(&self) -> String {
        match &self.metric {
            Metric::Natural => "natural".into(),
            Metric::Unit => "unit".into(),
            Metric::Scales(s) => list_text(s),
        }
    }

    /// The weights w_k = 1/s_k of the squared norm Σ (w_k δ_k)² (2d, q then p), or `None`
    /// where every scale is 1: what the engines' renormalisation sums (`chaos::update`,
    /// `observe::chaos`). Each component is scaled before it is squared, so the sum takes the
    /// form of the unit metric's (n + y·y), which a GPU compiler treats alike.
    pub fn weights(&self) -> Option<Vec<f64>> {
        (!self.scales.is_empty()).then(|| self.scales.iter().map(|s| 1.0 / s).collect())
    }

    /// The scale of component k (1 where the metric is unit).
    fn scale(&self, k: usize) -> f64 {
        self.scales.get(k).copied().unwrap_or(1.0)
    }

    /// The start of the point with index `index` in the whole ensemble (2d components,
    /// |δ| = 1 in the metric), drawn from `seed` where the start is random.
    pub fn vector(&self, seed: u64, index: usize, d: usize) -> Vec<f64> {
        let unscaled: Vec<f64> = match &self.start {
            Start::Random => {
                let point_seed = mix(mix(seed ^ STREAM).wrapping_add(index as u64));
                let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(point_seed);
                (0..2 * d)
                    .map(|k| {
                        let x: f64 = StandardNormal.sample(&mut rng);
                        x * self.scale(k)
                    })
                    .collect()
            }
            Start::Ones => vec![1.0; 2 * d],
            Start::Given(v) => v.clone(),
        };
        let norm = (0..2 * d)
            .map(|k| (unscaled[k] / self.scale(k)).powi(2))
            .sum::<f64>()
            .sqrt();
        unscaled.into_iter().map(|x| x / norm).collect()
    }

    /// The start of the point with index `index` in the whole ensemble, rounded into
    /// `row` (2d components): what `State::with_deviation` writes for a run.
    pub fn write<T: Real>(&self, seed: u64, index: usize, row: &mut [T]) {
        let d = row.len() / 2;
        for (dst, x) in row.iter_mut().zip(self.vector(seed, index, d)) {
            *dst = T::from_f64(x);
        }
    }
}

impl Deviation {
    /// The k orthonormal starts (in the metric) of the point with index `index` for SALI and
    /// GALI_k: the first is `vector`'s, each other a seeded random direction from the point's
    /// own stream (whatever the start of the first) made orthogonal to those before it by
    /// modified Gram–Schmidt, twice, then normalised.
    pub fn vectors(&self, seed: u64, index: usize, d: usize, k: usize) -> Vec<Vec<f64>> {
        let mut out = vec![self.vector(seed, index, d)];
        let point_seed = mix(mix(seed ^ STREAM ^ MORE).wrapping_add(index as u64));
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(point_seed);
        let dot = |x: &[f64], y: &[f64]| -> f64 {
            (0..2 * d)
                .map(|c| (x[c] / self.scale(c)) * (y[c] / self.scale(c)))
                .sum()
        };
        while out.len() < k {
            let mut v: Vec<f64> = (0..2 * d)
                .map(|c| {
                    let x: f64 = StandardNormal.sample(&mut rng);
                    x * self.scale(c)
                })
                .collect();
            for _ in 0..2 {
                for e in &out {
                    let r = dot(e, &v);
                    for (x, a) in v.iter_mut().zip(e) {
                        *x -= r * a;
                    }
                }
            }
            let norm = dot(&v, &v).sqrt();
            out.push(v.into_iter().map(|x| x / norm).collect());
        }
        out
    }

    /// The k = `row.len()` / 2d starts of `vectors` rounded into `row` (vector j at
    /// [j·2d, (j + 1)·2d)): what `State::with_deviations` writes for a run.
    pub fn write_vectors<T: Real>(&self, seed: u64, index: usize, d: usize, row: &mut [T]) {
        let k = row.len() / (2 * d);
        let all = self.vectors(seed, index, d, k).into_iter().flatten();
        for (dst, x) in row.iter_mut().zip(all) {
            *dst = T::from_f64(x);
        }
    }
}

/// Mixed into the seed of the further vectors' stream (`Deviation::vectors`).
const MORE: u64 = 0x6d6f_7265_7665_6374;

/// A list of numbers as config.toml records it (each reads back as the same f64).
fn list_text(v: &[f64]) -> String {
    let items: Vec<String> = v.iter().map(|&x| crate::error::num(x)).collect();
    items.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random starts are unit vectors in the metric, reproducible, different per point and
    /// per seed, and written into a run's precision as drawn.
    #[test]
    fn random_starts_are_reproducible_unit_vectors_that_differ_per_point() {
        // The outer solar system's: 18 degrees of freedom, Pluto's mass last.
        let d = 18;
        let mut masses = vec![1e-3; d];
        masses[d - 1] = 1.0 / 1.3e8;
        let dev = Deviation::resolve(None, None, d, Some(masses)).unwrap();
        let a = dev.vector(7, 3, d);
        assert_eq!(a, dev.vector(7, 3, d));
        assert_ne!(a, dev.vector(7, 4, d));
        assert_ne!(a, dev.vector(8, 3, d));
        let w = dev.weights().unwrap();
        let n: f64 = a.iter().zip(&w).map(|(x, w)| (x * w) * (x * w)).sum();
        assert!((n - 1.0).abs() < 1e-12, "{n}");
        // Pluto's momenta are its mass times a velocity of the size of its position's.
        let pluto_p = a[2 * d - 1].abs() / (1.0 / 1.3e8);
        assert!(pluto_p < 10.0, "{pluto_p}");
        let mut row = vec![0.0_f32; 2 * d];
        dev.write(7, 3, &mut row);
        assert!(row.iter().zip(&a).all(|(&r, &x)| r == x as f32));
    }

    /// `ones` in the unit metric is the fixed (1, …, 1)/√(2d); lists are checked and read
    /// back from their recorded text.
    #[test]
    fn given_starts_and_metrics_parse_and_record() {
        let dev = Deviation::resolve(Some("ones"), Some("unit"), 2, None).unwrap();
        assert_eq!(dev.vector(0, 0, 2), vec![0.5; 4]);
        assert_eq!(dev.weights(), None);
        let dev = Deviation::resolve(Some("1,0,0,0"), Some("1,1,2,0.5"), 2, None).unwrap();
        assert_eq!(dev.vector(0, 9, 2), vec![1.0, 0.0, 0.0, 0.0]);
        assert_eq!(dev.weights(), Some(vec![1.0, 1.0, 0.5, 2.0]));
        let v = dev.vectors(3, 5, 2, 4);
        let w = [1.0, 1.0, 0.5, 2.0];
        for i in 0..4 {
            for j in 0..4 {
                let g: f64 = (0..4).map(|c| v[i][c] * w[c] * v[j][c] * w[c]).sum();
                let want = if i == j { 1.0 } else { 0.0 };
                assert!((g - want).abs() < 1e-14, "{i} {j}: {g}");
            }
        }
        assert_eq!(v[0], dev.vector(3, 5, 2));
        assert_ne!(v[1], dev.vectors(3, 6, 2, 2)[1]);
        let back =
            Deviation::resolve(Some(&dev.start_text()), Some(&dev.metric_text()), 2, None).unwrap();
        assert_eq!(back, dev);
        for (start, metric) in [
            (Some("1,2,3"), None),
            (Some("0,0,0,0"), None),
            (Some("x"), None),
            (None, Some("1,1,0,1")),
            (None, Some("1,1,inf,1")),
            (None, Some("velocity")),
        ] {
            assert!(
                Deviation::resolve(start, metric, 2, None).is_err(),
                "{start:?} {metric:?}"
            );
        }
    }
}
