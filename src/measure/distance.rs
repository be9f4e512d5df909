//! Distances in phase space from each point to another state of it: to the reference
//! solution at the same t (`GlobalError`, `run --reference`) and to its initial state once
//! back at t = 0 (`ReturnError`, `run --reverse`: the return error, written at that row only;
//! elsewhere the distance from the start is no return error, so its cells are empty). Both
//! are the Euclidean distance |z − z'| over (q1..qd, p1..pd), in f64, over the points whose
//! distance is finite; their parts are per-chunk (count, sum, largest) in point order, so
//! shards and ranks merge to the whole ensemble's bits.

use rayon::prelude::*;

use crate::float::Real;
use crate::measure::energy::CHUNK;
use crate::measure::measurement::{
    Cell, Column, Finish, Measurement, Part, Reads, RunSetup, Shape, Snapshot,
};
use crate::state::State;

/// Words of one chunk's accumulator: finite count, sum and largest distance (their bits).
const WORDS: usize = 3;

/// The per-chunk accumulators of |z_i − w_i| over the points of `s` against those of `w`.
pub fn distance_part<T: Real>(s: &State<T>, w: &State<f64>) -> Part {
    debug_assert_eq!((s.n, s.d), (w.n, w.d));
    let (n, d) = (s.n, s.d);
    let words: Vec<[u64; WORDS]> = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let (mut count, mut sum, mut max) = (0u64, 0.0f64, 0.0f64);
            for i in c * CHUNK..((c + 1) * CHUNK).min(n) {
                let sq: f64 = (0..d)
                    .map(|k| {
                        let j = k * n + i;
                        let (dq, dp) = (s.q_f64(j) - w.q[j], s.p_f64(j) - w.p[j]);
                        dq * dq + dp * dp
                    })
                    .sum();
                let dist = sq.sqrt();
                if dist.is_finite() {
                    count += 1;
                    sum += dist;
                    max = max.max(dist);
                }
            }
            [count, sum.to_bits(), max.to_bits()]
        })
        .collect();
    Part::Chunks(words.concat())
}

/// The largest distance |z_i − w_i| over the points of `s` (none without a finite one).
pub fn distance_max<T: Real>(s: &State<T>, w: &State<f64>) -> Option<f64> {
    finish_distance(&distance_part(s, w))[0].real()
}

/// The largest and the mean distance of the merged parts (none without a finite point).
fn finish_distance(part: &Part) -> Vec<Cell> {
    let (mut count, mut sum, mut max) = (0u64, 0.0f64, 0.0f64);
    for w in part.words().chunks_exact(WORDS) {
        count += w[0];
        sum += f64::from_bits(w[1]);
        max = max.max(f64::from_bits(w[2]));
    }
    let some = |x: f64| (count > 0).then_some(x);
    vec![
        Cell::Real(some(max)),
        Cell::Real(some(sum / count.max(1) as f64)),
    ]
}

/// The columns (stats.csv).
pub const GLOBAL_ERR_MAX: Column = Column::real("global_err_max");
pub const GLOBAL_ERR_MEAN: Column = Column::real("global_err_mean");
pub const RETURN_ERR_MAX: Column = Column::real("return_err_max");
pub const RETURN_ERR_MEAN: Column = Column::real("return_err_mean");

/// Distance of each point to its reference solution at the same t (`run --reference`).
pub struct GlobalError;

impl Measurement for GlobalError {
    fn name(&self) -> &'static str {
        "global_error"
    }

    fn columns(&self) -> &'static [Column] {
        &[GLOBAL_ERR_MAX, GLOBAL_ERR_MEAN]
    }

    fn shape(&self) -> Shape {
        Shape::Chunks(WORDS)
    }

    fn reads(&self) -> Reads {
        Reads::HostState
    }

    fn taken(&self, run: &RunSetup) -> bool {
        run.reference
    }

    fn measure(&self, at: &Snapshot) -> Part {
        match &at.per_point.reference {
            Some(w) => on_state!(at.state, s => distance_part(s, w)),
            None => Part::empty(self.shape()),
        }
    }

    fn finish(&self, at: &Finish) -> Vec<Cell> {
        finish_distance(at.part(self))
    }

    fn announce(&self, _run: &RunSetup) {
        crate::info!(
            "phaseflow: global_err_max, global_err_mean: distance in phase space to the reference solution at the same t"
        );
    }
}

/// Distance of each point to its initial state once the run is back at t = 0 (`run --reverse`).
pub struct ReturnError;

impl Measurement for ReturnError {
    fn name(&self) -> &'static str {
        "return_error"
    }

    fn columns(&self) -> &'static [Column] {
        &[RETURN_ERR_MAX, RETURN_ERR_MEAN]
    }

    fn shape(&self) -> Shape {
        Shape::Chunks(WORDS)
    }

    fn reads(&self) -> Reads {
        Reads::HostState
    }

    fn taken(&self, run: &RunSetup) -> bool {
        run.reverse.is_some()
    }

    fn measure(&self, at: &Snapshot) -> Part {
        match &at.per_point.z0 {
            Some(w) => on_state!(at.state, s => distance_part(s, w)),
            None => Part::empty(self.shape()),
        }
    }

    /// The return error at the row back at t = 0; empty cells at the others.
    fn finish(&self, at: &Finish) -> Vec<Cell> {
        match at.run.reverse {
            Some(steps) if at.step == 2 * steps => finish_distance(at.part(self)),
            _ => vec![Cell::Real(None); 2],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(q: &[f64], p: &[f64]) -> State<f64> {
        let mut s = State::zeros(q.len(), 1);
        s.q.copy_from_slice(q);
        s.p.copy_from_slice(p);
        s
    }

    /// The distances of (3, 4) and (0, 0) from the origin, a non-finite point left out; and
    /// the parts of two chunk-aligned halves appended give the whole ensemble's cells.
    #[test]
    fn distances_max_mean_and_split() {
        let origin = state(&[0.0; 3], &[0.0; 3]);
        let s = state(&[3.0, 0.0, f64::NAN], &[4.0, 0.0, 1.0]);
        let cells = finish_distance(&distance_part(&s, &origin));
        assert_eq!(cells, vec![Cell::Real(Some(5.0)), Cell::Real(Some(2.5))]);
        let n = 2 * CHUNK + 7;
        let z: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin()).collect();
        let (s, w) = (state(&z, &z), state(&vec![0.1; n], &vec![-0.2; n]));
        let mut split = distance_part(&s.range(0..CHUNK), &w.range(0..CHUNK));
        split.append(distance_part(&s.range(CHUNK..n), &w.range(CHUNK..n)));
        assert_eq!(split, distance_part(&s, &w));
        let empty = finish_distance(&Part::empty(Shape::Chunks(WORDS)));
        assert_eq!(empty, vec![Cell::Real(None), Cell::Real(None)]);
    }
}
