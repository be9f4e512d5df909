//! `phaseflow resume DIR`, whatever DIR holds: a study (study.toml), a sweep (sweep.toml) or a
//! run (config.toml), continued to its end, or found complete (its manifest). The command
//! line and the Python module both dispatch through `resume`, so a folder one of them resumes
//! the other resumes too.

use std::path::Path;

use crate::error::Result;
use crate::output::folder::MANIFEST;
use crate::run;
use crate::study::{self, StudyOutcome};
use crate::sweep::{self, SweepOutcome};

/// What `resume` found in the folder and did.
pub enum Resumption {
    /// A study already complete: nothing was run.
    StudyComplete,
    /// A study continued to its end.
    Study(StudyOutcome),
    /// A sweep already complete: nothing was run.
    SweepComplete,
    /// A sweep continued to its end.
    Sweep(SweepOutcome),
    /// A run, complete or continued to its end (`run::resume_run`).
    Run(run::Resumed),
}

/// Continue the study, sweep or run in `dir` from where it stopped.
pub fn resume(dir: &Path) -> Result<Resumption> {
    let complete = dir.join(MANIFEST).is_file();
    if dir.join(study::STUDY_FILE).is_file() {
        return Ok(if complete {
            Resumption::StudyComplete
        } else {
            Resumption::Study(study::resume_study(dir)?)
        });
    }
    if dir.join(sweep::SWEEP_FILE).is_file() {
        return Ok(if complete {
            Resumption::SweepComplete
        } else {
            Resumption::Sweep(sweep::resume_sweep(dir)?)
        });
    }
    run::resume_run(dir).map(Resumption::Run)
}
