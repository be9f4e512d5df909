//! The CPU engine's fused path: a method's whole step applied to a small group of points at a
//! time, many steps per pass, as the GPU kernel runs one point per thread. The block path
//! (`block::Cpu`) runs each statement of the step as its own loop over a block of a few
//! hundred points, each through the block's vectors and the gradients' dispatch over systems.
//! Here a group is 64 points, a few vector registers' worth per component (four 512-bit
//! registers of f32, eight of f64), its vectors fixed-size arrays, so each statement
//! is a loop of constant length, and the system's gradients are compiled into the loop
//! that runs the statements (one copy per system: `Visit`), with no call between them.
//!
//! The statements are the method's own: `Scheme::step` runs once on `Record`, an `Ops` that
//! computes the step's scalars (h and the coefficients, in `T`, as `block::Cpu` does) and
//! keeps its statements, as the WGSL generator lowers the same step to a kernel; `run_groups`
//! then runs them on every group, step after step. Each statement computes per component
//! what `block::Cpu` computes, with the same operations in the same order, so the two paths
//! give the same bits (tests: `method::fused::tests`). A step that needs the block's
//! machinery takes the block path: iterated implicit solves (their per-point convergence
//! bookkeeping), a discrete map's step, more stage slots than a group holds, or a number of
//! components per point that no group width fits (`width`).
//!
//! The per-step observers run here too: the engine passes a `Between`, given each group's
//! points (`Points`) around each of its steps but the quiet ones (a sample every K steps: one
//! call per K steps), as the block path gives its block's; a group whose points have all
//! stopped takes no further step. (Stop conditions keep the block path: `CpuEngine::stops`.)

mod scratch;

pub use scratch::Scratch;

use super::ops::{Lin, Node, Ops, StageSolve, Vector, LIN_NODES};
use super::{Method, Partial, Points, Stage};
use crate::float::{compensated_sum, Real};
use crate::simd::Level;
use crate::system::{Hamiltonian, HamiltonianSystem, System, Visit};

/// Stage slots (`Vector::Stage(i)`, i < STAGES) a group holds.
const STAGES: usize = 8;

/// The vectors a group holds: the eight named ones, then the stage slots.
const VECTORS: usize = 8 + STAGES;

/// Points per group: four 512-bit registers of f32 per component, eight of f64. A loop of
/// that many f64 stays a loop for the compiler to vectorise; at 32 it unrolls it into
/// scalar operations first.
pub const POINTS: usize = 64;

/// Where `x` lives in a group (`Lanes::v`); `None` for a stage slot beyond the group's.
fn slot(x: Vector) -> Option<usize> {
    Some(match x {
        Vector::Q => 0,
        Vector::P => 1,
        Vector::Q0 => 2,
        Vector::P0 => 3,
        Vector::Dq => 4,
        Vector::Dp => 5,
        Vector::AccQ => 6,
        Vector::AccP => 7,
        Vector::Stage(i) if (i as usize) < STAGES => 8 + i as usize,
        Vector::Stage(_) => return None,
    })
}

/// A statement of a recorded step, its vectors as group slots.
#[derive(Debug, Clone, Copy)]
enum Statement<T> {
    /// dst ← src
    Copy { dst: usize, src: usize },
    /// dst ← base + c·g (`base` None: dst itself), plain.
    Axpy {
        dst: usize,
        base: Option<usize>,
        c: T,
        g: usize,
    },
    /// x ← −x
    Negate { x: usize },
    /// dst ← e, per component.
    Assign { dst: usize, e: Lin<T> },
    /// dst ← base + c·g, compensated when the run is, with the carried error of q (`q`) or p.
    Update {
        dst: usize,
        base: Option<usize>,
        c: T,
        g: usize,
        q: bool,
    },
    /// out ← ∂H/∂q or ∂H/∂p at (q, p).
    Partial {
        which: Partial,
        q: usize,
        p: usize,
        out: usize,
    },
}

/// The statements of a step (`Ops` with the engine's scalars, as `block::Cpu` computes them),
/// or, where the fused path cannot take it, `fusable` false.
struct Record<T> {
    h: T,
    sweeps: Option<u32>,
    explicit_kicks: bool,
    compensated: bool,
    statements: Vec<Statement<T>>,
    fusable: bool,
}

