//! A normal form for large generated expressions (the modified Hamiltonian's terms, built by
//! nested differentiation): sums flattened into lists of coefficient · monomial with like
//! terms merged, products into monomials of atoms to integer powers (a denominator is a
//! negative power, so x·(y/x) is y), and a sum that stands as a factor written with its
//! sign taken out. The same quantity reached by different routes — mixed partial derivatives
//! taken in either order, a bracket and its negation, the product rule's x·x + x·x — is then one
//! node, where the DAG's local rules (`dag`) leave them apart.
//!
//! The values are those of the input up to rounding (sums are added in another order, powers
//! multiplied out anew), and but for IEEE special cases: x/x is 1 and x − x is 0 also where x is
//! 0 or infinite. Sums that are factors are not multiplied out, so no expression grows beyond
//! the size of its input's sums.

use std::collections::BTreeMap;

use super::dag::{Dag, Id, Node};

/// A product of atoms (nodes of the output DAG that are not sums or products) to nonzero
/// integer powers; the empty monomial is 1.
type Mono = BTreeMap<Id, i32>;

/// Products whose operands' terms multiply out to at most this many terms are written out,
/// so that their terms meet the like terms of other sums; larger sums stay factors. (Kepler's
/// H̃ with two terms under Verlet: 548 instructions as built, 410 with no sum multiplied out,
/// 284 up to 4 terms, 179 from 16 terms on.)
const EXPAND: usize = 16;

/// A sum Σ coefficient · monomial, no coefficient 0.
#[derive(Debug, Clone, Default)]
struct Lin(BTreeMap<Mono, f64>);

impl Lin {
    fn term(c: f64, m: Mono) -> Lin {
        let mut l = Lin::default();
        if c != 0.0 {
            l.0.insert(m, c);
        }
        l
    }

    fn atom(a: Id) -> Lin {
        Lin::term(1.0, Mono::from([(a, 1)]))
    }

    /// Its value if it is a constant.
    fn value(&self) -> Option<f64> {
        match self.0.len() {
            0 => Some(0.0),
            1 => self.0.get(&Mono::new()).copied(),
            _ => None,
        }
    }

    fn scaled(&self, k: f64) -> Lin {
        Lin(self
            .0
            .iter()
            .map(|(m, &c)| (m.clone(), k * c))
            .filter(|&(_, c)| c != 0.0)
            .collect())
    }

    /// self + sign · other, like terms merged (a sum that cancels exactly is dropped).
    fn plus(&self, other: &Lin, sign: f64) -> Lin {
        let mut out = self.clone();
        for (m, &c) in &other.0 {
            let sum = out.0.get(m).copied().unwrap_or(0.0) + sign * c;
            if sum == 0.0 {
                out.0.remove(m);
            } else {
                out.0.insert(m.clone(), sum);
            }
        }
        out
    }
}

/// `roots` of `src` rewritten into a new DAG in normal form (the module's comment): the new
/// DAG and the roots' ids in it.
pub fn normalise(src: &Dag, roots: &[Id]) -> (Dag, Vec<Id>) {
    let mut dst = Dag::new();
    let mut lin: Vec<Option<Lin>> = vec![None; src.len()];
    for id in src.reachable(roots) {
        let get = |x: Id| lin[x].as_ref().expect("operands come first");
        let l = match src.node(id) {
            Node::Const(bits) => Lin::term(f64::from_bits(bits), Mono::new()),
            Node::Var(v) => Lin::atom(dst.var(v)),
            Node::Neg(a) => get(a).scaled(-1.0),
            Node::Add(a, b) => get(a).plus(get(b), 1.0),
            Node::Sub(a, b) => get(a).plus(get(b), -1.0),
            Node::Mul(a, b) => product(&mut dst, get(a), get(b), 1),
            Node::Div(a, b) => product(&mut dst, get(a), get(b), -1),
            Node::Powi(a, n) => {
                let (c, m) = factor(&mut dst, get(a));
                match (c, m.is_empty()) {
                    (0.0, _) | (_, true) => Lin::term(c.powi(n), Mono::new()),
                    _ => Lin::term(c.powi(n), m.into_iter().map(|(x, k)| (x, k * n)).collect()),
                }
            }
            Node::Call(f, a) => match get(a).value() {
                Some(x) => Lin::term(f.eval_f64(x), Mono::new()),
                None => {
                    let arg = emit(&mut dst, get(a));
                    Lin::atom(dst.call(f, arg))
                }
            },
        };
        lin[id] = Some(l);
    }
    let ids = roots
        .iter()
        .map(|&r| emit(&mut dst, lin[r].as_ref().expect("reachable")))
        .collect();
    (dst, ids)
}

