//! Settings shared by the command line (`cli`), the configuration (`config`) and the run: the
//! engine choice, the precision and the defaults the help texts quote. A leaf module: it imports
//! nothing from the crate, so `cli` (parsing), `config` (validation) and `run` (work) all depend on
//! it and not on each other in a circle.

use serde::{Deserialize, Serialize};

/// Which engine advances the ensemble.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// A hardware GPU when there is one and the precision is f32, else the CPU engine.
    #[default]
    Auto,
    /// Any wgpu adapter, a CPU Vulkan driver (lavapipe) included.
    Gpu,
    /// The CPU engine, parallel over all cores.
    Cpu,
}

/// The floating-point precision of the state and the kernels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Precision {
    /// 32-bit floats (both engines).
    #[default]
    F32,
    /// 64-bit floats (the CPU engine).
    F64,
}

impl Precision {
    /// The unit roundoff: the largest relative error of rounding a real to this precision
    /// (2⁻²⁴, 2⁻⁵³).
    pub fn unit_roundoff(self) -> f64 {
        match self {
            Precision::F32 => f64::from(f32::EPSILON) / 2.0,
            Precision::F64 => f64::EPSILON / 2.0,
        }
    }

    /// The name the flag, config.toml and the messages use.
    pub fn name(self) -> &'static str {
        match self {
            Precision::F32 => "f32",
            Precision::F64 => "f64",
        }
    }
}

/// Where a run writes its per-point arrays (the saved states, the chaos indicators).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Store {
    /// One .npy file per snapshot (states/step_<k>.npy, chaos/step_<k>.npy).
    #[default]
    Npy,
    /// One Zarr v3 store, states.zarr: chunked over snapshots and points, compressed.
    Zarr,
}

/// Default for `validate --tolerance`: the largest GPU−CPU deviation (f32, relative to the RMS
/// size of the state's components) accepted. Roundoff differences (fused multiply-adds on the
/// GPU) grow with the number of steps; 1e-3 leaves room for ~1e5 steps of a smooth flow while a
/// wrong kernel (any O(h) or sign error) deviates by far more.
pub const DEFAULT_VALIDATE_TOLERANCE: f64 = 1e-3;

/// Default for `validate --tolerance --precision f64`: at f64 both engines run the same
/// polynomials and roundings, so they agree to a few ulp per step (lavapipe: exactly); 1e-12
/// relative leaves room for fused multiply-adds on a real GPU.
pub const DEFAULT_VALIDATE_TOLERANCE_F64: f64 = 1e-12;
