//! Which option of a run an input error is about, as data. The library's messages name an
//! option by its own name (`points`, `parameter k`, the keys of a config.toml), so a library
//! caller never reads a command-line flag; the command line renders the same error with its
//! flags (`cli::flags`), so its users read `--points`, `--param k=…`.

use std::fmt;

/// An option of a run, a study or a system.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Field {
    /// The built-in system, by name.
    System,
    /// One parameter of the system.
    Param(String),
    /// The system's parameters taken together.
    Params,
    /// The degrees of freedom of a system given as a formula.
    Dof,
    /// A system given as a formula.
    Hamiltonian,
    /// A system given as a Lagrangian's formula.
    Lagrangian,
    /// The discrete Lagrangian's quadrature (a Lagrangian's).
    Discretization,
    /// The generator of a Lagrangian's symmetry whose discrete momentum is measured.
    Momentum,
    /// A Lagrangian's initial states given as (q, v).
    Velocities,
    /// A Lagrangian's holonomic constraints g(q) = 0.
    Constraint,
    /// A system given by a file.
    SystemFile,
    /// The integrator, by name.
    Method,
    /// The integrator, from a method file.
    MethodFile,
    /// The kind of initial set.
    Ensemble,
    Points,
    Center,
    Radius,
    Lo,
    Hi,
    Energy,
    Sigma,
    /// The file of initial states.
    Input,
    /// The initial states read as an ordered closed loop.
    Loop,
    /// Starting variational systems from their initial velocities as given.
    RawStart,
    /// The centre read as two positions one step apart (variational systems).
    Positions,
    Dt,
    Steps,
    SnapshotEvery,
    Backend,
    Precision,
    Compensated,
    Tangent,
    /// Loop refinement on or off.
    Refine,
    RefineTol,
    MaxNodes,
    ImplicitTol,
    ImplicitMaxIter,
    CheckpointEvery,
    /// The shard of the ensemble this run advances.
    Shard,
    /// The GPUs a run spreads over.
    Devices,
    /// The folder a run, a study or a merge writes.
    Out,
    /// Replacing a previous run's folder.
    Force,
    /// The configuration file a run is read from.
    Config,
    /// Running the steps forward, then back.
    Reverse,
    /// The reference solution advanced beside the ensemble.
    Reference,
    /// The correction terms of the modified Hamiltonian measured.
    ModifiedHamiltonian,
    /// The CSV file a benchmark appends its table to.
    Csv,
    /// The C peer a benchmark also times.
    Peers,
    /// The per-point chaos indicators.
    Chaos,
    /// Where the chaos indicators' deviation vector starts.
    Deviation,
    /// How the chaos indicators' deviation vector is measured.
    DeviationMetric,
    /// The two coordinates a grid spans.
    GridAxes,
    /// The crossings of a Poincaré section kept per point.
    SectionMax,
}

impl Field {
    /// The library's name of the option: its key in a config.toml (`max_nodes`), or
    /// `parameter k` for a system parameter.
    pub fn name(&self) -> String {
        let key = match self {
            Field::Param(name) => return format!("parameter {name}"),
            Field::Params => "parameters",
            Field::System => "system",
            Field::Dof => "dof",
            Field::Hamiltonian => "hamiltonian",
            Field::Lagrangian => "lagrangian",
            Field::Discretization => "discretization",
            Field::Momentum => "momentum",
            Field::Velocities => "velocities",
            Field::Constraint => "constraints",
            Field::SystemFile => "system_file",
            Field::Method => "method",
            Field::MethodFile => "method_file",
            Field::Ensemble => "ensemble",
            Field::Points => "points",
            Field::Center => "center",
            Field::Radius => "radius",
            Field::Lo => "lo",
            Field::Hi => "hi",
            Field::Energy => "energy",
            Field::Sigma => "sigma",
            Field::Input => "input",
            Field::Loop => "loop",
            Field::RawStart => "raw_start",
            Field::Positions => "positions",
            Field::Dt => "dt",
            Field::Steps => "steps",
            Field::SnapshotEvery => "snapshot_every",
            Field::Backend => "backend",
            Field::Precision => "precision",
            Field::Compensated => "compensated",
            Field::Tangent => "tangent",
            Field::Refine => "refine",
            Field::RefineTol => "refine_tol",
            Field::MaxNodes => "max_nodes",
            Field::ImplicitTol => "implicit_tol",
            Field::ImplicitMaxIter => "implicit_max_iter",
            Field::CheckpointEvery => "checkpoint_every",
            Field::Shard => "shard",
            Field::Devices => "devices",
            Field::Out => "out",
            Field::Force => "force",
            Field::Config => "config",
            Field::Reverse => "reverse",
            Field::Reference => "reference",
            Field::ModifiedHamiltonian => "modified_hamiltonian",
            Field::Csv => "csv",
            Field::Peers => "peers",
            Field::Chaos => "chaos",
            Field::Deviation => "deviation",
            Field::DeviationMetric => "deviation_metric",
            Field::GridAxes => "grid_axes",
            Field::SectionMax => "section_max",
        };
        key.to_string()
    }

    /// The option set to `value`, as a piece of a message (`points = 0`, or `--points 0` on
    /// the command line).
    pub fn is(&self, value: impl fmt::Display) -> Piece {
        Piece::Setting(self.clone(), value.to_string())
    }
}

/// A piece of a message: text, an option, or an option with its value.
#[derive(Debug, Clone, PartialEq)]
pub enum Piece {
    Text(String),
    Field(Field),
    Setting(Field, String),
}

impl From<String> for Piece {
    fn from(text: String) -> Piece {
        Piece::Text(text)
    }
}

impl From<&str> for Piece {
    fn from(text: &str) -> Piece {
        Piece::Text(text.to_string())
    }
}

impl From<Field> for Piece {
    fn from(field: Field) -> Piece {
        Piece::Field(field)
    }
}

/// A message whose options are data: `render` writes each as a naming function says.
#[derive(Debug, Clone, PartialEq)]
pub struct Message(pub Vec<Piece>);

impl Message {
    /// The text, each option written by `name(option, its value if the piece gives one)`.
    pub fn render(&self, name: &dyn Fn(&Field, Option<&str>) -> String) -> String {
        self.0
            .iter()
            .map(|piece| match piece {
                Piece::Text(text) => text.clone(),
                Piece::Field(field) => name(field, None),
                Piece::Setting(field, value) => name(field, Some(value)),
            })
            .collect()
    }
}

/// The library's reading: `points`, `points = 0`, `parameter k = 2`.
impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render(&|field, value| match value {
            Some(value) => format!("{} = {value}", field.name()),
            None => field.name(),
        }))
    }
}
