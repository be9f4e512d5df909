//! The chaos indicators' columns (`--chaos`): per snapshot, over the points whose indicators
//! are defined (finite, after the first step), the mean MEGNO ⟨Y⟩, the mean and largest
//! Lyapunov exponent, the fraction of points with ⟨Y⟩ above `chaos::CHAOTIC_ABOVE`, and how
//! many points blew up (counted, kept out of the statistics). Per point, the indicators are
//! `indicator_rows` (written to `chaos/step_<k>.npy`).

use rayon::prelude::*;

use crate::chaos::{point_indicators, point_values, Chaos, Indicator, CHAOTIC_ABOVE, WIDTH};
use crate::float::Real;
use crate::measure::energy::CHUNK;
use crate::measure::measurement::{
    Cell, Column, Finish, Measurement, Part, Reads, RunSetup, Shape, Snapshot, Summary,
};
use crate::state::State;

pub const MEGNO_MEAN: Column = Column::real("megno_mean").summarised(Summary::Max);
pub const LYAPUNOV_MEAN: Column = Column::real("lyapunov_mean");
pub const LYAPUNOV_MAX: Column = Column::real("lyapunov_max").summarised(Summary::Max);
pub const CHAOTIC_FRACTION: Column = Column::real("chaotic_fraction").summarised(Summary::Max);
pub const CHAOS_UNDEFINED: Column = Column::count("chaos_undefined");

/// Words per chunk: points with indicators, Σ⟨Y⟩, Σλ, max λ, chaotic points, blown-up points.
const WORDS: usize = 6;

/// The accumulators of point i (f64).
fn accumulators<T: Real>(s: &State<T>, i: usize) -> [f64; WIDTH] {
    std::array::from_fn(|c| s.chaos[c * s.n + i].to_f64())
}

/// (⟨Y⟩, λ) of every point (NaN where undefined: before the first step, or blown up).
pub fn indicators<T: Real>(s: &State<T>, dt: f64) -> Vec<(f64, f64)> {
    (0..s.n)
        .into_par_iter()
        .map(|i| point_indicators(accumulators(s, i), dt).unwrap_or((f64::NAN, f64::NAN)))
        .collect()
}

/// Point i's indicators in the order of `chaos.columns()` (`chaos::point_values`: NaN where
/// undefined), its deviation vectors read from the state's tangent columns.
pub fn point_row<T: Real>(s: &State<T>, i: usize, dt: f64, chaos: &Chaos) -> Vec<f64> {
    let (n, d) = (s.n, s.d);
    let acc: Vec<f64> = (0..s.chaos_width())
        .map(|c| s.chaos[c * n + i].to_f64())
        .collect();
    let vector = |j: usize| -> Vec<f64> {
        let at = |v: &[T], k: usize| v[(d * (1 + j) + k) * n + i].to_f64();
        let q = (0..d).map(|k| at(&s.q, k));
        q.chain((0..d).map(|k| at(&s.p, k))).collect()
    };
    let weights = chaos.deviation.weights();
    point_values(chaos, &acc, &vector, weights.as_deref(), dt)
}

/// One row per point with the chosen indicators (`point_row`), as f64: `chaos/step_<k>.npy`.
pub fn indicator_rows<T: Real>(s: &State<T>, dt: f64, chaos: &Chaos) -> Vec<f64> {
    (0..s.n)
        .into_par_iter()
        .flat_map_iter(|i| point_row(s, i, dt, chaos))
        .collect()
}

/// The words of one chunk of points (sums in point order, so chunks fold to the same bits
/// however the ensemble is split at chunk boundaries).
fn chunk_words<T: Real>(s: &State<T>, dt: f64, range: std::ops::Range<usize>) -> [u64; WORDS] {
    let (mut n, mut megno, mut lyap, mut max, mut chaotic, mut blown) =
        (0u64, 0.0, 0.0, f64::NEG_INFINITY, 0u64, 0u64);
    for i in range {
        let acc = accumulators(s, i);
        match point_indicators(acc, dt) {
            Some((y, l)) => {
                n += 1;
                megno += y;
                lyap += l;
                max = max.max(l);
                chaotic += u64::from(y > CHAOTIC_ABOVE);
            }
            // Before the first step nothing is defined yet; after it, only a blow-up leaves none.
            None => blown += u64::from(acc[crate::chaos::STEPS] >= 1.0),
        }
    }
    [
        n,
        megno.to_bits(),
        lyap.to_bits(),
        max.to_bits(),
        chaotic,
        blown,
    ]
}

/// The indicators' statistics (module doc).
pub struct ChaosColumns;

impl Measurement for ChaosColumns {
    fn name(&self) -> &'static str {
        "chaos"
    }

    fn columns(&self) -> &'static [Column] {
        &[
            MEGNO_MEAN,
            LYAPUNOV_MEAN,
            LYAPUNOV_MAX,
            CHAOTIC_FRACTION,
            CHAOS_UNDEFINED,
        ]
    }

    fn shape(&self) -> Shape {
        Shape::Chunks(WORDS)
    }

    fn reads(&self) -> Reads {
        Reads::HostState
    }

    fn taken(&self, run: &RunSetup) -> bool {
        run.chaos.is_some()
    }

    fn measure(&self, at: &Snapshot) -> Part {
        let dt = at.run.dt;
        Part::Chunks(on_state!(at.state, s => (0..s.n.div_ceil(CHUNK))
            .into_par_iter()
            .flat_map_iter(|c| chunk_words(s, dt, c * CHUNK..((c + 1) * CHUNK).min(s.n)))
            .collect()))
    }

    fn finish(&self, at: &Finish) -> Vec<Cell> {
        let chosen = at.run.chaos.map(|c| c.indicators.as_slice()).unwrap_or(&[]);
        let (mut n, mut megno, mut lyap, mut max, mut chaotic, mut blown) =
            (0u64, 0.0, 0.0, f64::NEG_INFINITY, 0u64, 0u64);
        for w in at.part(self).words().chunks_exact(WORDS) {
            n += w[0];
            megno += f64::from_bits(w[1]);
            lyap += f64::from_bits(w[2]);
            max = max.max(f64::from_bits(w[3]));
            chaotic += w[4];
            blown += w[5];
        }
        let defined = |x: f64, i: Indicator| (n > 0 && chosen.contains(&i)).then_some(x);
        let count = n as f64;
        vec![
            Cell::Real(defined(megno / count, Indicator::Megno)),
            Cell::Real(defined(lyap / count, Indicator::Lyapunov)),
            Cell::Real(defined(max, Indicator::Lyapunov)),
            Cell::Real(defined(chaotic as f64 / count, Indicator::Megno)),
            Cell::Count(Some(blown)),
        ]
    }
}
