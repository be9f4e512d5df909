//! `Scaled`: the operations of an engine with another step size, for a composition's steps of
//! size w·h over a base method whose step reads h from its operations (a built-in). Built over
//! `dyn Ops` so that a composition of compositions stays one type, however deep.

use crate::method::ops::{Lin, Ops, StageSolve, Vector};
use crate::method::{Partial, Stage};

/// `o`'s operations with `h()` = `h`.
pub struct Scaled<'a, S> {
    pub o: &'a mut dyn Ops<S = S>,
    pub h: S,
}

impl<S: Copy> Ops for Scaled<'_, S> {
    type S = S;

    fn h(&self) -> S {
        self.h
    }
    fn lit(&self, x: f64) -> S {
        self.o.lit(x)
    }
    fn mul(&mut self, a: S, b: S) -> S {
        self.o.mul(a, b)
    }
    fn div(&mut self, a: S, b: S) -> S {
        self.o.div(a, b)
    }
    fn neg(&mut self, a: S) -> S {
        self.o.neg(a)
    }
    fn assign(&mut self, dst: Vector, e: &Lin<S>) {
        self.o.assign(dst, e)
    }
    fn copy(&mut self, dst: Vector, src: Vector) {
        self.o.copy(dst, src)
    }
    fn axpy(&mut self, dst: Vector, base: Vector, c: S, g: Vector) {
        self.o.axpy(dst, base, c, g)
    }
    fn negate(&mut self, x: Vector) {
        self.o.negate(x)
    }
    fn update(&mut self, dst: Vector, base: Vector, c: S, g: Vector) {
        self.o.update(dst, base, c, g)
    }
    fn partial(&mut self, which: Partial, q: Vector, p: Vector, out: Vector) {
        self.o.partial(which, q, p, out)
    }
    fn solve_iterated(&mut self, stage: Stage, c: S) {
        self.o.solve_iterated(stage, c)
    }
    fn solve_stages(&mut self, s: &StageSolve<S>) {
        self.o.solve_stages(s)
    }
    fn discrete_step(&mut self, h: S) {
        self.o.discrete_step(h)
    }
    fn sweeps(&self) -> Option<u32> {
        self.o.sweeps()
    }
    fn explicit_kicks(&self) -> bool {
        self.o.explicit_kicks()
    }
    fn compensated(&self) -> bool {
        self.o.compensated()
    }
    fn drifts_in_map(&self) -> bool {
        self.o.drifts_in_map()
    }
}
