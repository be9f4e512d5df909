//! Per-point chaos indicators (`--chaos`): one deviation vector δ per point, started and
//! measured as `Deviation` says, carried as a tangent column (the first of k for SALI and
//! GALI_k: `alignment`) so every
//! method advances it with its own linearisation, and after every step rescaled by an exact
//! power of two to |δ|² in [1, 4) with the step's log growth accumulated per point (exact, so
//! the rescaled δ is the same however a run splits its steps: `update`).
//!
//! From the accumulators (per point, `WIDTH` values carried in `State::chaos`):
//!
//! - the maximal finite-time Lyapunov exponent λ(t) = (1/t) Σ_{j≤k} ln r_j, with
//!   r_j = |δ_j| / |δ_{j−1}| and t = k·|h|;
//! - MEGNO (Cincotta & Simó 2000) in its discrete form Y_k = (2/k) Σ_{j≤k} j ln r_j and
//!   ⟨Y⟩_k = (1/k) Σ_{j≤k} Y_j. It is the continuous Y(t) = (2/t) ∫₀ᵗ s δ̇·δ/|δ|² ds with the
//!   integral over each step taken as t_j · ln r_j, so the conventions agree: ⟨Y⟩ → 2 on
//!   regular (quasi-periodic) orbits, ⟨Y⟩ ≈ λt/2 on chaotic ones, and 0 at a stable fixed point.
//!
//! The update (`update`) uses only +, −, ×, ÷ and √ (its logarithm is `ln_poly`), in a fixed
//! order per point, so that it can be mirrored operation for operation by a GPU kernel.

mod alignment;
mod deviation;
mod indicators;

pub use alignment::{gali, point_indicators, point_values, update_more, SCRATCH_MORE};
pub use deviation::{Deviation, Metric, Start};
pub use indicators::{Chaos, Indicator, Layout, ALIGNED_BELOW, CHAOTIC_ABOVE, FLI_FACTOR};

use crate::float::Real;

/// Accumulators per point: the steps taken k, Σ ln r_j, Σ j ln r_j, Σ Y_j and |δ|² after the
/// last step's rescaling (in [1, 4); 0 before the first step, read as 1).
pub const WIDTH: usize = 5;

/// Index of each accumulator (component-major in `State::chaos`: `[c·n + i]`).
pub const STEPS: usize = 0;
pub const LOG_GROWTH: usize = 1;
pub const WEIGHTED: usize = 2;
pub const Y_SUM: usize = 3;
pub const NORM: usize = 4;

/// The exact power of two that moves |δ|² = n one binade toward [1, 4) (1 inside it): the
/// select each renormalisation makes per point before the rare far points' `binade_scale`.
#[inline(always)]
pub(crate) fn near_scale<T: Real>(n: T) -> T {
    if n >= T::from_f64(4.0) {
        T::HALF
    } else if n < T::ONE {
        T::from_f64(2.0)
    } else {
        T::ONE
    }
}

/// ln x for x > 0 with only exact scalings by 2, comparisons and a division: x = 2^e · m with
/// m in [1/√2, √2), then ln m = 2 atanh(s), s = (m − 1)/(m + 1), |s| ≤ 0.172, by its odd
/// series (`ln_reduced`). x = 0 gives −∞ and a non-finite or negative x NaN (a blown-up
/// point's accumulators become NaN).
#[inline(always)]
pub fn ln_poly<T: Real>(x: T) -> T {
    if !(x > T::ZERO && x.is_finite()) {
        return if x == T::ZERO {
            T::from_f64(f64::NEG_INFINITY)
        } else {
            T::from_f64(f64::NAN)
        };
    }
    let two = T::from_f64(2.0);
    let (hi, lo) = (
        T::from_f64(std::f64::consts::SQRT_2),
        T::from_f64(std::f64::consts::FRAC_1_SQRT_2),
    );
    let mut m = x;
    let mut e = T::ZERO;
    // Coarse steps first: a subnormal or huge x needs at most a few dozen iterations.
    let (big, inv_big) = (T::from_f64(65536.0), T::from_f64(1.0 / 65536.0));
    while m >= big {
        m *= inv_big;
        e += T::from_f64(16.0);
    }
    while m < inv_big {
        m *= big;
        e -= T::from_f64(16.0);
    }
    while m >= hi {
        m *= T::HALF;
        e += T::ONE;
    }
    while m < lo {
        m *= two;
        e -= T::ONE;
    }
    ln_reduced(m, e)
}

