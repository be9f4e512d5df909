//! Shader assembly: a generated prelude (D, WORKGROUP_SIZE, the system's constants), then
//! common math and state, the system's file, and the driver with the method's step generated
//! into it (the method's one description, `Method::step`, run on a `method::wgsl::Kernel`),
//! composed with the system's functions: never a hand-written copy per pair.

use crate::error::{Error, Result};
use crate::method::implicit::rounding_gate;
use crate::method::wgsl::{Kernel, UNROLL_MAX_WORDS};
use crate::method::{Method, Solver, Vector};
use crate::observe::{DriverLines, DriverSite, Placed};
use crate::system::System;

/// Threads per workgroup (x only; the dispatch grid is 2-D in workgroups, see `engine::gpu`).
pub const WORKGROUP_SIZE: u32 = 256;

const MATH: &str = include_str!("../../shaders/common/math.wgsl");
const MATH_F64: &str = include_str!("../../shaders/energy/math_f64.wgsl");
const STATE: &str = include_str!("../../shaders/common/state.wgsl");
const DRIVER: &str = include_str!("../../shaders/common/driver.wgsl");
const VARIATIONAL: &str = include_str!("../../shaders/common/variational.wgsl");

/// What a kernel is compiled for besides its system and method.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KernelSpec {
    /// Tangent columns: 0, or 2d for `--tangent`.
    pub nt: usize,
    /// The implicit stages' settings (`--implicit-tol`, `--implicit-max-iter`).
    pub solver: Solver,
    /// The kernel's float type, `real` in the WGSL: f64 (needs `SHADER_F64`) or f32.
    pub f64: bool,
    /// Compensated updates (`--compensated`, `method::compensated`).
    pub compensated: bool,
}

impl KernelSpec {
    /// A plain f32 kernel with the default f32 solver.
    pub fn f32(nt: usize) -> Self {
        KernelSpec {
            nt,
            solver: Solver::default_for::<f32>(),
            f64: false,
            compensated: false,
        }
    }

    /// The float type's WGSL name.
    pub fn real(&self) -> &'static str {
        if self.f64 {
            "f64"
        } else {
            "f32"
        }
    }

    /// A literal of the kernel's float type that parses to exactly `x` rounded to it.
    pub fn literal(&self, x: f64) -> String {
        crate::wgsl_literal::real_literal(self.f64, x)
    }

    /// Whether the kernel stores f32 pairs and computes in f64 (`method::variational`'s
    /// `map_in_f64`: a compensated f32 run of a discrete map that drifts, as the CPU engine
    /// takes it): then `real` is f64, the state buffer's words `stored` (f32), q and p
    /// loaded as q + eq, p + ep, and stored split back into pairs (`Kernel::with_pairs`).
    /// Such a kernel needs `SHADER_F64` (`GpuEngine::new` checks).
    pub fn pairs(&self, system: &System) -> bool {
        crate::method::variational::map_in_f64(self.compensated, self.f64, system)
    }

    /// The spec the kernel's arithmetic follows: with `pairs`, an f64 kernel whose updates
    /// are plain (the f64 run's step, on the pairs' sums); else `self`.
    fn compute(&self, system: &System) -> KernelSpec {
        match self.pairs(system) {
            true => KernelSpec {
                f64: true,
                compensated: false,
                ..*self
            },
            false => *self,
        }
    }
}

/// The full WGSL source for (system, method) as a plain f32 kernel with `nt` tangent columns.
pub fn compose(system: &System, method: Method, nt: usize) -> String {
    compose_kernel(system, method, &KernelSpec::f32(nt))
}

/// The full WGSL source for (system, method) as `spec` says.
pub fn compose_kernel(system: &System, method: Method, spec: &KernelSpec) -> String {
    compose_observed(system, method, spec, &[], 0)
}

