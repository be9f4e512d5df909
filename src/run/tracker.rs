//! The run in progress (`Tracker`): the engine, what each point carries besides its state
//! (initial energy and angular momentum, loop parameter, tangent scale), and the snapshot
//! loop that advances, refines and measures.

use std::path::{Path, PathBuf};

use crate::checksum::crc32;
use crate::cluster::Peers;
use crate::config::{RunConfig, Store};
use crate::engine::{CpuEngine, Engine};
use crate::ensemble::EnsembleKind;
use crate::error::{Error, Result};
use crate::float::Real;
use crate::measure::chaos::indicator_rows;
use crate::measure::energy::angular_momenta;
use crate::measure::measurement::{HostState, LoopArea, Part, PerPoint, RunSetup, Snapshot};
use crate::measure::modified::modified_energies;
use crate::measure::parts::PartsFile;
use crate::measure::registry::MEASUREMENTS;
use crate::measure::row::{needs_host_state, Row, RowParts};
use crate::measure::tangent::renormalise;
use crate::output::{npy, write_atomic, CsvRows};
use crate::state::State;

use super::checkpoint::{Checkpoint, CheckpointRef, Checkpoints};
use super::initial::Initial;
use super::interrupt;
use super::memory::Kept;
use super::progress::{advance_with_progress, Progress};
use super::stops::with_columns;

/// Builds engines of the run's backend and precision (the main one, and the one refinement
/// uses to integrate inserted nodes from t = 0).
pub(super) type EngineFactory<'a, T> = dyn Fn(State<T>) -> Result<Box<dyn Engine<T>>> + 'a;

/// A run in progress: the engine, and per point what the measurements need besides the state.
pub(super) struct Tracker<'a, T: Real> {
    pub(super) cfg: &'a RunConfig,
    pub(super) factory: &'a EngineFactory<'a, T>,
    pub(super) engine: Box<dyn Engine<T>>,
    /// Engine for inserted loop nodes (made on first use).
    pub(super) aux: Option<Box<dyn Engine<T>>>,
    /// `--reference`: the reference solution's engine (CPU, f64), advanced beside `engine`.
    pub(super) reference: Option<CpuEngine<f64>>,
    /// A file loop's unrefined initial nodes (its polygon is defined by them); else no points.
    pub(super) file_nodes: State<f64>,
    pub(super) points: PerPoint,
    /// What the measurements know of the run.
    pub(super) setup: RunSetup<'a>,
    /// The engine takes measurements where the state lives (`Engine::acceleration`: the GPU
    /// engine with f64, for filled ensembles without --tangent): the state is then read back
    /// only for what else needs it (other measurements, single-point trajectories, portraits,
    /// --save-states).
    pub(super) accelerated: bool,
    /// Absolute refinement distance: tol × the initial loop's bounding-box diagonal.
    pub(super) refine_dist: Option<f64>,
    pub(super) capped_at: Option<u64>,
    /// Step at which a gap could not be refined (refinement stops there; see `refine`).
    pub(super) stuck_at: Option<u64>,
    pub(super) portraits: Vec<(u64, State<f64>)>,
    pub(super) trajectory: Vec<(f64, Vec<f64>)>,
    /// This process among the MPI ranks (rank 0 of 1 without MPI).
    pub(super) peers: Peers,
    /// A run without a folder: what it would write, kept in memory (`memory::Kept`).
    pub(super) kept: Option<Kept<T>>,
}

/// Where a resumed run continues: the checkpoint's step and the statistics rows stats.csv
/// already holds.
pub(super) struct ResumeAt {
    pub(super) step: u64,
    pub(super) rows: Vec<Row>,
    /// The CRC-32 of stats.csv's rows up to the checkpoint, which it goes on from.
    pub(super) stats_crc: u32,
}

