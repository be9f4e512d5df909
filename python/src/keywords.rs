//! Keyword arguments read one by one, each by the kind of value its option takes: the one
//! place a Python value becomes a Rust value. A reader that fills an entry point's settings
//! (`settings`, `commands`) asks for each keyword by name and kind; what it asked for is then
//! also the entry point's description (`describe`): the Python signatures and their test are
//! checked against it, and it against the command line's flags, so an option added to one is
//! missed by none.

use std::path::PathBuf;

use clap::CommandFactory;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList, PyString, PyTuple};

use phaseflow::cli::Cli;

/// The kind of value a keyword takes, and so its Python type.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    Switch,
    Real,
    Count,
    Text,
    /// A word, or a list of words joined by commas (`chaos=["megno", "lyapunov"]`).
    Words,
    /// Strings each (`sweep="g=1:2:3"` or a list of them).
    Texts,
    /// A list of numbers (`center=(0.5, 0)`).
    Reals,
    /// One number for all, or a list (`dt=[0.1, 0.05]` in a study).
    RealOrReals,
    /// One whole number for all, or a list.
    CountOrCounts,
    Path,
    /// `params={"m": 2}`.
    Params,
    /// One of a fixed list of names (`backend="cpu"`).
    Choice(Vec<String>),
}

impl Kind {
    /// The Python type of a keyword of this kind (without `Optional`).
    pub fn annotation(&self) -> String {
        match self {
            Kind::Switch => "bool".into(),
            Kind::Real => "float".into(),
            Kind::Count => "int".into(),
            Kind::Text => "str".into(),
            Kind::Words | Kind::Texts => "Union[str, Sequence[str]]".into(),
            Kind::Reals => "Sequence[float]".into(),
            Kind::RealOrReals => "Union[float, Sequence[float]]".into(),
            Kind::CountOrCounts => "Union[int, Sequence[int]]".into(),
            Kind::Path => "PathLike".into(),
            Kind::Params => "Mapping[str, float]".into(),
            Kind::Choice(names) => {
                let quoted: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
                format!("Literal[{}]", quoted.join(", "))
            }
        }
    }
}

/// The error for a keyword argument of the wrong kind: it names the keyword and its value.
pub fn bad(keyword: &str, value: &Bound<'_, PyAny>, want: &str) -> PyErr {
    let shown = value
        .repr()
        .map_or_else(|_| "?".to_string(), |r| r.to_string());
    PyValueError::new_err(format!("{keyword}={shown}: {want}"))
}

/// The keyword arguments of one entry point, read by kind. `given` None: nothing is given, and
/// the reader only records what it asks for (`describe`).
pub struct Keywords<'a, 'py> {
    /// The subcommand whose flags these keywords are (`run`, `study`, …).
    pub command: &'static str,
    given: Option<&'a Bound<'py, PyDict>>,
    asked: Vec<(&'static str, Kind)>,
}

impl<'a, 'py> Keywords<'a, 'py> {
    pub fn new(command: &'static str, given: Option<&'a Bound<'py, PyDict>>) -> Self {
        Keywords {
            command,
            given,
            asked: Vec::new(),
        }
    }

    /// The value given for `keyword` (None when left out or None), recorded as asked for.
    pub fn value(
        &mut self,
        keyword: &'static str,
        kind: Kind,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.asked.push((keyword, kind));
        match self.given {
            Some(d) => Ok(d.get_item(keyword)?.filter(|v| !v.is_none())),
            None => Ok(None),
        }
    }

    /// Whether `keyword` was given (not None).
    pub fn given(&self, keyword: &str) -> bool {
        self.given
            .and_then(|d| d.get_item(keyword).ok().flatten())
            .is_some_and(|v| !v.is_none())
    }

    /// A switch: True or False (numpy's booleans included), None when left out.
    pub fn switch(&mut self, keyword: &'static str) -> PyResult<Option<bool>> {
        self.value(keyword, Kind::Switch)?
            .map(|v| switch(keyword, &v))
            .transpose()
    }

    /// A switch left out is off.
    pub fn on(&mut self, keyword: &'static str) -> PyResult<bool> {
        Ok(self.switch(keyword)?.unwrap_or(false))
    }

    pub fn real(&mut self, keyword: &'static str) -> PyResult<Option<f64>> {
        self.value(keyword, Kind::Real)?
            .map(|v| real(keyword, &v))
            .transpose()
    }

    pub fn count<T: TryFrom<u64>>(&mut self, keyword: &'static str) -> PyResult<Option<T>> {
        self.value(keyword, Kind::Count)?
            .map(|v| count(keyword, &v))
            .transpose()
    }

    pub fn text(&mut self, keyword: &'static str) -> PyResult<Option<String>> {
        self.value(keyword, Kind::Text)?
            .map(|v| words(keyword, &v, false))
            .transpose()
    }

