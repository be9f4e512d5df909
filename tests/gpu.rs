//! GPU tests. They need a wgpu adapter (on CI: Mesa's lavapipe, from mesa-vulkan-drivers) and
//! fail loudly when none is found: they never skip.

mod common;

use common::{below, disk, disk_at, state_1d, system};
use phaseflow::engine::{CpuEngine, Engine, GpuEngine, Integrator};
use phaseflow::ensemble::State;
use phaseflow::float::Real;
use phaseflow::gpu::{self, shader, RunParams};
use phaseflow::method::{Method, ALL};
use phaseflow::run::{compare_states, Deviation};
use phaseflow::system::{System, CATALOGUE};

fn all_systems() -> Vec<System> {
    CATALOGUE.iter().map(|s| system(s.name)).collect()
}

#[test]
fn an_adapter_is_present() {
    let ctx =
        gpu::context().expect("GPU tests need a wgpu adapter: apt-get install mesa-vulkan-drivers");
    eprintln!("GPU tests run on {}", ctx.describe());
}

#[test]
fn every_composed_shader_validates_with_naga() {
    for sys in all_systems() {
        for &m in ALL {
            if m.check_system(&sys).is_err() {
                continue; // refused to users too
            }
            // without and with the tangent columns (--tangent: NT = 2d; refused for the
            // variational systems, which have no Hamiltonian to linearise)
            let tangent = if sys.variational() { 0 } else { 2 * sys.dof() };
            for nt in [0, tangent] {
                let src = shader::compose(&sys, m, nt);
                if let Err(e) = shader::validate(&src) {
                    panic!("{} / {} / nt {nt}: {e}", sys.name(), m.name());
                }
            }
        }
    }
}

/// Counts of (function-scope variables of array type, all function-scope variables, loops) in a SPIR-V
/// module: OpTypeArray 28, OpTypePointer 32, OpVariable 59 (storage class Function = 7),
/// OpLoopMerge 246.
fn spirv_counts(words: &[u32]) -> (usize, usize, usize) {
    use std::collections::{HashMap, HashSet};
    let (mut arrays, mut pointers, mut vars, mut loops) =
        (HashSet::new(), HashMap::new(), Vec::new(), 0);
    let mut at = 5; // after the header
    while at < words.len() {
        let (len, op) = ((words[at] >> 16) as usize, words[at] & 0xffff);
        let w = &words[at..at + len];
        match op {
            28 => {
                arrays.insert(w[1]);
            }
            32 => {
                pointers.insert(w[1], w[3]);
            }
            59 if w[3] == 7 => vars.push(w[1]),
            246 => loops += 1,
            _ => {}
        }
        at += len.max(1);
    }
    let array_vars = vars
        .iter()
        .filter(|ty| pointers.get(ty).is_some_and(|t| arrays.contains(t)))
        .count();
    (array_vars, vars.len(), loops)
}

/// The generated kernels of d = 1 systems keep the point in registers: their SPIR-V (naga, as
/// wgpu's Vulkan backend writes it) has no function-scope array variable, for every method,
/// without and with the tangent columns (issue 10).
#[test]
fn d1_kernels_have_no_function_scope_arrays() {
    for name in ["pendulum", "oscillator", "pendulum-variational"] {
        let sys = system(name);
        for &m in ALL {
            if m.check_system(&sys).is_err() {
                continue;
            }
            let columns: &[usize] = if sys.variational() { &[0] } else { &[0, 2] };
            for &nt in columns {
                let src = shader::compose(&sys, m, nt);
                let (module, info) = shader::validate(&src).unwrap();
                // naga's IR: no local of array type in any function or the entry point
                let locals = module
                    .functions
                    .iter()
                    .map(|(_, f)| f)
                    .chain(module.entry_points.iter().map(|e| &e.function))
                    .flat_map(|f| f.local_variables.iter())
                    .filter(|(_, v)| {
                        matches!(module.types[v.ty].inner, naga::TypeInner::Array { .. })
                    })
                    .count();
                assert_eq!(locals, 0, "{name} / {} / nt {nt}: array locals", m.name());
                let options = naga::back::spv::Options {
                    force_loop_bounding: false,
                    ..Default::default()
                };
                let words = naga::back::spv::write_vec(&module, &info, &options, None).unwrap();
                let (array_vars, vars, loops) = spirv_counts(&words);
                assert_eq!(
                    array_vars,
                    0,
                    "{name} / {} / nt {nt}: {array_vars} function-scope arrays in SPIR-V",
                    m.name()
                );
                if nt == 0 && matches!(m, Method::SymplecticEulerA | Method::Verlet) {
                    eprintln!(
                        "{name} / {}: {} SPIR-V words, {vars} function variables, {loops} loops",
                        m.name(),
                        words.len()
                    );
                }
            }
        }
    }
}

