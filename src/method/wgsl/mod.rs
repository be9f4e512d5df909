//! The GPU side of the operations interface: `Kernel` implements `Ops` (`ops.rs`) by writing
//! each statement of a method's step into the body of a straight-line kernel. The generated
//! code does on one point the arithmetic that the CPU engine (`method::block`) does on each
//! point of a block, from the same description, so the two engines agree bit for bit where the
//! GPU rounds as the CPU does (lavapipe).
//!
//! Vectors of DT = d·(1 + NT) components (the point and its tangent columns) are named after
//! `Vector` (`q`, `p`, `q0`, `p0`, `dq`, `dp`, `acc_q`, `acc_p`, `stage<i>`), plus the carried
//! errors `eq`, `ep` of compensated runs. A statement is built per component by a closure
//! given the component's suffix, and lowered in one of two ways:
//!
//! - registers (DT ≤ `UNROLL_MAX_COMPONENTS`): one scalar `var` per component (`q_0`, `p_3`),
//!   every component loop unrolled here, at generation time. The system's functions take and
//!   return `array<real, D>` values (`real`: the kernel's f32 or f64, an alias the prelude
//!   defines) built from those scalars and read with constant indices, so for d = 1 systems
//!   naga's SPIR-V has no function-scope array at all;
//! - arrays (larger DT: the spring chain and the solar system with `--tangent`, up to 32 896
//!   components): `var q: array<real, DT>` and one loop per statement, as unrolling would only
//!   make the shader huge.
//!
//! Scalars are `let` names (`c_1`, …) or literals; h is the driver's `h`. Implicit stages
//! follow `method::implicit`: with the system's exact sweep count they are plain sweeps
//! written by `Ops::solve`; otherwise a loop to the tolerance whose capped solves are counted
//! (`solve_iterated`).

mod ops;

use std::collections::BTreeSet;
use std::fmt::Write;

use super::ops::Vector;
use crate::system::System;

/// Largest DT (components per point in q and in p) kept in scalar registers: past it the
/// unrolled kernel text itself grows too large to build quickly.
pub const UNROLL_MAX_COMPONENTS: usize = 64;

/// Most 32-bit words of vector state a register kernel keeps per thread (`Kernel::live_words`:
/// every vector the step uses × DT, two words a component in f64). An NVIDIA thread has at
/// most 255 registers, and the system's functions, the implicit solves and the addresses need
/// their own; past this budget the generated kernel would spill to local memory anyway, in
/// an order the compiler chooses, so it takes the array layout instead, whose loops the
/// compiler keeps in local memory (cached per thread) by design.
pub const UNROLL_MAX_WORDS: usize = 96;

/// A scalar of the kernel: a `let` name (an index into the kernel's names; 0 is the driver's
/// `h`) or a literal.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scalar {
    Named(usize),
    Lit(f64),
}

pub struct Kernel {
    d: usize,
    dt: usize,
    nt: usize,
    /// The system's exact sweep count (`SystemInfo::sweeps`).
    sweeps: Option<u32>,
    /// Separable with one exact sweep (`Ops::explicit_kicks`).
    explicit_kicks: bool,
    unroll: bool,
    body: String,
    indent: usize,
    /// Vectors the body refers to (declared by `declarations`).
    used: BTreeSet<Vector>,
    /// Whether the body uses the carried errors `eq`, `ep`.
    errors: bool,
    /// Numbers generated names, so they stay unique.
    fresh: usize,
    /// The names of the `Scalar::Named`.
    scalars: Vec<String>,
    /// Compensated updates (`--compensated`): `update` carries the errors in `eq` / `ep`.
    compensated: bool,
    /// Literals (`Ops::lit`) at f64 rather than f32.
    f64_literals: bool,
    /// q and p stored as f32 pairs (value, carried error) and computed in f64
    /// (`KernelSpec::pairs`).
    pairs: bool,
}

impl Kernel {
    /// A writer for `system`'s point with `nt` tangent columns.
    pub fn new(system: &System, nt: usize) -> Self {
        let explicit = super::explicit_kicks(system);
        Self::for_shape(system.dof(), nt, system.sweeps(), explicit)
    }

    /// A writer for d degrees of freedom, `nt` tangent columns, the system's sweep count and
    /// whether its kicks and drifts are explicit.
    pub fn for_shape(d: usize, nt: usize, sweeps: Option<u32>, explicit_kicks: bool) -> Self {
        let dt = d * (1 + nt);
        Kernel {
            d,
            dt,
            nt,
            sweeps,
            explicit_kicks,
            unroll: dt <= UNROLL_MAX_COMPONENTS,
            body: String::new(),
            indent: 2,
            used: [Vector::Q, Vector::P].into_iter().collect(),
            errors: false,
            fresh: 0,
            scalars: vec!["h".to_string()],
            compensated: false,
            f64_literals: false,
            pairs: false,
        }
    }

