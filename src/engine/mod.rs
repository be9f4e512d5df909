//! Engines advance an ensemble: `CpuEngine` (rayon over blocks of points, f32 or f64) and
//! `GpuEngine` (wgpu compute shaders, f32 or f64). Same inputs, same outputs; the runner only sees
//! the `Engine` trait. Engines know nothing about files, and of measurements only those they
//! may take where the state lives (`Engine::acceleration`).

pub mod cpu;
pub mod gpu;
pub mod gpu_layout;
pub mod multi;
pub mod parts;
pub mod ranks;
pub mod reference;

#[cfg(test)]
mod fused_tests;

use crate::error::{Field, Result};
use crate::float::Real;
use crate::measure::measurement::Acceleration;
use crate::method::{Method, Solver};
use crate::observe::chaos::ChaosObserver;
pub use crate::observe::frequencies::FrequencyTable;
use crate::observe::Observer;
pub use crate::section::Crossings;
use crate::section::Section;
use crate::state::State;
use crate::system::System;
use std::sync::Arc;

pub use cpu::CpuEngine;
pub use gpu::GpuEngine;
pub use multi::MultiGpuEngine;
pub use parts::PartsEngine;
pub use ranks::RankEngine;
pub use reference::ReferenceEngine;

/// What an engine applies to every point: the system, the method, the step size and the
/// implicit stages' solver. Every engine (CPU, GPU, the reference loop) is built from one, so
/// engines compared side by side (`validate`, `bench`, refinement's second engine) cannot be
/// given different settings. Made by `new`, which refuses a method the system cannot take, so
/// an engine never meets one.
#[derive(Debug, Clone)]
pub struct Integrator {
    pub(crate) system: System,
    pub(crate) method: Method,
    /// Step size h.
    pub(crate) h: f64,
    pub(crate) solver: Solver,
    /// Compensated summation of every update (`--compensated`, `method::compensated`).
    pub(crate) compensated: bool,
    /// What runs after every step besides the method (`observe`), in order: the chaos
    /// indicators' renormalisation in the unit metric unless told otherwise
    /// (`with_chaos_weights`; it runs on states that carry its accumulators) and `--section`'s
    /// crossing test where given.
    pub(crate) observers: Vec<Arc<dyn Observer>>,
}

impl Integrator {
    /// `method` advancing `system` with step `h` (negative: backwards), its implicit stages
    /// iterated by `solver`. Refused (an input error naming the option) where the method does
    /// not suit the system (a discrete map steps only with its own `variational` method, a
    /// kick-drift splitting needs separable H, a method's own conditions: `Method::check_system`),
    /// where h is zero or not finite, or the solver's tolerance or iteration cap is unusable.
    pub fn new(system: System, method: Method, h: f64, solver: Solver) -> Result<Self> {
        method.check_system(&system)?;
        check_dt(h)?;
        check_solver(solver)?;
        Ok(Self::checked(system, method, h, solver))
    }

