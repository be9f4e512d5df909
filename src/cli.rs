//! Command-line definitions (clap derive). Only parsing lives here: the flags every subcommand
//! shares are defined once, as groups (`SystemArgs`, `EnsembleArgs`, `EngineArgs`, `SolverArgs`,
//! `RefineArgs`) flattened into each subcommand. `config` turns them into a validated
//! configuration (`TryFrom`), `run` and `study` do the work. Besides the leaf `options` it
//! reads only the registries (`values`: systems, methods, ensemble kinds), for the lists of
//! help and shell completions.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use crate::options::{Backend, Precision, Store};

mod accuracy;
mod chaos;
pub mod examples;
pub mod flags;
mod lagrangian;
mod section;
mod study;
pub mod values;

pub use accuracy::{AccuracyArgs, OrderArgs, ShowModifiedArgs};
pub use chaos::ChaosArgs;
pub use lagrangian::LagrangianArgs;
pub use section::{FrequencyArgs, SectionArgs, StopArgs};
pub use study::StudyArgs;

#[derive(Debug, Parser)]
#[command(
    name = "phaseflow",
    version,
    about = "Symplectic integrators for phase-space ensembles on the GPU, with a CPU reference engine"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Advance an ensemble and write energy statistics (and optionally states) to --out.
    #[command(override_usage = examples::RUN_USAGE)]
    Run(RunArgs),
    /// Advance the ensemble on the GPU and the CPU engine (both f32) and compare point by point.
    #[command(override_usage = examples::VALIDATE_USAGE)]
    Validate(ValidateArgs),
    /// Evolve one initial set with several methods side by side: data, plots and report.md.
    #[command(override_usage = examples::STUDY_USAGE)]
    Study(StudyArgs),
    /// Time the reference loop, CPU f64, CPU f32 and GPU f32 on the same ensemble, in one run.
    Bench(BenchArgs),
    /// Draw a finished run's figures and report.md again from its folder's files.
    Plot(PlotArgs),
    /// Convergence study: the method at h0, h0/2, …, h0/2^N over the same time span against
    /// a reference solution (f64, CPU engine); the global and energy errors per h and the
    /// fitted order, printed and written as order.csv and a log–log plot.
    Order(OrderArgs),
    /// Print the WGSL a system runs with: its shader functions (for --hamiltonian, generated
    /// from the formula's symbolic derivatives), or with --method the whole integration kernel.
    ShowKernel(ShowKernelArgs),
    /// Print the modified Hamiltonian H̃ = H + h^p H_{p+1} + … of a splitting or composition,
    /// or of a symplectic Runge–Kutta or partitioned method (backward error analysis) as
    /// formulas, truncated after --order K correction terms.
    ShowModifiedHamiltonian(ShowModifiedArgs),
    /// List systems (with parameters and defaults), methods (with the verdicts of their order
    /// and symplecticity conditions) and ensemble kinds.
    List,
    /// Method files: `method check FILE.toml|NAME` analyses a method's coefficients.
    #[command(subcommand)]
    Method(MethodCommand),
    /// List the wgpu adapters found on this machine, and the calibration by which `--backend
    /// auto` chooses between the CPU engine and the GPU.
    Devices(DevicesArgs),
    /// Continue an interrupted run or study from its last checkpoint (DIR/checkpoint/); the
    /// files come out as an uninterrupted run would have written them.
    Resume(ResumeArgs),
    /// Join the folders of `run --shard K/N` (all N shards) into the whole ensemble's run
    /// folder: stats.csv bit-identical to the unsharded run's, states stacked.
    Merge(MergeArgs),
    /// Print a shell completion script (systems, methods, ensemble kinds and presets complete
    /// by name): e.g. `phaseflow completions bash > ~/.local/share/bash-completion/completions/phaseflow`.
    Completions(CompletionsArgs),
    /// Print a manual page (roff): phaseflow's, or with a command's name that command's, e.g.
    /// `phaseflow man run > phaseflow-run.1; man ./phaseflow-run.1`.
    Man(ManArgs),
}

#[derive(Debug, Args, Clone)]
pub struct ManArgs {
    /// The command whose page to print (its options in full) [default: phaseflow's own page,
    /// which lists the commands].
    #[arg(value_name = "COMMAND")]
    pub command: Option<String>,
}

