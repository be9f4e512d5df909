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
    /// put back at the end. Every point's steps are its own, so the bits are those of the
    /// advance in place. `None`: no observer stops points.
    pub(super) fn advance_running(&mut self, steps: u64, fuse: bool) -> Option<Result<()>> {
        let mut mask = self.stopped_points()?;
        // While gathered: the whole state, its block length and the gathered points' indices.
        let mut whole: Option<(State<T>, usize, Vec<usize>)> = None;
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
        if let Some((mut all, len, idx)) = whole {
            all.put(&idx, &self.state);
            self.state = all;
            self.block_len = len;
        }
        Some(result)
    }
}
