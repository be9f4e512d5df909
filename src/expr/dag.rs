//! The expression DAG: hash-consed nodes (an identical node is stored once, so a
//! subexpression shared between H, its gradient components and their directional derivatives
//! is one node), built only through constructors that simplify as they go.
//!
//! Simplifications (each keeps the value, up to the IEEE special cases noted): constant
//! folding of every operation; `x + 0`, `x − 0`, `0 − x`, `x − x` (→ 0, also for infinite x),
//! `x·0` (→ 0, also for infinite x), `x·1`, `x·(−1)`, `x/1`, `0/x` (→ 0, also for x = 0);
//! division by a power of two as a multiplication by its (exact) inverse; constants gathered
//! in products (`2·(3·x)` → `6·x`, `x·(c/y)` → `c·(x/y)`, `(c·x)/y` → `c·(x/y)`),
//! quotients of quotients as one (`(x/y)/z` → `x/(y·z)`); negations pulled out of products and quotients and
//! cancelled (`−(−x)`, `x + (−y)` → `x − y`); `x^0`, `x^1`, `(x^a)^b` → `x^(ab)`. The operands
//! of `+` and `·` are ordered (constants first, then by id) so that `a + b` and `b + a` are
//! the same node. Ids grow with creation, so a node's operands always have smaller ids.

use std::collections::HashMap;

/// A node's index in its `Dag`.
pub type Id = usize;

/// An input of the generated code: a coordinate, a momentum, a component of the tangent
/// direction (vq, vp) of the directional derivatives, or a built-in system's named constant
/// (its value computed from the parameters when the system is built, the same f64 on the CPU
/// and, as a prelude constant, on the GPU; its derivatives are 0); indices are 0-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Var {
    Q(usize),
    P(usize),
    Vq(usize),
    Vp(usize),
    Named(usize),
}

/// The functions a formula may call (one argument each).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Func {
    Sin,
    Cos,
    Tan,
    Exp,
    Log,
    Sqrt,
    Sinh,
    Cosh,
    Tanh,
    Atan,
}

impl Func {
    /// Every function, in the order `Func::name` lists them in messages.
    pub const ALL: [Func; 10] = [
        Func::Sin,
        Func::Cos,
        Func::Tan,
        Func::Exp,
        Func::Log,
        Func::Sqrt,
        Func::Sinh,
        Func::Cosh,
        Func::Tanh,
        Func::Atan,
    ];

    /// Its name in formulas (and, but for sin and cos, in WGSL).
    pub fn name(self) -> &'static str {
        match self {
            Func::Sin => "sin",
            Func::Cos => "cos",
            Func::Tan => "tan",
            Func::Exp => "exp",
            Func::Log => "log",
            Func::Sqrt => "sqrt",
            Func::Sinh => "sinh",
            Func::Cosh => "cosh",
            Func::Tanh => "tanh",
            Func::Atan => "atan",
        }
    }

    /// The function called `name`, if any.
    pub fn from_name(name: &str) -> Option<Func> {
        Func::ALL.into_iter().find(|f| f.name() == name)
    }

    /// Its value in f64 through the standard library (constant folding, and the CPU
    /// evaluation of the functions other than sin, cos and sqrt).
    pub fn eval_f64(self, x: f64) -> f64 {
        match self {
            Func::Sin => x.sin(),
            Func::Cos => x.cos(),
            Func::Tan => x.tan(),
            Func::Exp => x.exp(),
            Func::Log => x.ln(),
            Func::Sqrt => x.sqrt(),
            Func::Sinh => x.sinh(),
            Func::Cosh => x.cosh(),
            Func::Tanh => x.tanh(),
            Func::Atan => x.atan(),
        }
    }
}

/// One node. Constants are stored as their bits so that nodes can be hashed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Node {
    Const(u64),
    Var(Var),
    Neg(Id),
    Add(Id, Id),
    Sub(Id, Id),
    Mul(Id, Id),
    Div(Id, Id),
    /// An integer power; `lower_powers` (diff.rs) turns it into products before code generation.
    Powi(Id, i32),
    Call(Func, Id),
}

impl Node {
    /// Its operands (none, one or two), in order.
    pub fn operands(self) -> Vec<Id> {
        match self {
            Node::Const(_) | Node::Var(_) => vec![],
            Node::Neg(a) | Node::Powi(a, _) | Node::Call(_, a) => vec![a],
            Node::Add(a, b) | Node::Sub(a, b) | Node::Mul(a, b) | Node::Div(a, b) => vec![a, b],
        }
    }
}

