// Energy statistics of one state chunk, reduced on the device: each thread evaluates H (f64) of
// one point, each workgroup merges its threads' accumulators (tree, in a fixed order) and writes
// one; the host merges the workgroups' in order (src/gpu/energy.rs). Mirror of the host path
// measure::energy::{energies, snapshot_stats, EnergyAccumulator}: non-finite points are counted
// out, |H(z0)| ≤ REL_ENERGY_FLOOR is left out of the relative columns.
// Prelude: `real` (the state's f32 or f64), D, DT (state components per point, tangent columns
// included), COMPENSATED (the chunk carries the carried errors eq, ep after the unconverged
// counts: H is evaluated at q + eq, p + ep), REDUCE_SIZE, REL_ENERGY_FLOOR, the system's f64
// constants. Then math_f64.wgsl and the system's energy().

struct EnergyParams {
    n_points: u32,
    // 1: store H of every point as its initial energy h0 (the run's first snapshot).
    record_h0: u32,
    _pad0: u32,
    _pad1: u32,
}

// Keep in sync with `DeviceAccumulator` in src/gpu/energy.rs. Counts are f64 (exact to 2^53).
struct Acc {
    finite: f64,
    mean: f64,
    m2: f64,
    abs_sum: f64,
    abs_max: f64,
    rel_count: f64,
    rel_sum: f64,
    rel_max: f64,
    // Points whose unconverged count is non-zero.
    unconverged: f64,
    // Finite points that escaped: |H − H0| > ESCAPE_FACTOR · (1 + |H0|) (has_escaped).
    escaped: f64,
    // The largest absolute and relative errors of the finite points that did not escape.
    stayed_abs_max: f64,
    stayed_rel_max: f64,
}

@group(0) @binding(0) var<uniform> params: EnergyParams;
@group(0) @binding(1) var<storage, read> state: array<real>;
@group(0) @binding(2) var<storage, read_write> h0: array<f64>;
@group(0) @binding(3) var<storage, read_write> groups: array<Acc>;

var<workgroup> part: array<Acc, REDUCE_SIZE>;

const F64_MAX: f64 = 1.7976931348623157e308lf;

fn empty() -> Acc {
    return Acc(0.0lf, 0.0lf, 0.0lf, 0.0lf, 0.0lf, 0.0lf, 0.0lf, 0.0lf, 0.0lf, 0.0lf, 0.0lf, 0.0lf);
}

// Chan et al.'s merge, as EnergyAccumulator::merge.
fn merge(a: Acc, b: Acc) -> Acc {
    if (a.finite == 0.0lf) {
        var r = b;
        r.unconverged = a.unconverged + b.unconverged;
        r.escaped = a.escaped + b.escaped;
        return r;
    }
    if (b.finite == 0.0lf) {
        var r = a;
        r.unconverged = a.unconverged + b.unconverged;
        r.escaped = a.escaped + b.escaped;
        return r;
    }
    let n = a.finite + b.finite;
    let delta = b.mean - a.mean;
    var r: Acc;
    r.finite = n;
    r.mean = a.mean + delta * b.finite / n;
    r.m2 = a.m2 + b.m2 + delta * delta * a.finite * b.finite / n;
    r.abs_sum = a.abs_sum + b.abs_sum;
    r.abs_max = max(a.abs_max, b.abs_max);
    r.rel_count = a.rel_count + b.rel_count;
    r.rel_sum = a.rel_sum + b.rel_sum;
    r.rel_max = max(a.rel_max, b.rel_max);
    r.unconverged = a.unconverged + b.unconverged;
    r.escaped = a.escaped + b.escaped;
    r.stayed_abs_max = max(a.stayed_abs_max, b.stayed_abs_max);
    r.stayed_rel_max = max(a.stayed_rel_max, b.stayed_rel_max);
    return r;
}

// abs(x) <= F64_MAX is false for NaN and ±inf.
fn finite(x: f64) -> bool {
    return abs(x) <= F64_MAX;
}

// Component k (< D) of q (`off` = 0) or p (`off` = DT) of point i, in f64, with its carried
// error when the chunk is compensated.
fn component(off: u32, k: u32, i: u32, n: u32) -> f64 {
    var x = f64(state[(off + k) * n + i]);
    if (COMPENSATED) {
        x = x + f64(state[(2u * DT + 1u + off + k) * n + i]);
    }
    return x;
}

// One point's accumulator (empty when a component or H is not finite).
fn point(i: u32, n: u32) -> Acc {
    var a = empty();
    a.unconverged = select(0.0lf, 1.0lf, state[2u * DT * n + i] > 0.0);
    var q: array<f64, D>;
    var p: array<f64, D>;
    var ok = true;
    for (var k = 0u; k < D; k++) {
        let x = component(0u, k, i, n);
        let y = component(DT, k, i, n);
        ok = ok && finite(x) && finite(y);
        q[k] = x;
        p[k] = y;
    }
    if (!ok) {
        return a;
    }
    let h = energy(q, p);
    if (params.record_h0 == 1u) {
        h0[i] = h;
    }
    // abs(h) <= F64_MAX is false for NaN and ±inf.
    if (!(abs(h) <= F64_MAX)) {
        return a;
    }
    let e0 = h0[i];
    let err = abs(h - e0);
    a.finite = 1.0lf;
    a.mean = h;
    a.abs_sum = err;
    a.abs_max = err;
    let escaped = err > ESCAPE_FACTOR * (1.0lf + abs(e0));
    a.escaped = select(0.0lf, 1.0lf, escaped);
    a.stayed_abs_max = select(err, 0.0lf, escaped);
    if (abs(e0) > REL_ENERGY_FLOOR) {
        let rel = err / abs(e0);
        a.rel_count = 1.0lf;
        a.rel_sum = rel;
        a.rel_max = rel;
        a.stayed_rel_max = select(rel, 0.0lf, escaped);
    }
    return a;
}

@compute @workgroup_size(REDUCE_SIZE)
fn main(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let group = wid.y * nwg.x + wid.x;
    let i = group * REDUCE_SIZE + lid;
    let n = params.n_points;
    if (i < n) {
        part[lid] = point(i, n);
    } else {
        part[lid] = empty();
    }
    workgroupBarrier();
    for (var s = REDUCE_SIZE / 2u; s > 0u; s = s / 2u) {
        if (lid < s) {
            part[lid] = merge(part[lid], part[lid + s]);
        }
        workgroupBarrier();
    }
    if (lid == 0u) {
        groups[group] = part[0];
    }
}