impl<T: Real> Record<T> {
    fn at(&mut self, x: Vector) -> usize {
        slot(x).unwrap_or_else(|| {
            self.fusable = false;
            0
        })
    }

    /// `base`'s slot, or `None` where it is `dst` itself.
    fn base(&mut self, base: Vector, dst: Vector) -> Option<usize> {
        let b = self.at(base);
        (base != dst).then_some(b)
    }
}

impl<T: Real> Ops for Record<T> {
    type S = T;

    fn h(&self) -> T {
        self.h
    }

    fn lit(&self, x: f64) -> T {
        T::from_f64(x)
    }

    fn mul(&mut self, a: T, b: T) -> T {
        a * b
    }

    fn div(&mut self, a: T, b: T) -> T {
        a / b
    }

    fn neg(&mut self, a: T) -> T {
        -a
    }

    fn assign(&mut self, dst: Vector, e: &Lin<T>) {
        for x in e.vectors() {
            self.at(x);
        }
        let dst = self.at(dst);
        self.statements.push(Statement::Assign { dst, e: *e });
    }

    fn copy(&mut self, dst: Vector, src: Vector) {
        let (dst, src) = (self.at(dst), self.at(src));
        self.statements.push(Statement::Copy { dst, src });
    }

    fn axpy(&mut self, dst: Vector, base: Vector, c: T, g: Vector) {
        let base = self.base(base, dst);
        let (dst, g) = (self.at(dst), self.at(g));
        self.statements.push(Statement::Axpy { dst, base, c, g });
    }

    fn negate(&mut self, x: Vector) {
        let x = self.at(x);
        self.statements.push(Statement::Negate { x });
    }

    fn update(&mut self, dst: Vector, base: Vector, c: T, g: Vector) {
        let q = dst.is_q();
        let base = self.base(base, dst);
        let (dst, g) = (self.at(dst), self.at(g));
        let update = Statement::Update { dst, base, c, g, q };
        self.statements.push(update);
    }

    fn partial(&mut self, which: Partial, q: Vector, p: Vector, out: Vector) {
        let (q, p, out) = (self.at(q), self.at(p), self.at(out));
        self.statements
            .push(Statement::Partial { which, q, p, out });
    }

    fn solve_iterated(&mut self, _stage: Stage, _c: T) {
        self.fusable = false;
    }

    fn solve_stages(&mut self, _s: &StageSolve<T>) {
        self.fusable = false;
    }

    fn discrete_step(&mut self, _h: T) {
        self.fusable = false;
    }

    fn sweeps(&self) -> Option<u32> {
        self.sweeps
    }

    fn explicit_kicks(&self) -> bool {
        self.explicit_kicks
    }

    fn compensated(&self) -> bool {
        self.compensated
    }
}

/// A method's prologue and step on `system` as statements (`Record`), where the fused path
/// takes them: a built-in Hamiltonian system (not a formula), no iterated solve, the group's
/// stage slots.
pub struct Program<T> {
    prologue: Vec<Statement<T>>,
    step: Vec<Statement<T>>,
}

impl<T: Real> Program<T> {
    pub fn record(method: Method, system: &System, h: T, compensated: bool) -> Option<Self> {
        // A formula's gradients are a bytecode program run once per statement: at a group's
        // 64 points its cost per instruction is not paid back, so formulas keep the block's
        // few hundred (measured: twice as fast there).
        if matches!(system.hamiltonian()?, HamiltonianSystem::Expr(_)) {
            return None;
        }
        let mut r = Record {
            h,
            sweeps: system.sweeps(),
            explicit_kicks: super::explicit_kicks(system),
            compensated,
            statements: Vec::new(),
            fusable: true,
        };
        method.prologue(&mut r);
        let prologue = std::mem::take(&mut r.statements);
        method.step(&mut r);
        r.fusable.then_some(Program {
            prologue,
            step: r.statements,
        })
    }
}

/// Whether the fused path takes `method` on `system`, compensated or not (`Program::record`).
pub fn fusable(method: Method, system: &System, compensated: bool) -> bool {
    Program::<f64>::record(method, system, 1.0, compensated).is_some()
}

/// Components per point the fused path is compiled for: a plain point of 1 to 4 degrees of
/// freedom, and points with tangent columns (`--tangent`, the chaos indicators' deviation
/// vectors): d·(1 + nt) up to 10 (Hénon–Heiles with GALI_4). Each is one more copy of the
/// groups' loops per system and precision.
const COMPS: [usize; 7] = [1, 2, 3, 4, 6, 8, 10];

