// Simple pendulum, one step of the discrete Euler–Lagrange map (Torrente §1.1): q = q + h v,
// v = v − h ω² sin q. CPU mirror: PendulumVariational::discrete_step
// (src/system/pendulum_variational.rs).
fn discrete_step(h: real, q: array<real, D>, next: array<real, D>, v: array<real, D>,
    ev: array<real, D>) -> MapStep {
    let q1 = next[0];
    return MapStep(array<real, D>(q1), array<real, D>(v[0] - h * W2 * sin_poly(q1)), ev, false);
}
