// Harmonic oscillator H = p²/(2m) + k q²/2. CPU mirror: src/system/oscillator.rs.
// Constants from the host prelude: D, SPRING_K, INV_MASS.

fn grad_q(q: array<f32, D>, p: array<f32, D>) -> array<f32, D> {
    var g: array<f32, D>;
    g[0] = SPRING_K * q[0];
    return g;
}

fn grad_p(q: array<f32, D>, p: array<f32, D>) -> array<f32, D> {
    var v: array<f32, D>;
    v[0] = p[0] * INV_MASS;
    return v;
}
