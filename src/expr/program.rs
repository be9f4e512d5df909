//! CPU evaluation: a set of output expressions compiled into straight-line register code
//! whose every instruction is a loop over a run of points (`CHUNK` at a time, each a plain
//! slice loop that LLVM vectorises), instead of a walk of the tree per point.
//!
//! Registers hold one value per point of the run. Registers are reused once their value has
//! had its last use (a linear scan over the DAG's nodes in id order, which is a topological
//! order), and an instruction never writes a register it reads. sin and cos are the crate's
//! `sin_poly` / `cos_poly` (the WGSL kernels use the same polynomial, so the engines agree)
//! and sqrt is `Real::sqrt`; tan, exp, log, sinh, cosh, tanh and atan go through f64 and the
//! standard library point by point (correct in f32 and f64, not vectorised).

use super::dag::{Dag, Func, Id, Node, Var};
use super::diff::lower_powers;
use crate::float::{cos_poly, sin_poly, Real};

/// Register file budget per run, in values: a run's registers stay in the L1/L2 cache.
const REGISTER_VALUES: usize = 16384;
/// Points per run: at least this many (long vector loops), at most `MAX_WIDTH` (the CPU
/// engine's blocks are 256 points: one run per block for small programs).
const MIN_WIDTH: usize = 64;
const MAX_WIDTH: usize = 256;

type Reg = usize;

#[derive(Debug, Clone, Copy)]
enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
}

/// Where an operand comes from: a register, an input component read in place, or a constant.
#[derive(Debug, Clone, Copy)]
enum Src {
    Reg(Reg),
    In(Var),
    Const(f64),
}

/// Where an instruction writes: a register, or straight into output j (an output no other
/// instruction reads).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Dst {
    Reg(Reg),
    Out(usize),
}

/// One instruction; the first field is the destination.
#[derive(Debug, Clone, Copy)]
enum Instr {
    Neg(Dst, Src),
    Bin(BinOp, Dst, Src, Src),
    Call(Func, Dst, Src),
}

/// The inputs of one evaluation: component-major blocks of `n` points (`q[k*n + i]`).
/// `vq`, `vp` may be empty for programs that do not read them (all but the directional ones).
#[derive(Debug, Clone, Copy)]
pub struct Inputs<'a, T> {
    pub q: &'a [T],
    pub p: &'a [T],
    pub vq: &'a [T],
    pub vp: &'a [T],
}

/// Compiled straight-line code for a list of outputs.
#[derive(Debug, Clone)]
pub struct Program {
    code: Vec<Instr>,
    /// Each output's source, copied into the output after the code ran; `None` for outputs
    /// the code writes directly.
    outputs: Vec<Option<Src>>,
    registers: usize,
}

/// The linear-scan register file of `Program::compile`.
#[derive(Default)]
struct Registers {
    free: Vec<Reg>,
    count: usize,
}

impl Registers {
    fn take(&mut self) -> Reg {
        self.free.pop().unwrap_or_else(|| {
            self.count += 1;
            self.count - 1
        })
    }
}

/// When `Program::compile` may free each value's register: the position in `order` of a
/// node's last use and of an inverted divisor's inverse's (`Program::compile`);
/// outputs live to the end.
struct Liveness {
    /// The divisors inverted: those of at least `shared` quotients (`Program::compile_with`).
    inverted: Vec<bool>,
    last_use: Vec<usize>,
    last_inverse_use: Vec<usize>,
    /// Whether an instruction reads the node.
    read: Vec<bool>,
}

impl Liveness {
    fn new(dag: &Dag, order: &[Id], outputs: &[Id], shared: usize) -> Self {
        let mut quotients = vec![0usize; dag.len()];
        for &id in order {
            if let Node::Div(_, b) = dag.node(id) {
                quotients[b] += 1;
            }
        }
        let mut live = Liveness {
            inverted: quotients.iter().map(|&n| n >= shared).collect(),
            last_use: vec![0; dag.len()],
            last_inverse_use: vec![0; dag.len()],
            read: vec![false; dag.len()],
        };
        for (pos, &id) in order.iter().enumerate() {
            // an inverted divisor is read where its inverse is computed, right after it
            let own = live.inverted[id].then_some((id, false));
            for (a, inverse) in live.reads(dag, id).into_iter().chain(own) {
                if inverse {
                    live.last_inverse_use[a] = pos;
                } else {
                    live.last_use[a] = pos;
                    live.read[a] = true;
                }
            }
        }
        for &o in outputs {
            live.last_use[o] = usize::MAX;
        }
        live
    }

