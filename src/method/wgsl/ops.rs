//! `Ops` on a `Kernel`: each operation written as WGSL statements for one point.

use super::super::ops::{Lin, Node, Ops, StageSolve, Vector};
use super::super::{Partial, Stage};
use super::{Kernel, Scalar};

/// The per-component expression of `e` for the component with suffix `sub`, fully
/// parenthesised, operands in the order the CPU evaluates them (`Block::assign`).
fn render(e: &Lin<Scalar>, sub: &str, scalar: &dyn Fn(Scalar) -> String) -> String {
    let mut stack: Vec<String> = Vec::new();
    for node in e.nodes() {
        let top = match *node {
            Node::V(x) => format!("{}{sub}", super::vector_name(x)),
            Node::Scale(s) => format!("({} * {})", scalar(s), stack.pop().unwrap()),
            Node::Neg => format!("(-{})", stack.pop().unwrap()),
            Node::Add | Node::Sub => {
                let b = stack.pop().unwrap();
                let a = stack.pop().unwrap();
                let op = if *node == Node::Add { "+" } else { "-" };
                format!("({a} {op} {b})")
            }
        };
        stack.push(top);
    }
    stack.pop().unwrap()
}

impl Kernel {
    /// The gradient evaluations of one sweep of `stage`, and for each updated vector (x, base,
    /// the coefficient's expression, gradient).
    fn sweep_parts(
        &mut self,
        stage: Stage,
        c: &str,
    ) -> Vec<(&'static str, &'static str, String, &'static str)> {
        self.stage_gradients(stage);
        let mut parts = Vec::new();
        if stage != Stage::Kick {
            parts.push(("q", "q0", c.to_string(), "dp"));
        }
        if stage != Stage::Drift {
            parts.push(("p", "p0", format!("(-{c})"), "dq"));
        }
        for v in [Vector::Q0, Vector::P0] {
            self.used.insert(v);
        }
        parts
    }

    /// The scaffold of an iterated solve: up to `IMPLICIT_MAX_ITER` sweeps written by `sweep`,
    /// leaving the loop once a sweep moved no primal component by more than the tolerance
    /// (`sweep_component` clears `ok`) or, with `IMPLICIT_TO_ROUNDING`, once the largest
    /// relative move (`moved`) is at most `IMPLICIT_GATE` and no smaller than the sweep
    /// before's, and counting a solve that hits the cap (the CPU block's
    /// `iterate_to_tolerance`).
    fn fixed_point_loop(&mut self, sweep: impl FnOnce(&mut Self)) {
        let done = self.fresh("converged");
        let last = self.fresh("last_moved");
        self.open("{");
        self.line(&format!("var {done} = false;"));
        // above any move the gate lets stop: the first sweep never counts as stagnation
        self.line(&format!("var {last}: real = 2.0 * IMPLICIT_GATE;"));
        self.open("for (var it = 0u; it < IMPLICIT_MAX_ITER; it++) {");
        self.line("var ok = true;");
        self.line("var moved: real = 0.0;");
        sweep(self);
        self.open(&format!(
            "if (ok || (IMPLICIT_TO_ROUNDING && moved <= IMPLICIT_GATE && moved >= {last})) {{"
        ));
        self.line(&format!("{done} = true;"));
        self.line("break;");
        self.close();
        self.line(&format!("{last} = moved;"));
        self.close();
        self.open(&format!("if (!{done}) {{"));
        self.line("unconverged_steps += 1u;");
        self.close();
        self.close();
    }

    /// x ← next for every component (`next(sub)`: the new value's expression, `sub` the
    /// component's suffix, `_3` or `[k]`), clearing `ok` where a primal component (k < D)
    /// moved by more than `IMPLICIT_TOL`·(1 + |next|) and, with `IMPLICIT_TO_ROUNDING`,
    /// keeping the largest relative move in `moved` (`implicit::settle`).
    fn sweep_component(&mut self, x: &str, next: impl Fn(&str) -> String) {
        let test = |k: &str| {
            format!(
                "if (abs(next - {x}{k}) > IMPLICIT_TOL * (1.0 + abs(next))) {{ ok = false; }} \
                 if (IMPLICIT_TO_ROUNDING) {{ moved = max(moved, abs(next - {x}{k}) / (1.0 + abs(next))); }}"
            )
        };
        if self.unroll {
            for k in 0..self.dt {
                let sub = format!("_{k}");
                self.open("{");
                self.line(&format!("let next = {};", next(&sub)));
                if k < self.d {
                    self.line(&test(&sub));
                }
                self.line(&format!("{x}{sub} = next;"));
                self.close();
            }
        } else {
            self.open("for (var k = 0u; k < DT; k++) {");
            self.line(&format!("let next = {};", next("[k]")));
            self.open("if (k < D) {");
            self.line(&test("[k]"));
            self.close();
            self.line(&format!("{x}[k] = next;"));
            self.close();
        }
    }
}

