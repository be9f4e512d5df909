//! Per-step observers: what runs inside an engine's stepping loop besides the method (the
//! chaos indicators' renormalisation, a section's crossing test). An engine advances and calls
//! the observers its `Integrator` lists; it knows nothing of what they measure. Each observer
//! is one file of this folder with its CPU block hook and its kernel lines (its WGSL functions
//! in `shaders/common`), and one `pub mod` line below; the run lists it in its integrator
//! (`Integrator::with_observer`, from `RunConfig::integrator`).
//!
//! One capability of the engines serves observers that stop points (`stop`): a point a hook
//! reports stopped (`BlockObserver::stopped`) keeps its state and costs no further steps.
//!
//! An observer's per-point words live in one of two places:
//!
//! - *carried* words travel with the state (`State::chaos`'s columns: uploaded and read back
//!   with the point, written into checkpoints, split and merged with it); an observer with
//!   carried words runs only on a state that carries them (`active`);
//! - *kept* words stay with the engine (the CPU observer's own store; on the GPU after every
//!   carried word in the chunk), read only when asked (`Observer::crossings_from_words`) and
//!   started afresh when the engine is given another set of points.

pub mod chaos;
pub mod chaos_stop;
pub mod frequencies;
pub mod section;
pub mod stop;

use std::any::Any;
use std::fmt::Debug;
use std::sync::Arc;

use crate::float::Real;
use crate::method::Points;
use crate::section::Crossings;
use crate::system::System;
use frequencies::FrequencyTable;

/// One per-step observer as an integrator lists it: what it needs at any precision.
pub trait Observer: Debug + Send + Sync {
    /// Its name: an integrator lists at most one observer of a name
    /// (`Integrator::with_observer` replaces).
    fn name(&self) -> &'static str;
    /// Words per point carried with the state (`State::chaos`'s columns).
    fn carried_words(&self) -> usize {
        0
    }
    /// Words per point the GPU engine keeps for it after the carried ones.
    fn kept_words(&self) -> usize {
        0
    }
    /// Its CPU state and block hooks for `n` points in f64 …
    fn cpu_f64(&self, n: usize) -> Box<dyn CpuObserver<f64>>;
    /// … and in f32 (`cpu` picks).
    fn cpu_f32(&self, n: usize) -> Box<dyn CpuObserver<f32>>;
    /// The kernel's prelude constants: `word` is its first word per point (carried or kept),
    /// `f64` the kernel's precision and `literal` writes a value of it.
    fn wgsl_prelude(&self, word: usize, f64: bool, literal: &dyn Fn(f64) -> String) -> String;
    /// Its WGSL functions (one file of `shaders/common`).
    fn wgsl_source(&self) -> &'static str;
    /// Its lines in the driver (`shaders/common/driver.wgsl`) at `site`.
    fn wgsl_driver(&self, site: &DriverSite) -> DriverLines;
    /// A section's crossings from its kept words read back from the GPU: per chunk, the words
    /// (word j of point i at `j·n + i`, in f64) and n; `steps` advanced since they started.
    fn crossings_from_words(
        &self,
        _chunks: &[(Vec<f64>, usize)],
        _steps: u64,
    ) -> Option<Crossings> {
        None
    }
    /// The kept words, counted from its first, that the read-outs need (`crossings_from_words`,
    /// `frequencies_from_words`): all of them unless it says otherwise.
    fn result_words(&self) -> std::ops::Range<usize> {
        0..self.kept_words()
    }
    /// Loop iterations per point of its pass after the steps (`frequencies`: the analysis),
    /// which the GPU engine runs as a dispatch of no steps before reading the result words;
    /// `None`: it has none. Mesa's CPU driver stops an invocation's loops after 65 535
    /// iterations in all, so there a pass above `engine::gpu_layout::CPU_DRIVER_LOOP_BUDGET`
    /// is not run and every kept word is read instead.
    fn finish_loops(&self) -> Option<u64> {
        None
    }
    /// The frequencies (`--frequencies`) from its words read back from the GPU, laid out as
    /// for `crossings_from_words`: the result words after its pass, or all its kept words
    /// where the pass did not run (the samples are then analysed on the host).
    fn frequencies_from_words(&self, _chunks: &[(Vec<f64>, usize)]) -> Option<FrequencyTable> {
        None
    }
}