/// The values per vector of a group with `comps` components per point, among the sizes the
/// fused path is compiled for (`COMPS`), or `None` (then the block path): `POINTS` points.
pub fn width(comps: usize) -> Option<usize> {
    COMPS.contains(&comps).then_some(POINTS * comps)
}

/// A group of points: every vector of the step as N values (W points × the components per
/// point, component-major as in `Block`) and the carried errors of a compensated run.
/// Aligned to the cache line, so that no vector load or store of a group straddles two lines
/// (a store that does also delays the loads that read it back).
#[repr(C, align(64))]
#[derive(Clone)]
struct Lanes<T, const N: usize> {
    v: [[T; N]; VECTORS],
    eq: [T; N],
    ep: [T; N],
}

impl<T: Real, const N: usize> Lanes<T, N> {
    fn new() -> Self {
        Lanes {
            v: [[T::ZERO; N]; VECTORS],
            eq: [T::ZERO; N],
            ep: [T::ZERO; N],
        }
    }

    /// The group's points as the observers see them (`Points`): `w` points, `d` degrees of
    /// freedom, `nt` tangent columns; the carried errors where `compensated`.
    fn points(&mut self, w: usize, at: (usize, usize, Level), compensated: bool) -> Points<'_, T> {
        let (d, nt, level) = at;
        let [q, p, _, _, dq, dp, ..] = &mut self.v;
        let (eq, ep): (&mut [T], &mut [T]) = match compensated {
            true => (&mut self.eq, &mut self.ep),
            false => (&mut [], &mut []),
        };
        Points {
            n: w,
            d,
            nt,
            level,
            q,
            p,
            dq,
            dp,
            eq,
            ep,
        }
    }

    /// Slot `dst` writable beside slots `a` and `b` read (`a`, `b` ≠ `dst`), and the carried
    /// errors.
    #[inline(always)]
    fn split(&mut self, dst: usize, a: usize, b: usize) -> Split<'_, T, N> {
        debug_assert!(dst != a && dst != b);
        let (lo, hi) = self.v.split_at_mut(dst);
        let (out, hi) = hi.split_first_mut().expect("dst is a slot");
        let get = |i: usize| -> &[T; N] {
            if i < dst {
                &lo[i]
            } else {
                &hi[i - dst - 1]
            }
        };
        (out, get(a), get(b), [&mut self.eq, &mut self.ep])
    }

    /// Run `statements` on this group (`Statement`'s meanings), with the system's gradients.
    #[inline(always)]
    fn run<H: Hamiltonian>(&mut self, s: &[Statement<T>], at: &At<T, H>, tmp: &mut Temps<T, N>) {
        for st in s {
            match *st {
                Statement::Copy { dst, src } => self.v[dst] = self.v[src],
                Statement::Axpy { dst, base, c, g } => {
                    let (x, b, g, _) = self.split(dst, base.unwrap_or(g), g);
                    update(x, base.map(|_| b), c, g, None);
                }
                Statement::Negate { x } => self.v[x].iter_mut().for_each(|x| *x = -*x),
                Statement::Assign { dst, ref e } => self.assign(dst, e, tmp),
                Statement::Update { dst, base, c, g, q } => {
                    let (x, b, g, [eq, ep]) = self.split(dst, base.unwrap_or(g), g);
                    let e = at.compensated.then_some(if q { eq } else { ep });
                    update(x, base.map(|_| b), c, g, e);
                }
                Statement::Partial { which, q, p, out } => {
                    let (o, q, p, _) = self.split(out, q, p);
                    match which {
                        Partial::Q => at.system.grad_q_tangent(at.nd, q, p, o),
                        Partial::P => at.system.grad_p_tangent(at.nd, q, p, o),
                    }
                }
            }
        }
    }

    /// dst ← e, node by node over the whole group, as `Block::assign_general` runs it (each
    /// form `Block::assign` writes as one loop computes the same per component).
    #[inline(always)]
    fn assign(&mut self, dst: usize, e: &Lin<T>, tmp: &mut Temps<T, N>) {
        let mut top = 0;
        for node in e.nodes() {
            match *node {
                Node::V(x) => {
                    tmp.0[top] = self.v[slot(x).expect("recorded")];
                    top += 1;
                }
                Node::Scale(c) => tmp.0[top - 1].iter_mut().for_each(|x| *x = c * *x),
                Node::Neg => tmp.0[top - 1].iter_mut().for_each(|x| *x = -*x),
                Node::Add | Node::Sub => {
                    let (a, b) = tmp.0.split_at_mut(top - 1);
                    let (a, b) = (&mut a[top - 2], &b[0]);
                    if *node == Node::Add {
                        a.iter_mut().zip(b).for_each(|(x, &y)| *x += y);
                    } else {
                        a.iter_mut().zip(b).for_each(|(x, &y)| *x -= y);
                    }
                    top -= 1;
                }
            }
        }
        self.v[dst] = tmp.0[0];
    }
}

