// Symplectic Euler B (drift then kick). CPU mirror: src/method/symplectic_euler_b.rs.
fn symplectic_euler_b_step(z: ptr<function, Phase>, h: f32) {
    var dp = grad_p((*z).q, (*z).p);
    for (var k = 0u; k < D; k++) {
        (*z).q[k] = (*z).q[k] + h * dp[k];
    }
    var dq = grad_q((*z).q, (*z).p);
    for (var k = 0u; k < D; k++) {
        (*z).p[k] = (*z).p[k] + (-h) * dq[k];
    }
}
