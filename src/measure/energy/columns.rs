//! The energy measurements: `Energy` (H's statistics per snapshot, from the chunk
//! accumulators), the columns finished from the same parts (`Escaped`, `Stayed`), and the
//! momenta followed per point (`Conserved`: `ANGULAR_MOMENTUM`, `DISCRETE_MOMENTUM`).

use super::RunEnergy;
use super::{
    ang_mom_err_max, chunk_accumulators_running, fold_in_order, EnergyAccumulator, EnergyStats,
};
use crate::measure::measurement::{
    Cell, Column, Finish, Measurement, Part, Reads, RunSetup, Shape, Snapshot,
};

/// Words of `EnergyAccumulator::to_words`.
pub const ACCUMULATOR_WORDS: usize = 12;

impl EnergyAccumulator {
    /// The accumulator as words (counts as they are, floats as their IEEE bits): exact, for a
    /// shard's parts files and MPI messages (`measure::row::RowParts`).
    pub fn to_words(&self) -> [u64; ACCUMULATOR_WORDS] {
        [
            self.finite,
            self.escaped,
            u64::from(self.counts_escaped),
            self.mean.to_bits(),
            self.m2.to_bits(),
            self.abs_err_sum.to_bits(),
            self.abs_err_max.to_bits(),
            self.rel_count,
            self.rel_err_sum.to_bits(),
            self.rel_err_max.to_bits(),
            self.stayed_abs_err_max.to_bits(),
            self.stayed_rel_err_max.to_bits(),
        ]
    }

    /// The accumulator `to_words` wrote.
    pub fn from_words(w: &[u64; ACCUMULATOR_WORDS]) -> Self {
        EnergyAccumulator {
            finite: w[0],
            escaped: w[1],
            counts_escaped: w[2] != 0,
            mean: f64::from_bits(w[3]),
            m2: f64::from_bits(w[4]),
            abs_err_sum: f64::from_bits(w[5]),
            abs_err_max: f64::from_bits(w[6]),
            rel_count: w[7],
            rel_err_sum: f64::from_bits(w[8]),
            rel_err_max: f64::from_bits(w[9]),
            stayed_abs_err_max: f64::from_bits(w[10]),
            stayed_rel_err_max: f64::from_bits(w[11]),
        }
    }
}

/// The columns (stats.csv) these measurements fill.
pub const FINITE: Column = Column::count("finite");
pub const ENERGY_MEAN: Column = Column::real("energy_mean");
pub const ENERGY_STD: Column = Column::real("energy_std");
pub const ABS_ERR_MEAN: Column = Column::real("abs_energy_err_mean");
pub const ABS_ERR_MAX: Column = Column::real("abs_energy_err_max");
pub const REL_ERR_MEAN: Column = Column::real("rel_energy_err_mean");
pub const REL_ERR_MAX: Column = Column::real("rel_energy_err_max");
pub const ESCAPED: Column = Column::count("escaped");
pub const STAYED_ABS_ERR_MAX: Column = Column::real("stayed_abs_energy_err_max");
pub const STAYED_REL_ERR_MAX: Column = Column::real("stayed_rel_energy_err_max");
pub const ANG_MOM_ERR_MAX: Column = Column::real("ang_mom_err_max");
pub const MOMENTUM_ERR_MAX: Column = Column::real("momentum_err_max");

/// The energy measurement's parts: chunk accumulators in point order (the host's chunks or
/// the device's workgroups).
pub fn energy_part(accs: &[EnergyAccumulator]) -> Part {
    Part::Chunks(accs.iter().flat_map(|a| a.to_words()).collect())
}

/// The energy statistics of `points` points from the energy measurement's parts (chunk
/// accumulators folded in order).
pub fn stats_of(part: &Part, points: u64) -> EnergyStats {
    let accs: Vec<EnergyAccumulator> = part
        .words()
        .chunks_exact(ACCUMULATOR_WORDS)
        .map(|c| EnergyAccumulator::from_words(c.try_into().unwrap()))
        .collect();
    EnergyStats::from_acc(&fold_in_order(&accs), points)
}

/// The energy statistics of a snapshot's merged parts.
fn stats(at: &Finish) -> EnergyStats {
    stats_of(
        at.part(&Energy),
        crate::measure::stopped::running_points(at),
    )
}

/// H's statistics over the finite points against their initial energies (PHYSICS.md §4).
pub struct Energy;

