// Störmer–Verlet B / position Verlet (drift–kick–drift). CPU mirror: src/method/position_verlet.rs.
fn position_verlet_step(z: ptr<function, Phase>, h: f32) {
    let half_h = 0.5 * h;
    var dp = grad_p((*z).q, (*z).p);
    for (var k = 0u; k < D; k++) {
        (*z).q[k] = (*z).q[k] + half_h * dp[k];
    }
    var dq = grad_q((*z).q, (*z).p);
    for (var k = 0u; k < D; k++) {
        (*z).p[k] = (*z).p[k] + (-h) * dq[k];
    }
    dp = grad_p((*z).q, (*z).p);
    for (var k = 0u; k < D; k++) {
        (*z).q[k] = (*z).q[k] + half_h * dp[k];
    }
}
