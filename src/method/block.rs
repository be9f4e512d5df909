//! The CPU side of the operations interface: a `Block` of points (component-major working
//! storage) and `Cpu`, which runs a method's `Ops` statements on every point of it. Each
//! statement is a loop over the block's components, which the compiler vectorises.

use super::ops::{Lin, Node, Ops, Vector, LIN_NODES};
use super::{Partial, Solver, Stage};
use crate::float::Real;
use crate::system::System;

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
    /// Runge–Kutta: the state at the start of the step and the stage accumulators.
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
    /// Per point: implicit solves that hit the iteration cap (added to `State::unconverged`).
    pub unconverged: Vec<u32>,
    /// Compensated summation (`method::compensated`): updates carry the rounding errors in
    /// `eq` / `ep` (the block's share of `State::eq` / `ep`; empty when off).
    pub compensated: bool,
    pub eq: Vec<T>,
    pub ep: Vec<T>,
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
            unconverged: vec![0; n],
            compensated: false,
            eq: Vec::new(),
            ep: Vec::new(),
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
                    let len = self.q.len();
                    self.stages.resize_with(i + 1, || vec![T::ZERO; len]);
                }
                &mut self.stages[i]
            }
        }
    }

    /// Allocate the stage slots `e` reads (a slot read before it is written holds zeros).
    fn ensure_stages(&mut self, e: &Lin<T>) {
        for x in e.vectors() {
            if let Vector::Stage(_) = x {
                self.vector_mut(x);
            }
        }
    }

    /// dst ← e for every component: the hot forms (copy, x + c·g, x = −x) as single loops,
    /// any other form vector by vector through temporaries, each node one loop, which rounds
    /// as the kernel's per-component expression does.
    #[inline]
    pub fn assign(&mut self, dst: Vector, e: &Lin<T>) {
        self.ensure_stages(e);
        match *e.nodes() {
            [Node::V(src)] => {
                if src != dst {
                    let s = std::mem::take(self.vector_mut(src));
                    self.vector_mut(dst).copy_from_slice(&s);
                    *self.vector_mut(src) = s;
                }
            }
            [Node::V(base), Node::V(g), Node::Scale(c), Node::Add] if g != dst => {
                let mut x = std::mem::take(self.vector_mut(dst));
                if base == dst {
                    for (xi, &gi) in x.iter_mut().zip(self.vector(g)) {
                        *xi += c * gi;
                    }
                } else {
                    for ((xi, &bi), &gi) in x.iter_mut().zip(self.vector(base)).zip(self.vector(g))
                    {
                        *xi = bi + c * gi;
                    }
                }
                *self.vector_mut(dst) = x;
            }
            [Node::V(src), Node::Scale(c)] if src != dst => {
                let mut x = std::mem::take(self.vector_mut(dst));
                for (xi, &si) in x.iter_mut().zip(self.vector(src)) {
                    *xi = c * si;
                }
                *self.vector_mut(dst) = x;
            }
            [Node::V(src), Node::Neg] if src == dst => {
                for x in self.vector_mut(dst).iter_mut() {
                    *x = -*x;
                }
            }
            _ => self.assign_general(dst, e),
        }
    }

    /// `assign` of any form: a stack of vectors (block vectors or temporaries), one loop per
    /// node; the result's buffer is swapped into dst.
    fn assign_general(&mut self, dst: Vector, e: &Lin<T>) {
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
#[inline]
pub fn partial<T: Real>(
    system: &System,
    which: Partial,
    nd: usize,
    q: &[T],
    p: &[T],
    out: &mut [T],
) {
    match which {
        // The system may share work between the force and its linearisation.
        Partial::Q => system.grad_q_tangent(nd, q, p, out),
        Partial::P => crate::system::with_tangent_columns(
            nd,
            q,
            p,
            out,
            |q, p, o| system.grad_p(q, p, o),
            |q, p, vq, vp, o| system.grad_p_dir(q, p, vq, vp, o),
        ),
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
    fn update(&mut self, dst: Vector, base: Vector, c: T, g: Vector) {
        self.b.update(dst, base, c, g);
    }

    #[inline]
    fn partial(&mut self, which: Partial, q: Vector, p: Vector, out: Vector) {
        debug_assert!(out != q && out != p);
        let b = &mut *self.b;
        let nd = b.n * b.d;
        let mut o = std::mem::take(b.vector_mut(out));
        partial(self.system, which, nd, b.vector(q), b.vector(p), &mut o);
        *b.vector_mut(out) = o;
    }

    fn solve_iterated(&mut self, stage: Stage, c: T) {
        self.solve_to_tolerance(stage, c);
    }

    fn solve_stages(&mut self, s: &super::ops::StageSolve<T>) {
        self.solve_stages_to_tolerance(s);
    }

    fn discrete_step(&mut self, h: T) {
        let b = &mut *self.b;
        let newton = crate::system::Newton {
            tol: b.solver.tol,
            max_iter: b.solver.max_iter,
        };
        self.system
            .discrete_step(h, &mut b.q, &mut b.p, newton, &mut b.unconverged);
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
}

#[cfg(test)]
mod tests {
    use super::super::ops::v;
    use super::*;

    /// The general form rounds as the per-component expression: rk3's third stage.
    #[test]
    fn general_assign_equals_the_per_component_expression() {
        let mut b = Block::<f32>::new(5, 1, 0);
        for i in 0..5 {
            b.q0[i] = 0.1 + i as f32 / 3.0;
            b.dq[i] = 1.7 - i as f32 / 7.0;
            b.acc_q[i] = 0.3 * i as f32;
        }
        let (two, h) = (2.0f32, 0.0123f32);
        b.assign(
            Vector::Q,
            &(v(Vector::Q0) + (v(Vector::Dq) * two - v(Vector::AccQ)) * h),
        );
        for i in 0..5 {
            assert_eq!(b.q[i], b.q0[i] + h * (two * b.dq[i] - b.acc_q[i]));
        }
        // reading the destination: the implicit midpoint's 2m − y0
        let before = b.q.clone();
        b.assign(Vector::Q, &(v(Vector::Q) * two - v(Vector::Q0)));
        for (i, &m) in before.iter().enumerate() {
            assert_eq!(b.q[i], two * m - b.q0[i]);
        }
        // a stage slot, allocated on first use
        b.assign(Vector::Stage(3), &(v(Vector::Q) + v(Vector::Dq) * h));
        assert_eq!(b.stages.len(), 4);
        assert_eq!(b.stages[3][2], b.q[2] + h * b.dq[2]);
    }
}
