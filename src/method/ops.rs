//! The operations a method's step is written in, once, for every engine: `Ops`. The CPU engine
//! implements them over a `Block` of points (`method::block::Cpu`), the WGSL generator by
//! emitting the straight-line kernel (`method::wgsl::Kernel`), and `Count` by counting the
//! gradient evaluations a step takes (`Method::evals_per_step`). A method is a function
//! generic over `Ops`, so its two engines run the same statements in the same order and
//! cannot disagree.
//!
//! Vectors (a point's d·(1 + nt) components: the point and its tangent columns) are named by
//! `Vector`; scalars (`Ops::S`: a number on the CPU, a WGSL `let` name on the GPU) are built by
//! interface calls from h and literals, so every coefficient is rounded the same way on both.
//! A vector statement is a linear combination `Lin` assigned per component; the CPU evaluates
//! it vector by vector with the same operations in the same order as the kernel's
//! per-component expression (Rust neither contracts nor reassociates float arithmetic), so the
//! two round identically.

use super::{Partial, Stage};

/// The vectors a step may use (the `Block` fields of the same names; `Stage(i)`: stage slot i,
/// allocated on first use).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Vector {
    Q,
    P,
    Q0,
    P0,
    Dq,
    Dp,
    AccQ,
    AccP,
    Stage(u16),
}

impl Vector {
    /// Whether the vector holds q values (q, q0), whose updates carry `eq` (else `ep`).
    pub fn is_q(self) -> bool {
        matches!(self, Vector::Q | Vector::Q0)
    }
}

/// One node of a linear combination in postfix order.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Node<S> {
    /// Push a vector.
    V(Vector),
    /// Replace the top by s · top.
    Scale(S),
    /// Replace the two top entries a, b by a + b.
    Add,
    /// … by a − b.
    Sub,
    /// Replace the top by −top.
    Neg,
}

/// Most nodes one `Lin` holds. A longer sum is assigned in pieces into a stage vector:
/// ((a·x + b·y) + c·z) rounds the same in one statement or in two.
pub const LIN_NODES: usize = 8;

/// Most terms c·g one `Lin` of the form base + Σ c·g holds (1 node for the base, 3 per term).
pub const LIN_TERMS: usize = (LIN_NODES - 1) / 3;

/// A per-component linear combination of vectors with scalar coefficients, e.g.
/// `v(Q0) + (v(Dq) * two - v(AccQ)) * h` for q0 + h·(2·dq − acc_q): built with `v`, `+`, `-`,
/// unary `-` and `* s` (rendered and evaluated as s·x), without allocation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Lin<S> {
    nodes: [Node<S>; LIN_NODES],
    len: usize,
}

/// The vector `x` as a linear combination.
#[inline(always)]
pub fn v<S: Copy>(x: Vector) -> Lin<S> {
    let mut l = Lin {
        nodes: [Node::Add; LIN_NODES],
        len: 0,
    };
    l.push(Node::V(x));
    l
}

impl<S: Copy> Lin<S> {
    /// Append a node. Every store is at a constant index (no indexing by the length): once a
    /// statement is inlined the compiler then keeps its `Lin` in registers and folds the
    /// CPU block's match on its form (`Block::assign`), so a statement costs its loop only.
    #[inline(always)]
    fn push(&mut self, n: Node<S>) {
        assert!(
            self.len < LIN_NODES,
            "a linear combination of more than {LIN_NODES} nodes: assign it in pieces"
        );
        for (i, slot) in self.nodes.iter_mut().enumerate() {
            if i == self.len {
                *slot = n;
            }
        }
        self.len += 1;
    }

    #[inline(always)]
    fn then(mut self, other: &Lin<S>, op: Node<S>) -> Self {
        for (i, &n) in other.nodes.iter().enumerate() {
            if i < other.len {
                self.push(n);
            }
        }
        self.push(op);
        self
    }

