//! `phaseflow run --sweep NAME=LO:HI:N`: one run per parameter value (a grid of them with
//! several `--sweep`s), each into its own folder `DIR/part_<i>/`, then stats.csv with every
//! part's rows under its `sweep_index` and values, sweep.csv (one line per part: its values,
//! folder and energy errors) and the figure `sweep.png`/`.svg`.
//!
//! A system's parameters are compiled into its kernel as literals (and into the CPU system as
//! constants), so a part is exactly the run `--param NAME=value` would make: same arithmetic,
//! same rows, bit for bit. On the GPU, and with `--checkpoint-every`, the parts run one after
//! another under one progress report, each with its own checkpoints, so `phaseflow resume DIR`
//! continues a sweep where it stopped; on the CPU engine otherwise up to 64 at a time as one
//! ensemble (`together`), each still writing its own folder.
//!
//! - `runner`: `run_sweep` and `resume_sweep`, the parts run in turn or together, then the
//!   sweep's files.
//! - `together`: the parts' CPU engines advanced as one ensemble.

mod job;
mod runner;
mod together;

pub use runner::{part_folders, resume_sweep, run_sweep, SweepOutcome};

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::config::{OutputDir, RunBuilder, RunConfig, RunFile};
use crate::error::{Error, Result};
use crate::input_err;

/// The file a sweep folder records its sweep in, read by `phaseflow resume`.
pub const SWEEP_FILE: &str = "sweep.toml";

/// The most parts one sweep makes (each is a run folder of its own).
pub const MAX_PARTS: usize = 10_000;

/// One `--sweep NAME=LO:HI:N`: N values evenly spaced from LO to HI (both included).
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    pub name: String,
    pub lo: f64,
    pub hi: f64,
    pub n: usize,
}

impl Axis {
    /// Parse `NAME=LO:HI:N`; refused, naming the fix, when malformed, N = 0, LO > HI with
    /// N > 1, or N = 1 with LO ≠ HI (which value would be meant is not clear).
    pub fn parse(spec: &str) -> Result<Axis> {
        let form = || {
            input_err!(
                "--sweep {spec}: expected NAME=LO:HI:N with finite numbers LO ≤ HI and a count N, e.g. --sweep g_hat=0.01:0.5:50"
            )
        };
        let (name, range) = spec.split_once('=').ok_or_else(form)?;
        let name = name.trim();
        let fields: Vec<&str> = range.split(':').map(str::trim).collect();
        let [lo, hi, n] = fields[..] else {
            return Err(form());
        };
        let real = |s: &str| s.parse::<f64>().ok().filter(|x| x.is_finite());
        let (Some(lo), Some(hi), Ok(n)) = (real(lo), real(hi), n.parse::<usize>()) else {
            return Err(form());
        };
        if name.is_empty() {
            return Err(form());
        }
        if n == 0 {
            return Err(input_err!(
                "--sweep {spec}: N = 0 gives no values; give N ≥ 1 (N = 1 with LO = HI runs one value)"
            ));
        }
        if n > 1 && lo > hi {
            return Err(input_err!(
                "--sweep {spec}: LO > HI; give the range from low to high: --sweep {name}={}:{}:{n}",
                crate::error::num(hi),
                crate::error::num(lo)
            ));
        }
        if n > 1 && lo == hi {
            return Err(input_err!(
                "--sweep {spec}: LO = HI gives the same value {n} times; widen the range or give N = 1"
            ));
        }
        if n == 1 && lo != hi {
            return Err(input_err!(
                "--sweep {spec}: N = 1 runs one value, but LO ≠ HI; give N ≥ 2 for the range, or LO = HI"
            ));
        }
        Ok(Axis {
            name: name.to_string(),
            lo,
            hi,
            n,
        })
    }

    /// Each of `specs` parsed (`parse`).
    pub fn parse_all(specs: &[String]) -> Result<Vec<Axis>> {
        specs.iter().map(|s| Axis::parse(s)).collect()
    }