impl<'a, T: Real> Tracker<'a, T> {
    pub(super) fn new(
        cfg: &'a RunConfig,
        init: Initial<T>,
        factory: &'a EngineFactory<'a, T>,
    ) -> Result<Self> {
        let n = init.state.n;
        let mod_h0 = match &cfg.modified {
            Some(m) => modified_energies(m, &init.state),
            None => Vec::new(),
        };
        let mut engine = factory(with_columns(cfg, init.state))?;
        // H(z0) of the points as the run's precision holds them (an f32 run starts from rounded
        // points; `Initial` computed it when it checked it finite): kept by the engine where it
        // takes the energy statistics itself. Loops (refinement inserts nodes with their own
        // H0) and --tangent (renormalised on the host) read the state at every snapshot anyway.
        let accelerated = !cfg.ensemble.is_loop()
            && !cfg.tangent
            && cfg.stops.is_none()
            && match engine.acceleration()? {
                Some(a) => a.start().map(|()| true)?,
                None => false,
            };
        let h0 = if accelerated { Vec::new() } else { init.h0 };
        let l0 = angular_momenta(&cfg.system, engine.state()?).unwrap_or_default();
        let refine_dist = cfg.refine.map(|r| r.tol * init.diagonal);
        // The reference and the return are measured from the points as the run holds them.
        let start = match cfg.reverse || cfg.reference.is_some() {
            true => Some(engine.state()?.primal_f64()),
            false => None,
        };
        let reference = cfg
            .reference
            .as_ref()
            .zip(start.clone())
            .map(|(r, s)| CpuEngine::new(&r.integrator(&cfg.system, cfg.dt), s));
        Ok(Tracker {
            cfg,
            factory,
            engine,
            aux: None,
            reference,
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
                z0: start.clone().filter(|_| cfg.reverse),
                reference: start.filter(|_| cfg.reference.is_some()),
                mod_h0,
            },
            setup: setup(cfg),
            accelerated,
            refine_dist,
            capped_at: None,
            stuck_at: None,
            portraits: Vec::new(),
            trajectory: Vec::new(),
            peers: Peers::current(),
            kept: None,
        })
    }

    /// The run as a checkpoint left it (`phaseflow resume`): the engine built from the saved
    /// state (and given back the initial values its acceleration keeps), what each point carries, and
    /// where the snapshot loop continues (`rows`: stats.csv's rows up to the checkpoint).
    pub(super) fn from_checkpoint(
        cfg: &'a RunConfig,
        c: Checkpoint<T>,
        factory: &'a EngineFactory<'a, T>,
        file_nodes: State<f64>,
        rows: Vec<Row>,
    ) -> Result<(Self, ResumeAt)> {
        if cfg.reverse || cfg.reference.is_some() {
            use crate::error::Field;
            return Err(crate::invalid!(Field::Reverse;
                "runs with ",
                Field::Reverse,
                " or ",
                Field::Reference,
                " keep no checkpoints (their reference solution and initial states are not saved); run again",
            ));
        }
        let mut engine = factory(c.state)?;
        let accelerated = match &c.device_h0 {
            Some(h0) => {
                let describe = engine.describe();
                let Some(a) = engine.acceleration()? else {
                    return Err(crate::input_err!(
                        "the checkpoint comes from an engine that reduced the energy statistics on the device, which this one ({describe}) cannot; resume on the machine that ran it"
                    ));
                };
                a.restore(h0)?;
                true
            }
            None => false,
        };
        let tracker = Tracker {
            cfg,
            factory,
            engine,
            aux: None,
            reference: None,
            file_nodes,
            points: PerPoint {
                h0: c.h0,
                l0: c.l0,
                s: c.s,
                log2_scale: c.log2_scale,
                z0: None,
                reference: None,
                mod_h0: c.mod_h0,
            },
            setup: setup(cfg),
            accelerated,
            refine_dist: c.refine_dist,
            capped_at: c.capped_at,
            stuck_at: c.stuck_at,
            portraits: c.portraits,
            trajectory: c.trajectory,
            peers: Peers::current(),
            kept: None,
        };
        let at = ResumeAt {
            step: c.step,
            rows,
            stats_crc: c.stats_crc,
        };
        Ok((tracker, at))
    }

    /// Advance between snapshots, measuring each into stats.csv as it is taken (flushed row
    /// by row, so an interrupted run keeps its rows); optionally save states.
    pub(super) fn snapshots(
        &mut self,
        out: &Path,
        ck: &mut Checkpoints,
        resume: Option<ResumeAt>,
    ) -> Result<Vec<Row>> {
        let cfg = self.cfg;
        for m in MEASUREMENTS.iter().filter(|m| m.taken(&self.setup)) {
            m.announce(&self.setup);
        }
        let mut pb = Progress::new(cfg.total_steps());
        let (mut stats, mut rows, mut done) = match resume {
            // Rank 0 writes the run's files; the other MPI ranks only measure, and a run
            // without a folder keeps its rows in memory.
            None if !self.peers.is_root() || self.kept.is_some() => {
                (CsvRows::discard()?, Vec::new(), 0)
            }
            None => (CsvRows::create(&out.join("stats.csv"))?, Vec::new(), 0),
            Some(r) => {
                pb.inc(r.step);
                let stats = CsvRows::append(&out.join("stats.csv"), r.stats_crc)?;
                (stats, r.rows, r.step)
            }
        };
        // A resumed run continues with the snapshots from the checkpoint's step on, except one
        // measured already (a checkpoint written at a snapshot after its row).
        let (first, measured) = (done, rows.last().map(|r: &Row| r.step));
        let todo = cfg
            .snapshot_steps()
            .into_iter()
            .filter(|&s| s >= first && measured.is_none_or(|m| s > m));
        for step in todo {
            self.advance_to(step, done, &mut pb, ck, &stats)?;
            self.follow_reference(step - done)?;
            done = step;
            let row = self.snapshot(step, out, ck.config_crc, rows.first())?;
            stats.push(&row)?;
            rows.push(row);
            if cfg.reverse && step == cfg.steps {
                self.engine.reverse();
                if let Some(r) = &mut self.reference {
                    r.reverse();
                }
            }
        }
        pb.finish();
        // The run is complete only over the rows it wrote.
        stats.check_unchanged()?;
        Ok(rows)
    }

    /// Measure the snapshot at `step` (the engine advanced to it) into its row (`first`: the
    /// run's row at step 0, which some columns are relative to), and keep what the snapshot
    /// keeps: a single point's trajectory, a portrait, saved states and indicators (in the
    /// folder `out`, or in memory), a shard's parts.
    pub(super) fn snapshot(
        &mut self,
        step: u64,
        out: &Path,
        config_crc: u32,
        first: Option<&Row>,
    ) -> Result<Row> {
        let cfg = self.cfg;
        let gathers = self.gathers();
        let accelerated = self.accelerated_parts()?;
        let single = self.engine.points() == 1 && !cfg.ensemble.is_loop();
        let portrait = cfg.portrait_steps.contains(&step);
        // The state is read back only when something needs it besides what the engine
        // measured where the state lives.
        let needs_state = needs_host_state(&self.setup, self.accelerated)
            || single
            || portrait
            || cfg.save_states;
        let points = self.engine.points() as u64;
        let state = if needs_state {
            Some(self.engine.state()?)
        } else {
            None
        };
        let host = state.map(|s| Snapshot {
            run: &self.setup,
            state: HostState::of(s),
            per_point: &self.points,
        });
        let parts = RowParts::measure(&self.setup, points, host.as_ref(), accelerated);
        // Saved states are encoded first: a shard's parts record their CRC-32.
        let saved = state
            .filter(|_| cfg.save_states && self.kept.is_none())
            .map(npy::encode_state);
        if let Some(shard) = cfg.shard {
            let file = PartsFile {
                step,
                shard: (shard.index as u64, shard.count as u64),
                config_crc,
                states_crc: saved.as_deref().map(crc32),
            };
            write_atomic(&parts_path(out, step), &file.encode(&parts))?;
        }
        let parts = gather_parts(&self.peers, gathers, parts)?;
        let row = parts.row(&self.setup, step, cfg.time_at(step), first);
        if let Some(state) = state {
            if single {
                let (mut q, mut p) = (vec![0.0; state.d], vec![0.0; state.d]);
                state.point_f64(0, &mut q, &mut p);
                q.extend(p);
                self.trajectory.push((cfg.time_at(step), q));
            }
            if portrait {
                self.portraits.push((step, state.primal_f64()));
            }
            match &mut self.kept {
                Some(kept) => kept.snapshot(cfg, step, state),
                None => save_files(&self.peers, gathers, out, cfg, (step, state, saved))?,
            }
        }
        Ok(row)
    }

    /// Advance from step `done` to snapshot `step` (writing the checkpoints that fall due on
    /// the way, and on SIGINT/SIGTERM a last one before stopping), then refine a loop and
    /// renormalise the tangent columns there.
    fn advance_to(
        &mut self,
        step: u64,
        done: u64,
        pb: &mut Progress,
        ck: &mut Checkpoints,
        written: &CsvRows,
    ) -> Result<()> {
        let n = self.engine.points().max(1);
        let evals = self.cfg.evals_per_step();
        let mut at = done;
        while at < step {
            if interrupt::requested() {
                let why = match self.kept {
                    Some(_) => Some("runs without a folder"),
                    None => no_checkpoints(self.cfg, &self.peers),
                };
                if let Some(why) = why {
                    return Err(crate::input_err!(
                        "interrupted at step {at}: {why} keep no checkpoints; run again"
                    ));
                }
                self.write_checkpoint(ck, at, written)?;
                pb.finish();
                return Err(Error::Interrupted {
                    path: ck.dir.clone(),
                    step: at,
                });
            }
            let stop = ck.next_stop(at, step);
            let mut early = || interrupt::requested() || ck.time_due();
            at += advance_with_progress(self.engine.as_mut(), stop - at, n, evals, pb, &mut early)?;
            if ck.due(at) && at < self.cfg.steps {
                self.write_checkpoint(ck, at, written)?;
                ck.restart_clock();
                interrupt::checkpoint_written();
            }
        }
        self.at_snapshot(step)
    }

    /// What a snapshot does to the points before they are measured: refine a loop and
    /// renormalise the tangent columns.
    pub(super) fn at_snapshot(&mut self, step: u64) -> Result<()> {
        self.refine(step)?;
        if self.cfg.tangent {
            let mut st = self.engine.state()?.clone();
            if renormalise(&mut st, &mut self.points.log2_scale) {
                self.engine.set_state(st)?;
            }
        }
        Ok(())
    }

    /// Advance the reference solution (`--reference`) by the run's `steps` and keep its
    /// state for the measurements.
    fn follow_reference(&mut self, steps: u64) -> Result<()> {
        if let (Some(r), Some(k)) = (&mut self.reference, &self.cfg.reference) {
            r.advance(steps * u64::from(k.substeps))?;
            self.points.reference = Some(r.state()?.clone());
        }
        Ok(())
    }

    /// Write the run's checkpoint at step `at` (the state advanced to `at`, nothing measured
    /// there yet): the engine state, what each point carries, and the rows written so far.
    pub(super) fn write_checkpoint(
        &mut self,
        ck: &Checkpoints,
        at: u64,
        stats: &CsvRows,
    ) -> Result<()> {
        let device_h0 = match self.engine.acceleration()? {
            Some(a) if self.accelerated => Some(a.initial()?),
            _ => None,
        };
        let state = self.engine.state()?;
        CheckpointRef {
            step: at,
            engine: ck.engine,
            state,
            h0: &self.points.h0,
            l0: &self.points.l0,
            s: &self.points.s,
            log2_scale: &self.points.log2_scale,
            mod_h0: &self.points.mod_h0,
            device_h0: device_h0.as_deref(),
            capped_at: self.capped_at,
            stuck_at: self.stuck_at,
            refine_dist: self.refine_dist,
            trajectory: &self.trajectory,
            portraits: &self.portraits,
            stats_bytes: stats.bytes_written(),
            stats_crc: stats.crc(),
            config: &ck.config,
        }
        .write(&ck.dir)
    }

    /// Whether each MPI rank holds only its slice of a filled ensemble, so that statistics
    /// and states are gathered on rank 0 (a loop is kept whole on every rank: `RankEngine`).
    pub(super) fn gathers(&self) -> bool {
        self.peers.many() && !self.cfg.ensemble.is_loop()
    }

    /// The parts of the measurements the engine takes where the state lives, where it does
    /// (`accelerated`); none otherwise.
    fn accelerated_parts(&mut self) -> Result<Vec<(&'static str, Part)>> {
        if !self.accelerated {
            return Ok(Vec::new());
        }
        match self.engine.acceleration()? {
            Some(a) => a.parts(),
            None => Ok(Vec::new()),
        }
    }
}

