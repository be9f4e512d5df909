//! The flags of the accuracy measurements: a run against a reference solution and run back
//! (`AccuracyArgs`, flattened into `run`), the convergence study (`order`) and the modified
//! Hamiltonian's terms (`show-modified-hamiltonian`).

use std::path::PathBuf;

use clap::Args;

use super::{values, EnsembleArgs, SolverArgs, SystemArgs};

/// The run measured against a reference solution and run back (`config::accuracy`).
#[derive(Debug, Args, Clone, Default)]
pub struct AccuracyArgs {
    /// Global error: advance a reference solution of every point beside the run (f64, CPU
    /// engine) with METHOD, K steps of dt/K per step [default K: 1], e.g. gauss3/16; adds
    /// global_err_max and global_err_mean (distance in phase space at the same t).
    #[arg(long, value_name = "METHOD[/K]")]
    pub reference: Option<String>,
    /// After --steps, run as many steps with −dt back to t = 0; adds return_err_max and
    /// return_err_mean (each point's distance to its initial state back at t = 0, the last row;
    /// empty at the others).
    #[arg(long)]
    pub reverse: bool,
}

#[derive(Debug, Args, Clone)]
pub struct OrderArgs {
    #[command(flatten)]
    pub system: SystemArgs,
    /// Integrator (as for `run --method`).
    #[arg(long)]
    pub method: Option<String>,
    /// Your own method file instead of --method (as for `run --method-file`).
    #[arg(long, value_name = "FILE.toml", conflicts_with = "method")]
    pub method_file: Option<PathBuf>,
    /// The initial states (as for `run`) [default: point, the system's default state].
    #[command(flatten)]
    pub ensemble: EnsembleArgs,
    /// The largest step size h0 (negative: backwards in time).
    #[arg(long, allow_hyphen_values = true, value_parser = values::real())]
    pub dt: Option<f64>,
    /// Steps at h0; each halving doubles them, so every h covers the same time [default: 100].
    #[arg(long, allow_hyphen_values = true, value_parser = values::count(1))]
    pub steps: Option<u64>,
    /// Halvings of the step: h0, h0/2, …, h0/2^N [default: 5].
    #[arg(long, value_name = "N", allow_hyphen_values = true, value_parser = values::count_u32(0))]
    pub halvings: Option<u32>,
    /// The reference solution: METHOD/K, K steps per step of the finest h
    /// [default: kahan-li8/4, order 8].
    #[arg(long, value_name = "METHOD[/K]")]
    pub reference: Option<String>,
    #[command(flatten)]
    pub solver: SolverArgs,
    /// Output folder for order.csv, order.png and order.svg (created; refused when it holds
    /// anything but a previous phaseflow convergence study).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Replace the previous convergence study in --out.
    #[arg(long)]
    pub force: bool,
    /// Print nothing but warnings and errors.
    #[arg(long)]
    pub quiet: bool,
}

#[derive(Debug, Args, Clone)]
pub struct ShowModifiedArgs {
    #[command(flatten)]
    pub system: SystemArgs,
    /// The method (a splitting or a composition of splittings; names as for `run --method`).
    #[arg(long)]
    pub method: Option<String>,
    /// Your own method file (as for `run --method-file`).
    #[arg(long, value_name = "FILE.toml", conflicts_with = "method")]
    pub method_file: Option<PathBuf>,
    /// Also give the coefficients h^n at this step size.
    #[arg(long, allow_hyphen_values = true, value_parser = values::real())]
    pub dt: Option<f64>,
    /// Correction terms K (0 is H itself).
    #[arg(long, value_name = "K", allow_hyphen_values = true, value_parser = values::count_u32(0))]
    pub order: u32,
}