#[test]
fn run_params_layout_matches_wgsl() {
    let src = shader::compose(&system("pendulum"), Method::Verlet, 0);
    let (module, _) = shader::validate(&src).unwrap();
    let ty = module
        .types
        .iter()
        .find(|(_, t)| t.name.as_deref() == Some("RunParams"))
        .expect("RunParams in WGSL")
        .1;
    match &ty.inner {
        naga::TypeInner::Struct { members, span } => {
            assert_eq!(*span as usize, std::mem::size_of::<RunParams>());
            let names: Vec<_> = members.iter().map(|m| m.name.clone().unwrap()).collect();
            assert_eq!(
                names,
                [
                    "n_points",
                    "steps",
                    "h_hi",
                    "grid_x",
                    "zero_bits",
                    "h_mid",
                    "h_lo",
                    "_pad"
                ]
            );
            let offsets: Vec<u32> = members.iter().map(|m| m.offset).collect();
            assert_eq!(offsets, [0, 4, 8, 12, 16, 20, 24, 28]);
        }
        other => panic!("RunParams is not a struct: {other:?}"),
    }
}

/// GPU and CPU (both f32) agree point by point for every (system, method).
#[test]
fn gpu_matches_cpu_for_every_system_and_method() {
    let failures = every_pair_disagreement::<f32>(false, 1e-3);
    assert!(
        failures.is_empty(),
        "GPU and CPU disagree:\n{}",
        failures.join("\n")
    );
}

/// The same at f64 (issue 12): the f64 kernels use the CPU's f64 polynomial sine, so the
/// engines agree to rounding (lavapipe: bit for bit, as at f32).
#[test]
fn gpu_f64_matches_cpu_f64_for_every_system_and_method() {
    let failures = every_pair_disagreement::<f64>(false, 1e-12);
    assert!(
        failures.is_empty(),
        "GPU f64 and CPU f64 disagree:\n{}",
        failures.join("\n")
    );
}

/// And with compensated summation, f32.
#[test]
fn gpu_compensated_matches_cpu_compensated_for_every_system_and_method() {
    let failures = every_pair_disagreement::<f32>(true, 1e-3);
    assert!(
        failures.is_empty(),
        "compensated GPU and CPU disagree:\n{}",
        failures.join("\n")
    );
}