/// `l` as coefficient · monomial: a sum of several terms is one atom, written with its first
/// term's sign taken out (so that S and −S are one node).
fn factor(dst: &mut Dag, l: &Lin) -> (f64, Mono) {
    match l.0.len() {
        0 => (0.0, Mono::new()),
        1 => {
            let (m, &c) = l.0.iter().next().expect("one term");
            (c, m.clone())
        }
        _ => {
            let sign = l.0.values().next().map_or(1.0, |c| c.signum());
            let atom = emit(dst, &l.scaled(sign));
            (sign, Mono::from([(atom, 1)]))
        }
    }
}

/// `l`'s terms: as they are (written out), or as one factor.
fn terms(dst: &mut Dag, l: &Lin, written_out: bool) -> Vec<(f64, Mono)> {
    if written_out {
        l.0.iter().map(|(m, &c)| (c, m.clone())).collect()
    } else {
        vec![factor(dst, l)]
    }
}

/// a · b^power (power ±1: a product or a quotient), multiplied out where the terms number at
/// most `EXPAND` (a denominator stays one factor).
fn product(dst: &mut Dag, a: &Lin, b: &Lin, power: i32) -> Lin {
    let expand = EXPAND;
    let (na, nb) = (a.0.len().max(1), b.0.len().max(1));
    let (out_a, out_b) = if power < 0 {
        (na <= expand, false)
    } else if na * nb <= expand {
        (true, true)
    } else {
        (na <= nb && na <= expand, nb < na && nb <= expand)
    };
    let (ta, tb) = (terms(dst, a, out_a), terms(dst, b, out_b));
    if power < 0 && tb[0].0 == 0.0 {
        // a division by zero keeps its IEEE value (±∞ or NaN), as the input had it
        let (x, y) = (emit(dst, a), dst.constant(0.0));
        return Lin::atom(dst.div(x, y));
    }
    let mut out = Lin::default();
    for (ca, ma) in &ta {
        for (cb, mb) in &tb {
            let mut m = ma.clone();
            for (&x, &k) in mb {
                let e = m.entry(x).or_insert(0);
                *e += power * k;
                if *e == 0 {
                    m.remove(&x);
                }
            }
            let c = if power < 0 { ca / cb } else { ca * cb };
            out = out.plus(&Lin::term(c, m), 1.0);
        }
    }
    out
}

/// The node of a sum, in nested (Horner) form: the atom power that divides the most terms
/// (at least two) is taken out of them, x^e · (their quotient) + (the others), and each part
/// is written the same way. A factor is then multiplied once per group instead of once per
/// term, and a denominator shared by a group divides it once (Kepler's H̃ with two terms under
/// Verlet: 179 instructions, 40 of them divisions, written term by term; 132 and 3 nested and
/// compiled with its shared divisors inverted, `Program::compile_for_host`). The form is a
/// function of the terms alone, so that equal sums are one node.
fn emit(dst: &mut Dag, l: &Lin) -> Id {
    let terms: Vec<(Mono, f64)> = l.0.iter().map(|(m, &c)| (m.clone(), c)).collect();
    nested(dst, &terms)
}

/// `emit` on a list of terms (monomials all different, no coefficient 0).
fn nested(dst: &mut Dag, terms: &[(Mono, f64)]) -> Id {
    // For each atom and sign of its exponent: the terms it divides, and its smallest power.
    let mut common: BTreeMap<(Id, bool), (usize, i32)> = BTreeMap::new();
    for (m, _) in terms {
        for (&x, &k) in m {
            let e = common.entry((x, k < 0)).or_insert((0, i32::MAX));
            *e = (e.0 + 1, e.1.min(k.abs()));
        }
    }
    // The most common; ties to the denominator (a division saved), then to the lowest id.
    let best = common
        .iter()
        .filter(|(_, &(n, _))| n >= 2)
        .max_by_key(|(&(x, negative), &(n, _))| (n, negative, std::cmp::Reverse(x)));
    let Some((&(x, negative), &(_, e))) = best else {
        return plain(dst, terms);
    };
    let k = if negative { -e } else { e };
    let (mut inner, mut rest) = (Vec::new(), Vec::new());
    for (m, c) in terms {
        match m.get(&x) {
            Some(&kx) if (kx < 0) == negative => {
                let mut m = m.clone();
                if kx == k {
                    m.remove(&x);
                } else {
                    m.insert(x, kx - k);
                }
                inner.push((m, *c));
            }
            _ => rest.push((m.clone(), *c)),
        }
    }
    let quotient = nested(dst, &inner);
    let power = dst.powi(x, e);
    let group = if negative {
        dst.div(quotient, power)
    } else {
        dst.mul(quotient, power)
    };
    if rest.is_empty() {
        group
    } else {
        let others = nested(dst, &rest);
        match (dst.node(others), dst.node(group)) {
            // −x − y as −(x + y): the negation goes on to the enclosing product or sum
            (Node::Neg(x), Node::Neg(y)) => {
                let sum = dst.add(x, y);
                dst.neg(sum)
            }
            _ => dst.add(others, group),
        }
    }
}

