// Pendulum H = p²/(2 m l²) + m g l (1 − cos q). CPU mirror: src/system/pendulum.rs.
// Constants from the host prelude: D, M_G_L, INV_M_L2. sin_poly: shaders/common/math.wgsl.

// Arguments and results are array values indexed by constants (no function-scope arrays).
fn grad_q(q: array<real, D>, p: array<real, D>) -> array<real, D> {
    return array<real, D>(M_G_L * sin_poly(q[0]));
}

fn grad_p(q: array<real, D>, p: array<real, D>) -> array<real, D> {
    return array<real, D>(p[0] * INV_M_L2);
}

// Directional derivatives for the tangent map: H_qq vq + H_qp vp and H_pq vq + H_pp vp.
fn grad_q_dir(q: array<real, D>, p: array<real, D>, vq: array<real, D>, vp: array<real, D>) -> array<real, D> {
    return array<real, D>(M_G_L * cos_poly(q[0]) * vq[0]);
}

fn grad_p_dir(q: array<real, D>, p: array<real, D>, vq: array<real, D>, vp: array<real, D>) -> array<real, D> {
    return array<real, D>(vp[0] * INV_M_L2);
}
