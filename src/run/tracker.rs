//! The run in progress (`Tracker`): the engine, what each point carries besides its state
//! (initial energy and angular momentum, loop parameter, tangent scale), and the snapshot
//! loop that advances, refines and measures.

use std::path::Path;

use rayon::prelude::*;

use crate::config::RunConfig;
use crate::engine::Engine;
use crate::ensemble::EnsembleKind;
use crate::error::Result;
use crate::float::Real;
use crate::measure::area::{loop_area, smooth_loop_area};
use crate::measure::energy::{
    ang_mom_err_max, angular_momenta, energies, row_from, snapshot_stats, EnergyRow,
};
use crate::measure::tangent::{renormalise, tangent_stats};
use crate::output::{npy, write_atomic, CsvRows};
use crate::state::State;

use super::initial::Initial;
use super::progress::{advance_with_progress, Progress};

/// Builds engines of the run's backend and precision (the main one, and the one refinement
/// uses to integrate inserted nodes from t = 0).
pub(super) type EngineFactory<'a, T> = dyn Fn(State<T>) -> Result<Box<dyn Engine<T>>> + 'a;

/// What the measurements need of each point besides its state, in the engine's point order
/// (refinement inserts new nodes into every vector at once).
#[derive(Default)]
pub(super) struct PerPoint {
    /// H(z0) per point, on the host (empty when the engine keeps it: `Tracker::device_energy`).
    pub(super) h0: Vec<f64>,
    /// Angular momentum L(z0) per point, for systems that conserve it (else empty).
    pub(super) l0: Vec<[f64; 3]>,
    /// Loop parameter s ∈ [0, 1) of every node, increasing around the loop (refined loops
    /// only, else empty).
    pub(super) s: Vec<f64>,
    /// Tangent columns are stored divided by 2^log2_scale (see measure::tangent); --tangent
    /// only, else empty.
    pub(super) log2_scale: Vec<f64>,
}

impl PerPoint {
    /// Append point `i` of `from` (its entries in the vectors `from` has).
    pub(super) fn push_from(&mut self, from: &PerPoint, i: usize) {
        self.s.push(from.s[i]);
        self.h0.push(from.h0[i]);
        self.l0.extend(from.l0.get(i));
        self.log2_scale.extend(from.log2_scale.get(i));
    }
}

/// A run in progress: the engine, and per point what the measurements need besides the state.
pub(super) struct Tracker<'a, T: Real> {
    pub(super) cfg: &'a RunConfig,
    pub(super) factory: &'a EngineFactory<'a, T>,
    pub(super) engine: Box<dyn Engine<T>>,
    /// Engine for inserted loop nodes (made on first use).
    pub(super) aux: Option<Box<dyn Engine<T>>>,
    /// A file loop's unrefined initial nodes (its polygon is defined by them); else no points.
    pub(super) file_nodes: State<f64>,
    pub(super) points: PerPoint,
    /// The engine reduces the energy statistics where the state lives (the GPU engine with
    /// f64, for filled ensembles without --tangent): the state is then read back only for what
    /// else needs it (angular momentum, single-point trajectories, portraits, --save-states).
    pub(super) device_energy: bool,
    /// Absolute refinement distance: tol × the initial loop's bounding-box diagonal.
    pub(super) refine_dist: Option<f64>,
    pub(super) capped_at: Option<u64>,
    /// Step at which a gap could not be refined (refinement stops there; see `refine`).
    pub(super) stuck_at: Option<u64>,
    pub(super) portraits: Vec<(u64, State<f64>)>,
    pub(super) trajectory: Vec<(f64, Vec<f64>)>,
}

