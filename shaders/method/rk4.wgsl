// Classic RK4 on y' = (∂pH, −∂qH). CPU mirror: src/method/rk4.rs.

// f(y) = (q', p') = (∂H/∂p, −∂H/∂q)
fn vector_field(y: Phase) -> Phase {
    var f: Phase;
    f.q = dH_dp(y.q, y.p);
    var g = dH_dq(y.q, y.p);
    for (var k = 0u; k < DT; k++) {
        f.p[k] = -g[k];
    }
    return f;
}

// y0 + c·f
fn stage(y0: Phase, c: f32, f: Phase) -> Phase {
    var y: Phase;
    var a = y0;
    var b = f;
    for (var k = 0u; k < DT; k++) {
        y.q[k] = a.q[k] + c * b.q[k];
        y.p[k] = a.p[k] + c * b.p[k];
    }
    return y;
}

fn rk4_step(z: ptr<function, Phase>, h: f32) {
    let half_h = 0.5 * h;
    let y0 = *z;
    // k1
    var f = vector_field(y0);
    var acc = f;
    var y = stage(y0, half_h, f);
    // k2
    f = vector_field(y);
    for (var k = 0u; k < DT; k++) {
        acc.q[k] = acc.q[k] + 2.0 * f.q[k];
        acc.p[k] = acc.p[k] + 2.0 * f.p[k];
    }
    y = stage(y0, half_h, f);
    // k3
    f = vector_field(y);
    for (var k = 0u; k < DT; k++) {
        acc.q[k] = acc.q[k] + 2.0 * f.q[k];
        acc.p[k] = acc.p[k] + 2.0 * f.p[k];
    }
    y = stage(y0, h, f);
    // k4
    f = vector_field(y);
    for (var k = 0u; k < DT; k++) {
        acc.q[k] = acc.q[k] + 1.0 * f.q[k];
        acc.p[k] = acc.p[k] + 1.0 * f.p[k];
    }
    let h_sixth = h / 6.0;
    *z = stage(y0, h_sixth, acc);
}