/// Where a shard (`run --shard K/N`) writes the parts of its snapshot at `step`
/// (`measure::parts`; `phaseflow merge` reads them).
pub fn parts_path(out: &Path, step: u64) -> PathBuf {
    out.join(PARTS_DIR).join(format!("step_{step}.bin"))
}

/// A shard's folder of parts files.
pub const PARTS_DIR: &str = "parts";

/// The snapshot's parts of every rank appended in rank order on rank 0 when the ranks hold
/// slices (`gathers`; each slice starts at a chunk boundary, so these are the whole
/// ensemble's parts); the other ranks keep their own (their rows are not written).
fn gather_parts(peers: &Peers, gathers: bool, parts: RowParts) -> Result<RowParts> {
    if !gathers {
        return Ok(parts);
    }
    let Some(all) = peers.gather(&parts.encode())? else {
        return Ok(parts);
    };
    let mut whole = RowParts::default();
    for (rank, bytes) in all.iter().enumerate() {
        whole.append(RowParts::decode(
            bytes,
            &format!("rank {rank}'s statistics"),
        )?);
    }
    Ok(whole)
}

/// A snapshot's files: its `saved` states (--save-states) and its indicators (--chaos).
fn save_files<T: Real>(
    peers: &Peers,
    gathers: bool,
    out: &Path,
    cfg: &RunConfig,
    (step, state, saved): (u64, &State<T>, Option<Vec<u8>>),
) -> Result<()> {
    let indicators = encode_indicators(cfg, step, state);
    match cfg.store {
        Store::Zarr => {
            super::store::save::<T>(peers, gathers, out, cfg, (step, saved, indicators))?
        }
        Store::Npy => {
            for (dir, bytes) in [("states", saved), (CHAOS_DIR, indicators)] {
                if let Some(bytes) = bytes {
                    save_state(peers, gathers, &out.join(dir), step, bytes)?;
                }
            }
        }
    }
    match super::stops::encode(cfg, step, state) {
        Some(bytes) => super::stops::save(peers, gathers, cfg, out, bytes),
        None => Ok(()),
    }
}