#[derive(Debug, Args, Clone)]
pub struct DevicesArgs {
    /// Time the CPU engine and the GPU a run would use (hardware or not) at a few ensemble
    /// sizes now, and keep the result in the calibration cache (`--backend auto` measures it
    /// on its first run that finds a hardware GPU).
    #[arg(long)]
    pub calibrate: bool,
}

#[derive(Debug, Args, Clone)]
pub struct CompletionsArgs {
    /// The shell the script is for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// The Hamiltonian.
#[derive(Debug, Args, Clone, Default)]
pub struct SystemArgs {
    /// Hamiltonian system (`phaseflow list` shows each with its parameters). The variational
    /// systems, after Torrente's discrete Lagrangians, run with --method variational and hold
    /// the state (q, v).
    #[arg(long, value_parser = values::systems())]
    pub system: Option<String>,
    /// Your own Hamiltonian instead of --system, as a formula: e.g. 'p^2/2 + 1 - cos(q)'.
    /// Variables q, p (one degree of freedom) or q1..qd, p1..pd; + - * / ^, pi, sin cos tan
    /// exp log sqrt sinh cosh tanh atan; any other name is a parameter given with --param
    /// (docs/your-own-hamiltonian.md).
    #[arg(
        long,
        value_name = "EXPR",
        allow_hyphen_values = true,
        conflicts_with = "system"
    )]
    pub hamiltonian: Option<String>,
    /// Degrees of freedom of --hamiltonian or --system-file, when more than the largest index
    /// its formula uses, at most 128 [default: that index].
    #[arg(long, value_name = "D", allow_hyphen_values = true, value_parser = values::count_usize(1))]
    pub dof: Option<usize>,
    /// Your own system from a TOML file instead of --system: name, hamiltonian, parameters
    /// with defaults and ranges, optional dof, default_state and coordinates
    /// (docs/your-own-hamiltonian.md).
    #[arg(long, value_name = "FILE.toml", conflicts_with_all = ["system", "hamiltonian", "lagrangian"])]
    pub system_file: Option<PathBuf>,
    /// Your own Lagrangian L(q, v), e.g. 'v^2/2 - (1 - cos(q))': q, v or q1..qd, v1..vd (also
    /// qdot, qdot1..); --method variational, state (q, p = ∂L/∂v) (docs/lagrangian.md).
    #[arg(long, value_name = "EXPR", allow_hyphen_values = true)]
    pub lagrangian: Option<String>,
    /// How a --lagrangian is discretised, its symmetry and its initial states.
    #[command(flatten)]
    pub lagrangian_options: LagrangianArgs,
    /// System parameter, repeatable: --param m=2 --param l=0.5 (names and defaults: `phaseflow
    /// list`; for --hamiltonian, every name of the formula that is not a coordinate).
    #[arg(long = "param", value_name = "KEY=VALUE")]
    pub params: Vec<String>,
}

/// The initial set of points.
#[derive(Debug, Args, Clone, Default)]
pub struct EnsembleArgs {
    /// Initial set: an ordered closed loop (level, circle, rect), a filled set (disk, grid,
    /// gaussian), one state (point) or the states of --input (file).
    #[arg(long, value_parser = values::ensembles())]
    pub ensemble: Option<String>,
    /// Number of points, a whole number (1000, 1e5) [default: 1000; 1 for point].
    #[arg(long, allow_hyphen_values = true, value_parser = values::count_usize(1))]
    pub points: Option<usize>,
    /// Centre (q1..qd,p1..pd) for circle, disk, gaussian and point [default: the system's default state].
    #[arg(long, value_name = "V,V,..", allow_hyphen_values = true)]
    pub center: Option<String>,
    /// Radius for circle and disk [default: 0.3].
    #[arg(long, allow_hyphen_values = true, value_parser = values::real())]
    pub radius: Option<f64>,
    /// Lower corner (q1..qd,p1..pd) for rect and grid.
    #[arg(long, value_name = "V,V,..", allow_hyphen_values = true)]
    pub lo: Option<String>,
    /// Upper corner (q1..qd,p1..pd) for rect and grid.
    #[arg(long, value_name = "V,V,..", allow_hyphen_values = true)]
    pub hi: Option<String>,
    /// Energy level H = E for the level ensemble (1 degree of freedom, a closed curve around
    /// the minimum); for grid, the energy surface its points lie on (p1 ≥ 0 solved from H = E).
    #[arg(long, allow_hyphen_values = true, value_parser = values::real())]
    pub energy: Option<f64>,
    /// The grid's two coordinates, the first varying fastest (e.g. q2,p2) [default: q1,p1].
    #[arg(long, value_name = "A,B")]
    pub grid_axes: Option<String>,
    /// Standard deviation for the gaussian ensemble [default: 0.1].
    #[arg(long, allow_hyphen_values = true, value_parser = values::real())]
    pub sigma: Option<f64>,
    /// Random seed for disk and gaussian [default: 0].
    #[arg(long, allow_hyphen_values = true, value_parser = values::count(0))]
    pub seed: Option<u64>,
    /// Initial states for the file ensemble: CSV or .npy, N rows × 2d columns q1..qd p1..pd.
    #[arg(long, value_name = "FILE")]
    pub input: Option<PathBuf>,
    /// The --input rows are the nodes of an ordered closed loop (loop area and refinement apply).
    #[arg(long = "loop")]
    pub closed_loop: bool,
    /// Variational systems: --center gives two positions one step apart, q0 (d values) then
    /// q1 (d values), as Torrente states initial conditions; the state is (q0, (q1 − q0)/dt).
    #[arg(long)]
    pub positions: bool,
    /// vertical-disk and euler-disk: start from the initial velocities as given. By default
    /// each is put on the discrete rolling constraint before the run (stderr and the study
    /// report say what that changed), so the energy errors are the scheme's; a velocity off
    /// the constraint is otherwise projected by the first step, and the energy jumps once.
    #[arg(long)]
    pub raw_start: bool,
}

