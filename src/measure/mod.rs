//! Measurements on snapshots: energy statistics (f64, mergeable across chunks) and drift fits.
//! Knows nothing about engines: it reads a `State`.

pub mod area;
pub mod energy;
