// Cartesian elastic pendulum H = |p|²/2 + (|q| − 1)²/2 − G_HAT y, in f64.
// CPU: ElasticPendulumCartesian::energy.
fn energy(q: array<f64, D>, p: array<f64, D>) -> f64 {
    let stretch = sqrt(q[0] * q[0] + q[1] * q[1]) - 1.0lf;
    return 0.5lf * (p[0] * p[0] + p[1] * p[1]) + 0.5lf * stretch * stretch - G_HAT * q[1];
}