/// The hash-consed node store.
#[derive(Debug, Clone, Default)]
pub struct Dag {
    nodes: Vec<Node>,
    index: HashMap<Node, Id>,
    /// Set while `diff::lower_powers` writes powers as products, for code generation: `mul`
    /// then keeps x·x a product and writes sqrt(x)·sqrt(x) as x, as Mesa's shader compiler
    /// (lavapipe) folds it, so that the engines round alike. Otherwise `mul` merges powers of
    /// one node and keeps sqrt(x)·sqrt(x), a power the modified Hamiltonian's normal form
    /// (`normal`) shares as one atom's.
    lowering: bool,
}

impl Dag {
    pub fn new() -> Self {
        Self::default()
    }

    /// The number of nodes (every id is below it).
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True before the first node is added.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    pub fn node(&self, id: Id) -> Node {
        self.nodes[id]
    }

    /// The value of a constant node, `None` for any other.
    pub fn value(&self, id: Id) -> Option<f64> {
        match self.nodes[id] {
            Node::Const(bits) => Some(f64::from_bits(bits)),
            _ => None,
        }
    }

    /// True for the constant `x` (so also −0 for 0).
    pub fn is(&self, id: Id, x: f64) -> bool {
        self.value(id) == Some(x)
    }

    /// The nodes `roots` depend on (themselves included), in increasing id order: every
    /// node comes after its operands.
    pub fn reachable(&self, roots: &[Id]) -> Vec<Id> {
        let mut seen = vec![false; self.len()];
        let mut stack: Vec<Id> = roots.to_vec();
        while let Some(id) = stack.pop() {
            if !std::mem::replace(&mut seen[id], true) {
                stack.extend(self.nodes[id].operands());
            }
        }
        (0..self.len()).filter(|&id| seen[id]).collect()
    }

    fn intern(&mut self, node: Node) -> Id {
        if let Some(&id) = self.index.get(&node) {
            return id;
        }
        self.nodes.push(node);
        self.index.insert(node, self.nodes.len() - 1);
        self.nodes.len() - 1
    }

    /// Whether node `id` is a constant ±2^k (its products are exact).
    fn power_of_two(&self, id: Id) -> bool {
        self.value(id)
            .is_some_and(|x| crate::float::exact_reciprocal(x.abs()).is_some())
    }

    pub fn constant(&mut self, x: f64) -> Id {
        self.intern(Node::Const(x.to_bits()))
    }

    pub fn var(&mut self, v: Var) -> Id {
        self.intern(Node::Var(v))
    }

    /// The operands of a commutative operation in canonical order: constants first, then by id.
    fn ordered(&self, a: Id, b: Id) -> (Id, Id) {
        let key = |id: Id| (self.value(id).is_none(), id);
        if key(b) < key(a) {
            (b, a)
        } else {
            (a, b)
        }
    }

    pub fn neg(&mut self, a: Id) -> Id {
        match self.nodes[a] {
            Node::Const(bits) => self.constant(-f64::from_bits(bits)),
            Node::Neg(x) => x,
            Node::Sub(x, y) => self.sub(y, x),
            _ => self.intern(Node::Neg(a)),
        }
    }

    pub fn add(&mut self, a: Id, b: Id) -> Id {
        if let (Some(x), Some(y)) = (self.value(a), self.value(b)) {
            return self.constant(x + y);
        }
        let (a, b) = self.ordered(a, b);
        if self.is(a, 0.0) {
            return b;
        }
        match (self.nodes[a], self.nodes[b]) {
            (_, Node::Neg(y)) => self.sub(a, y),
            (Node::Neg(x), _) => self.sub(b, x),
            _ => self.intern(Node::Add(a, b)),
        }
    }

    pub fn sub(&mut self, a: Id, b: Id) -> Id {
        if let (Some(x), Some(y)) = (self.value(a), self.value(b)) {
            return self.constant(x - y);
        }
        if a == b {
            return self.constant(0.0);
        }
        if self.is(b, 0.0) {
            return a;
        }
        if self.is(a, 0.0) {
            return self.neg(b);
        }
        match self.nodes[b] {
            Node::Neg(y) => self.add(a, y),
            _ => self.intern(Node::Sub(a, b)),
        }
    }

