// Symplectic Euler B (drift then kick). CPU mirror: src/method/symplectic_euler_b.rs.
fn symplectic_euler_b_step(z: ptr<function, Phase>, h: f32) {
    var dp = dH_dp((*z).q, (*z).p);
    for (var k = 0u; k < DT; k++) {
        (*z).q[k] = (*z).q[k] + h * dp[k];
    }
    var dq = dH_dq((*z).q, (*z).p);
    for (var k = 0u; k < DT; k++) {
        (*z).p[k] = (*z).p[k] + (-h) * dq[k];
    }
}
