// Pendulum H = p² INV_M_L2 / 2 + M_G_L (1 − cos q), in f64. CPU: Pendulum::energy.
fn energy(q: array<f64, D>, p: array<f64, D>) -> f64 {
    return 0.5lf * p[0] * p[0] * INV_M_L2 + M_G_L * (1.0lf - cos_poly_f64(q[0]));
}