    /// The nodes in postfix order.
    #[inline(always)]
    pub fn nodes(&self) -> &[Node<S>] {
        &self.nodes[..self.len]
    }

    /// Whether vector `x` is read.
    pub fn reads(&self, x: Vector) -> bool {
        self.vectors().any(|y| y == x)
    }

    /// Every vector read, in order (with repeats).
    #[inline(always)]
    pub fn vectors(&self) -> impl Iterator<Item = Vector> + '_ {
        self.nodes().iter().filter_map(|n| match n {
            Node::V(x) => Some(*x),
            _ => None,
        })
    }
}

impl<S: Copy> std::ops::Add for Lin<S> {
    type Output = Lin<S>;
    #[inline(always)]
    fn add(self, b: Lin<S>) -> Lin<S> {
        self.then(&b, Node::Add)
    }
}

impl<S: Copy> std::ops::Sub for Lin<S> {
    type Output = Lin<S>;
    #[inline(always)]
    fn sub(self, b: Lin<S>) -> Lin<S> {
        self.then(&b, Node::Sub)
    }
}

impl<S: Copy> std::ops::Neg for Lin<S> {
    type Output = Lin<S>;
    #[inline(always)]
    fn neg(mut self) -> Lin<S> {
        self.push(Node::Neg);
        self
    }
}

impl<S: Copy> std::ops::Mul<S> for Lin<S> {
    type Output = Lin<S>;
    #[inline(always)]
    fn mul(mut self, s: S) -> Lin<S> {
        self.push(Node::Scale(s));
        self
    }
}

/// The operations of a step. Required: the scalars, `assign`, `update`, `partial`, the
/// iterated implicit solve and `discrete_step`; the rest (gradients, exact sweeps, the
/// symplectic Euler / Verlet stages and their compensated finish) is written here once, on top
/// of them, for every engine.
pub trait Ops {
    /// A scalar of the step: the engine's float on the CPU, a WGSL name or literal on the GPU.
    type S: Copy;

    /// The step size h.
    fn h(&self) -> Self::S;
    /// The coefficient `x` at the engine's precision (`T::from_f64(x)`, an exact literal).
    fn lit(&self, x: f64) -> Self::S;
    /// a · b
    fn mul(&mut self, a: Self::S, b: Self::S) -> Self::S;
    /// a / b
    fn div(&mut self, a: Self::S, b: Self::S) -> Self::S;
    /// −a
    fn neg(&mut self, a: Self::S) -> Self::S;

    /// dst ← e, per component (plain: not a compensated state update).
    fn assign(&mut self, dst: Vector, e: &Lin<Self::S>);
    /// dst ← base + c·g (dst may be base), compensated when the run is (`method::compensated`):
    /// dst is q, p, q0 or p0 and base owns the current carried error of its kind.
    fn update(&mut self, dst: Vector, base: Vector, c: Self::S, g: Vector);
    /// out ← ∂H/∂q or ∂H/∂p at the point (q, p) of the two vectors given, then for each tangent
    /// column its directional derivative (`method::partial`).
    fn partial(&mut self, which: Partial, q: Vector, p: Vector, out: Vector);
    /// Solve an implicit stage from the current q, p (base values in q0 / p0) by fixed-point
    /// sweeps to the solver's tolerance, counting the points that hit the cap
    /// (`method::implicit`).
    fn solve_iterated(&mut self, stage: Stage, c: Self::S);
    /// Solve an implicit method's stage equations (`StageSolve`) by fixed-point sweeps to the
    /// solver's tolerance from the stage vectors' current values, counting the points that hit
    /// the cap as `solve_iterated` does (`method::family`).
    fn solve_stages(&mut self, s: &StageSolve<Self::S>);
    /// One step of a variational system's own two-step map (`method::variational`).
    fn discrete_step(&mut self, h: Self::S);