/// The implicit solvers' WGSL constants: the fixed-point loops' rule (`method::implicit`), at
/// the precision the kernel computes in; the variational maps' Newton iterations take
/// `IMPLICIT_NEWTON_TOL`.
fn solver_constants(spec: &KernelSpec) -> String {
    fn rule<T: crate::float::Real>(s: &Solver) -> (f64, bool, f64) {
        (
            rounding_gate::<T>(),
            s.iterates_to_rounding::<T>(),
            s.newton_tol::<T>(),
        )
    }
    let (gate, to_rounding, newton_tol) = if spec.f64 {
        rule::<f64>(&spec.solver)
    } else {
        rule::<f32>(&spec.solver)
    };
    let lit = |x| spec.literal(x);
    format!(
        "const IMPLICIT_TOL: real = {};\nconst IMPLICIT_MAX_ITER: u32 = {}u;\nconst IMPLICIT_GATE: real = {};\nconst IMPLICIT_TO_ROUNDING: bool = {to_rounding};\nconst IMPLICIT_NEWTON_TOL: real = {};\n",
        lit(spec.solver.tol),
        spec.solver.max_iter,
        lit(gate),
        lit(newton_tol)
    )
}

/// `compose_kernel` with the per-step `observers` (`observe`), their words after the
/// state's `state_words` per point: each one's prelude and functions, and its lines in the
/// driver.
pub fn compose_observed(
    system: &System,
    method: Method,
    spec: &KernelSpec,
    observers: &[Placed],
    state_words: usize,
) -> String {
    // The words the state buffer holds: the run's precision (f32 for pairs).
    let (pairs, stored) = (spec.pairs(system), spec.real());
    let spec = &spec.compute(system);
    let (nt, lit) = (spec.nt, |x| spec.literal(x));
    let mut src = format!(
        "// phaseflow kernel: system {}, method {}\nalias real = {};\nalias stored = {stored};\nconst D: u32 = {}u;\nconst NT: u32 = {nt}u;\nconst DT: u32 = D * (1u + NT);\nconst COMPENSATED: bool = {};\nconst WORKGROUP_SIZE: u32 = {}u;\n",
        system.name(),
        method.name(),
        spec.real(),
        system.dof(),
        spec.compensated,
        WORKGROUP_SIZE
    );
    for (name, value) in system.wgsl_constants() {
        src.push_str(&format!("const {name}: real = {};\n", lit(value)));
    }
    src.push_str(&solver_constants(spec));
    for (name, values) in system.wgsl_arrays() {
        let items: Vec<String> = values.iter().map(|&v| lit(v)).collect();
        src.push_str(&format!(
            "const {name} = array<real, {}>({});\n",
            values.len(),
            items.join(", ")
        ));
    }
    // f64 kernels take the f64 polynomial of the energy reduction (the CPU's f64 `sin_poly`)
    // under the names the systems call.
    let math: &[&str] = if spec.f64 {
        &[MATH_F64, MATH_F64_KERNEL]
    } else {
        &[MATH]
    };
    let map: &[&str] = if system.variational() {
        &[VARIATIONAL]
    } else {
        &[]
    };
    for o in observers {
        let word = state_words + o.word;
        src.push_str(&o.observer.wgsl_prelude(word, spec.f64, &lit));
    }
    let sources = observers.iter().map(|o| o.observer.wgsl_source());
    for part in math
        .iter()
        .chain(map)
        .chain(&[STATE, system.wgsl_source()])
        .copied()
        .chain(sources)
    {
        src.push('\n');
        src.push_str(part);
    }
    src.push('\n');
    let (mut kernel, prologue) = write_step(system, method, spec);
    kernel = kernel.with_pairs(pairs);
    fill_driver(&mut src, &kernel, &prologue, observers);
    src
}