    /// A word or a list of words, joined by commas.
    pub fn words(&mut self, keyword: &'static str) -> PyResult<Option<String>> {
        self.value(keyword, Kind::Words)?
            .map(|v| words(keyword, &v, true))
            .transpose()
    }

    pub fn texts(&mut self, keyword: &'static str) -> PyResult<Vec<String>> {
        let Some(v) = self.value(keyword, Kind::Texts)? else {
            return Ok(Vec::new());
        };
        if v.is_instance_of::<PyString>() {
            return Ok(vec![words(keyword, &v, false)?]);
        }
        let items: Vec<Bound<'_, PyAny>> = v
            .extract()
            .map_err(|_| bad(keyword, &v, "give a string or a list of strings"))?;
        items
            .iter()
            .map(|item| words(keyword, item, false))
            .collect()
    }

    pub fn reals(&mut self, keyword: &'static str) -> PyResult<Option<Vec<f64>>> {
        self.value(keyword, Kind::Reals)?
            .map(|v| reals(keyword, &v))
            .transpose()
    }

    /// One number or a list, as the command line writes it (`0.1,0.05`).
    pub fn real_or_reals(&mut self, keyword: &'static str) -> PyResult<Option<String>> {
        let Some(v) = self.value(keyword, Kind::RealOrReals)? else {
            return Ok(None);
        };
        let list = match real(keyword, &v) {
            Ok(x) => vec![x],
            Err(_) => reals(keyword, &v)
                .map_err(|_| bad(keyword, &v, "give a number or a list of numbers"))?,
        };
        Ok(Some(joined(list.iter().map(|x| phaseflow::error::num(*x)))))
    }

    /// One whole number or a list, as the command line writes it (`100,200`).
    pub fn count_or_counts(&mut self, keyword: &'static str) -> PyResult<Option<String>> {
        let Some(v) = self.value(keyword, Kind::CountOrCounts)? else {
            return Ok(None);
        };
        let refused = || bad(keyword, &v, "give a whole number ≥ 0 or a list of them");
        let items: Vec<Bound<'_, PyAny>> = if v.is_instance_of::<PyList>()
            || v.is_instance_of::<PyTuple>()
            || v.hasattr("ndim")? && v.getattr("ndim")?.extract::<usize>()? == 1
        {
            v.extract().map_err(|_| refused())?
        } else {
            vec![v.clone()]
        };
        let list = items
            .iter()
            .map(|x| count::<u64>(keyword, x).map_err(|_| refused()))
            .collect::<PyResult<Vec<u64>>>()?;
        Ok(Some(joined(list.iter().map(u64::to_string))))
    }

    pub fn path(&mut self, keyword: &'static str) -> PyResult<Option<PathBuf>> {
        self.value(keyword, Kind::Path)?
            .map(|v| path(keyword, &v))
            .transpose()
    }

    /// One of a `clap::ValueEnum`'s names (`backend="cpu"`).
    pub fn choice<T: clap::ValueEnum>(&mut self, keyword: &'static str) -> PyResult<Option<T>> {
        let names: Vec<String> = T::value_variants()
            .iter()
            .filter_map(|v| Some(v.to_possible_value()?.get_name().to_string()))
            .collect();
        let want = format!("give one of {}", names.join(", "));
        let Some(v) = self.value(keyword, Kind::Choice(names))? else {
            return Ok(None);
        };
        let word: String = v.extract().map_err(|_| bad(keyword, &v, &want))?;
        T::from_str(&word, false)
            .map(Some)
            .map_err(|_| bad(keyword, &v, &want))
    }

    /// `params={"m": 2}`: each parameter's name and value.
    pub fn params(&mut self) -> PyResult<Vec<(String, f64)>> {
        let Some(v) = self.value("params", Kind::Params)? else {
            return Ok(Vec::new());
        };
        let dict = v
            .cast::<PyDict>()
            .map_err(|_| bad("params", &v, "give a dict of parameter names and numbers"))?;
        dict.iter()
            .map(|(name, x)| {
                let name: String = name
                    .extract()
                    .map_err(|_| bad("params", &v, "a parameter's name is not a string"))?;
                if name.is_empty() || name.contains('=') {
                    return Err(bad(
                        "params",
                        &v,
                        &format!("{name:?} is not a parameter's name"),
                    ));
                }
                Ok((name, real("params", &x)?))
            })
            .collect()
    }

    /// `params` as the command line's `--param NAME=VALUE` items (each value written so that
    /// it reads back as the same number).
    pub fn param_items(&mut self) -> PyResult<Vec<String>> {
        Ok(self
            .params()?
            .into_iter()
            .map(|(name, x)| format!("{name}={}", phaseflow::error::num(x)))
            .collect())
    }

