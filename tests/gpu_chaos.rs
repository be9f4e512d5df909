//! The chaos indicators on the GPU engine (`--chaos`, `shaders/common/chaos.wgsl`): the
//! kernel's renormalisation and accumulators against the CPU engine's `chaos::update`, for
//! every Hamiltonian system of the catalogue, with every method on the pendulum and Hénon–Heiles
//! at f32 and on the others a kick–drift method (its carried force scaled with δ), a
//! Runge–Kutta method and an implicit one (lavapipe compiles each kernel slowly: every pair
//! at both precisions takes over ten minutes).
//! Like tests/gpu.rs these run on lavapipe in CI and fail (never skip) without an adapter.
//!
//! The bound: the kernel runs `update`'s operations in its order, and lavapipe rounds each
//! f32 and f64 operation as the CPU does, so wherever the GPU's state (the point and its
//! deviation vector) equals the CPU's bit for bit, the four accumulators must too. Where the
//! states themselves already differ in the last places (the elastic pendulum with rk4 and the
//! spring chain: their directional derivatives; tests/gpu.rs holds those states to 1e-3 and
//! 1e-12), the accumulators are held to 1e-4 relative at f32 (measured: up to 2.3e-6) and 1e-12
//! at f64 (measured: 6e-15). Hénon–Heiles, Kepler, the pendulum, the double pendulum and the
//! elastic pendulum with Verlet must be among the exact pairs (the sine-based ones since the
//! kernels' sine and cosine round as the CPU's, the elastic pendulum since a constant times a
//! product is kept from regrouping: `expr::wgsl::kept_product`). A real GPU (fused multiply-adds, its
//! own sqrt and division) would differ in the last places from the first step.

mod common;

use common::{disk, system};
use phaseflow::chaos::{point_indicators, WIDTH};
use phaseflow::engine::{CpuEngine, Engine, GpuEngine, Integrator, MultiGpuEngine};
use phaseflow::float::Real;
use phaseflow::gpu;
use phaseflow::method::{Method, ALL};
use phaseflow::system::CATALOGUE;

/// Step size, disk radius and steps per system: its own scales, as tests/gpu.rs chooses them,
/// short (lavapipe compiles a kernel per pair).
fn settings(name: &str) -> (f64, f64, u64) {
    match name {
        "spring-chain" => (5e-4, 0.01, 60),
        "outer-solar-system" => (1.0, 1e-3, 30),
        "henon-heiles" => (0.05, 0.05, 60),
        "kepler" => (0.05, 0.05, 60),
        _ => (0.05, 0.3, 60),
    }
}

/// The largest difference between the GPU's accumulators `gpu` and the CPU's `cpu`, relative
/// to the CPU's value (at least 1).
fn worst_difference<T: Real>(gpu: &[T], cpu: &[T]) -> f64 {
    gpu.iter()
        .zip(cpu)
        .map(|(a, b)| (a.to_f64() - b.to_f64()).abs() / b.to_f64().abs().max(1.0))
        .fold(0.0, f64::max)
}

/// A kick–drift method, a Runge–Kutta method and an implicit one.
const KINDS: [Method; 3] = [Method::Verlet, Method::Rk4, Method::ImplicitMidpoint];

/// The pairs (system / method) whose GPU accumulators differ from the CPU's at precision T
/// after two advances (so the accumulators travel through the buffer between dispatches): in
/// any bit where the states are equal to the bit, else by more than `bound` relative to the
/// accumulator (at least 1); and the pairs whose state and accumulators are equal to the bit.
fn disagreements<T: Real>(
    bound: f64,
    methods: impl Fn(&str) -> &'static [Method],
) -> (Vec<String>, Vec<String>) {
    let (mut failures, mut exact) = (Vec::new(), Vec::new());
    for info in CATALOGUE {
        let sys = system(info.name);
        if sys.variational() {
            continue; // refused by --chaos: no ∂H to linearise through
        }
        let (h, radius, steps) = settings(info.name);
        let init = common::with_deviation(&sys, &disk(&sys, 40, radius));
        for &m in methods(info.name) {
            if m.check_system(&sys).is_err() {
                continue;
            }
            let k = common::chaos_integrator::<T>(&sys, m, h);
            let mut g = GpuEngine::<T>::new(&k, init.convert()).unwrap();
            let mut c = CpuEngine::<T>::new(&k, init.convert());
            for e in [&mut g as &mut dyn Engine<T>, &mut c] {
                e.advance(steps / 2).unwrap();
                e.advance(steps - steps / 2).unwrap();
            }
            let (gs, cs) = (g.state().unwrap(), c.state().unwrap());
            let bits = |v: &[T]| -> Vec<u64> { v.iter().map(|x| x.to_f64().to_bits()).collect() };
            assert_eq!(cs.chaos[..cs.n], vec![T::from_f64(steps as f64); cs.n][..]);
            let same_state = bits(&gs.q) == bits(&cs.q) && bits(&gs.p) == bits(&cs.p);
            let same_chaos = bits(&gs.chaos) == bits(&cs.chaos);
            let worst = worst_difference(&gs.chaos, &cs.chaos);
            let pair = format!("{} / {}", info.name, m.name());
            if (same_state && !same_chaos) || worst.is_nan() || worst > bound {
                failures.push(format!(
                    "{pair}: accumulators differ by up to {worst:e} (states equal: {same_state})"
                ));
            } else if same_state {
                exact.push(pair);
            } else {
                println!("{pair}: states differ; accumulators by up to {worst:e}");
            }
        }
    }
    (failures, exact)
}

