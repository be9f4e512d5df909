//! The CPU side of the operations interface: a `Block` of points (component-major working
//! storage) and `Cpu`, which runs a method's `Ops` statements on every point of it. Each
//! statement is a loop over the block's components, which the compiler vectorises.

use super::ops::{Lin, Node, Ops, Vector, LIN_NODES};
use super::{Partial, Solver, Stage};
use crate::float::Real;
use crate::simd::Level;
use crate::system::{HamiltonianSystem, System};

/// Per-block working storage: the state and the scratch arrays the kernels need, all
/// component-major with `n` points (`q[k*n + i]`). With `nt` tangent columns every array holds
/// d·(1 + nt) components (layout as in `State`): the kernels' linear updates (axpy, Runge–Kutta
/// stages) then advance the tangent map along with the point, and `partial` supplies the
/// linearised derivatives, so each kernel is written once for both.
#[derive(Debug, Clone)]
pub struct Block<T> {
    pub n: usize,
    pub d: usize,
    pub nt: usize,
    pub q: Vec<T>,
    pub p: Vec<T>,
    /// Derivative scratch: ∂H/∂q (or q' for Runge–Kutta) …
    pub dq: Vec<T>,
    /// … and ∂H/∂p (or p').
    pub dp: Vec<T>,
    /// Runge–Kutta: the state at the start of the step and the stage accumulators (a
    /// discrete map with tangent columns: the points before its step).
    pub q0: Vec<T>,
    pub p0: Vec<T>,
    pub acc_q: Vec<T>,
    pub acc_p: Vec<T>,
    /// `Vector::Stage(i)`, allocated when a step first uses slot i.
    pub stages: Vec<Vec<T>>,
    /// Temporaries of `assign`'s general form (allocated on first use, then reused).
    scratch: Vec<Vec<T>>,
    /// Fixed-point solver settings and per-point state (method::implicit).
    pub solver: Solver,
    pub active: Vec<bool>,
    pub conv: Vec<bool>,
    /// Per point, for iterations to the rounding level: the largest relative move of this
    /// sweep and of the one before (allocated on first use).
    pub moved: Vec<T>,
    pub last_moved: Vec<T>,
    /// Per point: implicit solves that hit the iteration cap (added to `State::unconverged`).
    pub unconverged: Vec<u32>,
    /// Compensated summation (`method::compensated`): updates carry the rounding errors in
    /// `eq` / `ep` (the block's share of `State::eq` / `ep`; empty when off).
    pub compensated: bool,
    pub eq: Vec<T>,
    pub ep: Vec<T>,
    /// The vector instructions of the block's loops (`simd`): the processor's fastest.
    pub level: Level,
    /// A compensated discrete map's step in f64 (`Block::discrete_step_f64`): q, v and the
    /// drifted q as f64 (allocated on first use, then reused).
    pub wide: Vec<f64>,
}

impl<T: Real> Block<T> {
    pub fn new(n: usize, d: usize, nt: usize) -> Self {
        Self::with_solver(n, d, nt, Solver::default_for::<T>())
    }

    pub fn with_solver(n: usize, d: usize, nt: usize, solver: Solver) -> Self {
        let z = vec![T::ZERO; n * d * (1 + nt)];
        Block {
            n,
            d,
            nt,
            q: z.clone(),
            p: z.clone(),
            dq: z.clone(),
            dp: z.clone(),
            q0: z.clone(),
            p0: z.clone(),
            acc_q: z.clone(),
            acc_p: z,
            stages: Vec::new(),
            scratch: Vec::new(),
            solver,
            active: vec![false; n],
            conv: vec![false; n],
            moved: Vec::new(),
            last_moved: Vec::new(),
            unconverged: vec![0; n],
            compensated: false,
            eq: Vec::new(),
            ep: Vec::new(),
            level: Level::detected(),
            wide: Vec::new(),
        }
    }

