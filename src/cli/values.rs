//! Value parsers of the options whose values are names from a registry: `--system` (the system
//! catalogue), `--method` (the built-in methods and the shipped method files) and `--ensemble`
//! (the ensemble kinds). They give help and shell completions their lists, from the registries
//! themselves, so neither can fall behind one. Parsing accepts any name: the configuration
//! refuses an unknown one with its own message, which names what is known and how to add one
//! (a method may also be a method file that only the run reads).

use std::ffi::OsStr;

use clap::builder::{PossibleValue, StringValueParser, TypedValueParser};

use crate::ensemble::KINDS;
use crate::method::{all, Method};
use crate::system::CATALOGUE;

/// A name from a registry: any string, with the registry's names as its possible values.
#[derive(Clone, Copy)]
pub struct Names(fn() -> Vec<PossibleValue>);

impl Names {
    /// The names `list` gives (for a registry above `cli`: the binary's study presets).
    pub fn new(list: fn() -> Vec<PossibleValue>) -> Names {
        Names(list)
    }
}

impl TypedValueParser for Names {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<String, clap::Error> {
        StringValueParser::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new((self.0)().into_iter()))
    }
}

/// `--system`: every system of the catalogue, with its summary.
pub fn systems() -> Names {
    Names(|| {
        CATALOGUE
            .iter()
            .map(|s| PossibleValue::new(s.name).help(s.summary))
            .collect()
    })
}

/// `--method`: the built-in methods, then the shipped method files, each with its summary.
pub fn methods() -> Names {
    Names(|| {
        all()
            .iter()
            .map(|m| {
                // A method given as data carries its summary; `info` would analyse it first.
                let summary = match m {
                    Method::Data(d) => d.summary.as_str(),
                    _ => m.info().summary,
                };
                PossibleValue::new(m.name()).help(summary)
            })
            .collect()
    })
}

/// `--ensemble`: every ensemble kind, with what it draws.
pub fn ensembles() -> Names {
    Names(|| {
        KINDS
            .iter()
            .map(|(_, name, what)| PossibleValue::new(*name).help(*what))
            .collect()
    })
}
