//! The `stopped` column (`--stop-when`, `observe::stop`): the points stopped by a condition
//! at the snapshot, from the stop words the state carries. The energy statistics are taken
//! over the other points only (`running_points`, `energy::chunk_accumulators_running`).

use rayon::prelude::*;

use super::measurement::{
    Cell, Column, Finish, Measurement, Part, Reads, RunSetup, Shape, Snapshot,
};
use crate::state::stop_words::stopped_at;

pub const STOPPED: Column = Column::count("stopped");

/// Its name among the measurements.
pub const NAME: &str = "stopped";

/// Points stopped by a `--stop-when` condition.
pub struct Stopped;

impl Measurement for Stopped {
    fn name(&self) -> &'static str {
        NAME
    }

    fn columns(&self) -> &'static [Column] {
        &[STOPPED]
    }

    fn shape(&self) -> Shape {
        Shape::Sum
    }

    fn reads(&self) -> Reads {
        Reads::HostState
    }

    fn taken(&self, run: &RunSetup) -> bool {
        run.stops.is_some()
    }

    fn measure(&self, at: &Snapshot) -> Part {
        let Some(column) = at.run.stops else {
            return Part::Sum(0);
        };
        Part::Sum(on_state!(at.state, s => (0..s.n)
            .into_par_iter()
            .filter(|&i| stopped_at(s, column, i))
            .count() as u64))
    }

    fn finish(&self, at: &Finish) -> Vec<Cell> {
        vec![Cell::Count(at.run.stops.map(|_| at.part(self).sum()))]
    }
}

/// The snapshot's points that are still running (all of them without `--stop-when`): what
/// the energy statistics count.
pub fn running_points(at: &Finish) -> u64 {
    at.parts.points - at.part(&Stopped).sum()
}
