//! The structure-of-arrays state of an ensemble (`State<T>`): N points with d degrees of
//! freedom, component-major, with optional tangent columns and per-point unconverged counts.
//! Engines advance it, measurements read it, `ensemble` generates it and `npy` writes it.

use crate::float::Real;

mod bytes;

/// N points with d degrees of freedom, component-major: `q[k*n + i]`, `p[k*n + i]`
/// (the layout the GPU buffers use, so loads of neighbouring threads coalesce).
///
/// With `nt` tangent columns (the tangent map DΦⁿ, `--tangent`), q and p carry d·(1 + nt)
/// components: the point itself (k < d), then column j of the tangent matrix at components
/// d·(1 + j) + k, its q-rows in `q` and its p-rows in `p`. Engines advance all components alike;
/// everything that reads only `k < d` sees the plain state.
#[derive(Debug, Clone, PartialEq)]
pub struct State<T> {
    pub n: usize,
    pub d: usize,
    pub nt: usize,
    pub q: Vec<T>,
    pub p: Vec<T>,
    /// Per point: how many implicit solves (fixed-point iterations of the symplectic Euler /
    /// Verlet stages for non-separable H, implicit midpoint) stopped at the iteration cap
    /// without converging since t = 0. Zero for explicit kernels.
    pub unconverged: Vec<u32>,
    /// Compensated summation (`--compensated`, `method::compensated`): per component of q and
    /// of p (same layout), the rounding error the last update of that component left behind,
    /// carried into the next one. The point's value is q + eq (what `q_f64`, `point_f64` and
    /// `primal_f64` read). Empty when the run is not compensated.
    pub eq: Vec<T>,
    pub ep: Vec<T>,
    /// `--chaos`: per point, the chaos indicators' accumulators (`chaos::WIDTH` of them,
    /// component-major like q: `[c·n + i]`), advanced by the engines with the deviation
    /// vector that is then the state's one tangent column. Empty otherwise.
    pub chaos: Vec<T>,
}

impl<T: Real> State<T> {
    pub fn zeros(n: usize, d: usize) -> Self {
        State {
            n,
            d,
            nt: 0,
            q: vec![T::ZERO; n * d],
            p: vec![T::ZERO; n * d],
            unconverged: vec![0; n],
            eq: Vec::new(),
            ep: Vec::new(),
            chaos: Vec::new(),
        }
    }

    /// Whether the state carries compensated summation's error terms.
    pub fn compensated(&self) -> bool {
        !self.eq.is_empty()
    }

    /// The same state with zero error terms added (when it has none) or dropped: what an
    /// engine running with (or without) `--compensated` starts from.
    pub fn with_compensation(mut self, on: bool) -> Self {
        if on && !self.compensated() {
            self.eq = vec![T::ZERO; self.q.len()];
            self.ep = vec![T::ZERO; self.p.len()];
        } else if !on {
            self.eq = Vec::new();
            self.ep = Vec::new();
        }
        self
    }

    /// Component `idx` of q (`[k·n + i]`) in f64, with its carried error when compensated: for
    /// f32 the sum is exact in f64, so a compensated f32 state is read to about 48 bits.
    #[inline]
    pub fn q_f64(&self, idx: usize) -> f64 {
        self.q[idx].to_f64() + self.eq.get(idx).map_or(0.0, |e| e.to_f64())
    }

    /// Component `idx` of p in f64, with its carried error (`q_f64`).
    #[inline]
    pub fn p_f64(&self, idx: usize) -> f64 {
        self.p[idx].to_f64() + self.ep.get(idx).map_or(0.0, |e| e.to_f64())
    }

    /// Components per point in q (and in p): d·(1 + nt).
    pub fn comps(&self) -> usize {
        self.d * (1 + self.nt)
    }

    /// Accumulators per point in `chaos` (0 without `--chaos`).
    pub fn chaos_width(&self) -> usize {
        self.chaos.len().checked_div(self.n).unwrap_or(0)
    }

    /// The same points with one deviation vector appended as the one tangent column, point
    /// i's 2d components (q then p) written by `start(i, row)`, and zero chaos accumulators
    /// (`--chaos`, `crate::chaos`; `chaos::Deviation::write` writes a run's).
    pub fn with_deviation(&self, start: impl FnMut(usize, &mut [T])) -> State<T> {
        self.with_deviations(1, crate::chaos::WIDTH, start)
    }

