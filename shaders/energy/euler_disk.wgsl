// Euler's disk: the scaled energy K + V (units of M r²/2) at the midpoint configuration
// q + h v/2 with v, in f64. CPU: EulerDisk::energy.
fn energy(q: array<f64, D>, p: array<f64, D>) -> f64 {
    let th = q[0] + 0.5lf * H_STEP * p[0];
    let ph = q[1] + 0.5lf * H_STEP * p[1];
    let st = sin_poly_f64(th);
    let ct = cos_poly_f64(th);
    let sp = sin_poly_f64(ph);
    let cp = cos_poly_f64(ph);
    let vt = p[0];
    let vp = p[1];
    let vs = p[2];
    let vx = p[3];
    let vy = p[4];
    let w = vp * ct + vs;
    let k = vt * vt + vp * vp * ct * ct + ED_I1E * (vt * vt + vp * vp * st * st) + ED_I3 * w * w
        + (vx * vx + vy * vy) / (ED_R * ED_R) - ED_E * vp * vp * 2.0lf * st * ct
        + 2.0lf * vx * (vt * st * sp - vp * ct * cp + ED_E * (vp * cp * st + vt * ct * sp)) / ED_R
        - 2.0lf * vy * (vt * st * cp + vp * ct * sp - ED_E * (vp * sp * st - vt * ct * cp)) / ED_R;
    return k + 2.0lf * ED_G_R * (st + ED_E * ct);
}
