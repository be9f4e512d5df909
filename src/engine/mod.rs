//! Engines advance an ensemble: `CpuEngine` (rayon over blocks of points, f32 or f64) and
//! `GpuEngine` (wgpu compute shaders, f32). Same inputs, same outputs; the runner only sees
//! the `Engine` trait. Engines know nothing about files or measurements.

pub mod cpu;
pub mod gpu;
pub mod reference;

use crate::ensemble::State;
use crate::error::Result;
use crate::float::Real;
use crate::measure::energy::EnergyAccumulator;

pub use cpu::CpuEngine;
pub use gpu::GpuEngine;
pub use reference::ReferenceEngine;

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
    /// Energy statistics of the current state reduced where the state lives, and the number
    /// of points with a non-zero unconverged count; with `record_h0` every point's H is first
    /// stored as its initial energy. `None` where the engine does not reduce on its own (the
    /// CPU engine, a GPU without f64): the runner then reads the state and reduces on the host.
    fn reduce_energy(&mut self, _record_h0: bool) -> Result<Option<(EnergyAccumulator, u64)>> {
        Ok(None)
    }
}
