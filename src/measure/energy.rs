//! Energy statistics per snapshot (PHYSICS.md §4). H is evaluated in f64 even for f32 states.
//! Non-finite points are counted and excluded, never propagated into the statistics.

use rayon::prelude::*;

use crate::float::Real;
use crate::state::State;
use crate::system::System;

/// |H(z0)| below this is "too small to divide by": such points are left out of the relative columns.
pub const REL_ENERGY_FLOOR: f64 = 1e-12;

/// A finite point has escaped when |H − H(z0)| > `ESCAPE_FACTOR` · (1 + |H(z0)|): its energy
/// has moved a thousand times its own size (or a thousand energy units where H(z0) ≈ 0), which
/// no integrator that resolves the motion does, so the point has left the bounded region the
/// method was run for (e.g. Hénon–Heiles above H = 1/6). Non-finite points count as escaped too
/// (`EnergyRow::escaped`). The threshold only undercounts: a slow escape is counted once its
/// energy error is that large.
pub const ESCAPE_FACTOR: f64 = 1e3;

/// Whether a finite point with energy `h` and initial energy `h0` has escaped (`ESCAPE_FACTOR`).
pub fn has_escaped(h: f64, h0: f64) -> bool {
    (h - h0).abs() > ESCAPE_FACTOR * (1.0 + h0.abs())
}

/// Mergeable accumulator: count/mean/M2 (Chan et al.) for H, sums and maxima for the errors,
/// and the count of finite escaped points.
#[derive(Debug, Clone, Copy, Default)]
pub struct EnergyAccumulator {
    pub finite: u64,
    /// Finite points that escaped (`has_escaped`); meaningful only with `counts_escaped`.
    pub(super) escaped: u64,
    /// Whether escapes were counted: the host's accumulators count them, the device
    /// reduction's too (`from_parts(..).with_escaped(n)`); one built by `from_parts` alone
    /// does not, and a merge with one that does not leaves the count unknown.
    pub(super) counts_escaped: bool,
    pub(super) mean: f64,
    pub(super) m2: f64,
    pub(super) abs_err_sum: f64,
    pub(super) abs_err_max: f64,
    pub(super) rel_count: u64,
    pub(super) rel_err_sum: f64,
    pub(super) rel_err_max: f64,
    /// The largest absolute and relative errors of the finite points that have not escaped
    /// (meaningful with `counts_escaped`, like `escaped`): the figure of the points that
    /// stayed, which the escaped points' errors would otherwise hide.
    pub(super) stayed_abs_err_max: f64,
    pub(super) stayed_rel_err_max: f64,
}

impl EnergyAccumulator {
    pub fn push(&mut self, h: f64, h0: f64) {
        self.finite += 1;
        self.counts_escaped = true;
        let escaped = has_escaped(h, h0);
        self.escaped += u64::from(escaped);
        let delta = h - self.mean;
        self.mean += delta / self.finite as f64;
        self.m2 += delta * (h - self.mean);
        let err = (h - h0).abs();
        self.abs_err_sum += err;
        self.abs_err_max = self.abs_err_max.max(err);
        if !escaped {
            self.stayed_abs_err_max = self.stayed_abs_err_max.max(err);
        }
        if h0.abs() > REL_ENERGY_FLOOR {
            let rel = err / h0.abs();
            self.rel_count += 1;
            self.rel_err_sum += rel;
            self.rel_err_max = self.rel_err_max.max(rel);
            if !escaped {
                self.stayed_rel_err_max = self.stayed_rel_err_max.max(rel);
            }
        }
    }

    /// An accumulator from its parts (the GPU engine's device reduction, `gpu::energy`):
    /// `abs` and `rel` are [sum, max] of the absolute and relative errors. Escapes are not
    /// counted until `with_escaped` gives their number (rows then leave `escaped` empty).
    pub fn from_parts(
        finite: u64,
        mean: f64,
        m2: f64,
        abs: [f64; 2],
        rel_count: u64,
        rel: [f64; 2],
    ) -> Self {
        EnergyAccumulator {
            finite,
            escaped: 0,
            counts_escaped: false,
            mean,
            m2,
            abs_err_sum: abs[0],
            abs_err_max: abs[1],
            rel_count,
            rel_err_sum: rel[0],
            rel_err_max: rel[1],
            stayed_abs_err_max: 0.0,
            stayed_rel_err_max: 0.0,
        }
    }

