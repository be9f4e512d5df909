// Double pendulum, angles θ1, θ2 from the downward vertical, canonical momenta (D = 2), Δ = θ1 − θ2:
// H = [m2 l2² p1² + (m1+m2) l1² p2² − 2 m2 l1 l2 p1 p2 cos Δ] / [2 m2 l1² l2² (m1 + m2 sin²Δ)]
//     − (m1+m2) g l1 cos θ1 − m2 g l2 cos θ2.
// CPU mirror (and the derivation of every term): src/system/double_pendulum.rs.
// Constants from the host prelude: D, DP_A, DP_B, DP_C, DP_M1, DP_M2, DP_G1, DP_G2.
// sin_poly / cos_poly: shaders/common/math.wgsl.

struct DpCore {
    s: real,
    co: real,
    w: real,
    np1: real,
    np2: real,
    big_a: real,
    e_d: real,
    a_d: real,
}

fn dp_core(th1: real, th2: real, p1: real, p2: real) -> DpCore {
    var z: DpCore;
    let dl = th1 - th2;
    z.s = sin_poly(dl);
    z.co = cos_poly(dl);
    z.w = 1.0 / (DP_M1 + DP_M2 * z.s * z.s);
    z.np1 = DP_A * p1 - DP_C * p2 * z.co;
    z.np2 = DP_B * p2 - DP_C * p1 * z.co;
    z.big_a = 0.5 * (p1 * z.np1 + p2 * z.np2) * z.w;
    z.e_d = 2.0 * DP_M2 * z.s * z.co;
    z.a_d = z.w * (DP_C * p1 * p2 * z.s - z.big_a * z.e_d);
    return z;
}

// (X1, X2, A_ΔΔ): X_k = ∂A_pk/∂Δ.
fn dp_second(z: DpCore, p1: real, p2: real) -> vec3<real> {
    let x1 = z.w * (DP_C * p2 * z.s - z.np1 * z.w * z.e_d);
    let x2 = z.w * (DP_C * p1 * z.s - z.np2 * z.w * z.e_d);
    let e_dd = 2.0 * DP_M2 * (z.co * z.co - z.s * z.s);
    let a_dd = z.w * (DP_C * p1 * p2 * z.co - 2.0 * z.a_d * z.e_d - z.big_a * e_dd);
    return vec3<real>(x1, x2, a_dd);
}

fn grad_q(q: array<real, D>, p: array<real, D>) -> array<real, D> {
    var g: array<real, D>;
    let z = dp_core(q[0], q[1], p[0], p[1]);
    g[0] = z.a_d + DP_G1 * sin_poly(q[0]);
    g[1] = DP_G2 * sin_poly(q[1]) - z.a_d;
    return g;
}

fn grad_p(q: array<real, D>, p: array<real, D>) -> array<real, D> {
    var v: array<real, D>;
    let z = dp_core(q[0], q[1], p[0], p[1]);
    v[0] = z.np1 * z.w;
    v[1] = z.np2 * z.w;
    return v;
}

// H_qq vq + H_qp vp = (t + G1 cos θ1 vθ1, −t + G2 cos θ2 vθ2), t = A_ΔΔ dv + X1 vp1 + X2 vp2.
fn grad_q_dir(q: array<real, D>, p: array<real, D>, vq: array<real, D>, vp: array<real, D>) -> array<real, D> {
    var g: array<real, D>;
    let z = dp_core(q[0], q[1], p[0], p[1]);
    let x = dp_second(z, p[0], p[1]);
    let dv = vq[0] - vq[1];
    let t = x.z * dv + x.x * vp[0] + x.y * vp[1];
    g[0] = t + DP_G1 * cos_poly(q[0]) * vq[0];
    g[1] = DP_G2 * cos_poly(q[1]) * vq[1] - t;
    return g;
}

// H_pq vq + H_pp vp = (X1 dv + w (a vp1 − c cos Δ vp2), X2 dv + w (b vp2 − c cos Δ vp1)).
fn grad_p_dir(q: array<real, D>, p: array<real, D>, vq: array<real, D>, vp: array<real, D>) -> array<real, D> {
    var v: array<real, D>;
    let z = dp_core(q[0], q[1], p[0], p[1]);
    let x = dp_second(z, p[0], p[1]);
    let dv = vq[0] - vq[1];
    v[0] = x.x * dv + z.w * (DP_A * vp[0] - DP_C * z.co * vp[1]);
    v[1] = x.y * dv + z.w * (DP_B * vp[1] - DP_C * z.co * vp[0]);
    return v;
}
