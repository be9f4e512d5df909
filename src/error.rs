//! The library's error type. Input errors (bad flags, files, parameters) are kept apart from
//! runtime failures so the binary can exit with 2 for the former and 1 for the latter.

use std::path::PathBuf;

mod field;

pub use field::{Field, Message, Piece};

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Something the user asked for is invalid. The message names the flag or file and the fix.
    #[error("{0}")]
    Input(String),
    /// An option's value is invalid: `field` is that option, and the message (the fix
    /// included) names it and any other option it mentions as data, read with the library's
    /// names here and with the flags on the command line (`cli::flags::message`).
    #[error("{message}")]
    Invalid { field: Field, message: Message },
    /// A file the user named could not be read or parsed.
    #[error("{path}: {message}")]
    InputFile { path: PathBuf, message: String },
    /// A file given for the option `field` (a config, an initial set, a system or method
    /// file) could not be read or parsed: `path` is the file, and the message (naming the
    /// option as data, like `Invalid`'s) says why.
    #[error("{path}: {message}", path = path.display())]
    InvalidFile {
        field: Field,
        path: PathBuf,
        message: Message,
    },
    /// No wgpu adapter, device creation failure, shader/pipeline failure, lost device.
    #[error("GPU: {0}")]
    Gpu(String),
    /// A GPU that cannot run the kernels at all, the message naming the option that avoids
    /// it as data (`Invalid`'s, rendered alike).
    #[error("GPU: {0}")]
    GpuUnfit(Message),
    /// SIGINT or SIGTERM: the run stopped at `step` after writing a checkpoint into `path`.
    #[error("interrupted at step {step}, a checkpoint written; continue with: phaseflow resume {}", path.display())]
    Interrupted { path: PathBuf, step: u64 },
    /// An MPI rank sent what the others cannot use.
    #[error("MPI: {0}")]
    Mpi(String),
    /// Writing an output failed.
    #[error("writing {path}: {source}")]
    Output {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl Error {
    /// An error about the file `path` given for the option `field`: the message is the
    /// option's name followed by `rest` (`input: file not found`, or `--input: file not found`
    /// on the command line).
    pub fn in_file(field: Field, path: &std::path::Path, rest: impl Into<String>) -> Error {
        Error::InvalidFile {
            message: Message(vec![Piece::Field(field.clone()), Piece::Text(rest.into())]),
            field,
            path: path.to_path_buf(),
        }
    }

    /// The message with each option an `Invalid` or `InvalidFile` names written by `name`
    /// (the option and, where the message gives one, its value): the command line writes
    /// flags (`cli::flags::message`), the Python module keyword arguments; other errors as
    /// `Display` writes them.
    pub fn render(&self, name: &dyn Fn(&Field, Option<&str>) -> String) -> String {
        match self {
            Error::Invalid { message, .. } => message.render(name),
            Error::InvalidFile { path, message, .. } => {
                format!("{}: {}", path.display(), message.render(name))
            }
            Error::GpuUnfit(message) => format!("GPU: {}", message.render(name)),
            other => other.to_string(),
        }
    }

    /// The option an `Invalid` or `InvalidFile` error is about; `None` for other errors.
    pub fn field(&self) -> Option<&Field> {
        match self {
            Error::Invalid { field, .. } | Error::InvalidFile { field, .. } => Some(field),
            _ => None,
        }
    }

    /// True for errors caused by user input (exit code 2).
    pub fn is_input(&self) -> bool {
        matches!(
            self,
            Error::Input(_)
                | Error::Invalid { .. }
                | Error::InputFile { .. }
                | Error::InvalidFile { .. }
        )
    }
}

/// Shorthand for an input error with a formatted message.
#[macro_export]
macro_rules! input_err {
    ($($arg:tt)*) => { $crate::error::Error::Input(format!($($arg)*)) };
}

/// An input error about the option `field`, its message given as pieces: text (`String`,
/// `&str`), an option (`Field`) or an option with its value (`Field::is`), e.g.
/// `invalid!(Field::Points; Field::Points.is(0), ": use at least 1 point")`.
#[macro_export]
macro_rules! invalid {
    ($field:expr; $($piece:expr),+ $(,)?) => {
        $crate::error::Error::Invalid {
            field: $field,
            message: $crate::error::Message(vec![$($crate::error::Piece::from($piece)),+]),
        }
    };
}

/// `eprintln!` that never panics: a message line on stderr, dropped if stderr cannot be written
/// (`2> /dev/full`, a closed pipe), since there is nowhere left to report that.
#[macro_export]
macro_rules! note {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A number as messages and config.toml show it: as Rust writes it (`0.05`, `10`) where that
/// is short, else in exponent form (`1e-300`, where the plain form has 300 zeros). Both forms
/// are the shortest that read back as the same f64.
pub fn num(x: f64) -> String {
    let plain = x.to_string();
    if plain.len() > 21 {
        format!("{x:e}")
    } else {
        plain
    }
}

/// The name of `known` closest to `name` by edit distance (letters inserted, removed or
/// changed), where it is close enough to be a typo: at most a third of the letters, and at
/// least one, changed. For the "did you mean" of an unknown name.
pub fn closest<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (name.chars().count() / 3).max(1);
    known
        .into_iter()
        .map(|k| (edit_distance(name, k), k))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, _)| d)
        .map(|(_, k)| k)
}

/// `; did you mean NAME?` for the closest of `known` to `name`, or nothing.
pub fn did_you_mean<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> String {
    closest(name, known)
        .map(|k| format!("; did you mean {k}?"))
        .unwrap_or_default()
}

/// Levenshtein distance, by characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (diagonal + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            diagonal = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typo_finds_the_closest_name() {
        let known = ["pendulum", "kepler", "henon-heiles", "verlet"];
        assert_eq!(closest("pendulm", known), Some("pendulum"));
        assert_eq!(closest("keplr", known), Some("kepler"));
        assert_eq!(closest("henon_heiles", known), Some("henon-heiles"));
        assert_eq!(closest("blackhole", known), None);
        assert_eq!(closest("x", known), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(did_you_mean("verlte", known), "; did you mean verlet?");
    }
}
