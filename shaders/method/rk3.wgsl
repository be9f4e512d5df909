// Kutta's third-order method on y' = (∂pH, −∂qH). CPU mirror: src/method/rk3.rs.
// Uses vector_field from rk4.wgsl (composed before this file).

fn rk3_step(z: ptr<function, Phase>, h: f32) {
    let half_h = 0.5 * h;
    let y0 = *z;
    // k1
    var k1 = vector_field(y0);
    var acc = k1;
    var y: Phase;
    for (var k = 0u; k < DT; k++) {
        y.q[k] = y0.q[k] + half_h * k1.q[k];
        y.p[k] = y0.p[k] + half_h * k1.p[k];
    }
    // k2; stage 3 at y0 + h (2 k2 − k1)
    var f = vector_field(y);
    for (var k = 0u; k < DT; k++) {
        y.q[k] = y0.q[k] + h * (2.0 * f.q[k] - acc.q[k]);
        y.p[k] = y0.p[k] + h * (2.0 * f.p[k] - acc.p[k]);
        acc.q[k] = acc.q[k] + 4.0 * f.q[k];
        acc.p[k] = acc.p[k] + 4.0 * f.p[k];
    }
    // k3
    f = vector_field(y);
    for (var k = 0u; k < DT; k++) {
        acc.q[k] = acc.q[k] + 1.0 * f.q[k];
        acc.p[k] = acc.p[k] + 1.0 * f.p[k];
    }
    let h_sixth = h / 6.0;
    for (var k = 0u; k < DT; k++) {
        (*z).q[k] = y0.q[k] + h_sixth * acc.q[k];
        (*z).p[k] = y0.p[k] + h_sixth * acc.p[k];
    }
}
