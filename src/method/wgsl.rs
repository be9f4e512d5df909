//! The WGSL mirror of `Block`: a writer that turns a method's statements into the body of a
//! straight-line kernel. Each method file has its CPU `step` over a `Block` and, beside it,
//! `wgsl(k, h)` making the same calls in the same order on a `Kernel`; the generated code does
//! the same arithmetic on one point that the CPU does on each point of a block, so the two
//! engines agree bit for bit where the GPU rounds as the CPU does (lavapipe).
//!
//! Vectors of DT = d·(1 + NT) components (the point and its tangent columns) are named as in
//! `Block`: `q`, `p`, `dq`, `dp`, `q0`, `p0`, `acc_q`, `acc_p`. A statement is written once as
//! a template over a component, `q[] = q[] + h * dp[];`, and lowered in one of two ways:
//!
//! - registers (DT ≤ `UNROLL_MAX_COMPONENTS`): one scalar `var` per component (`q_0`, `p_3`),
//!   every component loop unrolled here, at generation time. The system's functions take and
//!   return `array<real, D>` values (`real`: the kernel's f32 or f64, an alias the prelude defines) built from those scalars and read with constant indices, so
//!   for d = 1 systems naga's SPIR-V has no function-scope array at all;
//! - arrays (larger DT: the spring chain and the solar system with `--tangent`, up to 32 896
//!   components): `var q: array<real, DT>` and one loop per statement, as unrolling would only
//!   make the shader huge.
//!
//! Implicit stages follow `method::implicit`: with the system's exact sweep count
//! (`SystemInfo::sweeps = Some(s)`) they are s plain sweeps x = base + c·g, with no solver
//! scaffolding; otherwise a loop to the tolerance whose capped solves are counted.

use std::collections::BTreeSet;
use std::fmt::Write;

use super::{Partial, Stage};

/// Largest DT (components per point in q and in p) kept in scalar registers.
pub const UNROLL_MAX_COMPONENTS: usize = 64;

/// The vectors a kernel may use, in declaration order (the `Block` fields of the same names).
const VECTORS: [&str; 10] = [
    "q", "p", "dq", "dp", "q0", "p0", "acc_q", "acc_p", "eq", "ep",
];

pub struct Kernel {
    d: usize,
    dt: usize,
    nt: usize,
    /// The system's exact sweep count (`SystemInfo::sweeps`).
    sweeps: Option<u32>,
    unroll: bool,
    body: String,
    indent: usize,
    /// Vectors the body refers to (declared by `declarations`).
    used: BTreeSet<&'static str>,
    /// Numbers the blocks of the body, so generated names stay unique.
    blocks: usize,
    /// Compensated updates (`--compensated`): `update` carries the errors in `eq` / `ep`.
    compensated: bool,
    /// Literals the methods write (`lit`) at f64 rather than f32.
    f64_literals: bool,
}

impl Kernel {
    /// A writer for d degrees of freedom, `nt` tangent columns and the system's sweep count.
    pub fn new(d: usize, nt: usize, sweeps: Option<u32>) -> Self {
        let dt = d * (1 + nt);
        Kernel {
            d,
            dt,
            nt,
            sweeps,
            unroll: dt <= UNROLL_MAX_COMPONENTS,
            body: String::new(),
            indent: 2,
            used: ["q", "p"].into_iter().collect(),
            blocks: 0,
            compensated: false,
            f64_literals: false,
        }
    }

    /// The same writer with the methods' coefficients written as f64 literals (f64 kernels).
    pub fn with_literals(mut self, f64: bool) -> Self {
        self.f64_literals = f64;
        self
    }

    /// A coefficient as a literal of the kernel's precision that parses to exactly `x` rounded
    /// to it (the value the CPU engine uses: `T::from_f64(x)`).
    pub fn lit(&self, x: f64) -> String {
        crate::wgsl_literal::real_literal(self.f64_literals, x)
    }

