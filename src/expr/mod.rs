//! Your own Hamiltonian: H written as a formula becomes the CPU block functions and the WGSL
//! shader functions of a system, with exact (symbolic) derivatives.
//!
//! The pipeline, one file per stage:
//!
//! 1. `parse`: text → DAG. A recursive-descent parser over the formula's tokens; its call
//!    tree is the expression tree, and each node it builds goes straight into the DAG.
//!    Parameters are folded in as constants; errors point at the column.
//! 2. `dag`: the hash-consed DAG. Identical subexpressions are one node, and every node is
//!    built through constructors that simplify (constant folding, `x·1`, `x + 0`, `x·0`,
//!    powers of powers, sign pulling, canonical operand order).
//! 3. `diff`: derivatives on the DAG: ∂H/∂q_k, ∂H/∂p_k, and the directional derivatives of
//!    those (H_qq·vq + H_qp·vp, H_pq·vq + H_pp·vp, with vq, vp new inputs) for the tangent
//!    map. They are nodes of the same DAG, so they share H's subexpressions and each other's.
//!    Separability is H_qp ≡ 0: every ∂²H/∂q_k∂p_j simplifies to the constant 0.
//! 4. Code generation from the simplified DAG (integer powers lowered to shared products
//!    first): `program`, a register bytecode whose instructions each loop over a run of
//!    points (the CPU engines, f32 and f64, and H in f64 for the statistics), and `wgsl`, the
//!    four shader functions with one `let` per shared node (the GPU).
//!
//! `ExprHamiltonian` bundles the result with methods of the shapes of the `Hamiltonian`
//! trait (src/system/hamiltonian.rs), so that implementing the trait is forwarding.
//!
//! Caveat of the symbolic zero test: an H_qp that is zero only after an identity the
//! simplifier does not know (e.g. sin² + cos² = 1) counts as non-zero, so the system is
//! treated as non-separable (still correct, only slower: implicit stages).

pub mod dag;
pub mod diff;
pub mod modified;
pub mod normal;
pub mod parse;
pub mod print;
pub mod program;
pub mod rust;
pub mod wgsl;

use std::collections::BTreeMap;

use crate::error::{Error, Field, Message, Piece, Result};
use crate::float::Real;
use dag::{Dag, Id, Var};
use diff::{directional, partial};
use program::{Inputs, Program};
use wgsl::Signature;

/// The deepest nesting of a formula (parentheses, function calls, signs and exponents inside
/// one another). The parser, the one recursive pass, takes five stack frames a level, a few
/// hundred bytes each: 256 levels stay far within the smallest stack a formula is compiled on
/// (a 2 MiB spawned thread), and no written formula comes near it.
pub const MAX_DEPTH: usize = 256;

/// The most degrees of freedom a formula may have: the largest built-in system's (spring-chain
/// with `MAX_MASSES` = 64 masses, d = 128), the size the CPU and GPU kernels are built and
/// tested at (with `--tangent`, 128·257 = 32 896 components a point). Compiling costs
/// O(d²) derivative passes (the separability test), so the cap also bounds that work.
pub const MAX_DOF: usize = 128;

/// The largest integer exponent in magnitude: integer powers are exact (repeated squaring, at
/// most 60 products), and the derivatives' exponents n − 1, n − 2 stay i32.
pub const MAX_POWER: i32 = 1_000_000_000;

/// Whether H, whose ∂H/∂q_k are `grad_q`, is separable: every ∂²H/∂q_k∂p_j simplifies to
/// the constant 0.
pub fn separable(dag: &mut Dag, grad_q: &[Id]) -> bool {
    grad_q.iter().all(|&g| {
        (0..grad_q.len()).all(|j| {
            let h_qp = partial(dag, g, Var::P(j));
            dag.is(h_qp, 0.0)
        })
    })
}

