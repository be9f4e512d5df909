// Störmer–Verlet B / position Verlet (drift–kick–drift). CPU mirror: src/method/position_verlet.rs.
fn position_verlet_step(z: ptr<function, Phase>, h: f32) {
    let half_h = 0.5 * h;
    var dp = dH_dp((*z).q, (*z).p);
    for (var k = 0u; k < DT; k++) {
        (*z).q[k] = (*z).q[k] + half_h * dp[k];
    }
    var dq = dH_dq((*z).q, (*z).p);
    for (var k = 0u; k < DT; k++) {
        (*z).p[k] = (*z).p[k] + (-h) * dq[k];
    }
    dp = dH_dp((*z).q, (*z).p);
    for (var k = 0u; k < DT; k++) {
        (*z).q[k] = (*z).q[k] + half_h * dp[k];
    }
}
