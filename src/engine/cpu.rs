//! The CPU reference engine. Points are processed in blocks of `block_len` (component-major
//! copies that stay in L1); inside a block every kernel loop runs over points, so the compiler
//! vectorises it. Blocks run in parallel on all cores (rayon). This mirrors the GPU driver
//! (shaders/common/driver.wgsl): read the state once, run all steps, write it back once.
//! Where the run allows it, a block takes the fused path (`method::fused`): the step's
//! statements on groups of 64 points with the system's gradients compiled in, step after step
//! over the block's groups, the same bits as the block path.

use rayon::prelude::*;

mod observed;
mod running;

use super::{Crossings, Engine, FrequencyTable, Integrator};
use crate::error::Result;
use crate::float::Real;
use crate::method::{fused, Block, Cpu, Method, Solver};
use crate::observe::{self, BlockObserver, BlockRun, CpuObserver};
use crate::simd::Level;
use crate::state::State;
use crate::system::System;
use observed::Frozen;

pub struct CpuEngine<T: Real> {
    system: System,
    method: Method,
    h: T,
    state: State<T>,
    block_len: usize,
    solver: Solver,
    compensated: bool,
    /// The vector instructions of the blocks' loops: the processor's fastest (`simd`).
    level: Level,
    /// The integrator's observers that run on this state (`observe::active`), each with its
    /// count of carried words (its columns of `State::chaos`, in order).
    observers: Vec<(Box<dyn CpuObserver<T>>, usize)>,
    /// Whether an observer keeps words of its own per point (a section's records): the
    /// engine then advances every point in place.
    keeps: bool,
    /// Whether an observer stops points (`--stop-when`): such a run keeps the block path,
    /// where the conditions are evaluated over a whole block at a time (measured: on the
    /// fused path's groups of 64 points the conditions' bytecode cost 20–25 % more than the
    /// step saved).
    stops: bool,
    /// The points still running after the last advance where an observer stops points
    /// (`advance_running`): their state, their indices in `state` and its block length, equal
    /// to those points of `state` until `state` is replaced.
    running: Option<running::Running<T>>,
}

/// Test hook: with `PHASEFLOW_CPU_PATH=block` in the environment every CPU engine of the
/// process takes the block path, so that `tests/speed.rs` can time a formula (which always
/// takes the block path: `method::fused::Program::record`) against a built-in system on
/// equal terms. Read once.
fn fused_path_allowed() -> bool {
    static ALLOWED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ALLOWED.get_or_init(|| std::env::var("PHASEFLOW_CPU_PATH").as_deref() != Ok("block"))
}

/// What every block of one `advance` applies: the method and the number of steps.
struct Advance {
    method: Method,
    steps: u64,
}

/// Points per block for `comps` components per point of `bytes` bytes each and `n` points:
/// enough for wide vector loops, small enough that the block's scratch (8 arrays × 2·comps
/// values, 16 KiB for one component) stays in L1/L2, and for small ensembles (e.g. nodes
/// inserted by loop refinement) small enough that every core gets a block and padding a short
/// last block wastes little (multiples of 8). Sized in bytes, so an f32 block holds twice the
/// points of an f64 one: each statement of a step costs a fixed few dozen cycles besides its
/// loop, which at 256 f32 points (16 AVX-512 iterations) would be a fifth of the step.
pub fn block_len_for(comps: usize, bytes: usize, n: usize) -> usize {
    let most = 2048 / bytes.max(1);
    let cache = (most / comps.max(1)).clamp(8, most);
    let per_thread = n.div_ceil(rayon::current_num_threads().max(1)).div_ceil(8) * 8;
    cache.min(per_thread.max(8))
}

/// The points per block of `state` (`block_len_for`). A state with carried observer words
/// (`--chaos`: a deviation vector, one tangent column, that doubles the components) keeps the
/// points of the plain run's blocks: at half the points each statement's fixed cost (a few
/// dozen cycles, the gradients' call, the vectors' lookups) would weigh twice as much per
/// point. The working set stays small: a kick–drift method's q, p, ∂H/∂q, ∂H/∂p at d = 2
/// and 128 f64 points are 16 KiB.
fn block_len_of<T: Real>(state: &State<T>) -> usize {
    let comps = if state.chaos_width() > 0 {
        state.d
    } else {
        state.comps()
    };
    block_len_for(comps, std::mem::size_of::<T>(), state.n)
}