impl<'a, T: Real> Tracker<'a, T> {
    pub(super) fn new(
        cfg: &'a RunConfig,
        init: Initial<T>,
        factory: &'a EngineFactory<'a, T>,
    ) -> Result<Self> {
        let n = init.state.n;
        let mut engine = factory(with_columns(cfg, init.state))?;
        // H(z0) of the points as the run's precision holds them (an f32 run starts from rounded
        // points): kept by the engine where it reduces the statistics itself. Loops (refinement
        // inserts nodes with their own H0) and --tangent (renormalised on the host) read the
        // state at every snapshot anyway.
        let device_energy =
            !cfg.ensemble.is_loop() && !cfg.tangent && engine.reduce_energy(true)?.is_some();
        let h0 = if device_energy {
            Vec::new()
        } else {
            energies(&cfg.system, engine.state()?)
        };
        let l0 = angular_momenta(&cfg.system, engine.state()?).unwrap_or_default();
        let refine_dist = cfg.refine.map(|r| r.tol * init.diagonal);
        Ok(Tracker {
            cfg,
            factory,
            engine,
            aux: None,
            file_nodes: init.file_nodes,
            points: PerPoint {
                h0,
                l0,
                s: match cfg.refine {
                    Some(_) => (0..n).map(|k| k as f64 / n as f64).collect(),
                    None => Vec::new(),
                },
                log2_scale: if cfg.tangent {
                    vec![0.0; n]
                } else {
                    Vec::new()
                },
            },
            device_energy,
            refine_dist,
            capped_at: None,
            stuck_at: None,
            portraits: Vec::new(),
            trajectory: Vec::new(),
        })
    }

    /// Advance between snapshots, measuring each into stats.csv as it is taken (flushed row
    /// by row, so an interrupted run keeps its rows); optionally save states.
    pub(super) fn snapshots(&mut self, out: &Path) -> Result<Vec<EnergyRow>> {
        let cfg = self.cfg;
        let mut area = AreaRatio::new(cfg);
        let mut pb = Progress::new(cfg.steps);
        let mut stats = CsvRows::create(&out.join("stats.csv"))?;
        let mut rows = Vec::new();
        let mut done = 0;
        for step in cfg.snapshot_steps() {
            self.advance_to(step, done, &mut pb)?;
            done = step;
            let device_row = self.device_row(step)?;
            let single = self.engine.points() == 1 && !cfg.ensemble.is_loop();
            let portrait = cfg.portrait_steps.contains(&step);
            if let Some(row) = &device_row {
                if self.points.l0.is_empty() && !single && !portrait && !cfg.save_states {
                    stats.push(row)?;
                    rows.push(row.clone());
                    continue; // nothing else needs the state: no read-back
                }
            }
            let state = self.engine.state()?;
            let mut row = device_row.unwrap_or_else(|| host_row(cfg, state, &self.points.h0, step));
            self.points.complete_row(cfg, &mut area, state, &mut row);
            stats.push(&row)?;
            rows.push(row);
            if single {
                let (mut q, mut p) = (vec![0.0; state.d], vec![0.0; state.d]);
                state.point_f64(0, &mut q, &mut p);
                q.extend(p);
                self.trajectory.push((step as f64 * cfg.dt, q));
            }
            if portrait {
                self.portraits.push((step, state.primal_f64()));
            }
            if cfg.save_states {
                write_atomic(
                    &out.join("states").join(format!("step_{step}.npy")),
                    &npy::encode_state(state),
                )?;
            }
        }
        pb.finish();
        Ok(rows)
    }

    /// Advance from step `done` to snapshot `step`, then refine a loop and renormalise the
    /// tangent columns there.
    fn advance_to(&mut self, step: u64, done: u64, pb: &mut Progress) -> Result<()> {
        let n = self.engine.points().max(1);
        let evals = self.cfg.evals_per_step();
        advance_with_progress(self.engine.as_mut(), step - done, n, evals, pb)?;
        self.refine(step)?;
        if self.cfg.tangent {
            let mut st = self.engine.state()?.clone();
            if renormalise(&mut st, &mut self.points.log2_scale) {
                self.engine.set_state(st)?;
            }
        }
        Ok(())
    }

