// Explicit Euler. CPU mirror: src/method/euler.rs.
fn euler_step(z: ptr<function, Phase>, h: f32) {
    var dq = dH_dq((*z).q, (*z).p);
    var dp = dH_dp((*z).q, (*z).p);
    for (var k = 0u; k < DT; k++) {
        (*z).q[k] = (*z).q[k] + h * dp[k];
        (*z).p[k] = (*z).p[k] + (-h) * dq[k];
    }
}
