//! Several small runs advanced as one ensemble on the CPU engine (`PartsEngine`): a sweep's
//! parts, each its own system (its parameters) and its own points, stepped in one parallel
//! pass over the blocks of every part instead of one part after another. A part's parameters
//! are one set of values per group of points (the part's blocks): each block is advanced
//! with its part's system, whose constants the generated gradients load as they load them in
//! a run of that part alone, so every part's state is the one its own `CpuEngine` gives, bit
//! for bit (the blocks of a CPU advance are independent of each other). The gain is the
//! machine's cores: a part of a thousand points is one or two blocks, which alone keep one
//! core busy; K parts together fill every core and pay the pool's start once per advance.
//!
//! Parts whose step the fused path does not take (per-step observers, iterated implicit
//! solves, a formula's bytecode) are advanced one after another, as before.

use rayon::prelude::*;

use super::{CpuEngine, Engine, Integrator};
use crate::error::Result;
use crate::float::Real;
use crate::method::fused;
use crate::state::State;

/// K runs of the CPU engine advanced together (see the module doc).
pub struct PartsEngine<T: Real> {
    parts: Vec<CpuEngine<T>>,
}

impl<T: Real> PartsEngine<T> {
    /// One part per (integrator, initial state): each the `CpuEngine` a run of it alone
    /// builds.
    pub fn new(parts: Vec<(Integrator, State<T>)>) -> Self {
        let parts = parts
            .into_iter()
            .map(|(k, state)| CpuEngine::new(&k, state))
            .collect();
        PartsEngine { parts }
    }

    /// The number of parts.
    pub fn len(&self) -> usize {
        self.parts.len()
    }

    /// Whether there are no parts.
    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    /// Part `i`'s engine (its state, its own `advance`).
    pub fn part(&mut self, i: usize) -> &mut CpuEngine<T> {
        &mut self.parts[i]
    }

    /// Advance every part `steps` steps (`advance_all`).
    pub fn advance(&mut self, steps: u64) -> Result<()> {
        let steps = vec![steps; self.parts.len()];
        advance_all(&mut self.parts, &steps).into_iter().collect()
    }
}

