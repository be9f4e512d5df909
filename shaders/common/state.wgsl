// The bindings, shared by every kernel (the point itself lives in the generated `main`'s
// scalar registers, see src/method/wgsl.rs).
// The host prelude (src/gpu/shader.rs) defines D (degrees of freedom), NT (tangent columns: 0,
// or 2D with --tangent), DT = D·(1 + NT) (components per point), WORKGROUP_SIZE and the
// system's constants before this file.

// Keep in sync with `RunParams` in src/gpu/mod.rs (a test checks the size with naga).
struct RunParams {
    n_points: u32,
    steps: u32,
    h: f32,
    // Threads per row of the 2-D dispatch grid: point index = gid.y · grid_x + gid.x.
    grid_x: u32,
    // Always 0: sin_poly XORs it into its rounding so that no driver can fold (x + M) − M to x
    // (Mesa's NIR treats SPIR-V float ops as reassociable and did so, with M a constant and
    // with M read from this uniform alike).
    zero_bits: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

@group(0) @binding(0) var<uniform> params: RunParams;
// Structure of arrays: q of component k of point i at [k*n + i], p at [(DT + k)*n + i];
// components k ≥ D are the tangent columns (layout: `State` in src/ensemble/mod.rs); then one
// f32 per point at [2·DT·n + i]: its count of implicit solves that hit the iteration cap.
@group(0) @binding(1) var<storage, read_write> state: array<f32>;