    /// The system's exact sweep count for implicit stages (`SystemInfo::sweeps`).
    fn sweeps(&self) -> Option<u32>;
    /// Whether H = T(p) + V(q) with explicit kicks and drifts (one exact sweep): the
    /// kick–drift methods then run as a kick–drift sequence with the force carried over.
    fn explicit_kicks(&self) -> bool;
    /// Whether updates are compensated (`--compensated`).
    fn compensated(&self) -> bool;
    /// Whether `discrete_step` sums the drift q + h v itself, so the method does not: the CPU
    /// engine's compensated runs below f64, which take the whole step in f64 from the state's
    /// (value, carried error) pairs (`method::variational`).
    fn drifts_in_map(&self) -> bool {
        false
    }

    /// dst ← src
    #[inline]
    fn copy(&mut self, dst: Vector, src: Vector) {
        self.assign(dst, &v(src));
    }

    /// dst ← base + c·g, plain (dst may be base, not g): a stage value y0 + c·k, an
    /// accumulation acc + c·k. `assign` of that form; an operation of its own, like `copy`
    /// and `negate`, so that the CPU block runs the statement as its bare loop, with no cost
    /// for reading the form (`Block::axpy`): the Runge–Kutta steps are mostly these.
    #[inline]
    fn axpy(&mut self, dst: Vector, base: Vector, c: Self::S, g: Vector) {
        self.assign(dst, &(v(base) + v(g) * c));
    }

    /// x ← −x
    #[inline]
    fn negate(&mut self, x: Vector) {
        self.assign(x, &-v(x));
    }

    /// dq ← ∂H/∂q at (q, p), with the tangent columns: the kick's force.
    #[inline]
    fn grad_q(&mut self) {
        self.partial(Partial::Q, Vector::Q, Vector::P, Vector::Dq);
    }

    /// dp ← ∂H/∂p at (q, p), with the tangent columns: the drift's velocity.
    #[inline]
    fn grad_p(&mut self) {
        self.partial(Partial::P, Vector::Q, Vector::P, Vector::Dp);
    }

    /// The gradients a sweep of `stage` takes: ∂H/∂q for a kick, ∂H/∂p for a drift, both for
    /// the midpoint.
    #[inline]
    fn stage_gradients(&mut self, stage: Stage) {
        if stage != Stage::Drift {
            self.grad_q();
        }
        if stage != Stage::Kick {
            self.grad_p();
        }
    }

    /// Solve an implicit stage: `sweeps` plain sweeps x ← base + c·g that solve it exactly
    /// (no convergence bookkeeping), or `None` to iterate to the tolerance.
    #[inline]
    fn solve(&mut self, stage: Stage, c: Self::S, sweeps: Option<u32>) {
        let Some(s) = sweeps else {
            return self.solve_iterated(stage, c);
        };
        for _ in 0..s {
            self.stage_gradients(stage);
            if stage != Stage::Kick {
                self.axpy(Vector::Q, Vector::Q0, c, Vector::Dp);
            }
            if stage != Stage::Drift {
                let m = self.neg(c);
                self.axpy(Vector::P, Vector::P0, m, Vector::Dq);
            }
        }
    }

    /// The symplectic Euler / Verlet stages: exact sweeps where the system allows them, the
    /// result's sum compensated when the run is (`finish_stage`).
    #[inline]
    fn solve_stage(&mut self, stage: Stage, c: Self::S) {
        let sweeps = self.sweeps();
        self.solve(stage, c, sweeps);
        self.finish_stage(stage, c, sweeps.is_none());
    }

    /// After an implicit stage has been solved with plain sweeps x = base + c·g: repeat the
    /// last sweep's sum compensated, so the stage's result carries its rounding error. After
    /// exact sweeps the last sweep's gradient is still in dq / dp; after an iteration it is
    /// evaluated again at the solution, since points leave the iteration at different sweeps
    /// (the GPU's threads leave the loop, while the CPU block keeps evaluating every point).
    /// Plain runs keep the solved value as it is.
    #[inline]
    fn finish_stage(&mut self, stage: Stage, c: Self::S, iterated: bool) {
        if !self.compensated() {
            return;
        }
        if iterated {
            self.stage_gradients(stage);
        }
        if stage != Stage::Kick {
            self.update(Vector::Q, Vector::Q0, c, Vector::Dp);
        }
        if stage != Stage::Drift {
            let m = self.neg(c);
            self.update(Vector::P, Vector::P0, m, Vector::Dq);
        }
    }
}

