//! The flags of a Poincaré section (`SectionArgs`, flattened into `run`; `crate::section`)
//! of the stop conditions (`StopArgs`, `observe::stop`) and of the frequency analysis
//! (`FrequencyArgs`, `observe::frequencies`).

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

#[derive(Debug, Args, Clone, Default)]
pub struct FrequencyArgs {
    /// Frequency analysis: each point's fundamental frequency of the signals given (q1..qd,
    /// p1..pd, or complex signals such as q1-ip1 for q1 − i p1), separated by commas, over the
    /// run and over its two halves (Laskar's NAFF), and the diffusion index log10|ν₁ − ν₂|;
    /// writes frequencies.npy, frequency-map.png/svg and, over a grid, diffusion-map.png/svg.
    #[arg(long, value_name = "SIGNAL,..", allow_hyphen_values = true)]
    pub frequencies: Option<String>,
    /// Steps between the samples of --frequencies [default: steps/512, at least 1]: the
    /// signal is sampled at t = K·dt, 2K·dt, … (a frequency is found in (0, π/(K·dt)) for a
    /// real signal; a higher one appears folded below π/(K·dt)).
    #[arg(long, value_name = "K", allow_hyphen_values = true, value_parser = values::count(1))]
    pub frequency_stride: Option<u64>,
}

#[derive(Debug, Args, Clone, Default)]
pub struct StopArgs {
    /// Stop a point when a condition holds, repeatable: a comparison A > B, A < B, A >= B or
    /// A <= B of formulas of q1..qd, p1..pd, t, H and the system's parameters (e.g.
    /// "q1^2 + q2^2 > 100"), or with --chaos a threshold on one of its indicators (megno,
    /// lyapunov, fli or sali compared with a number, e.g. "megno > 8", "sali < 1e-8"), tested
    /// after every step, the first that holds counting; a stopped point keeps its state (and
    /// its indicators) and takes no further steps, and stops.npy records it. Each condition is
    /// an exit: exits.csv gives the fraction of the points that left by each and by none.
    #[arg(long, value_name = "EXPR", allow_hyphen_values = true)]
    pub stop_when: Vec<String>,
}