impl Ops for Kernel {
    type S = Scalar;

    fn h(&self) -> Scalar {
        Scalar::Named(0)
    }

    fn lit(&self, x: f64) -> Scalar {
        Scalar::Lit(x)
    }

    fn mul(&mut self, a: Scalar, b: Scalar) -> Scalar {
        let e = format!("{} * {}", self.scalar(a), self.scalar(b));
        self.let_scalar(e)
    }

    fn div(&mut self, a: Scalar, b: Scalar) -> Scalar {
        let e = format!("{} / {}", self.scalar(a), self.scalar(b));
        self.let_scalar(e)
    }

    fn neg(&mut self, a: Scalar) -> Scalar {
        let e = format!("-{}", self.scalar(a));
        self.let_scalar(e)
    }

    fn assign(&mut self, dst: Vector, e: &Lin<Scalar>) {
        let dst = self.name(dst);
        for x in e.vectors() {
            self.used.insert(x);
        }
        // The scalars' text, so the statement can be built while the body is written.
        let names = self.scalars.clone();
        let f64_literals = self.f64_literals;
        let text = move |s: Scalar| match s {
            Scalar::Named(i) => names[i].clone(),
            Scalar::Lit(x) => crate::wgsl_literal::real_literal(f64_literals, x),
        };
        self.each(|sub| format!("{dst}{sub} = {};", render(e, sub, &text)));
    }

    /// Compensated, the sum runs as in `compensated_sum`, with (base − x) taken from
    /// `opaque(x)`: a shader compiler that treats float arithmetic as reassociable (Mesa's NIR
    /// does) could otherwise fold ((base − (base + δ)) + δ) to 0 and drop the compensation;
    /// `opaque` (shaders/common/math.wgsl) hides that x is base + δ.
    fn update(&mut self, dst: Vector, base: Vector, c: Scalar, g: Vector) {
        let (dq, x, b, gv) = (dst.is_q(), self.name(dst), self.name(base), self.name(g));
        let c = self.scalar(c);
        if !self.compensated {
            return self.each(|k| format!("{x}{k} = {b}{k} + {c} * {gv}{k};"));
        }
        self.errors = true;
        let e = if dq { "eq" } else { "ep" };
        self.each(|k| {
            format!("{{ let d = {c} * {gv}{k} + {e}{k}; let x = {b}{k} + d; {e}{k} = ({b}{k} - opaque(x)) + d; {x}{k} = x; }}")
        });
    }

    fn partial(&mut self, which: Partial, q: Vector, p: Vector, out: Vector) {
        let (q, p, out) = (self.name(q), self.name(p), self.name(out));
        let which = match which {
            Partial::Q => "q",
            Partial::P => "p",
        };
        let own = format!("grad_{which}");
        let dir = format!("grad_{which}_dir");
        let (d, nt) = (self.d, self.nt);
        self.open("{");
        if self.unroll {
            let (aq, ap) = (self.reg_array(&q, None), self.reg_array(&p, None));
            self.line(&format!("let own_q = {aq};"));
            self.line(&format!("let own_p = {ap};"));
            self.line(&format!("let g = {own}(own_q, own_p);"));
            for k in 0..d {
                self.line(&format!("{} = g[{k}];", Self::reg(&out, k)));
            }
            for j in 0..nt {
                let (vq, vp) = (self.reg_array(&q, Some(j)), self.reg_array(&p, Some(j)));
                self.line(&format!("let t_{j} = {dir}(own_q, own_p, {vq}, {vp});"));
                for k in 0..d {
                    let o = Self::reg(&out, d * (1 + j) + k);
                    self.line(&format!("{o} = t_{j}[{k}];"));
                }
            }
        } else {
            self.line("var own_q: array<real, D>;");
            self.line("var own_p: array<real, D>;");
            self.open("for (var k = 0u; k < D; k++) {");
            self.line(&format!("own_q[k] = {q}[k];"));
            self.line(&format!("own_p[k] = {p}[k];"));
            self.close();
            self.line(&format!("var g = {own}(own_q, own_p);"));
            self.open("for (var k = 0u; k < D; k++) {");
            self.line(&format!("{out}[k] = g[k];"));
            self.close();
            self.open("for (var j = 0u; j < NT; j++) {");
            self.line("var v_q: array<real, D>;");
            self.line("var v_p: array<real, D>;");
            self.open("for (var k = 0u; k < D; k++) {");
            self.line(&format!("v_q[k] = {q}[D * (1u + j) + k];"));
            self.line(&format!("v_p[k] = {p}[D * (1u + j) + k];"));
            self.close();
            self.line(&format!("var t = {dir}(own_q, own_p, v_q, v_p);"));
            self.open("for (var k = 0u; k < D; k++) {");
            self.line(&format!("{out}[D * (1u + j) + k] = t[k];"));
            self.close();
            self.close();
        }
        self.close();
    }

