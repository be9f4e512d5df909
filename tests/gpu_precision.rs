//! The GPU engine at f64 and with compensated summation (issue 12), against the CPU engine.
//! Like tests/gpu.rs these need a wgpu adapter (CI: lavapipe) and fail when there is none.

mod common;

use common::{disk, oscillator_ring, system, verlet_invariant_drift};
use phaseflow::engine::{CpuEngine, Engine, GpuEngine, Integrator};
use phaseflow::ensemble::State;
use phaseflow::gpu;
use phaseflow::method::Method;

/// Largest relative difference per component, |a − b| / max(|a|, |b|, 1e-300).
fn max_rel_per_component(a: &State<f64>, b: &State<f64>) -> f64 {
    a.q.iter()
        .zip(&b.q)
        .chain(a.p.iter().zip(&b.p))
        .map(|(&x, &y)| (x - y).abs() / x.abs().max(y.abs()).max(1e-300))
        .fold(0.0, f64::max)
}

/// f64 on the GPU: a pendulum and a Kepler ensemble after 10⁴ steps equal the CPU f64 engine's
/// to 1e-12 per component.
#[test]
fn gpu_f64_pendulum_and_kepler_agree_with_cpu_f64_after_ten_thousand_steps() {
    for (name, method, h, radius) in [
        ("pendulum", Method::Verlet, 0.01, 0.5),
        ("kepler", Method::Yoshida4, 0.01, 0.05),
    ] {
        let sys = system(name);
        let init = disk(&sys, 256, radius);
        let k = Integrator::with_default_solver::<f64>(sys.clone(), method, h).unwrap();
        let mut g = GpuEngine::<f64>::new(&k, init.clone()).unwrap();
        let mut c = CpuEngine::<f64>::new(&k, init.clone());
        g.advance(10_000).unwrap();
        c.advance(10_000).unwrap();
        let (gs, cs) = (g.state().unwrap().clone(), c.state().unwrap().clone());
        let dev = max_rel_per_component(&gs, &cs);
        let moved = max_rel_per_component(&gs, &init);
        eprintln!("{name}: GPU f64 vs CPU f64 after 10⁴ steps: max rel. deviation {dev:e}");
        assert!(dev <= 1e-12, "{name}: {dev:e}");
        assert!(moved > 0.1, "{name}: the points barely moved ({moved})");
    }
}

/// The compensated GPU kernel computes what the CPU engine does, carried errors included: on
/// lavapipe (which rounds as the CPU does) bit for bit, so no shader compiler folded the
/// compensation away (that would leave eq = 0 there and move q); elsewhere to rounding.
#[test]
fn gpu_compensated_sums_equal_the_cpu_ones() {
    let ctx = gpu::context().expect("GPU tests need a wgpu adapter");
    let lavapipe = ctx.info.device_type == wgpu::DeviceType::Cpu;
    for method in [Method::Verlet, Method::Rk4, Method::ImplicitMidpoint] {
        let sys = system("pendulum");
        let init = disk(&sys, 300, 0.5);
        let k = Integrator::with_default_solver::<f32>(sys, method, 0.01)
            .unwrap()
            .with_compensation(true);
        let mut g = GpuEngine::<f32>::new(&k, init.convert()).unwrap();
        let mut c = CpuEngine::<f32>::new(&k, init.convert());
        g.advance(2000).unwrap();
        c.advance(2000).unwrap();
        let (gs, cs) = (g.state().unwrap().clone(), c.state().unwrap().clone());
        assert!(
            cs.eq.iter().any(|&e| e != 0.0),
            "{}: no carried error",
            method.name()
        );
        if lavapipe {
            assert_eq!((&gs.q, &gs.p), (&cs.q, &cs.p), "{}", method.name());
            assert_eq!((&gs.eq, &gs.ep), (&cs.eq, &cs.ep), "{}", method.name());
        } else {
            let dev = max_rel_per_component(&gs.primal_f64(), &cs.primal_f64());
            assert!(dev < 1e-3, "{}: {dev:e}", method.name());
        }
    }
}

/// Velocity Verlet's exact quadratic invariant of the oscillator, p² + (1 − h²/4) q²
/// (PHYSICS.md §5): its largest drift over 10⁶ f32 steps on the GPU, relative to its start.
fn gpu_verlet_invariant_drift(compensated: bool) -> f64 {
    let h = 0.01;
    let init = oscillator_ring().convert::<f32>();
    let k = Integrator::with_default_solver::<f32>(system("oscillator"), Method::Verlet, h)
        .unwrap()
        .with_compensation(compensated);
    let mut g = GpuEngine::<f32>::new(&k, init.clone()).unwrap();
    g.advance(1_000_000).unwrap();
    verlet_invariant_drift(&init, g.state().unwrap(), h)
}

#[test]
fn gpu_compensated_f32_keeps_verlets_invariant_ten_times_closer() {
    let plain = gpu_verlet_invariant_drift(false);
    let compensated = gpu_verlet_invariant_drift(true);
    eprintln!("GPU oscillator, Verlet, f32, 10⁶ steps: invariant drift plain {plain:.3e}, compensated {compensated:.3e}");
    assert!(
        compensated * 10.0 <= plain,
        "plain {plain:.3e}, compensated {compensated:.3e}"
    );
}

/// Counts of OpFAdd, OpFSub and OpFunctionCall in a SPIR-V module.
fn float_op_counts(words: &[u32]) -> [usize; 3] {
    let mut counts = [0; 3];
    let mut at = 5; // after the header
    while at < words.len() {
        let (len, op) = ((words[at] >> 16) as usize, words[at] & 0xffff);
        match op {
            129 => counts[0] += 1,
            131 => counts[1] += 1,
            57 => counts[2] += 1,
            _ => {}
        }
        at += len.max(1);
    }
    counts
}

/// The SPIR-V that wgpu hands the driver (naga's, as for Vulkan) carries a compensated update
/// as written: for explicit Euler on the oscillator (two updates, q and p) the compensated
/// kernel has 2 × (δ = c·g + e, x = base + δ, (base − opaque(x)) + δ) where the plain one has
/// 2 × (base + c·g): four more additions, two subtractions and two calls of `opaque`, so
/// nothing was folded before the driver (which `gpu_compensated_sums_equal_the_cpu_ones`
/// checks on lavapipe's own compiler).
#[test]
fn compensated_updates_reach_the_driver_as_written() {
    use phaseflow::gpu::shader::{compose_kernel, validate, KernelSpec};
    let sys = system("oscillator");
    let spirv = |compensated: bool| {
        let spec = KernelSpec {
            compensated,
            ..KernelSpec::f32(0)
        };
        let src = compose_kernel(&sys, Method::Euler, &spec);
        let (module, info) = validate(&src).unwrap();
        let options = naga::back::spv::Options::default();
        float_op_counts(&naga::back::spv::write_vec(&module, &info, &options, None).unwrap())
    };
    let (plain, comp) = (spirv(false), spirv(true));
    assert_eq!(
        [comp[0] - plain[0], comp[1] - plain[1], comp[2] - plain[2]],
        [4, 2, 2],
        "plain {plain:?}, compensated {comp:?}"
    );
}
