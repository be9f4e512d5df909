//! Per-point chaos indicators (`--chaos`): one deviation vector δ per point, carried as a
//! single tangent column (nt = 1) so every method advances it with its own linearisation, and
//! after every step rescaled by an exact power of two to |δ|² in [1, 4) with the step's log
//! growth accumulated per point (exact, so the rescaled δ is the same however a run splits its
//! steps: `update`).
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

mod indicators;
pub mod wgsl;

pub use indicators::{Chaos, Indicator, CHAOTIC_ABOVE};

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

/// Whether `ln_reduced(x, 0)` is `ln_poly(x)`: x in [1/√2, √2), where steps' squared growths
/// nearly always are (the engine's loop takes the series alone, vectorised,
/// and `ln_poly` for the rest).
#[inline(always)]
pub fn in_reduced_range<T: Real>(x: T) -> bool {
    x >= T::from_f64(std::f64::consts::FRAC_1_SQRT_2) && x < T::from_f64(std::f64::consts::SQRT_2)
}

/// The high part of ln 2 in `ln_reduced` (and its GPU mirror, `wgsl`): 15 significant bits.
const LN2_HI: f64 = 0.693_145_751_953_125;

/// Terms of `ln_reduced`'s series in f64 (`f64`) or f32: below half an ulp.
fn series_terms(f64: bool) -> usize {
    if f64 {
        11
    } else {
        6
    }
}

