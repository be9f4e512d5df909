//! `phaseflow study`: the same initial set evolved by several methods side by side, turned into
//! data (each run's stats.csv, config.toml and portrait states; summary.csv), pictures (phase
//! portraits, over the exact level curves where they are known, energy error and |area ratio − 1|
//! against time) and a short report.md. A study is data (`Study`): the presets and the custom
//! study from flags are both just values of it.
//!
//! - `presets`: the preset studies, one table entry each.
//! - `args`: the study the command-line flags describe (a preset with overrides, or custom).
//! - `runner`: `run_study`, one `run::run` per method, then summary, figures and report.
//! - `summary`: summary.csv's rows and the one-sentence verdict per method.
//! - `figures`: the study's figures (portraits, energy, observable and area against time).
//! - `portrait`: a phase portrait's data, plot ranges and level curves.
//! - `report`: report.md.
//! - `format`: number formatting shared by the report, legends and messages.
//! - `replot`: `plot DIR`, a finished run's figures and report.md drawn again from its files
//!   (read back by `readback`).

mod args;
mod figures;
mod format;
mod portrait;
mod presets;
mod readback;
mod replot;
mod report;
mod runner;
mod summary;

pub use args::{out_dir, parse_dt_list};
pub use presets::{preset, PRESETS};
pub use replot::{plot_run, PlotOutcome};
pub use runner::{run_study, StudyOutcome};
pub use summary::SummaryRow;

use crate::config::RunFile;
use crate::method::Method;

/// One method of a study with its own step and step count (and, for studies that compare
/// coordinates, e.g. polar against Cartesian, its own system).
#[derive(Debug, Clone, PartialEq)]
pub struct StudyRun {
    pub method: Method,
    pub dt: f64,
    pub steps: u64,
    /// Overrides the study's system for this run.
    pub system: Option<String>,
}

/// A study: the shared settings (system, ensemble, backend, …) and the methods to compare.
#[derive(Debug, Clone)]
pub struct Study {
    /// Preset name, or "custom".
    pub name: String,
    /// What the study reproduces and with which parameters (first paragraph of report.md).
    pub description: String,
    /// Everything but method, dt and steps (those come from `runs`).
    pub base: RunFile,
    pub runs: Vec<StudyRun>,
    /// Times at which every method's points are kept for the phase portraits.
    pub portrait_times: Vec<f64>,
    /// Statistics rows per run (the snapshot interval is steps / this).
    pub stats_rows: u64,
}