    /// The same points with `vectors` deviation vectors appended as tangent columns, point
    /// i's `vectors`·2d components (vector j's q then p at [j·2d, (j + 1)·2d)) written by
    /// `start(i, row)`, and `width` zero accumulators per point (`chaos::Layout`).
    pub fn with_deviations(
        &self,
        vectors: usize,
        width: usize,
        mut start: impl FnMut(usize, &mut [T]),
    ) -> State<T> {
        let (n, d) = (self.n, self.d);
        let mut s = State {
            nt: vectors,
            q: vec![T::ZERO; (1 + vectors) * n * d],
            p: vec![T::ZERO; (1 + vectors) * n * d],
            chaos: vec![T::ZERO; width * n],
            ..State::zeros(n, d)
        };
        s.unconverged.clone_from(&self.unconverged);
        s.q[..n * d].copy_from_slice(&self.q[..n * d]);
        s.p[..n * d].copy_from_slice(&self.p[..n * d]);
        let mut row = vec![T::ZERO; vectors * 2 * d];
        for i in 0..n {
            start(i, &mut row);
            for (j, v) in row.chunks(2 * d).enumerate() {
                for k in 0..d {
                    s.q[(d * (1 + j) + k) * n + i] = v[k];
                    s.p[(d * (1 + j) + k) * n + i] = v[d + k];
                }
            }
        }
        s
    }

    /// The same state with `w` more carried words per point after those it has, all zero (a
    /// per-step observer's, `observe`).
    pub fn with_words(mut self, w: usize) -> State<T> {
        self.chaos.resize(self.chaos.len() + w * self.n, T::ZERO);
        self
    }

    /// The same points with the 2d tangent columns appended, each set to the identity
    /// (DΦ⁰ = I): column j is the unit vector e_j of (q1..qd, p1..pd).
    pub fn with_tangent(&self) -> State<T> {
        let (n, d) = (self.n, self.d);
        let nt = 2 * d;
        let mut s = State {
            n,
            d,
            nt,
            q: vec![T::ZERO; n * d * (1 + nt)],
            p: vec![T::ZERO; n * d * (1 + nt)],
            unconverged: self.unconverged.clone(),
            eq: Vec::new(),
            ep: Vec::new(),
            chaos: Vec::new(),
        };
        s.q[..n * d].copy_from_slice(&self.q[..n * d]);
        s.p[..n * d].copy_from_slice(&self.p[..n * d]);
        for j in 0..nt {
            let (arr, k) = if j < d {
                (&mut s.q, j)
            } else {
                (&mut s.p, j - d)
            };
            let c = d * (1 + j) + k;
            arr[c * n..(c + 1) * n].fill(T::ONE);
        }
        let mut s = s.with_compensation(self.compensated());
        if self.compensated() {
            s.eq[..n * d].copy_from_slice(&self.eq[..n * d]);
            s.ep[..n * d].copy_from_slice(&self.ep[..n * d]);
        }
        s
    }

    /// The points alone (no tangent columns), in f64 (with the carried errors folded in).
    pub fn primal_f64(&self) -> State<f64> {
        let m = self.n * self.d;
        State {
            n: self.n,
            d: self.d,
            nt: 0,
            q: (0..m).map(|i| self.q_f64(i)).collect(),
            p: (0..m).map(|i| self.p_f64(i)).collect(),
            unconverged: self.unconverged.clone(),
            eq: Vec::new(),
            ep: Vec::new(),
            chaos: Vec::new(),
        }
    }

    /// Points `idx` of this state (all components), in that order.
    pub fn select(&self, idx: &[usize]) -> State<T> {
        let (n, c) = (self.n, self.comps());
        let m = idx.len();
        let mut s = State {
            n: m,
            d: self.d,
            nt: self.nt,
            q: vec![T::ZERO; m * c],
            p: vec![T::ZERO; m * c],
            unconverged: idx.iter().map(|&i| self.unconverged[i]).collect(),
            eq: Vec::new(),
            ep: Vec::new(),
            chaos: Vec::new(),
        }
        .with_compensation(self.compensated());
        let w = self.chaos_width();
        s.chaos = (0..w * m)
            .map(|at| self.chaos[(at / m) * n + idx[at % m]])
            .collect();
        let pairs = s.vectors_mut().into_iter().zip(self.vectors());
        for (dst, src) in pairs {
            for k in 0..c {
                for (j, &i) in idx.iter().enumerate() {
                    dst[k * m + j] = src[k * n + i];
                }
            }
        }
        s
    }

