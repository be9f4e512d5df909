//! The flags of a Poincaré section (`SectionArgs`, flattened into `run`; `crate::section`).

use clap::Args;

use super::values;

#[derive(Debug, Args, Clone, Default)]
pub struct SectionArgs {
    /// Poincaré section: record every point's crossings of the plane COORD = VALUE (q1..qd,
    /// p1..pd), in the direction given [default: up, the coordinate increasing], located by
    /// cubic Hermite interpolation of the step; writes section.npy and section.png/svg.
    #[arg(
        long,
        value_name = "COORD=VALUE[,up|down|both]",
        allow_hyphen_values = true
    )]
    pub section: Option<String>,
    /// Crossings kept per point (those past it are counted and reported) [default: 100].
    #[arg(long, value_name = "N", allow_hyphen_values = true, value_parser = values::count_u32(1))]
    pub section_max: Option<u32>,
}
