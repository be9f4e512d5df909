//! `--system-file FILE.toml`: a user's system as a file, the formula with its parameters'
//! defaults and ranges, and optionally its degrees of freedom, default state and coordinate
//! names. It resolves to the same `ExprSpec` as `--hamiltonian` (which config.toml records
//! whole, so a run's folder does not depend on the file afterwards). A file may give
//! `lagrangian = "…"` (L(q, v), as `--lagrangian`) instead of `hamiltonian`, and then
//! optionally its `discretization`.
//!
//! ```toml
//! name = "double-well"
//! hamiltonian = "p^2/2 + a*q^4 - b*q^2"
//! coordinates = ["x"]            # optional: names of q1..qd for reports
//! default_state = [1.0, 0.0]     # optional: q1..qd, p1..pd [default: zero]
//! dof = 1                        # optional [default: the largest index in the formula]
//!
//! [params.a]
//! default = 0.25
//! range = [0.0, 10.0]            # optional: --param a=VALUE must lie in it (inclusive)
//! meaning = "quartic stiffness"  # optional
//!
//! [params.b]
//! default = 1.0
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use super::MAX_CONFIG_BYTES;
use crate::error::{num, Error, Field, Result};
use crate::invalid;
use crate::system::ExprSpec;

/// A system file as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct SystemFile {
    name: String,
    hamiltonian: Option<String>,
    lagrangian: Option<String>,
    discretization: Option<String>,
    constraints: Option<Vec<String>>,
    dof: Option<usize>,
    coordinates: Option<Vec<String>>,
    default_state: Option<Vec<f64>>,
    #[serde(default)]
    params: BTreeMap<String, ParamEntry>,
}

/// One `[params.NAME]` table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ParamEntry {
    default: f64,
    range: Option<[f64; 2]>,
    #[allow(dead_code)] // documentation for the reader of the file
    meaning: Option<String>,
}

/// What a system file's formula is.
#[derive(Debug, Clone, PartialEq)]
pub enum Formula {
    Hamiltonian,
    /// A Lagrangian, with what the file gives of its own keys.
    Lagrangian(LagrangianKeys),
}

/// A Lagrangian system file's own keys, each replaced by its flag where that is given.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LagrangianKeys {
    /// `discretization`: the discrete Lagrangian.
    pub discretization: Option<String>,
    /// `constraints`: holonomic constraints g(q) = 0.
    pub constraints: Option<Vec<String>>,
}

/// The file's formula and what it is, or why it has none.
fn formula(f: &SystemFile) -> std::result::Result<(String, Formula), &'static str> {
    let own_keys = f.discretization.is_some() || f.constraints.is_some();
    match (&f.hamiltonian, &f.lagrangian) {
        (Some(h), None) if !own_keys => Ok((h.clone(), Formula::Hamiltonian)),
        (None, Some(l)) => {
            let keys = LagrangianKeys {
                discretization: f.discretization.clone(),
                constraints: f.constraints.clone(),
            };
            Ok((l.clone(), Formula::Lagrangian(keys)))
        }
        (Some(_), None) => {
            Err("discretization and constraints apply to a lagrangian, not to a hamiltonian")
        }
        (Some(_), Some(_)) => Err("give one of hamiltonian and lagrangian, not both"),
        (None, None) => Err("missing field `hamiltonian` (or `lagrangian`): the system's formula"),
    }
}

/// Read `path` and lay the given `--param`s (names the file declares, values within their
/// ranges) and `--dof` over it.
pub fn load(
    path: &Path,
    given: &BTreeMap<String, f64>,
    dof: Option<usize>,
) -> Result<(ExprSpec, Formula)> {
    let file_err =
        |message: String| Error::in_file(Field::SystemFile, path, format!(": {message}"));
    let bytes = crate::ensemble::read_regular(path, MAX_CONFIG_BYTES, "a TOML system file")
        .map_err(file_err)?;
    let text = String::from_utf8(bytes)
        .map_err(|e| file_err(format!("malformed TOML: not UTF-8 text ({e})")))?;
    let f: SystemFile =
        toml::from_str(&text).map_err(|e| file_err(format!("malformed TOML: {e}")))?;
    let (formula, kind) = formula(&f).map_err(|why| file_err(why.into()))?;
    let mut params = BTreeMap::new();
    for (name, p) in &f.params {
        if let Some([lo, hi]) = p.range {
            if !(lo.is_finite() && hi.is_finite() && lo <= hi) {
                return Err(file_err(format!(
                    "params.{name}.range = [{lo}, {hi}]: expected two finite numbers, the lower first"
                )));
            }
        }
        if !p.default.is_finite() || !in_range(p.default, p.range) {
            return Err(file_err(format!(
                "params.{name}.default = {}: must be a finite number within its range",
                p.default
            )));
        }
        params.insert(name.clone(), p.default);
    }
    for (name, &v) in given {
        let Some(p) = f.params.get(name) else {
            let known: Vec<&str> = f.params.keys().map(String::as_str).collect();
            let field = Field::Param(name.clone());
            return Err(invalid!(field.clone(); field.is(num(v)), format!(
                ": system '{}' ({}) has no parameter '{name}' (its parameters: {})",
                f.name,
                path.display(),
                if known.is_empty() { "none".to_string() } else { known.join(", ") }
            )));
        };
        if !v.is_finite() || !in_range(v, p.range) {
            let [lo, hi] = p.range.unwrap_or([f64::NEG_INFINITY, f64::INFINITY]);
            let field = Field::Param(name.clone());
            return Err(invalid!(field.clone(); field.is(num(v)), format!(
                ": outside the range [{}, {}] that {} gives for {name}",
                num(lo),
                num(hi),
                path.display()
            )));
        }
        params.insert(name.clone(), v);
    }
    let spec = ExprSpec {
        name: f.name,
        formula,
        dof: dof.or(f.dof),
        params,
        default_state: f.default_state,
        coordinates: f.coordinates,
    };
    Ok((spec, kind))
}

fn in_range(x: f64, range: Option<[f64; 2]>) -> bool {
    range.is_none_or(|[lo, hi]| lo <= x && x <= hi)
}