    /// Up to `IMPLICIT_MAX_ITER` sweeps, leaving the loop once every primal component moved by
    /// at most `IMPLICIT_TOL`·(1 + |x|) (`implicit::sweep`); a solve that hits the cap is
    /// counted.
    fn solve_iterated(&mut self, stage: Stage, c: Scalar) {
        let c = self.scalar(c);
        self.fixed_point_loop(|k| {
            for (x, base, cc, g) in k.sweep_parts(stage, &c) {
                k.sweep_component(x, |sub| format!("{base}{sub} + {cc} * {g}{sub}"));
            }
        });
    }

    /// Up to `IMPLICIT_MAX_ITER` sweeps of the stage equations, leaving the loop once no
    /// equation moved a primal component by more than `IMPLICIT_TOL`·(1 + |x|), as the CPU
    /// block's `solve_stages_to_tolerance`; a solve that hits the cap is counted.
    fn solve_stages(&mut self, s: &StageSolve<Scalar>) {
        self.fixed_point_loop(|k| {
            for &(which, q, p, out) in &s.evals {
                k.partial(which, q, p, out);
            }
            for eq in &s.eqs {
                let x = k.name(eq.x);
                let base = k.name(eq.base);
                let terms: Vec<(String, String)> = eq
                    .terms
                    .iter()
                    .map(|&(c, g)| (k.scalar(c), k.name(g)))
                    .collect();
                k.sweep_component(&x, |sub| {
                    let mut e = format!("{base}{sub}");
                    for (c, g) in &terms {
                        e = format!("({e} + ({c} * {g}{sub}))");
                    }
                    e
                });
            }
        });
    }

    /// The system's WGSL `discrete_step(h, q, next, v)` (`next`: the drift q0 the method summed
    /// before) returns a `MapStep` (shaders/common/variational.wgsl) with the new q and v and
    /// whether its Newton iteration hit the cap (counted). Variational systems have no tangent
    /// columns and d ≤ 5, so the point is always in registers.
    fn discrete_step(&mut self, h: Scalar) {
        assert!(
            self.unroll && self.nt == 0,
            "variational kernels keep the point in registers, without tangent columns"
        );
        let h = self.scalar(h);
        self.open("{");
        let next = self.name(Vector::Q0);
        let (aq, av) = (self.reg_array("q", None), self.reg_array("p", None));
        let an = self.reg_array(&next, None);
        // The velocities' carried errors (`DiscreteMap::discrete_step`'s `ev`): the ep
        // registers when compensated, zeros (which the map returns unread) when not.
        let ev = if self.compensated {
            self.errors = true;
            self.reg_array("ep", None)
        } else {
            "array<real, D>()".to_string()
        };
        self.line(&format!(
            "let s = discrete_step({h}, {aq}, {an}, {av}, {ev});"
        ));
        for k in 0..self.d {
            self.line(&format!("{} = s.q[{k}];", Self::reg("q", k)));
            self.line(&format!("{} = s.v[{k}];", Self::reg("p", k)));
            if self.compensated {
                self.line(&format!("{} = s.ev[{k}];", Self::reg("ep", k)));
            }
        }
        self.open("if (s.capped) {");
        self.line("unconverged_steps += 1u;");
        self.close();
        self.close();
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
