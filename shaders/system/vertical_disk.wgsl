// Vertical rolling disk, one step of the discrete Lagrange–d'Alembert map (Torrente eq. 26–27).
// q = (x, y, φ, θ), v = (q_{k+1} − q_k)/h. CPU mirror: VerticalDisk::discrete_step
// (src/system/vertical_disk.rs), the same statements in the same order. `next` is the drift
// q + h v the method summed (compensated when the run is): the new q.
fn discrete_step(h: real, q: array<real, D>, next: array<real, D>, v: array<real, D>,
    ev: array<real, D>) -> MapStep {
    let phi = next[2];
    let vphi = v[2];
    let turn = 0.5 * h * vphi;
    // The increment of v^θ, 1 − cos(turn) as 2 sin²(turn/2), summed compensated with COMPENSATED.
    let along = v[0] * cos_poly(phi) + v[1] * sin_poly(phi);
    let sh = sin_poly(0.5 * turn);
    let dvth = DISK_MA * ((along - DISK_A * v[3]) + DISK_A * (2.0 * sh * sh) * v[3])
        / (DISK_I + DISK_MA2 * cos_poly(turn));
    var vth = v[3] + dvth;
    var e = ev;
    if (COMPENSATED) {
        let d = dvth + ev[3];
        vth = v[3] + d;
        e[3] = (v[3] - opaque(vth)) + d;
    }
    let mid = phi + turn;
    let vx = DISK_A * vth * cos_poly(mid);
    let vy = DISK_A * vth * sin_poly(mid);
    return MapStep(next, array<real, D>(vx, vy, vphi, vth), e, false);
}