/// An observer's running state on the CPU engine at precision `T`.
pub trait CpuObserver<T: Real>: Send {
    /// The hooks of one advance, one per block of `run.b` points in point order; `carried`
    /// holds per block its slices of the observer's carried words (one slice per word, the
    /// block's points without padding).
    fn blocks<'a>(
        &'a mut self,
        run: &BlockRun<'a, T>,
        carried: Vec<Vec<&'a mut [T]>>,
    ) -> Vec<Box<dyn BlockObserver<T> + 'a>>;
    /// After every block took `steps` steps.
    fn advanced(&mut self, _steps: u64) {}
    /// The points of `n` this observer has stopped, from its carried words (`words[j·n + i]`),
    /// where it stops points (`stop`): the engine then advances only the others. `None`: it
    /// stops none.
    fn stopped_points(&self, _words: &[T], _n: usize) -> Option<Vec<bool>> {
        None
    }
    /// The engine was given another set of `n` points: its kept words start afresh.
    fn restart(&mut self, _n: usize) {}
    /// A section's crossings so far.
    fn crossings(&self) -> Option<Crossings> {
        None
    }
    /// The frequencies of its signals (`--frequencies`), analysed now.
    fn frequencies(&self) -> Option<FrequencyTable> {
        None
    }
}

/// What one advance of the CPU engine gives its observers' blocks.
pub struct BlockRun<'a, T> {
    pub system: &'a System,
    pub h: T,
    /// Points per block (the last block's are padded to as many).
    pub b: usize,
    pub blocks: usize,
}

/// An observer's hook on one block of the CPU engine for one advance. The engine gives it the
/// block's points between steps (`Points`): a block of the block path, or a group of 64
/// points of the fused path (`method::fused`), `BlockRun::b` points either way.
pub trait BlockObserver<T: Real>: Send {
    /// Before the first step: the block's first `m` points are real, the rest padding.
    fn start(&mut self, _m: usize) {}
    /// Before each step.
    fn before_step(&mut self, _at: &Points<T>) {}
    /// After step `k` of the advance (0 first).
    fn after_step(&mut self, at: &mut Points<T>, k: u64);
    /// How many steps from step `k` of the advance on (`k` included) this hook does nothing
    /// at, before or after them (`u64::MAX`: none of the rest): the fused path runs those
    /// steps without calling any hook (`method::fused::Between::quiet`), so an observer that
    /// acts every K steps (`frequencies`: a sample) costs one call per K steps. 0: it may act
    /// at every step.
    fn quiet(&self, _k: u64) -> u64 {
        0
    }
    /// The block's points this hook has stopped (`--stop-when`, `stop`), per point of the
    /// block (padding: false), and how many: a stopped point stays stopped, and the engine
    /// keeps its components as they were after the step it stopped on (or at the start of the
    /// advance) and skips the rest of the block's steps once all its points have stopped.
    /// `None`: it stops no point.
    fn stopped(&self) -> Option<(&[bool], usize)> {
        None
    }
    /// After the last step.
    fn finish(&mut self) {}
}

/// Where the kernel's lines go: the point's degrees of freedom, the derivative vectors the
/// method carries from step to step (`dq`, `dp`: those it uses) and how a component of the
/// kernel's registers or arrays is named (`comp("q", k)`).
pub struct DriverSite<'a> {
    pub d: usize,
    pub carried: &'a [&'a str],
    pub comp: &'a dyn Fn(&str, usize) -> String,
}

/// An observer's lines in the driver: after the declarations, before each step, after each
/// step and with the stores.
#[derive(Debug, Default, Clone)]
pub struct DriverLines {
    pub start: String,
    pub before_step: String,
    pub after_step: String,
    pub end: String,
}

/// A listed observer with its first word per point after the state's (carried words first,
/// in list order, then kept words).
#[derive(Debug, Clone)]
pub struct Placed {
    pub observer: Arc<dyn Observer>,
    /// Its first carried word (its first kept word for an observer without carried words),
    /// counted from the first word after the state's.
    pub word: usize,
}

/// The observers of `listed` that run on a state carrying `carried` words per point (an
/// observer with carried words only where they fit after the earlier ones'), placed.
pub fn active(listed: &[Arc<dyn Observer>], carried: usize) -> Vec<Placed> {
    let mut running: Vec<Arc<dyn Observer>> = Vec::new();
    let mut column = 0;
    for o in listed {
        let w = o.carried_words();
        if w == 0 || column + w <= carried {
            column += w;
            running.push(o.clone());
        }
    }
    let (mut carried_at, mut kept_at) = (0, column);
    running
        .into_iter()
        .map(|observer| {
            let (w, k) = (observer.carried_words(), observer.kept_words());
            let word = if w > 0 { carried_at } else { kept_at };
            let placed = Placed { observer, word };
            carried_at += w;
            kept_at += k;
            placed
        })
        .collect()
}

/// The CPU state of `o` for `n` points at precision `T`.
pub fn cpu<T: Real>(o: &dyn Observer, n: usize) -> Box<dyn CpuObserver<T>> {
    let any: Box<dyn Any> = match T::NAME {
        "f64" => Box::new(o.cpu_f64(n)),
        _ => Box::new(o.cpu_f32(n)),
    };
    match any.downcast::<Box<dyn CpuObserver<T>>>() {
        Ok(b) => *b,
        Err(_) => unreachable!("`Real` is f32 or f64"),
    }
}