    /// The same block with compensated updates switched on (zero carried errors) or off.
    pub fn with_compensation(mut self, on: bool) -> Self {
        self.compensated = on;
        let len = if on { self.q.len() } else { 0 };
        self.eq = vec![T::ZERO; len];
        self.ep = vec![T::ZERO; len];
        self
    }

    /// The same block with its loops compiled for `level` (the baseline's where the processor
    /// lacks it).
    pub fn at_level(mut self, level: Level) -> Self {
        self.level = level;
        self
    }

    #[inline(always)]
    pub(crate) fn vector(&self, v: Vector) -> &[T] {
        match v {
            Vector::Q => &self.q,
            Vector::P => &self.p,
            Vector::Q0 => &self.q0,
            Vector::P0 => &self.p0,
            Vector::Dq => &self.dq,
            Vector::Dp => &self.dp,
            Vector::AccQ => &self.acc_q,
            Vector::AccP => &self.acc_p,
            Vector::Stage(i) => &self.stages[i as usize],
        }
    }

    #[inline(always)]
    pub(crate) fn vector_mut(&mut self, v: Vector) -> &mut Vec<T> {
        match v {
            Vector::Q => &mut self.q,
            Vector::P => &mut self.p,
            Vector::Q0 => &mut self.q0,
            Vector::P0 => &mut self.p0,
            Vector::Dq => &mut self.dq,
            Vector::Dp => &mut self.dp,
            Vector::AccQ => &mut self.acc_q,
            Vector::AccP => &mut self.acc_p,
            Vector::Stage(i) => {
                let i = i as usize;
                if self.stages.len() <= i {
                    self.add_stages(i + 1);
                }
                &mut self.stages[i]
            }
        }
    }

    /// Stage slots up to `count`, zero-filled (once per block: the slots are reused by every
    /// later step).
    #[cold]
    #[inline(never)]
    fn add_stages(&mut self, count: usize) {
        let len = self.q.len();
        self.stages.resize_with(count, || vec![T::ZERO; len]);
    }

    /// Allocate stage slot `x` if it is one and not allocated yet (a slot read before it is
    /// written holds zeros). Free for the other vectors: the check folds away where the vector
    /// is a constant, as in every built-in's statements.
    #[inline(always)]
    fn ensure(&mut self, x: Vector) {
        if let Vector::Stage(i) = x {
            if self.stages.len() <= i as usize {
                self.vector_mut(x);
            }
        }
    }

    /// dst's buffer, taken out of the block so that the other vectors can be borrowed beside
    /// it (a move of the Vec; `put` returns it).
    #[inline(always)]
    fn take(&mut self, dst: Vector) -> Vec<T> {
        self.ensure(dst);
        std::mem::take(self.vector_mut(dst))
    }

    #[inline(always)]
    fn put(&mut self, dst: Vector, x: Vec<T>) {
        *self.vector_mut(dst) = x;
    }

    /// dst ← src
    #[inline(always)]
    pub fn copy(&mut self, dst: Vector, src: Vector) {
        if src != dst {
            self.ensure(src);
            let mut x = self.take(dst);
            x.copy_from_slice(self.vector(src));
            self.put(dst, x);
        }
    }

    /// dst ← base + c·g (dst may be base, not g)
    #[inline(always)]
    pub fn axpy(&mut self, dst: Vector, base: Vector, c: T, g: Vector) {
        debug_assert!(g != dst);
        self.ensure(base);
        self.ensure(g);
        let mut x = self.take(dst);
        let (b, g) = ((base != dst).then(|| self.vector(base)), self.vector(g));
        self.level.run(
            #[inline(always)]
            || match b {
                None => {
                    for (xi, &gi) in x.iter_mut().zip(g) {
                        *xi += c * gi;
                    }
                }
                Some(b) => {
                    for ((xi, &bi), &gi) in x.iter_mut().zip(b).zip(g) {
                        *xi = bi + c * gi;
                    }
                }
            },
        );
        self.put(dst, x);
    }

