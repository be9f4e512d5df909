// Kepler H = |p|²/2 − 1/|q|, in f64. CPU: Kepler::energy.
fn energy(q: array<f64, D>, p: array<f64, D>) -> f64 {
    return 0.5lf * (p[0] * p[0] + p[1] * p[1]) - 1.0lf / sqrt(q[0] * q[0] + q[1] * q[1]);
}
