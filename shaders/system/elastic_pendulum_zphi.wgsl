// Elastic pendulum in (z, φ), one step of the discrete Euler–Lagrange map (Torrente §1.3).
// q = (z, φ), v = (q_{k+1} − q_k)/h. CPU mirror: ElasticPendulumZphi::discrete_step
// (src/system/elastic_pendulum_zphi.rs), the same statements in the same order.
fn discrete_step(h: real, q: array<real, D>, next: array<real, D>, v: array<real, D>,
    ev: array<real, D>) -> MapStep {
    let r0 = 1.0 + q[0];
    let z = next[0];
    let phi = next[1];
    let r = 1.0 + z;
    let vphi = (r0 * r0 * v[1] - h * WP2 * r * sin_poly(phi)) / (r * r);
    let vz = v[0] + h * (r * vphi * vphi - WZ2 * z - WP2 * (1.0 - cos_poly(phi)));
    return MapStep(array<real, D>(z, phi), array<real, D>(vz, vphi), ev, false);
}
