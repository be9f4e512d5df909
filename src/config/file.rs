//! The settings as a TOML file holds them (`RunFile`, every field optional): what `--config`
//! reads, what flags are laid over (`config::args`), and what `config.toml` is written from, so
//! `--config DIR/config.toml` reproduces a run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::RunConfig;
use crate::ensemble::EnsembleSpec;
use crate::error::{Error, Field, Result};
use crate::options::{Backend, Precision, Store};

/// The ensemble table of a TOML file.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnsembleFile {
    pub kind: Option<String>,
    pub points: Option<usize>,
    pub center: Option<Vec<f64>>,
    pub radius: Option<f64>,
    pub lo: Option<Vec<f64>>,
    pub hi: Option<Vec<f64>>,
    pub energy: Option<f64>,
    pub sigma: Option<f64>,
    pub seed: Option<u64>,
    pub input: Option<PathBuf>,
    #[serde(rename = "loop")]
    pub closed_loop: Option<bool>,
    /// `--positions`: the centre is two positions q₀, q₁ one step apart (variational systems);
    /// resolved into the state (q₀, (q₁ − q₀)/dt), which config.toml records as the centre.
    pub positions: Option<bool>,
    /// `--raw-start`: a nonholonomic variational system's initial velocities as given, not
    /// put on its discrete constraint before the run. config.toml records it (true or false)
    /// for the systems that project them.
    pub raw_start: Option<bool>,
    /// `--grid-axes A,B`: the grid's two coordinates (default q1,p1).
    pub grid_axes: Option<String>,
    /// A `file` ensemble's rows given in memory (`RunBuilder::initial_rows`), not a setting
    /// a file can hold.
    #[serde(skip)]
    pub rows: Option<std::sync::Arc<crate::state::State<f64>>>,
}

/// Everything a run can be told, each optional (a TOML file, flags, or both merged).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunFile {
    /// A built-in system (`--system`), or else the next keys: a Hamiltonian as a formula.
    pub system: Option<String>,
    /// `--hamiltonian`: H as a formula (config.toml records a system file's here too).
    pub hamiltonian: Option<String>,
    /// `--lagrangian`: L(q, v) as a formula (config.toml records a system file's here too).
    pub lagrangian: Option<String>,
    /// `--discretization`: a Lagrangian's discrete Lagrangian (`lagrangian::Discretization`).
    pub discretization: Option<String>,
    /// `--momentum`: the generator ξ(q) of a Lagrangian's symmetry, comma-separated formulas.
    pub momentum: Option<String>,
    /// `--velocities`: a Lagrangian's initial states give (q, v), started at p = ∂L/∂v.
    pub velocities: Option<bool>,
    /// `--constraint` (repeated): a Lagrangian's holonomic constraints g(q) = 0.
    pub constraints: Option<Vec<String>>,
    /// `--dof`: the formula's degrees of freedom.
    pub dof: Option<usize>,
    /// `--system-file`: a TOML file describing the system (`config::system_file`).
    pub system_file: Option<PathBuf>,
    /// The formula system's name (a system file's `name`) [default: expression].
    pub system_name: Option<String>,
    /// The formula system's default state (q1..qd, p1..pd) [default: zero].
    pub default_state: Option<Vec<f64>>,
    /// Names of q1..qd for reports.
    pub coordinates: Option<Vec<String>>,
    /// A method by name: a built-in or a shipped method file (`method::from_name`), or the
    /// name of the method `method_file` or `method_source` describes.
    pub method: Option<String>,
    /// `--method-file`: a method file (`method::file`).
    pub method_file: Option<PathBuf>,
    /// A method file's text, recorded whole by config.toml (for a method given by a user's
    /// file), so that `--config` and `resume` rebuild the method without the file.
    pub method_source: Option<String>,
    pub dt: Option<f64>,
    pub steps: Option<u64>,
    pub snapshot_every: Option<u64>,
    pub backend: Option<Backend>,
    pub precision: Option<Precision>,
    pub compensated: Option<bool>,
    pub save_states: Option<bool>,
    /// `--store npy|zarr`: where the per-point arrays go.
    pub store: Option<Store>,
    pub tangent: Option<bool>,
    /// `--modified-hamiltonian K`: the modified Hamiltonian's error columns, K correction terms.
    pub modified_hamiltonian: Option<u32>,
    pub refine: Option<bool>,
    pub refine_tol: Option<f64>,
    pub max_nodes: Option<usize>,
    pub implicit_tol: Option<f64>,
    pub implicit_max_iter: Option<u32>,
    pub out: Option<PathBuf>,
    /// `--checkpoint-every K` (steps); absent: every 10 minutes of work.
    pub checkpoint_every: Option<u64>,
    /// `--shard K/N`: this run advances the K-th of N shards of the ensemble.
    pub shard: Option<String>,
    /// `--devices all|LIST`: the GPUs the run spreads over.
    pub devices: Option<String>,
    /// `--reference METHOD[/K]` (`config::accuracy::Reference`).
    pub reference: Option<String>,
    /// `--reverse`: the steps run back with −dt.
    pub reverse: Option<bool>,
    /// `--section COORD=VALUE[,DIRECTION]` (`crate::section::Section`).
    pub section: Option<String>,
    /// `--section-max N`: crossings kept per point.
    pub section_max: Option<u32>,
    /// `--frequencies SIGNAL,..` (`observe::frequencies::FrequencySpec`).
    pub frequencies: Option<String>,
    /// `--frequency-stride K`: steps between the samples.
    pub frequency_stride: Option<u64>,
    /// `--chaos LIST`: the per-point chaos indicators (`chaos::Chaos`).
    pub chaos: Option<String>,
    /// `--deviation random|ones|LIST`: where the deviation vector starts (`chaos::Deviation`).
    pub deviation: Option<String>,
    /// `--deviation-metric natural|unit|LIST`: how its length is measured.
    pub deviation_metric: Option<String>,
    /// `--stop-when EXPR`, each condition as given, in order (`observe::stop`).
    pub stop_when: Option<Vec<String>>,
    pub params: Option<BTreeMap<String, f64>>,
    /// `--sweep NAME=LO:HI:N`, each as the flag gives it (`sweep`); only `run` takes it.
    pub sweep: Option<Vec<String>>,
    pub ensemble: Option<EnsembleFile>,
}