/// Whether the squared growth n / prev is in [1/√2, √2), where the series of `half_ln_ratio`
/// is within half an ulp: tested on the products (no division), the same way on the GPU
/// (`chaos_half_ln_ratio`).
#[inline(always)]
pub fn in_reduced_range<T: Real>(n: T, prev: T) -> bool {
    n >= prev * T::from_f64(std::f64::consts::FRAC_1_SQRT_2)
        && n < prev * T::from_f64(std::f64::consts::SQRT_2)
}

/// Whether the squared growth n / prev is in [15/16, 17/16), where a step's growth nearly
/// always is and `half_ln_ratio` needs `NEAR_TERMS` of the series (|t| ≤ 1/31).
#[inline(always)]
pub fn is_near<T: Real>(n: T, prev: T) -> bool {
    n >= prev * T::from_f64(NEAR_LOW) && n < prev * T::from_f64(NEAR_HIGH)
}

/// The bounds of `is_near`: exact in both precisions.
pub(crate) const NEAR_LOW: f64 = 15.0 / 16.0;
pub(crate) const NEAR_HIGH: f64 = 17.0 / 16.0;

/// ½ ln(n / prev) for n / prev in range (`in_reduced_range`) with one division:
/// ln(n / prev) = 2 atanh(t), t = (n − prev)/(n + prev) (|t| ≤ 0.172), so ½ ln = t · S(t²)
/// with S `ln_reduced`'s series, of `near_terms` terms where `is_near` (|t| ≤ 1/31: the
/// omitted terms below half an ulp there too), of `series_terms` otherwise. n − prev is
/// exact (Sterbenz: the two are within a factor of 2), so t is correctly rounded.
#[inline(always)]
pub fn half_ln_ratio<T: Real>(n: T, prev: T, near: bool) -> T {
    let t = (n - prev) / (n + prev);
    let f64 = std::mem::size_of::<T>() == 8;
    let terms = if near {
        near_terms(f64)
    } else {
        series_terms(f64)
    };
    t * series(t * t, terms)
}

/// The high part of ln 2 in `ln_reduced` (and its GPU mirror, `observe::chaos`): 15 significant bits.
pub(crate) const LN2_HI: f64 = 0.693_145_751_953_125;

/// Terms of `ln_reduced`'s series in f64 (`f64`) or f32: below half an ulp for |s| ≤ 0.172.
pub(crate) fn series_terms(f64: bool) -> usize {
    if f64 {
        11
    } else {
        6
    }
}

/// Terms of the series for |s| ≤ 1/31 (`is_near`): the highest omitted, s^12/13 in f64 and
/// s^6/7 in f32, below 1e-19 and 2e-10 of the sum.
pub(crate) fn near_terms(f64: bool) -> usize {
    if f64 {
        6
    } else {
        3
    }
}

/// Σ_{k<terms} s2^k / (2k + 1) (atanh(s)/s at s2 = s²), by Horner from the highest term
/// down.
#[inline(always)]
fn series<T: Real>(s2: T, terms: usize) -> T {
    let mut acc = T::from_f64(1.0 / (2 * terms - 1) as f64);
    for k in (0..terms - 1).rev() {
        acc = acc * s2 + T::from_f64(1.0 / (2 * k + 1) as f64);
    }
    acc
}

