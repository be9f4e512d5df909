// Double pendulum, in f64. CPU: DoublePendulum::energy, with numerator and denominator divided
// by m2 l1² l2²: T = (DP_A p1² + DP_B p2² − 2 DP_C p1 p2 cos Δ) / (2 (DP_M1 + DP_M2 sin² Δ)),
// V = −DP_G1 cos q1 − DP_G2 cos q2.
fn energy(q: array<f64, D>, p: array<f64, D>) -> f64 {
    let dl = q[0] - q[1];
    let s = sin_poly_f64(dl);
    let num = DP_A * p[0] * p[0] + DP_B * p[1] * p[1] - 2.0lf * DP_C * p[0] * p[1] * cos_poly_f64(dl);
    let den = 2.0lf * (DP_M1 + DP_M2 * s * s);
    return num / den - DP_G1 * cos_poly_f64(q[0]) - DP_G2 * cos_poly_f64(q[1]);
}
