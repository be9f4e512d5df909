//! Measurements on snapshots: energy statistics (f64, mergeable across chunks) and drift fits,
//! loop area, and the tangent map's det and symplecticity defect.
//! Knows nothing about engines: it reads a `State`.

pub mod area;
pub mod energy;
pub mod parts;
pub mod tangent;
