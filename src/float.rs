//! The small float trait that lets every CPU kernel run in f32 and f64, and the
//! vectorisable `sin_poly` that both the CPU kernels and the WGSL kernels use
//! (`shaders/common/math.wgsl` is its mirror: keep in sync).
//!
//! Why our own sine: WGSL's `sin` is only specified to 2^-11 absolute accuracy and differs
//! between drivers, and Rust's `f32::sin` is a scalar libm call that blocks vectorisation.
//! One polynomial, written the same way on both sides, gives reproducible results that the
//! GPU-vs-CPU validation can compare point by point.

use std::fmt::{Debug, Display};
use std::ops::{Add, AddAssign, Div, Mul, MulAssign, Neg, Sub, SubAssign};

/// A relative move of a few units in the last place (f32: 4e-7, f64: 1e-14): below it an
/// iteration whose move stops decreasing has reached its rounding level and stops (the
/// implicit solves, `method::implicit`; a Lagrangian's tangent step's Newton iteration).
pub fn rounding_gate<T: Real>() -> f64 {
    if T::NAME == "f32" {
        4e-7
    } else {
        1e-14
    }
}

pub trait Real:
    Copy
    + Send
    + Sync
    + 'static
    + Default
    + PartialOrd
    + Debug
    + Display
    + bytemuck::Pod
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
    + MulAssign
{
    /// "f32" or "f64": the name used on the command line and in outputs.
    const NAME: &'static str;
    /// numpy dtype descriptor for `.npy` files.
    const NPY_DESCR: &'static str;
    const ZERO: Self;
    const ONE: Self;
    const HALF: Self;
    /// Adding and subtracting this rounds to the nearest integer (ties to even) for |x| < 2^(mantissa-1).
    const ROUND_MAGIC: Self;
    const INV_TWO_PI: Self;
    /// 2π split in three parts (Cody–Waite) so that x − k·2π is accurate for moderate k.
    const TWO_PI_HI: Self;
    const TWO_PI_MID: Self;
    const TWO_PI_LO: Self;
    const PI_HI: Self;
    const PI_LO: Self;
    const HALF_PI: Self;
    /// Odd Taylor coefficients 1/3!, −1/5!… highest first, enough for full precision on [−π/2, π/2].
    const SIN_COEFFS: &'static [Self];

    fn from_f64(x: f64) -> Self;
    fn to_f64(self) -> f64;
    fn is_finite(self) -> bool;
    fn abs(self) -> Self;
    fn sqrt(self) -> Self;
    /// The standard library's (libm's) sine: a scalar call. Only the reference loop that
    /// `bench` measures the engines against uses it (`engine::reference`).
    fn libm_sin(self) -> Self;
}

impl Real for f32 {
    const NAME: &'static str = "f32";
    const NPY_DESCR: &'static str = "<f4";
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
    const HALF: Self = 0.5;
    const ROUND_MAGIC: Self = 12582912.0; // 1.5 * 2^23
    const INV_TWO_PI: Self = 0.159_154_94;
    const TWO_PI_HI: Self = 6.28125; // few mantissa bits: k * HI is exact
    const TWO_PI_MID: Self = 0.001_935_005_2;
    const TWO_PI_LO: Self = 3.019_916e-7;
    const PI_HI: Self = 3.140625;
    const PI_LO: Self = 0.000_967_653_6; // π − 3.140625
    const HALF_PI: Self = std::f32::consts::FRAC_PI_2;
    const SIN_COEFFS: &'static [Self] = &[
        1.605_904_4e-10, // 1/13!
        -2.505_210_8e-8, // -1/11!
        2.755_731_9e-6,  // 1/9!
        -1.984_127e-4,   // -1/7!
        8.333_333e-3,    // 1/5!
        -1.666_666_7e-1, // -1/3!
    ];
    #[inline(always)]
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self as f64
    }
    #[inline(always)]
    fn is_finite(self) -> bool {
        f32::is_finite(self)
    }
    #[inline(always)]
    fn abs(self) -> Self {
        f32::abs(self)
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        f32::sqrt(self)
    }
    #[inline(always)]
    fn libm_sin(self) -> Self {
        f32::sin(self)
    }
}

