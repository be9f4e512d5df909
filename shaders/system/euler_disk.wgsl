// Euler's disk, one step of the discrete Lagrange–d'Alembert map (Torrente §2.2, corrected:
// docs/derivations/euler-disk.md). q = (θ, φ, ψ, x, y), v = (q_{k+1} − q_k)/h. Newton on the
// three equations in the new increments (Δθ, Δφ, Δψ) with the exact Jacobian (Cramer's rule),
// from the old increments, to IMPLICIT_NEWTON_TOL relative, at most IMPLICIT_MAX_ITER iterations.
// CPU mirror: DiskStep (src/system/euler_disk.rs), the same statements in the same order.
// `next` is the drift q0 + h v the method summed (compensated when the run is): the new q.

struct DiskAngles {
    s: real,
    c: real,
    sigma: real,
    kappa: real,
    phi: real,
    psi: real,
    lambda: real,
    gphi: real,
    dphi: real,
}

fn disk_angles(t: real) -> DiskAngles {
    let s = sin_poly(t);
    let c = cos_poly(t);
    let s2 = 2.0 * s * c;
    let c2 = c * c - s * s;
    let i3p = 1.0 + ED_I3;
    return DiskAngles(s, c, s + ED_E * c, c - ED_E * s, ED_K2 * s2 + 2.0 * ED_E * c2,
        i3p * s + ED_E * c, i3p * c - ED_E * s, i3p * c * c + ED_I1E * s * s - ED_E * s2,
        ED_K2 * c2 - 2.0 * ED_E * s2);
}

fn discrete_step(h: real, q0: array<real, D>, next: array<real, D>, v: array<real, D>,
    ev: array<real, D>) -> MapStep {
    let gamma = h * h * ED_G_R;
    let q = next;
    let a0 = h * v[0];
    let b0 = h * v[1];
    let c0 = h * v[2];
    let o = disk_angles(q[0] - 0.5 * a0);
    let ch0 = cos_poly(0.5 * b0);
    let sh0 = sin_poly(0.5 * b0);
    let p_th = 2.0 * ED_A * a0 - 0.5 * b0 * b0 * o.phi - b0 * c0 * o.psi - gamma * o.kappa;
    let p_ph = 2.0 * b0 * o.gphi + 2.0 * c0 * o.lambda - a0 * c0 * o.sigma;
    let p_ps = 2.0 * c0 * (ED_I3 + ch0) + 2.0 * b0 * (ED_I3 * o.c + o.kappa * ch0)
        + 2.0 * a0 * o.sigma * sh0;
    var a = a0;
    var b = b0;
    var c = c0;
    var capped = true;
    for (var it = 0u; it < IMPLICIT_MAX_ITER; it++) {
        let m = disk_angles(q[0] + 0.5 * a);
        let ch = cos_poly(0.5 * b);
        let sh = sin_poly(0.5 * b);
        let r0 = -2.0 * ED_A * a - 0.5 * b * b * m.phi - b * c * m.psi - gamma * m.kappa + p_th;
        let r1 = -2.0 * b * m.gphi - 2.0 * c * m.lambda - a * c * m.sigma + p_ph;
        let r2 = -2.0 * c * (ED_I3 + ch) - 2.0 * b * (ED_I3 * m.c + m.kappa * ch)
            + 2.0 * a * m.sigma * sh
            + p_ps;
        let j00 = -2.0 * ED_A - 0.5 * b * b * m.dphi - 0.5 * b * c * m.lambda
            + 0.5 * gamma * m.sigma;
        let j01 = -b * m.phi - c * m.psi;
        let j02 = -b * m.psi;
        let j10 = b * m.phi + ED_I3 * c * m.s - 0.5 * a * c * m.kappa;
        let j11 = -2.0 * m.gphi;
        let j12 = -2.0 * m.lambda - a * m.sigma;
        let j20 = b * (ED_I3 * m.s + m.sigma * ch) + 2.0 * m.sigma * sh + a * m.kappa * sh;
        let j21 = c * sh - 2.0 * (ED_I3 * m.c + m.kappa * ch) + b * m.kappa * sh + a * m.sigma * ch;
        let j22 = -2.0 * (ED_I3 + ch);
        let du = cramer3(vec3<real>(j00, j01, j02), vec3<real>(j10, j11, j12),
            vec3<real>(j20, j21, j22), vec3<real>(r0, r1, r2));
        let d0 = du.x;
        let d1 = du.y;
        let d2 = du.z;
        a = a - d0;
        b = b - d1;
        c = c - d2;
        if (!(max(max(abs(d0), abs(d1)), abs(d2)) > IMPLICIT_NEWTON_TOL * max(max(abs(a), abs(b)), abs(c)))) {
            capped = false;
            break;
        }
    }
    let heading = q[1] + 0.5 * b;
    let inv_h = 1.0 / h;
    let vx = -ED_R * c * cos_poly(heading) * inv_h;
    let vy = -ED_R * c * sin_poly(heading) * inv_h;
    return MapStep(q, array<real, D>(a * inv_h, b * inv_h, c * inv_h, vx, vy), ev, capped);
}
