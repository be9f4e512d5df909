// Harmonic oscillator H = p² INV_MASS / 2 + SPRING_K q² / 2, in f64. CPU: Oscillator::energy.
fn energy(q: array<f64, D>, p: array<f64, D>) -> f64 {
    return 0.5lf * p[0] * p[0] * INV_MASS + 0.5lf * SPRING_K * q[0] * q[0];
}
