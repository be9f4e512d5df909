//! WGSL generation: the four functions of a system shader (`grad_q`, `grad_p`, `grad_q_dir`,
//! `grad_p_dir`, the signatures of `shaders/system/*.wgsl`) from the same lowered DAG the CPU
//! program is compiled from.
//!
//! Every operation becomes a `let` binding (`let t12 = t7 * q[0];`), so a subexpression
//! shared between components is computed once; inputs are read as `q[k]`, `p[k]`, `vq[k]`,
//! `vp[k]`. The float type is written `real` (the prelude's alias for f32 or f64), constants
//! as unsuffixed decimal literals (abstract floats, converted to `real` where used) that
//! round-trip the f64 value exactly; parameters were folded into those constants by the
//! parser. sin and cos are the prelude's `sin_poly` / `cos_poly`, the other functions WGSL
//! built-ins. The prelude must define `real` and `D`. `energy` writes H itself in f64 for the
//! device reduction of the energy statistics.

use std::fmt::Write as _;

use super::dag::{Dag, Func, Id, Node, Var};
use super::diff::lower_powers;

/// How a function's inputs and outputs are declared.
#[derive(Debug, Clone, Copy)]
pub enum Signature {
    /// `(q, p)`: grad_q, grad_p.
    Gradient,
    /// `(q, p, vq, vp)`: grad_q_dir, grad_p_dir.
    Directional,
}

/// `fn name(...) -> array<real, D>` returning `outputs` (one per component); `named` spells
/// the named constants (`Var::Named`, a built-in system's prelude constants).
pub fn function(
    dag: &mut Dag,
    name: &str,
    signature: Signature,
    outputs: &[Id],
    named: &[&str],
) -> String {
    let outputs = lower_powers(dag, outputs);
    let args = match signature {
        Signature::Gradient => "q: array<real, D>, p: array<real, D>",
        Signature::Directional => {
            "q: array<real, D>, p: array<real, D>, vq: array<real, D>, vp: array<real, D>"
        }
    };
    let mut s = format!("fn {name}({args}) -> array<real, D> {{\n");
    s.push_str(&bindings(dag, &outputs, kernel_name, named, true));
    let components: Vec<String> = outputs.iter().map(|&o| operand(dag, o, named)).collect();
    let _ = writeln!(
        s,
        "    return array<real, D>({});\n}}",
        components.join(", ")
    );
    s
}

/// `fn name(args) -> real` returning `output` (a stop condition's `A - B`): the same
/// bindings as the kernels' functions, inputs read as `q[k]`, `p[k]`.
pub fn scalar_function(dag: &mut Dag, name: &str, args: &str, output: Id) -> String {
    let output = lower_powers(dag, &[output])[0];
    let mut s = format!("fn {name}({args}) -> real {{\n");
    s.push_str(&bindings(dag, &[output], kernel_name, &[], false));
    let _ = writeln!(s, "    return real({});\n}}", operand(dag, output, &[]));
    s
}

/// `fn energy(q: array<f64, D>, p: array<f64, D>) -> f64` computing `h` in f64 (what
/// `shaders/energy/<name>.wgsl` holds), with the f64 polynomials `sin_poly_f64` /
/// `cos_poly_f64` of shaders/energy/math_f64.wgsl. `None` when H calls a function other than
/// sin, cos and sqrt: Vulkan (SPIR-V's GLSL.std.450) has no f64 exp, log, tan, atan or
/// hyperbolic functions, so such an H needs its energy statistics on the CPU.
pub fn energy(dag: &mut Dag, h: Id, named: &[&str]) -> Option<String> {
    let h = lower_powers(dag, &[h])[0];
    if f64_unsupported(dag, &[h]).is_some() {
        return None;
    }
    let mut s = "fn energy(q: array<f64, D>, p: array<f64, D>) -> f64 {\n".to_string();
    s.push_str(&bindings(
        dag,
        &[h],
        |f| match f {
            Func::Sin => "sin_poly_f64",
            Func::Cos => "cos_poly_f64",
            other => other.name(),
        },
        named,
        false,
    ));
    let _ = writeln!(s, "    return {};\n}}", operand(dag, h, named));
    Some(s)
}

/// The first function the `roots` call that Vulkan lacks in f64 (all but sin and cos, which
/// the kernels compute as polynomials, and sqrt), or `None`.
pub fn f64_unsupported(dag: &Dag, roots: &[Id]) -> Option<&'static str> {
    dag.reachable(roots)
        .into_iter()
        .find_map(|id| match dag.node(id) {
            Node::Call(f, _) if !matches!(f, Func::Sin | Func::Cos | Func::Sqrt) => Some(f.name()),
            _ => None,
        })
}

/// One `let` per operation node the outputs depend on, in dependency order; with `kept`, in a
/// kernel (`opaque` defined), a product kept from regrouping (`kept_product`).
fn bindings(
    dag: &Dag,
    outputs: &[Id],
    name: fn(Func) -> &'static str,
    named: &[&str],
    kept: bool,
) -> String {
    let mut s = String::new();
    for id in dag.reachable(outputs) {
        let value = match kept.then(|| kept_product(dag, id, named)).flatten() {
            Some(value) => Some(value),
            None => operation(dag, id, name, named),
        };
        if let Some(value) = value {
            let _ = writeln!(s, "    let t{id} = {value};");
        }
    }
    s
}

