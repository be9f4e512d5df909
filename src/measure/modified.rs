//! The modified Hamiltonian's error columns (`--modified-hamiltonian K`): H̃_K(z_n) − H̃_K(z_0)
//! per point, with the statistics of the H columns (`EnergyAccumulator`), H̃ evaluated in f64
//! on the host state (read back from either engine), as H is.

use rayon::prelude::*;

use super::energy::columns::{energy_part, stats_of, ACCUMULATOR_WORDS};
use super::energy::{EnergyAccumulator, CHUNK};
use crate::expr::modified::ModifiedEnergy;
use crate::float::Real;
use crate::measure::measurement::{
    Cell, Column, Finish, Measurement, Part, RunSetup, Shape, Snapshot, Summary,
};
use crate::state::State;

/// H̃ of points `first..first + out.len()`, in f64 with a compensated state's carried errors.
fn chunk<T: Real>(m: &ModifiedEnergy, s: &State<T>, first: usize, out: &mut [f64]) {
    let len = out.len();
    let gather = |at: &dyn Fn(usize) -> f64| -> Vec<f64> {
        (0..s.d)
            .flat_map(|k| (first..first + len).map(move |i| k * s.n + i))
            .map(at)
            .collect()
    };
    let (q, p) = (gather(&|i| s.q_f64(i)), gather(&|i| s.p_f64(i)));
    m.energy_block(&q, &p, len, 0, out);
}

/// H̃ of every point of the state: the initial values the columns are measured from.
pub fn modified_energies<T: Real>(m: &ModifiedEnergy, s: &State<T>) -> Vec<f64> {
    let mut h = vec![0.0; s.n];
    h.par_chunks_mut(CHUNK)
        .enumerate()
        .for_each(|(c, out)| chunk(m, s, c * CHUNK, out));
    h
}

/// The accumulators of the state's chunks of `CHUNK` points in point order, against `h0`
/// (as `energy::chunk_accumulators` for H, so shards and ranks merge alike).
fn accumulators<T: Real>(m: &ModifiedEnergy, s: &State<T>, h0: &[f64]) -> Vec<EnergyAccumulator> {
    (0..s.n.div_ceil(CHUNK))
        .into_par_iter()
        .map_init(
            || vec![0.0; CHUNK],
            |buf, c| {
                let first = c * CHUNK;
                let h = &mut buf[..CHUNK.min(s.n - first)];
                chunk(m, s, first, h);
                EnergyAccumulator::from_chunk(h, &h0[first..first + h.len()])
            },
        )
        .collect()
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

    fn taken(&self, run: &RunSetup) -> bool {
        run.modified.is_some()
    }

    fn measure(&self, at: &Snapshot) -> Part {
        let Some(m) = at.run.modified else {
            return Part::Chunks(Vec::new());
        };
        let h0 = &at.per_point.mod_h0;
        energy_part(&on_state!(at.state, s => accumulators(m, s, h0)))
    }

    fn finish(&self, at: &Finish) -> Vec<Cell> {
        let s = stats_of(at.part(self), at.parts.points);
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
