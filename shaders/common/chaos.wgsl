// Chaos indicators (--chaos, src/chaos/mod.rs): after every step the point's deviation vector
// (its one tangent column, components D..2D) is rescaled by the power of two `chaos_scale`
// finds (|δ|² into [1, 4): exact, so a dispatch's prologue recomputes the carried force on it
// to the bit) and the step's log growth ln r = ½ ln(|δ|² / |δ_prev|²) is added to the point's
// accumulators, which live in registers for the dispatch (loaded with the point, stored with
// it). CPU mirror, the same operations in the same order: `chaos::update`, `binade_scale`,
// `half_ln_ratio`, `ln_poly` and `ln_reduced` (keep in sync). The host prelude
// (src/observe/chaos.rs) defines CHAOS_WORD (the point's first accumulator word, after its
// state), the constants below, `chaos_series(s2)`, the series' Horner polynomial with the
// coefficients 1/(2k + 1) of the kernel's precision, and `chaos_series_near(s2)`, its first
// terms (enough where the growth is near 1).
// Per point, at [(CHAOS_WORD + j)·n + i]: j = 0 the steps taken, 1 Σ ln r, 2 Σ k ln r, 3 Σ Y,
// 4 |δ|² after the last rescaling (0 before the first step, read as 1).

// e·ln 2 + ln m for m in [1/√2, √2): ln m = 2 atanh(s), s = (m − 1)/(m + 1).
fn chaos_ln_reduced(m: real, e: real) -> real {
    let s = (m - real(1.0)) / (m + real(1.0));
    let s2 = s * s;
    let acc = chaos_series(s2);
    return e * CHAOS_LN2_HI + (real(2.0) * s * acc + e * CHAOS_LN2_LO);
}

// ln x by exact scalings by 2 into [1/√2, √2); 0 gives −∞, anything else not positive and
// finite NaN (made at run time from `params.zero_bits`, which is always 0: WGSL has no
// literal for either).
fn chaos_ln_poly(x: real) -> real {
    if (!(x > real(0.0) && x <= CHAOS_REAL_MAX)) {
        let zero = real(params.zero_bits);
        if (x == real(0.0)) {
            return real(-1.0) / zero;
        }
        return zero / zero;
    }
    var m = x;
    var e = real(0.0);
    // Coarse steps first, as on the CPU.
    while (m >= CHAOS_BIG) {
        m = m * CHAOS_INV_BIG;
        e = e + real(16.0);
    }
    while (m < CHAOS_INV_BIG) {
        m = m * CHAOS_BIG;
        e = e - real(16.0);
    }
    while (m >= CHAOS_SQRT_2) {
        m = m * real(0.5);
        e = e + real(1.0);
    }
    while (m < CHAOS_FRAC_1_SQRT_2) {
        m = m * real(2.0);
        e = e - real(1.0);
    }
    return chaos_ln_reduced(m, e);
}

// The power of two s with ns·s² in [1, 4), by exact scalings by 4 and 1/4 as
// `binade_scale` finds it; 1/√ns for a zero or non-finite ns.
fn chaos_scale(ns: real) -> real {
    if (!(ns > real(0.0) && ns <= CHAOS_REAL_MAX)) {
        return real(1.0) / sqrt(ns);
    }
    var m = ns;
    var s = real(1.0);
    while (m >= CHAOS_BIG) {
        m = m * CHAOS_INV_BIG;
        s = s * real(0.00390625);
    }
    while (m < CHAOS_INV_BIG) {
        m = m * CHAOS_BIG;
        s = s * real(256.0);
    }
    while (m >= real(4.0)) {
        m = m * real(0.25);
        s = s * real(0.5);
    }
    while (m < real(1.0)) {
        m = m * real(4.0);
        s = s * real(2.0);
    }
    return s;
}

// ½ ln(ns / prev), the step's log growth, with one division where the growth is in range:
// ln(ns / prev) = 2 atanh(t), t = (ns − prev)/(ns + prev), by the short series where
// ns / prev is in [15/16, 17/16), the whole one in [1/√2, √2), both tested on the products;
// else through the scalings (`half_ln_ratio` and `update` on the CPU).
fn chaos_half_ln_ratio(ns: real, prev: real) -> real {
    let t = (ns - prev) / (ns + prev);
    if (ns >= prev * CHAOS_NEAR_LOW && ns < prev * CHAOS_NEAR_HIGH) {
        return t * chaos_series_near(t * t);
    }
    if (ns >= prev * CHAOS_FRAC_1_SQRT_2 && ns < prev * CHAOS_SQRT_2) {
        return t * chaos_series(t * t);
    }
    return real(0.5) * chaos_ln_poly(ns / prev);
}