    /// The same writer loading q and p as the f64 sums of their stored f32 pairs and storing
    /// them split back into pairs (`KernelSpec::pairs`: the step in f64 on a state held to
    /// 2⁻⁴⁸, as the CPU engine's `Block::discrete_step_f64`), or not.
    pub fn with_pairs(mut self, on: bool) -> Self {
        self.pairs = on;
        self
    }

    /// The same writer with coefficients written as f64 literals (f64 kernels).
    pub fn with_literals(mut self, f64: bool) -> Self {
        self.f64_literals = f64;
        self
    }

    /// The same writer with compensated updates (`method::compensated`) switched on or off.
    pub fn with_compensation(mut self, on: bool) -> Self {
        self.compensated = on;
        self
    }

    /// Whether the body refers to vector `v` (declared by `declarations`).
    pub fn uses(&self, v: Vector) -> bool {
        self.used.contains(&v)
    }

    /// The point's degrees of freedom (its tangent columns follow at components d·(1 + j)).
    pub fn dof(&self) -> usize {
        self.d
    }

    /// Whether the point lives in scalar registers (else in arrays with loops).
    pub fn unrolled(&self) -> bool {
        self.unroll
    }

    /// The same writer with the point in arrays (`false`) even where DT would allow registers;
    /// `true` keeps the choice DT makes.
    pub fn with_registers(mut self, allowed: bool) -> Self {
        self.unroll &= allowed;
        self
    }

    /// 32-bit words of vector state per thread in the code written so far: every vector used
    /// (and the carried errors) × DT, two words a component for f64. What `UNROLL_MAX_WORDS`
    /// bounds for register kernels.
    pub fn live_words(&self, f64: bool) -> usize {
        let vectors = self.used.len() + if self.errors { 2 } else { 0 };
        vectors * self.dt * if f64 { 2 } else { 1 }
    }

    fn line(&mut self, s: &str) {
        for _ in 0..self.indent {
            self.body.push_str("    ");
        }
        self.body.push_str(s);
        self.body.push('\n');
    }

    fn open(&mut self, s: &str) {
        self.line(s);
        self.indent += 1;
    }

    fn close(&mut self) {
        self.indent -= 1;
        self.line("}");
    }

    /// A fresh name with this prefix.
    fn fresh(&mut self, prefix: &str) -> String {
        self.fresh += 1;
        format!("{prefix}_{}", self.fresh)
    }

    /// The WGSL text of a scalar: its name, or a literal of the kernel's precision that parses
    /// to exactly the coefficient rounded to it (the value the CPU engine uses:
    /// `T::from_f64(x)`).
    fn scalar(&self, s: Scalar) -> String {
        match s {
            Scalar::Named(i) => self.scalars[i].clone(),
            Scalar::Lit(x) => crate::wgsl_literal::real_literal(self.f64_literals, x),
        }
    }

    /// A new scalar `let` holding `expr`.
    fn let_scalar(&mut self, expr: String) -> Scalar {
        let name = self.fresh("c");
        self.line(&format!("let {name} = {expr};"));
        self.scalars.push(name);
        Scalar::Named(self.scalars.len() - 1)
    }

    /// A vector's name, noted as used (declared by `declarations`).
    fn name(&mut self, v: Vector) -> String {
        self.used.insert(v);
        vector_name(v)
    }

    /// Component `k` of vector `name` in register lowering.
    fn reg(name: &str, k: usize) -> String {
        format!("{name}_{k}")
    }

    /// One statement per component: `f(sub)` with `sub` the component's suffix (`_3` in
    /// registers, `[k]` in a loop).
    fn each(&mut self, f: impl Fn(&str) -> String) {
        if self.unroll {
            for k in 0..self.dt {
                let s = f(&format!("_{k}"));
                self.line(&s);
            }
        } else {
            self.open(&format!("for (var k = 0u; k < {}u; k++) {{", self.dt));
            self.line(&f("[k]"));
            self.close();
        }
    }

    /// The point's own D components of vector `name` (or of tangent column j) as an
    /// `array<real, D>` expression (register lowering).
    fn reg_array(&self, name: &str, column: Option<usize>) -> String {
        let first = column.map_or(0, |j| self.d * (1 + j));
        let items: Vec<String> = (first..first + self.d)
            .map(|k| Self::reg(name, k))
            .collect();
        format!("array<real, D>({})", items.join(", "))
    }

