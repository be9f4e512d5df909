//! The flags of `phaseflow study` (`StudyArgs`): a preset, or a custom study's system,
//! methods, steps, ensemble and reference run, with the groups every run takes flattened in.

use std::path::PathBuf;

use clap::Args;

use super::values;
use super::{ChaosArgs, EngineArgs, EnsembleArgs, OutputArgs, RefineArgs, SolverArgs, SystemArgs};

#[derive(Debug, Args, Clone, Default)]
pub struct StudyArgs {
    // Its help lists every preset: generated from the preset table by the binary
    // (`study::PRESETS`), so it cannot fall behind the table.
    #[arg(long, conflicts_with_all = ["config", "system", "hamiltonian", "system_file", "dof", "methods", "dt", "steps", "ensemble", "params", "center", "radius", "lo", "hi", "energy", "sigma", "seed", "input", "closed_loop", "portraits", "reference"])]
    pub preset: Option<String>,
    /// Custom study: settings from a TOML file (e.g. a run's config.toml) as its base; flags
    /// override it, and its method, dt and steps are the study's one run unless --methods is given.
    #[arg(long, value_name = "FILE.toml")]
    pub config: Option<PathBuf>,
    #[command(flatten)]
    pub system: SystemArgs,
    /// Custom study: methods to compare, comma-separated (e.g. euler,symplectic-euler-a,verlet;
    /// names as for `run --method`, and method files as for `run --method-file`: an entry
    /// holding '/' or ending in .toml is a file).
    #[arg(long, value_name = "M,M,..")]
    pub methods: Option<String>,
    /// Custom study: step size, one for all methods or one per method (comma-separated).
    #[arg(long, value_name = "H[,H,..]", allow_hyphen_values = true)]
    pub dt: Option<String>,
    /// Custom study: steps per method (one for all, or one per method); or give --t-end.
    #[arg(long, value_name = "N[,N,..]", allow_hyphen_values = true)]
    pub steps: Option<String>,
    /// End time: each method takes round(t_end / h) steps (with a preset: shorten or lengthen it).
    #[arg(long, value_name = "T", allow_hyphen_values = true, value_parser = values::real())]
    pub t_end: Option<f64>,
    #[command(flatten)]
    pub ensemble: EnsembleArgs,
    /// Custom study: number of phase portraits, evenly spaced in time from 0 to the end [default: 5].
    #[arg(long, value_name = "K", allow_hyphen_values = true, value_parser = values::count_usize(0))]
    pub portraits: Option<usize>,
    /// Custom study: the method of --methods whose run is the reference solution (at its
    /// smallest step where it appears twice; give it a fine step): every other single-state
    /// run's distance from it, |q − q_ref| and |p − p_ref| at the times both have a snapshot,
    /// is drawn in reference_distance.png and stated in report.md and summary.csv.
    #[arg(long, value_name = "METHOD")]
    pub reference: Option<String>,
    /// Write statistics every K steps of each method [default: steps/200, 200 rows per method].
    #[arg(long, value_name = "K", allow_hyphen_values = true, value_parser = values::count(1))]
    pub snapshot_every: Option<u64>,
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Do not propagate the tangent map (on by default in studies: det and defect columns).
    #[arg(long)]
    pub no_tangent: bool,
    /// Add the mod_* columns to every method's run (as `run --modified-hamiltonian K`; every
    /// method must be a splitting or a composition of splittings).
    #[arg(long, value_name = "K", allow_hyphen_values = true, value_parser = values::count_u32(0))]
    pub modified_hamiltonian: Option<u32>,
    #[command(flatten)]
    pub chaos: ChaosArgs,
    #[command(flatten)]
    pub refine: RefineArgs,
    #[command(flatten)]
    pub solver: SolverArgs,
    #[command(flatten)]
    pub output: OutputArgs,
}
