//! Measurements on snapshots, each one `measurement::Measurement` registered in
//! `registry::MEASUREMENTS`: energy statistics (f64, mergeable across chunks) and drift fits,
//! loop area, the tangent map's det and symplecticity defect, angular momentum, the
//! constraint violation of nonholonomic systems, the rounding floors of these (`floor`); a snapshot's row (`row`) and its mergeable
//! parts (`row::RowParts`, `parts` for shards' files).
//! Knows nothing about engines: it reads a `State`.

/// `$body` with `$s` bound to the `HostState`'s `&State<T>` at its precision (measurements
/// call the generic functions of their modules with it).
macro_rules! on_state {
    ($host:expr, $s:ident => $body:expr) => {
        match $host {
            $crate::measure::measurement::HostState::F32($s) => $body,
            $crate::measure::measurement::HostState::F64($s) => $body,
        }
    };
}

pub mod alignment;
pub mod area;
pub mod chaos;
pub mod constraint;
pub mod distance;
pub mod energy;
pub mod floor;
pub mod measurement;
pub mod modified;
pub mod parts;
pub mod registry;
pub mod row;
pub mod stopped;
pub mod tangent;