    /// What node `id` reads: its operands, a quotient's inverted divisor as its inverse (`true`).
    fn reads(&self, dag: &Dag, id: Id) -> Vec<(Id, bool)> {
        match dag.node(id) {
            Node::Div(a, b) if self.inverted[b] => vec![(a, false), (b, true)],
            node => node.operands().into_iter().map(|a| (a, false)).collect(),
        }
    }
}

/// The instruction of operation `node` into `dst`, its operands `reads` (`Liveness::reads`)
/// found through `src`: a quotient by an inverted divisor is a product by its inverse.
fn instruction(node: Node, dst: Dst, reads: &[(Id, bool)], src: impl Fn(Id, bool) -> Src) -> Instr {
    let r = |k: usize| src(reads[k].0, reads[k].1);
    match node {
        Node::Neg(_) => Instr::Neg(dst, r(0)),
        Node::Add(..) => Instr::Bin(BinOp::Add, dst, r(0), r(1)),
        Node::Sub(..) => Instr::Bin(BinOp::Sub, dst, r(0), r(1)),
        Node::Mul(..) => Instr::Bin(BinOp::Mul, dst, r(0), r(1)),
        Node::Div(..) if reads[1].1 => Instr::Bin(BinOp::Mul, dst, r(0), r(1)),
        Node::Div(..) => Instr::Bin(BinOp::Div, dst, r(0), r(1)),
        Node::Call(f, _) => Instr::Call(f, dst, r(0)),
        Node::Const(_) | Node::Var(_) | Node::Powi(..) => {
            unreachable!("leaves are operands; lower_powers removed every power")
        }
    }
}

