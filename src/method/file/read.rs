//! Reading a method file's fields: each reader checks one field's shape and values and, on a
//! fault, returns an input error of the form `FILE: FIELD: what is wrong; the fix`.

use std::fmt::Display;

use toml::{Table, Value};

use super::coef;
use super::{MAX_NAME, MAX_STAGES, MAX_STEPS, TOLERANCE};
use crate::error::{num, Error, Field};
use crate::method::tableau::{Family, Substep, Tableau};
use crate::{input_err, invalid};

type Result<T> = std::result::Result<T, Error>;

/// The fields every family has.
const COMMON: &[&str] = &["name", "family", "summary", "reference"];

/// A tableau's fields (`rk`, and each table of `prk`).
const TABLEAU: &[&str] = &["a", "b", "c"];

/// A parsed method file and how messages name it.
pub(crate) struct Doc<'a> {
    table: Table,
    origin: &'a str,
}

impl<'a> Doc<'a> {
    pub(crate) fn new(text: &str, origin: &'a str) -> Result<Self> {
        let table = text
            .parse::<Table>()
            .map_err(|e| input_err!("{origin}: malformed TOML: {}", e.to_string().trim_end()))?;
        Ok(Doc { table, origin })
    }

    /// The input error `FILE: FIELD: message`.
    pub(crate) fn err(&self, field: &str, message: impl Display) -> Error {
        input_err!("{}: {field}: {message}", self.origin)
    }

    /// The file's top-level table.
    pub(crate) fn table(&self) -> &Table {
        &self.table
    }

    /// Refuse a field that is neither common nor one of the family's `fields`.
    pub(crate) fn allow(&self, family: &str, fields: &[&str]) -> Result<()> {
        match self
            .table
            .keys()
            .find(|k| !COMMON.contains(&k.as_str()) && !fields.contains(&k.as_str()))
        {
            Some(key) => Err(self.err(
                key,
                format!(
                    "unknown field for family {family} (its fields: {}, {}); remove it or correct its spelling",
                    COMMON.join(", "),
                    fields.join(", ")
                ),
            )),
            None => Ok(()),
        }
    }

    /// `name`: present, safe in a file name, not a built-in method's.
    pub(crate) fn name(&self) -> Result<String> {
        let name = self.string("name")?.ok_or_else(|| {
            self.err(
                "name",
                "missing; give the method a name, e.g. name = \"my-method\"",
            )
        })?;
        let field = format!("name = {name:?}");
        let rule = "use letters, digits, '-', '_' and '.', starting with a letter or digit";
        match name.chars().next() {
            None => return Err(self.err("name", format!("empty; {rule}"))),
            Some(c) if !c.is_ascii_alphanumeric() => {
                return Err(self.err(&field, format!("starts with '{c}'; {rule}")))
            }
            _ => {}
        }
        if let Some(c) = name
            .chars()
            .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        {
            return Err(self.err(
                &field,
                format!(
                    "the character {c:?} cannot be in a method name (the name becomes part of output file names); {rule}"
                ),
            ));
        }
        if name.len() > MAX_NAME {
            return Err(self.err(
                "name",
                format!("{} characters; at most {MAX_NAME}", name.len()),
            ));
        }
        if let Some(m) = crate::method::ALL
            .iter()
            .find(|m| m.name().eq_ignore_ascii_case(&name))
        {
            return Err(invalid!(Field::MethodFile;
                format!(
                    "{}: {field}: a built-in method is called {:?} (use it with ",
                    self.origin,
                    m.name()
                ),
                Field::Method.is(m.name()),
                "); give this one another name"
            ));
        }
        Ok(name)
    }