/// Every pair compared, its failures none, and Hénon–Heiles and Kepler exact.
fn check(failures: &[String], exact: &[String], what: &str) {
    println!("{what}: {} pairs equal to the bit", exact.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    for name in [
        "henon-heiles / verlet",
        "kepler / rk4",
        "henon-heiles / implicit-midpoint",
        "pendulum / verlet",
        "pendulum / rk4",
        "double-pendulum / verlet",
        "double-pendulum / implicit-midpoint",
        "elastic-pendulum / verlet",
    ] {
        assert!(
            exact.iter().any(|p| p == name),
            "{name} not exact: {exact:?}"
        );
    }
}

#[test]
fn gpu_indicators_equal_the_cpu_ones_bit_for_bit_at_f32() {
    let (failures, exact) = disagreements::<f32>(1e-4, |name| match name {
        "pendulum" | "henon-heiles" => ALL,
        _ => &KINDS,
    });
    check(&failures, &exact, "f32");
    assert!(exact.len() >= 20, "{exact:?}");
}

#[test]
fn gpu_indicators_equal_the_cpu_ones_bit_for_bit_at_f64() {
    assert!(gpu::context().unwrap().f64, "lavapipe has f64");
    let (failures, exact) = disagreements::<f64>(1e-12, |_| &KINDS);
    check(&failures, &exact, "f64");
}

/// Two pendulum librations: the GPU's ⟨Y⟩ tends to 2 (within 0.05 at t = 10⁴, f64) and its λ
/// towards 0 (regular orbits).
#[test]
fn gpu_megno_tends_to_two_on_a_libration() {
    let sys = system("pendulum");
    let init = common::with_deviation(&sys, &common::state_1d(&[(0.0, 1.0), (0.0, 0.5)]));
    let k = Integrator::with_default_solver::<f64>(sys, Method::Yoshida4, 0.1).unwrap();
    let mut g = GpuEngine::<f64>::new(&k, init).unwrap();
    g.advance(100_000).unwrap();
    let s = g.state().unwrap();
    for i in 0..s.n {
        let acc: [f64; WIDTH] = std::array::from_fn(|c| s.chaos[c * s.n + i]);
        let (megno, lambda) = point_indicators(acc, 0.1).unwrap();
        println!("point {i}: <Y> {megno}, lambda {lambda}");
        assert_eq!(acc[0], 100_000.0);
        assert!((megno - 2.0).abs() < 0.05, "{megno}");
        assert!(lambda.abs() < 2e-3, "{lambda}");
    }
}

/// The accumulators travel with the points: chunks and several engines over slices of the
/// ensemble (`--devices`, here on the one adapter twice) give the whole run's bits.
#[test]
fn accumulators_travel_with_chunks_and_slices() {
    let sys = system("henon-heiles");
    let init = common::with_deviation(&sys, &disk(&sys, 600, 0.05));
    let k = Integrator::with_default_solver::<f32>(sys, Method::Verlet, 0.05).unwrap();
    let mut whole = GpuEngine::<f32>::new(&k, init.convert()).unwrap();
    let mut chunked = GpuEngine::<f32>::with_chunk_limit(&k, init.convert(), 256).unwrap();
    let ctx = gpu::context().unwrap();
    let mut multi = MultiGpuEngine::<f32>::new(vec![ctx, ctx], &k, init.convert()).unwrap();
    for e in [&mut whole as &mut dyn Engine<f32>, &mut chunked, &mut multi] {
        e.advance(50).unwrap();
    }
    let want = whole.state().unwrap().clone();
    assert!(want.chaos[want.n..2 * want.n].iter().all(|x| *x != 0.0));
    assert_eq!(chunked.state().unwrap(), &want);
    assert_eq!(multi.state().unwrap(), &want);
}

/// The split does not matter: the CPU engine in one advance and the GPU engine in three
/// uneven ones (yoshida4's prologue recomputing the carried force on the rescaled δ at each
/// dispatch), and the other way round, agree to the bit on Hénon–Heiles and Kepler at f32 and
/// f64.
fn split_runs_agree<T: Real>() {
    for name in ["henon-heiles", "kepler"] {
        let sys = system(name);
        let (h, radius, steps) = settings(name);
        let init = common::with_deviation(&sys, &disk(&sys, 40, radius));
        let k = Integrator::with_default_solver::<T>(sys, Method::Yoshida4, h).unwrap();
        let uneven = [1, steps / 3, steps - 1 - steps / 3];
        let mut g = GpuEngine::<T>::new(&k, init.convert()).unwrap();
        let mut c = CpuEngine::<T>::new(&k, init.convert());
        for s in uneven {
            g.advance(s).unwrap();
        }
        c.advance(steps).unwrap();
        let (mut g1, mut c3) = (
            GpuEngine::<T>::new(&k, init.convert()).unwrap(),
            CpuEngine::<T>::new(&k, init.convert()),
        );
        g1.advance(steps).unwrap();
        for s in uneven {
            c3.advance(s).unwrap();
        }
        let want = c.state().unwrap();
        assert!(want.chaos[want.n..2 * want.n].iter().all(|x| *x != T::ZERO));
        for (what, got) in [
            ("GPU in three advances", g.state().unwrap()),
            ("GPU in one advance", g1.state().unwrap()),
            ("CPU in three advances", c3.state().unwrap()),
        ] {
            assert_eq!(got, want, "{name}: {what}");
        }
    }
}

#[test]
fn gpu_indicators_do_not_depend_on_the_split() {
    split_runs_agree::<f32>();
    assert!(gpu::context().unwrap().f64, "lavapipe has f64");
    split_runs_agree::<f64>();
}

/// The outer solar system's natural metric (velocities p_i / m_i beside the positions: the
/// kernel's norm weighted by `CHAOS_W<k>`) and its random start: the GPU engine's
/// accumulators are the CPU engine's to the bit where the states are (f64), else within
/// `bound` as in `disagreements`; and the weights matter (the unit metric gives other
/// accumulators).
fn weighted_metric_agrees<T: Real>(bound: f64) -> bool {
    let sys = system("outer-solar-system");
    let (h, radius, steps) = settings(sys.name());
    let init = common::with_deviation(&sys, &disk(&sys, 40, radius));
    let k = common::chaos_integrator::<T>(&sys, Method::Verlet, h);
    let unit = Integrator::with_default_solver::<T>(sys.clone(), Method::Verlet, h).unwrap();
    // The chaos observer of `k` has the metric's weights, the unit integrator's none.
    let chaos = |k: &Integrator| format!("{:?}", k.observer("chaos"));
    assert_ne!(chaos(&k), chaos(&unit));
    let mut g = GpuEngine::<T>::new(&k, init.convert()).unwrap();
    let mut c = CpuEngine::<T>::new(&k, init.convert());
    let mut u = CpuEngine::<T>::new(&unit, init.convert());
    for e in [&mut g as &mut dyn Engine<T>, &mut c, &mut u] {
        e.advance(steps).unwrap();
    }
    let (gs, cs) = (g.state().unwrap(), c.state().unwrap());
    assert_ne!(u.state().unwrap().chaos, cs.chaos, "{}", T::NAME);
    let same_state = gs.q == cs.q && gs.p == cs.p;
    let worst = worst_difference(&gs.chaos, &cs.chaos);
    println!(
        "{}: states equal {same_state}, accumulators differ by up to {worst:e}",
        T::NAME
    );
    assert!(
        worst <= bound && (!same_state || worst == 0.0),
        "{}: {worst:e}",
        T::NAME
    );
    same_state
}

#[test]
fn gpu_weighted_metric_equals_the_cpu_one() {
    weighted_metric_agrees::<f32>(1e-4);
    assert!(gpu::context().unwrap().f64, "lavapipe has f64");
    assert!(
        weighted_metric_agrees::<f64>(1e-12),
        "f64 states equal to the bit"
    );
}
