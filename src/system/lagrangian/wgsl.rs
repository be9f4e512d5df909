//! The step in WGSL: `discrete_step(h, q, next, v, ev)` of a Lagrangian system, the function
//! the `variational` method's kernel calls (`method::wgsl::ops`, shaders/common/variational.wgsl's
//! `MapStep`), generated from the compiled Lagrangian: its ∂L/∂q, ∂L/∂v and their directional
//! derivatives as `lag_q`, `lag_v`, `lag_q_dir`, `lag_v_dir` (`ExprHamiltonian::wgsl_named`,
//! v in p's place), the quadrature's nodes written out, and Newton's iteration per point (or,
//! for an L with a constant mass matrix and a rule with nodes at the ends, the explicit step).
//! CPU mirror: `step.rs`, the same operations in the same order (the `v` slots hold p).

use std::fmt::Write as _;

use super::explicit::ConstantMass;
use super::Discretization;
use crate::expr::ExprHamiltonian;

/// A WGSL abstract-float literal of `x` (converted to `real` where used).
fn literal(x: f64) -> String {
    let s = format!("{x:?}");
    if s.contains('.') || s.contains('e') {
        s
    } else {
        format!("{s}.0")
    }
}

/// The body that adds Σᵢ wᵢ [a L_q + b L_v] over the nodes to `out`, for `first`
/// (D₁L_d: a = h(1 − c), b = −1) or not (D₁L_d + D₂L_d: a = h, no L_v); with `dir`, of
/// the directional derivatives along (d0, d1).
fn side(rule: Discretization, first: bool, dir: bool) -> String {
    let mut s = String::new();
    for &(c, w) in rule.nodes() {
        let point = if c == 0.0 {
            "q0".to_string()
        } else if c == 1.0 {
            "q1".to_string()
        } else {
            "lag_point(q0, q1, real(".to_string()
                + &literal(1.0 - c)
                + "), real("
                + &literal(c)
                + "))"
        };
        let a = if first {
            literal(1.0 - c)
        } else {
            "1.0".into()
        };
        let _ = writeln!(s, "    {{\n        let x = {point};");
        if dir {
            let _ = writeln!(
                s,
                "        var dq: array<real, D>;\n        var dv: array<real, D>;\n        for (var k = 0u; k < D; k++) {{\n            dq[k] = real({}) * d0[k] + real({}) * d1[k];\n            dv[k] = (d1[k] - d0[k]) / h;\n        }}\n        let gq = lag_q_dir(x, vel, dq, dv);\n        let gv = lag_v_dir(x, vel, dq, dv);",
                literal(1.0 - c),
                literal(c)
            );
        } else if first {
            s.push_str("        let gq = lag_q(x, vel);\n        let gv = lag_v(x, vel);\n");
        } else {
            s.push_str("        let gq = lag_q(x, vel);\n");
        }
        let term = if first {
            "a * gq[k] + real(-1.0) * gv[k]"
        } else {
            "a * gq[k]"
        };
        let _ = writeln!(
            s,
            "        let a = h * real({a});\n        for (var k = 0u; k < D; k++) {{\n            out[k] = out[k] + real({}) * ({term});\n        }}\n    }}",
            literal(w)
        );
    }
    s
}

/// The functions of the step that do not depend on L or the rule: a node's configuration,
/// the difference quotient, the linear solve (`LAG_DD` = D², the Jacobian's entries) and
/// and the Jacobian's (WGSL declarations may come in any order).
const FIXED: &str = r#"
// (1 − c) q0 + c q1: a quadrature node's configuration.
fn lag_point(q0: array<real, D>, q1: array<real, D>, a: real, c: real) -> array<real, D> {
    var x: array<real, D>;
    for (var k = 0u; k < D; k++) {
        x[k] = a * q0[k] + c * q1[k];
    }
    return x;
}

// (q1 − q0)/h.
fn lag_velocity(h: real, q0: array<real, D>, q1: array<real, D>) -> array<real, D> {
    var v: array<real, D>;
    for (var k = 0u; k < D; k++) {
        v[k] = (q1[k] - q0[k]) / h;
    }
    return v;
}

