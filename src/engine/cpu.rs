//! The CPU reference engine. Points are processed in blocks of `block_len` (component-major
//! copies that stay in L1); inside a block every kernel loop runs over points, so the compiler
//! vectorises it. Blocks run in parallel on all cores (rayon). This mirrors the GPU driver
//! (shaders/common/driver.wgsl): read the state once, run all steps, write it back once.

use rayon::prelude::*;

use super::{Engine, Integrator};
use crate::error::Result;
use crate::float::Real;
use crate::method::{Block, Method, Solver};
use crate::state::State;
use crate::system::System;

pub struct CpuEngine<T: Real> {
    system: System,
    method: Method,
    h: T,
    state: State<T>,
    block_len: usize,
    solver: Solver,
}

/// What every block of one `advance` applies: the integrator at the engine's precision and the
/// number of steps.
struct Advance<'a, T> {
    system: &'a System,
    method: Method,
    h: T,
    steps: u64,
}

/// Points per block for `comps` components per point and `n` points: enough for wide vector
/// loops, small enough that the block's scratch (8 arrays × 2·comps values) stays in L1/L2, and
/// for small ensembles (e.g. nodes inserted by loop refinement) small enough that every core
/// gets a block and padding a short last block wastes little (multiples of 8).
pub fn block_len_for(comps: usize, n: usize) -> usize {
    let cache = (256 / comps.max(1)).clamp(8, 256);
    let per_thread = n.div_ceil(rayon::current_num_threads().max(1)).div_ceil(8) * 8;
    cache.min(per_thread.max(8))
}

impl<T: Real> CpuEngine<T> {
    pub fn new(k: &Integrator, state: State<T>) -> Self {
        let block_len = block_len_for(state.comps(), state.n);
        CpuEngine {
            system: k.system.clone(),
            method: k.method,
            h: T::from_f64(k.h),
            state,
            block_len,
            solver: k.solver,
        }
    }
}

/// Advance one block of points (given as per-component slices of the global SoA state).
fn advance_block<T: Real>(
    a: &Advance<T>,
    blk: &mut Block<T>,
    qs: &mut [&mut [T]],
    ps: &mut [&mut [T]],
    unconverged: &mut [u32],
) {
    let (b, d) = (blk.n, blk.d * (1 + blk.nt));
    let m = qs[0].len();
    for k in 0..d {
        // Pad a short last block with copies of its first point (a valid state for any system).
        for j in 0..b {
            let src = if j < m { j } else { 0 };
            blk.q[k * b + j] = qs[k][src];
            blk.p[k * b + j] = ps[k][src];
        }
    }
    blk.unconverged.fill(0);
    for _ in 0..a.steps {
        a.method.step(a.system, blk, a.h);
    }
    for (u, &c) in unconverged.iter_mut().zip(&blk.unconverged) {
        *u += c;
    }
    for k in 0..d {
        qs[k].copy_from_slice(&blk.q[k * b..k * b + m]);
        ps[k].copy_from_slice(&blk.p[k * b..k * b + m]);
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
        let mut q_parts: Vec<Vec<&mut [T]>> = (0..nblocks).map(|_| Vec::with_capacity(d)).collect();
        let mut p_parts: Vec<Vec<&mut [T]>> = (0..nblocks).map(|_| Vec::with_capacity(d)).collect();
        for comp in self.state.q.chunks_mut(n) {
            for (i, part) in comp.chunks_mut(b).enumerate() {
                q_parts[i].push(part);
            }
        }
        for comp in self.state.p.chunks_mut(n) {
            for (i, part) in comp.chunks_mut(b).enumerate() {
                p_parts[i].push(part);
            }
        }
        let a = Advance {
            system: &self.system,
            method: self.method,
            h: self.h,
            steps,
        };
        let (dof, nt, solver) = (self.state.d, self.state.nt, self.solver);
        let u_parts: Vec<&mut [u32]> = self.state.unconverged.chunks_mut(b).collect();
        q_parts
            .into_par_iter()
            .zip(p_parts)
            .zip(u_parts)
            .for_each_init(
                || Block::with_solver(b, dof, nt, solver),
                |blk, ((mut qs, mut ps), us)| advance_block(&a, blk, &mut qs, &mut ps, us),
            );
        Ok(())
    }

    fn state(&mut self) -> Result<&State<T>> {
        Ok(&self.state)
    }

    fn points(&self) -> usize {
        self.state.n
    }

    fn set_state(&mut self, state: State<T>) -> Result<()> {
        self.block_len = block_len_for(state.comps(), state.n);
        self.state = state;
        Ok(())
    }
}
