// Pendulum H = p²/(2 m l²) + m g l (1 − cos q). CPU mirror: src/system/pendulum.rs.
// Constants from the host prelude: D, M_G_L, INV_M_L2. sin_poly: shaders/common/math.wgsl.

// Arguments and results are array values indexed by constants (no function-scope arrays).
fn grad_q(q: array<f32, D>, p: array<f32, D>) -> array<f32, D> {
    return array<f32, D>(M_G_L * sin_poly(q[0]));
}

fn grad_p(q: array<f32, D>, p: array<f32, D>) -> array<f32, D> {
    return array<f32, D>(p[0] * INV_M_L2);
}

// Directional derivatives for the tangent map: H_qq vq + H_qp vp and H_pq vq + H_pp vp.
fn grad_q_dir(q: array<f32, D>, p: array<f32, D>, vq: array<f32, D>, vp: array<f32, D>) -> array<f32, D> {
    return array<f32, D>(M_G_L * cos_poly(q[0]) * vq[0]);
}

fn grad_p_dir(q: array<f32, D>, p: array<f32, D>, vq: array<f32, D>, vp: array<f32, D>) -> array<f32, D> {
    return array<f32, D>(vp[0] * INV_M_L2);
}
