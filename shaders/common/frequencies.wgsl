// Frequency analysis (--frequencies): the samples the driver keeps, and NAFF over them, run by
// the point's thread in the pass after the steps (a dispatch of no steps). CPU mirror, the
// same operations in the same order: src/naff.rs (REFINE_STEPS, RESEED there).
// The host prelude (src/observe/frequencies.rs) defines FQ_WORD (the point's first word after
// the carried ones), FQ_HEAD, FQ_STRIDE, FQ_SAMPLES (N), FQ_SIGNALS, FQ_REAL_MASK (bit s: signal
// s is real), FQ_M_WHOLE and FQ_M_HALF (the largest powers of two ≤ N and ≤ N/2),
// FQ_REFINE_STEPS, FQ_CONVERGED, FQ_RESEED, FQ_TWO_PI and FQ_HUGE (the largest finite `real`).
// Per point at [(FQ_WORD + j)·n + i]: j = 0 the steps since the last sample, 1 the samples taken,
// then per signal s four words at 2 + 4s (1 when its samples were finite; the frequency of the
// whole run, of its first half and of its second half, in radians per sample), then from
// FQ_HEAD per signal s its N complex samples, sample j's real and imaginary parts at
// FQ_HEAD + 2Ns + 2j.

fn fq_get(j: u32, n: u32, i: u32) -> real {
    return real(state[(FQ_WORD + j) * n + i]);
}

fn fq_set(j: u32, n: u32, i: u32, v: real) {
    state[(FQ_WORD + j) * n + i] = stored(v);
}

struct FqSums {
    s0r: real,
    s0i: real,
    s1r: real,
    s1i: real,
    s2r: real,
    s2i: real,
}

// In-place radix-2 transform of the m samples from word b: Σ_j z_j e^{sign·2πi jk/m}.
fn fq_fft(b: u32, m: u32, sign: real, n: u32, i: u32) {
    var j = 0u;
    for (var k = 1u; k < m; k++) {
        var bit = m >> 1u;
        while ((j & bit) != 0u) {
            j ^= bit;
            bit >>= 1u;
        }
        j ^= bit;
        if (k < j) {
            let r = fq_get(b + 2u * k, n, i);
            let im = fq_get(b + 2u * k + 1u, n, i);
            fq_set(b + 2u * k, n, i, fq_get(b + 2u * j, n, i));
            fq_set(b + 2u * k + 1u, n, i, fq_get(b + 2u * j + 1u, n, i));
            fq_set(b + 2u * j, n, i, r);
            fq_set(b + 2u * j + 1u, n, i, im);
        }
    }
    var size = 2u;
    while (size <= m) {
        let half = size / 2u;
        for (var k = 0u; k < half; k++) {
            let a = sign * FQ_TWO_PI * real(k) / real(size);
            let wr = cos_poly(a);
            let wi = sin_poly(a);
            var s = k;
            while (s < m) {
                let t = s + half;
                let xr = fq_get(b + 2u * t, n, i);
                let xi = fq_get(b + 2u * t + 1u, n, i);
                let tr = wr * xr - wi * xi;
                let ti = wr * xi + wi * xr;
                let ur = fq_get(b + 2u * s, n, i);
                let ui = fq_get(b + 2u * s + 1u, n, i);
                fq_set(b + 2u * t, n, i, ur - tr);
                fq_set(b + 2u * t + 1u, n, i, ui - ti);
                fq_set(b + 2u * s, n, i, ur + tr);
                fq_set(b + 2u * s + 1u, n, i, ui + ti);
                s += size;
            }
        }
        size *= 2u;
    }
}

// |½F_k − ¼(F_{k−1} + F_{k+1})|²: the Hann-windowed transform's power at bin k (mod m).
fn fq_power(b: u32, m: u32, k: u32, n: u32, i: u32) -> real {
    let ka = (k + m - 1u) % m;
    let kc = (k + 1u) % m;
    let q = real(0.25);
    let re = real(0.5) * fq_get(b + 2u * k, n, i) - q * (fq_get(b + 2u * ka, n, i) + fq_get(b + 2u * kc, n, i));
    let im = real(0.5) * fq_get(b + 2u * k + 1u, n, i) - q * (fq_get(b + 2u * ka + 1u, n, i) + fq_get(b + 2u * kc + 1u, n, i));
    return re * re + im * im;
}

// The coarse frequency (radians per sample) from the transform of m samples at word b.
fn fq_coarse(b: u32, m: u32, is_real: bool, n: u32, i: u32) -> real {
    var lo = 0u;
    var hi = m;
    if (is_real) {
        lo = 1u;
        hi = m / 2u;
    }
    var best = real(-1.0);
    var kb = lo;
    for (var k = lo; k < hi; k++) {
        let p = fq_power(b, m, k, n, i);
        if (p > best) {
            best = p;
            kb = k;
        }
    }
    let a = sqrt(fq_power(b, m, (kb + m - 1u) % m, n, i));
    let bb = sqrt(best);
    let c = sqrt(fq_power(b, m, (kb + 1u) % m, n, i));
    let den = a - real(2.0) * bb + c;
    var delta = real(0.0);
    if (den < real(0.0)) {
        delta = real(0.5) * (a - c) / den;
    }
    if (delta > real(0.5)) {
        delta = real(0.5);
    }
    if (delta < real(-0.5)) {
        delta = real(-0.5);
    }
    var kf = real(kb) + delta;
    if (kf > real(m / 2u)) {
        kf -= real(m);
    }
    return FQ_TWO_PI * kf / real(m);
}

