// Harmonic oscillator H = p²/(2m) + k q²/2. CPU mirror: src/system/oscillator.rs.
// Constants from the host prelude: D, SPRING_K, INV_MASS.

// Arguments and results are array values indexed by constants (no function-scope arrays).
fn grad_q(q: array<real, D>, p: array<real, D>) -> array<real, D> {
    return array<real, D>(SPRING_K * q[0]);
}

fn grad_p(q: array<real, D>, p: array<real, D>) -> array<real, D> {
    return array<real, D>(p[0] * INV_MASS);
}

// Directional derivatives for the tangent map: H_qq vq + H_qp vp and H_pq vq + H_pp vp.
fn grad_q_dir(q: array<real, D>, p: array<real, D>, vq: array<real, D>, vp: array<real, D>) -> array<real, D> {
    return array<real, D>(SPRING_K * vq[0]);
}

fn grad_p_dir(q: array<real, D>, p: array<real, D>, vq: array<real, D>, vp: array<real, D>) -> array<real, D> {
    return array<real, D>(vp[0] * INV_MASS);
}
