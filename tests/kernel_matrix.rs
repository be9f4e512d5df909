//! Every kernel phaseflow generates, proven valid for every GPU API without a GPU.
//!
//! The GPU tests run the kernels on lavapipe, whose compiler accepts things a hardware driver
//! may not (and the reverse: a driver may crash on SPIR-V that lavapipe tolerates). Here each
//! kernel of the matrix (every catalogue system × every method that suits it × f32 / f64 ×
//! plain / compensated × with and without tangent columns, the chaos and section variants,
//! formula systems with every function a formula may call) is translated by naga, as wgpu
//! does, to
//!
//! - SPIR-V for Vulkan 1.1 (the options wgpu's Vulkan back-end uses), then checked by Khronos'
//!   `spirv-val --target-env vulkan1.1` (Debian's spirv-tools: `scripts/test` installs it; the
//!   test fails, never skips, without it);
//! - MSL (Metal) for f32 kernels: Metal has no f64, so an f64 kernel must fail the Metal
//!   capabilities (phaseflow asks the adapter for `SHADER_F64` before it builds one);
//! - HLSL shader model 6.0 (DirectX 12), f32 and f64.
//!
//! `broken_kernels_are_caught` shows the check failing on deliberately broken kernels: an f64
//! `sin` (GLSL.std.450's Sin takes 16- and 32-bit floats only, the wgpu issue behind phaseflow's
//! f64 polynomials) and an f64 formula kernel calling `exp`, which phaseflow refuses up front.

use std::collections::BTreeMap;
use std::io::Write;
use std::process::{Command, Stdio};

use naga::back::{hlsl, msl, spv};
use naga::valid::{Capabilities, ValidationFlags, Validator};
use phaseflow::engine::gpu_layout::words_per_point;
use phaseflow::gpu::shader::{compose_observed, KernelSpec};
use phaseflow::method::{self, Method, Solver};
use phaseflow::observe::{self, chaos::ChaosObserver, Observer};
use phaseflow::section::Section;
use phaseflow::system::{ExprSpec, System, CATALOGUE};

/// One kernel of the matrix: what it is (for messages) and its WGSL.
struct Kernel {
    name: String,
    f64: bool,
    source: String,
}

/// The kernel's extras: chaos accumulators, a section's crossing records, or neither.
#[derive(Clone, Copy, PartialEq)]
enum Extra {
    Plain,
    Chaos,
    Section,
}

fn kernel(
    system: &System,
    method: Method,
    nt: usize,
    f64: bool,
    comp: bool,
    extra: Extra,
) -> Kernel {
    let section = (extra == Extra::Section).then(|| section(system).expect("a section"));
    extra_kernel(system, method, nt, f64, comp, extra, section.as_ref())
}

/// The section `q1 = 0` (both directions, 4 records per point), where the system has one:
/// `Section::parse` refuses the others (one degree of freedom, discrete maps) before any
/// kernel exists.
fn section(system: &System) -> Option<Section> {
    Section::parse("q1=0,both", Some(4), system).ok()
}

fn extra_kernel(
    system: &System,
    method: Method,
    nt: usize,
    f64: bool,
    comp: bool,
    extra: Extra,
    section: Option<&Section>,
) -> Kernel {
    let solver = if f64 {
        Solver::default_for::<f64>()
    } else {
        Solver::default_for::<f32>()
    };
    let spec = KernelSpec {
        nt,
        solver,
        f64,
        compensated: comp,
    };
    let words = words_per_point(system.dof() * (1 + nt), comp);
    // The observers the run lists: the chaos indicators with a weighted metric (carrying their
    // accumulators after the state's words), or a section (keeping its crossings).
    let listed: Vec<std::sync::Arc<dyn Observer>> = match (extra, section) {
        (Extra::Chaos, _) => vec![std::sync::Arc::new(ChaosObserver::plain(Some(vec![
            1.0;
            2 * system.dof()
        ])))],
        (Extra::Section, Some(s)) => vec![std::sync::Arc::new(*s)],
        _ => Vec::new(),
    };
    let carried = listed.iter().map(|o| o.carried_words()).sum();
    let placed = observe::active(&listed, carried);
    let source = compose_observed(system, method, &spec, &placed, words);
    let what = match extra {
        Extra::Plain => "",
        Extra::Chaos => " chaos",
        Extra::Section => " section",
    };
    Kernel {
        // A compensated f32 discrete map that drifts computes in f64 on f32 pairs
        // (`KernelSpec::pairs`): its kernel needs f64 too (`GpuEngine::new` checks).
        f64: f64 || spec.pairs(system),
        name: format!(
            "{} / {} / {}{}{} nt={nt}",
            system.name(),
            method.name(),
            if f64 { "f64" } else { "f32" },
            if comp { " compensated" } else { "" },
            what
        ),
        source,
    }
}

