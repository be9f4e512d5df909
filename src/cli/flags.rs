//! The command line's reading of the library's input errors: an option the library names as
//! data (`error::Field`) is written as its flag, so `points = 0` reads `--points 0` and
//! `parameter k = 2` reads `--param k=2` here.

use crate::error::{Error, Field};

/// The flag that sets `field`, followed by `value` where the message gives one.
pub fn flag(field: &Field, value: Option<&str>) -> String {
    let flag = match field {
        Field::Param(name) => {
            return match value {
                Some(value) => format!("--param {name}={value}"),
                None => format!("--param {name}"),
            }
        }
        // Refinement is on unless turned off: the one flag for it is --no-refine.
        Field::Refine => return "--no-refine".to_string(),
        Field::Params => "--param",
        Field::System => "--system",
        Field::Dof => "--dof",
        Field::Hamiltonian => "--hamiltonian",
        Field::Lagrangian => "--lagrangian",
        Field::Discretization => "--discretization",
        Field::Momentum => "--momentum",
        Field::Velocities => "--velocities",
        Field::Constraint => "--constraint",
        Field::SystemFile => "--system-file",
        Field::Method => "--method",
        Field::MethodFile => "--method-file",
        Field::Ensemble => "--ensemble",
        Field::Points => "--points",
        Field::Center => "--center",
        Field::Radius => "--radius",
        Field::Lo => "--lo",
        Field::Hi => "--hi",
        Field::Energy => "--energy",
        Field::Sigma => "--sigma",
        Field::Input => "--input",
        Field::Loop => "--loop",
        Field::RawStart => "--raw-start",
        Field::Positions => "--positions",
        Field::Dt => "--dt",
        Field::Steps => "--steps",
        Field::SnapshotEvery => "--snapshot-every",
        Field::Backend => "--backend",
        Field::Precision => "--precision",
        Field::Compensated => "--compensated",
        Field::Tangent => "--tangent",
        Field::RefineTol => "--refine-tol",
        Field::MaxNodes => "--max-nodes",
        Field::ImplicitTol => "--implicit-tol",
        Field::ImplicitMaxIter => "--implicit-max-iter",
        Field::CheckpointEvery => "--checkpoint-every",
        Field::Shard => "--shard",
        Field::Devices => "--devices",
        Field::Out => "--out",
        Field::Force => "--force",
        Field::Config => "--config",
        Field::Reverse => "--reverse",
        Field::Reference => "--reference",
        Field::ModifiedHamiltonian => "--modified-hamiltonian",
        Field::Csv => "--csv",
        Field::Peers => "--peers",
        Field::Chaos => "--chaos",
        Field::Deviation => "--deviation",
        Field::DeviationMetric => "--deviation-metric",
        Field::GridAxes => "--grid-axes",
        Field::SectionMax => "--section-max",
    };
    match value {
        Some(value) => format!("{flag} {value}"),
        None => flag.to_string(),
    }
}

/// The error as the command line reports it: its options written as flags.
pub fn message(error: &Error) -> String {
    error.render(&flag)
}

/// A parsing error of clap's (an unknown flag, a bad value, a missing one) in the style of
/// the program's own errors: `Error: ` and the message, then clap's usage line and tip.
pub fn parse_error(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let text = text.strip_prefix("error: ").unwrap_or(&text);
    format!("Error: {}", text.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::Cli;
    use clap::CommandFactory;

    /// Every option the library names is a flag of `run` (or of `study` or `bench`, for what
    /// only they take), so an error never points a command-line user to a flag that is not there.
    #[test]
    fn every_field_is_a_flag() {
        let cli = Cli::command();
        let longs: Vec<String> = ["run", "study", "bench"]
            .iter()
            .flat_map(|name| cli.find_subcommand(name).unwrap().get_arguments())
            .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
            .collect();
        let fields = [
            Field::System,
            Field::Params,
            Field::Dof,
            Field::Hamiltonian,
            Field::Lagrangian,
            Field::Discretization,
            Field::Momentum,
            Field::Constraint,
            Field::SystemFile,
            Field::Method,
            Field::MethodFile,
            Field::Ensemble,
            Field::Points,
            Field::Center,
            Field::Radius,
            Field::Lo,
            Field::Hi,
            Field::Energy,
            Field::Sigma,
            Field::Input,
            Field::Loop,
            Field::RawStart,
            Field::Positions,
            Field::Dt,
            Field::Steps,
            Field::SnapshotEvery,
            Field::Backend,
            Field::Precision,
            Field::Compensated,
            Field::Tangent,
            Field::Refine,
            Field::RefineTol,
            Field::MaxNodes,
            Field::ImplicitTol,
            Field::ImplicitMaxIter,
            Field::CheckpointEvery,
            Field::Shard,
            Field::Devices,
            Field::Out,
            Field::Force,
            Field::Config,
            Field::Reverse,
            Field::Reference,
            Field::ModifiedHamiltonian,
            Field::Csv,
            Field::Peers,
            Field::Chaos,
            Field::GridAxes,
            Field::SectionMax,
        ];
        for field in fields {
            let f = flag(&field, None);
            assert!(longs.contains(&f), "{field:?}: {f} is no flag");
        }
        assert_eq!(flag(&Field::Param("k".into()), Some("2")), "--param k=2");
        assert_eq!(flag(&Field::Points, Some("0")), "--points 0");
    }

    /// One error, two readings: the library's names its options without flags, the command
    /// line's with them.
    #[test]
    fn an_error_reads_with_names_or_flags() {
        let e = crate::invalid!(Field::Param("k".into());
            Field::Param("k".into()).is(-1), ": system 'x' needs ", Field::Param("k".into()), " > 0; or use ", Field::Backend.is("cpu"));
        assert!(e.is_input());
        assert_eq!(
            e.to_string(),
            "parameter k = -1: system 'x' needs parameter k > 0; or use backend = cpu"
        );
        assert_eq!(
            message(&e),
            "--param k=-1: system 'x' needs --param k > 0; or use --backend cpu"
        );
    }

    /// A library caller reads the option's name where the command line reads its flag: for a
    /// file given for an option, and for a path the user chose to write to.
    #[test]
    fn files_and_paths_name_their_option_as_data() {
        let missing = std::path::Path::new("/nonexistent/initial.csv");
        let e = crate::ensemble::read_states(missing, 1).unwrap_err();
        assert!(e.is_input());
        assert!(
            e.to_string()
                .starts_with("/nonexistent/initial.csv: input: file not found"),
            "{e}"
        );
        assert!(message(&e).starts_with("/nonexistent/initial.csv: --input: file not found"));
        let device = std::path::Path::new("/dev/null");
        let e = crate::output::target::check_file(device, Some(&Field::Csv)).unwrap_err();
        assert!(e.to_string().starts_with("csv = /dev/null: is "), "{e}");
        assert!(
            message(&e).starts_with("--csv /dev/null: is "),
            "{}",
            message(&e)
        );
    }
}
