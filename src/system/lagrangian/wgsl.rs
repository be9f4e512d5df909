//! The step in WGSL: `discrete_step(h, q, next, v, ev)` of a Lagrangian system, the function
//! the `variational` method's kernel calls (`method::wgsl::ops`, shaders/common/variational.wgsl's
//! `MapStep`), generated from the compiled Lagrangian: its ∂L/∂q, ∂L/∂v and their directional
//! derivatives as `lag_q`, `lag_v`, `lag_q_dir`, `lag_v_dir` (`ExprHamiltonian::wgsl_named`,
//! v in p's place), the quadrature's nodes written out, and Newton's iteration per point (or,
//! for an L with a constant mass matrix and a rule with nodes at the ends, the explicit step).
//! CPU mirror: `step.rs`, the same operations in the same order (the `v` slots hold p).

use std::fmt::Write as _;

use super::constraint::Holonomic;
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

/// What a stage's body adds to `out` (`stages`).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Sum {
    /// The residual rows G₀, …, G_{s−1}: row ν += w (h ℓ_ν L_q + ℓ'_ν L_v).
    Rows,
    /// Their derivative along (d0, dxs).
    RowsDir,
    /// The kick h Σ w L_q (one row of D).
    Kick,
}

/// WGSL of control point ν's component k (`q0`, then the unknowns `xs`, D each).
fn control(nu: usize, q0: &str, xs: &str) -> String {
    match nu {
        0 => format!("{q0}[k]"),
        _ => format!("{xs}[{}u * D + k]", nu - 1),
    }
}

/// Σ_ν c_ν · control ν, in order, as `equations::Scratch` sums it: with `skip_zeros`, the
/// terms of a non-zero coefficient only (a position and velocity), else all (a direction).
fn combination(coefficients: &[f64], q0: &str, xs: &str, skip_zeros: bool) -> String {
    let terms: Vec<String> = coefficients
        .iter()
        .enumerate()
        .filter(|(_, c)| !skip_zeros || **c != 0.0)
        .map(|(nu, &c)| format!("real({}) * {}", literal(c), control(nu, q0, xs)))
        .collect();
    terms.join(" + ")
}

/// The bodies over the rule's stages that add `sum` to `out` (CPU mirror:
/// `equations::add_rows`, `add_rows_dir`, `add_kick`). One segment (s = 1) reads `q1` and the
/// shared `vel`, as before paths of higher degree; a path of degree s > 1 computes each
/// stage's position and velocity from the control points.
fn stages(rule: Discretization, sum: Sum) -> String {
    let mut s = String::new();
    let one_segment = rule.degree() == 1;
    for stage in rule.stages() {
        let c = stage.c;
        let _ = writeln!(s, "    {{");
        if one_segment {
            let point = if c == 0.0 {
                "q0".to_string()
            } else if c == 1.0 {
                "q1".to_string()
            } else {
                format!(
                    "lag_point(q0, q1, real({}), real({}))",
                    literal(1.0 - c),
                    literal(c)
                )
            };
            let _ = writeln!(s, "        let at = {point};");
        } else {
            let _ = writeln!(
                s,
                "        var at: array<real, D>;\n        var vel: array<real, D>;\n        for (var k = 0u; k < D; k++) {{\n            at[k] = {};\n            vel[k] = ({}) / h;\n        }}",
                combination(&stage.value, "q0", "xs", true),
                combination(&stage.slope, "q0", "xs", true)
            );
        }
        if sum == Sum::RowsDir {
            let dv = match one_segment {
                true => "(d1[k] - d0[k]) / h".to_string(),
                false => format!("({}) / h", combination(&stage.slope, "d0", "dxs", false)),
            };
            let _ = writeln!(
                s,
                "        var dq: array<real, D>;\n        var dv: array<real, D>;\n        for (var k = 0u; k < D; k++) {{\n            dq[k] = {};\n            dv[k] = {dv};\n        }}\n        let gq = lag_q_dir(at, vel, dq, dv);\n        let gv = lag_v_dir(at, vel, dq, dv);",
                combination(&stage.value, "d0", "dxs", false)
            );
        } else if sum == Sum::Rows {
            s.push_str("        let gq = lag_q(at, vel);\n        let gv = lag_v(at, vel);\n");
        } else {
            s.push_str("        let gq = lag_q(at, vel);\n");
        }
        let w = literal(stage.w);
        if sum == Sum::Kick {
            let _ = writeln!(
                s,
                "        let a = h * real(1.0);\n        for (var k = 0u; k < D; k++) {{\n            out[k] = out[k] + real({w}) * (a * gq[k]);\n        }}"
            );
        }
        for row in (0..rule.degree()).filter(|_| sum != Sum::Kick) {
            let _ = writeln!(
                s,
                "        let a{row} = h * real({});\n        for (var k = 0u; k < D; k++) {{\n            out[{row}u * D + k] = out[{row}u * D + k] + real({w}) * (a{row} * gq[k] + real({}) * gv[k]);\n        }}",
                literal(stage.value[row]),
                literal(stage.slope[row])
            );
        }
        s.push_str("    }\n");
    }
    s
}

