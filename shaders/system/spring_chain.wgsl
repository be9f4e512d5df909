// Vertical elastic cord (González-Santos): N = D/2 masses, spring s joins mass s to mass s−1 (mass −1 is
// the fixed anchor at the origin), gravity along +y. q = (x_1, y_1, …, x_N, y_N).
// H = Σ |p_i|²/(2 m_i) + Σ k_i (|r_i − r_{i−1}| − l_i)²/2 − g Σ m_i y_i.
// Prelude arrays (index s = 0..N−1): CHAIN_K, CHAIN_REST, CHAIN_INV_M, CHAIN_M_G.
// CPU mirror: src/system/spring_chain.rs (same statement order).

const CHAIN_N: u32 = D / 2u;

fn grad_q(q: array<real, D>, p: array<real, D>) -> array<real, D> {
    var qq = q;
    var k = CHAIN_K;
    var rest = CHAIN_REST;
    var m_g = CHAIN_M_G;
    var g: array<real, D>;
    for (var s = 0u; s < CHAIN_N; s++) {
        g[2u * s] = 0.0;
        g[2u * s + 1u] = -m_g[s];
    }
    for (var s = 0u; s < CHAIN_N; s++) {
        var ax: real = 0.0;
        var ay: real = 0.0;
        if (s > 0u) {
            ax = qq[2u * s - 2u];
            ay = qq[2u * s - 1u];
        }
        let dx = qq[2u * s] - ax;
        let dy = qq[2u * s + 1u] - ay;
        let len = sqrt(dx * dx + dy * dy);
        let t = k[s] * (1.0 - rest[s] / len);
        let fx = t * dx;
        let fy = t * dy;
        g[2u * s] += fx;
        g[2u * s + 1u] += fy;
        if (s > 0u) {
            g[2u * s - 2u] -= fx;
            g[2u * s - 1u] -= fy;
        }
    }
    return g;
}

fn grad_p(q: array<real, D>, p: array<real, D>) -> array<real, D> {
    var pp = p;
    var inv_m = CHAIN_INV_M;
    var v: array<real, D>;
    for (var s = 0u; s < CHAIN_N; s++) {
        v[2u * s] = pp[2u * s] * inv_m[s];
        v[2u * s + 1u] = pp[2u * s + 1u] * inv_m[s];
    }
    return v;
}

// H_qq vq (H_qp = 0): spring s adds w = k [(1 − l/L) v + (l/L) u (u·v)] to mass s and −w to
// mass s−1, with v = vq_s − vq_{s−1}, L = |r_s − r_{s−1}|, u the unit vector along it.
fn grad_q_dir(q: array<real, D>, p: array<real, D>, vq: array<real, D>, vp: array<real, D>) -> array<real, D> {
    var qq = q;
    var vv = vq;
    var k = CHAIN_K;
    var rest = CHAIN_REST;
    var g: array<real, D>;
    for (var s = 0u; s < D; s++) {
        g[s] = 0.0;
    }
    for (var s = 0u; s < CHAIN_N; s++) {
        var ax: real = 0.0;
        var ay: real = 0.0;
        var avx: real = 0.0;
        var avy: real = 0.0;
        if (s > 0u) {
            ax = qq[2u * s - 2u];
            ay = qq[2u * s - 1u];
            avx = vv[2u * s - 2u];
            avy = vv[2u * s - 1u];
        }
        let dx = qq[2u * s] - ax;
        let dy = qq[2u * s + 1u] - ay;
        let vx = vv[2u * s] - avx;
        let vy = vv[2u * s + 1u] - avy;
        let len = sqrt(dx * dx + dy * dy);
        let rl = rest[s] / len;
        let t = k[s] * (1.0 - rl);
        let c = k[s] * rl * (dx * vx + dy * vy) / (len * len);
        let wx = t * vx + c * dx;
        let wy = t * vy + c * dy;
        g[2u * s] += wx;
        g[2u * s + 1u] += wy;
        if (s > 0u) {
            g[2u * s - 2u] -= wx;
            g[2u * s - 1u] -= wy;
        }
    }
    return g;
}

// H_pp vp = vp / m_i (H_pq = 0).
fn grad_p_dir(q: array<real, D>, p: array<real, D>, vq: array<real, D>, vp: array<real, D>) -> array<real, D> {
    return grad_p(q, vp);
}
