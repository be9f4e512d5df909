//! phaseflow: symplectic integrators for large phase-space ensembles, on the GPU (WGSL via
//! wgpu) with a CPU reference engine, plus energy statistics. See docs/ARCHITECTURE.md.

#![warn(clippy::too_many_lines)]

pub mod app;
pub mod chaos;
pub mod checksum;
pub mod cli;
pub mod cluster;
pub mod config;
pub mod console;
pub mod engine;
pub mod ensemble;
pub mod error;
pub mod expr;
pub mod float;
pub mod gpu;
pub mod measure;
pub mod memory;
pub mod method;
pub mod naff;
pub mod npy;
pub mod observe;
pub mod options;
pub mod output;
pub mod plot;
pub mod resume;
pub mod run;
pub mod section;
pub mod simd;
pub mod state;
pub mod study;
pub mod sweep;
pub mod system;
pub mod wgsl_literal;

pub use error::{Error, Result};
