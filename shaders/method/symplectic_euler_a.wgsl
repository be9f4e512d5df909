// Symplectic Euler A: p+ = p − h ∂qH(q, p+), then q+ = q + h ∂pH(q, p+).
// CPU mirror: src/method/symplectic_euler_a.rs.
fn symplectic_euler_a_step(z: ptr<function, Phase>, h: f32) {
    let p0 = (*z).p;
    solve_stage(z, (*z).q, p0, STAGE_KICK, h);
    let dp = dH_dp((*z).q, (*z).p);
    for (var k = 0u; k < DT; k++) {
        (*z).q[k] = (*z).q[k] + h * dp[k];
    }
}
