// Vertical rolling disk, one step of the discrete Lagrange–d'Alembert map (seed 003 eq. 26–27).
// q = (x, y, φ, θ), v = (q_{k+1} − q_k)/h. CPU mirror: VerticalDisk::discrete_step
// (src/system/vertical_disk.rs), the same statements in the same order.
fn discrete_step(h: real, q: array<real, D>, v: array<real, D>) -> MapStep {
    let x = q[0] + h * v[0];
    let y = q[1] + h * v[1];
    let phi = q[2] + h * v[2];
    let th = q[3] + h * v[3];
    let vphi = v[2];
    let turn = 0.5 * h * vphi;
    let vth = (DISK_I * v[3] + DISK_MA * (v[0] * cos_poly(phi) + v[1] * sin_poly(phi)))
        / (DISK_I + DISK_MA2 * cos_poly(turn));
    let mid = phi + turn;
    let vx = DISK_A * vth * cos_poly(mid);
    let vy = DISK_A * vth * sin_poly(mid);
    return MapStep(array<real, D>(x, y, phi, th), array<real, D>(vx, vy, vphi, vth), false);
}
