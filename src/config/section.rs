//! `--section` and `--section-max` resolved against the run (`crate::section::Section`).

use super::file::RunFile;
use crate::error::Result;
use crate::input_err;
use crate::section::Section;
use crate::system::System;

/// The run's section, if it has one: parsed for `system`, and refused where a crossing's time
/// would not be `(k + s)·dt` counted forward from t = 0 (`--reverse`, a negative step), where
/// points appear during the run (loop refinement), or where checkpoints are asked for (they do
/// not carry the crossings), or where the ensemble is split (shards, several GPUs: their
/// crossings are not gathered yet).
pub(super) fn resolve(
    f: &RunFile,
    system: &System,
    dt: f64,
    reverse: bool,
    refine: bool,
) -> Result<Option<Section>> {
    let Some(text) = f.section.as_deref() else {
        return match f.section_max {
            Some(_) => Err(input_err!(
                "--section-max caps the crossings of a section; add --section COORD=VALUE or drop --section-max"
            )),
            None => Ok(None),
        };
    };
    let section = Section::parse(text, f.section_max, system)?;
    if reverse || dt < 0.0 {
        return Err(input_err!(
            "--section records crossings forward in time from t = 0; drop --reverse and use a positive --dt"
        ));
    }
    if refine {
        return Err(input_err!(
            "--section: loop refinement inserts points during the run, which would miss the crossings before they appear; add --no-refine or use a filled ensemble"
        ));
    }
    if f.shard.is_some() || f.devices.is_some() {
        return Err(input_err!(
            "--section: the crossings are collected by one engine over the whole ensemble; a run split by --shard or over several --devices does not gather them yet: drop --shard and --devices"
        ));
    }
    if f.checkpoint_every.is_some() {
        return Err(input_err!(
            "--checkpoint-every: runs with --section keep no checkpoints (the crossings so far are not saved); drop --checkpoint-every"
        ));
    }
    Ok(Some(section))
}