/// The driver with the generated lines filled in: the kernel's declarations, prologue, step
/// and stores, and around them the observers' lines (`DriverLines`, in list order: their
/// after-step lines after the step, as the CPU engine runs them).
fn fill_driver(src: &mut String, kernel: &Kernel, prologue: &str, observers: &[Placed]) {
    let unrolled = kernel.unrolled();
    let comp = |v: &str, k: usize| match unrolled {
        true => format!("{v}_{k}"),
        false => format!("{v}[{k}u]"),
    };
    // The derivative vectors a step carries into the next (those a kick–drift method uses).
    let carried: Vec<&str> = [(Vector::Dq, "dq"), (Vector::Dp, "dp")]
        .into_iter()
        .filter(|&(v, _)| kernel.uses(v))
        .map(|(_, name)| name)
        .collect();
    let site = DriverSite {
        d: kernel.dof(),
        carried: &carried,
        comp: &comp,
    };
    let lines: Vec<DriverLines> = observers
        .iter()
        .map(|o| o.observer.wgsl_driver(&site))
        .collect();
    let all = |part: fn(&DriverLines) -> &String| -> String {
        lines.iter().map(|l| part(l).as_str()).collect()
    };
    for line in DRIVER.lines() {
        match line.trim() {
            "//@declarations" => {
                src.push_str(&kernel.declarations());
                src.push_str(&all(|l| &l.start));
            }
            "//@prologue" => src.push_str(prologue),
            "//@step" => {
                src.push_str(&all(|l| &l.before_step));
                src.push_str(kernel.body());
                src.push_str(&all(|l| &l.after_step));
            }
            "//@stores" => {
                src.push_str(&kernel.stores());
                src.push_str(&all(|l| &l.end));
            }
            _ => {
                src.push_str(line);
                src.push('\n');
            }
        }
    }
}

/// The method's step (and prologue) written for (system, spec): in registers where DT allows
/// and the vectors it uses stay within `UNROLL_MAX_WORDS` words a thread, else in arrays
/// (variational kernels, d ≤ 5 without tangent columns, always in registers).
fn write_step(system: &System, method: Method, spec: &KernelSpec) -> (Kernel, String) {
    let write = |registers: bool| {
        let mut kernel = Kernel::new(system, spec.nt)
            .with_compensation(spec.compensated)
            .with_literals(spec.f64)
            .with_registers(registers);
        method.prologue(&mut kernel);
        let prologue = kernel.take_body();
        method.step(&mut kernel);
        (kernel, prologue)
    };
    let (kernel, prologue) = write(true);
    if kernel.unrolled() && !system.variational() && kernel.live_words(spec.f64) > UNROLL_MAX_WORDS
    {
        return write(false);
    }
    (kernel, prologue)
}

/// What `phaseflow show-kernel` prints: the system's shader functions with a header saying
/// what they are (for a formula: separability and how the implicit stages are solved), and
/// its f64 `energy` for the device reduction; or with `method`, the whole kernel `spec` says.
pub fn listing(system: &System, method: Option<Method>, spec: &KernelSpec) -> String {
    if let Some(m) = method {
        return compose_kernel(system, m, spec);
    }
    let d = system.dof();
    let kind = match (system.separable(), system.sweeps()) {
        _ if system.variational() => match system.sweeps() {
            Some(_) => "variational: an explicit two-step map (--method variational)".to_string(),
            None => "variational: a two-step map solved per point by Newton iteration (--method variational), capped solves counted in `unconverged`".to_string(),
        },
        (true, _) => "separable (H_qp = 0): the symplectic methods' stages are explicit".to_string(),
        (false, Some(s)) => format!("not separable; implicit stages solved exactly in {s} sweeps"),
        (false, None) => "not separable (H_qp != 0): implicit stages by fixed-point iteration, `unconverged` counted".to_string(),
    };
    let mut s = format!(
        "// system {}: {d} degree{} of freedom, {kind}\n",
        system.name(),
        if d == 1 { "" } else { "s" }
    );
    if let Some(x) = system.expression() {
        if x.spec.coordinates.is_some() {
            let names: Vec<String> = x
                .coordinates()
                .iter()
                .enumerate()
                .map(|(k, c)| format!("q[{k}] = {c}"))
                .collect();
            s.push_str(&format!("// coordinates: {}\n", names.join(", ")));
        }
        s.push_str(&format!(
            "// {} distinct nodes in H and its derivatives after simplification\n",
            x.h.nodes()
        ));
    }
    s.push_str(if system.variational() {
        "\n// integration kernel (real = f32 or f64): one step of the discrete map, `discrete_step`\n"
    } else {
        "\n// integration kernels (real = f32 or f64): ∂H/∂q, ∂H/∂p and their directional derivatives\n"
    });
    s.push_str(system.wgsl_source());
    match system.energy_wgsl_source() {
        Some(e) => {
            s.push_str("\n// energy statistics on the device, in f64\n");
            s.push_str(e);
        }
        None => s.push_str(
            "\n// energy statistics: on the host (H calls a function the GPU lacks in f64)\n",
        ),
    }
    s
}

