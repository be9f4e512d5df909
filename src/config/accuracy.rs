//! The settings that measure a run's accuracy against something other than H: `--reference
//! METHOD[/K]` (a reference solution beside the ensemble, for the global error) and
//! `--reverse` (the steps run back with −h, for the return error); and which runs may step
//! with a negative `--dt` or run back at all.

use crate::engine::Integrator;
use crate::error::{Error, Field, Message, Piece, Result};
use crate::method::{Method, Solver};
use crate::system::System;
use crate::{input_err, invalid};

use super::verdict::verdicts;
use super::{
    method_by_name_or_file, Backend, OutputDir, Precision, Refine, RunBuilder, RunConfig, RunFile,
};
use crate::cli::OrderArgs;

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
                let k = k
                    .parse::<u32>()
                    .ok()
                    .filter(|k| (1..=MAX_SUBSTEPS).contains(k));
                let k = k.ok_or_else(|| {
                    invalid!(Field::Reference;
                        Field::Reference.is(text),
                        format!(": the substeps K in METHOD/K run from 1 to {MAX_SUBSTEPS} (the reference step is dt/K), e.g. "),
                        Field::Reference.is("rk4/16"),
                    )
                })?;
                (name, k)
            }
            _ => (text, 1),
        };
        // The method's own messages name the method as an option (`method = NAME`); here the
        // method is the reference's, so it is named by itself.
        let reword = |e: crate::error::Error| {
            let e = match &e {
                crate::error::Error::Invalid { message, .. } => {
                    message.render(&|field, value| match (field, value) {
                        (crate::error::Field::Method, Some(value)) => value.to_string(),
                        (field, Some(value)) => format!("{} = {value}", field.name()),
                        (field, None) => field.name(),
                    })
                }
                other => other.to_string(),
            };
            let e = e.strip_prefix("--method ").unwrap_or(&e).to_string();
            invalid!(Field::Reference; Field::Reference.is(text), format!(": {e}"))
        };
        let method = method_by_name_or_file(name).map_err(reword)?;
        // A Lagrangian system's state is (q, p), so its own variational step at h/K is a
        // reference of the discrete Lagrangian's order.
        let lagrangian = system
            .lagrangian()
            .filter(|_| method == Method::Variational)
            .map(|l| l.spec.discretization.order());
        let order = lagrangian.map(Ok).unwrap_or_else(|| verdicts(method)?.map(|v| v.order).ok_or_else(|| {
            invalid!(Field::Reference;
                Field::Reference.is(text),
                ": the variational method advances a discrete Lagrangian's state (q, v), not the Hamiltonian state a reference solution is compared in; name a method with a tableau, e.g. rk4/16",
            )
        }))?;
        if order == 0 {
            return Err(invalid!(Field::Reference;
                Field::Reference.is(text),
                format!(": {} does not converge (its order conditions give order 0: the weights do not sum to 1), so it is no reference; name a convergent method, e.g. rk4/16 or gauss3/4", method.name()),
            ));
        }
        method.check_system(system).map_err(reword)?;
        Ok(Reference {
            method,
            substeps,
            text: text.to_string(),
        })
    }

    /// The reference's integrator for a run of step `dt` on `system`: f64, default solver
    /// (the method was checked against the system by `parse`).
    pub fn integrator(&self, system: &System, dt: f64) -> Integrator {
        Integrator::checked(
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
    let mut what: Vec<Piece> = match (dt < 0.0, reverse) {
        (true, true) => vec![
            "a negative ".into(),
            Field::Dt.into(),
            " and ".into(),
            Field::Reverse.into(),
        ],
        (true, false) => vec!["a negative ".into(), Field::Dt.into()],
        (false, true) => vec![Field::Reverse.into()],
        (false, false) => return Ok(()),
    };
    if method == Method::Variational {
        what.extend([
            ": the variational method's systems build their discrete Lagrangian for a positive step, and the state's v is a difference quotient over it; run the variational systems with a positive ".into(),
            Field::Dt.into(),
            " and without ".into(),
            Field::Reverse.into(),
        ]);
        let field = if dt < 0.0 { Field::Dt } else { Field::Reverse };
        return Err(Error::Invalid {
            field,
            message: Message(what),
        });
    }
    if reverse && refine.is_some() {
        return Err(invalid!(Field::Reverse;
            Field::Reverse,
            ": loop refinement integrates inserted nodes forward from t = 0, so a refined loop cannot be run back; add ",
            Field::Refine,
        ));
    }
    Ok(())
}

/// What `--reference` and `--reverse` cannot be combined with: loop refinement (inserted
/// nodes have no reference solution), and `--checkpoint-every` (the states such runs carry
/// beside the ensemble are not saved, so they keep no checkpoints).
pub fn check_beside(
    reference: bool,
    reverse: bool,
    refine: Option<Refine>,
    checkpoint_every: Option<u64>,
) -> Result<()> {
    if reference && refine.is_some() {
        return Err(invalid!(Field::Reference;
            Field::Reference,
            ": loop refinement inserts nodes that have no reference solution; add ",
            Field::Refine,
        ));
    }
    if (reference || reverse) && checkpoint_every.is_some() {
        return Err(invalid!(Field::CheckpointEvery;
            Field::CheckpointEvery,
            ": runs with ",
            Field::Reverse,
            " or ",
            Field::Reference,
            " keep no checkpoints (the initial states and the reference solution they carry are not saved); drop ",
            Field::CheckpointEvery,
        ));
    }
    Ok(())
}

/// Steps and times of a run that may go back (`--reverse`).
impl RunConfig {
    /// Steps the run takes: `steps`, twice that with `--reverse`.
    pub fn total_steps(&self) -> u64 {
        if self.reverse {
            2 * self.steps
        } else {
            self.steps
        }
    }

    /// The time at step `step`: with `--reverse` it runs back to 0 after `steps`.
    pub fn time_at(&self, step: u64) -> f64 {
        let forward = match self.reverse && step > self.steps {
            true => 2 * self.steps - step.min(2 * self.steps),
            false => step,
        };
        forward as f64 * self.dt
    }
}

/// `phaseflow order`: the method's run at the largest step h0 (f64, CPU engine), how many
/// times the step is halved, the reference solution and the folder.
#[derive(Debug, Clone)]
pub struct OrderJob {
    /// The run at h0 (`dt`) over `steps` steps: every halving covers the same time.
    pub config: RunConfig,
    pub halvings: u32,
    /// The reference: K (`substeps`) steps per step of the finest h.
    pub reference: Reference,
    pub out: OutputDir,
}

/// `order`'s defaults: steps at h0, halvings, and the reference (an explicit composition of
/// order 8 on separable H, serving every H).
pub const ORDER_STEPS: u64 = 100;
pub const ORDER_HALVINGS: u32 = 5;
pub const ORDER_REFERENCE: &str = "kahan-li8/4";
/// `order`'s reference for a Lagrangian system (`--lagrangian`), which has no Hamiltonian for
/// the methods with a tableau: its own discrete Lagrangian at h/256 (errors 256^p times
/// smaller than the finest h's).
pub const ORDER_REFERENCE_LAGRANGIAN: &str = "variational/256";
/// The most halvings, and the most steps the reference may take (h0's steps · 2^N · K).
pub const MAX_HALVINGS: u32 = 20;
pub const MAX_REFERENCE_STEPS: u64 = 1 << 36;

impl TryFrom<&OrderArgs> for OrderJob {
    type Error = crate::error::Error;

    fn try_from(a: &OrderArgs) -> Result<OrderJob> {
        let mut f = RunFile::default();
        f.lay_system(&a.system)?;
        f.lay_method(&a.method, &a.method_file);
        f.lay_ensemble(&a.ensemble)?;
        if let Some(e) = f.ensemble.as_mut().filter(|e| e.kind.is_none()) {
            e.kind = Some("point".into());
        }
        f.dt = a.dt;
        f.steps = Some(a.steps.unwrap_or(ORDER_STEPS));
        f.precision = Some(Precision::F64);
        f.backend = Some(Backend::Cpu);
        f.lay_solver(&a.solver);
        let path = a.out.clone().ok_or_else(|| {
            input_err!("--out DIR is required (the folder for order.csv and order.png/svg)")
        })?;
        let config = RunBuilder::from(f).build()?;
        if config.method == Method::Variational && config.system.lagrangian().is_none() {
            return Err(input_err!(
                "--method variational: its state (q, v) has no reference solution to converge to; order takes methods with a tableau on Hamiltonian systems"
            ));
        }
        let halvings = a.halvings.unwrap_or(ORDER_HALVINGS);
        if !(1..=MAX_HALVINGS).contains(&halvings) {
            return Err(input_err!(
                "--halvings {halvings}: give 1 to {MAX_HALVINGS} (a fit needs two step sizes at least)"
            ));
        }
        let default = match config.system.lagrangian() {
            Some(_) => ORDER_REFERENCE_LAGRANGIAN,
            None => ORDER_REFERENCE,
        };
        let reference =
            Reference::parse(a.reference.as_deref().unwrap_or(default), &config.system)?;
        let total = (config.steps << halvings).saturating_mul(u64::from(reference.substeps));
        if config.steps > MAX_REFERENCE_STEPS >> halvings || total > MAX_REFERENCE_STEPS {
            return Err(input_err!(
                "--steps {} × 2^{halvings} halvings × {} reference substeps is more than {MAX_REFERENCE_STEPS} reference steps; take fewer --steps, --halvings or substeps",
                config.steps,
                reference.substeps
            ));
        }
        Ok(OrderJob {
            config,
            halvings,
            reference,
            out: OutputDir {
                path,
                force: a.force,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::config::RunConfig;

    /// Past `steps` the time runs back only with `--reverse`: a run kept open
    /// (`run::OpenRun`) goes on forward beyond the steps its configuration names.
    #[test]
    fn the_time_runs_back_after_the_steps_only_with_reverse() {
        let b = RunConfig::builder("pendulum", "verlet")
            .ensemble("disk")
            .points(10)
            .dt(0.5)
            .steps(4);
        assert_eq!(b.clone().build().unwrap().time_at(6), 3.0);
        assert_eq!(b.reverse(true).build().unwrap().time_at(6), 1.0);
    }
}
