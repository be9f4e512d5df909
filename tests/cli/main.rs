//! End-to-end runs of the binary, and every kind of bad input (exit code 2, a message naming
//! the flag, nothing written to --out). One module a topic; the helpers here serve several.

#[path = "../common/mod.rs"]
mod common;

mod accuracy;
mod basins;
mod calibration;
mod chaos;
mod chaos_alignment;
mod chaos_deviation;
mod chaos_maps;
mod chaos_presets;
mod chaos_reports;
mod chaos_split;
mod commands;
mod compensated_maps;
mod completions;
mod constrained_start;
mod device_limits;
mod discrete_maps;
mod errors;
mod first_hour;
mod formulas;
mod frequencies;
mod gpu_chaos;
mod gpu_suite;
mod help;
mod hostile_formulas;
mod hostile_options;
mod hostile_paths;
mod integrity;
mod measurements;
mod method_bench;
mod method_files;
mod method_validate;
mod modified_bseries;
mod modified_hamiltonian;
mod modified_presets;
mod out_folder;
mod out_lock;
mod plot;
mod portable;
mod report_truths;
mod resume;
mod runs;
mod section;
mod section_plot;
mod shards;
mod stability_plot;
mod stop_thresholds;
mod stopped_maxima;
mod stops;
mod streams;
mod sweep;
mod symplecticity;

use std::path::Path;

use common::num;

/// The arguments of a short pendulum run (a 500-point circle, Verlet, 400 steps, snapshots
/// every 100) into `out`; callers add the backend and other flags.
fn base_run(out: &Path) -> Vec<String> {
    [
        "run",
        "--system",
        "pendulum",
        "--method",
        "verlet",
        "--ensemble",
        "circle",
        "--center",
        "0,0.8",
        "--radius",
        "0.3",
        "--points",
        "500",
        "--dt",
        "0.05",
        "--steps",
        "400",
        "--snapshot-every",
        "100",
        "--no-refine",
        "--quiet",
        "--out",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([out.display().to_string()])
    .collect()
}

/// A stats.csv line as numbers (empty cells as NaN).
fn values(line: &str) -> Vec<f64> {
    line.split(',').map(num).collect()
}
