// ∂H/∂q and ∂H/∂p of a phase point with its tangent columns: the point's own derivative
// (components k < D), then for each of the NT tangent columns (v_q, v_p) the directional
// derivative along it (the system's grad_q_dir / grad_p_dir): the exact linearisation of the
// kernel's update. With NT = 0 (no --tangent) the column loops vanish at compile time.
// CPU mirror: `partial` in src/method/mod.rs.

fn own(x: array<f32, DT>) -> array<f32, D> {
    var a = x;
    var y: array<f32, D>;
    for (var k = 0u; k < D; k++) {
        y[k] = a[k];
    }
    return y;
}

fn column(x: array<f32, DT>, j: u32) -> array<f32, D> {
    var a = x;
    var y: array<f32, D>;
    for (var k = 0u; k < D; k++) {
        y[k] = a[D * (1u + j) + k];
    }
    return y;
}

fn dH_dq(q: array<f32, DT>, p: array<f32, DT>) -> array<f32, DT> {
    let q0 = own(q);
    let p0 = own(p);
    var out: array<f32, DT>;
    var g = grad_q(q0, p0);
    for (var k = 0u; k < D; k++) {
        out[k] = g[k];
    }
    for (var j = 0u; j < NT; j++) {
        var t = grad_q_dir(q0, p0, column(q, j), column(p, j));
        for (var k = 0u; k < D; k++) {
            out[D * (1u + j) + k] = t[k];
        }
    }
    return out;
}

fn dH_dp(q: array<f32, DT>, p: array<f32, DT>) -> array<f32, DT> {
    let q0 = own(q);
    let p0 = own(p);
    var out: array<f32, DT>;
    var v = grad_p(q0, p0);
    for (var k = 0u; k < D; k++) {
        out[k] = v[k];
    }
    for (var j = 0u; j < NT; j++) {
        var t = grad_p_dir(q0, p0, column(q, j), column(p, j));
        for (var k = 0u; k < D; k++) {
            out[D * (1u + j) + k] = t[k];
        }
    }
    return out;
}
