// Implicit stages of the symplectic Euler / Verlet kernels and the implicit midpoint rule:
// fixed-point (Jacobi) sweeps per point. CPU mirror: src/method/implicit.rs (see its header).
// Prelude constants: SWEEPS (the system's exact sweep count; 0 when it must iterate),
// IMPLICIT_TOL, IMPLICIT_MAX_ITER.

// Implicit solves of this thread that hit the cap during the dispatch (the driver stores them).
var<private> unconverged_steps: u32;

const STAGE_KICK: u32 = 0u;     // p ← P with P = p0 − c ∂qH(q, P)
const STAGE_DRIFT: u32 = 1u;    // q ← Q with Q = q0 + c ∂pH(Q, p)
const STAGE_MIDPOINT: u32 = 2u; // q ← q0 + c ∂pH(q, p), p ← p0 − c ∂qH(q, p) together

struct Sweep {
    x: array<f32, DT>,
    ok: bool,
}

// x ← base + c·g; ok = false when a primal component moved by more than tol·(1 + |x|).
fn sweep(x: array<f32, DT>, base: array<f32, DT>, g: array<f32, DT>, c: f32) -> Sweep {
    var r: Sweep;
    r.x = x;
    r.ok = true;
    var b = base;
    var gg = g;
    for (var k = 0u; k < DT; k++) {
        let next = b[k] + c * gg[k];
        if (k < D && abs(next - r.x[k]) > IMPLICIT_TOL * (1.0 + abs(next))) {
            r.ok = false;
        }
        r.x[k] = next;
    }
    return r;
}

// Solve a stage from the current (q, p) of z with base values q0 / p0: `sweeps` exact sweeps,
// or (sweeps = 0) iterate to the tolerance, counting a solve that hits the cap.
fn solve(z: ptr<function, Phase>, q0: array<f32, DT>, p0: array<f32, DT>, stage: u32, c: f32, sweeps: u32) {
    let iters = select(IMPLICIT_MAX_ITER, sweeps, sweeps > 0u);
    for (var it = 0u; it < iters; it++) {
        var ok = true;
        if (stage == STAGE_KICK) {
            let g = dH_dq((*z).q, (*z).p);
            let r = sweep((*z).p, p0, g, -c);
            (*z).p = r.x;
            ok = r.ok;
        } else if (stage == STAGE_DRIFT) {
            let g = dH_dp((*z).q, (*z).p);
            let r = sweep((*z).q, q0, g, c);
            (*z).q = r.x;
            ok = r.ok;
        } else {
            let gq = dH_dq((*z).q, (*z).p);
            let gp = dH_dp((*z).q, (*z).p);
            let rq = sweep((*z).q, q0, gp, c);
            let rp = sweep((*z).p, p0, gq, -c);
            (*z).q = rq.x;
            (*z).p = rp.x;
            ok = rq.ok && rp.ok;
        }
        if (sweeps == 0u && ok) {
            return;
        }
    }
    if (sweeps == 0u) {
        unconverged_steps += 1u;
    }
}

// The symplectic Euler / Verlet stages: exact sweeps where the system allows them.
fn solve_stage(z: ptr<function, Phase>, q0: array<f32, DT>, p0: array<f32, DT>, stage: u32, c: f32) {
    solve(z, q0, p0, stage, c, SWEEPS);
}
