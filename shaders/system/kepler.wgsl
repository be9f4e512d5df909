// Kepler problem H = |p|²/2 − 1/|q| (D = 2). CPU mirror: src/system/kepler.rs.

fn grad_q(q: array<real, D>, p: array<real, D>) -> array<real, D> {
    let inv_r = 1.0 / sqrt(q[0] * q[0] + q[1] * q[1]);
    let inv_r3 = inv_r * inv_r * inv_r;
    return array<real, D>(q[0] * inv_r3, q[1] * inv_r3);
}

fn grad_p(q: array<real, D>, p: array<real, D>) -> array<real, D> {
    return p;
}

// H_qq v = v/r³ − 3 q (q·v)/r⁵ (H_qp = 0).
fn grad_q_dir(q: array<real, D>, p: array<real, D>, vq: array<real, D>, vp: array<real, D>) -> array<real, D> {
    let inv_r = 1.0 / sqrt(q[0] * q[0] + q[1] * q[1]);
    let inv_r3 = inv_r * inv_r * inv_r;
    let s = 3.0 * (q[0] * vq[0] + q[1] * vq[1]) * inv_r * inv_r;
    return array<real, D>((vq[0] - s * q[0]) * inv_r3, (vq[1] - s * q[1]) * inv_r3);
}

// H_pp v = v (H_pq = 0).
fn grad_p_dir(q: array<real, D>, p: array<real, D>, vq: array<real, D>, vp: array<real, D>) -> array<real, D> {
    return vp;
}