    /// What was asked for: each keyword with its kind, in the order asked.
    pub fn asked(self) -> Vec<(&'static str, Kind)> {
        self.asked
    }

    /// Every keyword in `given` is one of `known` (else a `ValueError` with the nearest names).
    pub fn refuse_unknown(&self, known: &[(&'static str, Kind)]) -> PyResult<()> {
        let Some(given) = self.given else {
            return Ok(());
        };
        let known: Vec<&str> = known.iter().map(|(k, _)| *k).collect();
        for key in given.keys() {
            let key: String = key.extract()?;
            if !known.contains(&key.as_str()) {
                let hint = phaseflow::error::closest(&key, known.iter().copied())
                    .map(|k| format!("; did you mean {k}="))
                    .unwrap_or_default();
                return Err(PyValueError::new_err(format!(
                    "{key}=: phaseflow {} has no such option{hint} (see help(phaseflow.{}))",
                    self.command,
                    self.command.replace('-', "_")
                )));
            }
        }
        Ok(())
    }

    /// No two given keywords exclude each other by the command line's definitions (`exempt`:
    /// keywords whose pairs the library refuses itself, with its own reason), and every
    /// keyword whose flag is required is given.
    pub fn finish(&self, exempt: &[&str]) -> PyResult<()> {
        let mut cli = Cli::command();
        cli.build();
        let Some(cmd) = cli.find_subcommand(self.command) else {
            return Ok(());
        };
        for arg in cmd.get_arguments().filter(|a| a.is_required_set()) {
            if let Some(keyword) = arg.get_long().map(keyword_of) {
                if !self.given(&keyword) {
                    return Err(PyValueError::new_err(format!(
                        "{keyword}= is required (phaseflow.{} has no default for it)",
                        self.command.replace('-', "_")
                    )));
                }
            }
        }
        self.refuse_conflicts(cmd, exempt)
    }

    /// Two given keywords whose flags exclude each other (`preset=` and `dt=`, `method=` and
    /// `method_file=`), as clap refuses them on the command line.
    fn refuse_conflicts(&self, cmd: &clap::Command, exempt: &[&str]) -> PyResult<()> {
        for arg in cmd.get_arguments() {
            let Some(long) = arg.get_long() else { continue };
            let keyword = keyword_of(long);
            if !self.given(&keyword) || exempt.contains(&keyword.as_str()) {
                continue;
            }
            for other in cmd.get_arg_conflicts_with(arg) {
                let Some(other) = other.get_long().map(keyword_of) else {
                    continue;
                };
                if self.given(&other) && !exempt.contains(&other.as_str()) {
                    return Err(PyValueError::new_err(format!(
                        "{keyword}= and {other}= exclude each other: give one of them"
                    )));
                }
            }
        }
        Ok(())
    }

    /// A value the command line's own parser of `keyword`'s flag refuses (a count below its
    /// least, a method or system that does not exist), as a `ValueError` naming the keyword;
    /// `text` is the value as the flag would hold it.
    pub fn check_as_flag(&self, keyword: &str, text: &str) -> PyResult<()> {
        let mut cli = Cli::command();
        cli.build();
        let Some(cmd) = cli.find_subcommand(self.command) else {
            return Ok(());
        };
        let Some(arg) = cmd
            .get_arguments()
            .find(|a| a.get_long().map(keyword_of).as_deref() == Some(keyword))
        else {
            return Ok(());
        };
        // The flag's own parser, alone in a command of its own (its conflicts and
        // requirements are `finish`'s).
        let check = clap::Command::new(self.command).no_binary_name(true).arg(
            clap::Arg::new("value")
                .long("value")
                .allow_hyphen_values(true)
                .value_parser(arg.get_value_parser().clone()),
        );
        check
            .try_get_matches_from([format!("--value={text}")])
            .map(|_| ())
            .map_err(|e| {
                let why = e.kind().as_str().map(str::to_string).unwrap_or_default();
                let why = e
                    .to_string()
                    .lines()
                    .next()
                    .map(|l| l.trim_start_matches("error: ").to_string())
                    .unwrap_or(why);
                let why = why.replace("'--value <value>'", "").replace("--value", "");
                PyValueError::new_err(format!("{keyword}={text:?}: {}", why.trim()))
            })
    }
}

/// A flag's keyword argument: `snapshot-every` → `snapshot_every`, `param` → `params`.
pub fn keyword_of(flag: &str) -> String {
    match flag {
        "param" => "params".to_string(),
        flag => flag.replace('-', "_"),
    }
}

fn joined(items: impl Iterator<Item = String>) -> String {
    items.collect::<Vec<_>>().join(",")
}

fn switch(keyword: &str, value: &Bound<'_, PyAny>) -> PyResult<bool> {
    value
        .extract::<bool>()
        .map_err(|_| bad(keyword, value, "give True or False"))
}

/// A number: an int or a float (numpy's included), not a bool.
fn real(keyword: &str, value: &Bound<'_, PyAny>) -> PyResult<f64> {
    let refused = || bad(keyword, value, "give a number");
    if value.is_instance_of::<PyBool>() || value.is_instance_of::<PyString>() {
        return Err(refused());
    }
    value.extract::<f64>().map_err(|_| refused())
}

/// A whole number ≥ 0 that `T` holds (numpy's integers included), not a bool.
fn count<T: TryFrom<u64>>(keyword: &str, value: &Bound<'_, PyAny>) -> PyResult<T> {
    let refused = || bad(keyword, value, "give a whole number ≥ 0");
    if value.is_instance_of::<PyBool>() {
        return Err(refused());
    }
    let n: u64 = value.extract().map_err(|_| refused())?;
    T::try_from(n).map_err(|_| refused())
}

/// A word; with `lists`, also a list or tuple of words joined by commas.
fn words(keyword: &str, value: &Bound<'_, PyAny>, lists: bool) -> PyResult<String> {
    let want = if lists {
        "give a string, or a list or tuple of strings"
    } else {
        "give a string"
    };
    let refused = |why: &str| bad(keyword, value, why);
    let items: Vec<String> =
        if lists && (value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>()) {
            value.extract().map_err(|_| refused(want))?
        } else {
            vec![value.extract().map_err(|_| refused(want))?]
        };
    if items.len() > 1 && items.iter().any(|i| i.contains(',')) {
        return Err(refused("an item holds a comma, which separates the items"));
    }
    let joined = items.join(",");
    if joined.contains('\0') {
        return Err(refused(
            "contains a NUL character, which no option may hold",
        ));
    }
    Ok(joined)
}

/// Numbers (a list, a tuple or a one-dimensional array).
fn reals(keyword: &str, value: &Bound<'_, PyAny>) -> PyResult<Vec<f64>> {
    let refused = || bad(keyword, value, "give a list of numbers");
    if value.is_instance_of::<PyString>() {
        return Err(refused());
    }
    let items: Vec<Bound<'_, PyAny>> = value.extract().map_err(|_| refused())?;
    items
        .iter()
        .map(|x| real(keyword, x).map_err(|_| refused()))
        .collect()
}

/// A path: a str or an os.PathLike, without NUL (no file's name holds one).
pub fn path(keyword: &str, value: &Bound<'_, PyAny>) -> PyResult<PathBuf> {
    let refused = |why: &str| bad(keyword, value, why);
    if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        return Err(refused("give a path: a str or a pathlib.Path"));
    }
    let p: PathBuf = value
        .extract()
        .map_err(|_| refused("give a path: a str or a pathlib.Path"))?;
    if p.as_os_str().as_encoded_bytes().contains(&0) {
        return Err(refused("contains a NUL character, which no path may hold"));
    }
    Ok(p)
}

/// Read `given` with `reader`, the keywords of `command`: an unknown keyword is refused
/// before any is read, then conflicts and required keywords after (`Keywords::finish`).
pub fn read<'py, T>(
    command: &'static str,
    given: &Bound<'py, PyDict>,
    exempt: &[&str],
    reader: impl for<'a> Fn(&mut Keywords<'a, 'py>) -> PyResult<T>,
) -> PyResult<T> {
    let known = describe(command, &reader)?;
    let mut k = Keywords::new(command, Some(given));
    k.refuse_unknown(&known)?;
    let value = reader(&mut k)?;
    k.finish(exempt)?;
    Ok(value)
}

/// The keywords `reader` asks for, with their kinds, in order.
pub fn describe<'py, T>(
    command: &'static str,
    reader: impl for<'a> Fn(&mut Keywords<'a, 'py>) -> PyResult<T>,
) -> PyResult<Vec<(&'static str, Kind)>> {
    let mut k = Keywords::new(command, None);
    reader(&mut k)?;
    Ok(k.asked())
}

/// The help of `keyword`'s flag in `command`, as `--help` gives it ("" for none), and whether
/// the flag is required.
pub fn flag_help(command: &str, keyword: &str) -> (String, bool) {
    let cli = Cli::command();
    let arg = cli.find_subcommand(command).and_then(|cmd| {
        cmd.get_arguments()
            .find(|a| a.get_long().map(keyword_of).as_deref() == Some(keyword))
    });
    match arg {
        Some(a) => (
            a.get_long_help()
                .or(a.get_help())
                .map(|h| h.to_string())
                .unwrap_or_default(),
            a.is_required_set(),
        ),
        None => (String::new(), false),
    }
}