/// Which engine, at which precision.
#[derive(Debug, Args, Clone, Default)]
pub struct EngineArgs {
    /// Engine [default: auto].
    #[arg(long, value_enum)]
    pub backend: Option<Backend>,
    /// Floating-point precision of the state and the kernels (f64 needs the CPU engine) [default: f32].
    #[arg(long, value_enum)]
    pub precision: Option<Precision>,
    /// Compensated summation: every update of q and p (and of the tangent columns) carries its
    /// rounding error into the next, so a long f32 run stays near its f64 answer, in both
    /// engines; `--compensated false` turns a preset's default off [default: off; on in the
    /// long presets: pendulum-level, elastic-pendulum, the spring chains, kepler].
    #[arg(long, value_name = "BOOL", num_args = 0..=1, default_missing_value = "true")]
    pub compensated: Option<bool>,
}

/// The fixed-point solver of implicit stages.
#[derive(Debug, Args, Clone, Default)]
pub struct SolverArgs {
    /// Implicit stages (non-separable H, implicit midpoint): a point's fixed-point iteration has
    /// converged when no component moves by more than TOL·(1 + |x|), or, for TOL below a few units
    /// in the last place (4e-7 in f32, 1e-14 in f64), once its move below that stops decreasing
    /// (the rounding level) [default: 4e-7 for f32, 0 for f64: to the rounding level].
    #[arg(long, value_name = "TOL", allow_hyphen_values = true, value_parser = values::real())]
    pub implicit_tol: Option<f64>,
    /// Implicit stages: give up after this many sweeps and count the point as unconverged [default: 100].
    #[arg(long, value_name = "N", allow_hyphen_values = true, value_parser = values::count_u32(1))]
    pub implicit_max_iter: Option<u32>,
}

/// Loop refinement (ordered closed loops only).
#[derive(Debug, Args, Clone, Default)]
pub struct RefineArgs {
    /// Loop ensembles: do not insert nodes where the loop stretches (refinement is on by default).
    #[arg(long)]
    pub no_refine: bool,
    /// Loop refinement: insert a node between neighbours farther apart than this fraction of the
    /// initial loop's size (its bounding-box diagonal) [default: 5e-4].
    #[arg(long, value_name = "FRACTION", allow_hyphen_values = true, value_parser = values::real())]
    pub refine_tol: Option<f64>,
    /// Loop refinement: never grow the loop beyond this many nodes (reported when hit) [default: 1000000].
    #[arg(long, value_name = "N", allow_hyphen_values = true, value_parser = values::count_usize(1))]
    pub max_nodes: Option<usize>,
}