impl RunFile {
    /// Forget the system and every setting that belongs to it (a formula's degrees of freedom,
    /// name, default state and coordinates; a Lagrangian's discretization, momentum,
    /// velocities and constraints), but not the parameters: the caller decides whether they
    /// carry over to the system chosen next.
    pub fn forget_system(&mut self) {
        (self.system, self.hamiltonian, self.lagrangian) = (None, None, None);
        (self.system_file, self.dof, self.system_name) = (None, None, None);
        (self.default_state, self.coordinates) = (None, None);
        (self.discretization, self.momentum) = (None, None);
        (self.velocities, self.constraints) = (None, None);
    }

    /// Whether the settings choose a system (by name, formula or file).
    pub fn chooses_system(&self) -> bool {
        self.system.is_some()
            || self.hamiltonian.is_some()
            || self.lagrangian.is_some()
            || self.system_file.is_some()
    }

    /// `run` splits a sweep into one configuration per value (`sweep::Sweep::parts`) before
    /// resolving; anywhere else a `sweep` is refused.
    pub fn refuse_sweep(&self) -> Result<()> {
        match self.sweep {
            Some(_) => Err(crate::input_err!(
                "--sweep (the `sweep` key) is taken by `phaseflow run` only: drop it here"
            )),
            None => Ok(()),
        }
    }
}

/// A run's own config.toml (resume, merge, plot), read as its run recorded it: a chaos run's
/// config.toml written before the deviation vector's start and metric were options records
/// neither, and that run started from (1, …, 1)/√(2d) measured in the unit metric, which what
/// continues or reads it keeps rather than switch to today's defaults (a seeded random start,
/// the natural metric) halfway.
pub fn load_recorded(path: &Path) -> Result<RunFile> {
    load_toml(path).map(RunFile::as_recorded)
}

impl RunFile {
    /// These recorded settings with the defaults of the run that recorded them (`load_recorded`).
    pub fn as_recorded(mut self) -> RunFile {
        if self.chaos.is_some() && self.deviation.is_none() && self.deviation_metric.is_none() {
            self.deviation = Some("ones".into());
            self.deviation_metric = Some("unit".into());
        }
        self
    }
}

/// The largest `--config` file read (a run's settings take a few kB).
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// Read a `--config` file: a regular file of at most `MAX_CONFIG_BYTES`, UTF-8 TOML with only
/// known keys.
pub fn load_toml(path: &Path) -> Result<RunFile> {
    let file_err = |message: String| Error::in_file(Field::Config, path, format!(": {message}"));
    let bytes = crate::ensemble::read_regular(path, MAX_CONFIG_BYTES, "a TOML file of settings")
        .map_err(file_err)?;
    let text = String::from_utf8(bytes)
        .map_err(|e| file_err(format!("malformed TOML: not UTF-8 text ({e})")))?;
    toml::from_str(&text).map_err(|e| file_err(format!("malformed TOML: {e}")))
}

/// The names of the state components of the system a run's config.toml (its text) records,
/// q first, then p (`System::component_names`): the labels the Python package gives arrays.
pub fn recorded_component_names(config_toml: &str) -> Result<Vec<String>> {
    let file: RunFile = toml::from_str(config_toml)
        .map_err(|e| crate::input_err!("config.toml: malformed TOML: {e}"))?;
    Ok(super::resolve_system(&file.as_recorded())?.component_names())
}