impl<T: Real> CpuEngine<T> {
    pub fn new(k: &Integrator, state: State<T>) -> Self {
        let state = state.with_compensation(k.compensated);
        let block_len = block_len_of(&state);
        let active = observe::active(&k.observers, state.chaos_width());
        let keeps = active.iter().any(|o| o.observer.kept_words() > 0);
        let observers: Vec<_> = active
            .into_iter()
            .map(|o| {
                let cpu = observe::cpu::<T>(&*o.observer, state.n);
                (cpu, o.observer.carried_words())
            })
            .collect();
        let stops = observers
            .iter()
            .any(|(o, _)| o.stopped_points(&[], 0).is_some());
        CpuEngine {
            system: k.system.clone(),
            method: k.method,
            h: T::from_f64(k.h),
            state,
            block_len,
            solver: k.solver,
            compensated: k.compensated,
            level: Level::detected(),
            observers,
            keeps,
            stops,
            running: None,
        }
    }
}

/// Advance one block of points, given as per-component slices of the global SoA state: the
/// q components, then the p components, then (compensated) those of eq and of ep; its
/// observers' hooks run around every step.
fn advance_block<T: Real>(
    a: &Advance,
    mut ops: Cpu<T>,
    parts: &mut [&mut [T]],
    unconverged: &mut [u32],
    hooks: &mut [Box<dyn BlockObserver<T> + '_>],
) {
    let blk = &mut *ops.b;
    let (b, d) = (blk.n, blk.d * (1 + blk.nt));
    let m = parts[0].len();
    for h in hooks.iter_mut() {
        h.start(m);
    }
    if m > 0 && hooks.iter().find_map(|h| h.stopped()).map(|s| s.1) == Some(m) {
        // Every point of the block has stopped: no step, nothing changes.
        for h in hooks.iter_mut() {
            h.finish();
        }
        return;
    }
    let mut vectors = [&mut blk.q, &mut blk.p, &mut blk.eq, &mut blk.ep];
    for (v, comps) in vectors.iter_mut().zip(parts.chunks(d)) {
        for (k, comp) in comps.iter().enumerate() {
            let dst = &mut v[k * b..(k + 1) * b];
            dst[..m].copy_from_slice(comp);
            // Pad a short last block with copies of its first point (a valid state for any system).
            dst[m..].fill(comp[0]);
        }
    }
    blk.unconverged.fill(0);
    let mut frozen = Frozen::default();
    let (at, u) = ops.b.points();
    frozen.take(&at, u, hooks, m);
    // As the GPU driver does per dispatch: the prologue, then the steps. Compiled per level
    // as far as the compiler inlines the method; each loop over the block dispatches anyway.
    let level = ops.b.level;
    level.run(
        #[inline(always)]
        || {
            a.method.prologue(&mut ops);
            for k in 0..a.steps {
                let (at, _) = ops.b.points();
                for h in hooks.iter_mut() {
                    h.before_step(&at);
                }
                a.method.step(&mut ops);
                let (mut at, u) = ops.b.points();
                frozen.restore(&mut at, u);
                for h in hooks.iter_mut() {
                    h.after_step(&mut at, k);
                }
                if frozen.take(&at, u, hooks, m) == m {
                    break;
                }
            }
        },
    );
    for h in hooks.iter_mut() {
        h.finish();
    }
    let blk = &*ops.b;
    for (u, &c) in unconverged.iter_mut().zip(&blk.unconverged) {
        *u += c;
    }
    let vectors = [&blk.q, &blk.p, &blk.eq, &blk.ep];
    for (v, comps) in vectors.iter().zip(parts.chunks_mut(d)) {
        for (k, comp) in comps.iter_mut().enumerate() {
            comp.copy_from_slice(&v[k * b..k * b + m]);
        }
    }
}

impl<T: Real> Engine<T> for CpuEngine<T> {
    fn describe(&self) -> String {
        {
            let n = rayon::current_num_threads();
            format!("cpu ({n} thread{})", if n == 1 { "" } else { "s" })
        }
    }

    fn advance(&mut self, steps: u64) -> Result<()> {
        self.advance_by(steps, fused_path_allowed())
    }

    fn state(&mut self) -> Result<&State<T>> {
        Ok(&self.state)
    }

    fn points(&self) -> usize {
        self.state.n
    }

    fn reverse(&mut self) {
        self.h = -self.h;
    }

    fn crossings(&mut self) -> Result<Option<Crossings>> {
        Ok(self.observers.iter().find_map(|(o, _)| o.crossings()))
    }

    fn frequencies(&mut self) -> Result<Option<FrequencyTable>> {
        Ok(self.observers.iter().find_map(|(o, _)| o.frequencies()))
    }

    fn set_state(&mut self, state: State<T>) -> Result<()> {
        // Renormalised tangent columns keep the points and so the observers' kept words; a
        // new set of points starts its own.
        for (o, _) in &mut self.observers {
            o.restart(state.n);
        }
        self.block_len = block_len_of(&state);
        self.state = state.with_compensation(self.compensated);
        self.running = None;
        Ok(())
    }
}

impl<T: Real> CpuEngine<T> {
    /// The same engine with its stop conditions on the fused path too (`stops`), which keeps
    /// them on the block path: the fused path's bits are tested with them.
    #[cfg(test)]
    pub(crate) fn with_stops_fused(mut self) -> Self {
        self.stops = false;
        self
    }

    /// `Engine::advance` on the block path alone, whatever the fused path takes: the
    /// reference the fused path is tested against (`method::fused`).
    #[cfg(test)]
    pub(crate) fn advance_on_blocks(&mut self, steps: u64) -> Result<()> {
        self.advance_by(steps, false)
    }

    /// The step as the fused path (`method::fused`) runs it, where it takes this run without
    /// per-step observers (`observed_program` with them): a group width for the points'
    /// components, a step without iterated solves.
    pub(crate) fn fused_program(&self) -> Option<fused::Program<T>> {
        match self.observers.is_empty() {
            true => self.observed_program(),
            false => None,
        }
    }

    /// The step as the fused path runs it, with or without the per-step observers.
    pub(crate) fn observed_program(&self) -> Option<fused::Program<T>> {
        fused::width(self.state.comps())?;
        fused::Program::record(self.method, &self.system, self.h, self.compensated)
    }

    /// What the fused path (`program`, this engine's `fused_program`) runs for `steps` steps:
    /// the run and the blocks it advances, each independent of the others (`engine::parts`
    /// runs the blocks of several engines as one parallel pass).
    pub(crate) fn fused_blocks<'a>(
        &'a mut self,
        program: &'a fused::Program<T>,
        steps: u64,
    ) -> (fused::Run<'a, T>, BlockSlices<'a, T>) {
        let (d, dof, compensated, level) = (
            self.state.comps(),
            self.state.d,
            self.compensated,
            self.level,
        );
        // Whole groups: a block of a length that is not a multiple of the group's 64 points
        // would pad its last group (a block of 25 points, the cache's size for ten
        // components, would advance 64).
        let b = self.block_len.div_ceil(fused::POINTS) * fused::POINTS;
        let blocks = blocks_of(&mut self.state, b);
        let run = fused::Run {
            system: &self.system,
            program,
            level,
            d: dof,
            comps: d,
            compensated,
            steps,
        };
        (run, blocks)
    }

    /// Advance every point `steps` steps: on the fused path (`method::fused`) where it takes
    /// the run and `fuse` allows it, else block by block.
    fn advance_by(&mut self, steps: u64, fuse: bool) -> Result<()> {
        match self.advance_running(steps, fuse) {
            Some(done) => done,
            None => self.advance_in_place(steps, fuse),
        }
    }

    /// `advance_by` on every point of the state where it lies.
    fn advance_in_place(&mut self, steps: u64, fuse: bool) -> Result<()> {
        let (n, b) = (self.state.n, self.block_len);
        let program = fuse.then(|| self.observed_program()).flatten();
        if n == 0 {
            return Ok(());
        }
        if let Some(program) = &program {
            if !self.observers.is_empty() {
                if !self.stops {
                    return self.advance_observed(program, steps);
                }
            } else {
                let (run, mut blocks) = self.fused_blocks(program, steps);
                blocks
                    .par_blocks()
                    .for_each_init(fused::Scratch::default, |scratch, parts| {
                        fused::advance(&run, parts, scratch)
                    });
                return Ok(());
            }
        }
        let nblocks = n.div_ceil(b);
        let a = Advance {
            method: self.method,
            steps,
        };
        let (dof, nt, solver, on, level) = (
            self.state.d,
            self.state.nt,
            self.solver,
            self.compensated,
            self.level,
        );
        let st = &mut self.state;
        let vectors = [&mut st.q[..], &mut st.p[..], &mut st.eq[..], &mut st.ep[..]];
        let mut parts = vectors_blocks(vectors, n, b);
        let u_parts: Vec<&mut [u32]> = st.unconverged.chunks_mut(b).collect();
        let run = BlockRun {
            system: &self.system,
            h: self.h,
            b,
            blocks: nblocks,
        };
        let hooks = block_hooks(&mut self.observers, &mut st.chaos, &run, n);
        let (system, h) = (&self.system, self.h);
        parts.par_blocks().zip(u_parts).zip(hooks).for_each_init(
            || {
                Block::with_solver(b, dof, nt, solver)
                    .with_compensation(on)
                    .at_level(level)
            },
            |blk, ((parts, us), mut hooks)| {
                let ops = Cpu { system, b: blk, h };
                advance_block(&a, ops, parts, us, &mut hooks)
            },
        );
        for (o, _) in &mut self.observers {
            o.advanced(steps);
        }
        Ok(())
    }
}