/// Advance each of `engines` its `steps` (one count per engine): those the fused path takes in
/// one parallel pass over all their blocks, the others one after another. Each engine's
/// outcome, in order.
pub fn advance_all<T: Real>(engines: &mut [CpuEngine<T>], steps: &[u64]) -> Vec<Result<()>> {
    let programs: Vec<Option<fused::Program<T>>> =
        engines.iter().map(CpuEngine::fused_program).collect();
    let mut runs = Vec::new();
    let mut blocks = Vec::new();
    let mut outcomes = Vec::with_capacity(engines.len());
    for ((engine, program), &steps) in engines.iter_mut().zip(&programs).zip(steps) {
        match program {
            Some(program) => {
                let (run, own) = engine.fused_blocks(program, steps);
                runs.push(run);
                blocks.push(own);
                outcomes.push(Ok(()));
            }
            None => outcomes.push(engine.advance(steps)),
        }
    }
    let runs = &runs;
    blocks
        .par_iter_mut()
        .enumerate()
        .flat_map(|(at, own)| own.par_blocks().map(move |parts| (at, parts)))
        .for_each_init(fused::Scratch::default, |scratch, (at, parts)| {
            fused::advance(&runs[at], parts, scratch)
        });
    outcomes
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::time::Instant;

    use super::*;
    use crate::ensemble::EnsembleRequest;
    use crate::method::Method;
    use crate::system::System;

    /// K pendulums of different g (and one of them with a different l), the same `n` points
    /// each.
    fn parts(k: usize, n: usize, method: &str) -> Vec<(Integrator, State<f64>)> {
        let method = Method::from_name(method).unwrap();
        (0..k)
            .map(|i| {
                let params = BTreeMap::from([
                    ("g".to_string(), 0.5 + i as f64 * 0.25),
                    ("l".to_string(), if i == 1 { 2.0 } else { 1.0 }),
                ]);
                let system = System::new("pendulum", &params).unwrap();
                let init = EnsembleRequest::disk(n, 0.5, 3)
                    .resolve(&system)
                    .unwrap()
                    .generate(&system, 0.05)
                    .unwrap();
                let k = Integrator::with_default_solver::<f64>(system, method, 0.05).unwrap();
                (k, init)
            })
            .collect()
    }

    /// Each part's state after `steps` steps in one `PartsEngine` equals, bit for bit, the
    /// state of its own `CpuEngine` run, at f32 and f64, plain and compensated, for a fused
    /// method, a method the fused path refuses (iterated implicit solves) and parts of sizes
    /// that leave short last blocks; and the parts really moved apart (different g).
    #[test]
    fn parts_advanced_together_equal_their_separate_runs() {
        for (method, compensated) in [
            ("euler", false),
            ("verlet", true),
            ("yoshida4", false),
            ("implicit-midpoint", false),
        ] {
            for n in [1usize, 37, 1000] {
                let given = parts(5, n, method);
                let given: Vec<(Integrator, State<f64>)> = given
                    .into_iter()
                    .map(|(k, s)| (k.with_compensation(compensated), s))
                    .collect();
                check::<f64>(&given, method, n);
                let f32s: Vec<(Integrator, State<f32>)> = given
                    .iter()
                    .map(|(k, s)| (k.clone(), s.convert()))
                    .collect();
                check::<f32>(&f32s, method, n);
            }
        }
    }

    fn check<T: Real>(given: &[(Integrator, State<T>)], method: &str, n: usize) {
        let mut together = PartsEngine::new(given.to_vec());
        together.advance(7).unwrap();
        together.advance(13).unwrap();
        let mut states = Vec::new();
        for (i, (k, init)) in given.iter().enumerate() {
            let mut alone = CpuEngine::new(k, init.clone());
            alone.advance(7).unwrap();
            alone.advance(13).unwrap();
            let want = alone.state().unwrap().to_bytes();
            let got = together.part(i).state().unwrap().clone();
            assert!(
                got.to_bytes() == want,
                "{} {method} n = {n}: part {i} differs from its own run",
                T::NAME
            );
            assert_ne!(got.to_bytes(), init.to_bytes(), "part {i} did not move");
            states.push(got);
        }
        // The parts start from the same points with different parameters: different ends.
        assert!(states.len() == 5 && states[0].q != states[2].q);
    }

    /// K = 64 parts of 1 024 points, 200 steps of symplectic Euler, f32: together against one
    /// after another (printed; run with `--nocapture`). Not a pass/fail figure beyond
    /// "together is not slower than 1.5× separate" (a loaded machine times noisily).
    #[test]
    fn sixty_four_small_parts_together_and_one_after_another() {
        let given: Vec<(Integrator, State<f32>)> = parts(64, 1024, "euler")
            .into_iter()
            .map(|(k, s)| (k, s.convert()))
            .collect();
        let steps = 200;
        let mut together = PartsEngine::new(given.clone());
        let mut alone: Vec<CpuEngine<f32>> = given
            .iter()
            .map(|(k, s)| CpuEngine::new(k, s.clone()))
            .collect();
        let (mut best_together, mut best_alone) = (f64::MAX, f64::MAX);
        for _ in 0..3 {
            let t = Instant::now();
            together.advance(steps).unwrap();
            best_together = best_together.min(t.elapsed().as_secs_f64());
            let t = Instant::now();
            for e in &mut alone {
                e.advance(steps).unwrap();
            }
            best_alone = best_alone.min(t.elapsed().as_secs_f64());
        }
        for (i, e) in alone.iter_mut().enumerate() {
            let want = e.state().unwrap().to_bytes();
            assert!(
                together.part(i).state().unwrap().to_bytes() == want,
                "part {i}"
            );
        }
        let ps = 64.0 * 1024.0 * steps as f64;
        println!(
            "64 parts x 1024 points x {steps} steps, f32, {} threads: together {:.4} s ({:.3e} point-steps/s), one after another {:.4} s ({:.3e}), speed-up {:.2}",
            rayon::current_num_threads(),
            best_together,
            ps / best_together,
            best_alone,
            ps / best_alone,
            best_alone / best_together
        );
        assert!(best_together < 1.5 * best_alone);
    }
}