    /// x ← −x
    #[inline(always)]
    pub fn negate(&mut self, x: Vector) {
        self.ensure(x);
        for xi in self.vector_mut(x).iter_mut() {
            *xi = -*xi;
        }
    }

    /// dst ← e for every component. Each form the methods write is one loop (copy,
    /// x + c·g, c·g, −x, b + c·(a·k − m), a·x − y), with the same operations in the same
    /// order as the general form, so it rounds alike. Inlined into the method's statement,
    /// where the form and the vectors are constants (`Lin` is built with constant indices
    /// only), the match and the vector lookups fold away and the statement costs its loop
    /// alone: at the block's few hundred components a fixed cost per statement would show.
    /// Any other form goes vector by vector through temporaries.
    #[inline(always)]
    pub fn assign(&mut self, dst: Vector, e: &Lin<T>) {
        use Node::*;
        match *e.nodes() {
            [V(src)] => self.copy(dst, src),
            [V(base), V(g), Scale(c), Add] if g != dst => self.axpy(dst, base, c, g),
            [V(g), Scale(c)] if g != dst => {
                self.ensure(g);
                let mut x = self.take(dst);
                let g = self.vector(g);
                self.level.run(
                    #[inline(always)]
                    || {
                        for (xi, &gi) in x.iter_mut().zip(g) {
                            *xi = c * gi;
                        }
                    },
                );
                self.put(dst, x);
            }
            [V(src), Neg] if src == dst => self.negate(dst),
            [V(y0), V(k), Scale(a), V(m), Sub, Scale(c), Add]
                if y0 != dst && k != dst && m != dst =>
            {
                self.ensure(y0);
                self.ensure(k);
                self.ensure(m);
                let mut x = self.take(dst);
                let (y0, k, m) = (self.vector(y0), self.vector(k), self.vector(m));
                self.level.run(
                    #[inline(always)]
                    || {
                        for (((xi, &y), &ki), &mi) in x.iter_mut().zip(y0).zip(k).zip(m) {
                            *xi = y + c * (a * ki - mi);
                        }
                    },
                );
                self.put(dst, x);
            }
            [V(src), Scale(a), V(y), Sub] if src == dst && y != dst => {
                self.ensure(y);
                let mut x = self.take(dst);
                let y = self.vector(y);
                self.level.run(
                    #[inline(always)]
                    || {
                        for (xi, &yi) in x.iter_mut().zip(y) {
                            *xi = a * *xi - yi;
                        }
                    },
                );
                self.put(dst, x);
            }
            _ => self.assign_general(dst, e),
        }
    }

    /// A scratch vector of the block's length from the pool `assign_general` uses, for work
    /// that runs every step (an implicit solve's new values) without allocating; give it back
    /// with `return_scratch`.
    pub(super) fn take_scratch(&mut self) -> Vec<T> {
        let mut v = self.scratch.pop().unwrap_or_default();
        v.resize(self.q.len(), T::ZERO);
        v
    }

    /// Back into the pool (`take_scratch`).
    pub(super) fn return_scratch(&mut self, v: Vec<T>) {
        self.scratch.push(v);
    }