/// Per block of `b` points, its slice of every component of q, p and (compensated) eq, ep
/// (none for an empty state).
fn blocks_of<T: Real>(st: &mut State<T>, b: usize) -> BlockSlices<'_, T> {
    let n = st.n;
    vectors_blocks([&mut st.q, &mut st.p, &mut st.eq, &mut st.ep], n, b)
}

/// Every block's slices, `per_block` after one another in one list (`chunks_mut(per_block)`:
/// a block's), in one allocation: a list per block made ten thousand allocations per advance
/// of 10⁶ points, freed again by the workers.
pub(crate) struct BlockSlices<'a, T> {
    pub slices: Vec<&'a mut [T]>,
    pub per_block: usize,
}

impl<'a, T: Real> BlockSlices<'a, T> {
    /// The blocks, in parallel.
    pub fn par_blocks(&mut self) -> rayon::slice::ChunksMut<'_, &'a mut [T]> {
        self.slices.par_chunks_mut(self.per_block.max(1))
    }

    /// The blocks, one after another.
    pub fn blocks(&mut self) -> std::slice::ChunksMut<'_, &'a mut [T]> {
        self.slices.chunks_mut(self.per_block.max(1))
    }
}

/// `blocks_of` on the state's four vectors (q, p, eq, ep) of `n` points each (an empty vector
/// has no components).
fn vectors_blocks<T: Real>(vectors: [&mut [T]; 4], n: usize, b: usize) -> BlockSlices<'_, T> {
    if n == 0 {
        return BlockSlices {
            slices: Vec::new(),
            per_block: 0,
        };
    }
    let mut comps: Vec<_> = vectors
        .into_iter()
        .flat_map(|v| v.chunks_mut(n))
        .map(|comp| comp.chunks_mut(b))
        .collect();
    let per_block = comps.len();
    let mut slices = Vec::with_capacity(n.div_ceil(b) * per_block);
    for _ in 0..n.div_ceil(b) {
        slices.extend(comps.iter_mut().flat_map(Iterator::next));
    }
    BlockSlices { slices, per_block }
}

