//! The library's front door to a run: `RunConfig::builder(system, method)` and typed setters,
//! checked once by `build`. Nothing here knows the command line: `cli` lays its flags and
//! `--config` file into the same settings (`RunFile`) and builds them here, as the Python
//! module does from its keyword arguments and `resume` from a folder's config.toml, so every
//! run's settings pass the one validation (`RunConfig::resolve`).
//!
//! ```
//! use phaseflow::config::{Backend, RunConfig};
//!
//! let run = RunConfig::builder("pendulum", "verlet")
//!     .ensemble("disk")
//!     .points(1000)
//!     .dt(0.01)
//!     .steps(100)
//!     .backend(Backend::Cpu)
//!     .build()
//!     .unwrap();
//! assert_eq!(run.ensemble.points, 1000);
//!
//! // A bad setting (a zero step; a negative one integrates backwards) is an error naming its
//! // option, never a panic.
//! let e = RunConfig::builder("pendulum", "verlet").ensemble("disk").dt(0.0).steps(10).build();
//! assert_eq!(e.unwrap_err().field(), Some(&phaseflow::error::Field::Dt));
//! ```

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::file::{EnsembleFile, RunFile};
use super::RunConfig;
use crate::error::Result;
use crate::options::{Backend, Precision, Store};

/// How a run's system is given: a built-in system by name (`From<&str>`), a Hamiltonian as a
/// formula in `dof` degrees of freedom (`dof` `None`: as many as its coordinates say), a
/// Lagrangian as a formula L(q, v) (its discrete Lagrangian set by the `discretization`
/// setter), or a system file.
#[derive(Debug, Clone, PartialEq)]
pub enum SystemChoice {
    BuiltIn(String),
    Formula { formula: String, dof: Option<usize> },
    Lagrangian { formula: String, dof: Option<usize> },
    File(PathBuf),
}

impl From<&str> for SystemChoice {
    fn from(name: &str) -> SystemChoice {
        SystemChoice::BuiltIn(name.to_string())
    }
}

/// How a run's method is given: by name (a built-in or a shipped method file, `From<&str>`) or
/// by a method file of one's own.
#[derive(Debug, Clone, PartialEq)]
pub enum MethodChoice {
    Name(String),
    File(PathBuf),
}

impl From<&str> for MethodChoice {
    fn from(name: &str) -> MethodChoice {
        MethodChoice::Name(name.to_string())
    }
}

/// A run's settings being gathered; `build` checks them all and fills the defaults. Each
/// setter sets one option (a later call replaces an earlier one) and checks nothing.
#[derive(Debug, Clone, Default)]
pub struct RunBuilder {
    settings: RunFile,
}

impl RunConfig {
    /// A run of `system` with `method`; the ensemble, the step size and the number of steps
    /// are still to be given (`RunBuilder::ensemble`, `dt`, `steps`) before `build`.
    pub fn builder(system: impl Into<SystemChoice>, method: impl Into<MethodChoice>) -> RunBuilder {
        RunBuilder::default().system(system).method(method)
    }
}

impl From<RunFile> for RunBuilder {
    /// Settings gathered elsewhere: a TOML file's (`load_toml`), or flags laid over one.
    fn from(settings: RunFile) -> RunBuilder {
        RunBuilder { settings }
    }
}

