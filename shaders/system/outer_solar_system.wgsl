// Outer solar system (GNI I.2.4, D = 18): 6 bodies in 3-D, q = (x_0, y_0, z_0, …, z_5).
// H = Σ |p_i|²/(2 m_i) − G Σ_{i<j} m_i m_j / |q_i − q_j|.
// Prelude arrays: SOLAR_INV_M (1/m_i, 6), SOLAR_GMM (G m_a m_b for the 15 pairs a < b, in
// loop order). CPU mirror: src/system/outer_solar_system.rs (same statement order).

const SOLAR_BODIES: u32 = 6u;

fn grad_q(q: array<real, D>, p: array<real, D>) -> array<real, D> {
    var qq = q;
    var gmm = SOLAR_GMM;
    var g: array<real, D>;
    for (var k = 0u; k < D; k++) {
        g[k] = 0.0;
    }
    var pair = 0u;
    for (var a = 0u; a < SOLAR_BODIES; a++) {
        for (var b = a + 1u; b < SOLAR_BODIES; b++) {
            let dx = qq[3u * a] - qq[3u * b];
            let dy = qq[3u * a + 1u] - qq[3u * b + 1u];
            let dz = qq[3u * a + 2u] - qq[3u * b + 2u];
            let inv_r = 1.0 / sqrt(dx * dx + dy * dy + dz * dz);
            let f = gmm[pair] * (inv_r * inv_r * inv_r);
            let fx = f * dx;
            let fy = f * dy;
            let fz = f * dz;
            g[3u * a] += fx;
            g[3u * a + 1u] += fy;
            g[3u * a + 2u] += fz;
            g[3u * b] -= fx;
            g[3u * b + 1u] -= fy;
            g[3u * b + 2u] -= fz;
            pair += 1u;
        }
    }
    return g;
}

fn grad_p(q: array<real, D>, p: array<real, D>) -> array<real, D> {
    var pp = p;
    var inv_m = SOLAR_INV_M;
    var v: array<real, D>;
    for (var a = 0u; a < SOLAR_BODIES; a++) {
        v[3u * a] = pp[3u * a] * inv_m[a];
        v[3u * a + 1u] = pp[3u * a + 1u] * inv_m[a];
        v[3u * a + 2u] = pp[3u * a + 2u] * inv_m[a];
    }
    return v;
}

// H_qq vq (H_qp = 0): pair (a, b) adds w = G m_a m_b [v − 3 d (d·v)/r²]/r³ to body a and −w to
// body b, with d = q_a − q_b, r = |d|, v = vq_a − vq_b.
fn grad_q_dir(q: array<real, D>, p: array<real, D>, vq: array<real, D>, vp: array<real, D>) -> array<real, D> {
    var qq = q;
    var vv = vq;
    var gmm = SOLAR_GMM;
    var g: array<real, D>;
    for (var k = 0u; k < D; k++) {
        g[k] = 0.0;
    }
    var pair = 0u;
    for (var a = 0u; a < SOLAR_BODIES; a++) {
        for (var b = a + 1u; b < SOLAR_BODIES; b++) {
            let dx = qq[3u * a] - qq[3u * b];
            let dy = qq[3u * a + 1u] - qq[3u * b + 1u];
            let dz = qq[3u * a + 2u] - qq[3u * b + 2u];
            let vx = vv[3u * a] - vv[3u * b];
            let vy = vv[3u * a + 1u] - vv[3u * b + 1u];
            let vz = vv[3u * a + 2u] - vv[3u * b + 2u];
            let inv_r = 1.0 / sqrt(dx * dx + dy * dy + dz * dz);
            let f = gmm[pair] * (inv_r * inv_r * inv_r);
            let s = 3.0 * (dx * vx + dy * vy + dz * vz) * inv_r * inv_r;
            let wx = (vx - s * dx) * f;
            let wy = (vy - s * dy) * f;
            let wz = (vz - s * dz) * f;
            g[3u * a] += wx;
            g[3u * a + 1u] += wy;
            g[3u * a + 2u] += wz;
            g[3u * b] -= wx;
            g[3u * b + 1u] -= wy;
            g[3u * b + 2u] -= wz;
            pair += 1u;
        }
    }
    return g;
}

// H_pp vp = vp / m_i (H_pq = 0).
fn grad_p_dir(q: array<real, D>, p: array<real, D>, vq: array<real, D>, vp: array<real, D>) -> array<real, D> {
    return grad_p(q, vp);
}
