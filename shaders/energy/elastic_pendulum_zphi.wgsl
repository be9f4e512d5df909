// Elastic pendulum in (z, φ): T(q_k, v_k) + ½(V(q_k) + V(q_k + h v_k)), in f64.
// CPU: ElasticPendulumZphi::energy.
fn potential_zphi(z: f64, phi: f64) -> f64 {
    let s = z + SHIFT;
    return 0.5lf * WZ2 * s * s - WP2 * (1.0lf + z) * cos_poly_f64(phi);
}

fn energy(q: array<f64, D>, p: array<f64, D>) -> f64 {
    let r = 1.0lf + q[0];
    let t = 0.5lf * (p[0] * p[0] + r * r * p[1] * p[1]);
    return t + 0.5lf * (potential_zphi(q[0], q[1])
        + potential_zphi(q[0] + H_STEP * p[0], q[1] + H_STEP * p[1]));
}
