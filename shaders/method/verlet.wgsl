// Störmer–Verlet A / velocity Verlet (kick–drift–kick). CPU mirror: src/method/verlet.rs.
fn verlet_step(z: ptr<function, Phase>, h: f32) {
    let half_h = 0.5 * h;
    var dq = grad_q((*z).q, (*z).p);
    for (var k = 0u; k < D; k++) {
        (*z).p[k] = (*z).p[k] + (-half_h) * dq[k];
    }
    var dp = grad_p((*z).q, (*z).p);
    for (var k = 0u; k < D; k++) {
        (*z).q[k] = (*z).q[k] + h * dp[k];
    }
    dq = grad_q((*z).q, (*z).p);
    for (var k = 0u; k < D; k++) {
        (*z).p[k] = (*z).p[k] + (-half_h) * dq[k];
    }
}