thread_local! {
    /// Each thread's register file, reused from call to call (8-byte words, viewed as f32 or f64).
    static SCRATCH: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl Program {
    /// Compile `outputs` (integer powers are lowered to products first, in `dag`). Inputs and
    /// constants are operands read in place; each operation gets a register. Each divisor is
    /// inverted once and its quotients multiplied by the inverse, x·(1/y) for x/y: the form
    /// the generated code has (`wgsl::expression`), which Mesa's shader compiler (lavapipe)
    /// gives a quotient itself, so that the engines round alike; and a multiplication where a
    /// division costs several.
    pub fn compile(dag: &mut Dag, outputs: &[Id]) -> Program {
        Self::compile_with(dag, outputs, 1)
    }

    /// `compile` for values only the host computes (the modified Hamiltonian's, where the
    /// nested form, `normal`, divides by powers of |q| at every level): only the divisors
    /// that several quotients share are inverted, the fewest instructions.
    pub fn compile_for_host(dag: &mut Dag, outputs: &[Id]) -> Program {
        Self::compile_with(dag, outputs, 2)
    }

    /// `compile`, the divisors of at least `shared` quotients inverted.
    fn compile_with(dag: &mut Dag, outputs: &[Id], shared: usize) -> Program {
        let outputs = lower_powers(dag, outputs);
        let order = dag.reachable(&outputs);
        let live = Liveness::new(dag, &order, &outputs, shared);
        // An operation whose value is an output that no instruction reads and no other output
        // repeats is written straight into its output (inputs and constants are copied).
        let mut direct = vec![None; dag.len()];
        for (j, &o) in outputs.iter().enumerate() {
            let operation = !matches!(dag.node(o), Node::Const(_) | Node::Var(_));
            if operation && !live.read[o] && outputs.iter().filter(|&&x| x == o).count() == 1 {
                direct[o] = Some(j);
            }
        }
        let mut regs = Registers::default();
        let mut src_of = vec![Src::Const(0.0); dag.len()];
        let mut inverse_of = vec![Src::Const(0.0); dag.len()];
        let mut code = Vec::with_capacity(order.len());
        for (pos, &id) in order.iter().enumerate() {
            match dag.node(id) {
                Node::Const(bits) => src_of[id] = Src::Const(f64::from_bits(bits)),
                Node::Var(v) => src_of[id] = Src::In(v),
                node => {
                    // The destination is taken before the operands' registers are freed: an
                    // instruction never writes a register it reads.
                    let dst = match direct[id] {
                        Some(j) => Dst::Out(j),
                        None => Dst::Reg(regs.take()),
                    };
                    let src = |a: Id, inverse: bool| {
                        if inverse {
                            inverse_of[a]
                        } else {
                            src_of[a]
                        }
                    };
                    code.push(instruction(node, dst, &live.reads(dag, id), src));
                    if let Dst::Reg(reg) = dst {
                        src_of[id] = Src::Reg(reg);
                    }
                }
            }
            let mut freed = live.reads(dag, id);
            if live.inverted[id] {
                inverse_of[id] = match src_of[id] {
                    Src::Const(c) => Src::Const(1.0 / c),
                    x => {
                        let reg = regs.take();
                        code.push(Instr::Bin(BinOp::Div, Dst::Reg(reg), Src::Const(1.0), x));
                        Src::Reg(reg)
                    }
                };
                freed.push((id, false));
            }
            freed.dedup();
            for (a, inverse) in freed {
                let (last, src) = if inverse {
                    (live.last_inverse_use[a], inverse_of[a])
                } else {
                    (live.last_use[a], src_of[a])
                };
                if let (true, Src::Reg(ra)) = (last == pos, src) {
                    regs.free.push(ra);
                }
            }
        }
        Program {
            code,
            outputs: outputs
                .iter()
                .map(|&o| direct[o].is_none().then_some(src_of[o]))
                .collect(),
            registers: regs.count,
        }
    }

    /// Its size: (instructions, registers), what an evaluation costs per point.
    pub fn size(&self) -> (usize, usize) {
        (self.code.len(), self.registers)
    }

    /// Evaluate for the `n` points of `inputs`: output j of point i goes to `out[j*n + i]`.
    pub fn run<T: Real>(&self, inputs: &Inputs<'_, T>, n: usize, out: &mut [T]) {
        let width = (REGISTER_VALUES / self.registers.max(1))
            .clamp(MIN_WIDTH, MAX_WIDTH)
            .min(n.max(1));
        let values = self.registers * width;
        let words = (values * size_of::<T>()).div_ceil(8);
        SCRATCH.with(|scratch| {
            let mut scratch = scratch.borrow_mut();
            if scratch.len() < words {
                scratch.resize(words, 0);
            }
            let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut scratch[..words]);
            let regs: &mut [T] = bytemuck::cast_slice_mut(&mut bytes[..values * size_of::<T>()]);
            // The loops compiled for the processor's vector instructions, as the built-in
            // systems' are (`simd`).
            crate::simd::dispatch(
                #[inline(always)]
                || {
                    for start in (0..n).step_by(width) {
                        let len = width.min(n - start);
                        let run = Run {
                            inputs,
                            n,
                            start,
                            len,
                            width,
                        };
                        for &instr in &self.code {
                            run.execute(instr, regs, out);
                        }
                        for (j, o) in self.outputs.iter().enumerate() {
                            let Some(o) = *o else { continue };
                            let dst = &mut out[j * n + start..][..len];
                            match run.operand(o, regs) {
                                Operand::Slice(a) => dst.copy_from_slice(a),
                                Operand::Scalar(x) => dst.fill(x),
                            }
                        }
                    }
                },
            )
        });
    }
}

/// An operand of one run: a slice of `len` values or one value for all points.
#[derive(Clone, Copy)]
enum Operand<'a, T> {
    Slice(&'a [T]),
    Scalar(T),
}

/// One run of points: `start..start + len` of the `n` points, registers `width` values apart.
struct Run<'a, 'b, T> {
    inputs: &'b Inputs<'a, T>,
    n: usize,
    start: usize,
    len: usize,
    width: usize,
}

impl<T: Real> Run<'_, '_, T> {
    /// The values of `src` (registers read from `regs`).
    #[inline(always)]
    fn operand<'r>(&'r self, src: Src, regs: &'r [T]) -> Operand<'r, T> {
        match src {
            Src::Reg(r) => Operand::Slice(&regs[r * self.width..][..self.len]),
            Src::In(v) => {
                let (block, k) = match v {
                    Var::Q(k) => (self.inputs.q, k),
                    Var::P(k) => (self.inputs.p, k),
                    Var::Vq(k) => (self.inputs.vq, k),
                    Var::Vp(k) => (self.inputs.vp, k),
                    Var::Named(_) => {
                        unreachable!(
                            "named constants are compiled to Rust (`expr::rust`), not to a Program"
                        )
                    }
                };
                Operand::Slice(&block[k * self.n + self.start..][..self.len])
            }
            Src::Const(x) => Operand::Scalar(T::from_f64(x)),
        }
    }