/// --chaos: the points' indicators as `chaos/step_<step>.npy` holds them, where the run
/// writes them (`writes_indicators`; else None).
fn encode_indicators<T: Real>(cfg: &RunConfig, step: u64, s: &State<T>) -> Option<Vec<u8>> {
    let c = cfg.chaos.as_ref()?;
    writes_indicators(cfg, step).then(|| {
        let rows = indicator_rows(s, cfg.dt, c);
        npy::encode(s.n, c.columns().len(), &rows)
    })
}

/// Whether a run with --chaos writes `chaos/step_<step>.npy`: at every saved snapshot
/// (--save-states) and at the last.
pub fn writes_indicators(cfg: &RunConfig, step: u64) -> bool {
    let last = cfg.snapshot_steps().last().copied().unwrap_or(0);
    cfg.chaos.is_some() && (cfg.save_states || step == last)
}

/// The folder of the per-point chaos indicators (`--chaos`): `chaos/step_<k>.npy`.
pub const CHAOS_DIR: &str = "chaos";

/// `dir`/step_<step>.npy (states/: the state's `bytes`, `npy::encode_state`; chaos/: the
/// indicators), or under MPI with a filled ensemble every rank's slice stacked on rank 0 in
/// rank order; only rank 0 writes.
fn save_state(peers: &Peers, gathers: bool, dir: &Path, step: u64, bytes: Vec<u8>) -> Result<()> {
    let path = dir.join(format!("step_{step}.npy"));
    if !gathers {
        return if peers.is_root() {
            write_atomic(&path, &bytes)
        } else {
            Ok(())
        };
    }
    match peers.gather(&bytes)? {
        Some(all) => write_atomic(
            &path,
            &npy::stack_rows(&all).map_err(|m| crate::input_err!("gathering states: {m}"))?,
        ),
        None => Ok(()),
    }
}