    /// The same accumulator with `n` finite points counted as escaped (`has_escaped`) and
    /// `stayed` the [absolute, relative] error maxima of the others, as the device reduction
    /// finds them.
    pub fn with_escaped(mut self, n: u64, stayed: [f64; 2]) -> Self {
        self.escaped = n;
        self.counts_escaped = true;
        [self.stayed_abs_err_max, self.stayed_rel_err_max] = stayed;
        self
    }

    pub fn merge(self, o: Self) -> Self {
        if self.finite == 0 {
            return o;
        }
        if o.finite == 0 {
            return self;
        }
        let n = (self.finite + o.finite) as f64;
        let delta = o.mean - self.mean;
        EnergyAccumulator {
            finite: self.finite + o.finite,
            escaped: self.escaped + o.escaped,
            counts_escaped: self.counts_escaped && o.counts_escaped,
            mean: self.mean + delta * o.finite as f64 / n,
            m2: self.m2 + o.m2 + delta * delta * self.finite as f64 * o.finite as f64 / n,
            abs_err_sum: self.abs_err_sum + o.abs_err_sum,
            abs_err_max: self.abs_err_max.max(o.abs_err_max),
            rel_count: self.rel_count + o.rel_count,
            rel_err_sum: self.rel_err_sum + o.rel_err_sum,
            rel_err_max: self.rel_err_max.max(o.rel_err_max),
            stayed_abs_err_max: self.stayed_abs_err_max.max(o.stayed_abs_err_max),
            stayed_rel_err_max: self.stayed_rel_err_max.max(o.stayed_rel_err_max),
        }
    }
}

/// The energy columns of a snapshot (stats.csv; documented in docs/output-files.md), from
/// its accumulators folded in order: `Energy`, `Escaped` and `Stayed` (`columns`) write them.
#[derive(Debug, Clone, PartialEq)]
pub struct EnergyStats {
    pub points: u64,
    pub finite: u64,
    pub energy_mean: Option<f64>,
    pub energy_std: Option<f64>,
    pub abs_energy_err_mean: Option<f64>,
    pub abs_energy_err_max: Option<f64>,
    pub rel_energy_err_mean: Option<f64>,
    pub rel_energy_err_max: Option<f64>,
    /// Points that escaped (`ESCAPE_FACTOR`) or are not finite, counted on the host and on the
    /// device alike (empty where a part of the points was not counted).
    pub escaped: Option<u64>,
    /// Where points escaped, the figures of those that did not: the largest |H − H(z0)| and
    /// |H − H(z0)| / |H(z0)| over the finite points not counted in `escaped` at this snapshot
    /// (empty where escapes are not counted or no point stayed).
    pub stayed_abs_energy_err_max: Option<f64>,
    pub stayed_rel_energy_err_max: Option<f64>,
}

/// Points per statistics chunk. A chunk's energies are computed into one buffer
/// (`Hamiltonian::energy_block`), reduced by `EnergyAccumulator::from_chunk`, and the chunks'
/// accumulators are merged in index order: the statistics are the same bit for bit whatever
/// the thread count, and no n-sized vector of energies is ever allocated.
pub const CHUNK: usize = 4096;

/// Independent partial sums per chunk: each statistic keeps `LANES` of them (one vector
/// register), combined in a fixed order at the end of the chunk.
const LANES: usize = 8;

/// A function of the state measured on every point in f64, with the statistics of the energy
/// columns: H itself (`System`), or the modified Hamiltonian H̃ (`measure::modified`).
pub trait EnergyFunction: Sync {
    /// The values of points `first..first + out.len()` of a component-major state of `n`
    /// points (`Hamiltonian::energy_block`'s convention).
    fn energy_block<T: Real>(&self, q: &[T], p: &[T], n: usize, first: usize, out: &mut [f64]);
}