    /// The values: LO + (HI − LO)·i/(N − 1), the ends exactly LO and HI, the others rounded
    /// to 15 significant digits, so that 0.01:0.5:50 gives 0.02 rather than
    /// 0.019999999999999997 (a part is then the run of `--param NAME=0.02` as a user writes it).
    pub fn values(&self) -> Vec<f64> {
        if self.n == 1 {
            return vec![self.lo];
        }
        let last = self.n - 1;
        (0..self.n)
            .map(|i| match i {
                0 => self.lo,
                i if i == last => self.hi,
                i => {
                    let x = self.lo + (self.hi - self.lo) * (i as f64 / last as f64);
                    let decimal: f64 = format!("{x:.14e}").parse().unwrap_or(x);
                    decimal.clamp(self.lo, self.hi)
                }
            })
            .collect()
    }
}

/// One part of a sweep: its index, its values (one per axis, in axis order) and the run's
/// configuration with them set.
#[derive(Debug, Clone)]
pub struct Part {
    pub index: usize,
    pub values: Vec<f64>,
    pub config: RunConfig,
}

/// A sweep: the settings shared by every part and the axes.
#[derive(Debug, Clone)]
pub struct Sweep {
    base: RunFile,
    pub axes: Vec<Axis>,
}

/// `phaseflow run --sweep`: the sweep and the folder it writes.
#[derive(Debug, Clone)]
pub struct SweepJob {
    pub sweep: Sweep,
    pub out: OutputDir,
}

impl Sweep {
    /// The sweep of `axes` over the settings of `base` (a run's settings but for the swept
    /// parameters, which may have no value yet: a formula's parameters have no default); each
    /// parameter swept once, and not with the settings that split one run in other ways.
    pub fn new(base: RunBuilder, axes: Vec<Axis>) -> Result<Sweep> {
        let base = base.settings().clone();
        if axes.is_empty() {
            return Err(input_err!(
                "--sweep: no axis given; give --sweep NAME=LO:HI:N (or drop the empty `sweep` key)"
            ));
        }
        for (i, a) in axes.iter().enumerate() {
            if axes[..i].iter().any(|b| b.name == a.name) {
                return Err(input_err!(
                    "--sweep {}: swept twice; give each parameter one --sweep",
                    a.name
                ));
            }
        }
        if base.shard.is_some() {
            return Err(input_err!(
                "--sweep with --shard: a sweep runs every value of the whole ensemble; drop --shard (or run each value with --param as its own sharded run)"
            ));
        }
        if crate::cluster::Peers::current().many() {
            return Err(input_err!(
                "--sweep under mpirun: a sweep runs all its parts in one process; run it without mpirun"
            ));
        }
        // Checked: counts of 2^32 each would wrap a 64-bit product to a small number.
        let parts = axes
            .iter()
            .try_fold(1usize, |product, a| product.checked_mul(a.n))
            .filter(|&parts| parts <= MAX_PARTS);
        if parts.is_none() {
            let counts: Vec<String> = axes.iter().map(|a| a.n.to_string()).collect();
            return Err(input_err!(
                "--sweep: {} parts, more than {MAX_PARTS}; give fewer values",
                counts.join(" × ")
            ));
        }
        Ok(Sweep { base, axes })
    }

    /// Every combination of the axes' values, the first axis slowest (the last fastest):
    /// part i of a grid N1 × N2 has values (v1[i / N2], v2[i % N2]).
    pub fn grid(&self) -> Vec<Vec<f64>> {
        let mut grid = vec![Vec::new()];
        for axis in &self.axes {
            let values = axis.values();
            grid = grid
                .into_iter()
                .flat_map(|head| {
                    values.iter().map(move |&v| {
                        let mut row = head.clone();
                        row.push(v);
                        row
                    })
                })
                .collect();
        }
        grid
    }

    /// Every part's configuration, resolved before anything is written. A parameter the
    /// system does not have is refused with the system's parameters; a value the system
    /// refuses, with the part that has it.
    pub fn parts(&self) -> Result<Vec<Part>> {
        self.check_names()?;
        self.grid()
            .into_iter()
            .enumerate()
            .map(|(index, values)| {
                let config = RunBuilder::from(self.file_of(&values))
                    .build()
                    .map_err(|e| self.refused(index, &values, e))?;
                Ok(Part {
                    index,
                    values,
                    config,
                })
            })
            .collect()
    }