    /// The same writer with compensated updates (`method::compensated`) switched on or off.
    pub fn with_compensation(mut self, on: bool) -> Self {
        self.compensated = on;
        self
    }

    /// Whether the point lives in scalar registers (else in arrays with loops).
    pub fn unrolled(&self) -> bool {
        self.unroll
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

    /// Component k of vector `v` in register lowering.
    fn reg(v: &str, k: usize) -> String {
        format!("{v}_{k}")
    }

    fn note_vectors(&mut self, template: &str) {
        for v in VECTORS {
            // `v[]` not preceded by an identifier character (so `q[]` does not match `dq[]`)
            let pat = format!("{v}[]");
            let mut from = 0;
            while let Some(pos) = template[from..].find(&pat) {
                let at = from + pos;
                let prev = template[..at].chars().next_back();
                if !prev.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                    self.used.insert(v);
                }
                from = at + pat.len();
            }
        }
    }

    /// Lower a template over one component (`v[]` = component of vector v) for components
    /// `range` of every vector.
    fn each_in(&mut self, template: &str, range: std::ops::Range<usize>) {
        self.note_vectors(template);
        if self.unroll {
            for k in range {
                let s = lower(template, &format!("_{k}"));
                self.line(&s);
            }
        } else {
            self.open(&format!(
                "for (var k = {}u; k < {}u; k++) {{",
                range.start, range.end
            ));
            self.line(&lower(template, "[k]"));
            self.close();
        }
    }

    /// One statement for every component: `k.each("q[] = q0[] + h * dq[];")`.
    pub fn each(&mut self, template: &str) {
        self.each_in(template, 0..self.dt);
    }

    /// `let name = expr;`
    pub fn let_(&mut self, name: &str, expr: &str) {
        self.line(&format!("let {name} = {expr};"));
    }

    /// `dst ← src` (`dst.copy_from_slice(&src)`).
    pub fn copy(&mut self, dst: &str, src: &str) {
        self.each(&format!("{dst}[] = {src}[];"));
    }

    /// y += a·x (`method::axpy`).
    pub fn axpy(&mut self, y: &str, a: &str, x: &str) {
        self.each(&format!("{y}[] = {y}[] + {a} * {x}[];"));
    }

    /// dst ← base + c·g (`Block::update`): `dst` is q, p, q0 or p0 and `base` owns the current
    /// carried error. Compensated, the sum runs as in `compensated_sum`, with (base − x) taken
    /// from `opaque(x)`: a shader compiler that treats float arithmetic as reassociable (Mesa's
    /// NIR does) could otherwise fold ((base − (base + δ)) + δ) to 0 and drop the compensation;
    /// `opaque` (shaders/common/math.wgsl) hides that x is base + δ.
    pub fn update(&mut self, dst: &str, base: &str, c: &str, g: &str) {
        if !self.compensated {
            return self.each(&format!("{dst}[] = {base}[] + {c} * {g}[];"));
        }
        let e = if dst.starts_with('q') { "eq" } else { "ep" };
        self.used.insert(e);
        self.each(&format!(
            "{{ let d = {c} * {g}[] + {e}[]; let x = {base}[] + d; {e}[] = ({base}[] - opaque(x)) + d; {dst}[] = x; }}"
        ));
    }

    /// `Block::finish_stage`: after a solved stage, its last sweep's sum again, compensated,
    /// with the gradients evaluated again at the solution where the stage iterated.
    fn finish_stage(&mut self, stage: Stage, c: &str) {
        if !self.compensated {
            return;
        }
        if self.sweeps.is_none() {
            self.stage_gradients(stage);
        }
        if matches!(stage, Stage::Drift | Stage::Midpoint) {
            self.update("q", "q0", c, "dp");
        }
        if matches!(stage, Stage::Kick | Stage::Midpoint) {
            self.update("p", "p0", &format!("(-{c})"), "dq");
        }
    }