    /// Write the points of `from` (all components, its carried words too) back as points `idx`
    /// of this state: the inverse of `select`.
    pub fn put(&mut self, idx: &[usize], from: &State<T>) {
        let (n, m, c) = (self.n, from.n, self.comps());
        for (j, &i) in idx.iter().enumerate() {
            self.unconverged[i] = from.unconverged[j];
        }
        for k in 0..self.chaos_width() {
            for (j, &i) in idx.iter().enumerate() {
                self.chaos[k * n + i] = from.chaos[k * m + j];
            }
        }
        let pairs = self.vectors_mut().into_iter().zip(from.vectors());
        for (dst, src) in pairs {
            for k in 0..c {
                for (j, &i) in idx.iter().enumerate() {
                    dst[k * n + i] = src[k * m + j];
                }
            }
        }
    }

    /// Points `range` of this state (a shard's or a device's slice): each component's run
    /// copied whole.
    pub fn range(&self, range: std::ops::Range<usize>) -> State<T> {
        let (n, c, m) = (self.n, self.comps(), range.len());
        let mut s = State {
            n: m,
            d: self.d,
            nt: self.nt,
            q: vec![T::ZERO; m * c],
            p: vec![T::ZERO; m * c],
            unconverged: self.unconverged[range.clone()].to_vec(),
            eq: Vec::new(),
            ep: Vec::new(),
            chaos: Vec::new(),
        }
        .with_compensation(self.compensated());
        s.chaos = (0..self.chaos_width())
            .flat_map(|k| &self.chaos[k * n + range.start..k * n + range.end])
            .copied()
            .collect();
        for (dst, src) in s.vectors_mut().into_iter().zip(self.vectors()) {
            for k in 0..c {
                dst[k * m..(k + 1) * m]
                    .copy_from_slice(&src[k * n + range.start..k * n + range.end]);
            }
        }
        s
    }

    /// States of the same layout one after the other (shards' or devices' slices, in order).
    pub fn concat(parts: &[&State<T>]) -> State<T> {
        let first = parts[0];
        let (d, nt, c) = (first.d, first.nt, first.comps());
        let m = parts.iter().map(|s| s.n).sum();
        let mut s = State {
            n: m,
            d,
            nt,
            q: vec![T::ZERO; m * c],
            p: vec![T::ZERO; m * c],
            unconverged: parts
                .iter()
                .flat_map(|s| s.unconverged.iter().copied())
                .collect(),
            eq: Vec::new(),
            ep: Vec::new(),
            chaos: Vec::new(),
        }
        .with_compensation(first.compensated());
        s.chaos = (0..first.chaos_width())
            .flat_map(|k| {
                parts
                    .iter()
                    .flat_map(move |p| &p.chaos[k * p.n..(k + 1) * p.n])
            })
            .copied()
            .collect();
        let mut at = 0;
        for part in parts {
            assert_eq!(
                (part.d, part.nt, part.compensated(), part.chaos_width()),
                (d, nt, s.compensated(), first.chaos_width())
            );
            for (dst, src) in s.vectors_mut().into_iter().zip(part.vectors()) {
                for k in 0..c {
                    dst[k * m + at..k * m + at + part.n]
                        .copy_from_slice(&src[k * part.n..(k + 1) * part.n]);
                }
            }
            at += part.n;
        }
        s
    }

    /// q, p and, when compensated, eq and ep: the per-component vectors, in that order.
    fn vectors(&self) -> Vec<&[T]> {
        let mut v = vec![&self.q[..], &self.p[..]];
        if self.compensated() {
            v.extend([&self.eq[..], &self.ep[..]]);
        }
        v
    }

    fn vectors_mut(&mut self) -> Vec<&mut [T]> {
        let on = self.compensated();
        let mut v = vec![&mut self.q[..], &mut self.p[..]];
        if on {
            v.extend([&mut self.eq[..], &mut self.ep[..]]);
        }
        v
    }

