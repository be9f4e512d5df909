// The entry point: one thread per point, state read once, `params.steps` steps of the method's
// `step` with the state in registers, written once. CPU mirror: src/engine/cpu.rs (advance_block).

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
    let n = params.n_points;
    let i = gid.x;
    if (i >= n) {
        return;
    }
    var z: Phase;
    for (var k = 0u; k < DT; k++) {
        z.q[k] = state[k * n + i];
        z.p[k] = state[(DT + k) * n + i];
    }
    let h = params.h;
    for (var s = 0u; s < params.steps; s++) {
        step(&z, h);
    }
    for (var k = 0u; k < DT; k++) {
        state[k * n + i] = z.q[k];
        state[(DT + k) * n + i] = z.p[k];
    }
}
