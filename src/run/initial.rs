//! The initial set as `run` needs it: the points in the run's precision, and for loop
//! ensembles what refinement needs of the f64 set.

use crate::config::RunConfig;
use crate::ensemble::EnsembleKind;
use crate::error::Result;
use crate::float::Real;
use crate::state::State;

/// The initial set as `run` needs it: the points in the run's precision, generated straight
/// into it (no f64 copy), and for loop ensembles what refinement needs of the f64 set.
pub(super) struct Initial<T: Real> {
    pub(super) state: State<T>,
    /// A file loop's rows, the polygon that refinement interpolates new nodes on (no points
    /// otherwise: the other loops compute theirs from the ensemble's parameters).
    pub(super) file_nodes: State<f64>,
    /// Bounding-box diagonal of the f64 initial set (loop ensembles; 0 otherwise).
    pub(super) diagonal: f64,
}

impl<T: Real> Initial<T> {
    pub(super) fn generate(cfg: &RunConfig) -> Result<Self> {
        let (spec, system) = (&cfg.ensemble, &cfg.system);
        let none = State::zeros(0, system.dof());
        if !spec.is_loop() {
            return Ok(Initial {
                state: spec.generate_as(system)?,
                file_nodes: none,
                diagonal: 0.0,
            });
        }
        let init = spec.generate(system)?;
        let diagonal = bbox_diagonal(&init);
        Ok(Initial {
            state: init.convert(),
            file_nodes: if spec.kind() == EnsembleKind::File {
                init
            } else {
                none
            },
            diagonal,
        })
    }
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