    /// Whether updates are compensated (`--compensated`).
    pub fn compensated(&self) -> bool {
        self.compensated
    }

    /// `Block::stage_gradients`: ∂H/∂q for a kick, ∂H/∂p for a drift, both for the midpoint.
    pub fn stage_gradients(&mut self, stage: Stage) {
        if stage != Stage::Drift {
            self.grad_q();
        }
        if stage != Stage::Kick {
            self.grad_p();
        }
    }

    /// `f(self)` inside its own `{ }` scope, so `let` names may repeat (composition stages).
    pub fn block(&mut self, f: impl FnOnce(&mut Self)) {
        self.open("{");
        f(self);
        self.close();
    }

    /// A fresh name with this prefix.
    fn fresh(&mut self, prefix: &str) -> String {
        self.blocks += 1;
        format!("{prefix}_{}", self.blocks)
    }

    /// The point's own D components of vector `v` (or of tangent column j) as an
    /// `array<real, D>` expression (register lowering).
    fn reg_array(&self, v: &str, column: Option<usize>) -> String {
        let first = column.map_or(0, |j| self.d * (1 + j));
        let items: Vec<String> = (first..first + self.d).map(|k| Self::reg(v, k)).collect();
        format!("array<real, D>({})", items.join(", "))
    }

    /// out ← ∂H/∂q or ∂H/∂p of the point, then for each tangent column its directional
    /// derivative (`grad_*_dir`): the mirror of `method::partial`.
    pub fn partial(&mut self, which: Partial, out: &'static str) {
        self.used.insert(out);
        let which = match which {
            Partial::Q => "q",
            Partial::P => "p",
        };
        let own = format!("grad_{which}");
        let dir = format!("grad_{which}_dir");
        let (d, nt) = (self.d, self.nt);
        self.open("{");
        if self.unroll {
            let (aq, ap) = (self.reg_array("q", None), self.reg_array("p", None));
            self.let_("own_q", &aq);
            self.let_("own_p", &ap);
            self.let_("g", &format!("{own}(own_q, own_p)"));
            for k in 0..d {
                self.line(&format!("{} = g[{k}];", Self::reg(out, k)));
            }
            for j in 0..nt {
                let (vq, vp) = (self.reg_array("q", Some(j)), self.reg_array("p", Some(j)));
                let t = format!("t_{j}");
                self.let_(&t, &format!("{dir}(own_q, own_p, {vq}, {vp})"));
                for k in 0..d {
                    self.line(&format!("{} = {t}[{k}];", Self::reg(out, d * (1 + j) + k)));
                }
            }
        } else {
            self.line("var own_q: array<real, D>;");
            self.line("var own_p: array<real, D>;");
            self.open("for (var k = 0u; k < D; k++) {");
            self.line("own_q[k] = q[k];");
            self.line("own_p[k] = p[k];");
            self.close();
            self.line(&format!("var g = {own}(own_q, own_p);"));
            self.open("for (var k = 0u; k < D; k++) {");
            self.line(&format!("{out}[k] = g[k];"));
            self.close();
            self.open("for (var j = 0u; j < NT; j++) {");
            self.line("var v_q: array<real, D>;");
            self.line("var v_p: array<real, D>;");
            self.open("for (var k = 0u; k < D; k++) {");
            self.line("v_q[k] = q[D * (1u + j) + k];");
            self.line("v_p[k] = p[D * (1u + j) + k];");
            self.close();
            self.line(&format!("var t = {dir}(own_q, own_p, v_q, v_p);"));
            self.open("for (var k = 0u; k < D; k++) {");
            self.line(&format!("{out}[D * (1u + j) + k] = t[k];"));
            self.close();
            self.close();
        }
        self.close();
    }

