// Symplectic Euler A (kick then drift). CPU mirror: src/method/symplectic_euler_a.rs.
fn symplectic_euler_a_step(z: ptr<function, Phase>, h: f32) {
    var dq = dH_dq((*z).q, (*z).p);
    for (var k = 0u; k < DT; k++) {
        (*z).p[k] = (*z).p[k] + (-h) * dq[k];
    }
    var dp = dH_dp((*z).q, (*z).p);
    for (var k = 0u; k < DT; k++) {
        (*z).q[k] = (*z).q[k] + h * dp[k];
    }
}