/// x ← base + c·g (`base` None: x itself), with the carried error `e` where compensated: as
/// `Block::axpy` (without `e`) and `Block::update` (`method::compensated`).
#[inline(always)]
fn update<T: Real, const N: usize>(
    x: &mut [T; N],
    base: Option<&[T; N]>,
    c: T,
    g: &[T; N],
    e: Option<&mut [T; N]>,
) {
    match (base, e) {
        (None, None) => x.iter_mut().zip(g).for_each(|(x, &g)| *x += c * g),
        (Some(b), None) => {
            for ((x, &b), &g) in x.iter_mut().zip(b).zip(g) {
                *x = b + c * g;
            }
        }
        (None, Some(e)) => {
            for ((x, e), &g) in x.iter_mut().zip(e.iter_mut()).zip(g) {
                (*x, *e) = compensated_sum(*x, c * g, *e);
            }
        }
        (Some(b), Some(e)) => {
            for (((x, e), &b), &g) in x.iter_mut().zip(e.iter_mut()).zip(b).zip(g) {
                (*x, *e) = compensated_sum(b, c * g, *e);
            }
        }
    }
}

/// A slot written, two read, and the carried errors (`Lanes::split`).
type Split<'a, T, const N: usize> = (&'a mut [T; N], &'a [T; N], &'a [T; N], [&'a mut [T; N]; 2]);

/// The temporaries of `assign`, aligned as `Lanes`.
#[repr(C, align(64))]
struct Temps<T, const N: usize>([[T; N]; LIN_NODES]);

/// What a group's statements run with: the system, the group's point components (W·d, the
/// gradients' `nd`), whether updates are compensated.
struct At<'a, T, H> {
    system: &'a H,
    nd: usize,
    compensated: bool,
    _t: std::marker::PhantomData<T>,
}

/// What a block run on the fused path applies.
pub struct Run<'a, T> {
    pub system: &'a System,
    pub program: &'a Program<T>,
    pub level: Level,
    /// Degrees of freedom and components per point (d·(1 + tangent columns)).
    pub d: usize,
    pub comps: usize,
    pub compensated: bool,
    pub steps: u64,
}

/// What runs between a group's steps besides the method: the engine's per-step observers,
/// given the group's points (`Points`) by its index in the block (`g`, 0 first).
pub trait Between<T> {
    /// Group `g` loaded, before its first step: whether it takes steps (false: every point of
    /// it has stopped).
    fn start(&mut self, g: usize, at: &mut Points<T>) -> bool;
    /// Before each of group `g`'s steps.
    fn before_step(&mut self, g: usize, at: &Points<T>);
    /// After group `g`'s step `k` (0 first): whether it takes further steps.
    fn after_step(&mut self, g: usize, at: &mut Points<T>, k: u64) -> bool;
    /// The steps from step `k` on that no group's hook acts at: run without the hooks.
    fn quiet(&self, k: u64) -> u64;
}

/// Advance a block of points, given as per-component slices of the state (q's components,
/// then p's, then, compensated, those of eq and ep), by `run.steps` steps, group by group; a
/// short last group is padded with copies of its first point, as a block is. The caller has
/// checked that `width` has a size for the components. `scratch`: the worker's (`Scratch`).
pub fn advance<T: Real>(run: &Run<T>, parts: &mut [&mut [T]], scratch: &mut Scratch) {
    advance_between(run, parts, None, scratch)
}