/// Every (system, method) on a small ensemble, GPU against CPU at precision T: the pairs whose
/// states differ by more than `tol` (relative to the state's RMS) or in finiteness.
fn every_pair_disagreement<T: Real>(compensated: bool, tol: f64) -> Vec<String> {
    let mut failures = Vec::new();
    for sys in all_systems() {
        // (h, disk radius in the (q1, p1) plane) on each system's own scales. The spring chain
        // is stiff (k/m = 8000, fastest period ≈ 0.035): h = 0.05 is beyond every explicit
        // method's stability limit there (both engines would only agree on blowing up). The
        // outer solar system moves in days with momenta ~1e-6: a Sun kicked by p = 0.3 would
        // move at 0.3 AU/day, 50 times Jupiter's speed. Hénon–Heiles orbits escape above
        // H = 1/6: keep its disk inside the bounded region.
        //
        // Real GPUs fuse multiply-adds and round sqrt and division differently from the CPU, so
        // f32 results differ in the last place from the first step; sensitive motions amplify
        // that. The sets below keep the comparison well conditioned (lavapipe matches the CPU
        // bit for bit; on an H100, the chain with a 0.3 disk (masses stretched to 3× their
        // spacing) drifted apart by up to 15 % in 400 steps, close Kepler passes by 0.3 %).
        let (h, radius, steps) = match sys.name() {
            "spring-chain" => (5e-4, 0.01, 400),
            "outer-solar-system" => (1.0, 1e-3, 400),
            "henon-heiles" => (0.05, 0.05, 400),
            "kepler" => (0.05, 0.05, 100),
            // Torrente's stretched elastic pendulum is chaotic: keep it short and close.
            "elastic-pendulum-zphi" => (0.002, 0.01, 100),
            // The seed's steps: the disk at h = 0.05 falls over within the run (Newton's
            // iterates then differ in the last bits from the first step on), and the double
            // pendulum's set at the seed's energy is chaotic.
            "euler-disk" => (0.001, 0.01, 400),
            "double-pendulum-variational" => (0.01, 0.05, 200),
            _ => (0.05, 0.3, 400),
        };
        let init = disk_at(&sys, h, 512, radius);
        for &m in ALL {
            if m.check_system(&sys).is_err() {
                continue; // refused to users too (blanes-moan4 on non-separable H)
            }
            let k = Integrator::with_default_solver::<T>(sys.clone(), m, h)
                .unwrap()
                .with_compensation(compensated);
            let mut g = GpuEngine::<T>::new(&k, init.convert()).unwrap();
            let mut c = CpuEngine::<T>::new(&k, init.convert());
            // One advance: on lavapipe the engine splits it into dispatches short enough for the
            // driver's loop limiter (a single 400-step dispatch of the solar system with yoshida4
            // silently stopped after 375 steps before it did).
            g.advance(steps).unwrap();
            c.advance(steps).unwrap();
            let (gs, cs) = (g.state().unwrap().clone(), c.state().unwrap().clone());
            let Deviation {
                max_abs: abs,
                max_rel: rel,
                finite_mismatch: mismatch,
                both_nonfinite: both_bad,
            } = compare_states(&gs, &cs);
            if (mismatch, both_bad) != (0, 0) || !below(rel, tol) {
                failures.push(format!(
                    "{} / {}: max_abs_dev {abs}, max_rel_dev {rel}, finite mismatch {mismatch}, both non-finite {both_bad}",
                    sys.name(),
                    m.name()
                ));
                continue;
            }
            // Both engines count the same unconverged implicit solves (none at these settings).
            assert_eq!(
                gs.unconverged,
                cs.unconverged,
                "{} / {}",
                sys.name(),
                m.name()
            );
            assert_eq!(gs.compensated(), compensated);
            // The GPU really advanced the points.
            let start: State<T> = init.convert();
            let moved = compare_states(&gs, &start).max_abs;
            assert!(
                moved > 1e-2,
                "{} / {}: GPU state barely moved ({moved})",
                sys.name(),
                m.name()
            );
        }
    }
    failures
}

/// The exact (1 + h²)ⁿ growth of explicit Euler on the oscillator, computed on the GPU.
#[test]
fn gpu_explicit_euler_oscillator_growth() {
    let sys = system("oscillator");
    let init = state_1d(&[(1.0, 0.0), (0.0, 0.5), (0.3, -0.4)]);
    let (h, n) = (0.01, 2000u64);
    let mut g = GpuEngine::<f32>::new(
        &Integrator::with_default_solver::<f32>(sys.clone(), Method::Euler, h).unwrap(),
        init.convert(),
    )
    .unwrap();
    g.advance(n).unwrap();
    let s = g.state().unwrap();
    let factor = (1.0 + h * h).powi(n as i32);
    for i in 0..3 {
        let r0 = init.q[i] * init.q[i] + init.p[i] * init.p[i];
        let r = (s.q[i] as f64).powi(2) + (s.p[i] as f64).powi(2);
        assert!(
            (r / r0 / factor - 1.0).abs() < 1e-4,
            "point {i}: {} vs {factor}",
            r / r0
        );
    }
}