// The solution x of a x = b (a by rows) by Gaussian elimination with partial pivoting. CPU
// mirror: `lagrangian::step::solve`.
fn lag_solve(a_in: array<real, LAG_DD>, b_in: array<real, D>) -> array<real, D> {
    var a = a_in;
    var b = b_in;
    for (var col = 0u; col < D; col++) {
        var pivot = col;
        for (var r = col + 1u; r < D; r++) {
            if (abs(a[r * D + col]) > abs(a[pivot * D + col])) {
                pivot = r;
            }
        }
        if (pivot != col) {
            for (var k = 0u; k < D; k++) {
                let t = a[col * D + k];
                a[col * D + k] = a[pivot * D + k];
                a[pivot * D + k] = t;
            }
            let t = b[col];
            b[col] = b[pivot];
            b[pivot] = t;
        }
        let inv = real(1.0) / a[col * D + col];
        for (var r = col + 1u; r < D; r++) {
            let f = a[r * D + col] * inv;
            for (var k = col + 1u; k < D; k++) {
                a[r * D + k] = a[r * D + k] - f * a[col * D + k];
            }
            b[r] = b[r] - f * b[col];
        }
    }
    for (var c = 0u; c < D; c++) {
        let col = D - 1u - c;
        var x = b[col];
        for (var k = col + 1u; k < D; k++) {
            x = x - a[col * D + k] * b[k];
        }
        b[col] = x / a[col * D + col];
    }
    return b;
}

"#;

/// `discrete_step` by Newton's method, which calls the rule's `lag_d1`, `lag_d1_dir` and
/// `lag_kick`. CPU mirror: `step::step_in`.
const NEWTON: &str = r#"
// One step from (q, p) (p in the `v` slots): q1 solves p + D₁L_d(q, q1) = 0 by Newton's
// method from q1 = q with the exact Jacobian, each increment to IMPLICIT_NEWTON_TOL·(1 + |q1|),
// at most IMPLICIT_MAX_ITER; then p1 = D₂L_d(q, q1) (`lag_kick`). `next` (the drift) is
// not read.
fn discrete_step(h: real, q: array<real, D>, next: array<real, D>, v: array<real, D>,
    ev: array<real, D>) -> MapStep {
    var q1 = q;
    var capped = true;
    var zero: array<real, D>;
    for (var it = 0u; it < IMPLICIT_MAX_ITER; it++) {
        let f = lag_d1(h, q, q1, v);
        var a: array<real, LAG_DD>;
        for (var k = 0u; k < D; k++) {
            var unit: array<real, D>;
            unit[k] = real(1.0);
            let column = lag_d1_dir(h, q, q1, zero, unit);
            for (var r = 0u; r < D; r++) {
                a[r * D + k] = column[r];
            }
        }
        let delta = lag_solve(a, f);
        var moving = false;
        for (var k = 0u; k < D; k++) {
            let x = q1[k] - delta[k];
            q1[k] = x;
            moving = moving || abs(delta[k]) > IMPLICIT_NEWTON_TOL * (real(1.0) + abs(x));
        }
        if (!moving) {
            capped = false;
            break;
        }
    }
    return MapStep(q1, lag_kick(h, q, q1, v), ev, capped);
}
"#;

/// `discrete_step` of an L = ½vᵀMv + c·v − U(q) with M, c constant and a rule with nodes at
/// the ends only: kicks at q0, a drift through M⁻¹, kicks at q1 (`{start}`, `{end}`), with
/// `lag_mass` and `lag_offset` giving M and c. CPU mirror: `step::explicit`.
const EXPLICIT: &str = r#"
// One step from (q, p) (p in the `v` slots) of L = ½vᵀMv + c·v − U(q), M and c constant,
// explicitly: p ← p + h Σ_{cᵢ=0} wᵢ L_q(q), q1 = q + h M⁻¹(p − c), p1 = p + h Σ_{cᵢ=1} wᵢ
// L_q(q1) (∂L/∂q reads no velocity). Nothing to converge. `next` (the drift) is not read.
fn discrete_step(h: real, q: array<real, D>, next: array<real, D>, v: array<real, D>,
    ev: array<real, D>) -> MapStep {
    var zero: array<real, D>;
    var p = v;
{start}    var b: array<real, D>;
    let offset = lag_offset();
    for (var k = 0u; k < D; k++) {
        b[k] = p[k] - offset[k];
    }
    let vel = lag_solve(lag_mass(), b);
    var q1: array<real, D>;
    for (var k = 0u; k < D; k++) {
        q1[k] = q[k] + h * vel[k];
    }
{end}    return MapStep(q1, p, ev, false);
}
"#;

