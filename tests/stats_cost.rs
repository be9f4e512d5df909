//! What one snapshot's energy statistics cost against the steps they interrupt (issue 10: at
//! most a few steps' worth). A timing, so it runs only when asked:
//! `cargo test --release --test stats_cost -- --ignored --nocapture`.

use std::collections::BTreeMap;
use std::time::Instant;

use phaseflow::engine::{CpuEngine, Engine, Integrator};
use phaseflow::ensemble::{EnsembleRequest, State};
use phaseflow::float::Real;
use phaseflow::measure::energy::{energies, snapshot_stats, RunEnergy};
use phaseflow::method::Method;
use phaseflow::system::System;

/// Best of `rounds` timings of `f`, in seconds.
fn best_of(rounds: usize, mut f: impl FnMut()) -> f64 {
    (0..rounds)
        .map(|_| {
            let t0 = Instant::now();
            f();
            t0.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

/// Step, snapshot statistics and initial energies of a 1e6-point pendulum disk (symplectic
/// Euler A), timed in one process; returns snapshot / step.
fn snapshot_in_steps<T: Real>() -> f64 {
    let sys = System::new("pendulum", &BTreeMap::new()).unwrap();
    let spec = EnsembleRequest::disk(1_000_000, 0.3, 0)
        .resolve(&sys)
        .unwrap();
    let dt = 0.01;
    let init: State<T> = spec.generate(&sys, dt).unwrap().convert();
    let method = Method::from_name("symplectic-euler-a").unwrap();
    let mut engine = CpuEngine::<T>::new(
        &Integrator::with_default_solver::<T>(sys.clone(), method, dt).unwrap(),
        init,
    );
    let energy = RunEnergy { system: &sys, dt };
    let h0 = energies(&energy, engine.state().unwrap());
    let step = best_of(5, || engine.advance(10).unwrap()) / 10.0;
    // The same steps as ten calls of one step: what the engine costs per call (a run calls
    // `advance` once per snapshot interval), beside what the statistics cost.
    let step_per_call = best_of(5, || {
        for _ in 0..10 {
            engine.advance(1).unwrap();
        }
    }) / 10.0;
    let state = engine.state().unwrap();
    let stats = best_of(5, || {
        snapshot_stats(&sys, dt, state, &h0);
    });
    let h0_secs = best_of(5, || {
        energies(&energy, state);
    });
    eprintln!(
        "{}: step {:.3} ms ({:.3} ms as advance(1)), snapshot_stats {:.3} ms ({:.2} steps), energies (h0) {:.3} ms ({:.2} steps)",
        T::NAME,
        step * 1e3,
        step_per_call * 1e3,
        stats * 1e3,
        stats / step,
        h0_secs * 1e3,
        h0_secs / step
    );
    stats / step
}

#[test]
#[ignore = "timing: run with --ignored --nocapture on an idle machine"]
fn snapshot_costs_a_few_steps() {
    let f32_ratio = snapshot_in_steps::<f32>();
    let f64_ratio = snapshot_in_steps::<f64>();
    assert!(
        f32_ratio < 5.0 && f64_ratio < 5.0,
        "{f32_ratio}, {f64_ratio}"
    );
}