/// Splitting the ensemble into chunks and the steps into dispatches changes nothing.
#[test]
fn chunked_gpu_run_equals_unchunked() {
    let sys = system("pendulum");
    let init = disk(&sys, 1000, 0.5);
    let mut whole = GpuEngine::<f32>::new(
        &Integrator::with_default_solver::<f32>(sys.clone(), Method::Verlet, 0.1).unwrap(),
        init.convert(),
    )
    .unwrap();
    let mut chunked = GpuEngine::<f32>::with_chunk_limit(
        &Integrator::with_default_solver::<f32>(sys.clone(), Method::Verlet, 0.1).unwrap(),
        init.convert(),
        333,
    )
    .unwrap();
    whole.advance(300).unwrap();
    for _ in 0..3 {
        chunked.advance(100).unwrap();
    }
    assert_eq!(whole.state().unwrap(), chunked.state().unwrap());
}

/// A chunk that spans several rows of the 2-D dispatch grid (here rows of one 256-thread
/// workgroup) advances every point exactly as a single row does.
#[test]
fn multi_row_dispatch_grid_equals_one_row() {
    let sys = system("pendulum");
    let init = disk(&sys, 1000, 0.5);
    let mut one_row = GpuEngine::<f32>::new(
        &Integrator::with_default_solver::<f32>(sys.clone(), Method::Verlet, 0.1).unwrap(),
        init.convert(),
    )
    .unwrap();
    let mut rows = GpuEngine::<f32>::new(
        &Integrator::with_default_solver::<f32>(sys.clone(), Method::Verlet, 0.1).unwrap(),
        init.convert(),
    )
    .unwrap();
    rows.limit_grid_width(1).unwrap();
    one_row.advance(50).unwrap();
    rows.advance(50).unwrap();
    let (a, b) = (
        one_row.state().unwrap().clone(),
        rows.state().unwrap().clone(),
    );
    assert_eq!(a, b);
    let start: State<f32> = init.convert();
    assert!(
        compare_states(&b, &start).max_abs > 1e-2,
        "the points did not move"
    );
}

