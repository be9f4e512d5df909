// sin_poly / cos_poly: mirror of src/float.rs (keep in sync). Branch-free Cody–Waite range
// reduction to [−π, π], reflection into [−π/2, π/2], odd Taylor polynomial to x^13.
// WGSL's built-in sin is only specified to 2^-11 absolute and varies by driver; this one
// matches the CPU engine to a few ulp so GPU results can be validated point by point.

const INV_TWO_PI: f32 = 0.15915494;
const ROUND_MAGIC: f32 = 12582912.0; // 1.5 · 2^23
const TWO_PI_HI: f32 = 6.28125;
const TWO_PI_MID: f32 = 0.0019350052;
const TWO_PI_LO: f32 = 3.019916e-7;
const PI_HI: f32 = 3.140625;
const PI_LO: f32 = 0.0009676536;
const HALF_PI: f32 = 1.5707964;

// Same operations in the same order as the CPU's sin_poly: k by the magic-constant rounding
// (adding and subtracting M = 1.5 · 2^23 rounds to the nearest integer, ties to even, for
// |x| < 2^22; the sum passes through an XOR with `params.zero_bits` = 0, opaque to the driver,
// which would otherwise fold (x + M) − M to x),
// the reflection as selects (both sides computed, no branch), Horner from the top coefficient
// (the CPU's first step 0·y2 + c is exactly c).
fn sin_poly(x: f32) -> f32 {
    let k = bitcast<f32>(bitcast<u32>(x * INV_TWO_PI + ROUND_MAGIC) ^ params.zero_bits) - ROUND_MAGIC;
    let r = ((x - k * TWO_PI_HI) - k * TWO_PI_MID) - k * TWO_PI_LO;
    let y = select(select(r, (-PI_HI - r) - PI_LO, r < -HALF_PI), (PI_HI - r) + PI_LO, r > HALF_PI);
    let y2 = y * y;
    var acc = 1.6059044e-10;
    acc = acc * y2 - 2.5052108e-8;
    acc = acc * y2 + 2.7557319e-6;
    acc = acc * y2 - 1.984127e-4;
    acc = acc * y2 + 8.333333e-3;
    acc = acc * y2 - 1.6666667e-1;
    return y + y * y2 * acc;
}

fn cos_poly(x: f32) -> f32 {
    return sin_poly(x + HALF_PI);
}
