// Vertical spring chain, in f64. CPU: SpringChain::energy (kinetic + elastic − gravity, the
// first spring fixed at the origin). Arrays from the prelude: CHAIN_K, CHAIN_REST, CHAIN_INV_M,
// CHAIN_M_G (one entry per particle).
fn energy(q: array<f64, D>, p: array<f64, D>) -> f64 {
    var h = 0.0lf;
    var ax = 0.0lf;
    var ay = 0.0lf;
    for (var i = 0u; i < D / 2u; i++) {
        let x = q[2u * i];
        let y = q[2u * i + 1u];
        h += 0.5lf * (p[2u * i] * p[2u * i] + p[2u * i + 1u] * p[2u * i + 1u]) * CHAIN_INV_M[i];
        let stretch = sqrt((x - ax) * (x - ax) + (y - ay) * (y - ay)) - CHAIN_REST[i];
        h += 0.5lf * CHAIN_K[i] * stretch * stretch;
        h -= CHAIN_M_G[i] * y;
        ax = x;
        ay = y;
    }
    return h;
}
