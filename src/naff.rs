//! The fundamental frequency of a sampled signal by Laskar's numerical analysis of fundamental
//! frequencies (NAFF; J. Laskar, "Frequency analysis for multi-dimensional systems. Global
//! dynamics and diffusion", Physica D 67, 1993): the frequency ν that maximises the modulus of
//! the Hann-windowed Fourier projection
//!
//! φ(x) = (1/L) Σ_j w_j f_j e^{−i x u_j},  w_j = 1 + cos(2π u_j / L),  u_j = j − (L − 1)/2,
//!
//! over L samples f_j (x in radians per sample). The WGSL mirror, with the same operations in
//! the same order and the same constants, is `shaders/common/frequencies.wgsl`; the per-step
//! observer that keeps the samples is `observe::frequencies`.
//!
//! 1. Coarse: the first M samples (M the largest power of two ≤ L) are Fourier transformed in
//!    place (radix 2), the Hann window applied as the three-term convolution
//!    ½F_k − ¼(F_{k−1} + F_{k+1}), the largest modulus found (k in 1..M/2 for a real signal,
//!    every k for a complex one) and placed between its neighbours by a parabola; the inverse
//!    transform then puts the samples back (to rounding), so no second copy is needed.
//! 2. Refined: `REFINE_STEPS` Newton steps on d|φ|²/dx = 0 over all L samples, each one pass
//!    computing φ, φ′ and φ″ together (sums of w f e^{−ixu} times 1, u, u²); a step that would
//!    leave the concave part of the peak (or go further than half a bin, 2π/L) is replaced by a
//!    quarter bin towards the larger modulus; a Newton step shorter than `converged` bins
//!    (√ε) ends it, the next step's change being below the rounding. The rotations e^{−ixu} and e^{2πiu/L} advance by
//!    one complex product a sample and are evaluated afresh every `RESEED` samples, so their
//!    rounding does not grow with L.
//!
//! What every point shares (the transforms' twiddle factors, the windows) is computed once per
//! run (`Plan`), and the points are analysed `LANES` at a time, each one in a vector lane
//! (structure of arrays: sample j of the lanes' points side by side, `[T; L]`), so the
//! transforms and the Newton sums run as vector instructions; every lane does its point's
//! operations in the scalar order, so the bits are those of one point analysed alone.

use crate::float::{cos_poly, sin_poly, Real};

/// Newton steps of the refinement: from the parabola's estimate (a few hundredths of a bin)
/// four steps reach the rounding level; the rest are margin for the safeguarded steps.
pub const REFINE_STEPS: usize = 6;
/// Samples between fresh evaluations of the rotations.
pub const RESEED: usize = 64;
/// The fewest samples a frequency is sought in (fewer: no value).
pub const MIN_SAMPLES: usize = 8;
/// Points analysed together, one per vector lane.
pub const LANES: usize = 8;

/// What every point's analysis of `len` samples shares, computed once per run: the
/// transforms' twiddle factors and the Hann windows of the whole signal and of its halves.
/// They are the values the per-sample evaluations gave (the same `cos_poly`/`sin_poly` of the
/// same arguments, the window by the same recurrence), so a table changes no bit, and the
/// WGSL mirror, which evaluates them in place, still agrees.
pub struct Plan<T> {
    len: usize,
    /// e^{−2πik/size} for every stage of a transform (stage `size`, k < size/2, at
    /// size/2 − 1 + k); `inv` the same with +.
    fwd: Vec<(T, T)>,
    inv: Vec<(T, T)>,
    /// w_j = 1 + cos(2π u_j / L) for L = len and L = len/2.
    whole: Vec<T>,
    half: Vec<T>,
}

/// The largest power of two ≤ `len` (≥ 1).
fn pow2(len: usize) -> usize {
    1usize << (usize::BITS - 1 - len.max(1).leading_zeros())
}

fn all_finite<T: Real, const L: usize>(z: &[[T; L]]) -> bool {
    z.iter().all(|v| v.iter().all(|x| x.is_finite()))
}

impl<T: Real> Plan<T> {
    pub fn new(len: usize) -> Plan<T> {
        let m = pow2(len);
        Plan {
            len,
            fwd: twiddles(m, -T::ONE),
            inv: twiddles(m, T::ONE),
            whole: window(len),
            half: window(len / 2),
        }
    }