impl From<&EnsembleSpec> for EnsembleFile {
    /// The `[ensemble]` table of a resolved set: its kind, point count and seed, and the values
    /// its kind uses (`EnsembleSpec::request`; config.toml's keys keep the table's field order).
    fn from(e: &EnsembleSpec) -> Self {
        let r = e.request();
        EnsembleFile {
            kind: Some(r.kind.name().into()),
            points: r.points,
            seed: r.seed,
            center: r.center,
            radius: r.radius,
            lo: r.lo,
            hi: r.hi,
            energy: r.energy,
            sigma: r.sigma,
            input: r.input,
            closed_loop: r.closed_loop.then_some(true),
            grid_axes: r.grid_axes,
            rows: r.rows,
            ..EnsembleFile::default()
        }
    }
}

impl RunFile {
    /// Record an expression system whole (formula, degrees of freedom, name, default state,
    /// coordinate names, every parameter), so the file rebuilds it without its system file.
    pub fn record_expression(&mut self, x: &crate::system::ExprSystem) {
        self.hamiltonian = Some(x.spec.formula.clone());
        self.record_formula(&x.spec, x.h.dof, crate::system::expression::DEFAULT_NAME);
    }

    /// Record a Lagrangian system whole, as `record_expression` records a Hamiltonian, with
    /// its discrete Lagrangian.
    pub fn record_lagrangian(&mut self, x: &crate::system::lagrangian::LagrangianSystem) {
        self.lagrangian = Some(x.spec.expr.formula.clone());
        self.discretization = Some(x.spec.discretization.name().into());
        self.momentum = x.spec.momentum.clone();
        self.velocities = x.spec.velocities.then_some(true);
        self.constraints = (!x.spec.constraints.is_empty()).then(|| x.spec.constraints.clone());
        self.record_formula(
            &x.spec.expr,
            x.l.dof,
            crate::system::lagrangian::DEFAULT_NAME,
        );
    }

    /// The description of a formula system of `dof` degrees of freedom (`default_name`: the
    /// name it has when none is given).
    fn record_formula(&mut self, spec: &crate::system::ExprSpec, dof: usize, default_name: &str) {
        self.system = None;
        self.dof = Some(dof);
        self.system_file = None;
        self.system_name = (spec.name != default_name).then(|| spec.name.clone());
        self.default_state = spec.default_state.clone();
        self.coordinates = spec.coordinates.clone();
        self.params = Some(spec.params.clone());
    }
}

impl RunConfig {
    /// The resolved settings as TOML (what config.toml holds), with the engine that ran them and
    /// the folder they were written to.
    pub fn to_toml(&self, backend_used: &str, out: &Path) -> String {
        let e = &self.ensemble;
        let mut file = RunFile {
            system: Some(self.system.name().into()),
            method: Some(self.method.name().into()),
            method_source: recorded_source(self.method),
            dt: Some(self.dt),
            steps: Some(self.steps),
            snapshot_every: Some(self.snapshot_every),
            backend: Some(self.backend),
            precision: Some(self.precision),
            compensated: Some(self.compensated),
            save_states: Some(self.save_states),
            store: (self.store != Store::Npy).then_some(self.store),
            tangent: Some(self.tangent),
            modified_hamiltonian: self.modified.as_ref().map(|m| m.terms),
            refine: e.is_loop().then_some(self.refine.is_some()),
            refine_tol: self.refine.map(|r| r.tol),
            max_nodes: self.refine.map(|r| r.max_nodes),
            implicit_tol: Some(self.solver.tol),
            implicit_max_iter: Some(self.solver.max_iter),
            out: Some(out.to_path_buf()),
            checkpoint_every: self.checkpoint_every,
            shard: self.shard.map(|s| s.text()),
            devices: self.devices.as_ref().map(|d| d.text()),
            reference: self.reference.as_ref().map(|r| r.text.clone()),
            reverse: self.reverse.then_some(true),
            section: self.section.map(|s| s.text()),
            section_max: self.section.map(|s| s.max),
            frequencies: self.frequencies.as_ref().map(|f| f.text()),
            frequency_stride: self.frequencies.as_ref().map(|f| f.stride),
            chaos: self.chaos.as_ref().map(|c| c.text()),
            deviation: self.chaos.as_ref().map(|c| c.deviation.start_text()),
            deviation_metric: self.chaos.as_ref().map(|c| c.deviation.metric_text()),
            stop_when: self.stops.as_ref().map(|s| s.texts()),
            params: Some(self.system.params()),
            ensemble: Some(EnsembleFile {
                raw_start: self.system.projects_start().then_some(e.raw_start),
                ..EnsembleFile::from(e)
            }),
            ..RunFile::default()
        };
        if let Some(x) = self.system.expression() {
            file.record_expression(x);
        }
        if let Some(x) = self.system.lagrangian() {
            file.record_lagrangian(x);
        }
        let body = compact_floats(&toml::to_string(&file).unwrap_or_default());
        let start = match (self.system.projects_start(), e.raw_start) {
            (false, _) => "",
            (true, false) => "# initial velocities put on the discrete rolling constraint before the run (raw_start = true keeps them as given)\n",
            (true, true) => "# initial velocities as given, off the discrete rolling constraint where they are so (raw_start = false puts them on it)\n",
        };
        format!(
            "# phaseflow {} resolved run configuration; reproduce with: phaseflow run --config <this file>\n# engine used: {backend_used}\n# method {}\n{start}{body}",
            env!("CARGO_PKG_VERSION"),
            super::verdict::sentence(self.method)
        )
    }
}

