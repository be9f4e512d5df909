// The bindings, shared by every kernel (the point itself lives in the generated `main`'s
// scalar registers, see src/method/wgsl.rs).
// The host prelude (src/gpu/shader.rs) defines `real` (f32 or f64: the kernel's precision), `stored`, D
// (degrees of freedom), NT (tangent columns: 0, or 2D with --tangent), DT = D·(1 + NT)
// (components per point), COMPENSATED, WORKGROUP_SIZE and the system's constants before this file.

// Keep in sync with `RunParams` in src/gpu/mod.rs (a test checks the size with naga).
struct RunParams {
    n_points: u32,
    steps: u32,
    // The step size: h_hi + h_mid + h_lo, three f32 parts that sum to the f64 step exactly
    // (`step_size`); f32 kernels get h_mid = h_lo = 0.
    h_hi: f32,
    // Threads per row of the 2-D dispatch grid: point index = gid.y · grid_x + gid.x.
    grid_x: u32,
    // Always 0: sin_poly XORs it into its rounding so that no driver can fold (x + M) − M to x
    // (Mesa's NIR treats SPIR-V float ops as reassociable and did so, with M a constant and
    // with M read from this uniform alike).
    zero_bits: u32,
    h_mid: f32,
    h_lo: f32,
    _pad: u32,
}

@group(0) @binding(0) var<uniform> params: RunParams;
// Structure of arrays: q of component k of point i at [k*n + i], p at [(DT + k)*n + i];
// components k ≥ D are the tangent columns (layout: `State` in src/state.rs); then one value
// per point at [2·DT·n + i]: its count of implicit solves that hit the iteration cap; then, with
// COMPENSATED, the carried errors eq at [(2·DT + 1 + k)·n + i] and ep at [(3·DT + 1 + k)·n + i]
// (src/method/compensated.rs). `stored` is `real`, or f32 where the kernel computes in f64 on
// f32 pairs (`KernelSpec::pairs` in src/gpu/shader.rs).
@group(0) @binding(1) var<storage, read_write> state: array<stored>;

// The f64 step rebuilt from its parts (exact: each part holds the next 24 bits).
fn step_size() -> real {
    return (real(params.h_hi) + real(params.h_mid)) + real(params.h_lo);
}

// x, through a select on `params.zero_bits` (always 0) that no shader compiler can see
// through: compensated updates compute (base − x) + δ with x = base + δ, which a compiler that
// treats float arithmetic as reassociable (Mesa's NIR) would fold to 0 (`Kernel::update`).
fn opaque(x: real) -> real {
    return select(x, -x, params.zero_bits != 0u);
}