/// A sum whose terms share no atom: the terms whose coefficients have one size share one
/// product by it, c·(A ± B ± …) (a symmetric H's terms come in such pairs).
fn plain(dst: &mut Dag, terms: &[(Mono, f64)]) -> Id {
    let mut sizes: BTreeMap<u64, Vec<(&Mono, bool)>> = BTreeMap::new();
    for (m, c) in terms {
        sizes
            .entry(c.abs().to_bits())
            .or_default()
            .push((m, *c < 0.0));
    }
    let mut parts = Vec::new();
    for (bits, group) in sizes {
        let negative = group.iter().all(|&(_, n)| n);
        let mut items = Vec::new();
        for (m, n) in group {
            let x = monomial(dst, m).unwrap_or_else(|| dst.constant(1.0));
            items.push((x, n != negative));
        }
        let sum = signed_sum(dst, items);
        let size = dst.constant(f64::from_bits(bits));
        parts.push((dst.mul(size, sum), negative));
    }
    signed_sum(dst, parts)
}

/// Σ ±x over `items` (x, negative), the positive ones first so that each negative one is
/// subtracted; −Σ x where all are negative (a negation that the enclosing product or sum
/// takes in: `Dag::mul`, `Dag::add`).
fn signed_sum(dst: &mut Dag, mut items: Vec<(Id, bool)>) -> Id {
    items.sort_by_key(|&(_, negative)| negative);
    let all_negative = items.iter().all(|&(_, negative)| negative);
    let mut acc: Option<Id> = None;
    for &(x, negative) in &items {
        acc = Some(match acc {
            None => x,
            Some(a) if negative && !all_negative => dst.sub(a, x),
            Some(a) => dst.add(a, x),
        });
    }
    match acc {
        None => dst.constant(0.0),
        Some(sum) if all_negative => dst.neg(sum),
        Some(sum) => sum,
    }
}