    /// A part's refusal: said as the sweep's when the settings without the swept values
    /// pass (the value is what the system refuses), else the settings' own error.
    fn refused(&self, index: usize, values: &[f64], e: Error) -> Error {
        let mut f = self.base.clone();
        if let Some(p) = f.params.as_mut() {
            p.retain(|k, _| !self.axes.iter().any(|a| &a.name == k));
        }
        if RunBuilder::from(f).build().is_err() && index == 0 {
            return e;
        }
        input_err!(
            "--sweep: part {index} ({}) is refused: {e}; choose LO and HI inside the parameter's range",
            self.label(values)
        )
    }

    /// The run file of the part with `values`: the base with the swept parameters set (a
    /// sweep overrides a `--param` of the same name).
    fn file_of(&self, values: &[f64]) -> RunFile {
        let mut f = self.base.clone();
        let params = f.params.get_or_insert_with(BTreeMap::new);
        for (axis, &v) in self.axes.iter().zip(values) {
            params.insert(axis.name.clone(), v);
        }
        f
    }

    /// `name=value` of each axis, comma-separated.
    pub fn label(&self, values: &[f64]) -> String {
        self.axes
            .iter()
            .zip(values)
            .map(|(a, v)| format!("{}={}", a.name, crate::error::num(*v)))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Every swept name is a parameter of the system (its parameters as the system, with
    /// the swept ones left at their defaults where it has defaults, lists them).
    fn check_names(&self) -> Result<()> {
        let mut f = self.base.clone();
        if let Some(p) = f.params.as_mut() {
            p.retain(|k, _| !self.axes.iter().any(|a| &a.name == k));
        }
        // A formula's parameter has no default, so the system resolves only with its values;
        // then the sweep's own values are checked by resolving the parts.
        let Ok(system) = crate::config::resolve_system(&f) else {
            return Ok(());
        };
        let known = system.params();
        for a in &self.axes {
            if !known.contains_key(&a.name) {
                let names: Vec<&str> = known.keys().map(String::as_str).collect();
                return Err(input_err!(
                    "--sweep {}: system '{}' has no parameter '{}' (its parameters: {}); sweep one of them",
                    a.name,
                    system.name(),
                    a.name,
                    if names.is_empty() { "none".into() } else { names.join(", ") }
                ));
            }
        }
        Ok(())
    }
}

/// sweep.toml's first line, before the CRC-32 (8 hex digits) of the rest of the file.
const RECORD_LINE: &str =
    "# phaseflow sweep record, read by `phaseflow resume`; an edited record is refused. CRC-32 of the lines below: ";

/// What sweep.toml holds: the axes as given and the settings every part shares.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SweepFile {
    sweep: Vec<String>,
    base: RunFile,
}

impl Sweep {
    /// sweep.toml's text: the checksum line, then the TOML.
    fn record(&self, path: &Path) -> Result<String> {
        let file = SweepFile {
            sweep: self.axes.iter().map(Axis::spec).collect(),
            base: self.base.clone(),
        };
        crate::config::record::seal(RECORD_LINE, &file, path)
    }

    /// The sweep `dir/sweep.toml` records, refused when the file changed since the sweep
    /// wrote it (resumed parts would mix two sweeps).
    fn read(dir: &Path) -> Result<Sweep> {
        let path = dir.join(SWEEP_FILE);
        let again = "start the sweep again with `phaseflow run ... --sweep ... --force`";
        let body = crate::config::record::open(
            &path,
            RECORD_LINE,
            crate::config::record::Expect {
                what: "the sweep.toml the sweep wrote",
                no_line: format!("no checksum line: not a sweep's record; {again}"),
                changed: format!("sweep.toml changed since the sweep wrote it (its CRC-32 no longer matches); restore it, or {again}"),
            },
        )?;
        let bad = |m: String| Error::InputFile {
            path: path.clone(),
            message: m,
        };
        let f: SweepFile = toml::from_str(&body).map_err(|e| bad(format!("malformed: {e}")))?;
        Sweep::new(
            RunBuilder::from(f.base.as_recorded()),
            Axis::parse_all(&f.sweep)?,
        )
    }
}

impl Axis {
    /// `NAME=LO:HI:N` again, with the numbers written so they read back exactly.
    fn spec(&self) -> String {
        format!("{}={}:{}:{}", self.name, self.lo, self.hi, self.n)
    }
}

#[cfg(test)]
mod tests;
