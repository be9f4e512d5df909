//! The modified Hamiltonian's error columns (`--modified-hamiltonian K`): H̃_K(z_n) − H̃_K(z_0)
//! per point, with the statistics of the H columns (`EnergyAccumulator`), H̃ evaluated in f64
//! on the host state (read back from either engine), as H is.

use super::energy::columns::{energy_part, stats_of, ACCUMULATOR_WORDS};
use super::energy::{chunk_accumulators_running, energies, EnergyFunction};
use crate::expr::modified::ModifiedEnergy;
use crate::float::Real;
use crate::measure::measurement::{
    Cell, Column, Finish, Measurement, Part, Reads, RunSetup, Shape, Snapshot, Summary,
};
use crate::state::State;

impl EnergyFunction for ModifiedEnergy {
    fn energy_block<T: Real>(&self, q: &[T], p: &[T], n: usize, first: usize, out: &mut [f64]) {
        ModifiedEnergy::energy_block(self, q, p, n, first, out)
    }
}

/// H̃ of every point of the state: the initial values the columns are measured from.
pub fn modified_energies<T: Real>(m: &ModifiedEnergy, s: &State<T>) -> Vec<f64> {
    energies(m, s)
}

/// The columns (stats.csv; the maxima also in summary.csv, their largest over the run).
pub const MOD_ABS_ERR_MAX: Column = Column::real("mod_abs_energy_err_max").summarised(Summary::Max);
pub const MOD_ABS_ERR_MEAN: Column = Column::real("mod_abs_energy_err_mean");
pub const MOD_REL_ERR_MAX: Column = Column::real("mod_rel_energy_err_max").summarised(Summary::Max);

/// |H̃_K − H̃_K(z0)| over the finite points: its largest and mean, and the largest relative.
pub struct Modified;

impl Measurement for Modified {
    fn name(&self) -> &'static str {
        "modified"
    }

    fn columns(&self) -> &'static [Column] {
        &[MOD_ABS_ERR_MAX, MOD_ABS_ERR_MEAN, MOD_REL_ERR_MAX]
    }

    fn shape(&self) -> Shape {
        Shape::Chunks(ACCUMULATOR_WORDS)
    }

    fn reads(&self) -> Reads {
        Reads::HostState
    }

    fn taken(&self, run: &RunSetup) -> bool {
        run.modified.is_some()
    }

    fn measure(&self, at: &Snapshot) -> Part {
        let Some(m) = at.run.modified else {
            return Part::Chunks(Vec::new());
        };
        let h0 = &at.per_point.mod_h0;
        let stops = at.run.stops;
        energy_part(&on_state!(at.state, s => chunk_accumulators_running(m, s, h0, stops)))
    }

    fn finish(&self, at: &Finish) -> Vec<Cell> {
        let s = stats_of(at.part(self), crate::measure::stopped::running_points(at));
        vec![
            Cell::Real(s.abs_energy_err_max),
            Cell::Real(s.abs_energy_err_mean),
            Cell::Real(s.rel_energy_err_max),
        ]
    }

    fn announce(&self, run: &RunSetup) {
        if let Some(m) = run.modified {
            crate::info!(
                "phaseflow: mod_* columns: the modified Hamiltonian with {} correction term{} (--modified-hamiltonian), from each point's initial value",
                m.terms,
                if m.terms == 1 { "" } else { "s" }
            );
        }
    }
}
