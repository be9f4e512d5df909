//! A sweep's parts on the CPU engine as one ensemble: up to `BATCH` parts at a time, each run
//! as `run::run` runs it alone (its own folder, rows, checkpoints and files, written by a
//! thread of its own), but whose engines step together. Every part's engine is a `Member`:
//! its `advance` hands the part's `CpuEngine` to the batch's `Meeting` and waits; when every
//! part still running has handed its engine in, the last one advances them all in one
//! parallel pass (`engine::parts::advance_all`: the blocks of every part, each with its
//! part's parameters) and hands each back. A part's state is therefore the one its run alone
//! gives, bit for bit, and so are its files; the gain is the cores that a part of a thousand
//! points alone leaves idle.

use std::path::Path;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use super::runner::part_dir;
use super::Part;
use crate::config::{OutputDir, Precision};
use crate::engine::parts::advance_all;
use crate::engine::{CpuEngine, Engine};
use crate::error::Result;
use crate::float::Real;
use crate::run;
use crate::state::State;

/// The most parts run at once (one thread each).
pub const BATCH: usize = 64;

/// What the parts of a batch share.
struct Meeting<T: Real> {
    table: Mutex<Table<T>>,
    met: Condvar,
}

struct Table<T: Real> {
    /// Parts whose run has not ended.
    running: usize,
    /// Engines handed in for the next pass, with their part and steps.
    waiting: Vec<(usize, CpuEngine<T>, u64)>,
    /// Engines handed back, by part, with the outcome of their advance.
    back: Vec<Option<(CpuEngine<T>, Result<()>)>>,
}

impl<T: Real> Meeting<T> {
    fn new(parts: usize) -> Self {
        Meeting {
            table: Mutex::new(Table {
                running: parts,
                waiting: Vec::new(),
                back: (0..parts).map(|_| None).collect(),
            }),
            met: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Table<T>> {
        self.table.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Advance the engines handed in, once every running part has handed its in.
    fn pass_if_all_met(&self, table: &mut Table<T>) {
        if table.waiting.is_empty() || table.waiting.len() < table.running {
            return;
        }
        let waiting = std::mem::take(&mut table.waiting);
        let (mut who, mut engines, mut steps) = (Vec::new(), Vec::new(), Vec::new());
        for (part, engine, s) in waiting {
            who.push(part);
            engines.push(engine);
            steps.push(s);
        }
        let outcomes = advance_all(&mut engines, &steps);
        for ((part, engine), outcome) in who.into_iter().zip(engines).zip(outcomes) {
            table.back[part] = Some((engine, outcome));
        }
        self.met.notify_all();
    }

    /// Part `part`'s engine advanced `steps` steps with the others'.
    fn advance(&self, part: usize, engine: CpuEngine<T>, steps: u64) -> (CpuEngine<T>, Result<()>) {
        let mut table = self.lock();
        table.waiting.push((part, engine, steps));
        self.pass_if_all_met(&mut table);
        loop {
            if let Some(back) = table.back[part].take() {
                return back;
            }
            table = self.met.wait(table).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// A part's run ended: the others no longer wait for it.
    fn leave(&self) {
        let mut table = self.lock();
        table.running -= 1;
        self.pass_if_all_met(&mut table);
    }
}

/// A part's engine: its `CpuEngine`, lent to the meeting for each advance.
struct Member<T: Real> {
    part: usize,
    engine: Option<CpuEngine<T>>,
    meeting: Arc<Meeting<T>>,
}

impl<T: Real> Member<T> {
    fn engine(&mut self) -> &mut CpuEngine<T> {
        self.engine
            .as_mut()
            .expect("handed back after every advance")
    }
}

impl<T: Real> Engine<T> for Member<T> {
    fn describe(&self) -> String {
        self.engine.as_ref().expect("held").describe()
    }

    fn advance(&mut self, steps: u64) -> Result<()> {
        let engine = self.engine.take().expect("held between advances");
        let (engine, outcome) = self.meeting.advance(self.part, engine, steps);
        self.engine = Some(engine);
        outcome
    }

    fn state(&mut self) -> Result<&State<T>> {
        self.engine().state()
    }

    fn set_state(&mut self, state: State<T>) -> Result<()> {
        self.engine().set_state(state)
    }

    fn points(&self) -> usize {
        self.engine.as_ref().expect("held").points()
    }

    fn reverse(&mut self) {
        self.engine().reverse()
    }

    fn crossings(&mut self) -> Result<Option<crate::engine::Crossings>> {
        self.engine().crossings()
    }

    fn frequencies(&mut self) -> Result<Option<crate::engine::FrequencyTable>> {
        self.engine().frequencies()
    }
}

/// Leaves the meeting when the part's thread ends, however it ends.
struct Leave<T: Real>(Arc<Meeting<T>>);

impl<T: Real> Drop for Leave<T> {
    fn drop(&mut self) {
        self.0.leave();
    }
}

/// Run `parts` (every one on the CPU engine, from its start) into their folders under `out`,
/// `BATCH` at a time; `announce` is called for each part as its batch starts. The first error
/// in part order is returned, after the batch's other parts ended.
pub fn run_parts(parts: &[Part], count: usize, out: &Path, announce: &dyn Fn(&Part)) -> Result<()> {
    // One progress report over the sweep: a batch's parts start their reports at the steps
    // done before the batch (before any of them advances: they meet first), then each adds
    // its own steps.
    let total: u64 = parts.iter().map(|p| p.config.total_steps()).sum();
    let mut before = 0;
    for batch in parts.chunks(BATCH) {
        batch.iter().for_each(announce);
        let _scope = run::ProgressScope::new(before, total);
        before += batch.iter().map(|p| p.config.total_steps()).sum::<u64>();
        match batch[0].config.precision {
            Precision::F32 => run_batch::<f32>(batch, count, out)?,
            Precision::F64 => run_batch::<f64>(batch, count, out)?,
        }
    }
    Ok(())
}

fn run_batch<T: Real>(batch: &[Part], count: usize, out: &Path) -> Result<()> {
    let meeting = Arc::new(Meeting::<T>::new(batch.len()));
    let outcomes: Vec<Result<()>> = std::thread::scope(|scope| {
        let threads: Vec<_> = batch
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let meeting = Arc::clone(&meeting);
                scope.spawn(move || {
                    let _leave = Leave(Arc::clone(&meeting));
                    let k = p.config.integrator();
                    let first = |s: State<T>| -> Result<Box<dyn Engine<T>>> {
                        Ok(Box::new(Member {
                            part: i,
                            engine: Some(CpuEngine::new(&k, s)),
                            meeting: Arc::clone(&meeting),
                        }))
                    };
                    let dir = OutputDir {
                        path: out.join(part_dir(p.index, count)),
                        force: false,
                    };
                    run::run_on_engine::<T>(&p.config, &dir, &first).map(drop)
                })
            })
            .collect();
        threads
            .into_iter()
            .map(|t| t.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    outcomes.into_iter().collect()
}
