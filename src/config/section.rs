//! `--section` and `--section-max` resolved against the run (`crate::section::Section`), and
//! `--frequencies` with `--frequency-stride` (`observe::frequencies::FrequencySpec`).

use super::file::RunFile;
use crate::error::Result;
use crate::input_err;
use crate::observe::frequencies::FrequencySpec;
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

/// The run's frequency analysis, if it has one: its signals parsed for `system` and its
/// samples counted, refused where the samples would not be the points' forward run from t = 0
/// taken alike on every point (`--reverse`, a negative step, loop refinement),
/// where checkpoints are asked for (they do not carry the samples), or where the ensemble is
/// split over several GPUs (shards are run and merged as any run).
pub(super) fn resolve_frequencies(
    f: &RunFile,
    system: &System,
    (dt, steps, reverse): (f64, u64, bool),
    refine: bool,
) -> Result<Option<FrequencySpec>> {
    let Some(text) = f.frequencies.as_deref() else {
        return match f.frequency_stride {
            Some(_) => Err(input_err!(
                "--frequency-stride spaces the samples of the frequency analysis; add --frequencies SIGNAL,.. (e.g. q1,q2) or drop --frequency-stride"
            )),
            None => Ok(None),
        };
    };
    let spec = FrequencySpec::parse(text, f.frequency_stride, steps, system.dof())?;
    let refuse = |why: &str| Err(input_err!("--frequencies: {why}"));
    if reverse || dt < 0.0 {
        return refuse("the samples are taken forward in time from t = 0; drop --reverse and use a positive --dt");
    }
    if refine {
        return refuse("loop refinement inserts points during the run, which would lack the samples before they appear; add --no-refine or use a filled ensemble");
    }
    if f.devices.is_some() {
        return refuse("the samples are kept by one engine over the whole ensemble; drop --devices (or split the run with --shard and merge)");
    }
    if f.checkpoint_every.is_some() {
        return Err(input_err!(
            "--checkpoint-every: runs with --frequencies keep no checkpoints (the samples so far are not saved); drop --checkpoint-every"
        ));
    }
    Ok(Some(spec))
}