/// A system's energy at the run's step: H of a Hamiltonian system, a discrete map's energy
/// at step `dt` (`System::energy`).
pub struct RunEnergy<'a> {
    pub system: &'a System,
    pub dt: f64,
}

impl EnergyFunction for RunEnergy<'_> {
    fn energy_block<T: Real>(&self, q: &[T], p: &[T], n: usize, first: usize, out: &mut [f64]) {
        self.system.energy_block(self.dt, q, p, n, first, out)
    }
}

/// `e` (H by default: a `System`) of every point of the state (f64; a point with a non-finite
/// component gets a non-finite value).
pub fn energies<T: Real, E: EnergyFunction>(e: &E, s: &State<T>) -> Vec<f64> {
    let mut h = vec![0.0; s.n];
    h.par_chunks_mut(CHUNK).enumerate().for_each(|(c, out)| {
        energy_chunk(e, s, c * CHUNK, out);
    });
    h
}

/// H of points `first..first + out.len()`. A compensated state's points are q + eq, p + ep
/// (`State::q_f64`): the chunk is first gathered in f64 with its carried errors, since for f32
/// the rounded q, p alone are off by up to an ulp, as large as the energy errors measured.
fn energy_chunk<T: Real, E: EnergyFunction>(
    system: &E,
    s: &State<T>,
    first: usize,
    out: &mut [f64],
) {
    if !s.compensated() {
        return system.energy_block(&s.q, &s.p, s.n, first, out);
    }
    let len = out.len();
    let gather = |at: &dyn Fn(usize) -> f64| -> Vec<f64> {
        (0..s.d)
            .flat_map(|k| (first..first + len).map(move |i| k * s.n + i))
            .map(at)
            .collect()
    };
    let q = gather(&|idx| s.q_f64(idx));
    let p = gather(&|idx| s.p_f64(idx));
    system.energy_block(&q, &p, len, 0, out);
}

impl EnergyAccumulator {
    /// The accumulator of one chunk: energies `h` (finite ones only) against their initial
    /// values `h0`. Two passes over the chunk (the mean, then M2 = Σ (h − mean)²), each a
    /// branch-free loop over `LANES` partial sums with no division but the relative error's.
    pub fn from_chunk(h: &[f64], h0: &[f64]) -> Self {
        // At the engine's vector level (`simd`): every snapshot reduces every point here.
        crate::simd::dispatch(
            #[inline(always)]
            || Self::from_chunk_here(h, h0),
        )
    }

    /// `from_chunk` compiled into the caller's vector level.
    #[inline(always)]
    fn from_chunk_here(h: &[f64], h0: &[f64]) -> Self {
        assert_eq!(h.len(), h0.len());
        // Lane l takes the points l, l + LANES, …; the tail of the chunk is padded with
        // non-finite energies, which every statistic ignores.
        let (tail_h, tail_h0) = padded_tail(h, h0);
        // A chunk with no non-finite energy (the usual case) runs loops without the finiteness
        // selects, which LLVM otherwise turns into masked stores of the partial sums; both
        // loops do the same arithmetic on finite energies.
        let all_finite = h.iter().map(|x| !x.is_finite() as usize).sum::<usize>() == 0;
        let mut lanes = Lanes::default();
        for (hs, h0s) in h.chunks_exact(LANES).zip(h0.chunks_exact(LANES)) {
            let (hs, h0s) = (hs.try_into().unwrap(), h0s.try_into().unwrap());
            if all_finite {
                lanes.add::<false>(hs, h0s);
            } else {
                lanes.add::<true>(hs, h0s);
            }
        }
        lanes.add::<true>(&tail_h, &tail_h0);
        let finite = lanes.finite.iter().sum::<f64>() as u64;
        if finite == 0 {
            return EnergyAccumulator {
                counts_escaped: true,
                ..EnergyAccumulator::default()
            };
        }
        let mean = lanes.sum.iter().sum::<f64>() / finite as f64;
        let mut m2 = [0.0; LANES];
        for hs in h.chunks_exact(LANES) {
            if all_finite {
                add_m2::<false>(&mut m2, hs.try_into().unwrap(), mean);
            } else {
                add_m2::<true>(&mut m2, hs.try_into().unwrap(), mean);
            }
        }
        add_m2::<true>(&mut m2, &tail_h, mean);
        let max = |v: &[f64; LANES]| v.iter().fold(0.0, |m: f64, &x| m.max(x));
        EnergyAccumulator {
            finite,
            escaped: lanes.escaped.iter().sum::<f64>() as u64,
            counts_escaped: true,
            mean,
            m2: m2.iter().sum(),
            abs_err_sum: lanes.abs_err_sum.iter().sum(),
            abs_err_max: max(&lanes.abs_err_max),
            rel_count: lanes.rel_count.iter().sum::<f64>() as u64,
            rel_err_sum: lanes.rel_err_sum.iter().sum(),
            rel_err_max: max(&lanes.rel_err_max),
            stayed_abs_err_max: max(&lanes.stayed_abs_err_max),
            stayed_rel_err_max: max(&lanes.stayed_rel_err_max),
        }
    }
}