/// The matrix over the catalogue: every system × every method it accepts × f32/f64 ×
/// plain/compensated × tangent columns 0 and 2d (d for the discrete maps: none), then one
/// chaos and one section kernel per system and precision.
fn catalogue_kernels() -> Vec<Kernel> {
    let mut out = Vec::new();
    for info in CATALOGUE {
        let system = System::new(info.name, &BTreeMap::new()).unwrap();
        let d = system.dof();
        let columns: &[usize] = if system.variational() {
            &[0]
        } else {
            &[0, 2 * d]
        };
        let mut first = None;
        for &m in method::all() {
            if m.check_system(&system).is_err() {
                continue;
            }
            first.get_or_insert(m);
            for &nt in columns {
                for f64 in [false, true] {
                    for comp in [false, true] {
                        out.push(kernel(&system, m, nt, f64, comp, Extra::Plain));
                    }
                }
            }
        }
        let m = first.expect("every system has a method");
        for f64 in [false, true] {
            if !system.variational() {
                out.push(kernel(&system, m, 1, f64, false, Extra::Chaos));
            }
            if let Some(s) = section(&system) {
                out.push(extra_kernel(
                    &system,
                    m,
                    0,
                    f64,
                    false,
                    Extra::Section,
                    Some(&s),
                ));
            }
        }
    }
    out
}

fn formula(text: &str) -> System {
    System::from_expression(ExprSpec {
        name: "expression".into(),
        formula: text.into(),
        dof: None,
        params: BTreeMap::new(),
        default_state: None,
        coordinates: None,
    })
    .unwrap()
}

/// Formula systems calling every function a formula may use, separable and not, under an
/// explicit and an implicit method; f64 only where phaseflow builds the f64 kernel
/// (`System::check_gpu_f64`: the others are refused before any kernel exists).
fn formula_kernels() -> Vec<Kernel> {
    let formulas = [
        "p1^2/2 - cos(q1) + sin(q1)^2/4",
        "p1^2/2 + sqrt(1 + q1^2)",
        "p1^2/2 + exp(-q1^2) + log(2 + q1^2) + tan(q1/4)",
        "p1^2/2 + sinh(q1/3) + cosh(q1/3) + tanh(q1) + atan(q1)",
        "(p1^2 + p2^2)/2 + (q1^2 + q2^2)/2 + q1^2*q2 - q2^3/3",
        "p1^2/(2*(1 + q1^2/4)) - cos(q1)",
        "(1 + q1^2)*exp(p1^2/2)",
    ];
    let mut out = Vec::new();
    for text in formulas {
        let system = formula(text);
        let d = system.dof();
        for m in [Method::Verlet, Method::ImplicitMidpoint, Method::Yoshida4] {
            if m.check_system(&system).is_err() {
                continue;
            }
            for f64 in [false, true] {
                if f64 && system.check_gpu_f64().is_err() {
                    continue;
                }
                for nt in [0, 2 * d] {
                    out.push(kernel(&system, m, nt, f64, false, Extra::Plain));
                }
                out.push(kernel(&system, m, 0, f64, true, Extra::Plain));
            }
        }
    }
    out
}

/// Parse and validate for a back-end's capabilities.
fn module(
    k: &Kernel,
    caps: Capabilities,
) -> Result<(naga::Module, naga::valid::ModuleInfo), String> {
    let module =
        naga::front::wgsl::parse_str(&k.source).map_err(|e| e.emit_to_string(&k.source))?;
    let info = Validator::new(ValidationFlags::all(), caps)
        .validate(&module)
        .map_err(|e| e.emit_to_string(&k.source))?;
    Ok((module, info))
}

/// The SPIR-V wgpu's Vulkan back-end would hand a Vulkan 1.1 driver (its `spv::Options`, less
/// the graphics-only flags): SPIR-V 1.3, bounds checks, bounded loops.
fn spirv(k: &Kernel) -> Result<Vec<u32>, String> {
    let caps = if k.f64 {
        Capabilities::FLOAT64
    } else {
        Capabilities::empty()
    };
    let (module, info) = module(k, caps)?;
    let mut allowed = vec![spv::Capability::Shader];
    if k.f64 {
        allowed.push(spv::Capability::Float64);
    }
    let restrict = naga::proc::BoundsCheckPolicy::Restrict;
    let options = spv::Options {
        lang_version: (1, 3),
        capabilities: Some(allowed.into_iter().collect()),
        bounds_check_policies: naga::proc::BoundsCheckPolicies {
            index: restrict,
            buffer: restrict,
            image_load: restrict,
            binding_array: naga::proc::BoundsCheckPolicy::Unchecked,
        },
        force_loop_bounding: true,
        ..spv::Options::default()
    };
    spv::write_vec(&module, &info, &options, None).map_err(|e| format!("SPIR-V writer: {e}"))
}

/// `spirv-val --target-env vulkan1.1` on `words`; Err with its message when it rejects them.
fn spirv_val(words: &[u32]) -> Result<(), String> {
    let mut child = Command::new("spirv-val")
        .args(["--target-env", "vulkan1.1", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!("spirv-val could not run ({e}): install Debian's spirv-tools (scripts/test --packages-only does)")
        });
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    child.stdin.take().unwrap().write_all(&bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    match out.status.success() {
        true => Ok(()),
        false => Err(format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )),
    }
}