/// Run a one-output `program` in f64 on the points `first..first + out.len()` of a
/// component-major block of `n` points with `d` degrees of freedom (components k ≥ d are
/// not read): H, or a modified Hamiltonian, for the statistics.
pub fn run_f64<T: Real>(
    program: &Program,
    d: usize,
    q: &[T],
    p: &[T],
    n: usize,
    first: usize,
    out: &mut [f64],
) {
    let len = out.len();
    // one plain loop per component (a flat_map's collect does not vectorise the conversion)
    let gather = |x: &[T]| -> Vec<f64> {
        let mut v = Vec::with_capacity(d * len);
        for k in 0..d {
            v.extend(x[k * n + first..][..len].iter().map(|v| v.to_f64()));
        }
        v
    };
    let (q, p) = (gather(q), gather(p));
    let inputs = Inputs {
        q: &q,
        p: &p,
        vq: &[],
        vp: &[],
    };
    program.run(&inputs, len, out);
}

/// A Hamiltonian given as a formula, compiled.
#[derive(Debug, Clone)]
pub struct ExprHamiltonian {
    /// Degrees of freedom d.
    pub dof: usize,
    /// H_qp ≡ 0 symbolically: H = T(p) + V(q).
    pub separable: bool,
    /// The formula as given.
    pub source: String,
    /// A number no other compilation in this process has (its clones share it: the same
    /// programs): what a cache of the formula's values is keyed by (`lagrangian::step`).
    pub id: u64,
    /// The parameters the formula was compiled with (all that were given).
    pub params: BTreeMap<String, f64>,
    /// The parameter names the formula uses, sorted.
    pub used_params: Vec<String>,
    /// The formula's numbers and parameters, where they stand (`check_f32` blames them).
    literals: Vec<parse::Literal>,
    /// The named constants (`Var::Named`) of a built-in system's formula, by index; none in a
    /// user's formula, whose parameters are folded in as numbers.
    named: Vec<String>,
    dag: Dag,
    /// H, ∂H/∂q_k, ∂H/∂p_k, H_qq vq + H_qp vp, H_pq vq + H_pp vp (d each but H).
    h: Id,
    grad_q: Vec<Id>,
    grad_p: Vec<Id>,
    grad_q_dir: Vec<Id>,
    grad_p_dir: Vec<Id>,
    programs: Programs,
}

/// The compiled CPU programs.
#[derive(Debug, Clone)]
struct Programs {
    energy: Program,
    grad_q: Program,
    grad_p: Program,
    grad_q_dir: Program,
    grad_p_dir: Program,
}

impl ExprHamiltonian {
    /// Parse, differentiate, simplify and compile `src`. `params`: the values of the names
    /// that are not coordinates; `dof`: the number of degrees of freedom if given (else the
    /// largest coordinate index). Malformed formulas are input errors pointing at the column.
    pub fn new(src: &str, params: &BTreeMap<String, f64>, dof: Option<usize>) -> Result<Self> {
        Self::with_named(src, params, &[], dof)
    }

    /// `new`, with the names in `named` read as named constants (`parse::parse_named`): a
    /// built-in system's formula, whose functions are generated as code (`rust`, `wgsl`)
    /// that reads the constants' values at run time.
    pub fn with_named(
        src: &str,
        params: &BTreeMap<String, f64>,
        named: &[&str],
        dof: Option<usize>,
    ) -> Result<Self> {
        Self::compile(src, params, named, dof, parse::Second::Momentum)
    }

    /// A Lagrangian L(q, v) compiled as `new` compiles H(q, p): the velocities v1..vd take
    /// the momenta's place, so `grad_q` is ∂L/∂q, `grad_p` is ∂L/∂v, and the directional
    /// derivatives are L_qq δq + L_qv δv and L_vq δq + L_vv δv (a Lagrangian system's step).
    pub fn lagrangian(
        src: &str,
        params: &BTreeMap<String, f64>,
        dof: Option<usize>,
    ) -> Result<Self> {
        Self::compile(src, params, &[], dof, parse::Second::Velocity)
    }

