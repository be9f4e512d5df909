//! The settings of a run of a discrete map (a variational system): its start given as two
//! positions, and what such a run refuses.

use super::file::{EnsembleFile, RunFile};
use crate::ensemble::EnsembleSpec;
use crate::error::{Field, Result};
use crate::invalid;
use crate::system::{Constraints, System};

/// `--positions`: the centre's 2d values read as q₀, q₁ (one step apart) become the state
/// (q₀, v₀ = (q₁ − q₀)/dt) of a variational system.
pub(super) fn two_positions(
    e: Option<EnsembleFile>,
    system: &System,
    dt: f64,
) -> Result<EnsembleFile> {
    let mut e = e.unwrap_or_default();
    if e.positions.take() != Some(true) {
        return Ok(e);
    }
    if !system.variational() {
        return Err(invalid!(Field::Positions;
            Field::Positions,
            format!(
                ": system '{}' is Hamiltonian and takes its state as (q, p); ",
                system.name()
            ),
            Field::Positions,
            " (a centre of two positions q0, q1 one step apart) is for the variational systems"
        ));
    }
    let d = system.dof();
    let c = e.center.as_mut().ok_or_else(|| {
        invalid!(Field::Positions;
            Field::Positions,
            " reads ",
            Field::Center,
            " as q0 (d values) then q1 (d values): give ",
            Field::Center
        )
    })?;
    if c.len() != 2 * d {
        return Err(invalid!(Field::Center;
            Field::Positions,
            " ",
            Field::Center,
            format!(
                ": system '{}' needs {} values, q0 (d = {d}) then q1 (d = {d}); got {}",
                system.name(),
                2 * d,
                c.len()
            )
        ));
    }
    for k in 0..d {
        c[d + k] = (c[d + k] - c[k]) / dt;
    }
    Ok(e)
}

/// What a discrete map's run refuses. A holonomic map is symplectic in (q, p = −D₁L_d): loop
/// areas are measured in (q, p) (`measure::area`), and the linearised ones advance tangent
/// columns of the (q, p) map on the CPU engine. A nonholonomic map (rolling without slipping)
/// conserves no symplectic form, so loops and `--tangent` are refused for it; compensated
/// sums carry the drift of the maps that `drift` (`method::variational`).
pub(super) fn check_variational(
    system: &System,
    f: &RunFile,
    ensemble: &EnsembleSpec,
) -> Result<()> {
    let Some(constraints) = system.constraints() else {
        return Ok(());
    };
    let name = system.name();
    let nonholonomic = constraints == Constraints::Nonholonomic;
    if ensemble.is_loop() && nonholonomic {
        return Err(invalid!(Field::Ensemble;
            Field::Ensemble,
            format!(": system '{name}' is nonholonomic (it rolls without slipping), so its map conserves no symplectic form and a loop's area measures nothing it keeps; use a filled ensemble (point, disk, gaussian, grid)")
        ));
    }
    if f.tangent == Some(true) {
        let why = if nonholonomic {
            Some(format!(": system '{name}' is nonholonomic, so its map is not symplectic and has no tangent map to measure it by; drop "))
        } else if !system.has_tangent_map() {
            Some(format!(": the linearisation of system '{name}''s step is not written; measure its symplecticity by a loop's area (--ensemble circle) and drop "))
        } else {
            None
        };
        if let Some(why) = why {
            return Err(invalid!(Field::Tangent; Field::Tangent, why, Field::Tangent));
        }
    }
    check_variational_kernel(system, false, f.compensated == Some(true))?;
    if f.compensated == Some(true) && f.tangent == Some(true) {
        return Err(invalid!(Field::Compensated;
            Field::Compensated,
            format!(": the tangent columns of system '{name}' are its map's derivative, which compensated sums would not follow; drop "),
            Field::Compensated,
            " or --tangent"
        ));
    }
    Ok(())
}

/// What a variational system's GPU kernel cannot do, for every command that builds one (`run`,
/// `bench`, `show-kernel`): tangent columns (the discrete maps' kernels carry none; `run`
/// advances a linearised map's columns on the CPU engine) and compensated sums for a map
/// whose configuration does not step by its stored velocity (`DiscreteMap::drifts`).
pub(crate) fn check_variational_kernel(
    system: &System,
    tangent: bool,
    compensated: bool,
) -> Result<()> {
    let name = system.name();
    if system.variational() && tangent {
        return Err(invalid!(Field::Tangent;
            Field::Tangent,
            format!(": the GPU kernels of the discrete maps carry no tangent columns (system '{name}'); drop "),
            Field::Tangent
        ));
    }
    if system.variational() && compensated && !system.drifts() {
        return Err(invalid!(Field::Compensated;
            Field::Compensated,
            format!(": system '{name}' moves its configuration by its own rotation formula, not by the stored velocity, so there is no drift to carry compensated; drop "),
            Field::Compensated,
            " (run in f64 for long runs)"
        ));
    }
    Ok(())
}
