// Poincaré sections (src/section/): each step's sign change of the distance to the plane
// "coordinate SEC_OWN = SEC_VALUE" is a crossing, located on the cubic Hermite interpolant
// of the step with the vector field (∂H/∂p, −∂H/∂q) at both ends and appended to the
// point's records. CPU mirror, the same operations in the same order: src/section/locate.rs.
// The host prelude (src/observe/section.rs) defines SEC_WORD (the point's first section word,
// after its state), SEC_Z = 2·D, SEC_OWN (the coordinate among q1..qD p1..pD), SEC_VALUE,
// SEC_UP, SEC_DOWN, SEC_MAX (records kept), SEC_RECORD = 2·D + 2 and SEC_NEWTON.
// Per point, at [(SEC_WORD + j)·n + i]: j = 0 the crossings seen (past the cap too), 1 and 2
// the steps taken before this dispatch (the low 16 bits, and the rest as a whole number, so
// both are exact in f32 below 2^40 steps), then SEC_MAX records of SEC_RECORD words: the
// step index k in the same two parts, the fraction s of the step, the other coordinates.

fn section_hermite(s: real, y0: real, y1: real, m0: real, m1: real) -> real {
    let a2 = real(3.0) * (y1 - y0) - (real(2.0) * m0 + m1);
    let a3 = real(2.0) * (y0 - y1) + (m0 + m1);
    return y0 + s * (m0 + s * (a2 + s * a3));
}

fn section_hermite_slope(s: real, y0: real, y1: real, m0: real, m1: real) -> real {
    let a2 = real(3.0) * (y1 - y0) - (real(2.0) * m0 + m1);
    let a3 = real(2.0) * (y0 - y1) + (m0 + m1);
    return m0 + s * (real(2.0) * a2 + real(3.0) * s * a3);
}

fn section_crosses(d0: real, d1: real) -> bool {
    let up = d0 < real(0.0) && d1 >= real(0.0);
    let down = d0 > real(0.0) && d1 <= real(0.0);
    return (SEC_UP && up) || (SEC_DOWN && down);
}

// The crossing of step s of this dispatch (from (q0, p0) to (q1, p1)), counted and, under
// the cap, recorded.
fn section_record(i: u32, n: u32, s: u32, base_lo: u32, base_hi: real, h: real,
                  q0: array<real, D>, p0: array<real, D>, q1: array<real, D>, p1: array<real, D>) {
    let seen = state[SEC_WORD * n + i];
    state[SEC_WORD * n + i] = seen + real(1.0);
    let r = u32(seen);
    if (r >= SEC_MAX) {
        return;
    }
    let gq0 = grad_q(q0, p0);
    let gp0 = grad_p(q0, p0);
    let gq1 = grad_q(q1, p1);
    let gp1 = grad_p(q1, p1);
    var z0: array<real, SEC_Z>;
    var z1: array<real, SEC_Z>;
    var m0: array<real, SEC_Z>;
    var m1: array<real, SEC_Z>;
    for (var k = 0u; k < D; k++) {
        z0[k] = q0[k];
        z0[D + k] = p0[k];
        z1[k] = q1[k];
        z1[D + k] = p1[k];
        m0[k] = h * gp0[k];
        m0[D + k] = -(h * gq0[k]);
        m1[k] = h * gp1[k];
        m1[D + k] = -(h * gq1[k]);
    }
    let d0 = z0[SEC_OWN] - SEC_VALUE;
    let d1 = z1[SEC_OWN] - SEC_VALUE;
    var t = d0 / (d0 - d1);
    for (var it = 0u; it < SEC_NEWTON; it++) {
        let g = section_hermite(t, d0, d1, m0[SEC_OWN], m1[SEC_OWN]);
        let gs = section_hermite_slope(t, d0, d1, m0[SEC_OWN], m1[SEC_OWN]);
        if (gs != real(0.0)) {
            t = clamp(t - g / gs, real(0.0), real(1.0));
        }
    }
    let lo = base_lo + (s & 0xFFFFu);
    let at = SEC_WORD + 3u + r * SEC_RECORD;
    state[at * n + i] = real(lo & 0xFFFFu);
    state[(at + 1u) * n + i] = base_hi + real((s >> 16u) + (lo >> 16u));
    state[(at + 2u) * n + i] = t;
    var j = at + 3u;
    for (var c = 0u; c < SEC_Z; c++) {
        if (c != SEC_OWN) {
            state[j * n + i] = section_hermite(t, z0[c], z1[c], m0[c], m1[c]);
            j++;
        }
    }
}