    fn compile(
        src: &str,
        params: &BTreeMap<String, f64>,
        named: &[&str],
        dof: Option<usize>,
        second: parse::Second,
    ) -> Result<Self> {
        let parse::Parsed {
            mut dag,
            root: h,
            dof: d,
            used_params,
            literals,
        } = parse::parse_with(src, params, named, dof, second)?;
        let grad_q: Vec<Id> = (0..d).map(|k| partial(&mut dag, h, Var::Q(k))).collect();
        let grad_p: Vec<Id> = (0..d).map(|k| partial(&mut dag, h, Var::P(k))).collect();
        let grad_q_dir: Vec<Id> = grad_q
            .iter()
            .map(|&g| directional(&mut dag, g, d))
            .collect();
        let grad_p_dir: Vec<Id> = grad_p
            .iter()
            .map(|&g| directional(&mut dag, g, d))
            .collect();
        let separable = separable(&mut dag, &grad_q);
        let programs = Programs {
            energy: Program::compile(&mut dag, &[h]),
            grad_q: Program::compile(&mut dag, &grad_q),
            grad_p: Program::compile(&mut dag, &grad_p),
            grad_q_dir: Program::compile(&mut dag, &grad_q_dir),
            grad_p_dir: Program::compile(&mut dag, &grad_p_dir),
        };
        static COMPILED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        Ok(ExprHamiltonian {
            dof: d,
            separable,
            source: src.to_string(),
            id: COMPILED.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            params: params.clone(),
            used_params,
            literals,
            named: named.iter().map(|n| n.to_string()).collect(),
            dag,
            h,
            grad_q,
            grad_p,
            grad_q_dir,
            grad_p_dir,
            programs,
        })
    }

    /// Whether the formula depends on q: some ∂/∂q_k does not simplify to the constant 0.
    pub fn uses_first(&self) -> bool {
        self.grad_q.iter().any(|&g| !self.dag.is(g, 0.0))
    }

    /// Whether the formula depends on its second set of variables (a Lagrangian's
    /// velocities): some ∂/∂p_k does not simplify to the constant 0.
    pub fn uses_second(&self) -> bool {
        self.grad_p.iter().any(|&g| !self.dag.is(g, 0.0))
    }

    /// For a formula of the form ½ pᵀM p + c·p + U(q) with M and c constant (a Lagrangian
    /// ½vᵀMv + c·v − V(q), the velocities in p's place): (M by rows, c). `None` where ∂/∂q
    /// involves p, ∂/∂p involves q, or a second derivative ∂²/∂p_r∂p_k does not simplify to a
    /// finite constant. Read structurally, so an identity the simplifier does not know
    /// (sin² + cos² = 1) answers `None`: still right, only the general step.
    pub fn constant_mass(&self) -> Option<(Vec<f64>, Vec<f64>)> {
        let reaches = |roots: &[Id], var: fn(Var) -> bool| {
            self.dag
                .reachable(roots)
                .into_iter()
                .any(|id| matches!(self.dag.node(id), dag::Node::Var(v) if var(v)))
        };
        if reaches(&self.grad_q, |v| matches!(v, Var::P(_)))
            || reaches(&self.grad_p, |v| !matches!(v, Var::P(_)))
        {
            return None;
        }
        let d = self.dof;
        let mut dag = self.dag.clone();
        let mut mass = Vec::with_capacity(d * d);
        for &g in &self.grad_p {
            for k in 0..d {
                let second = partial(&mut dag, g, Var::P(k));
                mass.push(dag.value(second).filter(|m| m.is_finite())?);
            }
        }
        // ∂/∂p at p = 0 (it reads no q): the offset c.
        let mut offset = vec![0.0; d];
        self.grad_p(&vec![0.0; d], &vec![0.0; d], &mut offset);
        offset
            .iter()
            .all(|c| c.is_finite())
            .then_some((mass, offset))
    }

    /// The parameters the formula names.
    pub fn used_params(&self) -> Vec<&str> {
        self.used_params.iter().map(String::as_str).collect()
    }

