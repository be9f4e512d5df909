//! Compensated summation (`--compensated`, issue 12): on the CPU engine in both precisions,
//! the carried errors keep a long f32 run near its f64 answer; GPU mirrors are in tests/gpu.rs.

mod common;

use common::{oscillator_ring, state_1d, system, verlet_invariant_drift};
use phaseflow::engine::{CpuEngine, Engine, Integrator};
use phaseflow::method::Method;

/// Largest drift of velocity Verlet's exact quadratic invariant of the oscillator (m = k = 1),
/// p² + (1 − h²/4) q² (PHYSICS.md §5), relative to its start, over `steps` f32 steps.
fn verlet_invariant_drift_cpu(compensated: bool, steps: u64) -> f64 {
    let h = 0.01;
    let init = oscillator_ring().convert::<f32>();
    let k = Integrator::with_default_solver::<f32>(system("oscillator"), Method::Verlet, h)
        .unwrap()
        .with_compensation(compensated);
    let mut engine = CpuEngine::<f32>::new(&k, init.clone());
    engine.advance(steps).unwrap();
    let end = engine.state().unwrap();
    assert_eq!(end.compensated(), compensated);
    verlet_invariant_drift(&init, end, h)
}

#[test]
fn compensated_f32_keeps_verlets_invariant_ten_times_closer() {
    let steps = 1_000_000;
    let plain = verlet_invariant_drift_cpu(false, steps);
    let compensated = verlet_invariant_drift_cpu(true, steps);
    eprintln!("oscillator, Verlet, f32, 10⁶ steps: invariant drift plain {plain:.3e}, compensated {compensated:.3e}");
    assert!(
        compensated * 10.0 <= plain,
        "plain {plain:.3e}, compensated {compensated:.3e}"
    );
}

/// Every method runs compensated in both precisions and stays within rounding of its plain run
/// over a short run (the compensation changes only the last bits), and the f64 run carries errors.
#[test]
fn every_method_runs_compensated_near_its_plain_run() {
    let sys = system("pendulum");
    let init = state_1d(&[(0.3, 0.1), (1.0, -0.5), (2.5, 0.0), (-1.2, 1.1)]);
    for &m in phaseflow::method::ALL {
        if m.check_system(&sys).is_err() {
            continue; // `variational` serves only the discrete maps (tests/variational.rs)
        }
        let plain = Integrator::with_default_solver::<f64>(sys.clone(), m, 0.05).unwrap();
        let comp = plain.clone().with_compensation(true);
        let mut a = CpuEngine::<f64>::new(&plain, init.clone());
        let mut b = CpuEngine::<f64>::new(&comp, init.clone());
        a.advance(200).unwrap();
        b.advance(200).unwrap();
        let (a, b) = (
            a.state().unwrap().primal_f64(),
            b.state().unwrap().primal_f64(),
        );
        for i in 0..a.q.len() {
            assert!(
                (a.q[i] - b.q[i]).abs() < 1e-11 && (a.p[i] - b.p[i]).abs() < 1e-11,
                "{}: {} vs {}",
                m.name(),
                a.q[i],
                b.q[i]
            );
        }
    }
}

/// Measurements read a compensated state as q + eq, p + ep (in f64): energies, loop area.
#[test]
fn measurements_fold_in_the_carried_errors() {
    use phaseflow::measure::area::loop_area;
    use phaseflow::measure::energy::{energies, RunEnergy};
    let sys = system("oscillator");
    let ring: Vec<(f64, f64)> = (0..8)
        .map(|i| {
            let a = i as f64 * std::f64::consts::TAU / 8.0;
            (a.cos(), a.sin())
        })
        .collect();
    let plain = state_1d(&ring).convert::<f32>();
    let mut comp = plain.clone().with_compensation(true);
    // carried errors that scale every node by (1 + 2^-30): beyond f32, exact in f64
    let scale = 2f64.powi(-30);
    for i in 0..comp.q.len() {
        comp.eq[i] = (comp.q[i] as f64 * scale) as f32;
        comp.ep[i] = (comp.p[i] as f64 * scale) as f32;
    }
    // The oscillator's H does not read the step.
    let energy = RunEnergy {
        system: &sys,
        dt: 0.01,
    };
    for (i, (h, h_plain)) in energies(&energy, &comp)
        .iter()
        .zip(energies(&energy, &plain))
        .enumerate()
    {
        let expected = h_plain * (1.0 + scale) * (1.0 + scale);
        assert!(
            (h / expected - 1.0).abs() < 1e-15,
            "point {i}: {h} vs {expected}"
        );
    }
    let (a, a_plain) = (loop_area(&comp).unwrap(), loop_area(&plain).unwrap());
    assert!(
        (a / (a_plain * (1.0 + scale).powi(2)) - 1.0).abs() < 1e-14,
        "{a} {a_plain}"
    );
}
