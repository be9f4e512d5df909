// Double pendulum, one step of the discrete Euler–Lagrange map (Torrente §1.2): the thesis's
// bilinear system for the new velocity, by Newton iteration from the old one (Cramer's rule),
// to IMPLICIT_NEWTON_TOL relative, at most IMPLICIT_MAX_ITER. CPU mirror:
// DoublePendulumVariational::discrete_step (src/system/double_pendulum_variational.rs).
fn discrete_step(h: real, q: array<real, D>, next: array<real, D>, v: array<real, D>,
    ev: array<real, D>) -> MapStep {
    let co = DPV_C * cos_poly(q[0] - q[1]);
    let n1 = next[0];
    let n2 = next[1];
    let d1 = DPV_A * v[0] + co * v[1] - h * DPV_G1 * sin_poly(n1);
    let d2 = co * v[0] + DPV_B * v[1] - h * DPV_G2 * sin_poly(n2);
    let dn = n1 - n2;
    let cn = DPV_C * cos_poly(dn);
    let sn = h * DPV_C * sin_poly(dn);
    var w1 = v[0];
    var w2 = v[1];
    var capped = true;
    for (var it = 0u; it < IMPLICIT_MAX_ITER; it++) {
        let r1 = DPV_A * w1 + cn * w2 + sn * w1 * w2 - d1;
        let r2 = cn * w1 + DPV_B * w2 - sn * w1 * w2 - d2;
        let j11 = DPV_A + sn * w2;
        let j12 = cn + sn * w1;
        let j21 = cn - sn * w2;
        let j22 = DPV_B - sn * w1;
        let det = j11 * j22 - j12 * j21;
        let e1 = (r1 * j22 - r2 * j12) / det;
        let e2 = (j11 * r2 - j21 * r1) / det;
        w1 = w1 - e1;
        w2 = w2 - e2;
        if (!(max(abs(e1), abs(e2)) > IMPLICIT_NEWTON_TOL * max(abs(w1), abs(w2)))) {
            capped = false;
            break;
        }
    }
    return MapStep(array<real, D>(n1, n2), array<real, D>(w1, w2), ev, capped);
}