/// c·(a·b) with c a constant that is not a power of two, written c·opaque(a·b): Mesa's shader
/// compiler regroups such a product as (c·a)·b, which rounds differently (seen on lavapipe in
/// the elastic pendulum's Hessian, −3·(p²·(1/r⁴)), whose tangent map then differed from the
/// CPU's by 2e-16 in f64 and 2e-7 in f32 within 100 steps). `opaque` (shaders/common/state.wgsl)
/// is a select no compiler sees through; the CPU computes c·(a·b) as written. A power of two
/// scales exactly, however grouped.
fn kept_product(dag: &Dag, id: Id, named: &[&str]) -> Option<String> {
    let Node::Mul(a, b) = dag.node(id) else {
        return None;
    };
    let regrouped = |c: Id, x: Id| {
        let Node::Const(bits) = dag.node(c) else {
            return false;
        };
        let scale = f64::from_bits(bits);
        let exact = scale == 0.0 || crate::float::exact_reciprocal(scale).is_some();
        !exact && matches!(dag.node(x), Node::Mul(..) | Node::Div(..))
    };
    let (o, k) = (
        |x| operand(dag, x, named),
        |x| format!("opaque({})", operand(dag, x, named)),
    );
    if regrouped(a, b) {
        Some(format!("{} * {}", o(a), k(b)))
    } else if regrouped(b, a) {
        Some(format!("{} * {}", k(a), o(b)))
    } else {
        None
    }
}

/// How node `id` is referred to: a literal, an input component or its `let` name.
fn operand(dag: &Dag, id: Id, named: &[&str]) -> String {
    match dag.node(id) {
        Node::Const(bits) => literal(f64::from_bits(bits)),
        Node::Var(v) => match v {
            Var::Q(k) => format!("q[{k}]"),
            Var::P(k) => format!("p[{k}]"),
            Var::Vq(k) => format!("vq[{k}]"),
            Var::Vp(k) => format!("vp[{k}]"),
            Var::Named(k) => named[k].to_string(),
        },
        _ => format!("t{id}"),
    }
}

/// The right-hand side of node `id`'s `let`, or `None` for a leaf; `name` spells functions.
fn operation(dag: &Dag, id: Id, name: fn(Func) -> &'static str, named: &[&str]) -> Option<String> {
    expression(
        dag.node(id),
        |a| operand(dag, a, named),
        |f, x| format!("{}({x})", name(f)),
        "1.0",
    )
}

/// An operation `node` as an expression of WGSL and Rust alike, its operands written by
/// `operand` and its calls by `call`, 1 spelled `one`; `None` for a leaf. A quotient is
/// written as a product with the divisor's reciprocal, x·(1/y): Mesa's shader compiler
/// (lavapipe) lowers x/y to that itself, so the CPU computes it too, and both round alike.
pub(super) fn expression(
    node: Node,
    operand: impl Fn(Id) -> String,
    call: impl Fn(Func, String) -> String,
    one: &str,
) -> Option<String> {
    let o = operand;
    Some(match node {
        Node::Const(_) | Node::Var(_) => return None,
        Node::Neg(a) => format!("-{}", o(a)),
        Node::Add(a, b) => format!("{} + {}", o(a), o(b)),
        Node::Sub(a, b) => format!("{} - {}", o(a), o(b)),
        Node::Mul(a, b) => format!("{} * {}", o(a), o(b)),
        Node::Div(a, b) => format!("{} * ({one} / {})", o(a), o(b)),
        Node::Call(f, a) => call(f, o(a)),
        Node::Powi(..) => unreachable!("lower_powers removed every power"),
    })
}

/// Function names in the integration kernels: the prelude's polynomials for sin and cos.
fn kernel_name(f: Func) -> &'static str {
    match f {
        Func::Sin => "sin_poly",
        Func::Cos => "cos_poly",
        other => other.name(),
    }
}

/// An unsuffixed WGSL literal (an abstract float) that parses back to exactly `x`;
/// negative values in parentheses so that any operator may precede them.
pub fn literal(x: f64) -> String {
    let s = format!("{:?}", x.abs());
    let s = if s.contains('.') || s.contains('e') {
        s
    } else {
        format!("{s}.0")
    };
    if x.is_sign_negative() {
        format!("(-{s})")
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_round_trip() {
        for x in [1.0, 0.1, -2.5, 1e-300, 6.02e23, std::f64::consts::PI, -0.0] {
            let lit = literal(x);
            let back: f64 = lit
                .trim_start_matches("(-")
                .trim_end_matches(')')
                .parse()
                .unwrap();
            let back = if lit.starts_with("(-") { -back } else { back };
            assert_eq!(back.to_bits(), x.to_bits(), "{lit}");
        }
        assert_eq!(literal(2.0), "2.0");
        assert_eq!(literal(-0.5), "(-0.5)");
    }
}