    /// One step of a variational system's two-step map (`Hamiltonian::discrete_step`): the
    /// system's WGSL `discrete_step(h, q, v)` returns a `MapStep` (shaders/common/variational.wgsl)
    /// with the new q and v and whether its Newton iteration hit the cap (counted).
    /// Variational systems have no tangent columns and d ≤ 5, so the point is always in
    /// registers.
    pub fn discrete_step(&mut self, h: &str) {
        assert!(
            self.unroll && self.nt == 0,
            "variational kernels keep the point in registers, without tangent columns"
        );
        self.open("{");
        let (aq, av) = (self.reg_array("q", None), self.reg_array("p", None));
        self.let_("s", &format!("discrete_step({h}, {aq}, {av})"));
        for k in 0..self.d {
            self.line(&format!("{} = s.q[{k}];", Self::reg("q", k)));
            self.line(&format!("{} = s.v[{k}];", Self::reg("p", k)));
        }
        self.open("if (s.capped) {");
        self.line("unconverged_steps += 1u;");
        self.close();
        self.close();
    }

    /// dq ← ∂H/∂q with the tangent columns (`Block::grad_q`).
    pub fn grad_q(&mut self) {
        self.partial(Partial::Q, "dq");
    }

    /// dp ← ∂H/∂p with the tangent columns (`Block::grad_p`).
    pub fn grad_p(&mut self) {
        self.partial(Partial::P, "dp");
    }

    /// The gradient evaluations of one sweep of `stage` with coefficient c, and for each
    /// updated vector (x, base, scaled coefficient, gradient).
    fn sweep_parts(
        &mut self,
        stage: Stage,
        c: &str,
    ) -> Vec<(&'static str, &'static str, String, &'static str)> {
        let kick = ("p", "p0", format!("(-{c})"), "dq");
        let drift = ("q", "q0", c.to_string(), "dp");
        match stage {
            Stage::Kick => {
                self.grad_q();
                vec![kick]
            }
            Stage::Drift => {
                self.grad_p();
                vec![drift]
            }
            Stage::Midpoint => {
                self.grad_q();
                self.grad_p();
                vec![drift, kick]
            }
        }
    }

    /// Solve an implicit stage from the current q, p with base values in q0 / p0
    /// (`Block::solve`): `sweeps` exact sweeps, or `None` to iterate to `IMPLICIT_TOL`, at most
    /// `IMPLICIT_MAX_ITER` sweeps, counting a solve that hits the cap.
    pub fn solve(&mut self, stage: Stage, c: &str, sweeps: Option<u32>) {
        if let Some(s) = sweeps {
            // `Block::solve_exact`: plain x = base + c·g, no convergence bookkeeping.
            for _ in 0..s {
                for (x, base, cc, g) in self.sweep_parts(stage, c) {
                    self.each(&format!("{x}[] = {base}[] + {cc} * {g}[];"));
                }
            }
            return;
        }
        let done = self.fresh("converged");
        self.open("{");
        self.line(&format!("var {done} = false;"));
        self.open("for (var it = 0u; it < IMPLICIT_MAX_ITER; it++) {");
        self.line("var ok = true;");
        for (x, base, cc, g) in self.sweep_parts(stage, c) {
            // x ← base + c·g; not converged while a primal component moves by more than
            // tol·(1 + |x|) (`implicit::sweep`).
            self.note_vectors(&format!("{x}[] {base}[] {g}[]"));
            let step = |k: &str| format!("let next = {base}{k} + {cc} * {g}{k};");
            let test = |k: &str| {
                format!(
                    "if (abs(next - {x}{k}) > IMPLICIT_TOL * (1.0 + abs(next))) {{ ok = false; }}"
                )
            };
            if self.unroll {
                for k in 0..self.dt {
                    let sub = format!("_{k}");
                    self.open("{");
                    self.line(&step(&sub));
                    if k < self.d {
                        self.line(&test(&sub));
                    }
                    self.line(&format!("{x}{sub} = next;"));
                    self.close();
                }
            } else {
                self.open("for (var k = 0u; k < DT; k++) {");
                self.line(&step("[k]"));
                self.open("if (k < D) {");
                self.line(&test("[k]"));
                self.close();
                self.line(&format!("{x}[k] = next;"));
                self.close();
            }
        }
        self.open("if (ok) {");
        self.line(&format!("{done} = true;"));
        self.line("break;");
        self.close();
        self.close();
        self.open(&format!("if (!{done}) {{"));
        self.line("unconverged_steps += 1u;");
        self.close();
        self.close();
    }