    /// The frequencies, in radians per sample (in (0, π) for a real signal, (−π, π] for a
    /// complex one), of L points' signals of `len` samples (`z`: sample j's real parts at
    /// z[2j], imaginary at z[2j + 1], lane l the point l's): per point the whole signal's and
    /// its two halves' (the second starting at len/2, both len/2 long). `None` for all three
    /// where a sample is not finite (a point that blew up, as the GPU's analysis gives it:
    /// its run has no frequency), for a part of fewer than `MIN_SAMPLES`. `z` is left as it
    /// was, to rounding.
    pub fn whole_and_halves<const L: usize>(
        &self,
        z: &mut [[T; L]],
        real: bool,
    ) -> [[Option<T>; 3]; L] {
        let (len, half) = (self.len, self.len / 2);
        let mut out = [[None; 3]; L];
        if !all_finite(&z[..2 * len]) {
            if L == 1 {
                return out;
            }
            // a point that blew up: each point on its own, the others' values unchanged
            for (l, row) in out.iter_mut().enumerate() {
                let mut one: Vec<[T; 1]> = z[..2 * len].iter().map(|v| [v[l]]).collect();
                *row = self.whole_and_halves(&mut one, real)[0];
            }
            return out;
        }
        for (k, (start, n)) in [(0, len), (0, half), (half, half)].into_iter().enumerate() {
            let part = &mut z[2 * start..2 * (start + n)];
            if n < MIN_SAMPLES {
                continue;
            }
            let x = crate::simd::dispatch(
                #[inline(always)]
                || self.frequency(part, n, real),
            );
            for (row, x) in out.iter_mut().zip(x) {
                row[k] = x.is_finite().then_some(x);
            }
        }
        out
    }

    /// Each lane's frequency of the `len` (this plan's length or its half) finite samples `z`.
    #[inline(always)]
    fn frequency<const L: usize>(&self, z: &mut [[T; L]], len: usize, real: bool) -> [T; L] {
        let window = match len == self.len {
            true => &self.whole,
            false => &self.half,
        };
        let m = pow2(len);
        fft(&mut z[..2 * m], m, &self.fwd);
        let x0 = coarse(&z[..2 * m], m, real);
        fft(&mut z[..2 * m], m, &self.inv);
        let inv = T::ONE / T::from_f64(m as f64);
        for v in &mut z[..2 * m] {
            for x in v {
                *x *= inv;
            }
        }
        refine(z, len, x0, &window[..len])
    }
}

/// The twiddle factors of every stage of an `m`-sample transform (`Plan::fwd`), `sign` −1
/// forward, +1 inverse.
fn twiddles<T: Real>(m: usize, sign: T) -> Vec<(T, T)> {
    let mut out = Vec::with_capacity(m);
    let mut size = 2usize;
    while size <= m {
        for k in 0..size / 2 {
            let a = sign * two_pi::<T>() * T::from_f64(k as f64) / T::from_f64(size as f64);
            out.push((cos_poly(a), sin_poly(a)));
        }
        size *= 2;
    }
    out
}

/// The Hann window 1 + cos(2π u_j / len) of `len` samples, u_j = j − (len − 1)/2, by the
/// rotation e^{2πi/len} advanced one complex product a sample, evaluated afresh every `RESEED`.
fn window<T: Real>(len: usize) -> Vec<T> {
    let c = T::from_f64((len.max(1) - 1) as f64 * 0.5);
    let theta = two_pi::<T>() / T::from_f64(len as f64);
    let (vr1, vi1) = (cos_poly(theta), sin_poly(theta));
    let (mut vr, mut vi) = (T::ZERO, T::ZERO);
    let mut w = Vec::with_capacity(len);
    for j in 0..len {
        if j % RESEED == 0 {
            let u = T::from_f64(j as f64) - c;
            vr = cos_poly(theta * u);
            vi = sin_poly(theta * u);
        }
        w.push(T::ONE + vr);
        let vn = vr * vr1 - vi * vi1;
        vi = vr * vi1 + vi * vr1;
        vr = vn;
    }
    w
}

fn two_pi<T: Real>() -> T {
    T::from_f64(std::f64::consts::TAU)
}