    /// The energy statistics at `step` reduced on the device, where the engine does that
    /// (`device_energy`); `None` otherwise.
    fn device_row(&mut self, step: u64) -> Result<Option<EnergyRow>> {
        let device = if self.device_energy {
            self.engine.reduce_energy(false)?
        } else {
            None
        };
        Ok(device.map(|(acc, unconverged)| {
            let points = self.engine.points() as u64;
            let mut row = row_from(&acc, points, step, step as f64 * self.cfg.dt);
            row.unconverged = unconverged;
            row
        }))
    }
}

/// `state` with its tangent columns added when the run has --tangent.
pub(super) fn with_columns<T: Real>(cfg: &RunConfig, state: State<T>) -> State<T> {
    if cfg.tangent {
        state.with_tangent()
    } else {
        state
    }
}

/// The energy statistics at `step` measured on the host, with the count of points whose
/// implicit solves hit the cap.
fn host_row<T: Real>(cfg: &RunConfig, state: &State<T>, h0: &[f64], step: u64) -> EnergyRow {
    let mut row = snapshot_stats(&cfg.system, state, h0, step, cfg.dt);
    row.unconverged = state
        .unconverged
        .par_chunks(1 << 16)
        .map(|c| c.iter().filter(|&&u| u > 0).count() as u64)
        .sum();
    row
}

impl PerPoint {
    /// Add to `row` what is measured on the host besides the energy statistics: angular
    /// momentum error, loop area, tangent statistics.
    fn complete_row<T: Real>(
        &self,
        cfg: &RunConfig,
        area: &mut AreaRatio,
        state: &State<T>,
        row: &mut EnergyRow,
    ) {
        if !self.l0.is_empty() {
            row.ang_mom_err_max = ang_mom_err_max(&cfg.system, state, &self.l0);
        }
        if cfg.ensemble.is_loop() {
            area.measure(state, &self.s, row);
        }
        if cfg.tangent {
            let t = tangent_stats(state, &self.log2_scale);
            row.det_mean = t.det_mean;
            row.det_min = t.det_min;
            row.det_max = t.det_max;
            row.defect_max = t.defect_max;
            let filled_area = cfg.ensemble.filled_area(cfg.system.dof());
            row.area_from_det = filled_area.zip(t.det_mean).map(|(a, m)| a * m);
        }
    }
}

/// A loop's area at each snapshot and its ratio to the initial area.
struct AreaRatio {
    /// Circles and level curves are smooth: their area is measured with the curved
    /// correction (rectangles and file loops are polygons).
    smooth: bool,
    /// area_ratio's denominator: the initial set's exact area where it is known (circle,
    /// rectangle, level curve), else the step-0 polygon's (file loops), once measured.
    area0: Option<f64>,
}

impl AreaRatio {
    /// For loop ensembles, says on stderr what area_ratio is relative to.
    fn new(cfg: &RunConfig) -> Self {
        let exact0 = if cfg.ensemble.is_loop() {
            cfg.ensemble.exact_loop_area(&cfg.system)
        } else {
            None
        };
        if cfg.ensemble.is_loop() {
            crate::info!(
                "phaseflow: area_ratio = area / {}",
                match exact0 {
                    Some(a) => format!("the exact initial area {a:.15e}"),
                    None => "the step-0 polygon's area (no exact initial area known)".into(),
                }
            );
        }
        AreaRatio {
            smooth: matches!(
                cfg.ensemble.kind(),
                EnsembleKind::Circle | EnsembleKind::Level
            ),
            area0: exact0,
        }
    }

    /// Fill in the loop's area, area ratio and node count (`s`: the nodes' loop parameters).
    fn measure<T: Real>(&mut self, state: &State<T>, s: &[f64], row: &mut EnergyRow) {
        row.area = if self.smooth {
            smooth_loop_area(state, s)
        } else {
            loop_area(state)
        };
        if self.area0.is_none() && row.step == 0 {
            self.area0 = row.area;
        }
        row.area_ratio = row.area.zip(self.area0).map(|(a, a0)| a / a0);
        row.loop_nodes = Some(state.n as u64);
    }
}
