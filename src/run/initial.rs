//! The initial set as `run` needs it: the points in the run's precision, and for loop
//! ensembles what refinement needs of the f64 set.

use crate::config::RunConfig;
use crate::ensemble::{EnsembleKind, InitialSet};
use crate::error::Result;
use crate::float::Real;
use crate::measure::energy::{energies, RunEnergy};
use crate::state::State;
use crate::system::System;

/// The initial set as `run` needs it: the points in the run's precision, generated straight
/// into it (no f64 copy), and for loop ensembles what refinement needs of the f64 set.
pub(super) struct Initial<T: Real> {
    pub(super) state: State<T>,
    /// A file loop's rows, the polygon that refinement interpolates new nodes on (no points
    /// otherwise: the other loops compute theirs from the ensemble's parameters).
    pub(super) file_nodes: State<f64>,
    /// Bounding-box diagonal of the f64 initial set (loop ensembles; 0 otherwise).
    pub(super) diagonal: f64,
    /// H of every point as `state` holds it (checked finite): the runner's H0 where the
    /// statistics are reduced on the host.
    pub(super) h0: Vec<f64>,
}

impl<T: Real> Initial<T> {
    pub(super) fn generate(cfg: &RunConfig) -> Result<Self> {
        let (spec, system) = (&cfg.ensemble, &cfg.system);
        let none = State::zeros(0, system.dof());
        if !spec.is_loop() {
            let range = match cfg.shard.or(cfg.rank) {
                Some(shard) => shard.range(spec.points)?,
                None => 0..spec.points,
            };
            let (state, note) = match cfg.compensated {
                // The f64 points split into pairs (`State::convert_pairs`): held in f64 for
                // the moment, the size the pairs take anyway.
                true => {
                    let (points, note) = spec.generate_noted::<f64>(system, cfg.dt, range)?;
                    (points.convert_pairs(), note)
                }
                false => spec.generate_noted(system, cfg.dt, range)?,
            };
            // H0 is taken below, from the points as they start: after the projection. A grid
            // on an energy surface marks the points off it (all NaN: `ensemble::plane`).
            let h0 = match spec.set {
                InitialSet::Grid { ref plane, .. } if plane.energy.is_some() => {
                    off_surface(system, cfg.dt, &state)
                }
                _ => finite_energies(system, cfg.dt, &state)?,
            };
            if let Some(note) = note {
                crate::info!("phaseflow: {}", note.describe(system.name()));
            }
            return Ok(Initial {
                state,
                file_nodes: none,
                diagonal: 0.0,
                h0,
            });
        }
        let init = spec.generate(system, cfg.dt)?;
        if system.lagrangian().is_some_and(|l| l.holonomic.is_some()) {
            crate::info!(
                "phaseflow: every node of the loop, and every node refinement adds, is put on the constraints of {} before it runs (the position to the nearest point on them, the momentum tangent to them)",
                system.name()
            );
        }
        let diagonal = bbox_diagonal(&init);
        let state = start_state(cfg, &init);
        let h0 = finite_energies(system, cfg.dt, &state)?;
        Ok(Initial {
            state,
            file_nodes: if keeps_nodes(cfg) { init } else { none },
            diagonal,
            h0,
        })
    }
}

/// The f64 points `points` in the run's precision, as its engines start them: a compensated
/// run's carry what rounding to `T` lost in their error terms (`State::convert_pairs`).
pub(super) fn start_state<T: Real>(cfg: &RunConfig, points: &State<f64>) -> State<T> {
    match cfg.compensated {
        true => points.convert_pairs(),
        false => points.convert(),
    }
}

/// A file loop: refinement interpolates on its initial rows, so the run keeps them.
fn keeps_nodes(cfg: &RunConfig) -> bool {
    cfg.ensemble.is_loop() && cfg.ensemble.kind() == EnsembleKind::File
}

/// A file loop's initial rows (no points for the other sets): what a resumed run, which
/// does not generate its initial set again, gives refinement.
pub(super) fn file_loop_nodes(cfg: &RunConfig) -> Result<State<f64>> {
    if keeps_nodes(cfg) {
        return cfg.ensemble.generate(&cfg.system, cfg.dt);
    }
    Ok(State::zeros(0, cfg.system.dof()))
}

/// H of every point, refusing an initial set with a point where H is not finite (a
/// singularity of the Hamiltonian, e.g. `1/q` at q = 0): its energy error would be
/// meaningless from the start.
fn finite_energies<T: Real>(system: &System, dt: f64, state: &State<T>) -> Result<Vec<f64>> {
    let h = energies(&RunEnergy { system, dt }, state);
    let Some(i) = h.iter().position(|x| !x.is_finite()) else {
        return Ok(h);
    };
    let (mut q, mut p) = (vec![0.0; state.d], vec![0.0; state.d]);
    state.point_f64(i, &mut q, &mut p);
    use crate::error::Field;
    Err(crate::invalid!(Field::Center;
        format!(
            "H = {} at initial point {} (q = {q:?}, p = {p:?}): the Hamiltonian of '{}' is not finite there; move the initial set (",
            h[i],
            i + 1,
            system.name()
        ),
        Field::Center, ", ", Field::Radius, ", ", Field::Lo, "/", Field::Hi, ", ", Field::Input,
        ") away from its singularities",
    ))
}

/// H of every point of a grid on an energy surface, saying how many of its points lie off
/// it (marked NaN by the generator: no real p1 there).
fn off_surface<T: Real>(system: &System, dt: f64, state: &State<T>) -> Vec<f64> {
    let h = energies(&RunEnergy { system, dt }, state);
    let off = h.iter().filter(|x| !x.is_finite()).count();
    if off > 0 {
        crate::info!(
            "phaseflow: {off} of {} grid points have no p1 >= 0 on the energy surface; they are NaN in the states and take part in no statistic",
            state.n
        );
    }
    h
}

/// Bounding-box diagonal of the points' (q, p) in f64.
fn bbox_diagonal<T: Real>(s: &State<T>) -> f64 {
    let (n, d) = (s.n, s.d);
    let mut sum = 0.0;
    for arr in [&s.q, &s.p] {
        for k in 0..d {
            let v = &arr[k * n..(k + 1) * n];
            let lo = v.iter().map(|x| x.to_f64()).fold(f64::INFINITY, f64::min);
            let hi = v
                .iter()
                .map(|x| x.to_f64())
                .fold(f64::NEG_INFINITY, f64::max);
            sum += (hi - lo) * (hi - lo);
        }
    }
    sum.sqrt()
}