/// The kicks of `EXPLICIT` at the rule's nodes at `end` (0: q0, 1: q1), on `p`.
fn kicks(rule: Discretization, end: f64) -> String {
    let at = if end == 0.0 { "q" } else { "q1" };
    let mut s = String::new();
    for &(_, w) in rule.nodes().iter().filter(|(c, _)| *c == end) {
        let _ = writeln!(
            s,
            "    {{\n        let gq = lag_q({at}, zero);\n        for (var k = 0u; k < D; k++) {{\n            p[k] = p[k] + real({}) * (h * gq[k]);\n        }}\n    }}",
            literal(w)
        );
    }
    s
}

/// A WGSL function `name` returning `values` as an array<real, `len`>.
fn constant_array(name: &str, len: &str, values: &[f64]) -> String {
    let items: Vec<String> = values
        .iter()
        .map(|&x| format!("real({})", literal(x)))
        .collect();
    format!(
        "fn {name}() -> array<real, {len}> {{\n    return array<real, {len}>({});\n}}\n",
        items.join(", ")
    )
}

/// The generated WGSL of a Lagrangian system's step (and the functions it calls).
pub fn discrete_step(
    l: &ExprHamiltonian,
    mass: Option<&ConstantMass>,
    rule: Discretization,
) -> String {
    let header = format!(
        "// L = {} (v = dq/dt in the velocities' place), L_d = {} ({}): generated by phaseflow::system::lagrangian.\n",
        l.source,
        rule.formula(),
        rule.name()
    );
    let mut s = l.wgsl_named(["lag_q", "lag_v", "lag_q_dir", "lag_v_dir"], header);
    let _ = write!(s, "\nconst LAG_DD: u32 = {}u;\n{FIXED}", l.dof * l.dof);
    let _ = write!(
        s,
        r#"
// init + D₁L_d(q0, q1).
fn lag_d1(h: real, q0: array<real, D>, q1: array<real, D>, init: array<real, D>) -> array<real, D> {{
    let vel = lag_velocity(h, q0, q1);
    var out = init;
{d1}    return out;
}}

// p0 + D₁L_d(q0, q1) + D₂L_d(q0, q1) = p0 + h Σ wᵢ L_q(Qᵢ, V): the discrete Legendre
// transform p1 = D₂L_d(q0, q1) where p0 + D₁L_d = 0 (`lagrangian::step`).
fn lag_kick(h: real, q0: array<real, D>, q1: array<real, D>, p0: array<real, D>) -> array<real, D> {{
    let vel = lag_velocity(h, q0, q1);
    var out = p0;
{d2}    return out;
}}

// The derivative of D₁L_d along (d0, d1).
fn lag_d1_dir(h: real, q0: array<real, D>, q1: array<real, D>, d0: array<real, D>,
    d1: array<real, D>) -> array<real, D> {{
    let vel = lag_velocity(h, q0, q1);
    var out: array<real, D>;
{d1dir}    return out;
}}

"#,
        d1 = side(rule, true, false),
        d2 = side(rule, false, false),
        d1dir = side(rule, true, true),
    );
    match mass {
        Some(mass) if rule.ends_only() => {
            s.push_str(&constant_array("lag_mass", "LAG_DD", &mass.mass));
            s.push_str(&constant_array("lag_offset", "D", &mass.offset));
            s.push_str(
                &EXPLICIT
                    .replace("{start}", &kicks(rule, 0.0))
                    .replace("{end}", &kicks(rule, 1.0)),
            );
        }
        _ => s.push_str(NEWTON),
    }
    s
}