/// With the tangent columns (--tangent) GPU and CPU agree on every component, the columns
/// included, and count the same unconverged solves: register kernels (pendulum, Kepler, the
/// iterating double pendulum; every method) and array kernels (the spring chain with N = 4 has
/// DT = 8 · 17 = 136 components, above `UNROLL_MAX_COMPONENTS`: a method of each kind, as
/// lavapipe runs these slowly).
#[test]
fn gpu_matches_cpu_with_tangent_columns() {
    let chain = System::new(
        "spring-chain",
        &std::collections::BTreeMap::from([("n".to_string(), 4.0)]),
    )
    .unwrap();
    let array_methods = [
        Method::Verlet,
        Method::Rk4,
        Method::ImplicitMidpoint,
        Method::BlanesMoan4,
    ];
    let mut failures = Vec::new();
    for (sys, methods, h, radius, steps) in [
        (system("pendulum"), ALL, 0.05, 0.3, 200),
        (system("kepler"), ALL, 0.05, 0.05, 100),
        (system("double-pendulum"), ALL, 0.05, 0.3, 100),
        (chain, &array_methods[..], 5e-4, 0.01, 20),
    ] {
        let init = disk(&sys, 64, radius).with_tangent();
        for &m in methods {
            if m.check_system(&sys).is_err() {
                continue;
            }
            let mut g = GpuEngine::<f32>::new(
                &Integrator::with_default_solver::<f32>(sys.clone(), m, h).unwrap(),
                init.convert(),
            )
            .unwrap();
            let mut c = CpuEngine::<f32>::new(
                &Integrator::with_default_solver::<f32>(sys.clone(), m, h).unwrap(),
                init.convert(),
            );
            g.advance(steps).unwrap();
            c.advance(steps).unwrap();
            let (gs, cs) = (g.state().unwrap(), c.state().unwrap());
            let pairs = || gs.q.iter().chain(&gs.p).zip(cs.q.iter().chain(&cs.p));
            let max_abs = pairs()
                .map(|(a, b)| (*a as f64 - *b as f64).abs())
                .fold(0.0, f64::max);
            let count = pairs().count() as f64;
            let rms = (pairs().map(|(_, b)| (*b as f64).powi(2)).sum::<f64>() / count).sqrt();
            let finite = pairs().all(|(a, b)| a.is_finite() && b.is_finite());
            if !finite || !below(max_abs / rms, 1e-3) || gs.unconverged != cs.unconverged {
                failures.push(format!(
                    "{} / {}: max_abs_dev {max_abs} (rms {rms}), finite {finite}",
                    sys.name(),
                    m.name()
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "GPU and CPU disagree with tangent columns:\n{}",
        failures.join("\n")
    );
}

/// Points that overflow become non-finite on both engines alike; finite ones are untouched.
#[test]
fn blow_ups_are_kept_per_point() {
    let sys = system("oscillator");
    let init = state_1d(&[(0.0, 0.0), (1.0, 0.0)]);
    let mut g = GpuEngine::<f32>::new(
        &Integrator::with_default_solver::<f32>(sys.clone(), Method::Euler, 10.0).unwrap(),
        init.convert(),
    )
    .unwrap();
    g.advance(100).unwrap();
    let s = g.state().unwrap();
    assert_eq!((s.q[0], s.p[0]), (0.0, 0.0));
    assert!(!s.q[1].is_finite() || !s.p[1].is_finite());
}

/// An implicit solve capped below what it needs is counted per point on the GPU as on the CPU.
#[test]
fn gpu_counts_unconverged_points_like_the_cpu() {
    let sys = system("double-pendulum");
    let init = disk(&sys, 300, 0.3);
    let solver = phaseflow::method::Solver {
        tol: 4e-7,
        max_iter: 2,
    };
    let mut g = GpuEngine::<f32>::with_chunk_limit(
        &Integrator::new(sys.clone(), Method::ImplicitMidpoint, 0.1, solver).unwrap(),
        init.convert(),
        usize::MAX,
    )
    .unwrap();
    let mut c = CpuEngine::<f32>::new(
        &Integrator::new(sys.clone(), Method::ImplicitMidpoint, 0.1, solver).unwrap(),
        init.convert(),
    );
    // Two dispatches: the count accumulates across them.
    for _ in 0..2 {
        g.advance(20).unwrap();
        c.advance(20).unwrap();
    }
    let (gs, cs) = (g.state().unwrap().clone(), c.state().unwrap().clone());
    assert!(
        cs.unconverged.iter().all(|&u| u == 40),
        "{:?}",
        cs.unconverged
    );
    assert_eq!(gs.unconverged, cs.unconverged);
    assert!(compare_states(&gs, &cs).max_rel < 1e-4);
}

/// Lavapipe stops a shader's loops after 65 535 iterations per invocation without an error; the
/// engine keeps each dispatch under that, so a long single advance still does every step.
#[test]
fn long_advances_are_not_cut_short_by_the_cpu_driver() {
    let sys = system("oscillator");
    let init = disk(&sys, 64, 0.3);
    let steps = 70_000;
    let mut whole = GpuEngine::<f32>::new(
        &Integrator::with_default_solver::<f32>(sys.clone(), Method::SymplecticEulerA, 0.001)
            .unwrap(),
        init.convert(),
    )
    .unwrap();
    let mut sliced = GpuEngine::<f32>::new(
        &Integrator::with_default_solver::<f32>(sys.clone(), Method::SymplecticEulerA, 0.001)
            .unwrap(),
        init.convert(),
    )
    .unwrap();
    whole.advance(steps).unwrap();
    for _ in 0..7 {
        sliced.advance(steps / 7).unwrap();
    }
    // The same kernel on the same device: a single long advance must equal seven short ones
    // bit for bit (a cut-short dispatch would be off by 4.5 rad of phase).
    assert_eq!(whole.state().unwrap(), sliced.state().unwrap());
}

/// The energy statistics the GPU engine reduces on the device (f64 H, one accumulator per
/// workgroup) equal the host's from the read-back state, for every system, to rounding: the
/// device's polynomial cosine and tree merge against libm and the host's chunked merge. With
/// 1000 points (four workgroups, the last partly empty), a blown-up point and the tangent
/// columns' layout (only the first d components are read) on the small systems.
#[test]
fn device_energy_statistics_equal_the_host_ones() {
    use phaseflow::measure::energy::columns::stats_of;
    use phaseflow::measure::energy::{energies, snapshot_stats, EnergyStats, RunEnergy};
    // The device's energy statistics and unconverged count (its `Acceleration`'s parts).
    let device = |g: &mut GpuEngine<f32>| -> (EnergyStats, u64) {
        let a = g.acceleration().unwrap().expect("device reduction");
        let parts = a.parts().unwrap();
        let part = |name| parts.iter().find(|(n, _)| *n == name).unwrap().1.clone();
        (stats_of(&part("energy"), 1000), part("unconverged").sum())
    };
    let ctx = gpu::context().unwrap();
    assert!(
        ctx.f64,
        "the test adapter ({}) has no SHADER_F64; lavapipe and H100 have it",
        ctx.describe()
    );
    for sys in all_systems() {
        let (h, radius) = match sys.name() {
            "spring-chain" => (5e-4, 0.01),
            "outer-solar-system" => (1.0, 1e-3),
            "henon-heiles" | "kepler" => (0.05, 0.05),
            "euler-disk" => (0.001, 0.01),
            "double-pendulum-variational" | "elastic-pendulum-zphi" => (0.01, 0.05),
            _ => (0.05, 0.3),
        };
        // With the tangent columns too where the kernel is small (lavapipe compiles the solar
        // system's 666-component tangent kernel for minutes).
        let method = if sys.variational() {
            Method::Variational
        } else {
            Method::Verlet
        };
        let layouts: &[bool] = if sys.dof() <= 2 && !sys.variational() {
            &[false, true]
        } else {
            &[false]
        };
        for &tangent in layouts {
            let mut init: State<f64> = disk_at(&sys, h, 1000, radius);
            if tangent {
                init = init.with_tangent();
            }
            init.q[17] = f64::NAN; // point 17 is not finite from the start
            let mut g = GpuEngine::<f32>::new(
                &Integrator::with_default_solver::<f32>(sys.clone(), method, h).unwrap(),
                init.convert(),
            )
            .unwrap();
            let a = g.acceleration().unwrap().expect("device reduction");
            a.start().unwrap();
            let h0 = energies(
                &RunEnergy {
                    system: &sys,
                    dt: h,
                },
                g.state().unwrap(),
            );
            let (row0, _) = device(&mut g);
            assert_eq!(row0.finite, 999, "{}", sys.name());
            assert_eq!(row0.abs_energy_err_max, Some(0.0), "{}", sys.name());
            g.advance(40).unwrap();
            let (dev, unconverged) = device(&mut g);
            let host = snapshot_stats(&sys, h, g.state().unwrap(), &h0);
            assert_eq!(unconverged, 0);
            assert_eq!(dev.finite, host.finite, "{}", sys.name());
            assert_eq!(dev.escaped, host.escaped, "{}", sys.name());
            assert_eq!(dev.escaped, Some(1), "{}: the NaN point", sys.name());
            let close = |a: Option<f64>, b: Option<f64>, tol: f64, what: &str| {
                let (a, b) = (a.unwrap(), b.unwrap());
                assert!(
                    (a - b).abs() <= tol * b.abs().max(1e-300),
                    "{} tangent {tangent} {what}: device {a:e}, host {b:e}",
                    sys.name()
                );
            };
            close(dev.energy_mean, host.energy_mean, 1e-13, "energy_mean");
            close(dev.energy_std, host.energy_std, 1e-9, "energy_std");
            // errors of ~1e-4..1e-8 measured against H0 ~1: the libm/polynomial difference
            // (~1e-16 absolute) stays far below
            close(
                dev.abs_energy_err_max,
                host.abs_energy_err_max,
                1e-7,
                "abs_err_max",
            );
            close(
                dev.abs_energy_err_mean,
                host.abs_energy_err_mean,
                1e-7,
                "abs_err_mean",
            );
            close(
                dev.rel_energy_err_max,
                host.rel_energy_err_max,
                1e-7,
                "rel_err_max",
            );
            // No finite point escaped: the points that stayed are all the finite ones.
            close(
                dev.stayed_abs_energy_err_max,
                host.stayed_abs_energy_err_max,
                1e-7,
                "stayed_abs_err_max",
            );
            close(
                dev.stayed_rel_energy_err_max,
                host.rel_energy_err_max,
                1e-7,
                "stayed_rel_err_max",
            );
        }
    }
}