    pub fn mul(&mut self, a: Id, b: Id) -> Id {
        if let (Some(x), Some(y)) = (self.value(a), self.value(b)) {
            return self.constant(x * y);
        }
        let (a, b) = self.ordered(a, b);
        if self.is(a, 0.0) {
            return a;
        }
        if self.is(a, 1.0) {
            return b;
        }
        if self.is(a, -1.0) {
            return self.neg(b);
        }
        if self.lowering {
            if let (Node::Call(Func::Sqrt, x), true) = (self.nodes[a], a == b) {
                return x;
            }
        } else if let (Some((x, k)), Some((y, m))) =
            (self.positive_power(a), self.positive_power(b))
        {
            // a product of powers of one node is its power (x·x = x², x·x² = x³, …): the
            // derivative of x³ is then 3x²·dx, where the product rule on x·(x·x) writes three
            // terms
            if x == y && k + m <= super::MAX_POWER {
                return self.powi(x, k + m);
            }
        }
        match (self.nodes[a], self.nodes[b]) {
            (Node::Neg(x), _) => {
                let m = self.mul(x, b);
                self.neg(m)
            }
            (_, Node::Neg(y)) => {
                let m = self.mul(a, y);
                self.neg(m)
            }
            (Node::Const(c), Node::Mul(x, y)) if self.value(x).is_some() => {
                let c = self.constant(f64::from_bits(c) * self.value(x).unwrap_or(1.0));
                self.mul(c, y)
            }
            // x · (k·y) → k · (x·y) for a power of two k: exact (the same value, bit for bit),
            // and it brings the constants of a product together (the derivative of
            // c·p²/2 is c·p, not (c·(2·p))/2)
            (_, Node::Mul(k, y)) if self.value(a).is_none() && self.power_of_two(k) => {
                let m = self.mul(a, y);
                self.mul(k, m)
            }
            (Node::Mul(k, x), _) if self.value(b).is_none() && self.power_of_two(k) => {
                let m = self.mul(x, b);
                self.mul(k, m)
            }
            // k · (c/y) → (kc)/y, x · (c/y) → c · (x/y)
            (Node::Const(k), Node::Div(c, y)) if self.value(c).is_some() => {
                let kc = self.constant(f64::from_bits(k) * self.value(c).unwrap_or(1.0));
                self.div(kc, y)
            }
            (_, Node::Div(c, y)) if self.value(c).is_some() => {
                let d = self.div(a, y);
                self.mul(c, d)
            }
            (Node::Div(c, x), _) if self.value(c).is_some() => {
                let d = self.div(b, x);
                self.mul(c, d)
            }
            _ => self.intern(Node::Mul(a, b)),
        }
    }

    pub fn div(&mut self, a: Id, b: Id) -> Id {
        if let (Some(x), Some(y)) = (self.value(a), self.value(b)) {
            return self.constant(x / y);
        }
        if self.is(b, 1.0) || self.is(a, 0.0) {
            return a;
        }
        if self.is(b, -1.0) {
            return self.neg(a);
        }
        if let Some(inv) = self.value(b).and_then(exact_inverse) {
            let inv = self.constant(inv);
            return self.mul(inv, a);
        }
        match (self.nodes[a], self.nodes[b]) {
            (Node::Neg(x), _) => {
                let d = self.div(x, b);
                self.neg(d)
            }
            (_, Node::Neg(y)) => {
                let d = self.div(a, y);
                self.neg(d)
            }
            // (c·x)/c → x: exact in real arithmetic, and the derivative of x^n/n is then
            // x^(n-1) rather than n·(x^(n-1)/n), which rounds twice
            (Node::Mul(c, x), _) if self.value(c).is_some() && self.value(c) == self.value(b) => x,
            // (c·x)/y → c·(x/y), (x/y)/z → x/(y·z)
            (Node::Mul(c, x), _) if self.value(c).is_some() => {
                let d = self.div(x, b);
                self.mul(c, d)
            }
            (Node::Div(x, y), _) => {
                let m = self.mul(y, b);
                self.div(x, m)
            }
            _ => self.intern(Node::Div(a, b)),
        }
    }

