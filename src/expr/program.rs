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

/// Points per run: the registers of one run stay in the L1 cache.
const CHUNK: usize = 64;

type Reg = usize;

#[derive(Debug, Clone, Copy)]
enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
}

/// One instruction; the first register is the destination.
#[derive(Debug, Clone, Copy)]
enum Instr {
    Load(Reg, Var),
    Const(Reg, f64),
    Neg(Reg, Reg),
    Bin(BinOp, Reg, Reg, Reg),
    Call(Func, Reg, Reg),
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
    outputs: Vec<Reg>,
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

impl Program {
    /// Compile `outputs` (integer powers are lowered to products first, in `dag`).
    pub fn compile(dag: &mut Dag, outputs: &[Id]) -> Program {
        let outputs = lower_powers(dag, outputs);
        let order = dag.reachable(&outputs);
        // The position in `order` of each node's last use; outputs live to the end.
        let mut last_use = vec![0usize; dag.len()];
        for (pos, &id) in order.iter().enumerate() {
            for a in dag.node(id).operands() {
                last_use[a] = pos;
            }
        }
        for &o in &outputs {
            last_use[o] = usize::MAX;
        }
        let mut regs = Registers::default();
        let mut reg_of = vec![0; dag.len()];
        let mut code = Vec::with_capacity(order.len());
        for (pos, &id) in order.iter().enumerate() {
            let dst = regs.take();
            let r = |a: Id| reg_of[a];
            code.push(match dag.node(id) {
                Node::Const(bits) => Instr::Const(dst, f64::from_bits(bits)),
                Node::Var(v) => Instr::Load(dst, v),
                Node::Neg(a) => Instr::Neg(dst, r(a)),
                Node::Add(a, b) => Instr::Bin(BinOp::Add, dst, r(a), r(b)),
                Node::Sub(a, b) => Instr::Bin(BinOp::Sub, dst, r(a), r(b)),
                Node::Mul(a, b) => Instr::Bin(BinOp::Mul, dst, r(a), r(b)),
                Node::Div(a, b) => Instr::Bin(BinOp::Div, dst, r(a), r(b)),
                Node::Call(f, a) => Instr::Call(f, dst, r(a)),
                Node::Powi(..) => unreachable!("lower_powers removed every power"),
            });
            reg_of[id] = dst;
            let mut operands = dag.node(id).operands();
            operands.dedup();
            for a in operands {
                if last_use[a] == pos {
                    regs.free.push(reg_of[a]);
                }
            }
        }
        Program {
            code,
            outputs: outputs.iter().map(|&o| reg_of[o]).collect(),
            registers: regs.count,
        }
    }

    /// Evaluate for the `n` points of `inputs`: output j of point i goes to `out[j*n + i]`.
    pub fn run<T: Real>(&self, inputs: &Inputs<'_, T>, n: usize, out: &mut [T]) {
        let width = n.clamp(1, CHUNK);
        let mut regs = vec![T::ZERO; self.registers * width];
        for start in (0..n).step_by(width) {
            let len = width.min(n - start);
            for &instr in &self.code {
                execute(instr, &mut regs, width, inputs, n, start, len);
            }
            for (j, &r) in self.outputs.iter().enumerate() {
                out[j * n + start..][..len].copy_from_slice(&regs[r * width..][..len]);
            }
        }
    }
}

/// The register file split around the destination: its slice, and reads of the others.
struct Split<'a, T> {
    below: &'a [T],
    above: &'a [T],
    dst: Reg,
    width: usize,
}

impl<'a, T> Split<'a, T> {
    fn new(regs: &'a mut [T], dst: Reg, width: usize) -> (&'a mut [T], Self) {
        let (below, rest) = regs.split_at_mut(dst * width);
        let (d, above) = rest.split_at_mut(width);
        (
            d,
            Split {
                below,
                above,
                dst,
                width,
            },
        )
    }

    fn get(&self, r: Reg, len: usize) -> &'a [T] {
        if r < self.dst {
            &self.below[r * self.width..][..len]
        } else {
            &self.above[(r - self.dst - 1) * self.width..][..len]
        }
    }
}

#[inline(always)]
fn unary<T: Real>(d: &mut [T], a: &[T], f: impl Fn(T) -> T) {
    for (o, &x) in d.iter_mut().zip(a) {
        *o = f(x);
    }
}

#[inline(always)]
fn binary<T: Real>(d: &mut [T], a: &[T], b: &[T], f: impl Fn(T, T) -> T) {
    for ((o, &x), &y) in d.iter_mut().zip(a).zip(b) {
        *o = f(x, y);
    }
}

/// One instruction over the points `start..start + len` of the current run.
fn execute<T: Real>(
    instr: Instr,
    regs: &mut [T],
    width: usize,
    inputs: &Inputs<'_, T>,
    n: usize,
    start: usize,
    len: usize,
) {
    let dst = match instr {
        Instr::Load(d, _) | Instr::Const(d, _) | Instr::Neg(d, _) => d,
        Instr::Bin(_, d, _, _) | Instr::Call(_, d, _) => d,
    };
    let (d, src) = Split::new(regs, dst, width);
    let d = &mut d[..len];
    match instr {
        Instr::Load(_, v) => {
            let (block, k) = match v {
                Var::Q(k) => (inputs.q, k),
                Var::P(k) => (inputs.p, k),
                Var::Vq(k) => (inputs.vq, k),
                Var::Vp(k) => (inputs.vp, k),
            };
            d.copy_from_slice(&block[k * n + start..][..len]);
        }
        Instr::Const(_, x) => d.fill(T::from_f64(x)),
        Instr::Neg(_, a) => unary(d, src.get(a, len), |x| -x),
        Instr::Bin(op, _, a, b) => {
            let (a, b) = (src.get(a, len), src.get(b, len));
            match op {
                BinOp::Add => binary(d, a, b, |x, y| x + y),
                BinOp::Sub => binary(d, a, b, |x, y| x - y),
                BinOp::Mul => binary(d, a, b, |x, y| x * y),
                BinOp::Div => binary(d, a, b, |x, y| x / y),
            }
        }
        Instr::Call(f, _, a) => {
            let a = src.get(a, len);
            match f {
                Func::Sin => unary(d, a, sin_poly),
                Func::Cos => unary(d, a, cos_poly),
                Func::Sqrt => unary(d, a, T::sqrt),
                other => unary(d, a, |x| T::from_f64(other.eval_f64(x.to_f64()))),
            }
        }
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
        assert!(prog.registers <= 5, "{} registers", prog.registers);
    }
}
