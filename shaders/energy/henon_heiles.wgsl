// Hénon–Heiles H = |p|²/2 + (x² + y²)/2 + x² y − y³/3, in f64. CPU: HenonHeiles::energy.
fn energy(q: array<f64, D>, p: array<f64, D>) -> f64 {
    let x = q[0];
    let y = q[1];
    return 0.5lf * (p[0] * p[0] + p[1] * p[1]) + (0.5lf * (x * x + y * y) + x * x * y - y * y * y / 3.0lf);
}
