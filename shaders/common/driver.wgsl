// The entry point: one thread per point, state read once, `params.steps` steps of the method's
// `step` with the state in registers, written once (plus the unconverged count, when non-zero). CPU mirror: src/engine/cpu.rs (advance_block).

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n = params.n_points;
    // A 2-D grid of workgroups (x × y), so a chunk is not limited to 65 535 workgroups.
    let i = gid.y * params.grid_x + gid.x;
    if (i >= n) {
        return;
    }
    var z: Phase;
    for (var k = 0u; k < DT; k++) {
        z.q[k] = state[k * n + i];
        z.p[k] = state[(DT + k) * n + i];
    }
    let h = params.h;
    unconverged_steps = 0u;
    for (var s = 0u; s < params.steps; s++) {
        step(&z, h);
    }
    for (var k = 0u; k < DT; k++) {
        state[k * n + i] = z.q[k];
        state[(DT + k) * n + i] = z.p[k];
    }
    // The point's count of implicit solves that hit the cap, kept after its 2·DT components
    // (an f32 holding a whole number: exact up to 2^24).
    if (unconverged_steps > 0u) {
        state[2u * DT * n + i] = state[2u * DT * n + i] + f32(unconverged_steps);
    }
}