// Σ w f e^{−ixu} times 1, u and u² over the len samples at word b.
fn fq_sums(b: u32, len: u32, x: real, n: u32, i: u32) -> FqSums {
    let c = real(len - 1u) * real(0.5);
    let theta = FQ_TWO_PI / real(len);
    let rr = cos_poly(x);
    let ri = -sin_poly(x);
    let vr1 = cos_poly(theta);
    let vi1 = sin_poly(theta);
    var s = FqSums(real(0.0), real(0.0), real(0.0), real(0.0), real(0.0), real(0.0));
    var er = real(0.0);
    var ei = real(0.0);
    var vr = real(0.0);
    var vi = real(0.0);
    for (var j = 0u; j < len; j++) {
        let u = real(j) - c;
        if (j % FQ_RESEED == 0u) {
            er = cos_poly(x * u);
            ei = -sin_poly(x * u);
            vr = cos_poly(theta * u);
            vi = sin_poly(theta * u);
        }
        let fr = fq_get(b + 2u * j, n, i);
        let fi = fq_get(b + 2u * j + 1u, n, i);
        let w = real(1.0) + vr;
        let ar = w * (fr * er - fi * ei);
        let ai = w * (fr * ei + fi * er);
        s.s0r += ar;
        s.s0i += ai;
        let br = u * ar;
        let bi = u * ai;
        s.s1r += br;
        s.s1i += bi;
        s.s2r += u * br;
        s.s2i += u * bi;
        let en = er * rr - ei * ri;
        let vn = vr * vr1 - vi * vi1;
        ei = er * ri + ei * rr;
        er = en;
        vi = vr * vi1 + vi * vr1;
        vr = vn;
    }
    return s;
}

// Newton's steps on d|φ|²/dx = 0 from x0, safeguarded, ended by a step under FQ_CONVERGED bins.
fn fq_refine(b: u32, len: u32, x0: real, n: u32, i: u32) -> real {
    let bin = FQ_TWO_PI / real(len);
    let quarter = real(0.25) * bin;
    let small = FQ_CONVERGED * bin;
    var x = x0;
    for (var it = 0u; it < FQ_REFINE_STEPS; it++) {
        let s = fq_sums(b, len, x, n, i);
        let g1 = s.s0r * s.s1i - s.s0i * s.s1r;
        let g2 = (s.s1r * s.s1r + s.s1i * s.s1i) - (s.s0r * s.s2r + s.s0i * s.s2i);
        var dx = -(g1 / g2);
        let newton = g2 < real(0.0) && abs(dx) <= real(0.5) * bin;
        if (!newton) {
            dx = real(0.0);
            if (g1 > real(0.0)) {
                dx = quarter;
            }
            if (g1 < real(0.0)) {
                dx = -quarter;
            }
        }
        x += dx;
        if (newton && abs(dx) <= small) {
            break;
        }
    }
    return x;
}

// The frequency of the len samples at word b (m: the largest power of two ≤ len); the samples
// are transformed and transformed back, so they stay as they were to rounding.
fn fq_frequency(b: u32, len: u32, m: u32, is_real: bool, n: u32, i: u32) -> real {
    fq_fft(b, m, real(-1.0), n, i);
    let x0 = fq_coarse(b, m, is_real, n, i);
    fq_fft(b, m, real(1.0), n, i);
    let inv = real(1.0) / real(m);
    for (var j = 0u; j < 2u * m; j++) {
        fq_set(b + j, n, i, fq_get(b + j, n, i) * inv);
    }
    return fq_refine(b, len, x0, n, i);
}

// Every signal's frequencies over the whole run and its two halves.
fn frequencies_analyse(n: u32, i: u32) {
    let half = FQ_SAMPLES / 2u;
    for (var s = 0u; s < FQ_SIGNALS; s++) {
        let b = FQ_HEAD + 2u * FQ_SAMPLES * s;
        let is_real = ((FQ_REAL_MASK >> s) & 1u) == 1u;
        let at = 2u + 4u * s;
        var finite = true;
        for (var j = 0u; j < 2u * FQ_SAMPLES; j++) {
            if (!(abs(fq_get(b + j, n, i)) <= FQ_HUGE)) {
                finite = false;
            }
        }
        if (!finite) {
            fq_set(at, n, i, real(0.0));
            continue;
        }
        fq_set(at, n, i, real(1.0));
        fq_set(at + 1u, n, i, fq_frequency(b, FQ_SAMPLES, FQ_M_WHOLE, is_real, n, i));
        fq_set(at + 2u, n, i, fq_frequency(b, half, FQ_M_HALF, is_real, n, i));
        fq_set(at + 3u, n, i, fq_frequency(b + 2u * half, half, FQ_M_HALF, is_real, n, i));
    }
}
