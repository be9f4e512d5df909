//! The pipelines behind the subcommands: run (ensemble → engine → snapshots → outputs),
//! validate (GPU vs CPU at f32), bench (CPU f64, CPU f32, GPU f32 in one run).
//!
//! - `resources`: engine choice (`--backend auto`) and the host memory checks;
//! - `progress`: the progress report, and advancing an engine in pieces that keep it moving;
//! - `pipeline`: `run` itself, from the configuration to the files in `--out` (or, without a
//!   folder, to the values `memory` keeps);
//! - `memory`: what a run without a folder hands back, and points as rows for a host's arrays;
//! - `open_run`: a run kept open, advanced, inspected, changed and saved on request;
//! - `initial`: the initial set in the run's precision, and what refinement needs of it;
//! - `tracker`: the run in progress, its per-point data and the snapshot loop;
//! - `refine`: loop refinement, inserting nodes where the evolved loop's gaps grow too long;
//! - `validate`: GPU against CPU at f32, and `compare_states`;
//! - `bench`: the engines and the reference loop timed on one ensemble;
//! - `merge`: the folders of `run --shard K/N` joined into the whole ensemble's;
//! - `order`: the convergence study, errors per step size against a reference and the fitted order.

pub mod basins;
mod bench;
pub mod calibration;
pub mod chaos_map;
pub mod checkpoint;
mod files;
pub mod frequencies;
mod initial;
pub mod interrupt;
mod memory;
mod merge;
mod open_run;
mod order;
mod pipeline;
mod progress;
mod refine;
mod resources;
mod resume;
pub mod section;
mod stops;
pub mod store;
mod tracker;
mod validate;
mod validate_extras;

pub use crate::memory::{check_host_memory, check_memory};
pub use crate::options::DEFAULT_VALIDATE_TOLERANCE;
pub use bench::{bench, BenchReport, BenchRow};
pub use memory::{InMemory, StateRows};
pub use merge::{merge, MergeSummary};
pub use open_run::{ended as run_thread_ended, OpenRun, Reply};
pub use order::{fitted_order, order, write_order, OrderRow, OrderStudy};
pub use pipeline::{preflight, run, run_in_memory, run_keeping_final, run_on_engine, RunSummary};
pub use progress::{clear_steps, steps, ProgressScope};
pub use resources::{choose_engine, run_bytes_per_point, EngineChoice};
pub use resume::{resume_in, resume_run, Resumed};
pub use stops::COLUMNS as STOP_COLUMNS;
pub use validate::{compare_states, validate, Deviation, Validation};
pub use validate_extras::{ChaosDeviation, SectionDeviation};