    /// `assign` of any form: a stack of vectors (block vectors or temporaries), one loop per
    /// node; the result's buffer is swapped into dst.
    #[inline(never)]
    fn assign_general(&mut self, dst: Vector, e: &Lin<T>) {
        for x in e.vectors() {
            self.ensure(x);
        }
        let len = self.q.len();
        let mut scratch = std::mem::take(&mut self.scratch);
        let mut stack = [Entry::Tmp(0); LIN_NODES];
        let (mut top, mut temps) = (0, 0);
        for node in e.nodes() {
            if let Node::V(x) = *node {
                stack[top] = Entry::Vec(x);
                top += 1;
                continue;
            }
            // The node's result goes into a fresh temporary (never one it reads).
            if scratch.len() <= temps {
                scratch.push(vec![T::ZERO; len]);
            }
            let mut out = std::mem::take(&mut scratch[temps]);
            let operand = |en: Entry| -> &[T] {
                match en {
                    Entry::Vec(x) => self.vector(x),
                    Entry::Tmp(t) => &scratch[t],
                }
            };
            match *node {
                Node::Scale(c) => {
                    let a = operand(stack[top - 1]);
                    for (o, &x) in out.iter_mut().zip(a) {
                        *o = c * x;
                    }
                    top -= 1;
                }
                Node::Neg => {
                    let a = operand(stack[top - 1]);
                    for (o, &x) in out.iter_mut().zip(a) {
                        *o = -x;
                    }
                    top -= 1;
                }
                Node::Add | Node::Sub => {
                    let (a, b) = (operand(stack[top - 2]), operand(stack[top - 1]));
                    if *node == Node::Add {
                        for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
                            *o = x + y;
                        }
                    } else {
                        for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
                            *o = x - y;
                        }
                    }
                    top -= 2;
                }
                Node::V(_) => unreachable!(),
            }
            scratch[temps] = out;
            stack[top] = Entry::Tmp(temps);
            top += 1;
            temps += 1;
        }
        match stack[0] {
            Entry::Tmp(t) => std::mem::swap(self.vector_mut(dst), &mut scratch[t]),
            Entry::Vec(x) => {
                let s = self.vector(x).to_vec();
                self.vector_mut(dst).copy_from_slice(&s);
            }
        }
        self.scratch = scratch;
    }
}

/// `out` = ∂H/∂q (or ∂H/∂p) of the block's points (the first n·d entries of q and p), then for
/// each tangent column (v_q, v_p) its directional derivative along that column, H_qq v_q + H_qp v_p
/// (or H_pq v_q + H_pp v_p): the exact linearisation of the kernel's update (GNI Lemma VI.4.1).
/// Its loops are compiled for `level` (`simd`): one function per float type holding each
/// level's copy of every built-in system's gradients, inlined into it, so that the copy the
/// processor takes has its vector instructions all the way into the system's loops.
#[inline(never)]
pub fn partial<T: Real>(
    level: Level,
    system: &HamiltonianSystem,
    which: Partial,
    nd: usize,
    q: &[T],
    p: &[T],
    out: &mut [T],
) {
    level.run(
        #[inline(always)]
        || gradients(system, which, nd, q, p, out),
    )
}

/// `partial`'s work, inlined into each level's copy.
#[inline(always)]
fn gradients<T: Real>(
    system: &HamiltonianSystem,
    which: Partial,
    nd: usize,
    q: &[T],
    p: &[T],
    out: &mut [T],
) {
    match which {
        // The system may share work between the force and its linearisation.
        Partial::Q => system.grad_q_tangent(nd, q, p, out),
        Partial::P => system.grad_p_tangent(nd, q, p, out),
    }
}

/// An operand of `assign_general`: a block vector or a temporary.
#[derive(Clone, Copy)]
enum Entry {
    Vec(Vector),
    Tmp(usize),
}

/// A method's steps on every point of a block: the CPU implementation of `Ops`.
pub struct Cpu<'a, T> {
    pub system: &'a System,
    pub b: &'a mut Block<T>,
    pub h: T,
}

