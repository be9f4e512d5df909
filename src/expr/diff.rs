//! Symbolic differentiation on the DAG (forward mode, one pass per derivative), and the
//! lowering of integer powers to products that precedes code generation.
//!
//! One routine computes Σ_v (∂e/∂v)·seed(v) for a chosen seed per input: the partial
//! derivative ∂e/∂x (seed 1 for x, 0 elsewhere) and the directional derivative
//! Σ_j ∂e/∂q_j vq_j + ∂e/∂p_j vp_j (seed vq_j for q_j, vp_j for p_j) that gives the tangent
//! map's H_qq·vq + H_qp·vp when e = ∂H/∂q_k. Derivatives reuse their node where the rule
//! allows (d exp(u) = exp(u) du, d(a/b) = (da − (a/b) db)/b, d √u = (1/2)/√u du), so the
//! gradient shares its subexpressions with H; the constructors of `Dag` simplify every step.

use super::dag::{Dag, Func, Id, Node, Var};

/// Σ_v (∂root/∂v)·seed(v) over the inputs v that `root` depends on.
pub fn derivative(dag: &mut Dag, root: Id, seed: &dyn Fn(&mut Dag, Var) -> Id) -> Id {
    let order = dag.reachable(&[root]);
    let mut d: Vec<Option<Id>> = vec![None; dag.len()];
    for id in order {
        let node = dag.node(id);
        let get = |x: Id| d[x].expect("operands come first");
        let di = match node {
            Node::Const(_) => dag.constant(0.0),
            Node::Var(v) => seed(dag, v),
            Node::Neg(a) => dag.neg(get(a)),
            Node::Add(a, b) => dag.add(get(a), get(b)),
            Node::Sub(a, b) => dag.sub(get(a), get(b)),
            Node::Mul(a, b) => {
                let (x, y) = (dag.mul(get(a), b), dag.mul(a, get(b)));
                dag.add(x, y)
            }
            Node::Div(a, b) => {
                // (da − (a/b) db) / b, with a/b the node itself
                let t = dag.mul(id, get(b));
                let num = dag.sub(get(a), t);
                dag.div(num, b)
            }
            Node::Powi(a, n) => {
                let c = dag.constant(f64::from(n));
                let lower = dag.powi(a, n - 1);
                let f = dag.mul(c, lower);
                dag.mul(f, get(a))
            }
            Node::Call(f, a) => {
                let outer = call_derivative(dag, f, a, id);
                dag.mul(outer, get(a))
            }
        };
        d[id] = Some(di);
    }
    d[root].expect("the root is reachable")
}

/// f′(a) for the node `node` = f(a).
fn call_derivative(dag: &mut Dag, f: Func, a: Id, node: Id) -> Id {
    let one = dag.constant(1.0);
    match f {
        Func::Sin => dag.call(Func::Cos, a),
        Func::Cos => {
            let s = dag.call(Func::Sin, a);
            dag.neg(s)
        }
        // 1 + tan², 1 − tanh²
        Func::Tan => {
            let t2 = dag.powi(node, 2);
            dag.add(one, t2)
        }
        Func::Tanh => {
            let t2 = dag.powi(node, 2);
            dag.sub(one, t2)
        }
        Func::Exp => node,
        Func::Log => dag.div(one, a),
        Func::Sqrt => {
            let half = dag.constant(0.5);
            dag.div(half, node)
        }
        Func::Sinh => dag.call(Func::Cosh, a),
        Func::Cosh => dag.call(Func::Sinh, a),
        Func::Atan => {
            let a2 = dag.powi(a, 2);
            let den = dag.add(one, a2);
            dag.div(one, den)
        }
    }
}

/// ∂root/∂x.
pub fn partial(dag: &mut Dag, root: Id, x: Var) -> Id {
    derivative(dag, root, &|dag, v| {
        dag.constant(if v == x { 1.0 } else { 0.0 })
    })
}

/// Σ_j ∂root/∂q_j vq_j + ∂root/∂p_j vp_j over the `d` degrees of freedom, with vq, vp new
/// inputs: each term a Hessian entry times a direction component, so that the entries (which
/// do not depend on the direction) are computed once for all tangent columns (`rust`).
pub fn directional(dag: &mut Dag, root: Id, d: usize) -> Id {
    let reads: Vec<Var> = dag
        .reachable(&[root])
        .into_iter()
        .filter_map(|id| match dag.node(id) {
            Node::Var(v) => Some(v),
            _ => None,
        })
        .collect();
    let mut sum = dag.constant(0.0);
    for j in 0..d {
        for (x, v) in [(Var::Q(j), Var::Vq(j)), (Var::P(j), Var::Vp(j))] {
            // a variable `root` does not read contributes 0 (no derivative pass for it)
            if !reads.contains(&x) {
                continue;
            }
            let entry = partial(dag, root, x);
            let v = dag.var(v);
            let term = dag.mul(entry, v);
            sum = dag.add(sum, term);
        }
    }
    sum
}