/// The functions of the step that do not depend on L or the rule: a node's configuration and
/// the difference quotient of one segment (WGSL declarations may come in any order).
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

"#;

/// `{prefix}_solve`: the linear solve of {N} unknowns (`{NN}` = {N}², the matrix's entries),
/// and `{prefix}_move`, a Newton iteration's move of them, for the step's unknowns (`lag_`)
/// and a constrained step's (`con_`).
const SOLVE: &str = r#"
// The solution x of a x = b (a by rows) by Gaussian elimination with partial pivoting. CPU
// mirror: `lagrangian::step::solve`.
fn {prefix}_solve(a_in: array<real, {NN}>, b_in: array<real, {N}>) -> array<real, {N}> {
    var a = a_in;
    var b = b_in;
    for (var col = 0u; col < {N}; col++) {
        var pivot = col;
        for (var r = col + 1u; r < {N}; r++) {
            if (abs(a[r * {N} + col]) > abs(a[pivot * {N} + col])) {
                pivot = r;
            }
        }
        if (pivot != col) {
            for (var k = 0u; k < {N}; k++) {
                let t = a[col * {N} + k];
                a[col * {N} + k] = a[pivot * {N} + k];
                a[pivot * {N} + k] = t;
            }
            let t = b[col];
            b[col] = b[pivot];
            b[pivot] = t;
        }
        let inv = real(1.0) / a[col * {N} + col];
        for (var r = col + 1u; r < {N}; r++) {
            let f = a[r * {N} + col] * inv;
            for (var k = col + 1u; k < {N}; k++) {
                a[r * {N} + k] = a[r * {N} + k] - f * a[col * {N} + k];
            }
            b[r] = b[r] - f * b[col];
        }
    }
    for (var c = 0u; c < {N}; c++) {
        let col = {N} - 1u - c;
        var x = b[col];
        for (var k = col + 1u; k < {N}; k++) {
            x = x - a[col * {N} + k] * b[k];
        }
        b[col] = x / a[col * {N} + col];
    }
    return b;
}


// One Newton iteration's move of the unknowns x by −delta: whether an increment exceeds
// IMPLICIT_NEWTON_TOL·(1 + |x|) (still moving; a NaN increment stops). CPU mirror:
// `lagrangian::step::update`.
fn {prefix}_move(x: ptr<function, array<real, {N}>>, delta: array<real, {N}>) -> bool {
    var moving = false;
    for (var k = 0u; k < {N}; k++) {
        let y = (*x)[k] - delta[k];
        (*x)[k] = y;
        moving = moving || abs(delta[k]) > IMPLICIT_NEWTON_TOL * (real(1.0) + abs(y));
    }
    return moving;
}
"#;

/// `SOLVE` as the functions `prefix`_solve and `prefix`_move of `n` unknowns, with its
/// constants.
fn solve(prefix: &str, n: &str, n_value: usize) -> String {
    let nn = format!("{n}N");
    format!(
        "\nconst {n}: u32 = {n_value}u;\nconst {nn}: u32 = {}u;\n{}",
        n_value * n_value,
        SOLVE
            .replace("{prefix}", prefix)
            .replace("{NN}", &nn)
            .replace("{N}", n)
    )
}