/// `EnergyAccumulator::from_chunk`'s first pass: per lane, finite count, Σ h, the error
/// sums and maxima, and the escaped count.
#[derive(Default)]
struct Lanes {
    /// Counts as f64 (exact up to 2^53): adding 0.0 or 1.0 keeps the loop in vector
    /// registers, where a conditional integer increment becomes a masked store.
    finite: [f64; LANES],
    sum: [f64; LANES],
    abs_err_sum: [f64; LANES],
    abs_err_max: [f64; LANES],
    rel_count: [f64; LANES],
    rel_err_sum: [f64; LANES],
    rel_err_max: [f64; LANES],
    escaped: [f64; LANES],
    stayed_abs_err_max: [f64; LANES],
    stayed_rel_err_max: [f64; LANES],
}

impl Lanes {
    #[inline(always)]
    /// One group of `LANES` energies; `CHECK`: some may be non-finite (else all are finite).
    fn add<const CHECK: bool>(&mut self, h: &[f64; LANES], h0: &[f64; LANES]) {
        for l in 0..LANES {
            let (x, x0) = (h[l], h0[l]);
            let finite = !CHECK || x.is_finite();
            self.finite[l] += if finite { 1.0 } else { 0.0 };
            self.sum[l] += if finite { x } else { 0.0 };
            let err = if finite { (x - x0).abs() } else { 0.0 };
            self.abs_err_sum[l] += err;
            self.abs_err_max[l] = keep_max(self.abs_err_max[l], err);
            let abs_h0 = x0.abs();
            let with_rel = finite && abs_h0 > REL_ENERGY_FLOOR;
            self.rel_count[l] += if with_rel { 1.0 } else { 0.0 };
            let rel = if with_rel { err / abs_h0 } else { 0.0 };
            self.rel_err_sum[l] += rel;
            self.rel_err_max[l] = keep_max(self.rel_err_max[l], rel);
            // `has_escaped` inlined on `err` (0 for a non-finite point, which row_from counts)
            let escaped = err > ESCAPE_FACTOR * (1.0 + abs_h0);
            self.escaped[l] += if escaped { 1.0 } else { 0.0 };
            // (a non-finite point's err and rel are 0 here, so it leaves the maxima alone)
            let (stayed_err, stayed_rel) = if escaped { (0.0, 0.0) } else { (err, rel) };
            self.stayed_abs_err_max[l] = keep_max(self.stayed_abs_err_max[l], stayed_err);
            self.stayed_rel_err_max[l] = keep_max(self.stayed_rel_err_max[l], stayed_rel);
        }
    }
}

/// The larger of a lane's maximum `m` and a new value `x`, leaving out a NaN `x` (an error
/// from a NaN h0): `f64::max` for the values a lane meets (m starts at +0 and is never NaN;
/// errors are never −0), in one vector max instruction where `f64::max` takes three (the
/// max, a NaN test and a blend), written as a select on the value rather than a conditional
/// store, which would become a masked store.
#[inline(always)]
fn keep_max(m: f64, x: f64) -> f64 {
    if x > m {
        x
    } else {
        m
    }
}

