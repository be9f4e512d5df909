// Störmer–Verlet A / velocity Verlet (kick–drift–kick); implicit stages unless H is separable.
// CPU mirror: src/method/verlet.rs.
fn verlet_step(z: ptr<function, Phase>, h: f32) {
    let half_h = 0.5 * h;
    let p0 = (*z).p;
    solve_stage(z, (*z).q, p0, STAGE_KICK, half_h);
    let dp = dH_dp((*z).q, (*z).p);
    var q0 = (*z).q;
    for (var k = 0u; k < DT; k++) {
        q0[k] = q0[k] + half_h * dp[k];
    }
    solve_stage(z, q0, (*z).p, STAGE_DRIFT, half_h);
    let dq = dH_dq((*z).q, (*z).p);
    for (var k = 0u; k < DT; k++) {
        (*z).p[k] = (*z).p[k] + (-half_h) * dq[k];
    }
}
