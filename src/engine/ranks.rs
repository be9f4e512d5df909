//! A loop ensemble over MPI ranks (`mpirun -n R phaseflow run --ensemble circle ...`).
//! Refinement inserts nodes between neighbours anywhere along the loop, so every rank keeps
//! the whole loop: `RankEngine` advances only this rank's contiguous slice of it (slice r of
//! R: nodes r·n/R up to (r+1)·n/R), and `state` gathers every rank's slice, in rank order, on
//! every rank. Each rank then refines and measures the same whole loop with the same
//! arithmetic (inserted nodes are advanced the same way, split over the ranks), and rank 0
//! writes the files: the run is the single-process run, bit for bit.

use super::Engine;
use crate::cluster::Peers;
use crate::error::{Error, Result};
use crate::float::Real;
use crate::state::State;

/// This rank's slice of `n` loop nodes.
pub fn rank_slice(n: usize, peers: &Peers) -> std::ops::Range<usize> {
    let (r, size) = (peers.rank(), peers.size());
    r * n / size..(r + 1) * n / size
}

/// The engine of this rank's slice, and the whole loop as last gathered or set.
pub struct RankEngine<T: Real> {
    peers: Peers,
    local: Box<dyn Engine<T>>,
    whole: State<T>,
    current: bool,
}

impl<T: Real> RankEngine<T> {
    /// `local` advances `rank_slice` of `whole`.
    pub fn new(peers: Peers, local: Box<dyn Engine<T>>, whole: State<T>) -> Self {
        RankEngine {
            peers,
            local,
            whole,
            current: true,
        }
    }
}

impl<T: Real> Engine<T> for RankEngine<T> {
    fn describe(&self) -> String {
        format!(
            "{} MPI ranks, each {}",
            self.peers.size(),
            self.local.describe()
        )
    }

    fn advance(&mut self, steps: u64) -> Result<()> {
        self.current = false;
        self.local.advance(steps)
    }

    fn state(&mut self) -> Result<&State<T>> {
        if !self.current {
            let mine = self.local.state()?.to_bytes();
            let parts = self
                .peers
                .all_gather(&mine)?
                .iter()
                .map(|b| {
                    State::from_bytes(b)
                        .ok_or_else(|| Error::Mpi("a rank sent a malformed state".into()))
                })
                .collect::<Result<Vec<_>>>()?;
            self.whole = State::concat(&parts.iter().collect::<Vec<_>>());
            self.current = true;
        }
        Ok(&self.whole)
    }

    fn set_state(&mut self, state: State<T>) -> Result<()> {
        self.local
            .set_state(state.range(rank_slice(state.n, &self.peers)))?;
        self.whole = state;
        self.current = true;
        Ok(())
    }

    fn points(&self) -> usize {
        self.whole.n
    }

    fn reverse(&mut self) {
        self.local.reverse();
    }
}
