// Elastic pendulum, polar: q = (r, θ), p = (p_r, p_θ) (D = 2),
// H = (p_r² + p_θ²/r²)/2 + (r − 1)²/2 − ĝ r cos θ. CPU mirror: src/system/elastic_pendulum.rs.
// Constants from the host prelude: D, G_HAT. sin_poly / cos_poly: shaders/common/math.wgsl.

fn grad_q(q: array<real, D>, p: array<real, D>) -> array<real, D> {
    var g: array<real, D>;
    let r = q[0];
    let th = q[1];
    let inv_r = 1.0 / r;
    let w = p[1] * inv_r;
    g[0] = (r - 1.0) - w * w * inv_r - G_HAT * cos_poly(th);
    g[1] = G_HAT * r * sin_poly(th);
    return g;
}

fn grad_p(q: array<real, D>, p: array<real, D>) -> array<real, D> {
    var v: array<real, D>;
    let inv_r = 1.0 / q[0];
    v[0] = p[0];
    v[1] = p[1] * inv_r * inv_r;
    return v;
}

// H_qq vq + H_qp vp: H_rr = 3 p_θ²/r⁴ + 1, H_rθ = ĝ sin θ, H_θθ = ĝ r cos θ, H_r,p_θ = −2 p_θ/r³.
fn grad_q_dir(q: array<real, D>, p: array<real, D>, vq: array<real, D>, vp: array<real, D>) -> array<real, D> {
    var g: array<real, D>;
    let r = q[0];
    let th = q[1];
    let inv_r = 1.0 / r;
    let inv_r2 = inv_r * inv_r;
    let w = p[1] * inv_r;
    let s = G_HAT * sin_poly(th);
    g[0] = (3.0 * w * w * inv_r2 + 1.0) * vq[0] + s * vq[1] - 2.0 * w * inv_r2 * vp[1];
    g[1] = s * vq[0] + G_HAT * r * cos_poly(th) * vq[1];
    return g;
}

// H_pq vq + H_pp vp: H_p_θ,r = −2 p_θ/r³, H_p_r,p_r = 1, H_p_θ,p_θ = 1/r².
fn grad_p_dir(q: array<real, D>, p: array<real, D>, vq: array<real, D>, vp: array<real, D>) -> array<real, D> {
    var v: array<real, D>;
    let inv_r = 1.0 / q[0];
    let inv_r2 = inv_r * inv_r;
    let w = p[1] * inv_r;
    v[0] = vp[0];
    v[1] = vp[1] * inv_r2 - 2.0 * w * inv_r2 * vq[0];
    return v;
}