/// e·ln 2 + ln m for m in [1/√2, √2): 2 atanh(s) by its odd series (11 terms in f64, 6 in
/// f32: below half an ulp), ln 2 split so that e · ln2_hi is exact (ln2_hi = 22713/2^15 has 15
/// significant bits and |e| < 2^11 in f64, 2^8 in f32).
#[inline(always)]
fn ln_reduced<T: Real>(m: T, e: T) -> T {
    let two = T::from_f64(2.0);
    let s = (m - T::ONE) / (m + T::ONE);
    let acc = series(s * s, series_terms(std::mem::size_of::<T>() == 8));
    let ln2_hi = T::from_f64(LN2_HI);
    let ln2_lo = T::from_f64(std::f64::consts::LN_2 - LN2_HI);
    e * ln2_hi + (two * s * acc + e * ln2_lo)
}

/// The power of two s = 2^−e that brings the squared norm `n` into [1, 4) (n·s² there), found
/// by exact scalings by 4 and 1/4 (coarse steps first, as in `ln_poly`), so the GPU mirror
/// (`chaos_scale` in `shaders/common/chaos.wgsl`) finds the same. Scaling by it is exact, so
/// the carried force's tangent part scaled by it equals the force recomputed on the scaled δ
/// bit for bit. A zero or non-finite `n` gives 1/√n, as a division by the norm would (the
/// point's deviation vector and accumulators become NaN).
#[inline(always)]
pub fn binade_scale<T: Real>(n: T) -> T {
    if !(n > T::ZERO && n.is_finite()) {
        return T::ONE / n.sqrt();
    }
    let four = T::from_f64(4.0);
    let quarter = T::from_f64(0.25);
    let (big, inv_big) = (T::from_f64(65536.0), T::from_f64(1.0 / 65536.0));
    let (mut m, mut s) = (n, T::ONE);
    while m >= big {
        m *= inv_big;
        s *= T::from_f64(1.0 / 256.0);
    }
    while m < inv_big {
        m *= big;
        s *= T::from_f64(256.0);
    }
    while m >= four {
        m *= quarter;
        s *= T::HALF;
    }
    while m < T::ONE {
        m *= four;
        s *= T::from_f64(2.0);
    }
    s
}

/// Scratch rows `update` needs after the accumulators, per point of the block.
pub const SCRATCH: usize = 3;