/// The stage equations of an implicit Runge–Kutta-type method, solved together per point by
/// Jacobi sweeps: each sweep runs the gradient evaluations `evals` in order (`partial(which, q,
/// p, out)`), then sets every equation's x ← base + Σ c·g (summed left to right, one rounding
/// per operation); a point has converged when no equation moved a primal component of its x
/// (k < d) by more than tol·(1 + |x|). A converged point keeps its values (on the GPU its
/// thread leaves the loop; the CPU block masks it).
#[derive(Debug, Clone, PartialEq)]
pub struct StageSolve<S> {
    pub evals: Vec<(Partial, Vector, Vector, Vector)>,
    pub eqs: Vec<StageEq<S>>,
}

/// One equation x = base + Σ c·g of a `StageSolve`.
#[derive(Debug, Clone, PartialEq)]
pub struct StageEq<S> {
    pub x: Vector,
    pub base: Vector,
    pub terms: Vec<(S, Vector)>,
}

/// Counts the gradient evaluations (∂H/∂q or ∂H/∂p, each a loop over the components) of the
/// statements run on it: an iterated solve counts the solver's cap of sweeps, a variational
/// map its Newton cap where it iterates. Compensation is off: the counts size dispatches and
/// progress, and the compensated finish of an iterated stage adds one sweep's worth at most.
pub struct Count {
    pub sweeps: Option<u32>,
    pub max_iter: u32,
    pub explicit_kicks: bool,
    pub evals: u64,
}

impl Ops for Count {
    type S = ();

    fn h(&self) {}
    fn lit(&self, _x: f64) {}
    fn mul(&mut self, _a: (), _b: ()) {}
    fn div(&mut self, _a: (), _b: ()) {}
    fn neg(&mut self, _a: ()) {}
    fn assign(&mut self, _dst: Vector, _e: &Lin<()>) {}
    fn update(&mut self, _dst: Vector, _base: Vector, _c: (), _g: Vector) {}

    fn partial(&mut self, _which: Partial, _q: Vector, _p: Vector, _out: Vector) {
        self.evals += 1;
    }

    fn solve_iterated(&mut self, stage: Stage, _c: ()) {
        let per_sweep = if stage == Stage::Midpoint { 2 } else { 1 };
        self.evals += per_sweep * self.max_iter as u64;
    }

    fn solve_stages(&mut self, s: &StageSolve<()>) {
        self.evals += s.evals.len() as u64 * self.max_iter as u64;
    }

    fn discrete_step(&mut self, _h: ()) {
        self.evals += self.sweeps.unwrap_or(self.max_iter) as u64;
    }

    fn sweeps(&self) -> Option<u32> {
        self.sweeps
    }

    fn explicit_kicks(&self) -> bool {
        self.explicit_kicks
    }

    fn compensated(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_combinations_are_postfix_programs() {
        let e: Lin<f64> = v(Vector::Q0) + (v(Vector::Dq) * 2.0 - v(Vector::AccQ)) * 0.5;
        assert_eq!(
            e.nodes(),
            [
                Node::V(Vector::Q0),
                Node::V(Vector::Dq),
                Node::Scale(2.0),
                Node::V(Vector::AccQ),
                Node::Sub,
                Node::Scale(0.5),
                Node::Add
            ]
        );
        assert!(e.reads(Vector::AccQ) && !e.reads(Vector::Q));
        assert_eq!(
            e.vectors().collect::<Vec<_>>(),
            [Vector::Q0, Vector::Dq, Vector::AccQ]
        );
    }
}