/// In-place radix-2 transform of `m` (a power of two) samples in every lane:
/// Σ_j z_j e^{sign·2πi jk/m} (`tw`: `Plan::fwd` for sign −1; `Plan::inv` for +1, the inverse
/// without its 1/m).
#[inline(always)]
fn fft<T: Real, const L: usize>(z: &mut [[T; L]], m: usize, tw: &[(T, T)]) {
    let mut j = 0usize;
    for i in 1..m {
        let mut bit = m >> 1;
        while j & bit != 0 {
            j ^= bit;
            bit >>= 1;
        }
        j ^= bit;
        if i < j {
            z.swap(2 * i, 2 * j);
            z.swap(2 * i + 1, 2 * j + 1);
        }
    }
    let mut size = 2usize;
    while size <= m {
        let half = size / 2;
        for (k, &(wr, wi)) in tw[half - 1..size - 1].iter().enumerate() {
            let mut s = k;
            while s < m {
                let t = s + half;
                let (xr, xi, ur, ui) = (z[2 * t], z[2 * t + 1], z[2 * s], z[2 * s + 1]);
                let (mut ar, mut ai, mut br, mut bi) = (ur, ui, ur, ui);
                for l in 0..L {
                    let tr = wr * xr[l] - wi * xi[l];
                    let ti = wr * xi[l] + wi * xr[l];
                    ar[l] = ur[l] - tr;
                    ai[l] = ui[l] - ti;
                    br[l] = ur[l] + tr;
                    bi[l] = ui[l] + ti;
                }
                (z[2 * t], z[2 * t + 1], z[2 * s], z[2 * s + 1]) = (ar, ai, br, bi);
                s += size;
            }
        }
        size *= 2;
    }
}

/// |½F_k − ¼(F_{k−1} + F_{k+1})|²: the Hann-windowed transform's power at bin k (mod m), in
/// lane l.
#[inline(always)]
fn hann_power<T: Real, const L: usize>(f: &[[T; L]], m: usize, k: usize, l: usize) -> T {
    let (a, c) = ((k + m - 1) % m, (k + 1) % m);
    let q = T::from_f64(0.25);
    let re = T::HALF * f[2 * k][l] - q * (f[2 * a][l] + f[2 * c][l]);
    let im = T::HALF * f[2 * k + 1][l] - q * (f[2 * a + 1][l] + f[2 * c + 1][l]);
    re * re + im * im
}

/// Each lane's coarse frequency (radians per sample) from the transform `f` of m samples.
#[inline(always)]
fn coarse<T: Real, const L: usize>(f: &[[T; L]], m: usize, real: bool) -> [T; L] {
    let (lo, hi) = if real { (1, m / 2) } else { (0, m) };
    let (mut best, mut kb) = ([-T::ONE; L], [lo; L]);
    for k in lo..hi {
        for l in 0..L {
            let p = hann_power(f, m, k, l);
            if p > best[l] {
                best[l] = p;
                kb[l] = k;
            }
        }
    }
    let mut out = [T::ZERO; L];
    for l in 0..L {
        let kb = kb[l];
        let a = hann_power(f, m, (kb + m - 1) % m, l).sqrt();
        let b = best[l].sqrt();
        let c = hann_power(f, m, (kb + 1) % m, l).sqrt();
        let den = a - T::from_f64(2.0) * b + c;
        let mut delta = T::ZERO;
        if den < T::ZERO {
            delta = T::HALF * (a - c) / den;
        }
        if delta > T::HALF {
            delta = T::HALF;
        }
        if delta < -T::HALF {
            delta = -T::HALF;
        }
        let mut kf = T::from_f64(kb as f64) + delta;
        if kf > T::from_f64((m / 2) as f64) {
            kf -= T::from_f64(m as f64);
        }
        out[l] = two_pi::<T>() * kf / T::from_f64(m as f64);
    }
    out
}