impl<T: Real> Ops for Cpu<'_, T> {
    type S = T;

    #[inline(always)]
    fn h(&self) -> T {
        self.h
    }

    #[inline(always)]
    fn lit(&self, x: f64) -> T {
        T::from_f64(x)
    }

    #[inline(always)]
    fn mul(&mut self, a: T, b: T) -> T {
        a * b
    }

    #[inline(always)]
    fn div(&mut self, a: T, b: T) -> T {
        a / b
    }

    #[inline(always)]
    fn neg(&mut self, a: T) -> T {
        -a
    }

    #[inline(always)]
    fn assign(&mut self, dst: Vector, e: &Lin<T>) {
        self.b.assign(dst, e);
    }

    #[inline(always)]
    fn copy(&mut self, dst: Vector, src: Vector) {
        self.b.copy(dst, src);
    }

    #[inline(always)]
    fn axpy(&mut self, dst: Vector, base: Vector, c: T, g: Vector) {
        self.b.axpy(dst, base, c, g);
    }

    #[inline(always)]
    fn negate(&mut self, x: Vector) {
        self.b.negate(x);
    }

    #[inline(always)]
    fn update(&mut self, dst: Vector, base: Vector, c: T, g: Vector) {
        self.b.update(dst, base, c, g);
    }

    /// Inlined, so that the vectors' lookups fold where they are constants.
    #[inline(always)]
    fn partial(&mut self, which: Partial, q: Vector, p: Vector, out: Vector) {
        debug_assert!(out != q && out != p);
        // `Method::check_system` pairs a discrete map with `variational` alone, whose step
        // is `discrete_step`: the methods that take derivatives run on Hamiltonian systems.
        let Some(system) = self.system.hamiltonian() else {
            unreachable!("a discrete map has no vector field to differentiate")
        };
        let b = &mut *self.b;
        let nd = b.n * b.d;
        let mut o = std::mem::take(b.vector_mut(out));
        partial(b.level, system, which, nd, b.vector(q), b.vector(p), &mut o);
        *b.vector_mut(out) = o;
    }

    fn solve_iterated(&mut self, stage: Stage, c: T) {
        self.solve_to_tolerance(stage, c);
    }

    fn solve_stages(&mut self, s: &super::ops::StageSolve<T>) {
        self.solve_stages_to_tolerance(s);
    }

    fn discrete_step(&mut self, h: T) {
        // `Method::check_system` gives `variational` (this step's only caller) discrete maps alone.
        let Some(map) = self.system.discrete() else {
            unreachable!("a Hamiltonian system has no discrete map")
        };
        let b = &mut *self.b;
        let newton = crate::system::Newton {
            tol: b.solver.newton_tol::<T>(),
            max_iter: b.solver.max_iter,
        };
        if super::variational::in_f64::<T>(b.compensated, self.system) {
            return b.discrete_step_f64(map, h, newton);
        }
        let nd = b.n * b.d;
        // Tangent columns (holonomic maps with `tangent_step`) are linearised about the
        // points' states before the step, so those are kept for them, in the Runge–Kutta
        // accumulators (a discrete map's step has no other use for them; no allocation per step).
        let with_tangent = b.nt > 0;
        if with_tangent {
            b.acc_q[..nd].copy_from_slice(&b.q[..nd]);
            b.acc_p[..nd].copy_from_slice(&b.p[..nd]);
        }
        map.discrete_step(
            h,
            &mut b.q[..nd],
            &b.q0[..nd],
            &mut b.p[..nd],
            if b.compensated {
                &mut b.ep[..nd]
            } else {
                &mut []
            },
            newton,
            &mut b.unconverged,
        );
        if with_tangent {
            let r = nd..(1 + b.nt) * nd;
            let (q, v) = (&b.acc_q[..nd], &b.acc_p[..nd]);
            map.tangent_columns(h, q, v, &mut b.q[r.clone()], &mut b.p[r]);
        }
    }

    #[inline(always)]
    fn sweeps(&self) -> Option<u32> {
        self.system.sweeps()
    }

    #[inline(always)]
    fn explicit_kicks(&self) -> bool {
        super::explicit_kicks(self.system)
    }

    #[inline(always)]
    fn compensated(&self) -> bool {
        self.b.compensated
    }

    fn drifts_in_map(&self) -> bool {
        super::variational::in_f64::<T>(self.b.compensated, self.system)
    }
}

#[cfg(test)]
mod tests;
