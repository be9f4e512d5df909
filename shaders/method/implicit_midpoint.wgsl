// Implicit midpoint rule: m = y + (h/2) f(m) by fixed-point iteration, then y+ = 2m − y.
// CPU mirror: src/method/implicit_midpoint.rs.
fn implicit_midpoint_step(z: ptr<function, Phase>, h: f32) {
    let half_h = 0.5 * h;
    let q0 = (*z).q;
    let p0 = (*z).p;
    solve(z, q0, p0, STAGE_MIDPOINT, half_h, 0u);
    var a = q0;
    var b = p0;
    for (var k = 0u; k < DT; k++) {
        (*z).q[k] = 2.0 * (*z).q[k] - a[k];
        (*z).p[k] = 2.0 * (*z).p[k] - b[k];
    }
}
