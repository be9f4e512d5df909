// sin_poly_f64 / cos_poly_f64: the f64 branch of src/float.rs's sin_poly (keep in sync): Cody–
// Waite reduction with 2π in three parts, reflection into [−π/2, π/2], odd Taylor polynomial to
// x^21. WGSL (and SPIR-V) have no f64 sin/cos; this gives the energy reduction H to a few ulp,
// like the CPU engine's libm cos. k is rounded with `round`, not with the CPU's magic constant:
// shader compilers treat float arithmetic as reassociable unless told otherwise, and Mesa folds
// (x + M) − M back to x (seen on lavapipe: k came out unrounded and cos ≈ 0). For the same
// reason the reflection's difference passes through `keep_f64` before its constant is added
// (Mesa gathered (π_hi − y) + π_lo into (π_hi + π_lo) − y): the includer defines it, in the
// kernels as a select on `params.zero_bits` that no compiler sees through (bit for bit with the
// CPU on lavapipe), in the energy reduction, whose sums are not compared bit for bit, as x.

const F64_INV_TWO_PI: f64 = 0.15915494309189535lf;
const F64_TWO_PI_HI: f64 = 6.2831853069365025lf;
const F64_TWO_PI_MID: f64 = 2.4308402025215864e-10lf;
const F64_TWO_PI_LO: f64 = 8.089064995183803e-21lf;
const F64_PI_HI: f64 = 3.141592653589793lf;
const F64_PI_LO: f64 = 1.2246467991473532e-16lf;
const F64_HALF_PI: f64 = 1.5707963267948966lf;

fn sin_poly_f64(x: f64) -> f64 {
    let k = round(x * F64_INV_TWO_PI);
    var y = ((x - k * F64_TWO_PI_HI) - k * F64_TWO_PI_MID) - k * F64_TWO_PI_LO;
    if (y > F64_HALF_PI) {
        y = keep_f64(F64_PI_HI - y) + F64_PI_LO;
    } else if (y < -F64_HALF_PI) {
        y = keep_f64(-F64_PI_HI - y) - F64_PI_LO;
    }
    let y2 = y * y;
    var acc = 0.0lf;
    acc = acc * y2 + 1.9572941063391261e-20lf;
    acc = acc * y2 - 8.220635246624329e-18lf;
    acc = acc * y2 + 2.8114572543455206e-15lf;
    acc = acc * y2 - 7.647163731819816e-13lf;
    acc = acc * y2 + 1.6059043836821613e-10lf;
    acc = acc * y2 - 2.505210838544172e-8lf;
    acc = acc * y2 + 2.755731922398589e-6lf;
    acc = acc * y2 - 1.984126984126984e-4lf;
    acc = acc * y2 + 8.333333333333333e-3lf;
    acc = acc * y2 - 1.6666666666666666e-1lf;
    return y + y * y2 * acc;
}

fn cos_poly_f64(x: f64) -> f64 {
    return sin_poly_f64(x + F64_HALF_PI);
}
