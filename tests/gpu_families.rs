//! Methods given as data on the GPU engine: every shipped method's kernel equals the CPU
//! engine's steps bit for bit on lavapipe (f32 and f64; compensated for an explicit and an
//! implicit tableau), capped stage solves counted alike. They need a wgpu adapter (on CI:
//! Mesa's lavapipe) and fail loudly when none is found.

mod common;

use common::{disk, system};
use phaseflow::engine::{CpuEngine, Engine, GpuEngine, Integrator};
use phaseflow::ensemble::State;
use phaseflow::float::Real;
use phaseflow::method::{all, Method, Solver};

/// GPU and CPU states after `steps` steps, q and p as f64.
fn both<T: Real>(k: &Integrator, init: &State<f64>, steps: u64) -> [State<f64>; 2] {
    let mut g = GpuEngine::<T>::new(k, init.convert()).unwrap();
    let mut c = CpuEngine::<T>::new(k, init.convert());
    g.advance(steps).unwrap();
    c.advance(steps).unwrap();
    [g.state().unwrap().convert(), c.state().unwrap().convert()]
}

fn assert_equal<T: Real>(name: &str, compensated: bool) {
    let sys = system("pendulum");
    let init = disk(&sys, 64, 0.5);
    let m = Method::from_name(name).unwrap();
    let k = Integrator::with_default_solver::<T>(sys, m, 0.05)
        .unwrap()
        .with_compensation(compensated);
    let [g, c] = both::<T>(&k, &init, 100);
    assert!(
        g.q == c.q && g.p == c.p && g.unconverged == c.unconverged,
        "{name} {} compensated {compensated}: GPU and CPU differ",
        T::NAME
    );
    assert!(g.q != init.q, "{name}: the GPU advanced the points");
}

#[test]
fn every_shipped_method_runs_on_the_gpu_as_on_the_cpu() {
    let names: Vec<&str> = all()
        .iter()
        .filter(|m| matches!(m, Method::Data(_)))
        .map(|m| m.name())
        .collect();
    for name in &names {
        assert_equal::<f32>(name, false);
        assert_equal::<f64>(name, false);
    }
    for name in ["rk4-tableau", "gauss2"] {
        assert_equal::<f32>(name, true);
        assert_equal::<f64>(name, true);
    }
    println!("GPU = CPU bit for bit (f32, f64): {}", names.join(", "));
}

#[test]
fn capped_stage_solves_are_counted_on_the_gpu_as_on_the_cpu() {
    let sys = system("pendulum");
    let init = disk(&sys, 64, 0.5);
    let solver = Solver {
        tol: 4e-7,
        max_iter: 2,
    };
    let k = Integrator::new(sys, Method::from_name("gauss2").unwrap(), 0.1, solver).unwrap();
    let [g, c] = both::<f32>(&k, &init, 20);
    assert!(c.unconverged.iter().any(|&u| u > 0), "{:?}", c.unconverged);
    assert_eq!(g.unconverged, c.unconverged);
    assert!(g.q == c.q && g.p == c.p);
}
