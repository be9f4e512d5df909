// Hénon–Heiles H = (p1² + p2²)/2 + (q1² + q2²)/2 + q1² q2 − q2³/3 (D = 2).
// CPU mirror: src/system/henon_heiles.rs.

fn grad_q(q: array<real, D>, p: array<real, D>) -> array<real, D> {
    return array<real, D>(q[0] + 2.0 * q[0] * q[1], q[1] + q[0] * q[0] - q[1] * q[1]);
}

fn grad_p(q: array<real, D>, p: array<real, D>) -> array<real, D> {
    return p;
}

// H_qq v with H_qq = [[1 + 2 q2, 2 q1], [2 q1, 1 − 2 q2]] (H_qp = 0).
fn grad_q_dir(q: array<real, D>, p: array<real, D>, vq: array<real, D>, vp: array<real, D>) -> array<real, D> {
    return array<real, D>(
        (1.0 + 2.0 * q[1]) * vq[0] + 2.0 * q[0] * vq[1],
        2.0 * q[0] * vq[0] + (1.0 - 2.0 * q[1]) * vq[1],
    );
}

// H_pp v = v (H_pq = 0).
fn grad_p_dir(q: array<real, D>, p: array<real, D>, vq: array<real, D>, vp: array<real, D>) -> array<real, D> {
    return vp;
}
