// Ball rolling on a turntable, one step of the discrete Lagrange–d'Alembert map (Torrente §3,
// corrected: docs/derivations/ball-turntable.md): q = centre (x, y, height), v = 2ξ/h with the
// step's spatial rotation F = cay(ξ̂); Newton on the cubic residual G(z) with its exact Jacobian
// (Cramer's rule), from the previous ξ, to IMPLICIT_NEWTON_TOL relative, at most IMPLICIT_MAX_ITER.
// CPU mirror: BallStep::step (src/system/ball_turntable.rs), the same statements in order.
// `next` (the drift q + h v) is not the ball's step: its centre moves by the rotation.
fn discrete_step(h: real, q: array<real, D>, next: array<real, D>, v: array<real, D>,
    ev: array<real, D>) -> MapStep {
    let t = BALL_T;
    let hw = h * BALL_OMEGA;
    let ka = BALL_KAPPA * (0.25 * hw * hw - 1.0);
    let qc = 2.0 - ka;
    let c = (1.0 + BALL_KAPPA) * hw;
    let c3 = (1.0 + t * BALL_KAPPA) * hw;
    let cx = BALL_KAPPA / BALL_A * hw * hw;
    let e0 = 0.5 * h * v[0];
    let e1 = 0.5 * h * v[1];
    let e2 = 0.5 * h * v[2];
    let s = 2.0 / (1.0 + e0 * e0 + e1 * e1 + e2 * e2);
    let y1 = q[0] + BALL_A * s * (e1 + t * e2 * e0);
    let y2 = q[1] + BALL_A * s * (-e0 + t * e2 * e1);
    let tk = hw * (t * BALL_KAPPA - 1.0);
    let b1 = s * (qc * e0 + c * e1 + t * ka * e2 * e1 + tk * e2 * e0) - cx * y2;
    let b2 = s * (qc * e1 - c * e0 - t * ka * e2 * e0 + tk * e2 * e1) + cx * y1;
    let b3 = s * (2.0 * e2 + hw * (1.0 - e2 * e2));
    var z0 = e0;
    var z1 = e1;
    var z2 = e2;
    var capped = true;
    for (var it = 0u; it < IMPLICIT_MAX_ITER; it++) {
        let p = c - t * ka * z2;
        let n2 = 1.0 + z0 * z0 + z1 * z1 + z2 * z2;
        let g1 = 2.0 * (qc * z0 - p * z1 - c3 * z2 * z0) - n2 * b1;
        let g2 = 2.0 * (qc * z1 + p * z0 - c3 * z2 * z1) - n2 * b2;
        let g3 = 2.0 * (2.0 * z2 + hw * (1.0 - z2 * z2)) - n2 * b3;
        let d = qc - c3 * z2;
        let j11 = 2.0 * d - 2.0 * b1 * z0;
        let j12 = -2.0 * p - 2.0 * b1 * z1;
        let j13 = 2.0 * (t * ka * z1 - c3 * z0) - 2.0 * b1 * z2;
        let j21 = 2.0 * p - 2.0 * b2 * z0;
        let j22 = 2.0 * d - 2.0 * b2 * z1;
        let j23 = 2.0 * (-t * ka * z0 - c3 * z1) - 2.0 * b2 * z2;
        let j31 = -2.0 * b3 * z0;
        let j32 = -2.0 * b3 * z1;
        let j33 = 2.0 * (2.0 - 2.0 * hw * z2) - 2.0 * b3 * z2;
        let dz = cramer3(vec3<real>(j11, j12, j13), vec3<real>(j21, j22, j23),
            vec3<real>(j31, j32, j33), vec3<real>(g1, g2, g3));
        let d1 = dz.x;
        let d2 = dz.y;
        let d3 = dz.z;
        z0 = z0 - d1;
        z1 = z1 - d2;
        z2 = z2 - d3;
        let step = max(max(abs(d1), abs(d2)), abs(d3));
        let size = max(max(abs(z0), abs(z1)), abs(z2));
        if (!(step > IMPLICIT_NEWTON_TOL * size)) {
            capped = false;
            break;
        }
    }
    let to_v = 2.0 / h;
    return MapStep(array<real, D>(y1, y2, q[2]), array<real, D>(to_v * z0, to_v * z1, to_v * z2), ev, capped);
}