impl Real for f64 {
    const NAME: &'static str = "f64";
    const NPY_DESCR: &'static str = "<f8";
    const ZERO: Self = 0.0;
    const ONE: Self = 1.0;
    const HALF: Self = 0.5;
    const ROUND_MAGIC: Self = 6755399441055744.0; // 1.5 * 2^52
    const INV_TWO_PI: Self = 0.159_154_943_091_895_35;
    const TWO_PI_HI: Self = 6.283_185_306_936_502_5; // 32 significant bits: k * HI exact for |k| < 2^21
    const TWO_PI_MID: Self = 2.430_840_202_521_586_4e-10;
    const TWO_PI_LO: Self = 8.089_064_995_183_803e-21;
    const PI_HI: Self = std::f64::consts::PI;
    const PI_LO: Self = 1.224_646_799_147_353_2e-16;
    const HALF_PI: Self = std::f64::consts::FRAC_PI_2;
    const SIN_COEFFS: &'static [Self] = &[
        1.957_294_106_339_126e-20,   // 1/21!
        -8.220_635_246_624_33e-18,   // -1/19!
        2.811_457_254_345_520_6e-15, // 1/17!
        -7.647_163_731_819_816e-13,  // -1/15!
        1.605_904_383_682_161_3e-10, // 1/13!
        -2.505_210_838_544_172e-8,   // -1/11!
        2.755_731_922_398_589e-6,    // 1/9!
        -1.984_126_984_126_984e-4,   // -1/7!
        8.333_333_333_333_333e-3,    // 1/5!
        -1.666_666_666_666_666_6e-1, // -1/3!
    ];
    #[inline(always)]
    fn from_f64(x: f64) -> Self {
        x
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline(always)]
    fn is_finite(self) -> bool {
        f64::is_finite(self)
    }
    #[inline(always)]
    fn abs(self) -> Self {
        f64::abs(self)
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        f64::sqrt(self)
    }
    #[inline(always)]
    fn libm_sin(self) -> Self {
        f64::sin(self)
    }
}

/// sin(x), branch-free so loops over points vectorise. Mirror: `sin_poly` in shaders/common/math.wgsl.
/// Accurate to a few ulp for |x| up to ~1e4 (f32) / ~1e12 (f64); beyond that the range reduction degrades.
#[inline(always)]
pub fn sin_poly<T: Real>(x: T) -> T {
    // k = round(x / 2π); y = x − k·2π in [−π, π]
    let k = (x * T::INV_TWO_PI + T::ROUND_MAGIC) - T::ROUND_MAGIC;
    let y = ((x - k * T::TWO_PI_HI) - k * T::TWO_PI_MID) - k * T::TWO_PI_LO;
    // reflect into [−π/2, π/2]: sin(π − y) = sin(y), sin(−π − y) = sin(y)
    let y = if y > T::HALF_PI {
        (T::PI_HI - y) + T::PI_LO
    } else if y < -T::HALF_PI {
        (-T::PI_HI - y) - T::PI_LO
    } else {
        y
    };
    let y2 = y * y;
    // Horner from the top coefficient (the same bits as starting from 0: 0·y2 + c = c).
    let mut acc = T::SIN_COEFFS[0];
    for &c in &T::SIN_COEFFS[1..] {
        acc = acc * y2 + c;
    }
    y + y * y2 * acc
}

/// 1/c where c = ±2^k and its reciprocal is a normal number, else `None`. Then
/// x / c and x · (1/c) are the same real number rounded once, so they are the same bits for
/// every x (a multiplication in place of a division in a loop over points).
pub fn exact_reciprocal(c: f64) -> Option<f64> {
    let inv = 1.0 / c;
    let power_of_two = c.is_normal() && c.to_bits() & ((1u64 << 52) - 1) == 0;
    (power_of_two && inv.is_normal()).then_some(inv)
}

/// |x| up to which the f64 `sin_poly` is accurate to a few ulp: `TWO_PI_HI` has 32 significant
/// bits, so k·2π_hi is exact for |k| < 2^21, i.e. |x| < 1.3e7. Beyond it, f64 energies fall back to libm.
pub const SIN_POLY_F64_RANGE: f64 = 1.0e7;

/// base + δ with carried error e: (sum, its new carried error). Kahan: δ' = δ + e,
/// x = base + δ', e' = (base − x) + δ' (`method::compensated`, `--compensated`).
#[inline(always)]
pub fn compensated_sum<T: Real>(base: T, delta: T, e: T) -> (T, T) {
    let d = delta + e;
    let x = base + d;
    (x, (base - x) + d)
}

/// x as a compensated state holds it in `T`: the nearest `T` and what rounding to it lost
/// (x − T(x), rounded to `T`: for f32 the pair then holds x to about 48 bits; for f64 the rest
/// is zero).
#[inline]
pub fn split_f64<T: Real>(x: f64) -> (T, T) {
    let hi = T::from_f64(x);
    (hi, T::from_f64(x - hi.to_f64()))
}

/// cos(x) = sin(x + π/2), mirrored in WGSL as `cos_poly`.
#[inline(always)]
pub fn cos_poly<T: Real>(x: T) -> T {
    sin_poly(x + T::HALF_PI)
}