    /// The integrator of settings checked already (a built `RunConfig`, or a step size derived
    /// from its own): what `new` refuses cannot reach here.
    pub(crate) fn checked(system: System, method: Method, h: f64, solver: Solver) -> Self {
        Integrator {
            system,
            method,
            h,
            solver,
            compensated: false,
            observers: vec![Arc::new(ChaosObserver::plain(None))],
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

    pub fn system(&self) -> &System {
        &self.system
    }

    pub fn method(&self) -> Method {
        self.method
    }

    /// Step size h.
    pub fn h(&self) -> f64 {
        self.h
    }

    pub fn solver(&self) -> Solver {
        self.solver
    }

    /// Whether every update is summed with compensation.
    pub fn compensated(&self) -> bool {
        self.compensated
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

    /// The same integrator keeping the samples of `spec`'s signals and finding their
    /// frequencies (or none).
    pub fn with_frequencies(
        mut self,
        spec: Option<crate::observe::frequencies::FrequencySpec>,
    ) -> Self {
        match spec {
            Some(s) => self.with_observer(Arc::new(s)),
            None => {
                self.observers
                    .retain(|o| o.name() != crate::observe::frequencies::NAME);
                self
            }
        }
    }

    /// The same integrator measuring the chaos indicators' deviation vector with the metric's
    /// `weights` (`ChaosObserver`; `None`: the unit metric).
    pub fn with_chaos_weights(self, weights: Option<Vec<f64>>) -> Self {
        self.with_observer(Arc::new(ChaosObserver::plain(weights)))
    }

    /// The same integrator testing the stop conditions `stops` after every step (or none).
    pub fn with_stops(mut self, stops: Option<Arc<crate::observe::stop::StopConditions>>) -> Self {
        match stops {
            Some(s) => self.with_observer(s),
            None => {
                self.observers
                    .retain(|o| o.name() != crate::observe::stop::NAME);
                self
            }
        }
    }

    /// The same integrator with the chaos indicators' observer `chaos` (`indicators`: whether
    /// the run computes them) and the stop conditions `stops` (or none): a run with both has
    /// one observer (`observe::chaos_stop`), so that a stopped point keeps its indicators as
    /// they were after the step it stopped on, whatever stopped it (the GPU's loop ends for
    /// it; the CPU block puts them back), and a threshold reads the indicators just updated;
    /// otherwise each its own.
    pub fn with_observers(
        self,
        (chaos, indicators): (ChaosObserver, bool),
        stops: Option<Arc<crate::observe::stop::StopConditions>>,
    ) -> Self {
        match stops {
            // (a threshold needs the indicators: `StopConditions::parse` refuses it otherwise)
            Some(stops) if indicators => self.with_stops(None).with_observer(Arc::new(
                crate::observe::chaos_stop::ChaosStop { chaos, stops },
            )),
            stops => self.with_observer(Arc::new(chaos)).with_stops(stops),
        }
    }

    /// The same integrator with compensated summation switched on or off.
    pub fn with_compensation(mut self, on: bool) -> Self {
        self.compensated = on;
        self
    }

    /// With the implicit solver's defaults for precision `T` (`Solver::default_for`); refused
    /// as `new` refuses.
    pub fn with_default_solver<T: Real>(system: System, method: Method, h: f64) -> Result<Self> {
        Self::new(system, method, h, Solver::default_for::<T>())
    }
}

/// A step size an integrator can take: finite and non-zero.
pub(crate) fn check_dt(dt: f64) -> Result<()> {
    if !(dt.is_finite() && dt != 0.0) {
        return Err(crate::invalid!(Field::Dt;
            Field::Dt,
            format!(
                " must be a finite non-zero number (negative runs backwards in time), got {}",
                crate::error::num(dt)
            )
        ));
    }
    Ok(())
}

/// A solver the implicit stages can use: a tolerance of 0 (to the rounding level) or small and
/// positive, and at least one iteration.
pub(crate) fn check_solver(solver: Solver) -> Result<()> {
    if !(solver.tol.is_finite() && solver.tol >= 0.0 && solver.tol < 1.0) {
        return Err(crate::invalid!(Field::ImplicitTol;
            Field::ImplicitTol.is(solver.tol),
            ": expected 0 (iterate to the rounding level) or a small positive number, e.g. 1e-6 (f32) or 1e-14 (f64)"
        ));
    }
    if solver.max_iter == 0 {
        return Err(crate::invalid!(Field::ImplicitMaxIter;
            Field::ImplicitMaxIter,
            " must be at least 1 (e.g. 100), got 0"
        ));
    }
    Ok(())
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
    /// The frequencies of the integrator's `--frequencies` signals, analysed now (the GPU
    /// engine reads back the device's results); `None` without them.
    fn frequencies(&mut self) -> Result<Option<FrequencyTable>> {
        Ok(None)
    }
}