/// One step's bookkeeping for the `b` points of a block (component-major, `b` per component)
/// whose deviation vector is the single tangent column at components d..2d of `q` and `p`:
/// n = |δ|² (in the metric: Σ (w_k δ_k)² with the 2d `weights`, q then p, where given;
/// `Deviation::weights`), δ ← s·δ with s = `binade_scale(n)` an exact power of two (|sδ|² in [1, 4)), the
/// step's log growth ln r = ½ ln(n / prev) with prev = |δ_prev|² (the `NORM` accumulator,
/// read as 1 while 0: before the first step |δ| is 1), `NORM` ← s²n, then the accumulators
/// `acc` (`WIDTH` × `b`) take k ← k + 1, Σ ln r, W = Σ k ln r and Σ Y with Y = W · (2/k).
///
/// `carried` are the kernel's derivative vectors (∂H/∂q, ∂H/∂p, same layout): a kick–drift
/// method carries the last force into the next step (`method::kick_drift`), and its tangent
/// part H_qq δ is linear in δ, so it is scaled with δ; otherwise the next step would kick
/// the rescaled δ with the force of the old one, and ln r would drift. The scale being a power
/// of two, the scaled force is exactly the one the method's prologue recomputes from the
/// scaled δ at the start of every `advance`, so the indicators do not depend on where a run
/// splits its steps (snapshots, checkpoints, GPU dispatches).
///
/// Cost (it runs after every step, beside a step of a few gradient evaluations): one
/// division per point (`half_ln_ratio`, with the short series where the growth `is_near`
/// 1; 2/k once per block, whose points have all taken
/// the same steps in a run), three loops over the block's points (the squared norms, the
/// scales and logarithms, the accumulators), and δ and the carried force multiplied only in
/// a block where some point's scale is not 1 (a multiplication by 1 is exact, so the GPU,
/// which always multiplies, has the same bits). `scratch` holds `SCRATCH`·`b` values (the
/// squared norms, the scales, the log growths); `binade_scale` and `ln_poly` run only for
/// the rare point outside the selects' ranges.
#[inline(always)]
pub fn update<T: Real>(
    [q, p]: [&mut [T]; 2],
    carried: [&mut [T]; 2],
    acc: &mut [T],
    scratch: &mut [T],
    (b, d): (usize, usize),
    weights: Option<&[T]>,
) {
    let quarter = T::from_f64(0.25);
    let sixteen = T::from_f64(16.0);
    let (dq, dp) = (&mut q[d * b..2 * d * b], &mut p[d * b..2 * d * b]);
    let [fq, fp] = carried;
    let (fq, fp) = (&mut fq[d * b..2 * d * b], &mut fp[d * b..2 * d * b]);
    let (ns, rest) = scratch[..SCRATCH * b].split_at_mut(b);
    let (scales, ln_r) = rest.split_at_mut(b);
    squared_norms(dq, dp, (b, d), weights, ns);
    let (steps, rest) = acc.split_at_mut(b);
    let (growth, rest) = rest.split_at_mut(b);
    let (weighted, rest) = rest.split_at_mut(b);
    let (ysum, norm) = rest.split_at_mut(b);
    let (steps, ysum, norm) = (&mut steps[..b], &mut ysum[..b], &mut norm[..b]);
    // Per point: the scale (one binade either side of [1, 4) by a select, as `binade_scale`
    // would find it) and the log growth by the series, with flags for the rare points that
    // need `binade_scale` or more of the series, and for a scale other than 1. Zipped rows
    // rather than indices: no bounds checks, so the loop vectorises.
    let (mut far, mut not_near, mut rescale) = (false, false, false);
    let rows = scales.iter_mut().zip(&mut *ln_r).zip(&*ns).zip(&*norm);
    for (((s, l), &n), &norm) in rows {
        *s = near_scale(n);
        far |= !(n >= quarter && n < sixteen);
        rescale |= *s != T::ONE;
        let prev = if norm == T::ZERO { T::ONE } else { norm };
        not_near |= !is_near(n, prev);
        *l = half_ln_ratio(n, prev, true);
    }
    if far {
        for (s, &n) in scales.iter_mut().zip(&*ns) {
            if !(n >= quarter && n < sixteen) {
                *s = binade_scale(n);
                rescale = true;
            }
        }
    }
    if not_near {
        far_growths(ln_r, ns, norm);
    }
    if rescale {
        for v in [dq, dp, fq, fp] {
            for k in 0..d {
                for (x, &s) in v[k * b..(k + 1) * b].iter_mut().zip(&*scales) {
                    *x *= s;
                }
            }
        }
    }
    // The new squared norm s²n, exact: (n·s)·s.
    for ((norm, &n), &s) in norm.iter_mut().zip(&*ns).zip(&*scales) {
        *norm = n * s * s;
    }
    accumulate([steps, growth, weighted, ysum], ln_r);
}

/// The log growths of the points whose growth is not near 1 (`is_near`): the whole series
/// where in range (a loop that vectorises), then `ln_poly` for the rest.
#[inline(always)]
fn far_growths<T: Real>(ln_r: &mut [T], ns: &[T], norm: &[T]) {
    let mut out_of_range = false;
    for ((l, &n), &norm) in ln_r.iter_mut().zip(ns).zip(norm) {
        let prev = if norm == T::ZERO { T::ONE } else { norm };
        if !is_near(n, prev) {
            *l = half_ln_ratio(n, prev, false);
            out_of_range |= !in_reduced_range(n, prev);
        }
    }
    if out_of_range {
        for ((l, &n), &norm) in ln_r.iter_mut().zip(ns).zip(norm) {
            let prev = if norm == T::ZERO { T::ONE } else { norm };
            if !in_reduced_range(n, prev) {
                *l = T::HALF * ln_poly(n / prev);
            }
        }
    }
}

