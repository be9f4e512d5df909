//! The measurements every snapshot takes, in the order of their stats.csv columns (after
//! step, t and points). A new column is a `Measurement` and one line here; new columns go
//! last, so that the older columns keep their positions.

use rayon::prelude::*;

use super::alignment::AlignmentColumns;
use super::area::Area;
use super::chaos::ChaosColumns;
use super::constraint::Constraint;
use super::distance::{GlobalError, ReturnError};
use super::energy::columns::{Energy, Escaped, Stayed, ANGULAR_MOMENTUM, DISCRETE_MOMENTUM};
use super::floor::Floors;
use super::measurement::{
    Cell, Column, Finish, Measurement, Part, Reads, RunSetup, Shape, Snapshot,
};
use super::modified::Modified;
use super::stopped::Stopped;
use super::tangent::Tangent;

pub static MEASUREMENTS: &[&dyn Measurement] = &[
    &Energy,
    &Area,
    &Tangent,
    &ANGULAR_MOMENTUM,
    &Unconverged,
    &Escaped,
    &Constraint,
    &Stayed,
    &GlobalError,
    &ReturnError,
    &Modified,
    &ChaosColumns,
    &Floors,
    &DISCRETE_MOMENTUM,
    &AlignmentColumns,
    &Stopped,
];

/// The columns (stats.csv) these measurements fill.
pub const UNCONVERGED: Column = Column::count("unconverged");

/// Points whose implicit solve (non-separable H, implicit midpoint) hit the iteration cap at
/// least once since t = 0 (counted per point by the kernels; always 0 for explicit ones).
pub struct Unconverged;

impl Measurement for Unconverged {
    fn name(&self) -> &'static str {
        "unconverged"
    }

    fn columns(&self) -> &'static [Column] {
        &[UNCONVERGED]
    }

    fn shape(&self) -> Shape {
        Shape::Sum
    }

    fn reads(&self) -> Reads {
        Reads::StateOnDevice
    }

    fn taken(&self, _run: &RunSetup) -> bool {
        true
    }

    fn measure(&self, at: &Snapshot) -> Part {
        Part::Sum(on_state!(at.state, s => s
            .unconverged
            .par_chunks(1 << 16)
            .map(|c| c.iter().filter(|&&u| u > 0).count() as u64)
            .sum()))
    }

    fn finish(&self, at: &Finish) -> Vec<Cell> {
        vec![Cell::Count(Some(at.part(self).sum()))]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::floor::StepError;
    use crate::measure::row::{columns, needs_host_state};

    /// Names identify the measurements' parts, and column names the cells: both unique.
    #[test]
    fn names_and_columns_are_unique() {
        let mut names: Vec<&str> = MEASUREMENTS.iter().map(|m| m.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), MEASUREMENTS.len());
        let mut cols: Vec<&str> = columns().iter().map(|c| c.name).collect();
        cols.extend(["step", "t", "points"]);
        cols.sort();
        cols.dedup();
        assert_eq!(cols.len(), columns().len() + 3);
    }

    use crate::measure::measurement::Reads;
    use crate::system::{System, CATALOGUE};

    /// A plain run's measurements: a filled ensemble without `--tangent`, `--reference`,
    /// `--reverse`, `--modified-hamiltonian` or `--chaos` (the runs the GPU's energy
    /// reduction serves).
    fn plain(system: &System) -> RunSetup<'_> {
        RunSetup {
            system,
            tangent: false,
            loop_area: None,
            filled_area: None,
            reference: false,
            reverse: None,
            modified: None,
            chaos: None,
            stops: None,
            dt: 0.1,
            step_error: StepError::new(f64::EPSILON / 2.0, false, 0.1, None),
        }
    }

    #[test]
    fn a_measurement_reads_parts_exactly_when_its_shape_is_derived() {
        for m in MEASUREMENTS {
            assert_eq!(
                m.reads() == Reads::Parts,
                m.shape() == Shape::Derived,
                "{}: reads {:?}, shape {:?}",
                m.name(),
                m.reads(),
                m.shape()
            );
        }
    }

    /// A measurement every plain run takes must not read the host state: if it did, a GPU run
    /// would read its state back at every snapshot and the energy statistics reduced on the
    /// device would save nothing.
    #[test]
    fn no_always_on_measurement_turns_off_the_device_energy_reduction() {
        let systems: Vec<System> = CATALOGUE
            .iter()
            .map(|info| System::new(info.name, &Default::default()).unwrap())
            .collect();
        let always_on: Vec<&str> = MEASUREMENTS
            .iter()
            .filter(|m| systems.iter().all(|s| m.taken(&plain(s))))
            .filter(|m| m.reads() == Reads::HostState)
            .map(|m| m.name())
            .collect();
        assert!(
            always_on.is_empty(),
            "taken by every run and read on the host: {always_on:?}; a GPU run would read its \
             state back at every snapshot for them. Take them only when asked for, take them on \
             the device (Reads::StateOnDevice, in the engine's Acceleration), or finish them \
             from other measurements' parts (Shape::Derived)"
        );
        let pendulum = &systems[CATALOGUE.iter().position(|s| s.name == "pendulum").unwrap()];
        assert!(!needs_host_state(&plain(pendulum), true));
        assert!(needs_host_state(&plain(pendulum), false));
    }
}