/// `from_chunk`'s second pass: Σ (h − mean)² per lane over the finite energies.
#[inline(always)]
fn add_m2<const CHECK: bool>(m2: &mut [f64; LANES], h: &[f64; LANES], mean: f64) {
    for l in 0..LANES {
        let dev = h[l] - mean;
        m2[l] += if !CHECK || h[l].is_finite() {
            dev * dev
        } else {
            0.0
        };
    }
}

/// The last `len % LANES` energies and initial energies, padded to `LANES` with NaN energies.
fn padded_tail(h: &[f64], h0: &[f64]) -> ([f64; LANES], [f64; LANES]) {
    let start = h.len() - h.len() % LANES;
    let (mut th, mut th0) = ([f64::NAN; LANES], [0.0; LANES]);
    th[..h.len() - start].copy_from_slice(&h[start..]);
    th0[..h.len() - start].copy_from_slice(&h0[start..]);
    (th, th0)
}

/// Statistics of a snapshot against the initial energies `h0` (one per point): energies one
/// chunk at a time, in parallel, chunk accumulators merged in order (see `CHUNK`).
pub fn snapshot_stats<T: Real>(system: &System, dt: f64, s: &State<T>, h0: &[f64]) -> EnergyStats {
    let acc = fold_in_order(&chunk_accumulators(&RunEnergy { system, dt }, s, h0));
    EnergyStats::from_acc(&acc, s.n as u64)
}

/// The accumulators of the state's chunks of `CHUNK` points, in point order: what
/// `snapshot_stats` folds, and what shards of an ensemble hand on to be merged
/// (`measure::parts`): shards that start at multiples of `CHUNK` have exactly the whole
/// ensemble's chunks, so folding their lists one after the other gives the same bits.
pub fn chunk_accumulators<T: Real, E: EnergyFunction>(
    system: &E,
    s: &State<T>,
    h0: &[f64],
) -> Vec<EnergyAccumulator> {
    chunk_accumulators_running(system, s, h0, None)
}

/// `chunk_accumulators` of the points still running: with `stops` (the column of
/// `State::chaos` holding the stop words, `--stop-when`) each chunk leaves out its stopped
/// points, which the statistics then never see.
pub fn chunk_accumulators_running<T: Real, E: EnergyFunction>(
    system: &E,
    s: &State<T>,
    h0: &[f64],
    stops: Option<usize>,
) -> Vec<EnergyAccumulator> {
    assert_eq!(h0.len(), s.n);
    (0..s.n.div_ceil(CHUNK))
        .into_par_iter()
        .map_init(
            || (vec![0.0; CHUNK], Vec::new()),
            |(buf, kept0), c| {
                let first = c * CHUNK;
                let len = CHUNK.min(s.n - first);
                let h = &mut buf[..len];
                energy_chunk(system, s, first, h);
                let h0 = &h0[first..first + len];
                let Some(column) = stops else {
                    return EnergyAccumulator::from_chunk(h, h0);
                };
                kept0.clear();
                let mut kept = 0;
                for i in 0..len {
                    if !crate::state::stop_words::stopped_at(s, column, first + i) {
                        h[kept] = h[i];
                        kept0.push(h0[i]);
                        kept += 1;
                    }
                }
                EnergyAccumulator::from_chunk(&h[..kept], kept0)
            },
        )
        .collect()
}

/// The accumulators merged left to right from the empty one: the one order every reduction
/// uses (host chunks, device workgroups, shards and ranks one after the other).
pub fn fold_in_order(accs: &[EnergyAccumulator]) -> EnergyAccumulator {
    accs.iter()
        .fold(EnergyAccumulator::default(), |a, &b| a.merge(b))
}