/// `roots` with every integer power written as products (x⁴ = (x·x)·(x·x), the square
/// shared) and negative powers as 1/x^|n|: what both code generators expect. Nodes not
/// involving powers keep their ids.
pub fn lower_powers(dag: &mut Dag, roots: &[Id]) -> Vec<Id> {
    let was = dag.set_lowering(true);
    let order = dag.reachable(roots);
    let mut map: Vec<Id> = (0..dag.len()).collect();
    for id in order {
        let m = |x: Id| map[x];
        map[id] = match dag.node(id) {
            Node::Const(_) | Node::Var(_) => id,
            Node::Neg(a) => dag.neg(m(a)),
            Node::Add(a, b) => dag.add(m(a), m(b)),
            Node::Sub(a, b) => dag.sub(m(a), m(b)),
            Node::Mul(a, b) => dag.mul(m(a), m(b)),
            Node::Div(a, b) => dag.div(m(a), m(b)),
            Node::Call(f, a) => dag.call(f, m(a)),
            Node::Powi(a, n) => {
                let pos = positive_power(dag, m(a), n.unsigned_abs());
                if n < 0 {
                    let one = dag.constant(1.0);
                    dag.div(one, pos)
                } else {
                    pos
                }
            }
        };
    }
    dag.set_lowering(was);
    roots.iter().map(|&r| map[r]).collect()
}

/// x^n for n ≥ 1 by repeated squaring.
fn positive_power(dag: &mut Dag, x: Id, n: u32) -> Id {
    if n == 1 {
        x
    } else if n.is_multiple_of(2) {
        let h = positive_power(dag, x, n / 2);
        dag.mul(h, h)
    } else {
        let r = positive_power(dag, x, n - 1);
        dag.mul(x, r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derivative_of_sin_is_cos_and_of_a_power_is_exact() {
        let mut g = Dag::new();
        let q = g.var(Var::Q(0));
        let s = g.call(Func::Sin, q);
        let ds = partial(&mut g, s, Var::Q(0));
        assert_eq!(ds, g.call(Func::Cos, q));
        let c = g.powi(q, 3);
        let dc = partial(&mut g, c, Var::Q(0));
        let (three, sq) = (g.constant(3.0), g.powi(q, 2));
        assert_eq!(dc, g.mul(three, sq));
        let dp = partial(&mut g, c, Var::P(0));
        assert!(g.is(dp, 0.0));
    }

    #[test]
    fn powers_lower_to_shared_products() {
        let mut g = Dag::new();
        let q = g.var(Var::Q(0));
        let q4 = g.powi(q, -4);
        let low = lower_powers(&mut g, &[q4])[0];
        g.set_lowering(true); // products as the lowering writes them
        let sq = g.mul(q, q);
        let four = g.mul(sq, sq);
        let one = g.constant(1.0);
        assert_eq!(low, g.div(one, four));
    }

    /// sqrt(x)·sqrt(x) lowers to x (sqrt(x)³ to sqrt(x)·x); the DAG itself keeps sqrt(x)²,
    /// which the modified Hamiltonian's normal form shares as a power of one atom.
    #[test]
    fn a_square_root_squared_lowers_to_its_argument() {
        let mut g = Dag::new();
        let (a, b) = (g.var(Var::Q(0)), g.var(Var::Q(1)));
        let x = g.add(a, b);
        let s = g.call(Func::Sqrt, x);
        let square = g.mul(s, s);
        assert_eq!(g.node(square), Node::Powi(s, 2));
        let cube = g.mul(square, s);
        assert_eq!(g.node(cube), Node::Powi(s, 3));
        let low = lower_powers(&mut g, &[square, cube]);
        assert_eq!(low[0], x);
        g.set_lowering(true);
        assert_eq!(low[1], g.mul(s, x));
    }

    /// Products of powers of one node merge (x·x² = x³), so that the derivative of x³ is one
    /// term, 3x²·dx, and the Hessian of Kepler's 1/|q| has no product rule over |q|·|q|·|q|.
    #[test]
    fn products_of_one_nodes_powers_merge_and_differentiate_as_powers() {
        let mut g = Dag::new();
        let q = g.var(Var::Q(0));
        let s = g.call(Func::Sin, q);
        let s2 = g.mul(s, s);
        let s3 = g.mul(s, s2);
        assert_eq!(g.node(s3), Node::Powi(s, 3));
        let d = partial(&mut g, s3, Var::Q(0));
        let (three, c) = (g.constant(3.0), g.call(Func::Cos, q));
        let sq = g.powi(s, 2);
        let f = g.mul(three, sq);
        assert_eq!(d, g.mul(f, c));
    }
}
