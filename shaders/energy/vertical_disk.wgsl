// Vertical rolling disk: E = ½m(v^x² + v^y²) + ½I v^θ² + ½J v^φ² of the state (q, v), in f64.
// CPU: VerticalDisk::energy.
fn energy(q: array<f64, D>, p: array<f64, D>) -> f64 {
    return 0.5lf * DISK_M * (p[0] * p[0] + p[1] * p[1]) + 0.5lf * DISK_I * p[3] * p[3]
        + 0.5lf * DISK_J * p[2] * p[2];
}
