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

// The same operations in the same order as the CPU's sin_poly, so that results match bit for
// bit where the GPU rounds as the CPU does (lavapipe):
// - k = round(x/2π) by the magic constant M = 1.5 · 2^23 (adding and subtracting it rounds to
//   the nearest integer, ties to even, for |x| < 2^22). The sum passes through an XOR with
//   `params.zero_bits` = 0, which the driver cannot see through: Mesa's NIR treats SPIR-V
//   float arithmetic as reassociable and folded (x + M) − M to x, losing the rounding;
// - the reflection into [−π/2, π/2] as selects (both sides computed, no branch), each
//   difference kept apart from the constant added to it (`keep`);
// - Horner from the top coefficient (the CPU's first step 0·y2 + c is exactly c).
// x, through a select on `params.zero_bits` (always 0) that no shader compiler can see
// through. Mesa's NIR treats float arithmetic as reassociable and gathers constants: it
// computed the reflection (π_hi − r) + π_lo as (π_hi + π_lo) − r, and sin and cos came out a
// few ulp from the CPU's beyond |x| = π/2 (and cos for every x, whose argument x + π/2 lands
// there).
fn keep(x: f32) -> f32 {
    return select(x, -x, params.zero_bits != 0u);
}

fn sin_poly(x: f32) -> f32 {
    let k = bitcast<f32>(bitcast<u32>(x * INV_TWO_PI + ROUND_MAGIC) ^ params.zero_bits) - ROUND_MAGIC;
    let r = ((x - k * TWO_PI_HI) - k * TWO_PI_MID) - k * TWO_PI_LO;
    let y = select(select(r, keep(-PI_HI - r) - PI_LO, r < -HALF_PI), keep(PI_HI - r) + PI_LO, r > HALF_PI);
    let y2 = y * y;
    let acc = ((((1.6059044e-10 * y2 - 2.5052108e-8) * y2 + 2.7557319e-6) * y2 - 1.984127e-4) * y2
        + 8.333333e-3) * y2 - 1.6666667e-1;
    return y + y * y2 * acc;
}

fn cos_poly(x: f32) -> f32 {
    return sin_poly(x + HALF_PI);
}