/// The text config.toml records for a method given by a user's file: none for built-ins and
/// shipped methods, which their name finds.
pub fn recorded_source(method: crate::method::Method) -> Option<String> {
    method
        .def()
        .filter(|d| crate::method::file::shipped_by_name(&d.name).is_none())
        .map(|d| d.source.clone())
}

/// TOML text with every float value that the writer spelt out in more than 21 characters
/// (it writes 1e-300 with 300 zeros) in exponent form instead (`crate::error::num`; the value
/// reads back exactly). Only values are touched: tokens after `=`, `[` or `,` outside strings.
fn compact_floats(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.char_indices().peekable();
    let mut quote: Option<char> = None;
    let mut last = ' ';
    while let Some((at, c)) = chars.next() {
        if let Some(q) = quote {
            out.push(c);
            if c == '\\' && q == '"' {
                if let Some((_, next)) = chars.next() {
                    out.push(next);
                }
            } else if c == q {
                quote = None;
            }
            continue;
        }
        let starts_value = matches!(last, '=' | '[' | ',');
        if starts_value && (c.is_ascii_digit() || c == '-' || c == '+') {
            let len = text[at..]
                .find(|x: char| !(x.is_ascii_alphanumeric() || matches!(x, '.' | '-' | '+' | '_')))
                .unwrap_or(text.len() - at);
            let token = &text[at..at + len];
            match token.parse::<f64>() {
                Ok(x) if token.len() > 21 && token.contains('.') => {
                    out.push_str(&crate::error::num(x))
                }
                _ => out.push_str(token),
            }
            for _ in 1..token.chars().count() {
                chars.next();
            }
            last = 'x';
            continue;
        }
        if c == '"' || c == '\'' {
            quote = Some(c);
        }
        if !c.is_whitespace() {
            last = c;
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The writer spells 1e-300 and 1e300 out in full (300 digits); values are rewritten in
    /// exponent form and read back exactly, strings and short values left alone.
    #[test]
    fn long_floats_are_written_in_exponent_form() {
        let text = "dt = 0.05\nimplicit_tol = 0.00000000000001\nradius = 1000000000000000000000000000000.0\nhamiltonian = \"p^2 + 0.000000000000000000000000001*q\"\ncenter = [0.0, -0.0000000000000000000000000000000012]\n";
        let got = compact_floats(text);
        assert_eq!(
            got,
            "dt = 0.05\nimplicit_tol = 0.00000000000001\nradius = 1e30\nhamiltonian = \"p^2 + 0.000000000000000000000000001*q\"\ncenter = [0.0, -1.2e-33]\n"
        );
        let back: toml::Table = toml::from_str(&got).unwrap();
        assert_eq!(back["radius"].as_float(), Some(1e30));
        assert_eq!(back["center"][1].as_float(), Some(-1.2e-33));
    }

    /// The names of the components of the system a config.toml records: a built-in's, a
    /// formula's `coordinates` with p_ before each for the momenta, else q1..qd, p1..pd.
    #[test]
    fn a_records_component_names_are_its_systems() {
        let recorded = "system = \"henon-heiles\"\nmethod = \"verlet\"\ndt = 0.1\n";
        let names = recorded_component_names(recorded).unwrap();
        assert_eq!(names, ["x", "y", "p_x", "p_y"]);
        let formula = "hamiltonian = \"(p1^2 + p2^2)/2 + cos(q1)\"\ndof = 2\n\
                       coordinates = [\"r\", \"phi\"]\nmethod = \"verlet\"\ndt = 0.1\n";
        let names = recorded_component_names(formula).unwrap();
        assert_eq!(names, ["r", "phi", "p_r", "p_phi"]);
        let numbered = "hamiltonian = \"p1^2/2 + q1^2/2\"\nmethod = \"verlet\"\ndt = 0.1\n";
        let names = recorded_component_names(numbered).unwrap();
        assert_eq!(names, ["q1", "p1"]);
    }
}