/// Σ w f e^{−ixu} times 1, u and u² over the samples of `z` (`window`: w_j, as many), lane l at
/// its own x: [Re, Im] of each.
#[inline(always)]
fn sums<T: Real, const L: usize>(z: &[[T; L]], x: &[T; L], window: &[T]) -> [[[T; L]; 2]; 3] {
    let c = T::from_f64((window.len() - 1) as f64 * 0.5);
    let (mut rr, mut ri) = ([T::ZERO; L], [T::ZERO; L]);
    for l in 0..L {
        rr[l] = cos_poly(x[l]);
        ri[l] = -sin_poly(x[l]);
    }
    let zero = [T::ZERO; L];
    let (mut s0r, mut s0i, mut s1r, mut s1i, mut s2r, mut s2i) =
        (zero, zero, zero, zero, zero, zero);
    let (mut er, mut ei) = (zero, zero);
    for (chunk, ws) in window.chunks(RESEED).enumerate() {
        let j0 = chunk * RESEED;
        let u = T::from_f64(j0 as f64) - c;
        for l in 0..L {
            er[l] = cos_poly(x[l] * u);
            ei[l] = -sin_poly(x[l] * u);
        }
        for (dj, &w) in ws.iter().enumerate() {
            let j = j0 + dj;
            let u = T::from_f64(j as f64) - c;
            let (fr, fi) = (&z[2 * j], &z[2 * j + 1]);
            for l in 0..L {
                let ar = w * (fr[l] * er[l] - fi[l] * ei[l]);
                let ai = w * (fr[l] * ei[l] + fi[l] * er[l]);
                s0r[l] += ar;
                s0i[l] += ai;
                let (br, bi) = (u * ar, u * ai);
                s1r[l] += br;
                s1i[l] += bi;
                s2r[l] += u * br;
                s2i[l] += u * bi;
                let en = er[l] * rr[l] - ei[l] * ri[l];
                ei[l] = er[l] * ri[l] + ei[l] * rr[l];
                er[l] = en;
            }
        }
    }
    [[s0r, s0i], [s1r, s1i], [s2r, s2i]]
}

/// The fraction of a bin below which a Newton step ends the refinement (`converged`).
pub fn converged(f64: bool) -> f64 {
    match f64 {
        true => f64::EPSILON.sqrt(),
        false => (f32::EPSILON as f64).sqrt(),
    }
}

