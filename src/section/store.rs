//! Where an engine keeps a run's crossings (`SectionStore`), and their rows in section.npy.

use super::Section;
use crate::float::Real;

/// The crossings of N points so far: per point the count seen (also those past the cap) and
/// the first `max` crossings' step index k and values (s, then `Section::others`), so the
/// crossing lies at t = (k + s)·h.
#[derive(Debug, Clone, PartialEq)]
pub struct SectionStore<T> {
    pub section: Section,
    pub n: usize,
    /// Steps advanced since t = 0: the next step's index.
    pub steps: u64,
    pub seen: Vec<u64>,
    /// Point i's r-th crossing at `i·max + r`.
    pub ks: Vec<u64>,
    /// Point i's r-th crossing's values at `(i·max + r)·2d ..`.
    pub vals: Vec<T>,
}

/// The crossings in f64, as the run writes them.
pub type Crossings = SectionStore<f64>;

/// One block's share of a store (`SectionStore::blocks`): its points' counts and records.
pub struct BlockRecords<'a, T> {
    pub seen: &'a mut [u64],
    pub ks: &'a mut [u64],
    pub vals: &'a mut [T],
}

impl<T: Real> SectionStore<T> {
    pub fn new(section: Section, n: usize) -> Self {
        let max = section.max as usize;
        SectionStore {
            section,
            n,
            steps: 0,
            seen: vec![0; n],
            ks: vec![0; n * max],
            vals: vec![T::ZERO; n * max * section.record_values()],
        }
    }

    /// Record slots per point.
    pub fn max(&self) -> usize {
        self.section.max as usize
    }

    /// Disjoint shares of blocks of `b` points, in order.
    pub fn blocks(&mut self, b: usize) -> Vec<BlockRecords<'_, T>> {
        let (max, w) = (self.max(), self.section.record_values());
        self.seen
            .chunks_mut(b)
            .zip(self.ks.chunks_mut(b * max))
            .zip(self.vals.chunks_mut(b * max * w))
            .map(|((seen, ks), vals)| BlockRecords { seen, ks, vals })
            .collect()
    }

    /// The same crossings in f64.
    pub fn to_f64(&self) -> Crossings {
        SectionStore {
            section: self.section,
            n: self.n,
            steps: self.steps,
            seen: self.seen.clone(),
            ks: self.ks.clone(),
            vals: self.vals.iter().map(|v| v.to_f64()).collect(),
        }
    }

    /// The stores of consecutive slices of points as one, in point order.
    pub fn concat(parts: Vec<Self>) -> Option<Self> {
        let mut it = parts.into_iter();
        let mut all = it.next()?;
        for p in it {
            all.n += p.n;
            all.seen.extend(p.seen);
            all.ks.extend(p.ks);
            all.vals.extend(p.vals);
        }
        Some(all)
    }

    /// Crossings seen past the cap, and the points that had any.
    pub fn over_cap(&self) -> (u64, usize) {
        let max = self.section.max as u64;
        let over = self.seen.iter().map(|&s| s.saturating_sub(max));
        (over.clone().sum(), over.filter(|&o| o > 0).count())
    }
}

impl<'a, T: Real> BlockRecords<'a, T> {
    /// Count a crossing of the block's point `i` at step `k` and keep it while under `max`.
    pub fn push(&mut self, i: usize, max: usize, k: u64, values: &[T]) {
        let r = self.seen[i] as usize;
        self.seen[i] += 1;
        if r < max {
            let at = i * max + r;
            self.ks[at] = k;
            self.vals[at * values.len()..(at + 1) * values.len()].copy_from_slice(values);
        }
    }
}

impl Crossings {
    /// The rows of section.npy for a run of step `dt` whose first point is `first`: per point in
    /// order, per kept crossing: point index, crossing number (from 0), t = (k + s)·dt, and
    /// the other coordinates.
    pub fn rows(&self, dt: f64, first: usize) -> (usize, Vec<f64>) {
        let (max, w) = (self.max(), self.section.record_values());
        let mut data = Vec::new();
        let mut rows = 0;
        for i in 0..self.n {
            for r in 0..(self.seen[i] as usize).min(max) {
                let at = i * max + r;
                let v = &self.vals[at * w..(at + 1) * w];
                data.extend([
                    (first + i) as f64,
                    r as f64,
                    (self.ks[at] as f64 + v[0]) * dt,
                ]);
                data.extend_from_slice(&v[1..]);
                rows += 1;
            }
        }
        (rows, data)
    }
}