impl EnergyStats {
    /// The statistics of `points` points whose finite ones `acc` accumulated.
    pub fn from_acc(acc: &EnergyAccumulator, points: u64) -> Self {
        let some = |x: f64| if acc.finite > 0 { Some(x) } else { None };
        let rel = |x: f64| if acc.rel_count > 0 { Some(x) } else { None };
        // Some finite point stayed, and escapes were counted.
        let stayed = acc.counts_escaped && acc.finite > acc.escaped;
        let std = if acc.finite > 1 {
            (acc.m2 / (acc.finite - 1) as f64).sqrt()
        } else {
            0.0
        };
        EnergyStats {
            points,
            finite: acc.finite,
            energy_mean: some(acc.mean),
            energy_std: some(std),
            abs_energy_err_mean: some(acc.abs_err_sum / acc.finite.max(1) as f64),
            abs_energy_err_max: some(acc.abs_err_max),
            rel_energy_err_mean: rel(acc.rel_err_sum / acc.rel_count.max(1) as f64),
            rel_energy_err_max: rel(acc.rel_err_max),
            escaped: acc
                .counts_escaped
                .then(|| acc.escaped + (points - acc.finite)),
            stayed_abs_energy_err_max: stayed.then_some(acc.stayed_abs_err_max),
            stayed_rel_energy_err_max: (stayed && acc.rel_count > 0)
                .then_some(acc.stayed_rel_err_max),
        }
    }
}

/// The conserved momentum (`System::conserved`: the angular momentum L, or a Lagrangian's
/// discrete momentum) of every point (f64), or None when the system follows none.
pub fn angular_momenta<T: Real>(system: &System, s: &State<T>) -> Option<Vec<[f64; 3]>> {
    let d = s.d;
    let (mut q, mut p) = (vec![0.0; d], vec![0.0; d]);
    (0..s.n)
        .map(|i| {
            s.point_f64(i, &mut q, &mut p);
            system.conserved(&q, &p)
        })
        .collect()
}

/// max |L − L0| over the points whose L is finite (None without a conserved momentum or
/// points), L the system's conserved momentum (`System::conserved`); with `stops` (the stop
/// words' column, `--stop-when`) over the points still running only, as the energy statistics.
/// Point by point in parallel, with no per-snapshot vector of angular momenta (the maximum is
/// exact, so the order does not matter).
pub fn ang_mom_err_max<T: Real>(
    system: &System,
    s: &State<T>,
    l0: &[[f64; 3]],
    stops: Option<usize>,
) -> Option<f64> {
    let d = s.d;
    let zero = vec![0.0; d];
    system.conserved(&zero, &zero)?;
    (0..s.n.min(l0.len()))
        .into_par_iter()
        .map_init(
            || (vec![0.0; d], vec![0.0; d]),
            |(q, p), i| {
                if stops.is_some_and(|c| crate::state::stop_words::stopped_at(s, c, i)) {
                    return None;
                }
                s.point_f64(i, q, p);
                let (a, b) = (system.conserved(q, p)?, l0[i]);
                let e =
                    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt();
                e.is_finite().then_some(e)
            },
        )
        .flatten()
        .reduce_with(f64::max)
}

/// A least-squares line through a run's errors against time: its slope and the slope's
/// standard error (from the residuals; None with fewer than three points).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DriftFit {
    pub slope: f64,
    pub stderr: Option<f64>,
}

/// The least-squares line of y against t, None with fewer than two points or one time.
pub fn drift_fit(t: &[f64], y: &[f64]) -> Option<DriftFit> {
    let n = t.len() as f64;
    if t.len() < 2 {
        return None;
    }
    let (mt, my) = (t.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let sxy: f64 = t.iter().zip(y).map(|(a, b)| (a - mt) * (b - my)).sum();
    let sxx: f64 = t.iter().map(|a| (a - mt) * (a - mt)).sum();
    if sxx <= 0.0 {
        return None;
    }
    let slope = sxy / sxx;
    let residuals: f64 = t
        .iter()
        .zip(y)
        .map(|(a, b)| (b - my - slope * (a - mt)).powi(2))
        .sum();
    let stderr = (t.len() > 2).then(|| (residuals / (n - 2.0) / sxx).sqrt());
    Some(DriftFit { slope, stderr })
}

pub mod columns;

#[cfg(test)]
mod tests;
