//! Per-step observers (`phaseflow::observe`) are open to observers the engines have never
//! heard of: one written here, counting each point's steps in a carried word, runs on the CPU
//! engine (its block hook) and on the GPU engine (its kernel lines) from the same
//! `Integrator`, leaves the state as the plain run leaves it, and takes the place of the chaos
//! observer's words only where the state carries its own count of words.

mod common;

use phaseflow::engine::{CpuEngine, Engine, GpuEngine, Integrator};
use phaseflow::float::Real;
use phaseflow::method::{Method, Points};
use phaseflow::observe::{BlockObserver, BlockRun, CpuObserver, DriverLines, DriverSite, Observer};
use phaseflow::state::State;
use std::sync::Arc;

/// Counts every point's steps in one carried word.
#[derive(Debug)]
struct StepCounter;

impl Observer for StepCounter {
    fn name(&self) -> &'static str {
        "step-counter"
    }
    fn carried_words(&self) -> usize {
        1
    }
    fn cpu_f64(&self, _n: usize) -> Box<dyn CpuObserver<f64>> {
        Box::new(StepCounter)
    }
    fn cpu_f32(&self, _n: usize) -> Box<dyn CpuObserver<f32>> {
        Box::new(StepCounter)
    }
    fn wgsl_prelude(&self, word: usize, _f64: bool, _literal: &dyn Fn(f64) -> String) -> String {
        format!("const COUNT_WORD: u32 = {word}u;\n")
    }
    fn wgsl_source(&self) -> &'static str {
        ""
    }
    fn wgsl_driver(&self, _site: &DriverSite) -> DriverLines {
        DriverLines {
            start: "    var counted = state[COUNT_WORD * n + i];\n".into(),
            before_step: String::new(),
            after_step: "        counted = counted + real(1.0);\n".into(),
            end: "    state[COUNT_WORD * n + i] = counted;\n".into(),
        }
    }
}

impl<T: Real> CpuObserver<T> for StepCounter {
    fn blocks<'a>(
        &'a mut self,
        _run: &BlockRun<'a, T>,
        carried: Vec<Vec<&'a mut [T]>>,
    ) -> Vec<Box<dyn BlockObserver<T> + 'a>> {
        carried
            .into_iter()
            .map(|mut words| {
                Box::new(CountBlock(words.remove(0))) as Box<dyn BlockObserver<T> + 'a>
            })
            .collect()
    }
}

struct CountBlock<'a, T>(&'a mut [T]);

impl<T: Real> BlockObserver<T> for CountBlock<'_, T> {
    fn after_step(&mut self, _at: &mut Points<T>, _k: u64) {
        for c in self.0.iter_mut() {
            *c += T::ONE;
        }
    }
}

/// 29 points of the pendulum carrying one word each (zero).
fn counted_state() -> State<f64> {
    let sys = common::system("pendulum");
    let mut s = common::disk(&sys, 29, 0.3);
    s.chaos = vec![0.0; s.n];
    s
}

fn integrator(counting: bool) -> Integrator {
    let k =
        Integrator::with_default_solver::<f64>(common::system("pendulum"), Method::Verlet, 0.01)
            .unwrap();
    match counting {
        true => k.with_observer(Arc::new(StepCounter)),
        false => k,
    }
}

/// Each point counted 7 + 5 steps, and q, p are the plain run's bit for bit.
fn check(counted: &State<f64>, plain: &State<f64>, what: &str) {
    assert_eq!(counted.chaos, vec![12.0; counted.n], "{what}");
    assert!(counted.q == plain.q && counted.p == plain.p, "{what}");
}

#[test]
fn a_new_observer_runs_in_the_cpu_engine_from_its_block_hook() {
    let mut e = CpuEngine::new(&integrator(true), counted_state());
    let mut plain = CpuEngine::new(&integrator(false), counted_state());
    for steps in [7, 5] {
        e.advance(steps).unwrap();
        plain.advance(steps).unwrap();
    }
    // Without it the words are nobody's: the chaos observer needs five.
    assert_eq!(plain.state().unwrap().chaos, vec![0.0; 29]);
    check(e.state().unwrap(), &plain.state().unwrap().clone(), "cpu");
}

#[test]
fn a_new_observer_runs_in_the_gpu_kernel_from_its_driver_lines() {
    let init = counted_state().convert::<f32>();
    let mut g = GpuEngine::<f32>::new(&integrator(true), init.clone()).unwrap();
    let mut c = CpuEngine::<f32>::new(&integrator(true), init);
    for steps in [7, 5] {
        g.advance(steps).unwrap();
        c.advance(steps).unwrap();
    }
    let (g, c) = (g.state().unwrap().clone(), c.state().unwrap().clone());
    assert_eq!(g.chaos, vec![12.0; 29]);
    assert_eq!(g.chaos, c.chaos);
}