/// The solution x of J x = r for a 3×3 system by Cramer's rule (cofactors of the first row,
/// then the adjugate), in this fixed order of operations: the variational systems' Newton steps
/// on the CPU, mirrored by `cramer3` in shaders/common/variational.wgsl.
#[inline(always)]
pub fn cramer3<T: Real>(j: [[T; 3]; 3], r: [T; 3]) -> [T; 3] {
    let c0 = j[1][1] * j[2][2] - j[1][2] * j[2][1];
    let c1 = j[1][2] * j[2][0] - j[1][0] * j[2][2];
    let c2 = j[1][0] * j[2][1] - j[1][1] * j[2][0];
    let det = j[0][0] * c0 + j[0][1] * c1 + j[0][2] * c2;
    [
        (r[0] * c0
            + r[1] * (j[0][2] * j[2][1] - j[0][1] * j[2][2])
            + r[2] * (j[0][1] * j[1][2] - j[0][2] * j[1][1]))
            / det,
        (r[0] * c1
            + r[1] * (j[0][0] * j[2][2] - j[0][2] * j[2][0])
            + r[2] * (j[0][2] * j[1][0] - j[0][0] * j[1][2]))
            / det,
        (r[0] * c2
            + r[1] * (j[0][1] * j[2][0] - j[0][0] * j[2][1])
            + r[2] * (j[0][0] * j[1][1] - j[0][1] * j[1][0]))
            / det,
    ]
}

/// The largest of three values, as WGSL's `max(max(a, b), c)` for finite values (the Newton
/// iterations' convergence tests in the variational systems, CPU side).
pub fn max3<T: Real>(a: T, b: T, c: T) -> T {
    let ab = if a > b { a } else { b };
    if ab > c {
        ab
    } else {
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sin_poly_f64_matches_libm() {
        let mut worst: f64 = 0.0;
        for i in -200_000..=200_000 {
            let x = i as f64 * 1.0e-3;
            worst = worst.max((sin_poly(x) - x.sin()).abs());
        }
        assert!(worst < 4e-16, "worst abs error {worst}");
    }

    #[test]
    fn sin_poly_f32_matches_libm() {
        let mut worst: f64 = 0.0;
        for i in -200_000..=200_000 {
            let x = i as f32 * 1.0e-3;
            worst = worst.max((sin_poly(x) as f64 - (x as f64).sin()).abs());
        }
        assert!(worst < 3e-7, "worst abs error {worst}");
    }

    #[test]
    fn cos_poly_matches() {
        for i in -1000..1000 {
            let x = i as f64 * 0.0123;
            assert!((cos_poly(x) - x.cos()).abs() < 1e-14, "x = {x}");
        }
    }

    /// `exact_reciprocal` is given for ±2^k only, and then x / c and x · (1/c) are the same
    /// bits for normal, subnormal, huge, zero and non-finite x (NaN stays NaN).
    #[test]
    fn exact_reciprocal_divides_bit_for_bit() {
        for c in [
            3.0,
            0.3,
            1.5,
            0.0,
            f64::INFINITY,
            f64::NAN,
            f64::MIN_POSITIVE / 4.0,
        ] {
            assert_eq!(exact_reciprocal(c), None, "{c}");
        }
        let mut xs = vec![
            0.0,
            -0.0,
            f64::INFINITY,
            f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
        ];
        let mut x = 1e-320_f64;
        while x < 1e300 {
            xs.extend([x, -x, x * 1.234_567_89, x * 0.987_654_321]);
            x *= 3.7;
        }
        let mut compared = 0;
        for k in -1000..=1000 {
            let c = 2.0_f64.powi(k);
            for c in [c, -c] {
                let Some(inv) = exact_reciprocal(c) else {
                    assert!(k.abs() > 1021, "2^{k}");
                    continue;
                };
                for &x in &xs {
                    assert_eq!((x / c).to_bits(), (x * inv).to_bits(), "{x} / {c}");
                    compared += 1;
                }
                assert!((f64::NAN / c).is_nan() && (f64::NAN * inv).is_nan());
            }
        }
        assert!(compared > 1_000_000, "{compared}");
    }

    /// The two coefficients written shorter (clippy's excessive_precision) are the same f64s
    /// as the 17-digit literals they replaced, so `sin_poly` keeps its bits.
    #[test]
    fn shortened_coefficients_keep_their_bits() {
        let was = |s: &str| s.parse::<f64>().unwrap().to_bits();
        let c = <f64 as Real>::SIN_COEFFS;
        assert_eq!(c[0].to_bits(), was("1.9572941063391261e-20"));
        assert_eq!(c[1].to_bits(), was("-8.220635246624329e-18"));
    }
}