/// Newton's steps on d|φ|²/dx = 0 from `x0`, safeguarded, in each lane; after a Newton step
/// shorter than `converged` bins the next would move x by about its square, below the
/// rounding: that lane is done (its x no longer changes; the others go on).
#[inline(always)]
fn refine<T: Real, const L: usize>(z: &[[T; L]], len: usize, x0: [T; L], window: &[T]) -> [T; L] {
    let bin = two_pi::<T>() / T::from_f64(len as f64);
    let quarter = T::from_f64(0.25) * bin;
    let small = T::from_f64(converged(T::NAME == "f64")) * bin;
    let (mut x, mut done) = (x0, [false; L]);
    for _ in 0..REFINE_STEPS {
        let [[s0r, s0i], [s1r, s1i], [s2r, s2i]] = sums(z, &x, window);
        for l in 0..L {
            if done[l] {
                continue;
            }
            let g1 = s0r[l] * s1i[l] - s0i[l] * s1r[l];
            let g2 = (s1r[l] * s1r[l] + s1i[l] * s1i[l]) - (s0r[l] * s2r[l] + s0i[l] * s2i[l]);
            let mut dx = -(g1 / g2);
            let newton = g2 < T::ZERO && dx.abs() <= T::HALF * bin;
            if !newton {
                dx = T::ZERO;
                if g1 > T::ZERO {
                    dx = quarter;
                }
                if g1 < T::ZERO {
                    dx = -quarter;
                }
            }
            x[l] += dx;
            done[l] = newton && dx.abs() <= small;
        }
        if done.iter().all(|&d| d) {
            break;
        }
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One signal's samples (z[2j] + i z[2j + 1]) as the one lane of `Plan::whole_and_halves`.
    fn one_lane<T: Real>(z: &[T]) -> Vec<[T; 1]> {
        z.iter().map(|&v| [v]).collect()
    }

    /// The fundamental frequency of the `len` samples from `start` of `z` (sample j:
    /// z[2j] + i z[2j + 1]), with a plan made for them (`Plan::whole_and_halves`).
    fn frequency<T: Real>(z: &[T], start: usize, len: usize, real: bool) -> Option<T> {
        let mut one = one_lane(&z[2 * start..2 * (start + len)]);
        Plan::new(len).whole_and_halves(&mut one, real)[0][0]
    }

    /// The frequencies of the whole signal of `len` samples and of its two halves, with a plan
    /// made for them (`Plan::whole_and_halves`); `z` is left as it was, to rounding.
    fn whole_and_halves<T: Real>(z: &mut [T], len: usize, real: bool) -> [Option<T>; 3] {
        let mut one = one_lane(&z[..2 * len]);
        let out = Plan::new(len).whole_and_halves(&mut one, real)[0];
        for (v, o) in z.iter_mut().zip(&one) {
            *v = o[0];
        }
        out
    }

    fn signal(len: usize, terms: &[(f64, f64, f64)], real: bool) -> Vec<f64> {
        let mut z = vec![0.0; 2 * len];
        for j in 0..len {
            for &(a, x, phase) in terms {
                let arg = x * j as f64 + phase;
                z[2 * j] += a * arg.cos();
                if !real {
                    z[2 * j + 1] += a * arg.sin();
                }
            }
        }
        z
    }

    #[test]
    fn a_pure_complex_line_to_the_rounding_level() {
        for &x in &[0.3, -1.234_567, 2.9, 0.01] {
            let z = signal(5000, &[(1.3, x, 0.4)], false);
            let got = frequency(&z, 0, 5000, false).unwrap();
            assert!((got - x).abs() < 1e-13, "{got} against {x}");
        }
    }

    #[test]
    fn a_quasi_periodic_signal_gives_its_largest_line() {
        // Two incommensurable lines and a harmonic: NAFF's error from the others falls with
        // the length (Laskar: as 1/L^3 for the Hann window); at 2^14 samples it is below 1e-10.
        let (x1, x2) = (0.7 * std::f64::consts::SQRT_2, 0.3 * 5f64.sqrt());
        let terms = [(1.0, x1, 0.1), (0.4, x2, 1.0), (0.1, x1 + x2, 2.0)];
        for real in [true, false] {
            let mut z = signal(1 << 14, &terms, real);
            let copy = z.clone();
            let [w, a, b] = whole_and_halves(&mut z, 1 << 14, real);
            for got in [w, a, b] {
                let got = got.unwrap();
                assert!((got - x1).abs() < 1e-10, "{got} against {x1} (real {real})");
            }
            let moved = z
                .iter()
                .zip(&copy)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max);
            assert!(moved < 1e-12, "the samples moved by {moved}");
        }
    }

    /// Eight different signals analysed side by side in the lanes equal each analysed alone,
    /// bit for bit, real and complex; a point with a sample that is not finite in its second
    /// half has no value at all (as on the GPU), and the other lanes are unchanged.
    #[test]
    fn each_lane_has_the_bits_of_its_point_alone() {
        let len = 1000;
        let plan = Plan::<f64>::new(len);
        let bits = |r: [Option<f64>; 3]| r.map(|x| x.map(f64::to_bits));
        for real in [true, false] {
            let mut signals: Vec<Vec<f64>> = (0..LANES)
                .map(|l| {
                    let x = 0.3 + 0.11 * l as f64;
                    signal(len, &[(1.0, x, 0.2 * l as f64), (0.2, 1.7 - x, 0.5)], real)
                })
                .collect();
            for blown in [None, Some(3)] {
                if let Some(l) = blown {
                    signals[l][2 * 700] = f64::INFINITY;
                }
                let mut lanes = vec![[0.0; LANES]; 2 * len];
                for (l, z) in signals.iter().enumerate() {
                    for (k, v) in z.iter().enumerate() {
                        lanes[k][l] = *v;
                    }
                }
                let together = plan.whole_and_halves(&mut lanes, real);
                for (l, z) in signals.iter().enumerate() {
                    let alone = whole_and_halves(&mut z.clone(), len, real);
                    assert_eq!(bits(together[l]), bits(alone), "lane {l} (real {real})");
                    let found = alone.iter().filter(|x| x.is_some()).count();
                    assert_eq!(found, if blown == Some(l) { 0 } else { 3 }, "lane {l}");
                }
            }
        }
    }

    #[test]
    fn no_value_for_blown_up_or_too_short_signals() {
        let mut z = signal(100, &[(1.0, 0.5, 0.0)], true);
        z[37] = f64::NAN;
        assert!(frequency(&z, 0, 100, true).is_none());
        let z = signal(7, &[(1.0, 0.5, 0.0)], true);
        assert!(frequency(&z, 0, 7, true).is_none());
    }

    #[test]
    fn f32_agrees_with_f64_to_its_precision() {
        let z64 = signal(4096, &[(1.0, 0.8, 0.3), (0.3, 2.1, 0.0)], true);
        let z32: Vec<f32> = z64.iter().map(|&v| v as f32).collect();
        let got = frequency(&z32, 0, 4096, true).unwrap();
        assert!((got as f64 - 0.8).abs() < 1e-4, "{got}");
    }
}