    /// `family`: one of `Family::NAMES`.
    pub(crate) fn family(&self) -> Result<&'static str> {
        let known = Family::NAMES.join(", ");
        let family = self.string("family")?.ok_or_else(|| {
            self.err(
                "family",
                format!("missing; give one of {known}, e.g. family = \"rk\""),
            )
        })?;
        Family::NAMES
            .iter()
            .copied()
            .find(|f| *f == family)
            .ok_or_else(|| {
                self.err(
                    &format!("family = {family:?}"),
                    format!("unknown family; the families: {known}"),
                )
            })
    }

    /// An optional string field.
    pub(crate) fn string(&self, key: &str) -> Result<Option<String>> {
        match self.table.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(v) => Err(self.err(key, format!("expected a string, found {}", v.type_str()))),
        }
    }

    /// An optional string of one line (`summary`, `reference`).
    pub(crate) fn line(&self, key: &str) -> Result<Option<String>> {
        let s = self.string(key)?;
        if s.as_deref()
            .is_some_and(|s| s.chars().any(char::is_control))
        {
            return Err(self.err(
                key,
                "one line, without line breaks, tabs or other control characters",
            ));
        }
        Ok(s)
    }

    /// A `prk` file's table `[q]` or `[p]`, with a tableau's fields only.
    pub(crate) fn sub_table(&self, key: &str) -> Result<&Table> {
        let t = match self.table.get(key) {
            Some(Value::Table(t)) => t,
            Some(v) => {
                return Err(self.err(
                    key,
                    format!(
                        "expected a table [{key}] with the tableau's a, b and optionally c, found {}",
                        v.type_str()
                    ),
                ))
            }
            None => {
                return Err(self.err(
                    key,
                    format!(
                        "missing; a prk method gives a table [{key}] with a, b and optionally c: the tableau of the {} equation",
                        if key == "q" { "q' = ∂H/∂p" } else { "p' = −∂H/∂q" }
                    ),
                ))
            }
        };
        if let Some(k) = t.keys().find(|k| !TABLEAU.contains(&k.as_str())) {
            return Err(self.err(
                &format!("{key}.{k}"),
                format!("unknown field (a [{key}] table has a, b and optionally c); remove it or correct its spelling"),
            ));
        }
        Ok(t)
    }

    /// A tableau `a`, `b`, optional `c` from `t`, fields named `{prefix}a` etc.
    pub(crate) fn tableau(&self, t: &Table, prefix: &str) -> Result<Tableau> {
        let a_field = format!("{prefix}a");
        let a = self.square(t, &a_field, "a")?;
        let s = a.len();
        let b = self.stage_vector(t, &format!("{prefix}b"), "b", s, &a_field)?;
        let sums: Vec<f64> = a.iter().map(|row| row.iter().sum()).collect();
        let c = match t.get("c") {
            None => sums,
            Some(_) => {
                let c_field = format!("{prefix}c");
                let c = self.stage_vector(t, &c_field, "c", s, &a_field)?;
                for (i, (&ci, row)) in c.iter().zip(&a).enumerate() {
                    if !near(ci, sums[i], row) {
                        return Err(self.err(
                            &format!("{c_field}, entry {}", i + 1),
                            format!(
                                "{} differs from the sum of row {} of {a_field}, {}; c must be the row sums of a (or leave c out: they are then taken)",
                                num(ci),
                                i + 1,
                                num(sums[i])
                            ),
                        ));
                    }
                }
                c
            }
        };
        self.sums_to_one(&format!("{prefix}b"), &b, "the b")?;
        Ok(Tableau { a, b, c })
    }

    /// An s×s matrix of coefficients, 1 ≤ s ≤ `MAX_STAGES`.
    pub(crate) fn square(&self, t: &Table, field: &str, key: &str) -> Result<Vec<Vec<f64>>> {
        let shape = "s rows of s coefficients, e.g. [[\"1/2\"]] for one stage";
        let rows = match t.get(key) {
            None => return Err(self.err(field, format!("missing; give {field} as {shape}"))),
            Some(Value::Array(rows)) => rows,
            Some(v) => {
                return Err(self.err(field, format!("expected {shape}; found {}", v.type_str())))
            }
        };
        let s = rows.len();
        if s == 0 {
            return Err(self.err(field, format!("empty; give {shape}")));
        }
        if s > MAX_STAGES {
            return Err(self.err(field, format!("{s} stages; at most {MAX_STAGES}")));
        }
        let mut out = Vec::with_capacity(s);
        for (i, row) in rows.iter().enumerate() {
            let at = format!("{field}, row {}", i + 1);
            let Value::Array(row) = row else {
                return Err(self.err(
                    &at,
                    format!(
                        "expected an array of {}, found {}",
                        counted(s, "coefficient", "coefficients"),
                        row.type_str()
                    ),
                ));
            };
            if row.len() != s {
                return Err(self.err(
                    &at,
                    format!(
                        "{}, but {field} has {}; {field} must be square ({shape})",
                        counted(row.len(), "entry", "entries"),
                        counted(s, "row", "rows")
                    ),
                ));
            }
            let coefs = row
                .iter()
                .enumerate()
                .map(|(j, v)| self.coef(v, &format!("{field}, row {}, column {}", i + 1, j + 1)));
            out.push(coefs.collect::<Result<Vec<f64>>>()?);
        }
        Ok(out)
    }

    /// A vector of one coefficient per stage of the s-stage matrix `of`.
    pub(crate) fn stage_vector(
        &self,
        t: &Table,
        field: &str,
        key: &str,
        s: usize,
        of: &str,
    ) -> Result<Vec<f64>> {
        if !t.contains_key(key) {
            return Err(self.err(
                field,
                format!("missing; give one coefficient per stage of {of} ({s})"),
            ));
        }
        let v = self.vector(t, field, key)?;
        if v.len() != s {
            return Err(self.err(
                field,
                format!(
                    "{}, but {of} has {}; give one per stage",
                    counted(v.len(), "entry", "entries"),
                    counted(s, "stage", "stages")
                ),
            ));
        }
        Ok(v)
    }

    /// An array of coefficients (entries named `{field}, entry i`).
    pub(crate) fn vector(&self, t: &Table, field: &str, key: &str) -> Result<Vec<f64>> {
        let items = match t.get(key) {
            None => {
                return Err(self.err(
                    field,
                    "missing; give an array of coefficients, e.g. [\"1/2\", \"1/2\"]",
                ))
            }
            Some(Value::Array(items)) => items,
            Some(v) => {
                return Err(self.err(
                    field,
                    format!(
                        "expected an array of coefficients, e.g. [\"1/2\", \"1/2\"]; found {}",
                        v.type_str()
                    ),
                ))
            }
        };
        items
            .iter()
            .enumerate()
            .map(|(i, v)| self.coef(v, &format!("{field}, entry {}", i + 1)))
            .collect()
    }

    /// One coefficient: a finite number, or a string holding an expression (`coef`).
    pub(crate) fn coef(&self, v: &Value, at: &str) -> Result<f64> {
        match v {
            Value::Integer(n) => Ok(*n as f64),
            Value::Float(x) if x.is_finite() => Ok(*x),
            Value::Float(x) => Err(self.err(
                at,
                format!("{x} is not a finite number; give a finite coefficient"),
            )),
            Value::String(src) => coef::eval(src).map_err(|e| {
                let col = src[..e.at].chars().count();
                self.err(
                    at,
                    format!(
                        "{src:?}, character {}: {}\n  {src}\n  {}^",
                        col + 1,
                        e.message,
                        " ".repeat(col)
                    ),
                )
            }),
            v => Err(self.err(
                at,
                format!(
                    "expected a number or a string holding an expression (e.g. \"1/4 - sqrt(3)/6\"), found {}",
                    v.type_str()
                ),
            )),
        }
    }

    /// Refuse weights `xs` that do not sum to 1: the method would not even be consistent.
    pub(crate) fn sums_to_one(&self, field: &str, xs: &[f64], what: &str) -> Result<()> {
        let sum: f64 = xs.iter().sum();
        if near(sum, 1.0, xs) {
            return Ok(());
        }
        Err(self.err(
            field,
            format!(
                "the entries sum to {}, not 1: inconsistent: order 0; {what} must sum to 1",
                num(sum)
            ),
        ))
    }

    /// A splitting's `steps`: kicks and drifts in order, each kind's coefficients summing to 1.
    pub(crate) fn steps(&self) -> Result<Vec<Substep>> {
        let example = "e.g. steps = [{ kick = \"1/2\" }, { drift = 1 }, { kick = \"1/2\" }]";
        let items = match self.table.get("steps") {
            Some(Value::Array(items)) if !items.is_empty() => items,
            Some(Value::Array(_)) => {
                return Err(self.err(
                    "steps",
                    format!("empty; give the kicks and drifts in order, {example}"),
                ))
            }
            Some(v) => {
                return Err(self.err(
                    "steps",
                    format!(
                        "expected an array of kicks and drifts, {example}; found {}",
                        v.type_str()
                    ),
                ))
            }
            None => {
                return Err(self.err(
                    "steps",
                    format!("missing; give the kicks and drifts in order, {example}"),
                ))
            }
        };
        if items.len() > MAX_STEPS {
            return Err(self.err(
                "steps",
                format!("{} kicks and drifts; at most {MAX_STEPS}", items.len()),
            ));
        }
        let steps = items
            .iter()
            .enumerate()
            .map(|(i, item)| self.step(item, i + 1))
            .collect::<Result<Vec<Substep>>>()?;
        let (kicks, drifts): (Vec<f64>, Vec<f64>) = (
            steps
                .iter()
                .filter_map(|s| match s {
                    Substep::Kick(c) => Some(*c),
                    Substep::Drift(_) => None,
                })
                .collect(),
            steps
                .iter()
                .filter_map(|s| match s {
                    Substep::Drift(c) => Some(*c),
                    Substep::Kick(_) => None,
                })
                .collect(),
        );
        self.sums_to_one("steps (the kicks)", &kicks, "the kicks' coefficients")?;
        self.sums_to_one("steps (the drifts)", &drifts, "the drifts' coefficients")?;
        Ok(steps)
    }

    /// The `n`th entry of `steps`: `{ kick = c }` or `{ drift = c }`.
    fn step(&self, item: &Value, n: usize) -> Result<Substep> {
        let at = format!("steps, entry {n}");
        let one = match item {
            Value::Table(t) if t.len() == 1 => t.iter().next(),
            _ => None,
        };
        match one {
            Some((k, v)) if k == "kick" => {
                Ok(Substep::Kick(self.coef(v, &format!("{at} (kick)"))?))
            }
            Some((k, v)) if k == "drift" => {
                Ok(Substep::Drift(self.coef(v, &format!("{at} (drift)"))?))
            }
            _ => Err(self.err(
                &at,
                format!(
                    "expected {{ kick = c }} or {{ drift = c }}, found {}",
                    shown(item)
                ),
            )),
        }
    }
}

/// `x` within `TOLERANCE` of `target`, relative to the magnitudes of the terms summed.
fn near(x: f64, target: f64, terms: &[f64]) -> bool {
    let scale = terms.iter().map(|t| t.abs()).sum::<f64>().max(1.0);
    (x - target).abs() <= TOLERANCE * scale
}

/// A value as a message shows it: its TOML text, cut short.
fn shown(v: &Value) -> String {
    let text = v.to_string();
    match text.char_indices().nth(60) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

/// `n` and the noun in its number: "1 entry", "2 entries".
pub(crate) fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