/// `sin_poly` / `cos_poly` of f64 kernels: shaders/energy/math_f64.wgsl's, the f64 branch of
/// src/float.rs's `sin_poly`, so GPU and CPU f64 agree to an ulp or two (bit for bit on
/// lavapipe), and the `keep_f64` they ask for: a select on `params.zero_bits` (always 0) that
/// no shader compiler sees through (math_f64.wgsl says why).
const MATH_F64_KERNEL: &str = "fn keep_f64(x: f64) -> f64 {\n    return select(x, -x, params.zero_bits != 0u);\n}\n\nfn sin_poly(x: f64) -> f64 {\n    return sin_poly_f64(x);\n}\n\nfn cos_poly(x: f64) -> f64 {\n    return cos_poly_f64(x);\n}\n";

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::method::ALL;
    use crate::system::CATALOGUE;
    use std::collections::BTreeMap;

    /// Every built-in kernel of every catalogue system (plain and compensated, f32 and f64,
    /// with and without tangent columns) in registers keeps within `UNROLL_MAX_WORDS`; past it
    /// the kernel takes arrays although DT alone would allow registers: the 8-mass spring
    /// chain (DT = 16) in f64, the two-degree-of-freedom systems with their tangent columns
    /// (DT = 10) in RK4 at f64. The one-degree-of-freedom kernels and Kepler's without tangent
    /// columns (the GPU benchmarks') stay in registers.
    #[test]
    fn register_kernels_keep_within_the_word_budget() {
        let kernel = |name: &str, method: Method, nt: usize, f64: bool, compensated: bool| {
            let system = System::new(name, &BTreeMap::new()).unwrap();
            let spec = KernelSpec {
                nt,
                solver: Solver::default_for::<f32>(),
                f64,
                compensated,
            };
            let (k, _) = write_step(&system, method, &spec);
            (k.unrolled(), k.live_words(f64))
        };
        for info in CATALOGUE {
            let system = System::new(info.name, &BTreeMap::new()).unwrap();
            let d = system.dof();
            for &method in ALL {
                if method.check_system(&system).is_err() {
                    continue;
                }
                let columns: &[usize] = if system.variational() {
                    &[0]
                } else {
                    &[0, 2 * d]
                };
                for &nt in columns {
                    for (f64, comp) in [(false, false), (true, false), (false, true), (true, true)]
                    {
                        let (registers, words) = kernel(info.name, method, nt, f64, comp);
                        assert!(
                            !registers || words <= UNROLL_MAX_WORDS || system.variational(),
                            "{} / {}: {words} words in registers",
                            info.name,
                            method.name()
                        );
                        if d == 1 {
                            assert!(registers, "{} / {}", info.name, method.name());
                        }
                    }
                }
            }
        }
        assert_eq!(
            kernel("spring-chain", Method::Rk4, 0, true, false),
            (false, 256)
        );
        assert_eq!(
            kernel("spring-chain", Method::Verlet, 0, false, false),
            (true, 64)
        );
        assert_eq!(kernel("kepler", Method::Rk4, 4, false, false), (true, 80));
        assert_eq!(kernel("kepler", Method::Rk4, 4, true, false), (false, 160));
        for f64 in [false, true] {
            assert!(kernel("kepler", Method::Yoshida4, 0, f64, false).0);
            assert!(kernel("pendulum", Method::SymplecticEulerA, 2, f64, true).0);
        }
    }
}
