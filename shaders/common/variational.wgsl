// One step of a variational system's two-step map (src/method/variational.rs): the state
// (q_k, v_k), v_k = (q_{k+1} − q_k)/h, after the step, the velocities' carried errors (with
// COMPENSATED: the `ev` the step was given, updated where the map sums an increment
// compensated; `DiscreteMap::discrete_step`) and whether the system's Newton iteration hit
// IMPLICIT_MAX_ITER (the driver counts it as an unconverged step).
struct MapStep {
    q: array<real, D>,
    v: array<real, D>,
    ev: array<real, D>,
    capped: bool,
}

// The solution x of J x = r (J by rows) by Cramer's rule, the Newton step of the implicit
// systems (Euler's disk, the ball). CPU mirror: `cramer3` in src/float.rs, the same operations
// in the same order.
fn cramer3(j0: vec3<real>, j1: vec3<real>, j2: vec3<real>, r: vec3<real>) -> vec3<real> {
    let c0 = j1.y * j2.z - j1.z * j2.y;
    let c1 = j1.z * j2.x - j1.x * j2.z;
    let c2 = j1.x * j2.y - j1.y * j2.x;
    let det = j0.x * c0 + j0.y * c1 + j0.z * c2;
    return vec3<real>(
        (r.x * c0 + r.y * (j0.z * j2.y - j0.y * j2.z) + r.z * (j0.y * j1.z - j0.z * j1.y)) / det,
        (r.x * c1 + r.y * (j0.x * j2.z - j0.z * j2.x) + r.z * (j0.z * j1.x - j0.x * j1.z)) / det,
        (r.x * c2 + r.y * (j0.y * j2.x - j0.x * j2.y) + r.z * (j0.x * j1.y - j0.y * j1.x)) / det);
}