/// `discrete_step` by Newton's method, which calls the rule's `lag_rows`, `lag_rows_dir` and
/// `lag_kick`. CPU mirror: `step::solve_controls` and `step::step`.
const NEWTON: &str = r#"
// One step from (q, p) (p in the `v` slots): the control points xs (LAG_N = s·D unknowns;
// q1 the last D) solve p + G₀ = 0, G_ν = 0 (0 < ν < s) by Newton's method from xs = (q, …, q)
// with the exact Jacobian, each increment to IMPLICIT_NEWTON_TOL·(1 + |x|), at most
// IMPLICIT_MAX_ITER; then p1 = p + h Σ wᵢ L_q (`lag_kick`). `next` (the drift) is not read.
fn discrete_step(h: real, q: array<real, D>, next: array<real, D>, v: array<real, D>,
    ev: array<real, D>) -> MapStep {
    var xs: array<real, LAG_N>;
    for (var j = 0u; j < LAG_N; j++) {
        xs[j] = q[j % D];
    }
    var capped = true;
    var zero: array<real, D>;
    for (var it = 0u; it < IMPLICIT_MAX_ITER; it++) {
        let f = lag_rows(h, q, xs, v);
        var a: array<real, LAG_NN>;
        for (var k = 0u; k < LAG_N; k++) {
            var unit: array<real, LAG_N>;
            unit[k] = real(1.0);
            let column = lag_rows_dir(h, q, xs, zero, unit);
            for (var r = 0u; r < LAG_N; r++) {
                a[r * LAG_N + k] = column[r];
            }
        }
        if (!lag_move(&xs, lag_solve(a, f))) {
            capped = false;
            break;
        }
    }
    var q1: array<real, D>;
    for (var k = 0u; k < D; k++) {
        q1[k] = xs[LAG_N - D + k];
    }
    return MapStep(q1, lag_kick(h, q, xs, v), ev, capped);
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

/// `discrete_step` with holonomic constraints, for a one-segment rule: C(q, μ) = Σⱼ μⱼ gⱼ(q)'s
/// functions as `con_q` (∇gᵀμ), `con_v` (g, the first CON_M components), `con_v_dir` (∇g δq),
/// and `con_solve` of CON_N = D + CON_M unknowns. CPU mirror: `constraint::step`.
const CONSTRAINED: &str = r#"
// The normal ∇g_j(q) of every constraint j < CON_M, as ∇gᵀe_j.
fn con_normals(q: array<real, D>) -> array<array<real, D>, CON_M> {
    var normals: array<array<real, D>, CON_M>;
    for (var j = 0u; j < CON_M; j++) {
        var unit: array<real, D>;
        unit[j] = real(1.0);
        normals[j] = con_q(q, unit);
    }
    return normals;
}

// One step from (q, p) (p in the `v` slots) on the constraints g(q) = 0: (q1, κ) solve
// p + D₁L_d(q, q1) − ∇g(q)ᵀκ/h = 0, g(q1) = 0; then p̃ = p − ∇g(q)ᵀκ/h + h Σ wᵢ L_q, and
// (v1, μ) solve ∂L/∂v(q1, v1) = p̃ − ∇g(q1)ᵀμ, ∇g(q1) v1 = 0; p1 = p̃ − ∇g(q1)ᵀμ. Each by
// Newton's method with the exact Jacobian, increments to IMPLICIT_NEWTON_TOL·(1 + |x|).
fn discrete_step(h: real, q: array<real, D>, next: array<real, D>, v: array<real, D>,
    ev: array<real, D>) -> MapStep {
    var zero: array<real, D>;
    let normals0 = con_normals(q);
    var xs: array<real, CON_N>;
    for (var k = 0u; k < D; k++) {
        xs[k] = q[k];
    }
    var capped = true;
    var q1: array<real, D>;
    var kappa: array<real, D>;
    for (var it = 0u; it < IMPLICIT_MAX_ITER; it++) {
        for (var k = 0u; k < D; k++) {
            q1[k] = xs[k];
        }
        for (var j = 0u; j < CON_M; j++) {
            kappa[j] = xs[D + j];
        }
        let rows = lag_rows(h, q, q1, v);
        let force = con_q(q, kappa);
        let g = con_v(q1, zero);
        var f: array<real, CON_N>;
        for (var k = 0u; k < D; k++) {
            f[k] = rows[k] - force[k] / h;
        }
        for (var j = 0u; j < CON_M; j++) {
            f[D + j] = g[j];
        }
        let normals1 = con_normals(q1);
        var a: array<real, CON_NN>;
        for (var k = 0u; k < D; k++) {
            var unit: array<real, D>;
            unit[k] = real(1.0);
            let column = lag_rows_dir(h, q, q1, zero, unit);
            for (var r = 0u; r < D; r++) {
                a[r * CON_N + k] = column[r];
            }
            for (var j = 0u; j < CON_M; j++) {
                a[(D + j) * CON_N + k] = normals1[j][k];
            }
        }
        for (var j = 0u; j < CON_M; j++) {
            for (var r = 0u; r < D; r++) {
                a[r * CON_N + D + j] = -normals0[j][r] / h;
            }
        }
        if (!con_move(&xs, con_solve(a, f))) {
            capped = false;
            break;
        }
    }
    for (var k = 0u; k < D; k++) {
        q1[k] = xs[k];
    }
    for (var j = 0u; j < CON_M; j++) {
        kappa[j] = xs[D + j];
    }
    let force = con_q(q, kappa);
    var p0: array<real, D>;
    for (var k = 0u; k < D; k++) {
        p0[k] = v[k] - force[k] / h;
    }
    let pt = lag_kick(h, q, q1, p0);
    // The momentum on the constraints' tangent space, from the chord's velocity.
    var ys: array<real, CON_N>;
    for (var k = 0u; k < D; k++) {
        ys[k] = (q1[k] - q[k]) / h;
    }
    let normals = con_normals(q1);
    var unsettled = true;
    var vel: array<real, D>;
    var mu: array<real, D>;
    for (var it = 0u; it < IMPLICIT_MAX_ITER; it++) {
        for (var k = 0u; k < D; k++) {
            vel[k] = ys[k];
        }
        for (var j = 0u; j < CON_M; j++) {
            mu[j] = ys[D + j];
        }
        let lv = lag_v(q1, vel);
        let force1 = con_q(q1, mu);
        let along = con_v_dir(q1, zero, vel, zero);
        var f: array<real, CON_N>;
        for (var k = 0u; k < D; k++) {
            f[k] = lv[k] - pt[k] + force1[k];
        }
        for (var j = 0u; j < CON_M; j++) {
            f[D + j] = along[j];
        }
        var a: array<real, CON_NN>;
        for (var k = 0u; k < D; k++) {
            var unit: array<real, D>;
            unit[k] = real(1.0);
            let column = lag_v_dir(q1, vel, zero, unit);
            for (var r = 0u; r < D; r++) {
                a[r * CON_N + k] = column[r];
            }
            for (var j = 0u; j < CON_M; j++) {
                a[(D + j) * CON_N + k] = normals[j][k];
            }
        }
        for (var j = 0u; j < CON_M; j++) {
            for (var r = 0u; r < D; r++) {
                a[r * CON_N + D + j] = normals[j][r];
            }
        }
        if (!con_move(&ys, con_solve(a, f))) {
            unsettled = false;
            break;
        }
    }
    for (var j = 0u; j < CON_M; j++) {
        mu[j] = ys[D + j];
    }
    let force1 = con_q(q1, mu);
    var p1: array<real, D>;
    for (var k = 0u; k < D; k++) {
        p1[k] = pt[k] - force1[k];
    }
    return MapStep(q1, p1, ev, capped || unsettled);
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
    holonomic: Option<&Holonomic>,
) -> String {
    let header = format!(
        "// L = {} (v = dq/dt in the velocities' place), L_d = {} ({}): generated by phaseflow::system::lagrangian.\n",
        l.source,
        rule.formula(),
        rule.name()
    );
    let mut s = l.wgsl_named(["lag_q", "lag_v", "lag_q_dir", "lag_v_dir"], header);
    s.push_str(&solve("lag", "LAG_N", rule.degree() * l.dof));
    s.push_str(FIXED);
    // One segment: q1 is the unknowns, and every stage has the velocity (q1 − q0)/h.
    let (segment, segment_dir) = match rule.degree() {
        1 => (
            "    let q1 = xs;\n    let vel = lag_velocity(h, q0, q1);\n",
            "    let q1 = xs;\n    let d1 = dxs;\n    let vel = lag_velocity(h, q0, q1);\n",
        ),
        _ => ("", ""),
    };
    let _ = write!(
        s,
        r#"
// The residual rows init + G₀, G₁, …, G_{{s−1}} at the control points (q0, xs), G_ν = ∂L_d/∂Q^ν.
fn lag_rows(h: real, q0: array<real, D>, xs: array<real, LAG_N>, init: array<real, D>) -> array<real, LAG_N> {{
{segment}    var out: array<real, LAG_N>;
    for (var k = 0u; k < D; k++) {{
        out[k] = init[k];
    }}
{rows}    return out;
}}

// p0 + h Σ wᵢ L_q at the stages: the discrete Legendre transform p1 = Gₛ where the rows
// vanish (`lagrangian::step`).
fn lag_kick(h: real, q0: array<real, D>, xs: array<real, LAG_N>, p0: array<real, D>) -> array<real, D> {{
{segment}    var out = p0;
{kick}    return out;
}}

// The derivative of the rows along (d0, dxs).
fn lag_rows_dir(h: real, q0: array<real, D>, xs: array<real, LAG_N>, d0: array<real, D>,
    dxs: array<real, LAG_N>) -> array<real, LAG_N> {{
{segment_dir}    var out: array<real, LAG_N>;
{rows_dir}    return out;
}}

"#,
        rows = stages(rule, Sum::Rows),
        kick = stages(rule, Sum::Kick),
        rows_dir = stages(rule, Sum::RowsDir),
    );
    if let Some(hol) = holonomic {
        let header = format!(
            "\n// C(q, μ) = Σ_j μ_j g_j(q) of the constraints {}: generated by phaseflow::system::lagrangian.\n",
            hol.formulas.join(", ")
        );
        s.push_str(
            &hol.c
                .wgsl_named(["con_q", "con_v", "con_q_dir", "con_v_dir"], header),
        );
        let _ = write!(s, "\nconst CON_M: u32 = {}u;", hol.m);
        s.push_str(&solve("con", "CON_N", l.dof + hol.m));
        s.push_str(CONSTRAINED);
        return s;
    }
    match mass {
        Some(mass) if rule.ends_only() => {
            s.push_str(&constant_array("lag_mass", "LAG_NN", &mass.mass));
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
