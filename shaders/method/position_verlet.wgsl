// Störmer–Verlet B / position Verlet (drift–kick–drift); implicit stages unless H is separable.
// CPU mirror: src/method/position_verlet.rs.
fn position_verlet_step(z: ptr<function, Phase>, h: f32) {
    let half_h = 0.5 * h;
    let q0 = (*z).q;
    solve_stage(z, q0, (*z).p, STAGE_DRIFT, half_h);
    let dq = dH_dq((*z).q, (*z).p);
    var p0 = (*z).p;
    for (var k = 0u; k < DT; k++) {
        p0[k] = p0[k] + (-half_h) * dq[k];
    }
    solve_stage(z, (*z).q, p0, STAGE_KICK, half_h);
    let dp = dH_dp((*z).q, (*z).p);
    for (var k = 0u; k < DT; k++) {
        (*z).q[k] = (*z).q[k] + half_h * dp[k];
    }
}