/// Where the results go.
#[derive(Debug, Args, Clone, Default)]
pub struct OutputArgs {
    /// Output folder (created; refused when it holds anything but a previous phaseflow run).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Replace the previous phaseflow run in --out (its files are removed first; a folder
    /// holding other files is still refused).
    #[arg(long)]
    pub force: bool,
    /// Also write DIR/states/step_<k>.npy at every snapshot.
    #[arg(long)]
    pub save_states: bool,
    /// Write a checkpoint (DIR/checkpoint/) every K steps, from which `phaseflow resume DIR`
    /// continues [default: after every 10 minutes of work; and always on SIGINT/SIGTERM].
    #[arg(long, value_name = "K", allow_hyphen_values = true, value_parser = values::count(1))]
    pub checkpoint_every: Option<u64>,
    /// No progress bar, notes or summary on the terminal (warnings and errors still go to stderr).
    #[arg(long)]
    pub quiet: bool,
}

#[derive(Debug, Args, Clone, Default)]
pub struct RunArgs {
    /// Settings from a TOML file (e.g. a previous run's config.toml); flags override it.
    #[arg(long, value_name = "FILE.toml")]
    pub config: Option<PathBuf>,
    #[command(flatten)]
    pub system: SystemArgs,
    /// Integrator: a built-in method, or a shipped method file by name (`phaseflow list` shows
    /// each with its order).
    #[arg(long, value_parser = values::methods())]
    pub method: Option<String>,
    /// Your own method instead of --method: a TOML file with a Butcher tableau (rk), a
    /// partitioned (prk) or Nyström (rkn) tableau, a kick–drift splitting, or a composition of
    /// a named method (docs/methods.md); config.toml records its text whole.
    #[arg(long, value_name = "FILE.toml", conflicts_with = "method")]
    pub method_file: Option<PathBuf>,
    #[command(flatten)]
    pub ensemble: EnsembleArgs,
    /// Step size h (negative: backwards in time).
    #[arg(long, allow_hyphen_values = true, value_parser = values::real())]
    pub dt: Option<f64>,
    /// Number of steps, a whole number (1000, 1e5).
    #[arg(long, allow_hyphen_values = true, value_parser = values::count(1))]
    pub steps: Option<u64>,
    /// Write statistics every K steps (step 0 and the last step are always included) [default: steps/100].
    #[arg(long, value_name = "K", allow_hyphen_values = true, value_parser = values::count(1))]
    pub snapshot_every: Option<u64>,
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Propagate the tangent map DΦⁿ per point and report det and symplecticity defect per snapshot.
    #[arg(long)]
    pub tangent: bool,
    /// Add the mod_* columns: the error of the method's modified Hamiltonian truncated after K
    /// correction terms (0 is H itself; splittings and their compositions on separable H,
    /// symplectic Runge–Kutta and partitioned methods on any H).
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
    /// Advance only the K-th of N shards of a filled ensemble (K from 0; for batch-scheduler
    /// arrays) into its own --out; `phaseflow merge` joins the shards' folders into the
    /// stats.csv and states of the whole ensemble, bit for bit.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// Saved states and indicators as npy files per snapshot or one Zarr store DIR/states.zarr [default: npy].
    #[arg(long, value_name = "npy|zarr")]
    pub store: Option<Store>,
    /// Spread the ensemble over several GPUs of this machine: `all`, or their numbers in `phaseflow devices` order (e.g. 0,1); statistics merged bit for bit as on one GPU.
    #[arg(long, value_name = "all|LIST")]
    pub devices: Option<String>,
    #[command(flatten)]
    pub accuracy: AccuracyArgs,
    /// Sweep a system parameter, repeatable (a grid): one run per value, N values from LO to
    /// HI evenly spaced, each into DIR/part_<i>/, with stats.csv gathering them by
    /// sweep_index (docs/output-files.md).
    #[arg(long, value_name = "NAME=LO:HI:N")]
    pub sweep: Vec<String>,
    #[command(flatten)]
    pub section: SectionArgs,
    #[command(flatten)]
    pub stops: StopArgs,
    #[command(flatten)]
    pub frequencies: FrequencyArgs,
}

#[derive(Debug, Args, Clone)]
pub struct ValidateArgs {
    #[command(flatten)]
    pub run: RunArgs,
    /// Largest allowed max_rel_dev (deviation relative to the RMS size of the state components)
    /// [default: 1e-3 at f32, 1e-12 at f64].
    #[arg(long, allow_hyphen_values = true, value_parser = values::real())]
    pub tolerance: Option<f64>,
}

