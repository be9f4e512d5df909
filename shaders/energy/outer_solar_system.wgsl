// Outer solar system (6 bodies in 3-D), in f64. CPU: OuterSolarSystem::energy. Arrays from the
// prelude: SOLAR_INV_M (1/m_i), SOLAR_GMM (G m_i m_j for i < j, row by row).
fn energy(q: array<f64, D>, p: array<f64, D>) -> f64 {
    var kinetic = 0.0lf;
    for (var i = 0u; i < 6u; i++) {
        kinetic += 0.5lf * (p[3u * i] * p[3u * i] + p[3u * i + 1u] * p[3u * i + 1u] + p[3u * i + 2u] * p[3u * i + 2u]) * SOLAR_INV_M[i];
    }
    var potential = 0.0lf;
    var pair = 0u;
    for (var i = 0u; i < 6u; i++) {
        for (var j = i + 1u; j < 6u; j++) {
            let dx = q[3u * i] - q[3u * j];
            let dy = q[3u * i + 1u] - q[3u * j + 1u];
            let dz = q[3u * i + 2u] - q[3u * j + 2u];
            potential -= SOLAR_GMM[pair] / sqrt(dx * dx + dy * dy + dz * dz);
            pair++;
        }
    }
    return kinetic + potential;
}