    /// Declarations of the vectors the body uses, the point's q and p (and carried errors)
    /// loaded from the state buffer (chunk layout: `[k·n + i]`, `[(DT + k)·n + i]`).
    pub fn declarations(&self) -> String {
        let mut s = String::new();
        let names = self.used.iter().map(|&v| vector_name(v));
        let errors = ["eq", "ep"].map(String::from);
        let all = names.chain(errors.into_iter().filter(|_| self.errors));
        for v in all {
            let word = |v: &str, k: &str| {
                let at = stored_slot(v, k)?;
                Some(match self.pairs {
                    true => format!("real(state[{at} * n + i])"),
                    false => format!("state[{at} * n + i]"),
                })
            };
            let load = |k: &str| match (self.pairs, error_of(&v)) {
                (true, Some(e)) => Some(format!("{} + {}", word(&v, k)?, word(e, k)?)),
                _ => word(&v, k),
            };
            if self.unroll {
                for k in 0..self.dt {
                    match load(&format!("{k}u")) {
                        Some(e) => writeln!(s, "    var {} = {e};", Self::reg(&v, k)),
                        None => writeln!(s, "    var {}: real;", Self::reg(&v, k)),
                    }
                    .unwrap();
                }
            } else {
                writeln!(s, "    var {v}: array<real, DT>;").unwrap();
                if let Some(e) = load("k") {
                    writeln!(s, "    for (var k = 0u; k < DT; k++) {{ {v}[k] = {e}; }}").unwrap();
                }
            }
        }
        s
    }

    /// The statements that write the point back (with pairs: each value split into the
    /// nearest f32 and the rest, `float::split_f64`).
    pub fn stores(&self) -> String {
        let mut s = String::new();
        let stored: &[&str] = if self.errors {
            &["q", "p", "eq", "ep"]
        } else {
            &["q", "p"]
        };
        let store = |s: &mut String, indent: &str, v: &str, k: &str, x: &str| {
            let at = stored_slot(v, k).unwrap();
            match error_of(v).filter(|_| self.pairs) {
                Some(e) => {
                    let at_e = stored_slot(e, k).unwrap();
                    writeln!(s, "{indent}{{ let hi = stored({x}); state[{at} * n + i] = hi; state[{at_e} * n + i] = stored({x} - real(hi)); }}")
                }
                None => writeln!(s, "{indent}state[{at} * n + i] = {x};"),
            }
            .unwrap();
        };
        if self.unroll {
            for k in 0..self.dt {
                for v in stored {
                    store(&mut s, "    ", v, &format!("{k}u"), &Self::reg(v, k));
                }
            }
        } else {
            s.push_str("    for (var k = 0u; k < DT; k++) {\n");
            for v in stored {
                store(&mut s, "        ", v, "k", &format!("{v}[k]"));
            }
            s.push_str("    }\n");
        }
        s
    }

    /// The code written so far, taken out of the writer (the declarations it uses stay
    /// noted): `shader::compose_kernel` takes the prologue, then the step.
    pub fn take_body(&mut self) -> String {
        std::mem::take(&mut self.body)
    }

    /// The code written so far.
    pub fn body(&self) -> &str {
        &self.body
    }
}

/// The WGSL name of a vector.
fn vector_name(v: Vector) -> String {
    match v {
        Vector::Q => "q".into(),
        Vector::P => "p".into(),
        Vector::Q0 => "q0".into(),
        Vector::P0 => "p0".into(),
        Vector::Dq => "dq".into(),
        Vector::Dp => "dp".into(),
        Vector::AccQ => "acc_q".into(),
        Vector::AccP => "acc_p".into(),
        Vector::Stage(i) => format!("stage{i}"),
    }
}

/// The carried error stored beside vector `v` in a compensated state (`None`: not q or p).
fn error_of(v: &str) -> Option<&'static str> {
    match v {
        "q" => Some("eq"),
        "p" => Some("ep"),
        _ => None,
    }
}

/// The state buffer's slot (times n) of component `k` (a WGSL u32 expression) of the stored
/// vector `v`: q, p, then after the unconverged count the carried errors eq, ep
/// (shaders/common/state.wgsl); `None` for scratch vectors.
fn stored_slot(v: &str, k: &str) -> Option<String> {
    Some(match v {
        "q" => k.to_string(),
        "p" => format!("(DT + {k})"),
        "eq" => format!("(2u * DT + 1u + {k})"),
        "ep" => format!("(3u * DT + 1u + {k})"),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::super::ops::{v, Ops};
    use super::*;

    #[test]
    fn statements_lower_to_registers_and_loops() {
        let mut k = Kernel::for_shape(1, 2, Some(1), true);
        let h = k.h();
        k.assign(Vector::Q, &(v(Vector::Q) + v(Vector::Dp) * h));
        assert_eq!(
            k.body(),
            "        q_0 = (q_0 + (h * dp_0));\n        q_1 = (q_1 + (h * dp_1));\n        q_2 = (q_2 + (h * dp_2));\n"
        );
        assert!(k.used.contains(&Vector::Dp) && !k.used.contains(&Vector::Q0));
        let mut big = Kernel::for_shape(64, 2, Some(1), true);
        assert!(!big.unrolled());
        big.copy(Vector::Q0, Vector::Q);
        assert!(big.body().contains("for (var k = 0u; k < 192u; k++) {"));
        assert!(big.body().contains("q0[k] = q[k];"));
        assert!(big.declarations().contains("var q0: array<real, DT>;"));
    }
}