/// Why a run keeps no checkpoints, if it keeps none: under MPI each rank holds only its
/// slice of a filled ensemble; `--reverse` and `--reference` carry states beside the
/// ensemble (the initial states, the reference solution) that a checkpoint does not hold.
pub(super) fn no_checkpoints(cfg: &RunConfig, peers: &Peers) -> Option<&'static str> {
    if peers.many() {
        Some("MPI runs")
    } else if cfg.reverse || cfg.reference.is_some() {
        Some("runs with --reverse or --reference")
    } else if cfg.section.is_some() {
        Some("runs with --section")
    } else if cfg.frequencies.is_some() {
        Some("runs with --frequencies")
    } else {
        None
    }
}

/// What the measurements know of the run `cfg` configures.
pub(super) fn setup(cfg: &RunConfig) -> RunSetup<'_> {
    RunSetup {
        system: &cfg.system,
        tangent: cfg.tangent,
        loop_area: cfg.ensemble.is_loop().then(|| LoopArea {
            smooth: matches!(
                cfg.ensemble.kind(),
                EnsembleKind::Circle | EnsembleKind::Level
            ),
            exact0: cfg.ensemble.exact_loop_area(&cfg.system),
        }),
        filled_area: cfg.ensemble.filled_area(cfg.system.dof()),
        reference: cfg.reference.is_some(),
        reverse: cfg.reverse.then_some(cfg.steps),
        modified: cfg.modified.as_deref(),
        chaos: cfg.chaos.as_ref(),
        stops: cfg.stop_column(),
        dt: cfg.dt,
        step_error: cfg.step_error(),
    }
}
