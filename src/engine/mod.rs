//! Engines advance an ensemble: `CpuEngine` (rayon over blocks of points, f32 or f64) and
//! `GpuEngine` (wgpu compute shaders, f32 or f64). Same inputs, same outputs; the runner only sees
//! the `Engine` trait. Engines know nothing about files, and of measurements only those they
//! may take where the state lives (`Engine::acceleration`).

pub mod cpu;
pub mod gpu;
pub mod gpu_layout;
pub mod multi;
pub mod ranks;
pub mod reference;

use crate::error::Result;
use crate::float::Real;
use crate::measure::measurement::Acceleration;
use crate::method::{Method, Solver};
use crate::observe::chaos::ChaosObserver;
use crate::observe::Observer;
pub use crate::section::Crossings;
use crate::section::Section;
use crate::state::State;
use crate::system::System;
use std::sync::Arc;

pub use cpu::CpuEngine;
pub use gpu::GpuEngine;
pub use multi::MultiGpuEngine;
pub use ranks::RankEngine;
pub use reference::ReferenceEngine;

/// What an engine applies to every point: the system, the method, the step size and the
/// implicit stages' solver. Every engine (CPU, GPU, the reference loop) is built from one, so
/// engines compared side by side (`validate`, `bench`, refinement's second engine) cannot be
/// given different settings.
#[derive(Debug, Clone)]
pub struct Integrator {
    pub system: System,
    pub method: Method,
    /// Step size h.
    pub h: f64,
    pub solver: Solver,
    /// Compensated summation of every update (`--compensated`, `method::compensated`).
    pub compensated: bool,
    /// What runs after every step besides the method (`observe`), in order: the chaos
    /// indicators' renormalisation in the unit metric unless told otherwise
    /// (`with_chaos_weights`; it runs on states that carry its accumulators) and `--section`'s
    /// crossing test where given.
    pub observers: Vec<Arc<dyn Observer>>,
}

impl Integrator {
    pub fn new(system: System, method: Method, h: f64, solver: Solver) -> Self {
        Integrator {
            system,
            method,
            h,
            solver,
            compensated: false,
            observers: vec![Arc::new(ChaosObserver { weights: None })],
        }
    }

    /// The same integrator with `observer` after the others, in place of any of its name.
    pub fn with_observer(mut self, observer: Arc<dyn Observer>) -> Self {
        match self
            .observers
            .iter_mut()
            .find(|o| o.name() == observer.name())
        {
            Some(o) => *o = observer,
            None => self.observers.push(observer),
        }
        self
    }

    /// The observer named `name`, if listed.
    pub fn observer(&self, name: &str) -> Option<&dyn Observer> {
        self.observers
            .iter()
            .find(|o| o.name() == name)
            .map(|o| &**o)
    }

    /// The same integrator collecting the crossings of `section` (or none).
    pub fn with_section(mut self, section: Option<Section>) -> Self {
        match section {
            Some(s) => self.with_observer(Arc::new(s)),
            None => {
                self.observers
                    .retain(|o| o.name() != crate::observe::section::NAME);
                self
            }
        }
    }

    /// The same integrator measuring the chaos indicators' deviation vector with the metric's
    /// `weights` (`ChaosObserver`; `None`: the unit metric).
    pub fn with_chaos_weights(self, weights: Option<Vec<f64>>) -> Self {
        self.with_observer(Arc::new(ChaosObserver { weights }))
    }

    /// The same integrator with compensated summation switched on or off.
    pub fn with_compensation(mut self, on: bool) -> Self {
        self.compensated = on;
        self
    }

    /// With the implicit solver's defaults for precision `T` (`Solver::default_for`).
    pub fn with_default_solver<T: Real>(system: System, method: Method, h: f64) -> Self {
        Self::new(system, method, h, Solver::default_for::<T>())
    }
}

pub trait Engine<T: Real> {
    /// Human-readable backend and device, e.g. "cpu (2 threads)" or "gpu: NVIDIA H100 (Vulkan)".
    fn describe(&self) -> String;
    /// Advance every point by `steps` steps of the engine's method and step size.
    fn advance(&mut self, steps: u64) -> Result<()>;
    /// The current state (the GPU engine reads back only when asked).
    fn state(&mut self) -> Result<&State<T>>;
    /// Replace the ensemble (same system, method, step and tangent columns; any point count):
    /// used when loop refinement inserts nodes and when tangent columns are renormalised.
    fn set_state(&mut self, state: State<T>) -> Result<()>;
    /// Points in the ensemble (no read-back).
    fn points(&self) -> usize;
    /// Step with −h from now on (`run --reverse` runs back the steps it ran forward).
    fn reverse(&mut self);
    /// The measurements this engine takes where the state lives (`Acceleration`: the GPU
    /// engine's energy statistics, on devices with f64), so that the state is not read back
    /// for them; `None` where it takes none (the CPU engine, a GPU without f64): the tracker
    /// then measures on the host.
    fn acceleration(&mut self) -> Result<Option<&mut dyn Acceleration>> {
        Ok(None)
    }
    /// The crossings of the integrator's `--section` so far, in f64 (the GPU engine reads
    /// them back); `None` without a section.
    fn crossings(&mut self) -> Result<Option<Crossings>> {
        Ok(None)
    }
}
