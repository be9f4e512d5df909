//! The per-step observers on the fused path (`method::fused`): the blocks' points in groups
//! of 64, each group with its own hooks (`BlockObserver`s made for blocks of 64 points, one per
//! group), run by the fused loop between the group's steps (`fused::Between`); and the
//! stopped points put back after each step (`Frozen`), on either path.

use rayon::prelude::*;

use super::{block_hooks, vectors_blocks, CpuEngine};
use crate::error::Result;
use crate::float::Real;
use crate::method::fused::{self, Between, POINTS};
use crate::method::Points;
use crate::observe::{BlockObserver, BlockRun};

/// One block's groups on the fused path: per group its observers' hooks, its stopped points
/// and its count of real points.
struct Observed<'h, T> {
    hooks: Vec<Vec<Box<dyn BlockObserver<T> + 'h>>>,
    frozen: Vec<Frozen<T>>,
    /// The block's real points.
    m: usize,
}

impl<T: Real> Observed<'_, T> {
    /// Group `g`'s real points.
    fn real(&self, g: usize) -> usize {
        (self.m - g * POINTS).min(POINTS)
    }
}

impl<T: Real> Between<T> for Observed<'_, T> {
    /// As the block path starts a block (`advance_block`): the hooks started, the points
    /// stopped before the advance kept.
    fn start(&mut self, g: usize, at: &mut Points<T>) -> bool {
        let m = self.real(g);
        let hooks = &mut self.hooks[g];
        for h in hooks.iter_mut() {
            h.start(m);
        }
        self.frozen[g].take(at, &[], hooks, m) < m
    }

    fn before_step(&mut self, g: usize, at: &Points<T>) {
        for h in self.hooks[g].iter_mut() {
            h.before_step(at);
        }
    }

    /// As the block path after each step: the stopped points put back, the hooks, the newly
    /// stopped points kept.
    fn after_step(&mut self, g: usize, at: &mut Points<T>, k: u64) -> bool {
        let m = self.real(g);
        self.frozen[g].restore(at, &mut []);
        let hooks = &mut self.hooks[g];
        for h in hooks.iter_mut() {
            h.after_step(at, k);
        }
        self.frozen[g].take(at, &[], hooks, m) < m
    }

    /// The steps every group's hooks are quiet at (`BlockObserver::quiet`), none while a
    /// stopped point must be put back after each step.
    fn quiet(&self, k: u64) -> u64 {
        if self.frozen.iter().any(|f| !f.points.is_empty()) {
            return 0;
        }
        let hooks = self.hooks.iter().flatten();
        hooks.map(|h| h.quiet(k)).min().unwrap_or(0)
    }
}

impl<T: Real> CpuEngine<T> {
    /// `advance_in_place` on the fused path with the per-step observers: blocks of a multiple
    /// of 64 points, so that each fused group is one of the observers' blocks (`BlockRun` of
    /// 64 points; every observer works point by point, so the bits are the block path's).
    pub(super) fn advance_observed(
        &mut self,
        program: &fused::Program<T>,
        steps: u64,
    ) -> Result<()> {
        let n = self.state.n;
        let b = self.block_len.div_ceil(POINTS) * POINTS;
        let (d, comps) = (self.state.d, self.state.comps());
        let st = &mut self.state;
        let vectors = [&mut st.q[..], &mut st.p[..], &mut st.eq[..], &mut st.ep[..]];
        let mut parts = vectors_blocks(vectors, n, b);
        let run = BlockRun {
            system: &self.system,
            h: self.h,
            b: POINTS,
            blocks: n.div_ceil(POINTS),
        };
        let mut hooks = block_hooks(&mut self.observers, &mut st.chaos, &run, n).into_iter();
        let blocks: Vec<_> = parts
            .blocks()
            .map(|part| {
                let m = part[0].len();
                let hooks: Vec<_> = hooks.by_ref().take(m.div_ceil(POINTS)).collect();
                let frozen = hooks.iter().map(|_| Frozen::default()).collect();
                (part, Observed { hooks, frozen, m })
            })
            .collect();
        let run = fused::Run {
            system: &self.system,
            program,
            level: self.level,
            d,
            comps,
            compensated: self.compensated,
            steps,
        };
        blocks.into_par_iter().for_each_init(
            fused::Scratch::default,
            |scratch, (part, mut observed)| {
                fused::advance_between(&run, part, Some(&mut observed), scratch);
                for h in observed.hooks.iter_mut().flatten() {
                    h.finish();
                }
            },
        );
        drop(hooks);
        for (o, _) in &mut self.observers {
            o.advanced(steps);
        }
        Ok(())
    }
}

/// The stopped points of a block (`BlockObserver::stopped`) with their components (q, p and,
/// compensated, eq, ep) and unconverged count as they were when they stopped, put back after
/// every step the block takes for its other points.
pub(super) struct Frozen<T> {
    seen: usize,
    points: Vec<usize>,
    /// Per point of `points`, its values in order.
    values: Vec<T>,
    unconverged: Vec<u32>,
    has: Vec<bool>,
}

impl<T> Default for Frozen<T> {
    fn default() -> Self {
        Frozen {
            seen: 0,
            points: Vec::new(),
            values: Vec::new(),
            unconverged: Vec::new(),
            has: Vec::new(),
        }
    }
}

impl<T: Real> Frozen<T> {
    /// Keep the points the hooks have newly stopped (with their counts of unconverged solves,
    /// where `unconverged` has them: the block path's); the number stopped.
    pub(super) fn take(
        &mut self,
        at: &Points<T>,
        unconverged: &[u32],
        hooks: &[Box<dyn BlockObserver<T> + '_>],
        m: usize,
    ) -> usize {
        let Some((stopped, count)) = hooks.iter().find_map(|h| h.stopped()) else {
            return 0;
        };
        if count == self.seen {
            return count;
        }
        let b = at.n;
        self.has.resize(b, false);
        for i in 0..m {
            if !stopped[i] || self.has[i] {
                continue;
            }
            self.has[i] = true;
            self.points.push(i);
            self.unconverged.extend(unconverged.get(i));
            for v in [&at.q, &at.p, &at.eq, &at.ep] {
                self.values.extend((0..v.len() / b).map(|k| v[k * b + i]));
            }
        }
        self.seen = count;
        count
    }

    /// Put the stopped points' values back.
    pub(super) fn restore(&self, at: &mut Points<T>, unconverged: &mut [u32]) {
        if self.points.is_empty() {
            return;
        }
        let b = at.n;
        let mut next = 0;
        for (j, &i) in self.points.iter().enumerate() {
            if let Some(u) = unconverged.get_mut(i) {
                *u = self.unconverged[j];
            }
            for v in [&mut at.q, &mut at.p, &mut at.eq, &mut at.ep] {
                for k in 0..v.len() / b {
                    v[k * b + i] = self.values[next];
                    next += 1;
                }
            }
        }
    }
}
