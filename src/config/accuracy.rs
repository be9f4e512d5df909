//! The settings that measure a run's accuracy against something other than H: `--reference
//! METHOD[/K]` (a reference solution beside the ensemble, for the global error) and
//! `--reverse` (the steps run back with −h, for the return error); and which runs may step
//! with a negative `--dt` or run back at all.

use crate::engine::Integrator;
use crate::error::Result;
use crate::input_err;
use crate::method::{Method, Solver};
use crate::system::System;

use super::verdict::verdicts;
use super::{method_by_name_or_file, Refine};

/// `--reference METHOD[/K]`: a reference solution of every point advanced beside the run in
/// f64 on the CPU engine, with METHOD and K steps of h/K per step of the run.
#[derive(Debug, Clone, PartialEq)]
pub struct Reference {
    pub method: Method,
    /// Reference steps per step of the run (the reference step is dt / K).
    pub substeps: u32,
    /// The setting as given (config.toml records it).
    pub text: String,
}

/// The most reference steps per step of the run.
pub const MAX_SUBSTEPS: u32 = 1 << 16;

impl Reference {
    /// `--reference` as given, for `system`: a convergent method (order ≥ 1 by its order
    /// conditions) that serves the system, and K from 1 to `MAX_SUBSTEPS` [default 1].
    pub fn parse(text: &str, system: &System) -> Result<Reference> {
        let (name, substeps) = match text.rsplit_once('/') {
            Some((name, k)) if !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()) => {
                let k = k.parse::<u32>().ok().filter(|k| (1..=MAX_SUBSTEPS).contains(k));
                let k = k.ok_or_else(|| {
                    input_err!(
                        "--reference {text}: the substeps K in METHOD/K run from 1 to {MAX_SUBSTEPS} (the reference step is dt/K), e.g. --reference rk4/16"
                    )
                })?;
                (name, k)
            }
            _ => (text, 1),
        };
        let method = method_by_name_or_file(name).map_err(|e| {
            input_err!("--reference {text}: {e} (the form is METHOD or METHOD/K, e.g. rk4/16)")
        })?;
        let order = verdicts(method)?.map(|v| v.order).ok_or_else(|| {
            input_err!(
                "--reference {text}: the variational method advances a discrete Lagrangian's state (q, v), not the Hamiltonian state a reference solution is compared in; name a method with a tableau, e.g. rk4/16"
            )
        })?;
        if order == 0 {
            return Err(input_err!(
                "--reference {text}: {} does not converge (its order conditions give order 0: the weights do not sum to 1), so it is no reference; name a convergent method, e.g. rk4/16 or gauss3/4",
                method.name()
            ));
        }
        method
            .check_system(system)
            .map_err(|e| input_err!("--reference {text}: {e}"))?;
        Ok(Reference {
            method,
            substeps,
            text: text.to_string(),
        })
    }

    /// The reference's integrator for a run of step `dt` on `system`: f64, default solver.
    pub fn integrator(&self, system: &System, dt: f64) -> Integrator {
        Integrator::new(
            system.clone(),
            self.method,
            dt / f64::from(self.substeps),
            Solver::default_for::<f64>(),
        )
    }
}

/// Which runs may step with a negative `--dt` or run back (`--reverse`): every method whose
/// step is a map of (q, p) given h, explicit or implicit (an implicit stage's fixed-point
/// iteration converges for −h as for h: it contracts with |h|). Not the variational method,
/// whose systems build their discrete Lagrangian (and rolling constraint) for the step given
/// and whose state (q, v) holds a difference quotient over it; nor a refined loop run back,
/// whose inserted nodes are integrated forward from t = 0 only.
pub fn check_direction(
    method: Method,
    dt: f64,
    reverse: bool,
    refine: Option<Refine>,
) -> Result<()> {
    let what = match (dt < 0.0, reverse) {
        (true, true) => "a negative --dt and --reverse",
        (true, false) => "a negative --dt",
        (false, true) => "--reverse",
        (false, false) => return Ok(()),
    };
    if method == Method::Variational {
        return Err(input_err!(
            "{what}: the variational method's systems build their discrete Lagrangian for a positive step, and the state's v is a difference quotient over it; run the variational systems with a positive --dt and without --reverse"
        ));
    }
    if reverse && refine.is_some() {
        return Err(input_err!(
            "--reverse: loop refinement integrates inserted nodes forward from t = 0, so a refined loop cannot be run back; add --no-refine"
        ));
    }
    Ok(())
}