    /// Interleave two states point by point: `from_a[i]` says whether output point i is the
    /// next point of `a` or of `b` (both keep their order).
    pub fn merge(a: &State<T>, b: &State<T>, from_a: &[bool]) -> State<T> {
        assert_eq!((a.d, a.nt), (b.d, b.nt));
        let m = from_a.len();
        assert_eq!(m, a.n + b.n);
        let c = a.comps();
        let mut s = State {
            n: m,
            d: a.d,
            nt: a.nt,
            q: vec![T::ZERO; m * c],
            p: vec![T::ZERO; m * c],
            unconverged: vec![0; m],
            eq: Vec::new(),
            ep: Vec::new(),
            chaos: Vec::new(),
        }
        .with_compensation(a.compensated() || b.compensated());
        let w = a.chaos_width();
        s.chaos = vec![T::ZERO; w * m];
        let (mut ia, mut ib) = (0, 0);
        for (j, &take_a) in from_a.iter().enumerate() {
            let (src, i) = if take_a { (a, ia) } else { (b, ib) };
            s.unconverged[j] = src.unconverged[i];
            for k in 0..w {
                s.chaos[k * m + j] = src.chaos[k * src.n + i];
            }
            for k in 0..c {
                let at = k * src.n + i;
                s.q[k * m + j] = src.q[at];
                s.p[k * m + j] = src.p[at];
                if s.compensated() && src.compensated() {
                    s.eq[k * m + j] = src.eq[at];
                    s.ep[k * m + j] = src.ep[at];
                }
            }
            if take_a {
                ia += 1;
            } else {
                ib += 1;
            }
        }
        s
    }

    /// Convert precision (f64 generators → run precision, f32 states → f64 measurements).
    pub fn convert<U: Real>(&self) -> State<U> {
        State {
            n: self.n,
            d: self.d,
            nt: self.nt,
            q: self.q.iter().map(|x| U::from_f64(x.to_f64())).collect(),
            p: self.p.iter().map(|x| U::from_f64(x.to_f64())).collect(),
            unconverged: self.unconverged.clone(),
            eq: self.eq.iter().map(|x| U::from_f64(x.to_f64())).collect(),
            ep: self.ep.iter().map(|x| U::from_f64(x.to_f64())).collect(),
            chaos: self.chaos.iter().map(|x| U::from_f64(x.to_f64())).collect(),
        }
    }

    /// The state in precision `U` as a compensated run starts it: every component (q + eq in
    /// f64) split into the nearest `U` and, in its carried error, what rounding to it lost
    /// (`float::split_f64`). An f32 run so starts from the f64 points to about 48 bits
    /// rather than from their f32 roundings, which are off a discrete map's constraint by
    /// a rounding (the vertical disk's energy jumps by 10× f64's error at the first step).
    pub fn convert_pairs<U: Real>(&self) -> State<U> {
        // `q_f64`'s sum, with the choice between a carried error and none made once per
        // vector: per element (`eq.get(i)`) it was vectorised into masked loads from an empty
        // vector's dangling pointer, which processors never fault on but qemu's emulation of
        // them does (the portable test). `+ 0.0` keeps its arithmetic (−0 becomes +0).
        let pairs = |v: &[T], e: &[T]| -> (Vec<U>, Vec<U>) {
            let split = crate::float::split_f64::<U>;
            match e.is_empty() {
                true => v.iter().map(|x| split(x.to_f64() + 0.0)).unzip(),
                false => v
                    .iter()
                    .zip(e)
                    .map(|(x, e)| split(x.to_f64() + e.to_f64()))
                    .unzip(),
            }
        };
        let (q, eq) = pairs(&self.q, &self.eq);
        let (p, ep) = pairs(&self.p, &self.ep);
        State {
            n: self.n,
            d: self.d,
            nt: self.nt,
            q,
            p,
            unconverged: self.unconverged.clone(),
            eq,
            ep,
            chaos: self.chaos.iter().map(|x| U::from_f64(x.to_f64())).collect(),
        }
    }

    /// Point i as f64 (q1..qd, p1..pd) into the given buffers, carried errors folded in.
    #[inline]
    pub fn point_f64(&self, i: usize, q: &mut [f64], p: &mut [f64]) {
        for k in 0..self.d {
            q[k] = self.q_f64(k * self.n + i);
            p[k] = self.p_f64(k * self.n + i);
        }
    }

    /// Build from rows (q1..qd, p1..pd) per point.
    pub fn from_rows(rows: &[Vec<f64>], d: usize) -> Self {
        let n = rows.len();
        let mut s = State::zeros(n, d);
        for (i, row) in rows.iter().enumerate() {
            for k in 0..d {
                s.q[k * n + i] = T::from_f64(row[k]);
                s.p[k * n + i] = T::from_f64(row[d + k]);
            }
        }
        s
    }
}

