//! The `constraint_err_max` column: how far the discrete velocities of a nonholonomic
//! (variational) system's points violate its continuous constraints
//! (`DiscreteMap::constraint_error`, evaluated where the discrete constraint is), or how far
//! a constrained Lagrangian's positions are off g(q) = 0.

use rayon::prelude::*;

use crate::float::Real;
use crate::measure::measurement::{
    Cell, Column, Finish, Measurement, Part, Reads, RunSetup, Shape, Snapshot, Summary,
};
use crate::state::State;
use crate::system::System;

/// max over the finite points of the constraint violation (`DiscreteMap::constraint_error`),
/// None for systems without constraints or without finite points; with `stops` (the stop
/// words' column, `--stop-when`) over the points still running only. Exact maximum, so the
/// order of the parallel reduction does not matter.
pub fn constraint_err_max<T: Real>(
    system: &System,
    dt: f64,
    s: &State<T>,
    stops: Option<usize>,
) -> Option<f64> {
    if !system.measures_constraints() {
        return None;
    }
    let d = s.d;
    (0..s.n)
        .into_par_iter()
        .map_init(
            || (vec![0.0; d], vec![0.0; d]),
            |(q, v), i| {
                if stops.is_some_and(|c| crate::state::stop_words::stopped_at(s, c, i)) {
                    return None;
                }
                s.point_f64(i, q, v);
                system.constraint_error(dt, q, v).filter(|e| e.is_finite())
            },
        )
        .flatten()
        .reduce_with(f64::max)
}

/// The column (stats.csv and summary.csv).
pub const CONSTRAINT_ERR_MAX: Column = Column::real("constraint_err_max").summarised(Summary::Max);

/// The constraint violation of nonholonomic systems' points (the largest over the finite
/// points), in stats.csv and, as its largest over the snapshots, in summary.csv.
pub struct Constraint;

impl Measurement for Constraint {
    fn name(&self) -> &'static str {
        "constraint"
    }

    fn columns(&self) -> &'static [Column] {
        &[CONSTRAINT_ERR_MAX]
    }

    fn shape(&self) -> Shape {
        Shape::Max
    }

    fn reads(&self) -> Reads {
        Reads::HostState
    }

    fn taken(&self, run: &RunSetup) -> bool {
        run.system.measures_constraints()
    }

    fn measure(&self, at: &Snapshot) -> Part {
        let (system, dt) = (at.run.system, at.run.dt);
        Part::Max(on_state!(at.state, s => constraint_err_max(system, dt, s, at.run.stops)))
    }

    fn finish(&self, at: &Finish) -> Vec<Cell> {
        vec![Cell::Real(at.part(self).max())]
    }
}
