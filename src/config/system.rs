//! The system a run's settings choose: a built-in by name with its parameters, a formula
//! (`--hamiltonian`, or `--lagrangian` with its discrete Lagrangian and symmetry), or a
//! system file; a second choice beside the first is refused, naming both.

use super::{system_file, RunFile};
use crate::error::{Field, Result};
use crate::invalid;
use crate::system::{ExprSpec, System};

/// Whether the settings give what only a Lagrangian takes.
fn lagrangian_only(f: &RunFile) -> bool {
    f.discretization.is_some()
        || f.momentum.is_some()
        || f.velocities.is_some()
        || f.constraints.is_some()
}

/// The error for a discrete Lagrangian, a symmetry's generator, initial velocities or
/// constraints given without a Lagrangian.
fn no_discretization() -> crate::error::Error {
    invalid!(Field::Discretization;
        Field::Discretization,
        ", ",
        Field::Momentum,
        ", ",
        Field::Velocities,
        " and ",
        Field::Constraint,
        " apply to ",
        Field::Lagrangian,
        " (the discrete Lagrangian, the symmetry whose discrete momentum is measured, initial states in (q, v), holonomic constraints); a Hamiltonian or a built-in system has none: drop them"
    )
}

/// A formula system from its description: a Lagrangian (`lagrangian`: `Some` with a system
/// file's own keys, which `--discretization` and `--constraint` replace) or a Hamiltonian
/// (`None`), which takes none of a Lagrangian's settings.
fn formula_system(
    f: &RunFile,
    expr: ExprSpec,
    lagrangian: Option<system_file::LagrangianKeys>,
) -> Result<System> {
    use crate::system::lagrangian::{Discretization, LagrangianSpec};
    let rule = |name: Option<&str>| name.map(Discretization::from_name).transpose();
    match lagrangian {
        Some(file) => System::from_lagrangian(LagrangianSpec {
            expr,
            discretization: rule(f.discretization.as_deref())?
                .or(rule(file.discretization.as_deref())?)
                .unwrap_or(Discretization::DEFAULT),
            momentum: f.momentum.clone(),
            velocities: f.velocities.unwrap_or(false),
            constraints: f
                .constraints
                .clone()
                .or(file.constraints)
                .unwrap_or_default(),
        }),
        None if lagrangian_only(f) => Err(no_discretization()),
        None => System::from_expression(expr),
    }
}

/// The system: a built-in one by name (`--system`), a formula (`--hamiltonian`, with `--dof`
/// and config.toml's record of a formula system), or a system file (`--system-file`); exactly
/// one of them, and `--param`s for it.
pub fn resolve_system(f: &RunFile) -> Result<System> {
    let given = f.params.clone().unwrap_or_default();
    let chosen = [
        f.system.is_some(),
        f.hamiltonian.is_some(),
        f.lagrangian.is_some(),
        f.system_file.is_some(),
    ];
    if chosen.iter().filter(|&&c| c).count() > 1 {
        return Err(invalid!(Field::System;
            Field::System,
            ", ",
            Field::Hamiltonian,
            ", ",
            Field::Lagrangian,
            " and ",
            Field::SystemFile,
            " each choose the system: give one of them"
        ));
    }
    let formula_keys =
        f.system_name.is_some() || f.default_state.is_some() || f.coordinates.is_some();
    if let Some(path) = &f.system_file {
        if formula_keys {
            return Err(invalid!(Field::SystemFile;
                "system_name, default_state and coordinates come from the ",
                Field::SystemFile.is(path.display()),
                "; drop them from the settings"
            ));
        }
        let (spec, formula) = system_file::load(path, &given, f.dof)?;
        return match formula {
            system_file::Formula::Lagrangian(keys) => formula_system(f, spec, Some(keys)),
            system_file::Formula::Hamiltonian => formula_system(f, spec, None),
        };
    }
    let lagrangian = f.lagrangian.as_ref().map(|l| (l, true));
    if let Some((formula, is_lagrangian)) =
        lagrangian.or(f.hamiltonian.as_ref().map(|h| (h, false)))
    {
        let default_name = match is_lagrangian {
            true => crate::system::lagrangian::DEFAULT_NAME,
            false => crate::system::expression::DEFAULT_NAME,
        };
        let spec = ExprSpec {
            name: f.system_name.clone().unwrap_or_else(|| default_name.into()),
            formula: formula.clone(),
            dof: f.dof,
            params: given,
            default_state: f.default_state.clone(),
            coordinates: f.coordinates.clone(),
        };
        return formula_system(f, spec, is_lagrangian.then(Default::default));
    }
    if lagrangian_only(f) {
        return Err(no_discretization());
    }
    let name = f.system.as_ref().ok_or_else(|| {
        invalid!(Field::System;
            Field::System,
            " is required (see `phaseflow list`), or give your own Hamiltonian with ",
            Field::Hamiltonian.is("EXPR"),
            " or ",
            Field::SystemFile.is("FILE.toml")
        )
    })?;
    if f.dof.is_some() || formula_keys {
        return Err(invalid!(Field::Dof;
            Field::Dof,
            " (and system_name, default_state, coordinates) apply to ",
            Field::Hamiltonian,
            " and ",
            Field::SystemFile,
            format!("; system '{name}' has its own")
        ));
    }
    System::new(name, &given)
}
