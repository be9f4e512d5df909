//! Where an engine keeps a run's crossings (`SectionStore`), and their rows in section.npy.
//!
//! The store grows with the crossings found, not with points × cap: per point only the count
//! seen is held, and each kept crossing is appended to the list of the block of points it
//! belongs to (the CPU engine's blocks, each advanced by one thread), in the order found. The
//! readers take them by point and crossing number (`Crossings::kept`). (A store of points ×
//! `--section-max` slots, allocated and zeroed up front, made a section 6–12× a plain run.)

use super::Section;
use crate::float::Real;

/// The crossings of N points so far: per point the count seen (also those past the cap), and
/// the first `max` crossings' step index k and values (s, then `Section::others`), so the
/// crossing lies at t = (k + s)·h.
#[derive(Debug, Clone)]
pub struct SectionStore<T> {
    pub section: Section,
    pub n: usize,
    /// Steps advanced since t = 0: the next step's index.
    pub steps: u64,
    pub seen: Vec<u64>,
    /// Points per list: list j holds the kept crossings of points j·span .. (j + 1)·span.
    span: usize,
    lists: Vec<Kept<T>>,
}

/// Kept crossings in the order found: the point's index in the store, the step index, and
/// `Section::record_values` values each.
#[derive(Debug, Clone, Default)]
pub struct Kept<T> {
    point: Vec<usize>,
    k: Vec<u64>,
    vals: Vec<T>,
}

/// One kept crossing, as the readers take it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Record<'a, T> {
    pub point: usize,
    /// The crossing's number at its point, from 0.
    pub number: usize,
    pub k: u64,
    pub values: &'a [T],
}

/// The crossings in f64, as the run writes them.
pub type Crossings = SectionStore<f64>;

/// One block's share of a store (`SectionStore::blocks`): its points' counts and its list.
pub struct BlockRecords<'a, T> {
    pub seen: &'a mut [u64],
    /// The block's first point's index in the store.
    first: usize,
    kept: &'a mut Kept<T>,
}

impl<T: Real> SectionStore<T> {
    pub fn new(section: Section, n: usize) -> Self {
        SectionStore {
            section,
            n,
            steps: 0,
            seen: vec![0; n],
            span: n.max(1),
            lists: vec![Kept::default()],
        }
    }

    /// Record slots per point.
    pub fn max(&self) -> usize {
        self.section.max as usize
    }

    /// Disjoint shares of blocks of `b` points, in order.
    pub fn blocks(&mut self, b: usize) -> Vec<BlockRecords<'_, T>> {
        let b = b.max(1);
        if self.span != b {
            self.regroup(b);
        }
        self.seen
            .chunks_mut(b)
            .zip(self.lists.iter_mut())
            .enumerate()
            .map(|(j, (seen, kept))| BlockRecords {
                seen,
                first: j * b,
                kept,
            })
            .collect()
    }

    /// The lists again for blocks of `span` points.
    fn regroup(&mut self, span: usize) {
        let mut lists = vec![Kept::default(); self.n.div_ceil(span).max(1)];
        for r in self.kept() {
            let list = &mut lists[r.point / span];
            list.point.push(r.point);
            list.k.push(r.k);
            list.vals.extend_from_slice(r.values);
        }
        self.lists = lists;
        self.span = span;
    }

    /// The kept crossings by point, and at each point in the order found.
    pub fn kept(&self) -> Vec<Record<'_, T>> {
        let w = self.section.record_values();
        let mut out = Vec::with_capacity(self.lists.iter().map(|l| l.k.len()).sum());
        for list in &self.lists {
            // A block's list holds its points' crossings interleaved in time: sorted stably
            // by point, each point's stay in the order found.
            let mut order: Vec<usize> = (0..list.k.len()).collect();
            order.sort_by_key(|&j| list.point[j]);
            let mut at = (usize::MAX, 0);
            for j in order {
                let point = list.point[j];
                at = if at.0 == point {
                    (point, at.1 + 1)
                } else {
                    (point, 0)
                };
                out.push(Record {
                    point,
                    number: at.1,
                    k: list.k[j],
                    values: &list.vals[j * w..(j + 1) * w],
                });
            }
        }
        out
    }

    /// The same crossings in f64.
    pub fn to_f64(&self) -> Crossings {
        SectionStore {
            section: self.section,
            n: self.n,
            steps: self.steps,
            seen: self.seen.clone(),
            span: self.span,
            lists: self
                .lists
                .iter()
                .map(|l| Kept {
                    point: l.point.clone(),
                    k: l.k.clone(),
                    vals: l.vals.iter().map(|v| v.to_f64()).collect(),
                })
                .collect(),
        }
    }

    /// The stores of consecutive slices of points as one, in point order.
    pub fn concat(parts: Vec<Self>) -> Option<Self> {
        let mut it = parts.into_iter();
        let first = it.next()?;
        let mut all = SectionStore::new(first.section, 0);
        all.steps = first.steps;
        let mut kept = Kept::default();
        for p in std::iter::once(first).chain(it) {
            let offset = all.n;
            for l in p.lists {
                kept.point.extend(l.point.iter().map(|i| i + offset));
                kept.k.extend(l.k);
                kept.vals.extend(l.vals);
            }
            all.n += p.n;
            all.seen.extend(p.seen);
        }
        all.span = all.n.max(1);
        all.lists = vec![kept];
        Some(all)
    }

    /// Crossings seen past the cap, and the points that had any.
    pub fn over_cap(&self) -> (u64, usize) {
        let max = self.section.max as u64;
        let over = self.seen.iter().map(|&s| s.saturating_sub(max));
        (over.clone().sum(), over.filter(|&o| o > 0).count())
    }
}