    /// `a` as x^k with k ≥ 1 (a node not a power: itself to the first), constants and
    /// negations excepted (a negation's sign comes out first: (−x)·(−x) is x²).
    fn positive_power(&self, a: Id) -> Option<(Id, i32)> {
        match self.nodes[a] {
            Node::Const(_) | Node::Neg(_) => None,
            Node::Powi(x, k) if k >= 1 => Some((x, k)),
            Node::Powi(..) => None,
            _ => Some((a, 1)),
        }
    }

    /// Enter (`true`) or leave the lowering for code generation (the field `lowering`);
    /// returns the previous setting.
    pub fn set_lowering(&mut self, on: bool) -> bool {
        std::mem::replace(&mut self.lowering, on)
    }

    pub fn powi(&mut self, a: Id, n: i32) -> Id {
        if n == 0 {
            return self.constant(1.0);
        }
        if n == 1 {
            return a;
        }
        match self.nodes[a] {
            Node::Const(bits) => self.constant(f64::from_bits(bits).powi(n)),
            // Merged only within ±MAX_POWER, so that the exponents n − 1 and n − 2 of the
            // first and second derivatives stay i32.
            Node::Powi(x, m) => match m.checked_mul(n) {
                Some(mn) if mn.unsigned_abs() <= super::MAX_POWER.unsigned_abs() => {
                    self.powi(x, mn)
                }
                _ => self.intern(Node::Powi(a, n)),
            },
            _ => self.intern(Node::Powi(a, n)),
        }
    }

    pub fn call(&mut self, f: Func, a: Id) -> Id {
        match self.value(a) {
            Some(x) => self.constant(f.eval_f64(x)),
            None => self.intern(Node::Call(f, a)),
        }
    }
}

/// 1/c when it is exact, i.e. c is ± a power of two whose inverse is a normal number, so
/// that x/c and x·(1/c) are the same float for every x.
fn exact_inverse(c: f64) -> Option<f64> {
    const MANTISSA: u64 = (1 << 52) - 1;
    let inv = 1.0 / c;
    let power_of_two = |x: f64| x.is_normal() && x.to_bits() & MANTISSA == 0;
    (power_of_two(c) && power_of_two(inv)).then_some(inv)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_nodes_are_shared_and_commutative_operands_ordered() {
        let mut g = Dag::new();
        let (q, p) = (g.var(Var::Q(0)), g.var(Var::P(0)));
        let a = g.add(q, p);
        let b = g.add(p, q);
        assert_eq!(a, b);
        let two = g.constant(2.0);
        assert_eq!(g.mul(q, two), g.mul(two, q));
    }

    #[test]
    fn simplification_rules() {
        let mut g = Dag::new();
        let x = g.var(Var::Q(0));
        let (zero, one) = (g.constant(0.0), g.constant(1.0));
        assert_eq!(g.add(x, zero), x);
        assert_eq!(g.mul(x, one), x);
        let m = g.mul(x, zero);
        assert!(g.is(m, 0.0));
        let d = g.sub(x, x);
        assert!(g.is(d, 0.0));
        let nx = g.neg(x);
        assert_eq!(g.neg(nx), x);
        let two = g.constant(2.0);
        let tx = g.mul(two, x);
        assert_eq!(g.div(tx, two), x, "2x/2 = x through the exact inverse 0.5");
        let sq = g.powi(x, 2);
        assert_eq!(g.powi(sq, 3), g.powi(x, 6));
        let three = g.constant(3.0);
        let s = g.add(two, three);
        assert!(g.is(s, 5.0));
        // constants meet through quotients: 3·(5/x) = 15/x, (3x)/y = 3(x/y), x·(1/y) = x/y
        let y = g.var(Var::P(0));
        let (c5, c15) = (g.constant(5.0), g.constant(15.0));
        let five_over_x = g.div(c5, x);
        assert_eq!(g.mul(three, five_over_x), g.div(c15, x));
        let three_x = g.mul(three, x);
        let (q1, x_over_y) = (g.div(three_x, y), g.div(x, y));
        assert_eq!(q1, g.mul(three, x_over_y));
        let inv_y = g.div(one, y);
        assert_eq!(g.mul(x, inv_y), x_over_y);
        let (xy_z, yz) = (g.div(x_over_y, x), g.mul(y, x));
        assert_eq!(xy_z, g.div(x, yz));
        assert_eq!(exact_inverse(3.0), None);
        assert_eq!(exact_inverse(-0.25), Some(-4.0));
    }
}
