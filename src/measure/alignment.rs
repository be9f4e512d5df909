//! The columns of the indicators beyond MEGNO and λ (`--chaos fli,sali,galiK`,
//! `chaos::alignment`): per snapshot, over the points whose indicators are defined, the mean
//! of each and the fraction of the points it classifies as chaotic (FLI above
//! `FLI_FACTOR`·ln(1 + t), t the point's time; SALI's least value so far, or GALI_k of the
//! smallest k asked, below `ALIGNED_BELOW`).

use rayon::prelude::*;

use crate::chaos::{Chaos, Indicator, ALIGNED_BELOW, FLI_FACTOR, STEPS};
use crate::float::Real;
use crate::measure::chaos::point_row;
use crate::measure::energy::CHUNK;
use crate::measure::measurement::{
    Cell, Column, Finish, Measurement, Part, Reads, RunSetup, Shape, Snapshot, Summary,
};
use crate::state::State;

pub const FLI_MEAN: Column = Column::real("fli_mean").summarised(Summary::Max);
pub const FLI_CHAOTIC: Column = Column::real("fli_chaotic_fraction").summarised(Summary::Max);
pub const SALI_MEAN: Column = Column::real("sali_mean");
pub const SALI_CHAOTIC: Column = Column::real("sali_chaotic_fraction").summarised(Summary::Max);
pub const GALI_MEAN: Column = Column::real("gali_mean");
pub const GALI_CHAOTIC: Column = Column::real("gali_chaotic_fraction").summarised(Summary::Max);

/// Per indicator (FLI, SALI, GALI_k) and chunk: points with a value, their sum, those
/// classified chaotic.
const WORDS: usize = 9;

/// The columns of `chaos.columns()` each indicator's statistics read: (value, classified by)
/// for FLI, SALI (now, least so far) and the smallest GALI_k asked.
fn picks(chaos: &Chaos) -> [Option<(usize, usize)>; 3] {
    let columns = chaos.columns();
    let at = |name: &str| columns.iter().position(|&c| c == name);
    let gali = chaos
        .gali()
        .first()
        .map(|&k| Indicator::Gali(k).columns()[0]);
    [
        at("fli").map(|c| (c, c)),
        at("sali").zip(at("sali_min")),
        gali.and_then(at).map(|c| (c, c)),
    ]
}

/// Whether a value of indicator `which` (0 FLI, 1 SALI, 2 GALI) at time `t` is chaotic.
fn chaotic(which: usize, x: f64, t: f64) -> bool {
    match which {
        0 => x > FLI_FACTOR * (1.0 + t).ln(),
        _ => x < ALIGNED_BELOW,
    }
}

/// The words of one chunk of points (sums in point order, as `measure::chaos`).
fn chunk_words<T: Real>(
    s: &State<T>,
    dt: f64,
    chaos: &Chaos,
    range: std::ops::Range<usize>,
) -> [u64; WORDS] {
    let picks = picks(chaos);
    let (mut n, mut sum, mut hits) = ([0u64; 3], [0.0; 3], [0u64; 3]);
    for i in range {
        let row = point_row(s, i, dt, chaos);
        let t = s.chaos[STEPS * s.n + i].to_f64() * dt.abs();
        for (w, pick) in picks.iter().enumerate() {
            if let Some((v, by)) = *pick {
                if row[v].is_finite() {
                    n[w] += 1;
                    sum[w] += row[v];
                    hits[w] += u64::from(chaotic(w, row[by], t));
                }
            }
        }
    }
    std::array::from_fn(|k| match k % 3 {
        0 => n[k / 3],
        1 => sum[k / 3].to_bits(),
        _ => hits[k / 3],
    })
}

/// The statistics of FLI, SALI and GALI_k (module doc).
pub struct AlignmentColumns;

impl Measurement for AlignmentColumns {
    fn name(&self) -> &'static str {
        "alignment"
    }

    fn columns(&self) -> &'static [Column] {
        &[
            FLI_MEAN,
            FLI_CHAOTIC,
            SALI_MEAN,
            SALI_CHAOTIC,
            GALI_MEAN,
            GALI_CHAOTIC,
        ]
    }

    fn shape(&self) -> Shape {
        Shape::Chunks(WORDS)
    }

    fn reads(&self) -> Reads {
        Reads::HostState
    }

    fn taken(&self, run: &RunSetup) -> bool {
        run.chaos
            .is_some_and(|c| picks(c).iter().any(Option::is_some))
    }

    fn measure(&self, at: &Snapshot) -> Part {
        let (dt, chaos) = (at.run.dt, at.run.chaos);
        let Some(chaos) = chaos else {
            return Part::Chunks(Vec::new());
        };
        Part::Chunks(on_state!(at.state, s => (0..s.n.div_ceil(CHUNK))
            .into_par_iter()
            .flat_map_iter(|c| chunk_words(s, dt, chaos, c * CHUNK..((c + 1) * CHUNK).min(s.n)))
            .collect()))
    }

    fn finish(&self, at: &Finish) -> Vec<Cell> {
        let asked = at.run.chaos.map(picks).unwrap_or_default();
        let (mut n, mut sum, mut hits) = ([0u64; 3], [0.0; 3], [0u64; 3]);
        for w in at.part(self).words().chunks_exact(WORDS) {
            for k in 0..3 {
                n[k] += w[3 * k];
                sum[k] += f64::from_bits(w[3 * k + 1]);
                hits[k] += w[3 * k + 2];
            }
        }
        (0..3)
            .flat_map(|k| {
                let defined = asked[k].is_some() && n[k] > 0;
                let count = n[k] as f64;
                [
                    Cell::Real(defined.then(|| sum[k] / count)),
                    Cell::Real(defined.then(|| hits[k] as f64 / count)),
                ]
            })
            .collect()
    }
}