/// The node of a monomial (`None` for 1): the atoms to positive powers over those to negative.
fn monomial(dst: &mut Dag, m: &Mono) -> Option<Id> {
    let mut side = |positive: bool| -> Option<Id> {
        m.iter()
            .filter(|&(_, &k)| (k > 0) == positive)
            .map(|(&x, &k)| dst.powi(x, k.abs()))
            .collect::<Vec<Id>>()
            .into_iter()
            .reduce(|a, b| dst.mul(a, b))
    };
    let (num, den) = (side(true), side(false));
    match (num, den) {
        (num, None) => num,
        (num, Some(den)) => {
            let num = num.unwrap_or_else(|| dst.constant(1.0));
            Some(dst.div(num, den))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::dag::{Func, Var};
    use crate::expr::diff::partial;

    /// The value of `node` at (q, p) by walking the DAG (the reference the forms are held to).
    fn value(dag: &Dag, node: Id, q: &[f64], p: &[f64]) -> f64 {
        let v = |x: Id| value(dag, x, q, p);
        match dag.node(node) {
            Node::Const(b) => f64::from_bits(b),
            Node::Var(Var::Q(i)) => q[i],
            Node::Var(Var::P(i)) => p[i],
            Node::Var(_) => unreachable!("no tangent inputs here"),
            Node::Neg(a) => -v(a),
            Node::Add(a, b) => v(a) + v(b),
            Node::Sub(a, b) => v(a) - v(b),
            Node::Mul(a, b) => v(a) * v(b),
            Node::Div(a, b) => v(a) / v(b),
            Node::Powi(a, n) => v(a).powi(n),
            Node::Call(f, a) => f.eval_f64(v(a)),
        }
    }

    /// Third derivatives of Kepler's V in every order of differentiation: equal in normal form
    /// (mixed partials are one node), with the values of the input.
    #[test]
    fn mixed_partials_meet_and_values_keep() {
        let mut g = Dag::new();
        let (q1, q2) = (g.var(Var::Q(0)), g.var(Var::Q(1)));
        let (a, b) = (g.powi(q1, 2), g.powi(q2, 2));
        let r2 = g.add(a, b);
        let r = g.call(Func::Sqrt, r2);
        let one = g.constant(1.0);
        let v = g.div(one, r);
        let mut roots = Vec::new();
        for order in [[0, 0, 1], [0, 1, 0], [1, 0, 0]] {
            let d = order.iter().fold(v, |e, &k| partial(&mut g, e, Var::Q(k)));
            roots.push(d);
        }
        assert_ne!(roots[0], roots[1], "the DAG alone keeps the orders apart");
        let (n, ids) = normalise(&g, &roots);
        assert_eq!(ids[0], ids[1]);
        assert_eq!(ids[1], ids[2]);
        for (x, y) in [(0.3, -1.2), (2.0, 0.5), (-0.7, -0.1)] {
            let want = value(&g, roots[0], &[x, y], &[]);
            let got = value(&n, ids[0], &[x, y], &[]);
            assert!((got - want).abs() <= 1e-13 * want.abs(), "{got} vs {want}");
        }
    }

    /// The nodes of kind `is` that `root` depends on.
    fn count(dag: &Dag, root: Id, is: fn(Node) -> bool) -> usize {
        dag.reachable(&[root])
            .into_iter()
            .filter(|&id| is(dag.node(id)))
            .count()
    }

    /// A sum is written nested: a denominator all its terms share divides once, a factor
    /// several share multiplies once, terms with one coefficient size share its product, and
    /// a sum of negative terms is one negation; the values are the input's.
    #[test]
    fn sums_are_written_nested() {
        let mut g = Dag::new();
        let (x, y) = (g.var(Var::Q(0)), g.var(Var::Q(1)));
        let (x2, y2, xy) = (g.powi(x, 2), g.powi(y, 2), g.mul(x, y));
        let r2 = g.add(x2, y2);
        let s5 = {
            let s = g.call(Func::Sqrt, r2);
            g.powi(s, 5)
        };
        let (c2, c3, c03) = (g.constant(2.0), g.constant(3.0), g.constant(0.3));
        // x²/s⁵ + 2xy/s⁵ + 3y²/s⁵, written term by term: three quotients
        let terms = [x2, g.mul(c2, xy), g.mul(c3, y2)].map(|t| g.div(t, s5));
        let quotients = terms[1..].iter().fold(terms[0], |a, &t| g.add(a, t));
        // 0.3x² + 0.3y² and −0.3x² − 0.3y²
        let (a, b) = (g.mul(c03, x2), g.mul(c03, y2));
        let same = g.add(a, b);
        let negative = {
            let na = g.neg(a);
            g.sub(na, b)
        };
        let roots = [quotients, same, negative];
        let (n, ids) = normalise(&g, &roots);
        let div = |node| matches!(node, Node::Div(..));
        assert_eq!((count(&g, quotients, div), count(&n, ids[0], div)), (3, 1));
        let Node::Mul(k, sum) = n.node(ids[1]) else {
            panic!("0.3 taken out: {:?}", n.node(ids[1]));
        };
        assert!(n.is(k, 0.3) && matches!(n.node(sum), Node::Add(..)));
        assert_eq!(n.node(ids[2]), Node::Neg(ids[1]));
        for (q1, q2) in [(0.3, -1.2), (2.0, 0.5), (-0.7, -0.1)] {
            for (&old, &new) in roots.iter().zip(&ids) {
                let want = value(&g, old, &[q1, q2], &[]);
                let got = value(&n, new, &[q1, q2], &[]);
                assert!((got - want).abs() <= 1e-14 * want.abs(), "{got} vs {want}");
            }
        }
    }

    /// S and −S as denominators are one node with opposite signs; x·(y/x) is y; x − x
    /// cancels; calls, powers and constants keep their values.
    #[test]
    fn signs_quotients_and_cancellations() {
        let mut g = Dag::new();
        let (x, y) = (g.var(Var::Q(0)), g.var(Var::P(0)));
        let s = g.call(Func::Sin, x);
        let sum = g.add(s, y);
        let neg_sum = {
            let ny = g.neg(y);
            g.sub(ny, s)
        };
        let (c, cube) = (g.call(Func::Cos, sum), g.powi(sum, 3));
        let (a, b) = (g.div(c, sum), g.div(c, neg_sum));
        let yx = g.div(y, x);
        let back = g.mul(x, yx);
        let cancel = {
            let t = g.add(a, cube);
            g.sub(t, cube)
        };
        let (n, ids) = normalise(&g, &[a, b, back, cancel]);
        assert_eq!(n.node(ids[1]), Node::Neg(ids[0]));
        assert_eq!(n.node(ids[2]), Node::Var(Var::P(0)));
        assert_eq!(ids[3], ids[0]);
        for (q, p) in [(0.4, 1.5), (-2.0, 0.25)] {
            for (&old, &new) in [a, b, back, cancel].iter().zip(&ids) {
                let (want, got) = (value(&g, old, &[q], &[p]), value(&n, new, &[q], &[p]));
                assert!(
                    (got - want).abs() <= 1e-15 * (1.0 + want.abs()),
                    "{got} vs {want}"
                );
            }
        }
    }
}
