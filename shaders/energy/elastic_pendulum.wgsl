// Polar elastic pendulum H = (p_r² + p_θ²/r²)/2 + (r − 1)²/2 − G_HAT r cos θ, in f64.
// CPU: ElasticPendulum::energy.
fn energy(q: array<f64, D>, p: array<f64, D>) -> f64 {
    let r = q[0];
    return 0.5lf * (p[0] * p[0] + p[1] * p[1] / (r * r)) + 0.5lf * (r - 1.0lf) * (r - 1.0lf)
        - G_HAT * r * cos_poly_f64(q[1]);
}
