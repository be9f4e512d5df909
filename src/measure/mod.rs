//! Measurements on snapshots: energy statistics (f64, mergeable across chunks) and drift fits,
//! loop area, the tangent map's det and symplecticity defect, and the constraint violation of
//! nonholonomic systems.
//! Knows nothing about engines: it reads a `State`.

pub mod area;
pub mod constraint;
pub mod energy;
pub mod parts;
pub mod tangent;
