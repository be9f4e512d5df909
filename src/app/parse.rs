//! The command line's definition (`command_line`: clap's, completed with the registries above
//! `cli`) and its parsing (`parse_cli`), a bad command line reported as every other input
//! error is.

use std::ffi::OsString;

use clap::builder::PossibleValue;
use clap::{CommandFactory, FromArgMatches};

use crate::cli::values::Names;
use crate::cli::Cli;
use crate::{note, study};

/// The command line's definition, completed where it lists a registry above `cli`: the
/// binary sees every layer (`cli` sits below `study`), so `study --preset` gets its help, which
/// names every preset, and its possible values (for shell completions) here.
pub(super) fn command_line() -> clap::Command {
    let names: Vec<&str> = study::PRESETS.iter().map(|(name, _)| *name).collect();
    let short = format!(
        "A preset study: {} (`phaseflow study --help` says what each runs)",
        names.join(", ")
    );
    let long: String = study::PRESETS
        .iter()
        .map(|(name, summary)| format!("\n  {name}: {summary}"))
        .collect();
    let long = format!(
        "A preset study, one of:{long}\nA preset excludes the flags that define a custom study (--config, the system, methods, steps and ensemble flags, --portraits, --reference); the others apply to it, and --t-end shortens or lengthens it."
    );
    let presets = Names::new(|| {
        study::PRESETS
            .iter()
            .map(|(name, summary)| PossibleValue::new(*name).help(*summary))
            .collect()
    });
    let cli = crate::cli::examples::with_examples(Cli::command());
    cli.mut_subcommand("study", |study| {
        study.mut_arg("preset", |arg| {
            // The help lists them already.
            arg.help(short)
                .long_help(long)
                .value_parser(presets)
                .hide_possible_values(true)
        })
    })
}

/// The parsed command line; a bad one is reported as every other input error is (exit 2).
pub(super) fn parse_cli(args: Vec<OsString>) -> Cli {
    let parsed = command_line()
        .try_get_matches_from(&args)
        .and_then(|m| Cli::from_arg_matches(&m));
    parsed.unwrap_or_else(|e| {
        use clap::error::ErrorKind;
        let shown = [
            ErrorKind::DisplayHelp,
            ErrorKind::DisplayVersion,
            ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand,
        ];
        if shown.contains(&e.kind()) {
            e.exit()
        }
        match other_commands_flag(&args, &e) {
            Some(text) => note!("Error: {text}"),
            None => note!("{}", crate::cli::flags::parse_error(&e)),
        }
        std::process::exit(2)
    })
}

/// For a flag the subcommand does not take but others do (`bench --precision`): which
/// commands take it, in place of clap's tip of the nearest spelling among this command's
/// flags, which is no typo's correction there (`--discretization`).
fn other_commands_flag(args: &[OsString], e: &clap::Error) -> Option<String> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() != ErrorKind::UnknownArgument {
        return None;
    }
    let Some(ContextValue::String(arg)) = e.get(ContextKind::InvalidArg) else {
        return None;
    };
    let flag = arg.split('=').next()?.strip_prefix("--")?;
    let cli = command_line();
    let used = args
        .iter()
        .skip(1)
        .find_map(|a| cli.find_subcommand(a.to_str()?))?
        .get_name()
        .to_string();
    let takes = |c: &clap::Command| c.get_arguments().any(|a| a.get_long() == Some(flag));
    let owners: Vec<String> = cli
        .get_subcommands()
        .filter(|c| takes(c))
        .map(|c| format!("`phaseflow {}`", c.get_name()))
        .collect();
    (!owners.is_empty()).then(|| {
        format!(
            "`phaseflow {used}` has no option --{flag}; it is an option of {} (`phaseflow {used} --help` lists what {used} takes)",
            owners.join(", ")
        )
    })
}