/// The accumulators k, Σ ln r, W = Σ k ln r and Σ Y (Y = W · (2/k)) after a step of log
/// growths `ln_r`, with 2/k once for the block where its points have all taken the same
/// steps (always in a run), the same quotient per point otherwise.
#[inline(always)]
fn accumulate<T: Real>([steps, growth, weighted, ysum]: [&mut [T]; 4], ln_r: &[T]) {
    let two = T::from_f64(2.0);
    let k0 = steps[0] + T::ONE;
    let shared = steps
        .iter()
        .fold(true, |same, &k| same & (k + T::ONE == k0));
    let rows = steps.iter_mut().zip(growth).zip(weighted).zip(ysum);
    if shared {
        let two_over_k = two / k0;
        for ((((steps, growth), weighted), ysum), &ln_r) in rows.zip(ln_r) {
            *steps = k0;
            *growth += ln_r;
            *weighted += k0 * ln_r;
            *ysum += *weighted * two_over_k;
        }
    } else {
        for ((((steps, growth), weighted), ysum), &ln_r) in rows.zip(ln_r) {
            let k = *steps + T::ONE;
            *steps = k;
            *growth += ln_r;
            *weighted += k * ln_r;
            *ysum += *weighted * (two / k);
        }
    }
}

/// The squared norms |δ|² of the block's deviation vectors into `ns`, summed over the
/// components of `dq` and then of `dp` in order from 0 (as the GPU's `after_step` sums
/// them), each component times its weight before it is squared where the metric has
/// `weights`: one loop over the points for d ≤ 2, a pass per component otherwise.
#[inline(always)]
fn squared_norms<T: Real>(
    dq: &[T],
    dp: &[T],
    (b, d): (usize, usize),
    weights: Option<&[T]>,
    ns: &mut [T],
) {
    let ns = &mut ns[..b];
    if let Some(w) = weights {
        ns.fill(T::ZERO);
        for (v, w) in [dq, dp].into_iter().zip(w.chunks(d)) {
            for (k, &w) in w.iter().enumerate() {
                for (n, &x) in ns.iter_mut().zip(&v[k * b..(k + 1) * b]) {
                    let y = x * w;
                    *n += y * y;
                }
            }
        }
        return;
    }
    match d {
        1 => {
            for ((n, &x), &y) in ns.iter_mut().zip(&dq[..b]).zip(&dp[..b]) {
                *n = T::ZERO + x * x + y * y;
            }
        }
        2 => {
            let (q0, q1) = dq[..2 * b].split_at(b);
            let (p0, p1) = dp[..2 * b].split_at(b);
            let rows = ns.iter_mut().zip(q0).zip(q1).zip(p0.iter().zip(p1));
            for (((n, &a), &c), (&e, &f)) in rows {
                *n = T::ZERO + a * a + c * c + e * e + f * f;
            }
        }
        _ => {
            ns.fill(T::ZERO);
            for v in [dq, dp] {
                for k in 0..d {
                    for (n, &x) in ns.iter_mut().zip(&v[k * b..(k + 1) * b]) {
                        *n += x * x;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `ln_poly` agrees with the library logarithm to within 2 ulp over the range steps can
    /// produce (and far beyond), in f64 and f32; 0 gives −∞ and bad input NaN.
    #[test]
    fn ln_poly_matches_the_library_logarithm() {
        let mut worst64: f64 = 0.0;
        let mut worst32: f64 = 0.0;
        let mut x = 1e-300_f64;
        while x < 1e300 {
            for f in [1.0, 1.0001, 0.9999, 1.37, 0.71] {
                let y = x * f;
                let exact = y.ln();
                worst64 = worst64.max((ln_poly(y) - exact).abs() / exact.abs().max(1.0));
                let y32 = y as f32;
                if y32 > 0.0 && y32.is_finite() {
                    let e32 = (y32 as f64).ln();
                    worst32 =
                        worst32.max((f64::from(ln_poly(y32)) - e32).abs() / e32.abs().max(1.0));
                }
            }
            x *= 1.7;
        }
        println!("ln_poly: worst relative error f64 {worst64:.2e}, f32 {worst32:.2e}");
        assert!(worst64 < 5e-16, "{worst64}");
        assert!(worst32 < 2.5e-7, "{worst32}");
        assert_eq!(ln_poly(0.0_f64), f64::NEG_INFINITY);
        assert!(ln_poly(-1.0_f64).is_nan() && ln_poly(f64::NAN).is_nan());
        assert!(ln_poly(f64::INFINITY).is_nan());
    }

    /// `binade_scale` gives a power of two that brings the squared norm into [1, 4), at
    /// both precisions and over their whole range (subnormals included), and 1/√n for a zero
    /// or non-finite norm.
    #[test]
    fn binade_scale_is_a_power_of_two_into_one_to_four() {
        let mut x = f64::from_bits(1);
        while x.is_finite() {
            for y in [x, x * 1.37, x * 0.71] {
                let s = binade_scale(y);
                assert_eq!(s.to_bits() & ((1 << 52) - 1), 0, "{y}: {s}");
                assert!((1.0..4.0).contains(&(y * s * s)), "{y}: {s}");
                let y32 = y as f32;
                if y32 > 0.0 && y32.is_finite() {
                    let s = binade_scale(y32);
                    assert_eq!(s.to_bits() & ((1 << 23) - 1), 0, "{y32}: {s}");
                    assert!((1.0..4.0).contains(&(y32 * s * s)), "{y32}: {s}");
                }
            }
            x *= 3.1;
        }
        assert_eq!(binade_scale(0.0_f64), f64::INFINITY);
        assert!(binade_scale(f64::NAN).is_nan());
        assert_eq!(binade_scale(f64::INFINITY), 0.0);
    }

    /// `update` on one block of `b` points with d = 1: deviation vectors (x_i, 0) after the
    /// step, the previous squared norms `prev` and steps `k`; the accumulators after it.
    fn one_update<T: Real>(x: &[T], prev: &[T], k: &[T]) -> Vec<T> {
        let b = x.len();
        let mut q: Vec<T> = vec![T::ZERO; b]
            .into_iter()
            .chain(x.iter().copied())
            .collect();
        let mut p = vec![T::ZERO; 2 * b];
        let (mut fq, mut fp) = (vec![T::ZERO; 2 * b], vec![T::ZERO; 2 * b]);
        let mut acc = vec![T::ZERO; WIDTH * b];
        acc[STEPS * b..(STEPS + 1) * b].copy_from_slice(k);
        acc[NORM * b..(NORM + 1) * b].copy_from_slice(prev);
        let mut scratch = vec![T::ZERO; SCRATCH * b];
        update(
            [&mut q, &mut p],
            [&mut fq, &mut fp],
            &mut acc,
            &mut scratch,
            (b, 1),
            None,
        );
        acc
    }

    /// The step's log growth ½ ln(n / prev) agrees with the library logarithm to within a few
    /// ulp on all three of its paths (the short series near 1, the whole series, `ln_poly`),
    /// in f64 and f32, in one block where the paths mix.
    #[test]
    fn the_log_growth_matches_the_library_logarithm_on_every_path() {
        fn check<T: Real>(tol: f64) {
            let ratios = [
                1.0, 1.0001, 0.9999, 1.03, 0.97, 1.0624, 0.9376, 1.2, 0.8, 1.41, 0.71, 2.5, 0.3,
                1e6, 1e-6,
            ];
            let prevs = [1.0, 1.7, 3.99];
            let (mut x, mut prev) = (Vec::new(), Vec::new());
            for &r in &ratios {
                for &pv in &prevs {
                    x.push(T::from_f64((r * pv).sqrt()));
                    prev.push(T::from_f64(pv));
                }
            }
            let k = vec![T::ZERO; x.len()];
            let acc = one_update(&x, &prev, &k);
            let b = x.len();
            let mut worst: f64 = 0.0;
            for i in 0..b {
                let n = x[i].to_f64() * x[i].to_f64();
                let want = 0.5 * (n / prev[i].to_f64()).ln();
                let got = acc[LOG_GROWTH * b + i].to_f64();
                worst = worst.max((got - want).abs() / want.abs().max(1.0));
            }
            println!("log growth: worst relative error {worst:.2e} ({})", T::NAME);
            assert!(worst < tol, "{worst}");
        }
        check::<f64>(1e-15);
        check::<f32>(1e-6);
    }

    /// 2/k taken once for a block whose points have all taken the same steps gives each
    /// point the bits that its own 2/k gives in a block whose points' steps differ.
    #[test]
    fn a_block_shared_step_count_gives_the_per_point_bits() {
        let x: Vec<f64> = (0..37).map(|i| 1.0 + 0.013 * i as f64).collect();
        let prev: Vec<f64> = (0..37).map(|i| 1.0 + 0.011 * i as f64).collect();
        let same = one_update(&x, &prev, &[6.0; 37]);
        let mut k = [6.0; 37];
        k[36] = 9.0;
        let mixed = one_update(&x, &prev, &k);
        for c in 0..WIDTH {
            for i in 0..36 {
                assert_eq!(
                    same[c * 37 + i].to_bits(),
                    mixed[c * 37 + i].to_bits(),
                    "{c} {i}"
                );
            }
        }
        assert_eq!(mixed[STEPS * 37 + 36], 10.0);
        let (w, y) = (mixed[WEIGHTED * 37 + 36], mixed[Y_SUM * 37 + 36]);
        assert_eq!(y, w * (2.0 / 10.0));
    }

    /// A deviation vector growing linearly (|δ_k| ∝ 1 + k, a shear) gives ⟨Y⟩ → 2 and a
    /// Lyapunov exponent ln(1 + k)/(k h); growing as e^{λt} gives ⟨Y⟩ = λ(t + 3h)/2 exactly
    /// in this discrete form (Y_k = λ h (k + 1)), and λ.
    #[test]
    fn the_accumulators_give_megno_and_lyapunov() {
        let h = 0.1;
        let n = 20000;
        let run = |growth: &dyn Fn(usize) -> f64| {
            let (mut q, mut p, mut acc) = (vec![1.0, 0.0], vec![0.0, 1.0], vec![0.0; WIDTH]);
            let (mut fq, mut fp) = (vec![0.0; 2], vec![0.0; 2]);
            let mut prev = 1.0;
            for k in 1..=n {
                let now = growth(k);
                // What a step would leave: the rescaled vector (0, p) stretched by now/prev.
                (q[1], p[1]) = (0.0, p[1] * (now / prev));
                update(
                    [&mut q, &mut p],
                    [&mut fq, &mut fp],
                    &mut acc,
                    &mut [0.0; SCRATCH],
                    (1, 1),
                    None,
                );
                assert!((1.0..4.0).contains(&(p[1] * p[1])), "{}", p[1]);
                assert_eq!(acc[NORM], p[1] * p[1]);
                prev = now;
            }
            point_indicators(std::array::from_fn(|c| acc[c]), h).unwrap()
        };
        let (megno, lyap) = run(&|k| 1.0 + k as f64);
        println!("linear growth: <Y> {megno} lambda {lyap}");
        assert!((megno - 2.0).abs() < 5e-3, "{megno}");
        let want = (1.0 + n as f64).ln() / (n as f64 * h);
        assert!((lyap - want).abs() < 1e-12 * want.abs().max(1.0), "{lyap}");
        let lambda = 0.3;
        let (megno, lyap) = run(&|k| (lambda * k as f64 * h).exp());
        let t = n as f64 * h;
        println!(
            "exponential growth: <Y> {megno} (lambda t/2 = {})",
            lambda * t / 2.0
        );
        assert!((lyap - lambda).abs() < 1e-9, "{lyap}");
        assert!(
            (megno - lambda * (t + 3.0 * h) / 2.0).abs() < 1e-6 * megno,
            "{megno}"
        );
    }
}