/// e·ln 2 + ln m for m in [1/√2, √2): 2 atanh(s) by its odd series (11 terms in f64, 6 in
/// f32: below half an ulp), ln 2 split so that e · ln2_hi is exact (ln2_hi = 22713/2^15 has 15
/// significant bits and |e| < 2^11 in f64, 2^8 in f32).
#[inline(always)]
fn ln_reduced<T: Real>(m: T, e: T) -> T {
    let two = T::from_f64(2.0);
    let s = (m - T::ONE) / (m + T::ONE);
    let s2 = s * s;
    let terms = series_terms(std::mem::size_of::<T>() == 8);
    // Horner from the highest term 1/(2k+1) down to 1.
    let mut acc = T::from_f64(1.0 / (2 * terms - 1) as f64);
    for k in (0..terms - 1).rev() {
        acc = acc * s2 + T::from_f64(1.0 / (2 * k + 1) as f64);
    }
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

/// One step's bookkeeping for the `b` points of a block (component-major, `b` per component)
/// whose deviation vector is the single tangent column at components d..2d of `q` and `p`:
/// n = |δ|², δ ← s·δ with s = `binade_scale(n)` an exact power of two (|sδ|² in [1, 4)), the
/// step's growth r² = n / |δ_prev|² (the `NORM` accumulator, read as 1 while 0: before the
/// first step |δ| is 1), `NORM` ← s²n, then the accumulators `acc` (`WIDTH` × `b`) take
/// k ← k + 1, Σ ln r, Σ k ln r and Σ Y with Y = 2 Σ k ln r / k.
///
/// `carried` are the kernel's derivative vectors (∂H/∂q, ∂H/∂p, same layout): a kick–drift
/// method carries the last force into the next step (`method::kick_drift`), and its tangent
/// part H_qq δ is linear in δ, so it is scaled with δ; otherwise the next step would kick
/// the rescaled δ with the force of the old one, and ln r would drift. The scale being a power
/// of two, the scaled force is exactly the one the method's prologue recomputes from the
/// scaled δ at the start of every `advance`, so the indicators do not depend on where a run
/// splits its steps (snapshots, checkpoints, GPU dispatches).
///
/// `scratch` holds 2·`b` values (the squared growths, the scales and then the logarithms):
/// the step runs as loops over the block's points that vectorise, the scale by a select
/// where n is in [1/4, 16) and the logarithm by its series where r² is in range, with
/// `binade_scale` and `ln_poly` only for the rare point outside.
#[inline(always)]
pub fn update<T: Real>(
    [q, p]: [&mut [T]; 2],
    carried: [&mut [T]; 2],
    acc: &mut [T],
    scratch: &mut [T],
    (b, d): (usize, usize),
) {
    let two = T::from_f64(2.0);
    let four = T::from_f64(4.0);
    let quarter = T::from_f64(0.25);
    let sixteen = T::from_f64(16.0);
    let (dq, dp) = (&mut q[d * b..2 * d * b], &mut p[d * b..2 * d * b]);
    let [fq, fp] = carried;
    let (fq, fp) = (&mut fq[d * b..2 * d * b], &mut fp[d * b..2 * d * b]);
    let (ns, ln_r) = scratch[..2 * b].split_at_mut(b);
    ns.fill(T::ZERO);
    for v in [&*dq, &*dp] {
        for k in 0..d {
            for (n, &x) in ns.iter_mut().zip(&v[k * b..(k + 1) * b]) {
                *n += x * x;
            }
        }
    }
    // The scale first (in the logarithms' row): one binade either side of [1, 4) by a
    // select, as `binade_scale` would find it, and `binade_scale` for the rest.
    for (s, &n) in ln_r.iter_mut().zip(&*ns) {
        *s = if n >= four {
            T::HALF
        } else if n < T::ONE {
            two
        } else {
            T::ONE
        };
    }
    let outside = ns
        .iter()
        .fold(false, |o, &n| o | !(n >= quarter && n < sixteen));
    if outside {
        for (s, &n) in ln_r.iter_mut().zip(&*ns) {
            if !(n >= quarter && n < sixteen) {
                *s = binade_scale(n);
            }
        }
    }
    for v in [dq, dp, fq, fp] {
        for k in 0..d {
            for (x, &s) in v[k * b..(k + 1) * b].iter_mut().zip(&*ln_r) {
                *x *= s;
            }
        }
    }
    let (steps, rest) = acc.split_at_mut(b);
    let (growth, rest) = rest.split_at_mut(b);
    let (weighted, rest) = rest.split_at_mut(b);
    let (ysum, norm) = rest.split_at_mut(b);
    let norm = &mut norm[..b];
    // The squared growth n / |δ_prev|² (in the squared norms' row) and the new squared norm
    // s²n, exact: (n·s)·s.
    for ((n, norm), &s) in ns.iter_mut().zip(norm.iter_mut()).zip(&*ln_r) {
        let prev = if *norm == T::ZERO { T::ONE } else { *norm };
        *norm = *n * s * s;
        *n = *n / prev;
    }
    for (l, &n) in ln_r.iter_mut().zip(&*ns) {
        *l = T::HALF * ln_reduced(n, T::ZERO);
    }
    // Whether any point needs `ln_poly`, found by a branch-free loop that vectorises, so the
    // usual block (every point in range) skips the scalar loop with its branch per point.
    let outside = ns.iter().fold(false, |o, &n| o | !in_reduced_range(n));
    if outside {
        for (l, &n) in ln_r.iter_mut().zip(&*ns) {
            if !in_reduced_range(n) {
                *l = T::HALF * ln_poly(n);
            }
        }
    }
    // Zipped rows rather than indices: no bounds checks, so the loop vectorises.
    let rows = steps
        .iter_mut()
        .zip(growth)
        .zip(weighted)
        .zip(&mut ysum[..b]);
    for ((((steps, growth), weighted), ysum), &ln_r) in rows.zip(&*ln_r) {
        let k = *steps + T::ONE;
        *steps = k;
        *growth += ln_r;
        *weighted += k * ln_r;
        *ysum += two * *weighted / k;
    }
}

/// The indicators of one point from its accumulators (f64) and the step size: (⟨Y⟩, λ), or
/// `None` before the first step or when the point or its deviation vector blew up.
pub fn point_indicators(acc: [f64; WIDTH], h: f64) -> Option<(f64, f64)> {
    let k = acc[STEPS];
    if k < 1.0 || !acc.iter().all(|x| x.is_finite()) {
        return None;
    }
    Some((acc[Y_SUM] / k, acc[LOG_GROWTH] / (k * h.abs())))
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
                    &mut [0.0; 2],
                    (1, 1),
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