impl Measurement for Energy {
    fn name(&self) -> &'static str {
        "energy"
    }

    fn columns(&self) -> &'static [Column] {
        &[
            FINITE,
            ENERGY_MEAN,
            ENERGY_STD,
            ABS_ERR_MEAN,
            ABS_ERR_MAX,
            REL_ERR_MEAN,
            REL_ERR_MAX,
        ]
    }

    fn shape(&self) -> Shape {
        Shape::Chunks(ACCUMULATOR_WORDS)
    }

    fn reads(&self) -> Reads {
        Reads::StateOnDevice
    }

    fn taken(&self, _run: &RunSetup) -> bool {
        true
    }

    fn measure(&self, at: &Snapshot) -> Part {
        let e = RunEnergy {
            system: at.run.system,
            dt: at.run.dt,
        };
        let h0 = &at.per_point.h0;
        let stops = at.run.stops;
        energy_part(&on_state!(at.state, s => chunk_accumulators_running(&e, s, h0, stops)))
    }

    fn finish(&self, at: &Finish) -> Vec<Cell> {
        let s = stats(at);
        vec![
            Cell::Count(Some(s.finite)),
            Cell::Real(s.energy_mean),
            Cell::Real(s.energy_std),
            Cell::Real(s.abs_energy_err_mean),
            Cell::Real(s.abs_energy_err_max),
            Cell::Real(s.rel_energy_err_mean),
            Cell::Real(s.rel_energy_err_max),
        ]
    }
}

/// Points that escaped or are not finite (`ESCAPE_FACTOR`), from the energy's parts.
pub struct Escaped;

impl Measurement for Escaped {
    fn name(&self) -> &'static str {
        "escaped"
    }

    fn columns(&self) -> &'static [Column] {
        &[ESCAPED]
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
        vec![Cell::Count(stats(at).escaped)]
    }
}

/// The largest energy errors of the points that did not escape, from the energy's parts.
pub struct Stayed;

impl Measurement for Stayed {
    fn name(&self) -> &'static str {
        "stayed"
    }

    fn columns(&self) -> &'static [Column] {
        &[STAYED_ABS_ERR_MAX, STAYED_REL_ERR_MAX]
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
        let s = stats(at);
        vec![
            Cell::Real(s.stayed_abs_energy_err_max),
            Cell::Real(s.stayed_rel_energy_err_max),
        ]
    }
}

/// The largest change |L − L(z0)| over the finite points of a momentum the run follows per
/// point from t = 0 (`System::conserved`, its initial values in `PerPoint::l0`): the angular
/// momentum of the systems that conserve one (`ang_mom_err_max`), or a Lagrangian's discrete
/// momentum J = D₂L_d(q_{k−1}, q_k)·ξ_Q(q_k) of the symmetry `--momentum` generates
/// (`momentum_err_max`, the last column).
pub struct Conserved {
    name: &'static str,
    columns: &'static [Column],
    /// The Lagrangian's discrete momentum, not the angular momentum.
    discrete: bool,
}

pub static ANGULAR_MOMENTUM: Conserved = Conserved {
    name: "angular_momentum",
    columns: &[ANG_MOM_ERR_MAX],
    discrete: false,
};

pub static DISCRETE_MOMENTUM: Conserved = Conserved {
    name: "discrete_momentum",
    columns: &[MOMENTUM_ERR_MAX],
    discrete: true,
};

impl Measurement for Conserved {
    fn name(&self) -> &'static str {
        self.name
    }

    fn columns(&self) -> &'static [Column] {
        self.columns
    }

    fn shape(&self) -> Shape {
        Shape::Max
    }

    fn reads(&self) -> Reads {
        Reads::HostState
    }

    fn taken(&self, run: &RunSetup) -> bool {
        let zero = vec![0.0; run.system.dof()];
        match (self.discrete, run.system.lagrangian()) {
            (true, Some(l)) => l.momentum_map(&zero, &zero).is_some(),
            (true, None) => false,
            (false, _) => run.system.angular_momentum(&zero, &zero).is_some(),
        }
    }

    fn measure(&self, at: &Snapshot) -> Part {
        let (system, l0) = (at.run.system, &at.per_point.l0);
        Part::Max(if l0.is_empty() {
            None
        } else {
            on_state!(at.state, s => ang_mom_err_max(system, s, l0, at.run.stops))
        })
    }

    fn finish(&self, at: &Finish) -> Vec<Cell> {
        vec![Cell::Real(at.part(self).max())]
    }
}
