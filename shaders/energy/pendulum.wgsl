// Pendulum H = p² INV_M_L2 / 2 + 2 M_G_L sin²(q/2) (= m g l (1 − cos q) without its
// cancellation near q = 0), in f64. CPU: Pendulum::energy_block.
fn energy(q: array<f64, D>, p: array<f64, D>) -> f64 {
    let s = sin_poly_f64(0.5lf * q[0]);
    return 0.5lf * p[0] * p[0] * INV_M_L2 + 2.0lf * M_G_L * (s * s);
}
