//! DAG → formula text in the syntax `parse` reads (so a printed formula parses back to the
//! same values): the fewest parentheses the precedences need, numbers as their shortest
//! round-trip decimals, `q`, `p` for one degree of freedom and `q1..qd`, `p1..pd` otherwise.
//! Shared nodes are written out at each use (the text is a tree).

use std::collections::HashMap;

use super::dag::{Dag, Id, Node, Var};

/// Binding strength, loosest first: a sum, a product, a negation, a power, an atom.
const SUM: u8 = 1;
const PRODUCT: u8 = 2;
const NEGATION: u8 = 3;
const POWER: u8 = 4;
const ATOM: u8 = 5;

/// The formula of node `id` of a system with `dof` degrees of freedom.
pub fn text(dag: &Dag, id: Id, dof: usize) -> String {
    write(dag, id, dof, &HashMap::new()).0
}

/// The number of nodes of `id` written out as a tree (saturating): the length of `text`, up
/// to a factor, which grows exponentially with the depth of shared subexpressions.
pub fn tree_size(dag: &Dag, id: Id) -> u64 {
    let mut size: HashMap<Id, u64> = HashMap::new();
    for n in dag.reachable(&[id]) {
        let s = dag
            .node(n)
            .operands()
            .iter()
            .fold(1u64, |acc, o| acc.saturating_add(size[o]));
        size.insert(n, s);
    }
    size[&id]
}

/// The formulas of `roots` with every operation used more than once among them named
/// `s1, s2, …` (in the order of the DAG, so each is defined from earlier ones): the roots'
/// texts, then each name with its definition. What `text` would write many times over is
/// written once.
pub fn shared(dag: &Dag, roots: &[Id], dof: usize) -> (Vec<String>, Vec<(String, String)>) {
    let order = dag.reachable(roots);
    let mut uses: HashMap<Id, usize> = HashMap::new();
    for &n in &order {
        for o in dag.node(n).operands() {
            *uses.entry(o).or_insert(0) += 1;
        }
    }
    let mut names: HashMap<Id, String> = HashMap::new();
    let mut definitions = Vec::new();
    for &n in &order {
        let operation = !matches!(dag.node(n), Node::Const(_) | Node::Var(_));
        if operation && uses.get(&n).copied().unwrap_or(0) > 1 && !roots.contains(&n) {
            let body = write(dag, n, dof, &names).0;
            let name = format!("s{}", definitions.len() + 1);
            definitions.push((name.clone(), body));
            names.insert(n, name);
        }
    }
    let texts = roots
        .iter()
        .map(|&r| write(dag, r, dof, &names).0)
        .collect();
    (texts, definitions)
}

/// The text of `id` (named subexpressions written as their names) and how strongly its
/// outermost operation binds.
fn write(dag: &Dag, id: Id, dof: usize, names: &HashMap<Id, String>) -> (String, u8) {
    if let Some(name) = names.get(&id) {
        return (name.clone(), ATOM);
    }
    // An operand that binds less strongly than `at` needs parentheses.
    let operand = |id: Id, at: u8| {
        let (s, strength) = write(dag, id, dof, names);
        if strength < at {
            format!("({s})")
        } else {
            s
        }
    };
    match dag.node(id) {
        Node::Const(bits) => {
            let x = f64::from_bits(bits);
            let strength = if needs_parens(x) { SUM } else { ATOM };
            (format!("{x:?}"), strength)
        }
        Node::Var(v) => {
            let (name, k) = match v {
                Var::Q(k) | Var::Vq(k) => ("q", k),
                Var::P(k) | Var::Vp(k) => ("p", k),
                // a built-in system's named constant: its formula writes it as a literal
                Var::Named(k) => return (format!("K{k}"), ATOM),
            };
            let s = if dof == 1 {
                name.to_string()
            } else {
                format!("{name}{}", k + 1)
            };
            (s, ATOM)
        }
        Node::Neg(a) => (format!("-{}", operand(a, NEGATION)), NEGATION),
        Node::Add(a, b) => (
            format!("{} + {}", operand(a, SUM), operand(b, PRODUCT)),
            SUM,
        ),
        Node::Sub(a, b) => (
            format!("{} - {}", operand(a, SUM), operand(b, PRODUCT)),
            SUM,
        ),
        Node::Mul(a, b) => (
            format!("{}*{}", operand(a, PRODUCT), operand(b, POWER)),
            PRODUCT,
        ),
        Node::Div(a, b) => (
            format!("{}/{}", operand(a, PRODUCT), operand(b, POWER)),
            PRODUCT,
        ),
        Node::Powi(a, n) => {
            let exponent = if n < 0 {
                format!("({n})")
            } else {
                n.to_string()
            };
            (format!("{}^{exponent}", operand(a, ATOM)), POWER)
        }
        Node::Call(f, a) => (
            format!("{}({})", f.name(), write(dag, a, dof, names).0),
            ATOM,
        ),
    }
}