#[derive(Debug, Args, Clone)]
pub struct BenchArgs {
    /// The system (--system, as for `run` [default: pendulum]; or --hamiltonian / --system-file).
    #[command(flatten)]
    pub system: SystemArgs,
    /// Also time this built-in system (its default parameters) on the same points, engine by
    /// engine in the same rounds, and give each row of --hamiltonian / --system-file its speed
    /// relative to it: e.g. --hamiltonian 'p^2/2 + 1 - cos(q)' --against pendulum.
    #[arg(long, value_name = "SYSTEM", value_parser = values::systems())]
    pub against: Option<String>,
    /// Also time this method (a name as for --method, or a method file: a path holding '/' or
    /// ending in .toml) on the same points, engine by engine in the same rounds, and give each
    /// row of the main method its speed relative to it: e.g. --method-file my-rk4.toml
    /// --against-method rk4.
    #[arg(long, value_name = "NAME|FILE.toml", conflicts_with = "against")]
    pub against_method: Option<String>,
    /// Integrator (as for `run --method`).
    #[arg(long, default_value = "symplectic-euler-a", value_parser = values::methods())]
    pub method: String,
    /// Your own method file instead of --method (as for `run --method-file`).
    #[arg(long, value_name = "FILE.toml", conflicts_with = "method")]
    pub method_file: Option<PathBuf>,
    /// Points of the benchmark ensemble.
    #[arg(long, default_value_t = 1_000_000, allow_hyphen_values = true, value_parser = values::count_usize(1))]
    pub points: usize,
    /// Steps per timed round.
    #[arg(long, default_value_t = 200, allow_hyphen_values = true, value_parser = values::count(1))]
    pub steps: u64,
    /// Step size h.
    #[arg(long, default_value_t = 0.01, allow_hyphen_values = true, value_parser = values::real())]
    pub dt: f64,
    /// Seed of the benchmark ensemble (a disk of radius 0.3 around the system's default centre).
    #[arg(long, default_value_t = 0, allow_hyphen_values = true, value_parser = values::count(0))]
    pub seed: u64,
    /// Skip the GPU even when an adapter exists.
    #[arg(long)]
    pub no_gpu: bool,
    /// Time the GPU engine alone: no reference loop and no CPU engine (so no GPU-against-CPU
    /// check; `validate` does that), for GPU sizes whose CPU rows would take minutes.
    #[arg(long, conflicts_with_all = ["no_gpu", "min_ratio"])]
    pub gpu_only: bool,
    /// Also time the CPU and GPU engines with compensated summation (rows marked "comp"), to
    /// measure its cost in the same run.
    #[arg(long)]
    pub compensated: bool,
    /// Also write the table as CSV.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Also build and time the C peer (benches/pendulum_c_peer.c: twenty lines of C with
    /// OpenMP and -O3 -march=native -ffast-math, symplectic Euler A on the pendulum) in the same
    /// rounds, and give every row its speed relative to the peer's at the same precision
    /// (column `x C peer`). Needs a C compiler with OpenMP ($CC, default cc) and the pendulum
    /// (--system pendulum, or a formula with --against pendulum).
    #[arg(long)]
    pub peers: bool,
    /// Timed rounds per engine, interleaved (reference, CPU, …); each row reports its fastest.
    #[arg(long, default_value_t = 1, allow_hyphen_values = true, value_parser = values::count_u32(1))]
    pub rounds: u32,
    /// Speed guard: exit 1 when a CPU engine row's ratio to the reference loop (a plain
    /// single-threaded Rust loop of the same step, timed in the same run) is below this.
    #[arg(long, value_name = "RATIO", allow_hyphen_values = true, value_parser = values::real())]
    pub min_ratio: Option<f64>,
}

#[derive(Debug, Args, Clone)]
pub struct ShowKernelArgs {
    #[command(flatten)]
    pub system: SystemArgs,
    /// Print the whole integration kernel of this method (the GPU engine's shader) instead of
    /// the system's functions alone.
    #[arg(long, value_parser = values::methods())]
    pub method: Option<String>,
    /// The whole kernel of your own method file (as for `run --method-file`).
    #[arg(long, value_name = "FILE.toml", conflicts_with = "method")]
    pub method_file: Option<PathBuf>,
    /// The kernel's float type (with --method) [default: f32].
    #[arg(long, value_enum)]
    pub precision: Option<Precision>,
    /// With --method: the kernel with tangent columns (as `run --tangent` builds it).
    #[arg(long)]
    pub tangent: bool,
    /// With --method: the kernel with compensated summation.
    #[arg(long)]
    pub compensated: bool,
}