    /// One instruction over the run's points (inlined into each vector level's copy of `run`).
    #[inline(always)]
    fn execute(&self, instr: Instr, regs: &mut [T], out: &mut [T]) {
        let dst = match instr {
            Instr::Neg(d, _) | Instr::Bin(_, d, _, _) | Instr::Call(_, d, _) => d,
        };
        match dst {
            Dst::Out(j) => {
                let d = &mut out[j * self.n + self.start..][..self.len];
                self.apply(
                    instr,
                    d,
                    #[inline(always)]
                    |s| self.operand(s, regs),
                );
            }
            Dst::Reg(r) => {
                // The destination's slice apart from the registers the operands are read from.
                let (below, rest) = regs.split_at_mut(r * self.width);
                let (d, above) = rest.split_at_mut(self.width);
                self.apply(
                    instr,
                    &mut d[..self.len],
                    #[inline(always)]
                    |s: Src| -> Operand<'_, T> {
                        match s {
                            Src::Reg(a) if a < r => {
                                Operand::Slice(&below[a * self.width..][..self.len])
                            }
                            Src::Reg(a) => {
                                Operand::Slice(&above[(a - r - 1) * self.width..][..self.len])
                            }
                            other => self.operand(other, &[]),
                        }
                    },
                );
            }
        }
    }

    /// The instruction's operation into `d`, its operands through `get` (generic, not `dyn`:
    /// inlined, the operands are found without a call per operand per instruction, which in
    /// long programs over short runs cost as much as the arithmetic).
    #[inline(always)]
    fn apply<'g>(&self, instr: Instr, d: &mut [T], get: impl Fn(Src) -> Operand<'g, T>) {
        match instr {
            Instr::Neg(_, a) => unary(d, get(a), |x| -x),
            Instr::Bin(op, _, a, b) => {
                let (a, b) = (get(a), get(b));
                match op {
                    BinOp::Add => binary(d, a, b, |x, y| x + y),
                    BinOp::Sub => binary(d, a, b, |x, y| x - y),
                    BinOp::Mul => binary(d, a, b, |x, y| x * y),
                    BinOp::Div => binary(d, a, b, |x, y| x / y),
                }
            }
            Instr::Call(f, _, a) => {
                let a = get(a);
                match f {
                    Func::Sin => unary(d, a, sin_poly),
                    Func::Cos => unary(d, a, cos_poly),
                    Func::Sqrt => unary(d, a, T::sqrt),
                    other => unary(d, a, |x| T::from_f64(other.eval_f64(x.to_f64()))),
                }
            }
        }
    }
}

#[inline(always)]
fn unary<T: Real>(d: &mut [T], a: Operand<'_, T>, f: impl Fn(T) -> T) {
    match a {
        Operand::Slice(a) => {
            for (o, &x) in d.iter_mut().zip(a) {
                *o = f(x);
            }
        }
        Operand::Scalar(x) => d.fill(f(x)),
    }
}

