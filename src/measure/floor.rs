//! Rounding floors: per measured quantity, the smallest deviation the run's own arithmetic
//! can resolve, computed from the run itself (docs/output-files.md, "Rounding floors").
//! A deviation at or below its floor says nothing about the method: rounding alone can make it.
//!
//! Every floor is the relative error one step leaves in a stored component (`StepError`),
//! accumulated over the steps, times how far that moves the quantity at this snapshot (its
//! conditioning: |H| for the energy, `tangent::det_conditioning` for `det_mean`,
//! `area::area_rounding_scale` for a loop's area).

use super::area::{measured_of, Area};
use super::energy::columns::{stats_of as energy_stats_of, Energy};
use super::measurement::{
    Cell, Column, Finish, Measurement, Part, RunSetup, Shape, Snapshot, Summary,
};
use super::tangent::{stats_of as tangent_stats_of, Tangent};

/// The relative error one step leaves in each stored component, and how it accumulates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StepError {
    /// Its size.
    pub size: f64,
    /// Whether it is the implicit solver's tolerance (larger than the rounding).
    pub from_solver: bool,
    /// Whether the steps' errors accumulate as a random walk (√steps) rather than linearly.
    pub random_walk: bool,
}

impl StepError {
    /// A step's error from the unit roundoff `unit` of the state's precision (2⁻²⁴ for f32,
    /// 2⁻⁵³ for f64):
    /// - plain arithmetic: `unit`, accumulating linearly. A small step's increment is far
    ///   below the state it is added to, and its rounding is correlated from one step to the
    ///   next along a smooth motion, so the errors need not cancel: n · u bounds them.
    /// - compensated summation: the sum's rounding is carried, and only each increment's own
    ///   rounding remains, a fraction of about |h| of the state for motions of unit frequency
    ///   (Kahan, "Further remarks on reducing truncation errors"): `unit · min(1, |h|)`,
    ///   accumulating as a random walk (Henrici, "Discrete Variable Methods in Ordinary
    ///   Differential Equations", ch. 5).
    /// - the implicit stages' tolerance `solver_tol` where it is larger (a converged iterate
    ///   moves by at most that, relatively), as a random walk too.
    pub fn new(unit: f64, compensated: bool, dt: f64, solver_tol: Option<f64>) -> Self {
        let rounding = if compensated {
            unit * dt.abs().min(1.0)
        } else {
            unit
        };
        match solver_tol {
            Some(tol) if tol > rounding => StepError {
                size: tol,
                from_solver: true,
                random_walk: true,
            },
            _ => StepError {
                size: rounding,
                from_solver: false,
                random_walk: compensated,
            },
        }
    }

    /// The error accumulated over `step` steps (at least one: the initial state is rounded too).
    pub fn after(&self, step: u64) -> f64 {
        let n = step.max(1) as f64;
        self.size * if self.random_walk { n.sqrt() } else { n }
    }
}

/// The columns (stats.csv) the floors fill.
pub const ENERGY_FLOOR: Column = Column::real("energy_floor").summarised(Summary::Max);
pub const DET_FLOOR: Column = Column::real("det_floor").summarised(Summary::Max);
pub const AREA_FLOOR: Column = Column::real("area_floor").summarised(Summary::Max);

/// The spread of H the energy floor scales with: |mean H| plus three standard deviations,
/// which most points' |H| stay below.
const ENERGY_SPREAD: f64 = 3.0;

/// The rounding floors of the energy error (energy units, against `abs_energy_err_max`),
/// of det DΦⁿ − 1 (`--tangent`) and of the loop's area ratio − 1 (loops), from the other
/// measurements' parts at each snapshot: merged shards' floors are the whole run's, bit for bit.
pub struct Floors;

impl Measurement for Floors {
    fn name(&self) -> &'static str {
        "floors"
    }

    fn columns(&self) -> &'static [Column] {
        &[ENERGY_FLOOR, DET_FLOOR, AREA_FLOOR]
    }

    fn shape(&self) -> Shape {
        Shape::Derived
    }

    fn taken(&self, _run: &RunSetup) -> bool {
        true
    }

    fn measure(&self, _at: &Snapshot) -> Part {
        Part::Derived
    }

    fn finish(&self, at: &Finish) -> Vec<Cell> {
        let grown = at.run.step_error.after(at.step);
        let energy = energy_stats_of(
            at.part(&Energy),
            crate::measure::stopped::running_points(at),
        );
        let energy_floor = energy
            .energy_mean
            .zip(energy.energy_std)
            .map(|(mean, std)| grown * (mean.abs() + ENERGY_SPREAD * std));
        let det_floor = at
            .run
            .tangent
            .then(|| tangent_stats_of(at.part(&Tangent)).conditioning_mean)
            .flatten()
            .map(|c| grown * c)
            .filter(|f| f.is_finite());
        let area_floor = at
            .run
            .loop_area
            .and_then(|_| measured_of(at.part(&Area)))
            .map(|m| (grown * m.rounding_scale + m.discretisation) / m.area.abs());
        vec![
            Cell::Real(energy_floor),
            Cell::Real(det_floor),
            Cell::Real(area_floor.filter(|f| f.is_finite())),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_error_is_the_precision_the_compensation_or_the_solver() {
        let f32_unit = f64::from(f32::EPSILON) / 2.0;
        let plain = StepError::new(f32_unit, false, 0.01, None);
        assert_eq!((plain.size, plain.from_solver), (f32_unit, false));
        assert_eq!(plain.after(0), f32_unit);
        assert_eq!(plain.after(10_000), f32_unit * 10_000.0);
        let compensated = StepError::new(f32_unit, true, 0.01, None);
        assert_eq!(compensated.size, f32_unit * 0.01);
        assert_eq!(compensated.after(10_000), f32_unit * 0.01 * 100.0);
        let solver = StepError::new(f32_unit, false, 0.01, Some(4e-7));
        assert_eq!((solver.size, solver.from_solver), (4e-7, true));
        assert_eq!(solver.after(100), 4e-6);
        let tight = StepError::new(f32_unit, false, 0.01, Some(1e-9));
        assert!(!tight.from_solver);
    }
}
