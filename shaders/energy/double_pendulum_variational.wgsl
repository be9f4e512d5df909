// Double pendulum (variational): T(q_k, v_k) + ½(V(q_k) + V(q_k + h v_k)), in f64.
// CPU: DoublePendulumVariational::energy.
fn potential_dpv(t1: f64, t2: f64) -> f64 {
    return -DPV_G1 * cos_poly_f64(t1) - DPV_G2 * cos_poly_f64(t2);
}

fn energy(q: array<f64, D>, p: array<f64, D>) -> f64 {
    let t = 0.5lf * (DPV_A * p[0] * p[0] + DPV_B * p[1] * p[1]
        + 2.0lf * DPV_C * p[0] * p[1] * cos_poly_f64(q[0] - q[1]));
    return t + 0.5lf * (potential_dpv(q[0], q[1])
        + potential_dpv(q[0] + H_STEP * p[0], q[1] + H_STEP * p[1]));
}
