// Symplectic Euler B: q+ = q + h ∂pH(q+, p), then p+ = p − h ∂qH(q+, p).
// CPU mirror: src/method/symplectic_euler_b.rs.
fn symplectic_euler_b_step(z: ptr<function, Phase>, h: f32) {
    let q0 = (*z).q;
    solve_stage(z, q0, (*z).p, STAGE_DRIFT, h);
    let dq = dH_dq((*z).q, (*z).p);
    for (var k = 0u; k < DT; k++) {
        (*z).p[k] = (*z).p[k] + (-h) * dq[k];
    }
}
