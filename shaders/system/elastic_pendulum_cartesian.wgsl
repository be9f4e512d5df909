// Elastic pendulum, Cartesian: q = (x, y), y downward (D = 2),
// H = (p_x² + p_y²)/2 + (√(x² + y²) − 1)²/2 − ĝ y. CPU mirror: src/system/elastic_pendulum_cartesian.rs.
// Constants from the host prelude: D, G_HAT.

fn grad_q(q: array<real, D>, p: array<real, D>) -> array<real, D> {
    let inv_r = 1.0 / sqrt(q[0] * q[0] + q[1] * q[1]);
    let f = 1.0 - inv_r;
    return array<real, D>(q[0] * f, q[1] * f - G_HAT);
}

fn grad_p(q: array<real, D>, p: array<real, D>) -> array<real, D> {
    return p;
}

// H_qq v = (1 − 1/|q|) v + q (q·v)/|q|³ (H_qp = 0).
fn grad_q_dir(q: array<real, D>, p: array<real, D>, vq: array<real, D>, vp: array<real, D>) -> array<real, D> {
    let inv_r = 1.0 / sqrt(q[0] * q[0] + q[1] * q[1]);
    let f = 1.0 - inv_r;
    let s = (q[0] * vq[0] + q[1] * vq[1]) * inv_r * inv_r * inv_r;
    return array<real, D>(f * vq[0] + s * q[0], f * vq[1] + s * q[1]);
}

// H_pp v = v (H_pq = 0).
fn grad_p_dir(q: array<real, D>, p: array<real, D>, vq: array<real, D>, vp: array<real, D>) -> array<real, D> {
    return vp;
}
