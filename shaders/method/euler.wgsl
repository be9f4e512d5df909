// Explicit Euler. CPU mirror: src/method/euler.rs.
fn euler_step(z: ptr<function, Phase>, h: f32) {
    var dq = grad_q((*z).q, (*z).p);
    var dp = grad_p((*z).q, (*z).p);
    for (var k = 0u; k < D; k++) {
        (*z).q[k] = (*z).q[k] + h * dp[k];
        (*z).p[k] = (*z).p[k] + (-h) * dq[k];
    }
}
