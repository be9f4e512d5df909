//! `--chaos`: which runs may carry the per-point chaos indicators (`crate::chaos`).

use crate::chaos::{Chaos, Deviation};
use crate::ensemble::EnsembleSpec;
use crate::error::{Field, Result};
use crate::invalid;
use crate::system::System;

use super::RunFile;

/// The indicators `f` asks for, refused where the deviation vectors cannot be carried (or
/// GALI_k asks for more than 2d of them): they are the state's tangent columns (so not beside
/// `--tangent`), renormalised every step (so
/// neither compensated, whose carried errors would be scaled away, nor run back), linearised
/// through ∂H (so not for variational systems), and its accumulators are not inserted with
/// refined loop nodes. Both engines advance them (the chaos observer, `observe::chaos`). The
/// deviation vector's start and metric (`chaos::Deviation`) are taken only with them.
pub fn resolve(f: &RunFile, system: &System, ensemble: &EnsembleSpec) -> Result<Option<Chaos>> {
    let Some(text) = f.chaos.as_deref() else {
        for (given, field) in [
            (&f.deviation, Field::Deviation),
            (&f.deviation_metric, Field::DeviationMetric),
        ] {
            if given.is_some() {
                return Err(invalid!(field.clone();
                    field,
                    " sets the chaos indicators' deviation vector: add ",
                    Field::Chaos.is("megno,lyapunov"),
                    " or drop it"
                ));
            }
        }
        return Ok(None);
    };
    let deviation = Deviation::resolve(
        f.deviation.as_deref(),
        f.deviation_metric.as_deref(),
        system.dof(),
        system.masses(),
    )?;
    let chaos = Chaos::parse(text, deviation)?;
    if let Some(&k) = chaos.gali().last().filter(|&&k| k > 2 * system.dof()) {
        return Err(invalid!(Field::Chaos;
            Field::Chaos.is(text),
            format!(": GALI_{k} needs {k} independent deviation vectors and system '{}' has 2d = {} dimensions; choose gali2 to gali{}", system.name(), 2 * system.dof(), 2 * system.dof())
        ));
    }
    let refuse = |with: Field, why: &str| {
        Err(invalid!(Field::Chaos;
            Field::Chaos,
            format!(": {why}; drop "),
            with
        ))
    };
    if f.tangent == Some(true) {
        return refuse(Field::Tangent, "its deviation vector is the state's one tangent column, so it cannot be combined with the full tangent map");
    }
    if f.compensated == Some(true) {
        return refuse(Field::Compensated, "the deviation vector is renormalised every step, which compensated summation's carried errors would not follow");
    }
    if f.reverse == Some(true) {
        return Err(invalid!(Field::Chaos;
            Field::Chaos,
            ": the deviation vector is renormalised every step and cannot be run back; drop --reverse"
        ));
    }
    if system.variational() {
        return Err(invalid!(Field::Chaos;
            Field::Chaos,
            format!(": the deviation vector is linearised through ∂H; system '{}' is variational and has no Hamiltonian; choose a Hamiltonian system or drop ", system.name()),
            Field::Chaos
        ));
    }
    if ensemble.is_loop() {
        return Err(invalid!(Field::Chaos;
            Field::Chaos,
            format!(": the indicators are per point of a filled set, not of a loop ({}); use a filled ensemble such as ", ensemble.kind().name()),
            Field::Ensemble.is("grid"),
            " or disk"
        ));
    }
    Ok(Some(chaos))
}