/// Setters of the options held as one value in the settings.
macro_rules! setters {
    ($($(#[$doc:meta])* $name:ident: $ty:ty),+ $(,)?) => {$(
        $(#[$doc])*
        pub fn $name(mut self, value: $ty) -> Self {
            self.settings.$name = Some(value.into());
            self
        }
    )+};
}

/// Setters of the ensemble's options (the `[ensemble]` table of the settings).
macro_rules! ensemble_setters {
    ($($(#[$doc:meta])* $name:ident => $field:ident: $ty:ty),+ $(,)?) => {$(
        $(#[$doc])*
        pub fn $name(mut self, value: $ty) -> Self {
            self.ensemble_table().$field = Some(value.into());
            self
        }
    )+};
}

impl RunBuilder {
    /// The system, replacing any chosen before: another system's parameters and formula
    /// settings are dropped, the same system's (a config.toml's, say) kept.
    pub fn system(mut self, system: impl Into<SystemChoice>) -> Self {
        let system = system.into();
        let s = &mut self.settings;
        let same = match &system {
            SystemChoice::BuiltIn(name) => s.system.as_ref() == Some(name),
            SystemChoice::Formula { formula, .. } => s.hamiltonian.as_ref() == Some(formula),
            SystemChoice::Lagrangian { formula, .. } => s.lagrangian.as_ref() == Some(formula),
            SystemChoice::File(_) => false,
        };
        if same {
            (s.system, s.hamiltonian, s.system_file, s.lagrangian) = (None, None, None, None);
        } else {
            s.forget_system();
            s.params = None;
        }
        self.also_system(system)
    }

    /// A second choice of the system beside the first (`system`): `build` refuses the two,
    /// naming both (a caller that takes every option at once, as keyword arguments do, has it
    /// said rather than one dropped).
    pub fn also_system(mut self, system: SystemChoice) -> Self {
        let s = &mut self.settings;
        match system {
            SystemChoice::BuiltIn(name) => s.system = Some(name),
            SystemChoice::Formula { formula, dof } => {
                s.hamiltonian = Some(formula);
                s.dof = dof.or(s.dof);
            }
            SystemChoice::Lagrangian { formula, dof } => {
                s.lagrangian = Some(formula);
                s.dof = dof.or(s.dof);
            }
            SystemChoice::File(path) => s.system_file = Some(path),
        }
        self
    }

    /// The method (replacing any chosen before).
    pub fn method(mut self, method: impl Into<MethodChoice>) -> Self {
        let s = &mut self.settings;
        (s.method, s.method_file, s.method_source) = (None, None, None);
        match method.into() {
            MethodChoice::Name(name) => s.method = Some(name),
            MethodChoice::File(path) => s.method_file = Some(path),
        }
        self
    }

    /// One parameter of the system (the others keep their defaults).
    pub fn param(mut self, name: &str, value: f64) -> Self {
        let params = self.settings.params.get_or_insert_with(BTreeMap::new);
        params.insert(name.to_string(), value);
        self
    }

    /// The kind of initial set (`disk`, `grid`, `circle`, …; `crate::ensemble::KINDS`). Another
    /// kind than before drops the options of the former one, keeping the points and the seed.
    pub fn ensemble(mut self, kind: &str) -> Self {
        let e = self.ensemble_table();
        if e.kind.as_deref() != Some(kind) {
            *e = EnsembleFile {
                kind: Some(kind.to_string()),
                points: e.points,
                seed: e.seed,
                ..EnsembleFile::default()
            };
        }
        self
    }

    fn ensemble_table(&mut self) -> &mut EnsembleFile {
        self.settings
            .ensemble
            .get_or_insert_with(EnsembleFile::default)
    }

    setters! {
        /// The degrees of freedom of a formula (`SystemChoice::Formula`).
        dof: usize,
        /// A Lagrangian's discrete Lagrangian: left, right, midpoint or trapezoid.
        discretization: String,
        /// The generator ξ(q) of a Lagrangian's symmetry (comma-separated formulas in q).
        momentum: String,
        /// A Lagrangian's initial states give (q, v), started at p = ∂L/∂v(q, v).
        velocities: bool,
        /// A Lagrangian's holonomic constraints g(q) = 0, formulas in q.
        constraints: Vec<String>,
        /// Step size h.
        dt: f64,
        steps: u64,
        /// Statistics every K steps (and at the last).
        snapshot_every: u64,
        backend: Backend,
        precision: Precision,
        /// Compensated summation of every update.
        compensated: bool,
        /// Keep the states of every snapshot.
        save_states: bool,
        /// The saved states and chaos indicators as .npy files or one Zarr store.
        store: Store,
        /// Carry the tangent map's 2d columns beside each point.
        tangent: bool,
        /// The modified Hamiltonian's error columns, with K correction terms.
        modified_hamiltonian: u32,
        /// Loop refinement on or off (on for loops unless turned off).
        refine: bool,
        refine_tol: f64,
        max_nodes: usize,
        implicit_tol: f64,
        implicit_max_iter: u32,
        /// A checkpoint every K steps (else every few minutes of work).
        checkpoint_every: u64,
        /// `K/N`: advance only the K-th of N shards of a filled ensemble.
        shard: &str,
        /// `all` or GPU numbers separated by commas.
        devices: &str,
        /// `METHOD[/K]`: the global error against a reference solution.
        reference: &str,
        /// After the steps, as many again with −h.
        reverse: bool,
        /// `COORD=VALUE[,DIRECTION]`: the Poincaré section whose crossings are kept.
        section: &str,
        /// Crossings kept per point.
        section_max: u32,
        /// The signals of the frequency analysis, separated by commas (`q1,q2`, `q1-ip1`).
        frequencies: &str,
        /// Steps between the frequency analysis's samples.
        frequency_stride: u64,
        /// The chaos indicators, separated by commas (`megno,lyapunov`).
        chaos: &str,
        /// `random`, `ones` or 2d numbers: where the deviation vector starts.
        deviation: &str,
        /// `natural`, `unit` or 2d weights: how its length is measured.
        deviation_metric: &str,
    }

    ensemble_setters! {
        points => points: usize,
        center => center: &[f64],
        radius => radius: f64,
        lo => lo: &[f64],
        hi => hi: &[f64],
        energy => energy: f64,
        sigma => sigma: f64,
        seed => seed: u64,
        /// The file of initial states (`ensemble("file")`).
        input => input: impl Into<PathBuf>,
        /// The initial states read as an ordered closed loop.
        closed_loop => closed_loop: bool,
        /// The centre read as two positions one step apart (variational systems).
        positions => positions: bool,
        /// A variational system's initial velocities as given.
        raw_start => raw_start: bool,
        /// `A,B`: the two coordinates a grid spans.
        grid_axes => grid_axes: &str,
    }

    /// The conditions that stop a point (`--stop-when`), in order, replacing any given before.
    pub fn stop_when<S: AsRef<str>>(mut self, conditions: &[S]) -> Self {
        self.settings.stop_when = Some(conditions.iter().map(|c| c.as_ref().to_string()).collect());
        self
    }

    /// The initial states given in memory, one row q1..qd p1..pd per point (a `file` set
    /// without a file: `input` must then not be given; `closed_loop` reads them as a loop).
    /// The ensemble's options given before are kept, so that `build` refuses those a file
    /// set does not take rather than drop them.
    pub fn initial_rows(mut self, rows: crate::state::State<f64>) -> Self {
        let e = self.ensemble_table();
        e.kind = Some("file".into());
        e.rows = Some(std::sync::Arc::new(rows));
        self
    }

    /// The settings gathered so far, as config.toml's keys hold them.
    pub fn settings(&self) -> &RunFile {
        &self.settings
    }

    /// The settings gathered so far, to change one the setters do not reach.
    pub fn settings_mut(&mut self) -> &mut RunFile {
        &mut self.settings
    }

    /// Check every setting and fill the defaults: the one place a run's configuration is
    /// validated (each input error names its option, `Error::field`).
    pub fn build(self) -> Result<RunConfig> {
        RunConfig::resolve(self.settings)
    }
}
