//! `phaseflow study`: the same initial set evolved by several methods side by side, turned into
//! data (each run's stats.csv, config.toml and portrait states; summary.csv), pictures (phase
//! portraits, over the exact level curves where they are known, energy error and |area ratio − 1|
//! against time) and a short report.md. A study is data (`Study`): the presets and the custom
//! study from flags are both just values of it.
//!
//! - `presets`: the preset studies, one table entry each.
//! - `args`: the study the command-line flags describe (a preset with overrides, or custom).
//! - `runner`: `run_study`, one `run::run` per method, then summary, figures and report.
//! - `summary`: summary.csv's rows and the one-sentence verdict per method.
//! - `figures`: the study's figures (portraits, energy, observable and area against time).
//! - `portrait`: a phase portrait's data, plot ranges and level curves.
//! - `report`: report.md.
//! - `reference`: a study's reference solution and each run's distance from it.
//! - `format`: number formatting shared by the report, legends and messages.
//! - `chaos`: studies across energies or parameter values with `--chaos`: their runs'
//!   settings, figures against the parameter and report.md's chaos section.
//! - `replot`: `plot DIR`, a finished run's figures and report.md drawn again from its files
//!   (read back by `readback`).

mod args;
mod chaos;
mod figures;
mod format;
mod portrait;
mod presets;
mod readback;
mod reference;
mod replot;
mod report;
mod runner;
mod summary;

pub use args::{out_dir, parse_dt_list};
pub use presets::{preset, PRESETS};
pub use replot::{plot_run, PlotOutcome};
pub use runner::{resume_study, run_folders, run_study, StudyOutcome};

pub use summary::SummaryRow;

use serde::{Deserialize, Serialize};

use crate::config::RunFile;
use crate::error::{Error, Result};
use crate::method::Method;

/// One method of a study with its own step and step count (and, for studies that compare
/// coordinates, e.g. polar against Cartesian, its own system).
#[derive(Debug, Clone, PartialEq)]
pub struct StudyRun {
    pub method: Method,
    pub dt: f64,
    pub steps: u64,
    /// Overrides the study's system for this run.
    pub system: Option<String>,
    /// What else the run changes of the study's settings (a study across energies or
    /// parameter values rather than methods); None for a study of methods.
    pub vary: Option<Variation>,
    /// The study's reference solution (a fine step of an accurate method): every other single
    /// trajectory's distance from it is drawn and reported (`reference`).
    pub reference: bool,
}

/// A run's own energy surface or parameter values, named by `label` (its folder name and
/// legend label).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Variation {
    pub label: String,
    /// The grid's energy surface (`--energy`).
    pub energy: Option<f64>,
    /// Parameters set over the study's.
    #[serde(default)]
    pub params: std::collections::BTreeMap<String, f64>,
}

impl Variation {
    /// The run's folder name: the label with every character but letters, digits and `=._-`
    /// replaced by `_` ("E=1/8" → "E=1_8").
    pub fn folder(&self) -> String {
        self.label
            .chars()
            .map(|c| match c.is_ascii_alphanumeric() || "=._-".contains(c) {
                true => c,
                false => '_',
            })
            .collect()
    }
}

/// A study: the shared settings (system, ensemble, backend, …) and the methods to compare.
#[derive(Debug, Clone)]
pub struct Study {
    /// Preset name, or "custom".
    pub name: String,
    /// What the study reproduces and with which parameters (first paragraph of report.md).
    pub description: String,
    /// Everything but method, dt and steps (those come from `runs`).
    pub base: RunFile,
    pub runs: Vec<StudyRun>,
    /// Times at which every method's points are kept for the phase portraits.
    pub portrait_times: Vec<f64>,
    /// Statistics rows per run (the snapshot interval is steps / this).
    pub stats_rows: u64,
}

/// A study as `DIR/study.toml` records it when it starts (with the command line report.md
/// quotes), so `phaseflow resume DIR` can finish it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StudyFile {
    name: String,
    description: String,
    command_line: String,
    portrait_times: Vec<f64>,
    stats_rows: u64,
    runs: Vec<StudyRunFile>,
    base: RunFile,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StudyRunFile {
    method: String,
    /// The text of the method file a method given by a user's file came from (as config.toml
    /// records it), so the study resumes without the file.
    method_source: Option<String>,
    dt: f64,
    steps: u64,
    system: Option<String>,
    #[serde(default)]
    vary: Option<Variation>,
    /// Absent (false) in the records of studies without a reference run.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    reference: bool,
}

/// The file a study folder records its study in.
pub const STUDY_FILE: &str = "study.toml";

/// study.toml's first line, before the CRC-32 (8 hex digits) of the rest of the file.
const RECORD_LINE: &str =
    "# phaseflow study record, read by `phaseflow resume`; an edited record is refused. CRC-32 of the lines below: ";

impl StudyFile {
    fn new(study: &Study, command_line: &str) -> Self {
        StudyFile {
            name: study.name.clone(),
            description: study.description.clone(),
            command_line: command_line.into(),
            portrait_times: study.portrait_times.clone(),
            stats_rows: study.stats_rows,
            runs: study
                .runs
                .iter()
                .map(|r| StudyRunFile {
                    method: r.method.name().into(),
                    method_source: crate::config::recorded_source(r.method),
                    dt: r.dt,
                    steps: r.steps,
                    system: r.system.clone(),
                    vary: r.vary.clone(),
                    reference: r.reference,
                })
                .collect(),
            base: study.base.clone(),
        }
    }

    /// study.toml's text: a first line with the CRC-32 of the TOML after it, then the TOML.
    fn to_text(&self, path: &std::path::Path) -> Result<String> {
        crate::config::record::seal(RECORD_LINE, self, path)
    }

    /// The study and its command line, read back from `dir/study.toml`, refused when the file
    /// changed since the study wrote it (a study resumed with other settings would mix runs of
    /// two studies in one summary).
    fn read(dir: &std::path::Path) -> Result<(Study, String)> {
        let path = dir.join(STUDY_FILE);
        let again = "start the study again with `phaseflow study ... --force`";
        let body = crate::config::record::open(
            &path,
            RECORD_LINE,
            crate::config::record::Expect {
                what: "the study.toml the study wrote",
                no_line: format!("no checksum line: written by an earlier version of phaseflow, or not a study's record; {again}"),
                changed: format!("study.toml changed since the study wrote it (its CRC-32 no longer matches): resuming would mix runs of two different studies; restore it, or {again}"),
            },
        )?;
        let bad = |m: String| Error::InputFile {
            path: path.clone(),
            message: m,
        };
        let f: StudyFile = toml::from_str(&body).map_err(|e| bad(format!("malformed: {e}")))?;
        let runs = f
            .runs
            .iter()
            .map(|r| {
                let method = match &r.method_source {
                    Some(text) => Method::from_source(text, "study.toml method_source")?,
                    None => Method::from_name(&r.method)?,
                };
                Ok(StudyRun {
                    method,
                    dt: r.dt,
                    steps: r.steps,
                    system: r.system.clone(),
                    vary: r.vary.clone(),
                    reference: r.reference,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let study = Study {
            name: f.name,
            description: f.description,
            base: f.base,
            runs,
            portrait_times: f.portrait_times,
            stats_rows: f.stats_rows,
        };
        Ok((study, f.command_line))
    }
}