/// Per block, every observer's hook for one advance: each observer given, per block, its
/// carried columns' slices of `carried` (`State::chaos`, `[c·n + i]`).
fn block_hooks<'a, T: Real>(
    observers: &'a mut [(Box<dyn CpuObserver<T>>, usize)],
    carried: &'a mut [T],
    run: &BlockRun<'a, T>,
    n: usize,
) -> Vec<Vec<Box<dyn BlockObserver<T> + 'a>>> {
    let mut columns = carried.chunks_mut(n);
    let mut per_block: Vec<Vec<Box<dyn BlockObserver<T> + 'a>>> =
        (0..run.blocks).map(|_| Vec::new()).collect();
    for (o, width) in observers.iter_mut() {
        let mut slices: Vec<Vec<&mut [T]>> = (0..run.blocks).map(|_| Vec::new()).collect();
        for comp in columns.by_ref().take(*width) {
            for (i, part) in comp.chunks_mut(run.b).enumerate() {
                slices[i].push(part);
            }
        }
        for (hooks, hook) in per_block.iter_mut().zip(o.blocks(run, slices)) {
            hooks.push(hook);
        }
    }
    per_block
}

#[cfg(test)]
pub(crate) mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::ensemble::EnsembleRequest;
    use crate::system::CATALOGUE;

    /// The state after 9 steps of `k` from `init` on the CPU engine with its loops at `level`.
    fn advanced<T: Real>(k: &Integrator, init: &State<T>, level: Level) -> Vec<u8> {
        let mut e = CpuEngine::new(k, init.clone());
        e.level = level;
        e.advance(9).unwrap();
        e.state().unwrap().to_bytes()
    }

    /// Every built-in system with every method it takes, on 37 points of a disk: plain, with
    /// tangent columns (but on a variational system) and compensated, as `f(system, method,
    /// init, what)` with `what` naming the case. The engines' bit-for-bit tests walk it.
    pub(crate) fn every_case(mut f: impl FnMut(&System, Method, &State<f64>, bool, &str)) {
        for info in CATALOGUE {
            let system = System::new(info.name, &BTreeMap::new()).unwrap();
            let disk = EnsembleRequest::disk(37, 0.1, 7)
                .resolve(&system)
                .unwrap()
                .generate(&system, 0.01)
                .unwrap();
            for &method in crate::method::all() {
                if method.check_system(&system).is_err() {
                    continue;
                }
                for (tangent, compensated) in [(false, false), (true, false), (false, true)] {
                    if tangent && system.variational() {
                        continue;
                    }
                    let init = if tangent {
                        disk.with_tangent()
                    } else {
                        disk.clone()
                    };
                    let what = format!(
                        "{} {} tangent {tangent} compensated {compensated}",
                        info.name,
                        method.name()
                    );
                    f(&system, method, &init, compensated, &what);
                }
            }
        }
    }

    /// The AVX-512 copy of the engine's loops (`simd`) gives the baseline's states bit for bit:
    /// every case of `every_case`, f64 and f32. On a processor without AVX-512 both runs take
    /// the baseline (tests/cli/portable.rs compares the two on other processors through an
    /// emulator).
    #[test]
    fn the_avx512_loops_advance_as_the_baseline_bit_for_bit() {
        println!("vector levels of this processor: {:?}", Level::available());
        let mut compared = 0;
        every_case(|system, method, init, compensated, what| {
            let k = |solver| {
                Integrator::new(system.clone(), method, 0.01, solver)
                    .unwrap()
                    .with_compensation(compensated)
            };
            let k64 = k(Solver::default_for::<f64>());
            let k32 = k(Solver::default_for::<f32>());
            let f32_init = init.convert::<f32>();
            assert!(
                advanced(&k64, init, Level::Avx512) == advanced(&k64, init, Level::Baseline),
                "f64 {what}"
            );
            assert!(
                advanced(&k32, &f32_init, Level::Avx512)
                    == advanced(&k32, &f32_init, Level::Baseline),
                "f32 {what}"
            );
            compared += 1;
        });
        assert!(compared > 100, "{compared}");
    }
}