/// The words `--stop-when` carries per point in `State::chaos` (`observe::stop`), at a column
/// the run knows (`RunConfig::stop_column`), and their readers.
pub mod stop_words {
    use super::State;
    use crate::float::Real;

    /// Carried words per point: the condition (index + 1, 0 while running), then the point's
    /// steps taken, as `LOW` (below 2¹⁶) and `HIGH` (the multiples of 2¹⁶).
    pub const WIDTH: usize = 3;
    pub const CONDITION: usize = 0;
    pub const LOW: usize = 1;
    pub const HIGH: usize = 2;

    /// One stopped point's record (`stops.npy`'s row): its index in the state, step and
    /// condition (0-based).
    #[derive(Debug, Clone, Copy, PartialEq)]
    pub struct Stop {
        pub point: usize,
        pub step: u64,
        pub condition: u32,
    }

    /// The records of the points of `s` that have stopped, in point order, from the stop words
    /// at column `column` of `State::chaos`.
    pub fn stops_of<T: Real>(s: &State<T>, column: usize) -> Vec<Stop> {
        let n = s.n;
        let word = |w: usize, i: usize| s.chaos[(column + w) * n + i].to_f64();
        (0..n)
            .filter(|&i| word(CONDITION, i) > 0.0)
            .map(|i| Stop {
                point: i,
                step: word(HIGH, i) as u64 * 65536 + word(LOW, i) as u64,
                condition: word(CONDITION, i) as u32 - 1,
            })
            .collect()
    }

    /// Whether point `i` of `s` has stopped (stop words at `column` of `State::chaos`).
    #[inline]
    pub fn stopped_at<T: Real>(s: &State<T>, column: usize, i: usize) -> bool {
        s.chaos[(column + CONDITION) * s.n + i] != T::ZERO
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Slices concatenated give the state back, and the bytes round-trip, with tangent
    /// columns, carried errors and unconverged counts.
    #[test]
    fn slices_concatenate_and_bytes_round_trip() {
        let mut s = State::<f32>::zeros(7, 1)
            .with_tangent()
            .with_compensation(true);
        for (i, x) in s.q.iter_mut().chain(s.p.iter_mut()).enumerate() {
            *x = i as f32 * 0.5;
        }
        for (i, x) in s.eq.iter_mut().enumerate() {
            *x = i as f32 * 1e-9;
        }
        s.unconverged[3] = 2;
        let parts = [s.range(0..2), s.range(2..3), s.range(3..7)];
        assert_eq!(State::concat(&[&parts[0], &parts[1], &parts[2]]), s);
        assert_eq!(s.range(2..6), s.select(&[2, 3, 4, 5]));
        assert_eq!(State::<f32>::from_bytes(&s.to_bytes()), Some(s.clone()));
        let bytes = s.to_bytes();
        assert_eq!(State::<f32>::from_bytes(&bytes[..bytes.len() - 1]), None);
        assert_eq!(State::<f64>::from_bytes(&bytes), None);
    }

    /// An f64 state's f32 pairs hold each component to about 48 bits (the f32 rounding alone
    /// to 24); in f64 the carried errors are zero and the values the state's own.
    #[test]
    fn pairs_carry_what_rounding_to_f32_lost() {
        let mut s = State::<f64>::zeros(5, 2).with_tangent();
        for (i, x) in s.q.iter_mut().chain(s.p.iter_mut()).enumerate() {
            *x = (i as f64 + 1.0).sqrt() * 300.0;
        }
        s.unconverged[1] = 3;
        let pairs = s.convert_pairs::<f32>();
        assert!(pairs.compensated() && pairs.nt == s.nt && pairs.unconverged == s.unconverged);
        assert_eq!(pairs.q, s.convert::<f32>().q);
        for i in 0..s.q.len() {
            for (x, paired) in [(s.q[i], pairs.q_f64(i)), (s.p[i], pairs.p_f64(i))] {
                assert!((paired - x).abs() <= x * 2f64.powi(-47), "{x} {paired}");
            }
            assert!(pairs.eq[i] != 0.0 || s.q[i] == pairs.q[i] as f64);
        }
        let same = s.convert_pairs::<f64>();
        assert_eq!((same.q, same.p), (s.q.clone(), s.p.clone()));
        assert!(same.eq.iter().chain(&same.ep).all(|&e| e == 0.0));
    }
}
