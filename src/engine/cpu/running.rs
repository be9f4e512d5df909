//! Advancing only the points still running, where an observer stops points (`--stop-when`):
//! the running points gathered into a state of their own, so the blocks hold running points
//! only, and put back at the end.

use super::{block_len_of, CpuEngine};
use crate::error::Result;
use crate::float::Real;
use crate::state::State;

/// Steps between the tests for newly stopped points (`CpuEngine::advance_running`): a point
/// stopped within them costs the rest of them (restored after each step); a gathering of the
/// running points, after steps in which some stopped, copies them twice.
const GATHER_STEPS: u64 = 32;

/// The points still running after an advance (`CpuEngine::advance_running`): their state,
/// their indices in the whole state and the block length of their state.
pub(super) struct Running<T> {
    state: State<T>,
    idx: Vec<usize>,
    block_len: usize,
}

impl<T: Real> CpuEngine<T> {
    /// The points an observer has stopped (`CpuObserver::stopped_points`), where one stops
    /// points and none keeps words of its own (a section's records, by point index).
    fn stopped_points(&self) -> Option<Vec<bool>> {
        if self.keeps {
            return None;
        }
        let n = self.state.n;
        let mut column = 0;
        let mut stopped = None;
        for (o, w) in &self.observers {
            let words = &self.state.chaos[column * n..(column + w) * n];
            stopped = stopped.or_else(|| o.stopped_points(words, n));
            column += w;
        }
        stopped
    }

    /// Where an observer stops points (`stopped_points`): advance only the points still
    /// running, gathered into a state of their own (so the blocks hold running points only),
    /// `GATHER_STEPS` steps at a time, gathered again after steps in which some stopped, and
    /// put back at the end. The gathered points are kept for the next advance (`Running`), so
    /// that a run read between its advances (its snapshots) does not gather them again. Every
    /// point's steps are its own, so the bits are those of the advance in place. `None`: no
    /// observer stops points.
    pub(super) fn advance_running(&mut self, steps: u64, fuse: bool) -> Option<Result<()>> {
        // While gathered: the whole state, its block length and the gathered points' indices.
        let mut whole: Option<(State<T>, usize, Vec<usize>)> = None;
        if let Some(kept) = self.running.take() {
            let all = std::mem::replace(&mut self.state, kept.state);
            let len = std::mem::replace(&mut self.block_len, kept.block_len);
            whole = Some((all, len, kept.idx));
        }
        let Some(mut mask) = self.stopped_points() else {
            self.put_back(whole);
            return None;
        };
        let mut done = 0;
        let mut result = Ok(());
        while done < steps {
            if mask.iter().any(|&s| s) {
                let here: Vec<usize> = (0..mask.len()).filter(|&i| !mask[i]).collect();
                let (all, len, idx) = match whole.take() {
                    Some((mut all, len, idx)) => {
                        all.put(&idx, &self.state);
                        (all, len, here.iter().map(|&j| idx[j]).collect())
                    }
                    None => {
                        let all = std::mem::replace(&mut self.state, State::zeros(0, 0));
                        (all, self.block_len, here)
                    }
                };
                self.state = all.select(&idx);
                self.block_len = block_len_of(&self.state);
                whole = Some((all, len, idx));
            }
            if self.state.n == 0 {
                break;
            }
            let k = (steps - done).min(GATHER_STEPS);
            result = self.advance_in_place(k, fuse);
            if result.is_err() {
                break;
            }
            done += k;
            mask = self.stopped_points().unwrap_or_default();
        }
        self.put_back(whole);
        Some(result)
    }

    /// The gathered points (`advance_running`'s `whole`) put back into the whole state, and
    /// kept for the next advance.
    fn put_back(&mut self, whole: Option<(State<T>, usize, Vec<usize>)>) {
        if let Some((mut all, len, idx)) = whole {
            all.put(&idx, &self.state);
            let state = std::mem::replace(&mut self.state, all);
            let block_len = std::mem::replace(&mut self.block_len, len);
            self.running = Some(Running {
                state,
                idx,
                block_len,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Arc;

    use crate::engine::{CpuEngine, Engine, Integrator};
    use crate::method::{Method, Solver};
    use crate::observe::stop::{StopConditions, WIDTH};
    use crate::state::State;
    use crate::system::System;

    /// A run whose points stop at different steps, advanced in pieces with its state read
    /// between them (the running points kept from one advance to the next), gives the bits of
    /// the same run in one advance and of the points advanced in place (never gathered), on
    /// the fused path and on the block path.
    #[test]
    fn running_points_kept_between_advances_give_the_same_bits() {
        let system = System::new("henon-heiles", &BTreeMap::new()).unwrap();
        let mut init = crate::ensemble::EnsembleRequest::disk(300, 0.3, 5)
            .resolve(&system)
            .unwrap()
            .generate(&system, 0.05)
            .unwrap();
        init.chaos = vec![0.0; WIDTH * init.n];
        let stop = StopConditions::parse(&["q1 > 0.05 + t/4".into()], &system, None).unwrap();
        let k = Integrator::new(system, Method::Yoshida4, 0.05, Solver::default_for::<f64>())
            .unwrap()
            .with_observer(Arc::new(stop));
        for fuse in [true, false] {
            let mut pieces = CpuEngine::new(&k, init.clone()).with_stops_fused();
            let mut reads = Vec::new();
            for piece in 0..10 {
                pieces.advance_by(15, fuse).unwrap();
                reads.push(pieces.state().unwrap().clone());
                // Points stopped in the first piece are gathered out at the second's start,
                // and the running points kept from then on.
                let kept = pieces.running.is_some();
                assert!(
                    kept == (piece > 0),
                    "fuse {fuse}: piece {piece} kept {kept}"
                );
            }
            let mut whole = CpuEngine::new(&k, init.clone()).with_stops_fused();
            whole.advance_by(150, fuse).unwrap();
            let mut in_place = CpuEngine::new(&k, init.clone()).with_stops_fused();
            for _ in 0..10 {
                in_place.advance_in_place(15, fuse).unwrap();
            }
            let bytes = |e: &mut CpuEngine<f64>| e.state().unwrap().to_bytes();
            let end = bytes(&mut pieces);
            assert!(end == bytes(&mut whole), "fuse {fuse}: in pieces, in one");
            assert!(
                end == bytes(&mut in_place),
                "fuse {fuse}: gathered, in place"
            );
            let stopped = |s: &State<f64>| s.chaos[..s.n].iter().filter(|&&c| c != 0.0).count();
            let counts: Vec<usize> = reads.iter().map(stopped).collect();
            assert!(counts[0] > 0 && counts[9] > counts[0], "{counts:?}");
            assert!(counts[9] < init.n, "{counts:?}");
        }
    }
}
