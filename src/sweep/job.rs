//! `run --sweep` from the command line: the flags (and `--config` file) laid into the settings
//! as for a run, then the sweep of those settings over the axes (`sweep::Sweep::new`).

use crate::cli::RunArgs;
use crate::config::{OutputDir, RunFile};
use crate::error::Result;
use crate::input_err;

impl super::SweepJob {
    /// The sweep the run's flags (and `--config` file) ask for, or None when they give none.
    pub fn from_args(a: &RunArgs) -> Result<Option<crate::sweep::SweepJob>> {
        let mut base = RunFile::from_run_args(a)?;
        let Some(specs) = base.sweep.take() else {
            return Ok(None);
        };
        base.require("run", true)?;
        let out = base.out.take().ok_or_else(|| {
            input_err!(
                "--out DIR is required (the folder for the sweep's parts, stats.csv and sweep.csv)"
            )
        })?;
        let axes = crate::sweep::Axis::parse_all(&specs)?;
        Ok(Some(crate::sweep::SweepJob {
            sweep: crate::sweep::Sweep::new(base.into(), axes)?,
            out: OutputDir {
                path: out,
                force: a.output.force,
            },
        }))
    }
}
