//! The measurements every snapshot takes, in the order of their stats.csv columns (after
//! step, t and points). A new column is a `Measurement` and one line here; new columns go
//! last, so that the older columns keep their positions.

use rayon::prelude::*;

use super::area::Area;
use super::chaos::ChaosColumns;
use super::constraint::Constraint;
use super::distance::{GlobalError, ReturnError};
use super::energy::columns::{AngularMomentum, Energy, Escaped, Stayed};
use super::floor::Floors;
use super::measurement::{Cell, Column, Finish, Measurement, Part, RunSetup, Shape, Snapshot};
use super::modified::Modified;
use super::tangent::Tangent;

pub static MEASUREMENTS: &[&dyn Measurement] = &[
    &Energy,
    &Area,
    &Tangent,
    &AngularMomentum,
    &Unconverged,
    &Escaped,
    &Constraint,
    &Stayed,
    &GlobalError,
    &ReturnError,
    &Modified,
    &ChaosColumns,
    &Floors,
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
    use crate::measure::row::columns;

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
}
