// Störmer–Verlet A / velocity Verlet (kick–drift–kick). CPU mirror: src/method/verlet.rs.
fn verlet_step(z: ptr<function, Phase>, h: f32) {
    let half_h = 0.5 * h;
    var dq = dH_dq((*z).q, (*z).p);
    for (var k = 0u; k < DT; k++) {
        (*z).p[k] = (*z).p[k] + (-half_h) * dq[k];
    }
    var dp = dH_dp((*z).q, (*z).p);
    for (var k = 0u; k < DT; k++) {
        (*z).q[k] = (*z).q[k] + h * dp[k];
    }
    dq = dH_dq((*z).q, (*z).p);
    for (var k = 0u; k < DT; k++) {
        (*z).p[k] = (*z).p[k] + (-half_h) * dq[k];
    }
}
