//! The `constraint_err_max` column: how far the discrete velocities of a nonholonomic
//! (variational) system's points violate its continuous constraints
//! (`Hamiltonian::constraint_error`, evaluated where the discrete constraint is).

use rayon::prelude::*;

use crate::float::Real;
use crate::state::State;
use crate::system::System;

/// max over the finite points of the constraint violation (`Hamiltonian::constraint_error`),
/// None for systems without constraints or without finite points. Exact maximum, so the
/// order of the parallel reduction does not matter.
pub fn constraint_err_max<T: Real>(system: &System, s: &State<T>) -> Option<f64> {
    if !system.constrained() {
        return None;
    }
    let d = s.d;
    (0..s.n)
        .into_par_iter()
        .map_init(
            || (vec![0.0; d], vec![0.0; d]),
            |(q, v), i| {
                s.point_f64(i, q, v);
                system.constraint_error(q, v).filter(|e| e.is_finite())
            },
        )
        .flatten()
        .reduce_with(f64::max)
}