/// Negative numbers and numbers written with an exponent are parenthesised wherever they
/// are an operand (`2*(-3)`, `(1e-5)^2`).
fn needs_parens(x: f64) -> bool {
    x < 0.0 || format!("{x:?}").contains('e')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::parse::parse;
    use crate::expr::program::{Inputs, Program};
    use std::collections::BTreeMap;

    fn eval(src: &str, q: &[f64], p: &[f64]) -> f64 {
        let mut parsed = parse(src, &BTreeMap::new(), Some(q.len())).unwrap();
        let program = Program::compile(&mut parsed.dag, &[parsed.root]);
        let mut out = [0.0];
        let inputs = Inputs {
            q,
            p,
            vq: &[],
            vp: &[],
        };
        program.run(&inputs, 1, &mut out);
        out[0]
    }

    /// Printed formulas parse back to the same values (precedence, signs, powers, numbers
    /// with exponents, functions, several degrees of freedom).
    #[test]
    fn printed_formulas_parse_back_to_the_same_values() {
        let (q, p) = ([0.7, -1.3], [0.4, 2.1]);
        for src in [
            "p1^2/2 - cos(q1) + 1",
            "-(q1 - q2)^3 + 2.5e-7*p1*p2 - 1/(q1^2 + q2^2)^(3/2)*(-3)",
            "(p1 + p2)/(q1 - q2)/(q1*q2) - -p2^(-2) + exp(-q1)*sqrt(p2^2 + 1)",
            "-(p1*(q1 - 2)) - 1e300*1e-300*atan(q2/(1 - q1))",
        ] {
            let parsed = parse(src, &BTreeMap::new(), Some(2)).unwrap();
            let printed = text(&parsed.dag, parsed.root, 2);
            let (a, b) = (eval(src, &q, &p), eval(&printed, &q, &p));
            assert!(
                (a - b).abs() <= 1e-14 * a.abs(),
                "{src} → {printed}: {a} vs {b}"
            );
        }
    }

    /// Shared subexpressions are named once; substituting the definitions back (each in
    /// parentheses, the last first) gives a formula of the same value.
    #[test]
    fn shared_names_each_repeated_subexpression_once() {
        let src = "(q1^2 + q2^2)^(-3)*sin(p1*(q1^2 + q2^2)) + (q1^2 + q2^2)*p2";
        let parsed = parse(src, &BTreeMap::new(), Some(2)).unwrap();
        let (texts, definitions) = shared(&parsed.dag, &[parsed.root], 2);
        assert!(!definitions.is_empty());
        assert!(tree_size(&parsed.dag, parsed.root) > 10);
        let mut formula = texts[0].clone();
        for (name, body) in definitions.iter().rev() {
            assert!(formula.contains(name.as_str()), "{name} unused");
            formula = formula.replace(name.as_str(), &format!("({body})"));
        }
        let (q, p) = ([0.7, -1.3], [0.4, 2.1]);
        let (a, b) = (eval(src, &q, &p), eval(&formula, &q, &p));
        assert!((a - b).abs() <= 1e-14 * a.abs(), "{formula}: {a} vs {b}");
    }
}
