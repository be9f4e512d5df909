//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::collections::BTreeMap;

use phaseflow::engine::{CpuEngine, Engine};
use phaseflow::ensemble::{EnsembleSpec, State};
use phaseflow::method::Method;
use phaseflow::system::System;

pub fn system(name: &str) -> System {
    System::new(name, &BTreeMap::new()).unwrap()
}

/// A state from (q, p) pairs (d = 1).
pub fn state_1d(points: &[(f64, f64)]) -> State<f64> {
    let rows: Vec<Vec<f64>> = points.iter().map(|&(q, p)| vec![q, p]).collect();
    State::from_rows(&rows, 1)
}

/// Advance with the CPU engine in f64 and return the final state.
pub fn advance_f64(
    sys: &System,
    method: Method,
    h: f64,
    steps: u64,
    init: &State<f64>,
) -> State<f64> {
    let mut e = CpuEngine::<f64>::new(sys.clone(), method, h, init.clone());
    e.advance(steps).unwrap();
    e.state().unwrap().clone()
}

/// A seeded disk of points around the system's default centre.
pub fn disk(sys: &System, points: usize, radius: f64) -> State<f64> {
    EnsembleSpec::disk(points, radius, 7)
        .resolve(sys)
        .unwrap()
        .generate(sys)
        .unwrap()
}