/// `d = f(a, b)` elementwise, each operand a slice or a scalar (four vectorisable loops).
#[inline(always)]
fn binary<T: Real>(d: &mut [T], a: Operand<'_, T>, b: Operand<'_, T>, f: impl Fn(T, T) -> T) {
    match (a, b) {
        (Operand::Slice(a), Operand::Slice(b)) => {
            for ((o, &x), &y) in d.iter_mut().zip(a).zip(b) {
                *o = f(x, y);
            }
        }
        (Operand::Slice(a), Operand::Scalar(y)) => {
            for (o, &x) in d.iter_mut().zip(a) {
                *o = f(x, y);
            }
        }
        (Operand::Scalar(x), Operand::Slice(b)) => {
            for (o, &y) in d.iter_mut().zip(b) {
                *o = f(x, y);
            }
        }
        (Operand::Scalar(x), Operand::Scalar(y)) => d.fill(f(x, y)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_over_partial_chunks_and_reuses_registers() {
        let mut g = Dag::new();
        let (q, p) = (g.var(Var::Q(0)), g.var(Var::P(0)));
        let s = g.call(Func::Sin, q);
        let sq = g.mul(p, p);
        let h = g.add(s, sq);
        let h3 = g.powi(h, 3);
        let prog = Program::compile(&mut g, &[h3, p]);
        let n = 150;
        let qs: Vec<f64> = (0..n).map(|i| i as f64 * 0.01).collect();
        let ps: Vec<f64> = (0..n).map(|i| 1.0 - i as f64 * 0.003).collect();
        let mut out = vec![0.0; 2 * n];
        let inputs = Inputs {
            q: &qs,
            p: &ps,
            vq: &[],
            vp: &[],
        };
        prog.run(&inputs, n, &mut out);
        for i in 0..n {
            let want = (qs[i].sin() + ps[i] * ps[i]).powi(3);
            assert!((out[i] - want).abs() < 1e-14 * (1.0 + want.abs()), "{i}");
            assert_eq!(out[n + i], ps[i]);
        }
        assert!(prog.registers <= 3, "{} registers", prog.registers);
    }

    /// `compile`: one division per divisor (an input, a register), its quotients products by
    /// its inverse, and none by a constant (a product by the constant's inverse). The values
    /// are the quotients' to within an ulp or two.
    #[test]
    fn each_divisor_is_inverted_once() {
        let mut g = Dag::new();
        let (q, p) = (g.var(Var::Q(0)), g.var(Var::P(0)));
        let (one, three) = (g.constant(1.0), g.constant(3.0));
        let pp = g.mul(p, p);
        let d = g.add(one, pp);
        let s = g.call(Func::Sin, q);
        let outs = [
            g.div(q, d),
            g.div(s, d),
            g.div(three, d),
            g.div(p, q),
            g.div(s, q),
            g.div(q, three),
            g.div(p, three),
            g.div(s, p),
        ];
        let prog = Program::compile(&mut g, &outs);
        let divisions = prog
            .code
            .iter()
            .filter(|i| matches!(i, Instr::Bin(BinOp::Div, ..)))
            .count();
        // 1/d, 1/q and 1/p once each; q/3 and p/3 are products by the constant 1/3
        assert_eq!(divisions, 3);
        let n = 90;
        let qs: Vec<f64> = (0..n).map(|i| 0.5 + i as f64 * 0.02).collect();
        let ps: Vec<f64> = (0..n).map(|i| -1.5 + i as f64 * 0.031).collect();
        let inputs = Inputs {
            q: &qs,
            p: &ps,
            vq: &[],
            vp: &[],
        };
        let mut got = vec![0.0; outs.len() * n];
        prog.run(&inputs, n, &mut got);
        for i in 0..n {
            let (q, p) = (qs[i], ps[i]);
            let (d, s) = (1.0 + p * p, crate::float::sin_poly(q));
            let want = [q / d, s / d, 3.0 / d, p / q, s / q, q / 3.0, p / 3.0, s / p];
            for (k, w) in want.iter().enumerate() {
                let a = got[k * n + i];
                assert!(
                    (a - w).abs() <= 4.0 * f64::EPSILON * w.abs(),
                    "{k}, {i}: {a} vs {w}"
                );
            }
        }
    }

    /// Every kind of output: an operation written directly, an operation other instructions
    /// also read (copied from its register), an input, a constant, and one node twice.
    #[test]
    fn every_kind_of_output_is_written() {
        let mut g = Dag::new();
        let (q, p) = (g.var(Var::Q(0)), g.var(Var::P(0)));
        let s = g.call(Func::Sin, q);
        let sp = g.mul(s, p);
        let c = g.constant(2.5);
        let prog = Program::compile(&mut g, &[sp, s, p, c, sp]);
        let n = 100;
        let qs: Vec<f64> = (0..n).map(|i| i as f64 * 0.03 - 1.0).collect();
        let ps: Vec<f64> = (0..n).map(|i| 0.5 - i as f64 * 0.01).collect();
        let mut out = vec![f64::NAN; 5 * n];
        let inputs = Inputs {
            q: &qs,
            p: &ps,
            vq: &[],
            vp: &[],
        };
        prog.run(&inputs, n, &mut out);
        for i in 0..n {
            let sin = sin_poly(qs[i]);
            let want = [sin * ps[i], sin, ps[i], 2.5, sin * ps[i]];
            for (j, w) in want.iter().enumerate() {
                assert_eq!(out[j * n + i], *w, "output {j}, point {i}");
            }
        }
    }
}
