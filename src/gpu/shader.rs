//! Shader assembly: a generated prelude (D, WORKGROUP_SIZE, the system's constants), then
//! common math and state, the system's file, and the driver with the method's step generated
//! into it (`Method::wgsl` on a `method::wgsl::Kernel`). One generator per method, composed
//! with the system's functions: never a hand-written copy per pair.

use crate::error::{Error, Result};
use crate::method::wgsl::Kernel;
use crate::method::{Method, Solver};
use crate::system::System;
pub use crate::wgsl_literal::f32_literal;

/// Threads per workgroup (x only; the dispatch grid is 2-D in workgroups, see `engine::gpu`).
pub const WORKGROUP_SIZE: u32 = 256;

const MATH: &str = include_str!("../../shaders/common/math.wgsl");
const STATE: &str = include_str!("../../shaders/common/state.wgsl");
const DRIVER: &str = include_str!("../../shaders/common/driver.wgsl");

/// The full WGSL source for (system, method), with `nt` tangent columns (0, or 2d for
/// `--tangent`) and the default f32 solver settings.
pub fn compose(system: &System, method: Method, nt: usize) -> String {
    compose_with(system, method, nt, Solver::default_for::<f32>())
}

/// `compose` with the implicit solver's settings (`--implicit-tol`, `--implicit-max-iter`).
pub fn compose_with(system: &System, method: Method, nt: usize, solver: Solver) -> String {
    let mut src = String::new();
    src.push_str(&format!(
        "// phaseflow kernel: system {}, method {}\nconst D: u32 = {}u;\nconst NT: u32 = {nt}u;\nconst DT: u32 = D * (1u + NT);\nconst WORKGROUP_SIZE: u32 = {}u;\n",
        system.name(),
        method.name(),
        system.dof(),
        WORKGROUP_SIZE
    ));
    for (name, value) in system.wgsl_constants() {
        src.push_str(&format!("const {name}: f32 = {};\n", f32_literal(value)));
    }
    src.push_str(&format!(
        "const IMPLICIT_TOL: f32 = {};\nconst IMPLICIT_MAX_ITER: u32 = {}u;\n",
        f32_literal(solver.tol),
        solver.max_iter
    ));
    for (name, values) in system.wgsl_arrays() {
        let items: Vec<String> = values.iter().map(|&v| f32_literal(v)).collect();
        src.push_str(&format!(
            "const {name} = array<f32, {}>({});\n",
            values.len(),
            items.join(", ")
        ));
    }
    for part in [MATH, STATE, system.wgsl_source()] {
        src.push('\n');
        src.push_str(part);
    }
    src.push('\n');
    let mut kernel = Kernel::new(system.dof(), nt, system.info().sweeps);
    method.wgsl(&mut kernel, "h");
    for line in DRIVER.lines() {
        match line.trim() {
            "//@declarations" => src.push_str(&kernel.declarations()),
            "//@step" => src.push_str(kernel.body()),
            "//@stores" => src.push_str(&kernel.stores()),
            _ => {
                src.push_str(line);
                src.push('\n');
            }
        }
    }
    src
}

/// Validate `source` with naga, then build its module and a compute pipeline for `main` inside
/// a validation error scope. `checks` are wgpu's runtime checks for the module.
///
/// # Safety
/// With checks switched off, the caller vouches that the module's storage and array accesses
/// stay in bounds and its loops end without them (`ShaderRuntimeChecks::checked()` is always
/// safe).
pub unsafe fn compute_pipeline(
    ctx: &crate::gpu::GpuContext,
    label: &str,
    source: &str,
    checks: wgpu::ShaderRuntimeChecks,
) -> Result<wgpu::ComputePipeline> {
    validate(source)?;
    let device = &ctx.device;
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let descriptor = wgpu::ShaderModuleDescriptor {
        label: Some(label),
        source: wgpu::ShaderSource::Wgsl(source.into()),
    };
    // SAFETY: the caller's contract above.
    let module = unsafe { device.create_shader_module_trusted(descriptor, checks) };
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some(label),
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    if let Some(e) = pollster::block_on(scope.pop()) {
        return Err(Error::Gpu(format!(
            "{label}: pipeline creation failed: {e}"
        )));
    }
    Ok(pipeline)
}

/// Parse and validate with naga, so a broken shader is reported before any GPU work.
pub fn validate(source: &str) -> Result<(naga::Module, naga::valid::ModuleInfo)> {
    let module = naga::front::wgsl::parse_str(source)
        .map_err(|e| Error::Gpu(format!("WGSL parse error: {}", e.emit_to_string(source))))?;
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .map_err(|e| {
        Error::Gpu(format!(
            "WGSL validation error: {}",
            e.emit_to_string(source)
        ))
    })?;
    Ok((module, info))
}
