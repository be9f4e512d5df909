// Harmonic oscillator H = p²/(2m) + k q²/2. CPU mirror: src/system/oscillator.rs.
// Constants from the host prelude: D, SPRING_K, INV_MASS.

// Arguments and results are array values indexed by constants (no function-scope arrays).
fn grad_q(q: array<f32, D>, p: array<f32, D>) -> array<f32, D> {
    return array<f32, D>(SPRING_K * q[0]);
}

fn grad_p(q: array<f32, D>, p: array<f32, D>) -> array<f32, D> {
    return array<f32, D>(p[0] * INV_MASS);
}

// Directional derivatives for the tangent map: H_qq vq + H_qp vp and H_pq vq + H_pp vp.
fn grad_q_dir(q: array<f32, D>, p: array<f32, D>, vq: array<f32, D>, vp: array<f32, D>) -> array<f32, D> {
    return array<f32, D>(SPRING_K * vq[0]);
}

fn grad_p_dir(q: array<f32, D>, p: array<f32, D>, vq: array<f32, D>, vp: array<f32, D>) -> array<f32, D> {
    return array<f32, D>(vp[0] * INV_MASS);
}
