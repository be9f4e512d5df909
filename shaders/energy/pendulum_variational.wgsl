// Simple pendulum (variational): E_d = ½v² − ½ω²(cos q + cos(q + h v)), in f64.
// CPU: PendulumVariational::energy.
fn energy(q: array<f64, D>, p: array<f64, D>) -> f64 {
    return 0.5lf * p[0] * p[0]
        - 0.5lf * W2 * (cos_poly_f64(q[0]) + cos_poly_f64(q[0] + H_STEP * p[0]));
}
