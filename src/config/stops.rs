//! `--stop-when` resolved against the run (`observe::stop::StopConditions`).

use std::sync::Arc;

use super::file::RunFile;
use crate::chaos::Chaos;
use crate::error::Result;
use crate::input_err;
use crate::observe::stop::StopConditions;
use crate::system::System;

/// The run's stop conditions, if it has any: compiled for `system`, and refused where a
/// stopped point could not keep its state and record as the run measures it: steps run back
/// (`--reverse`), points inserted during the run or an area measured over all of them (loop
/// ensembles, `--tangent`) and states advanced beside the run (`--reference`). With `chaos`
/// (`--chaos`) a condition may be a threshold on one of its indicators.
pub(super) fn resolve(
    f: &RunFile,
    system: &System,
    is_loop: bool,
    chaos: Option<&Chaos>,
) -> Result<Option<Arc<StopConditions>>> {
    let texts = match f.stop_when.as_deref() {
        None | Some([]) => return Ok(None),
        Some(t) => t,
    };
    let clash = [
        (f.reverse == Some(true), "--reverse"),
        (f.reference.is_some(), "--reference"),
        (f.tangent == Some(true), "--tangent"),
        (is_loop, "a loop ensemble"),
    ];
    if let Some((_, what)) = clash.iter().find(|(on, _)| *on) {
        return Err(input_err!(
            "--stop-when cannot be combined with {what} yet (a stopped point keeps its state and takes no further steps, which {what} does not follow); drop one of them"
        ));
    }
    if system.dof() + 1 > crate::expr::MAX_DOF {
        return Err(input_err!(
            "--stop-when: conditions take systems of up to {} degrees of freedom",
            crate::expr::MAX_DOF - 1
        ));
    }
    Ok(Some(Arc::new(StopConditions::parse(texts, system, chaos)?)))
}