/// Equal counts and equal kept crossings, however they are grouped.
impl<T: Real> PartialEq for SectionStore<T> {
    fn eq(&self, other: &Self) -> bool {
        self.section == other.section
            && self.n == other.n
            && self.steps == other.steps
            && self.seen == other.seen
            && self.kept() == other.kept()
    }
}

impl<'a, T: Real> BlockRecords<'a, T> {
    /// Count a crossing of the block's point `i` at step `k` and keep it while under `max`.
    pub fn push(&mut self, i: usize, max: usize, k: u64, values: &[T]) {
        let r = self.seen[i] as usize;
        self.seen[i] += 1;
        if r < max {
            self.kept.point.push(self.first + i);
            self.kept.k.push(k);
            self.kept.vals.extend_from_slice(values);
        }
    }
}

impl Crossings {
    /// The rows of section.npy for a run of step `dt` whose first point is `first`: per point in
    /// order, per kept crossing: point index, crossing number (from 0), t = (k + s)·dt, and
    /// the other coordinates.
    pub fn rows(&self, dt: f64, first: usize) -> (usize, Vec<f64>) {
        let kept = self.kept();
        let mut data = Vec::with_capacity(kept.len() * (2 + self.section.record_values()));
        for r in &kept {
            data.extend([
                (first + r.point) as f64,
                r.number as f64,
                (r.k as f64 + r.values[0]) * dt,
            ]);
            data.extend_from_slice(&r.values[1..]);
        }
        (kept.len(), data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section(max: u32) -> Section {
        let hh = crate::system::System::new("henon-heiles", &Default::default()).unwrap();
        Section::parse("q1=0", Some(max), &hh).unwrap()
    }

    /// Crossings found interleaved in time come back by point, each point's in the order
    /// found and numbered from 0; past the cap they are counted, not kept; regrouped for other
    /// blocks, and concatenated, they read the same.
    #[test]
    fn crossings_read_back_by_point_whatever_the_blocks() {
        let sec = section(2);
        let w = sec.record_values();
        let mut st = SectionStore::<f64>::new(sec, 5);
        // (point, step) in the order found, two blocks of 3 points
        let found = [(2, 1), (0, 2), (2, 3), (4, 3), (2, 4), (0, 6), (3, 7)];
        for (point, k) in found {
            let mut blocks = st.blocks(3);
            let values = vec![k as f64 / 10.0; w];
            blocks[point / 3].push(point % 3, 2, k, &values);
        }
        let want = [
            (0, 0, 2),
            (0, 1, 6),
            (2, 0, 1),
            (2, 1, 3),
            (3, 0, 7),
            (4, 0, 3),
        ];
        let read = |st: &SectionStore<f64>| -> Vec<(usize, usize, u64)> {
            st.kept().iter().map(|r| (r.point, r.number, r.k)).collect()
        };
        assert_eq!(read(&st), want);
        assert_eq!(st.seen, [2, 0, 3, 1, 1]);
        assert_eq!(st.over_cap(), (1, 1));
        assert!(st.kept().iter().all(|r| r.values[0] == r.k as f64 / 10.0));
        let before = st.clone();
        st.blocks(2);
        assert_eq!(read(&st), want);
        assert_eq!(st, before);
        let (rows, data) = st.rows(0.5, 10);
        assert_eq!(rows, 6);
        // point 10 + 0, crossing 0, t = (2 + 0.2)·0.5
        assert_eq!(&data[..3], &[10.0, 0.0, 1.1]);
        let halves = SectionStore::concat(vec![st.clone(), st.clone()]).unwrap();
        assert_eq!(halves.n, 10);
        let mut twice = want.to_vec();
        twice.extend(want.iter().map(|&(p, r, k)| (p + 5, r, k)));
        assert_eq!(read(&halves), twice);
    }
}
