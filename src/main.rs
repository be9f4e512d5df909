//! The phaseflow binary: the command-line application (`app::main`) with this process's
//! arguments.
use std::process::ExitCode;

fn main() -> ExitCode {
    ExitCode::from(phaseflow::app::main(std::env::args_os()))
}