fn metal(k: &Kernel) -> Result<(), String> {
    let (module, info) = module(k, msl::supported_capabilities())?;
    let options = msl::Options {
        lang_version: (2, 4),
        ..msl::Options::default()
    };
    msl::write_string(&module, &info, &options, &msl::PipelineOptions::default())
        .map(|_| ())
        .map_err(|e| format!("MSL writer: {e}"))
}

fn directx(k: &Kernel) -> Result<(), String> {
    let mut caps = hlsl::supported_capabilities();
    caps.set(Capabilities::FLOAT64, k.f64);
    let (module, info) = module(k, caps)?;
    let options = hlsl::Options {
        shader_model: hlsl::ShaderModel::V6_0,
        ..hlsl::Options::default()
    };
    let mut text = String::new();
    hlsl::Writer::new(&mut text, &options, &hlsl::PipelineOptions::default())
        .write(&module, &info, None)
        .map(|_| ())
        .map_err(|e| format!("HLSL writer: {e}"))
}

/// Every failure of kernel `k` on any back-end, as lines for the report.
fn failures(k: &Kernel) -> Vec<String> {
    let mut bad = Vec::new();
    match spirv(k) {
        Ok(words) => {
            if let Err(e) = spirv_val(&words) {
                bad.push(format!("{}: spirv-val: {e}", k.name));
            }
        }
        Err(e) => bad.push(format!("{}: to SPIR-V: {e}", k.name)),
    }
    match (k.f64, metal(k)) {
        (false, Err(e)) => bad.push(format!("{}: to Metal: {e}", k.name)),
        (true, Ok(())) => bad.push(format!(
            "{}: an f64 kernel passed Metal's capabilities",
            k.name
        )),
        _ => {}
    }
    if let Err(e) = directx(k) {
        bad.push(format!("{}: to HLSL: {e}", k.name));
    }
    bad
}

/// Check every kernel, spread over the machine's cores (most of the time is spirv-val's).
fn check_all(kernels: &[Kernel]) {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = kernels.len().div_ceil(threads).max(1);
    let bad: Vec<String> = std::thread::scope(|scope| {
        let workers: Vec<_> = kernels
            .chunks(chunk)
            .map(|part| scope.spawn(move || part.iter().flat_map(failures).collect::<Vec<_>>()))
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    });
    eprintln!(
        "checked {} kernels for Vulkan 1.1, Metal and DirectX 12",
        kernels.len()
    );
    assert!(
        bad.is_empty(),
        "{} of {} kernels fail:\n{}",
        bad.len(),
        kernels.len(),
        bad.join("\n")
    );
}

#[test]
fn every_catalogue_kernel_is_valid_spirv_msl_and_hlsl() {
    let kernels = catalogue_kernels();
    assert!(kernels.len() > 1000, "only {} kernels", kernels.len());
    check_all(&kernels);
}

#[test]
fn every_formula_kernel_is_valid_spirv_msl_and_hlsl() {
    let kernels = formula_kernels();
    assert!(kernels.len() > 50, "only {} kernels", kernels.len());
    check_all(&kernels);
}

/// The check is not vacuous: an f64 pendulum kernel with its polynomial sine replaced by WGSL's
/// `sin` passes naga but fails spirv-val (GLSL.std.450 Sin on a 64-bit float), and an f64
/// formula kernel calling `exp`, which `check_gpu_f64` refuses, would fail it too.
#[test]
fn broken_kernels_are_caught() {
    let pendulum = System::new("pendulum", &BTreeMap::new()).unwrap();
    let good = kernel(&pendulum, Method::Verlet, 0, true, false, Extra::Plain);
    assert!(failures(&good).is_empty(), "{:?}", failures(&good));
    let broken = Kernel {
        name: "pendulum with f64 sin".into(),
        f64: true,
        source: good
            .source
            .replace("return sin_poly_f64(x);", "return sin(x);"),
    };
    assert_ne!(broken.source, good.source);
    let words = spirv(&broken).expect("naga accepts an f64 sin");
    let message = spirv_val(&words).expect_err("spirv-val must reject an f64 GLSL.std.450 Sin");
    assert!(
        message.contains("Sin") || message.contains("32-bit"),
        "{message}"
    );

    let exp = formula("p1^2/2 + exp(-q1^2)");
    assert!(
        exp.check_gpu_f64().is_err(),
        "an f64 exp kernel must be refused up front"
    );
    let unguarded = kernel(&exp, Method::Verlet, 0, true, false, Extra::Plain);
    let words = spirv(&unguarded).expect("naga accepts an f64 exp");
    assert!(
        spirv_val(&words).is_err(),
        "spirv-val must reject an f64 GLSL.std.450 Exp"
    );
}