#[derive(Debug, Subcommand)]
pub enum MethodCommand {
    /// Analyse a method from its coefficients: explicit or implicit, the order from the order
    /// conditions (with the first that fails), symplectic or not (with the largest residual of
    /// the conditions), symmetric or not, and the linear stability interval on q'' = −ω²q.
    Check(MethodCheckArgs),
}

#[derive(Debug, Args, Clone)]
pub struct MethodCheckArgs {
    /// A method file (a path: it holds '/' or ends in .toml), or a method's name (built-in or
    /// shipped, `phaseflow list`).
    #[arg(value_name = "FILE.toml|NAME")]
    pub method: String,
    /// Print one JSON object: name, family, explicit, order, symplectic, symplectic_residual,
    /// symmetric, stability_interval ([0, end], end null when unbounded; every value but the
    /// name null for the variational method, which has no tableau).
    #[arg(long)]
    pub json: bool,
    /// Also draw the step's amplification on q'' = −ω²q (the spectral radius of its matrix
    /// against hω) into DIR/stability.png and .svg (DIR created if missing; files there are
    /// not replaced).
    #[arg(long, value_name = "DIR")]
    pub plot: Option<PathBuf>,
    /// Another method (name or file) to draw beside it with --plot (repeat for more).
    #[arg(long = "with", value_name = "FILE.toml|NAME", requires = "plot")]
    pub with: Vec<String>,
}

#[derive(Debug, Args, Clone)]
pub struct MergeArgs {
    /// The shards' folders (each a `run --shard K/N --out` folder), in any order.
    #[arg(value_name = "SHARD_DIR", required = true)]
    pub shards: Vec<PathBuf>,
    /// The merged run's folder.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Replace the previous phaseflow run in --out.
    #[arg(long)]
    pub force: bool,
    /// Print nothing but warnings and errors.
    #[arg(long)]
    pub quiet: bool,
}

#[derive(Debug, Args, Clone)]
pub struct ResumeArgs {
    /// The folder of the interrupted `phaseflow run` or `phaseflow study` (its --out).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// No progress bar, notes or summary on the terminal (warnings and errors still go to stderr).
    #[arg(long)]
    pub quiet: bool,
}

#[derive(Debug, Args, Clone)]
pub struct PlotArgs {
    /// The folder of a finished `phaseflow run` (its manifest.toml complete).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Write the figures and report.md here instead of into DIR [default: DIR, whose
    /// manifest.toml then lists them].
    #[arg(long, value_name = "FIGDIR")]
    pub out: Option<PathBuf>,
    /// Print nothing on success (errors and warnings still go to stderr).
    #[arg(long)]
    pub quiet: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// Every flag of every subcommand has a help text, and the possible values of --system,
    /// --method and --ensemble (help and shell completions list them) are the registries.
    #[test]
    fn help_is_complete() {
        let cli = Cli::command();
        for sub in cli.get_subcommands() {
            for arg in sub.get_arguments() {
                let id = arg.get_id().as_str();
                // study --preset's help is generated by the binary from the preset table
                // (main.rs); tests/cli/help.rs checks it there.
                let generated = sub.get_name() == "study" && id == "preset";
                if id == "help" || id == "version" || generated {
                    continue;
                }
                assert!(
                    arg.get_help().is_some_and(|h| !h.to_string().is_empty()),
                    "{} --{id}: no help text",
                    sub.get_name()
                );
            }
        }
        // The lists of help and completion are the registries, in their order.
        let run = cli.find_subcommand("run").unwrap();
        let values = |id: &str| -> Vec<String> {
            run.get_arguments()
                .find(|a| a.get_id() == id)
                .unwrap()
                .get_possible_values()
                .iter()
                .map(|v| v.get_name().to_string())
                .collect()
        };
        let systems: Vec<&str> = crate::system::CATALOGUE.iter().map(|s| s.name).collect();
        assert_eq!(values("system"), systems);
        let methods: Vec<&str> = crate::method::all().iter().map(|m| m.name()).collect();
        assert!(
            methods.len() > crate::method::ALL.len(),
            "no shipped method"
        );
        assert_eq!(values("method"), methods);
        let kinds: Vec<&str> = crate::ensemble::KINDS.iter().map(|k| k.1).collect();
        assert_eq!(values("ensemble"), kinds);
    }
}
