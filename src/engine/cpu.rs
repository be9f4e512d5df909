//! The CPU reference engine. Points are processed in blocks of `block_len` (component-major
//! copies that stay in L1); inside a block every kernel loop runs over points, so the compiler
//! vectorises it. Blocks run in parallel on all cores (rayon). This mirrors the GPU driver
//! (shaders/common/driver.wgsl): read the state once, run all steps, write it back once.

use rayon::prelude::*;

use super::{Engine, Integrator};
use crate::error::Result;
use crate::float::Real;
use crate::method::{Block, Cpu, Method, Solver};
use crate::state::State;
use crate::system::System;

pub struct CpuEngine<T: Real> {
    system: System,
    method: Method,
    h: T,
    state: State<T>,
    block_len: usize,
    solver: Solver,
    compensated: bool,
}

/// What every block of one `advance` applies: the integrator at the engine's precision and the
/// number of steps.
struct Advance<'a, T> {
    system: &'a System,
    method: Method,
    h: T,
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

impl<T: Real> CpuEngine<T> {
    pub fn new(k: &Integrator, state: State<T>) -> Self {
        let state = state.with_compensation(k.compensated);
        let block_len = block_len_for(state.comps(), std::mem::size_of::<T>(), state.n);
        CpuEngine {
            system: k.system.clone(),
            method: k.method,
            h: T::from_f64(k.h),
            state,
            block_len,
            solver: k.solver,
            compensated: k.compensated,
        }
    }
}

/// Advance one block of points, given as per-component slices of the global SoA state: the
/// q components, then the p components, then (compensated) those of eq and of ep.
fn advance_block<T: Real>(
    a: &Advance<T>,
    blk: &mut Block<T>,
    parts: &mut [&mut [T]],
    unconverged: &mut [u32],
) {
    let (b, d) = (blk.n, blk.d * (1 + blk.nt));
    let m = parts[0].len();
    let mut vectors = [&mut blk.q, &mut blk.p, &mut blk.eq, &mut blk.ep];
    for (v, comps) in vectors.iter_mut().zip(parts.chunks(d)) {
        for (k, comp) in comps.iter().enumerate() {
            // Pad a short last block with copies of its first point (a valid state for any system).
            for j in 0..b {
                v[k * b + j] = comp[if j < m { j } else { 0 }];
            }
        }
    }
    blk.unconverged.fill(0);
    let mut ops = Cpu {
        system: a.system,
        b: &mut *blk,
        h: a.h,
    };
    // As the GPU driver does per dispatch: the prologue, then the steps.
    a.method.prologue(&mut ops);
    for _ in 0..a.steps {
        a.method.step(&mut ops);
    }
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
        let (n, d, b) = (self.state.n, self.state.comps(), self.block_len);
        if n == 0 {
            return Ok(());
        }
        let nblocks = n.div_ceil(b);
        // Per block, its slice of every component of q, p and (compensated) eq, ep.
        let mut parts: Vec<Vec<&mut [T]>> =
            (0..nblocks).map(|_| Vec::with_capacity(4 * d)).collect();
        let st = &mut self.state;
        for vector in [&mut st.q, &mut st.p, &mut st.eq, &mut st.ep] {
            for comp in vector.chunks_mut(n) {
                for (i, part) in comp.chunks_mut(b).enumerate() {
                    parts[i].push(part);
                }
            }
        }
        let a = Advance {
            system: &self.system,
            method: self.method,
            h: self.h,
            steps,
        };
        let (dof, nt, solver, on) = (st.d, st.nt, self.solver, self.compensated);
        let u_parts: Vec<&mut [u32]> = st.unconverged.chunks_mut(b).collect();
        parts.into_par_iter().zip(u_parts).for_each_init(
            || Block::with_solver(b, dof, nt, solver).with_compensation(on),
            |blk, (mut parts, us)| advance_block(&a, blk, &mut parts, us),
        );
        Ok(())
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

    fn set_state(&mut self, state: State<T>) -> Result<()> {
        self.block_len = block_len_for(state.comps(), std::mem::size_of::<T>(), state.n);
        self.state = state.with_compensation(self.compensated);
        Ok(())
    }
}