    /// The symplectic Euler / Verlet stages: exact sweeps where the system allows them
    /// (`Block::solve_stage`).
    pub fn solve_stage(&mut self, stage: Stage, c: &str) {
        self.solve(stage, c, self.sweeps);
        self.finish_stage(stage, c);
    }

    /// Declarations of the vectors the body uses, the point's q and p loaded from the state
    /// buffer (chunk layout: `[k·n + i]`, `[(DT + k)·n + i]`).
    pub fn declarations(&self) -> String {
        let mut s = String::new();
        for v in VECTORS.iter().filter(|v| self.used.contains(*v)) {
            let load = |k: &str| match *v {
                "q" | "p" | "eq" | "ep" => Some(format!("state[{} * n + i]", slot(v, k))),
                _ => None,
            };
            if self.unroll {
                for k in 0..self.dt {
                    match load(&format!("{k}u")) {
                        Some(e) => writeln!(s, "    var {} = {e};", Self::reg(v, k)),
                        None => writeln!(s, "    var {}: real;", Self::reg(v, k)),
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

    /// The statements that write the point back.
    pub fn stores(&self) -> String {
        let mut s = String::new();
        let stored = ["q", "p", "eq", "ep"];
        let stored = stored.iter().filter(|v| self.used.contains(*v));
        if self.unroll {
            for k in 0..self.dt {
                for v in stored.clone() {
                    let at = slot(v, &format!("{k}u"));
                    writeln!(s, "    state[{at} * n + i] = {};", Self::reg(v, k)).unwrap();
                }
            }
        } else {
            s.push_str("    for (var k = 0u; k < DT; k++) {\n");
            for v in stored {
                writeln!(s, "        state[{} * n + i] = {v}[k];", slot(v, "k")).unwrap();
            }
            s.push_str("    }\n");
        }
        s
    }

    /// The body of one step, as written so far.
    pub fn body(&self) -> &str {
        &self.body
    }
}

/// The state buffer's slot (times n) of component `k` (a WGSL u32 expression) of the stored
/// vector `v`: q, p, then after the unconverged count the carried errors eq, ep
/// (shaders/common/state.wgsl).
fn slot(v: &str, k: &str) -> String {
    match v {
        "q" => k.to_string(),
        "p" => format!("(DT + {k})"),
        "eq" => format!("(2u * DT + 1u + {k})"),
        "ep" => format!("(3u * DT + 1u + {k})"),
        _ => unreachable!("only q, p, eq and ep live in the state buffer"),
    }
}

/// Replace every `[]` of a template by `sub` (`_3` for registers, `[k]` for arrays).
fn lower(template: &str, sub: &str) -> String {
    template.replace("[]", sub)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_lower_to_registers_and_loops() {
        let mut k = Kernel::new(1, 2, Some(1));
        k.axpy("q", "h", "dp");
        assert_eq!(
            k.body(),
            "        q_0 = q_0 + h * dp_0;\n        q_1 = q_1 + h * dp_1;\n        q_2 = q_2 + h * dp_2;\n"
        );
        assert!(k.used.contains("dp") && !k.used.contains("q0"));
        let mut big = Kernel::new(64, 2, Some(1));
        assert!(!big.unrolled());
        big.copy("q0", "q");
        assert!(big.body().contains("for (var k = 0u; k < 192u; k++) {"));
        assert!(big.body().contains("q0[k] = q[k];"));
    }
}