/// `advance` with `between` run before and after each group's steps (`Between`).
pub fn advance_between<T: Real>(
    run: &Run<T>,
    parts: &mut [&mut [T]],
    between: Option<&mut dyn Between<T>>,
    scratch: &mut Scratch,
) {
    macro_rules! sizes {
        ($($c:literal),*) => {
            match width(run.comps) {
                $(Some(n) if n == POINTS * $c => {
                    advance_in::<T, { POINTS * $c }>(run, parts, between, scratch)
                })*
                _ => unreachable!("the caller checks `width`"),
            }
        };
    }
    sizes!(1, 2, 3, 4, 6, 8, 10)
}

/// `run_groups` for the inner system (`Visit`).
struct Groups<'a, 'b, T, const N: usize> {
    run: &'a Run<'a, T>,
    groups: &'a mut [Lanes<T, N>],
    tmp: &'a mut Temps<T, N>,
    between: Option<&'a mut (dyn Between<T> + 'b)>,
}

impl<T: Real, const N: usize> Visit for Groups<'_, '_, T, N> {
    type Out = ();
    fn visit<H: Hamiltonian>(self, system: &H) {
        run_groups(self.run, self.groups, self.tmp, system, self.between);
    }
}

fn advance_in<T: Real, const N: usize>(
    run: &Run<T>,
    parts: &mut [&mut [T]],
    between: Option<&mut dyn Between<T>>,
    scratch: &mut Scratch,
) {
    let Some(system) = run.system.hamiltonian() else {
        unreachable!("`Program::record` takes Hamiltonian systems only")
    };
    let (c, w) = (run.comps, N / run.comps);
    let m = parts[0].len();
    let mut held = scratch.take::<T, N>(m.div_ceil(w));
    held.load(parts, c, w, m);
    let scratch::Held { groups, tmp } = &mut *held;
    system.visit(Groups::<T, N> {
        run,
        groups: &mut groups[..m.div_ceil(w)],
        tmp,
        between,
    });
    held.store(parts, c, w, m);
    scratch.put(held);
}

/// Every group's prologue, then step after step over all groups: the groups are
/// independent, so the processor overlaps one group's step with the next one's (a group's
/// steps depend on each other, and alone would leave it waiting on the sine's chain of
/// operations). With `between`, its hooks around each group's steps but the quiet ones; a
/// group whose points have all stopped stops. Compiled per system and for the vector level.
#[inline(never)]
fn run_groups<T: Real, const N: usize, H: Hamiltonian>(
    run: &Run<T>,
    groups: &mut [Lanes<T, N>],
    tmp: &mut Temps<T, N>,
    system: &H,
    between: Option<&mut (dyn Between<T> + '_)>,
) {
    let at = At {
        system,
        nd: N / run.comps * run.d,
        compensated: run.compensated,
        _t: std::marker::PhantomData,
    };
    let program = run.program;
    let Some(between) = between else {
        run.level.run(
            #[inline(always)]
            || {
                for g in groups.iter_mut() {
                    g.run(&program.prologue, &at, tmp);
                }
                for _ in 0..run.steps {
                    for g in groups.iter_mut() {
                        g.run(&program.step, &at, tmp);
                    }
                }
            },
        );
        return;
    };
    let (w, compensated) = (N / run.comps, run.compensated);
    let shape = (run.d, run.comps / run.d - 1, run.level);
    let mut running: Vec<bool> = groups
        .iter_mut()
        .enumerate()
        .map(|(i, g)| between.start(i, &mut g.points(w, shape, compensated)))
        .collect();
    run.level.run(
        #[inline(always)]
        || {
            for (g, _) in groups.iter_mut().zip(&running).filter(|(_, &r)| r) {
                g.run(&program.prologue, &at, tmp);
            }
            let mut k = 0;
            while k < run.steps {
                let quiet = between.quiet(k).min(run.steps - k);
                for _ in 0..quiet {
                    for (g, _) in groups.iter_mut().zip(&running).filter(|(_, &r)| r) {
                        g.run(&program.step, &at, tmp);
                    }
                }
                k += quiet;
                if k == run.steps {
                    break;
                }
                let mut any = false;
                for (i, (g, r)) in groups.iter_mut().zip(running.iter_mut()).enumerate() {
                    if !*r {
                        continue;
                    }
                    between.before_step(i, &g.points(w, shape, compensated));
                    g.run(&program.step, &at, tmp);
                    *r = between.after_step(i, &mut g.points(w, shape, compensated), k);
                    any |= *r;
                }
                if !any {
                    break;
                }
                k += 1;
            }
        },
    );
}
