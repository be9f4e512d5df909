//! Engines advance an ensemble: `CpuEngine` (rayon over blocks of points, f32 or f64) and
//! `GpuEngine` (wgpu compute shaders, f32). Same inputs, same outputs; the runner only sees
//! the `Engine` trait. Engines know nothing about files or measurements.

pub mod cpu;
pub mod gpu;
pub mod reference;

use crate::ensemble::State;
use crate::error::Result;
use crate::float::Real;

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
}