    /// Whether the integration kernels' functions (the gradients and their directional
    /// derivatives) use only what Vulkan has in f64: arithmetic, sqrt, and sin/cos (as the
    /// prelude's polynomials). `Err(f)` names the first function an f64 GPU kernel lacks.
    pub fn gpu_f64_ready(&self) -> std::result::Result<(), &'static str> {
        wgsl::f64_unsupported(&self.dag, &self.kernel_roots()).map_or(Ok(()), Err)
    }

    /// The nodes the integration kernels compute (the gradients and their directional
    /// derivatives; H itself is evaluated in f64).
    fn kernel_roots(&self) -> Vec<Id> {
        self.grad_q
            .iter()
            .chain(&self.grad_p)
            .chain(&self.grad_q_dir)
            .chain(&self.grad_p_dir)
            .copied()
            .collect()
    }

    /// Refuse an f32 kernel with a constant f32 cannot hold: one that overflows to ±inf (every
    /// point would go non-finite) or a non-zero one that falls below f32's normal range (a
    /// term silently lost or imprecise). The message points at the number or parameter that
    /// is itself out of range, else names the constant its folding made.
    pub fn check_f32(&self) -> Result<()> {
        let fits = |x: f64| x == 0.0 || (x as f32).is_normal();
        let bad = self
            .dag
            .reachable(&self.kernel_roots())
            .into_iter()
            .filter_map(|id| self.dag.value(id))
            .find(|&x| !fits(x));
        let Some(x) = bad else {
            return Ok(());
        };
        let range = |x: f64| {
            if (x as f32).is_infinite() {
                "is beyond f32's range (the largest is about 3.4e38)"
            } else {
                "is below f32's normal range (the smallest is about 1.2e-38): it would lose its digits or round to 0"
            }
        };
        let fix = [
            Piece::from("; run with "),
            Field::Precision.is("f64"),
            Piece::from(", or rescale the formula"),
        ];
        let Some(l) = self.literals.iter().find(|l| !fits(l.value)) else {
            let mut message = vec![
                Field::Precision.is("f32"),
                Piece::Text(format!(": the Hamiltonian's derivatives hold the constant {x:e}, folded from its numbers and parameters, which {}", range(x))),
            ];
            message.extend(fix);
            return Err(Error::Invalid {
                field: Field::Precision,
                message: Message(message),
            });
        };
        Err(match &l.param {
            Some(name) => {
                let field = Field::Param(name.clone());
                let mut message = vec![
                    field.is(format!("{:e}", l.value)),
                    Piece::from(": at "),
                    Field::Precision.is("f32"),
                    Piece::Text(format!(" the value {}", range(l.value))),
                ];
                message.extend(fix);
                Error::Invalid {
                    field,
                    message: Message(message),
                }
            }
            None => parse::error_at(
                &self.source,
                l.at,
                &format!(
                    "at --precision f32 this number {}; run with --precision f64, or rescale the formula",
                    range(l.value)
                ),
            ),
        })
    }

    /// H(q, p) of one point, in f64.
    pub fn energy(&self, q: &[f64], p: &[f64]) -> f64 {
        let mut out = [0.0];
        let inputs = Inputs {
            q,
            p,
            vq: &[],
            vp: &[],
        };
        self.programs.energy.run(&inputs, 1, &mut out);
        out[0]
    }

    /// H in f64 of the points `first..first + out.len()` of a component-major block of `n`
    /// points (components k ≥ d are not read): `Hamiltonian::energy_block`, vectorised.
    pub fn energy_block<T: Real>(&self, q: &[T], p: &[T], n: usize, first: usize, out: &mut [f64]) {
        run_f64(&self.programs.energy, self.dof, q, p, n, first, out);
    }

    /// ∂H/∂q for a block (component-major, n = q.len() / d).
    pub fn grad_q<T: Real>(&self, q: &[T], p: &[T], out: &mut [T]) {
        let inputs = Inputs {
            q,
            p,
            vq: &[],
            vp: &[],
        };
        self.programs.grad_q.run(&inputs, q.len() / self.dof, out);
    }

    /// ∂H/∂p for a block.
    pub fn grad_p<T: Real>(&self, q: &[T], p: &[T], out: &mut [T]) {
        let inputs = Inputs {
            q,
            p,
            vq: &[],
            vp: &[],
        };
        self.programs.grad_p.run(&inputs, q.len() / self.dof, out);
    }

    /// H_qq vq + H_qp vp for a block.
    pub fn grad_q_dir<T: Real>(&self, q: &[T], p: &[T], vq: &[T], vp: &[T], out: &mut [T]) {
        let inputs = Inputs { q, p, vq, vp };
        self.programs
            .grad_q_dir
            .run(&inputs, q.len() / self.dof, out);
    }

    /// H_pq vq + H_pp vp for a block.
    pub fn grad_p_dir<T: Real>(&self, q: &[T], p: &[T], vq: &[T], vp: &[T], out: &mut [T]) {
        let inputs = Inputs { q, p, vq, vp };
        self.programs
            .grad_p_dir
            .run(&inputs, q.len() / self.dof, out);
    }

    /// The WGSL of `grad_q`, `grad_p`, `grad_q_dir` and `grad_p_dir` (what
    /// `shaders/system/<name>.wgsl` holds for a built-in system). Needs `real`, `D`,
    /// `sin_poly` and `cos_poly` from the prelude.
    pub fn wgsl(&self) -> String {
        let header = format!("// H = {}: generated by phaseflow::expr.\n", self.source);
        self.wgsl_named(["grad_q", "grad_p", "grad_q_dir", "grad_p_dir"], header)
    }

    /// `wgsl` with the four functions named `names` (a Lagrangian's `lag_q`, `lag_v`, …),
    /// after `header`.
    pub fn wgsl_named(&self, names: [&str; 4], header: String) -> String {
        let mut dag = self.dag.clone();
        let named: Vec<&str> = self.named.iter().map(String::as_str).collect();
        [
            (names[0], Signature::Gradient, &self.grad_q),
            (names[1], Signature::Gradient, &self.grad_p),
            (names[2], Signature::Directional, &self.grad_q_dir),
            (names[3], Signature::Directional, &self.grad_p_dir),
        ]
        .into_iter()
        .fold(header, |mut s, (name, signature, outputs)| {
            s.push('\n');
            s.push_str(&wgsl::function(&mut dag, name, signature, outputs, &named));
            s
        })
    }

    /// The WGSL of `energy(q, p)` in f64 (what `shaders/energy/<name>.wgsl` holds for a
    /// built-in system; needs `D` and shaders/energy/math_f64.wgsl). `None` when H calls
    /// exp, log, tan, atan or a hyperbolic function, which Vulkan lacks in f64: the energy
    /// statistics of such an H must then be computed on the CPU (`energy_block`).
    pub fn energy_wgsl(&self) -> Option<String> {
        let mut dag = self.dag.clone();
        let named: Vec<&str> = self.named.iter().map(String::as_str).collect();
        wgsl::energy(&mut dag, self.h, &named)
            .map(|f| format!("// H = {}: generated by phaseflow::expr.\n{f}", self.source))
    }

    /// The Rust module of a built-in system's CPU functions (`rust::module`), headed by
    /// `header`; its energy is `energy`'s H (this H, or the same H written for accuracy).
    pub fn rust(&self, energy: &ExprHamiltonian, header: &str) -> String {
        rust::module(
            &rust::Functions {
                dag: &self.dag,
                d: self.dof,
                h: self.h,
                grad_q: &self.grad_q,
                grad_p: &self.grad_p,
                grad_q_dir: &self.grad_q_dir,
                grad_p_dir: &self.grad_p_dir,
                energy_dag: &energy.dag,
                energy: energy.h,
            },
            header,
        )
    }

    /// The number of distinct DAG nodes H and all its derivatives use (a size measure).
    pub fn nodes(&self) -> usize {
        let roots: Vec<Id> = std::iter::once(self.h)
            .chain(self.grad_q.iter().copied())
            .chain(self.grad_p.iter().copied())
            .chain(self.grad_q_dir.iter().copied())
            .chain(self.grad_p_dir.iter().copied())
            .collect();
        self.dag.reachable(&roots).len()
    }
}
