// Symplectic Euler A (kick then drift). CPU mirror: src/method/symplectic_euler_a.rs.
fn symplectic_euler_a_step(z: ptr<function, Phase>, h: f32) {
    var dq = grad_q((*z).q, (*z).p);
    for (var k = 0u; k < D; k++) {
        (*z).p[k] = (*z).p[k] + (-h) * dq[k];
    }
    var dp = grad_p((*z).q, (*z).p);
    for (var k = 0u; k < D; k++) {
        (*z).q[k] = (*z).q[k] + h * dp[k];
    }
}
