//! The modified Hamiltonian of a symplectic Runge–Kutta or partitioned Runge–Kutta method
//! (implicit midpoint, Gauss, Lobatto IIIA–IIIB pairs such as Verlet and their compositions) on
//! any H, by P-series over bicoloured trees (Hairer, Lubich and Wanner, Geometric Numerical
//! Integration, III.1–III.2 and IX.9–IX.10).
//!
//! 1. The step is the P-series y1 = y0 + Σ_τ h^|τ| a(τ)/σ(τ) F(τ)(y0): a(τ) is the elementary
//!    weight (black vertices weighted by the q tableau, white ones by the p tableau).
//! 2. The modified vector field f̃ = Σ_τ h^{|τ|−1} b̃(τ)/σ(τ) F(τ) has that step as its exact
//!    time-h flow: y(h) = y0 + Σ_k h^k/k! (∂_{f̃})^{k−1} f̃, and the Lie derivative of a series
//!    with coefficients g along f̃ has coefficients (g ∂ b̃)(τ) = Σ over the edges of τ of
//!    g(the part holding the root) · b̃(the part cut off). So a(τ) = Σ_k g_k(τ)/k! with g₁ = b̃,
//!    g_{k+1} = g_k ∂ b̃, which gives b̃(τ) from a(τ) and b̃ of smaller trees (BSeries.jl's
//!    `modified_equation`).
//! 3. For a symplectic method f̃ is Hamiltonian, H̃ = H + Σ_n h^{n−1} H_n, with H_n a sum of the
//!    elementary Hamiltonians H(τ) = ∂^m H/∂(children)[F(τ₁), …, F(τ_m)] (derivatives in q for a
//!    black child, in p for a white one; the root's colour does not enter). Each free tree's
//!    rootings carry the same b̃(τ)H(τ) (re-rooting flips the sign of both), so summing over all
//!    rooted bicoloured trees of n vertices counts each term n times per root and twice for the
//!    root's two colours: H_n = 1/(2n) Σ_{|τ|=n} b̃(τ)/σ(τ) H(τ). The tests check that the
//!    Hamiltonian vector field of H_n is f̃'s degree-n part, and that Verlet's terms equal the
//!    Baker–Campbell–Hausdorff route's.

use std::collections::HashMap;

use crate::expr::dag::{Dag, Id, Var};
use crate::expr::diff::partial;
pub use crate::method::analysis::trees::Colour;
use crate::method::analysis::trees::{Forest, Kind, MAX_ORDER};
use crate::method::analysis::{decide, Zero};
use crate::method::tableau::Tableau;

/// The modified vector field's coefficients b̃(τ) of one partitioned method, per tree of the
/// bicoloured forest up to `MAX_ORDER` vertices, with the symmetry factors σ(τ).
pub struct Coefficients {
    pub forest: &'static Forest,
    pub b: Vec<f64>,
    /// The size of the terms each b̃(τ) sums (the same recursion over the coefficients'
    /// absolute values): rounding leaves b̃(τ) within a small multiple of f64's precision of
    /// it, which `order::decide` tells from a term that is there.
    pub scale: Vec<f64>,
    pub sigma: Vec<f64>,
}

impl Coefficients {
    /// b̃ for the method with q tableau `q` and p tableau `p` (`method::tableau` conventions).
    pub fn new(q: &Tableau, p: &Tableau) -> Self {
        let forest = Forest::get(Kind::Bicoloured);
        let trees = &forest.trees;
        let ids: HashMap<(Colour, &[u32]), u32> = trees
            .iter()
            .enumerate()
            .map(|(i, t)| ((t.colour, t.children.as_slice()), i as u32))
            .collect();
        let tab = |c: Colour| if c == Colour::Black { q } else { p };
        let s = q.stages();
        // stage vectors: phi(τ)_i = Π_children (Ã phi(child))_i; a(τ) = b̃ · phi(τ)
        let mut child: Vec<Vec<f64>> = Vec::with_capacity(trees.len());
        let mut child_abs: Vec<Vec<f64>> = Vec::with_capacity(trees.len());
        let mut a = Vec::with_capacity(trees.len());
        let mut a_abs = Vec::with_capacity(trees.len());
        let mut sigma = Vec::with_capacity(trees.len());
        // cuts[τ]: for each edge, (the part holding the root, the part cut off)
        let mut cuts: Vec<Vec<(u32, u32)>> = Vec::with_capacity(trees.len());
        for t in trees {
            let (mut phi, mut phi_abs) = (vec![1.0; s], vec![1.0; s]);
            for &c in &t.children {
                for (x, y) in phi.iter_mut().zip(&child[c as usize]) {
                    *x *= y;
                }
                for (x, y) in phi_abs.iter_mut().zip(&child_abs[c as usize]) {
                    *x *= y;
                }
            }
            let tb = tab(t.colour);
            a.push(dot(&tb.b, &phi));
            a_abs.push(dot_abs(&tb.b, &phi_abs));
            child.push(tb.a.iter().map(|row| dot(row, &phi)).collect());
            child_abs.push(tb.a.iter().map(|row| dot_abs(row, &phi_abs)).collect());
            sigma.push(symmetry(&t.children, &sigma));
            let mut mine = Vec::new();
            for (j, &c) in t.children.iter().enumerate() {
                let with = |r: Option<u32>| {
                    let mut kids: Vec<u32> = t.children.clone();
                    kids.remove(j);
                    kids.extend(r);
                    kids.sort_unstable();
                    ids[&(t.colour, kids.as_slice())]
                };
                mine.push((with(None), c));
                for &(r, br) in &cuts[c as usize] {
                    mine.push((with(Some(r)), br));
                }
            }
            cuts.push(mine);
        }
        // g[k][τ] = ((b̃ ∂ b̃) ∂ … b̃)(τ) with k factors; b̃ = g[1].
        let n = trees.len();
        let top = MAX_ORDER as usize;
        let mut g = vec![vec![0.0; n]; top + 1];
        let mut g_abs = vec![vec![0.0; n]; top + 1];
        let mut factorial = vec![1.0; top + 1];
        for k in 1..=top {
            factorial[k] = factorial[k - 1] * k as f64;
        }
        for (id, t) in trees.iter().enumerate() {
            let order = t.order as usize;
            let (mut rest, mut rest_abs) = (0.0, 0.0);
            for k in 2..=order {
                let (v, va) = cuts[id].iter().fold((0.0, 0.0), |(v, va), &(r, br)| {
                    let (r, br) = (r as usize, br as usize);
                    (
                        v + g[k - 1][r] * g[1][br],
                        va + g_abs[k - 1][r] * g_abs[1][br],
                    )
                });
                g[k][id] = v;
                g_abs[k][id] = va;
                rest += v / factorial[k];
                rest_abs += va / factorial[k];
            }
            g[1][id] = a[id] - rest;
            g_abs[1][id] = a_abs[id] + rest_abs;
        }
        Coefficients {
            forest,
            b: g.swap_remove(1),
            scale: g_abs.swap_remove(1),
            sigma,
        }
    }

    /// The trees of `n` vertices (ids).
    pub fn of_order(&self, n: u32) -> impl Iterator<Item = u32> + '_ {
        (0..self.forest.trees.len() as u32)
            .filter(move |&i| self.forest.trees[i as usize].order == n)
    }

    /// Whether b̃(τ) is zero (`order::decide` against its terms' size).
    pub fn zero(&self, id: u32) -> Zero {
        decide(self.b[id as usize], self.scale[id as usize])
    }

    /// Whether the modified vector field's terms of `n` vertices vanish: the least certain
    /// verdict that one of them is zero (`Fails` as soon as one is there).
    pub fn degree(&self, n: u32) -> Zero {
        self.of_order(n)
            .map(|i| self.zero(i))
            .max()
            .unwrap_or(Zero::Holds)
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn dot_abs(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x.abs() * y).sum()
}

/// σ(τ) = Π over the distinct children c, each k times: k! σ(c)^k (children sorted).
fn symmetry(children: &[u32], sigma: &[f64]) -> f64 {
    let mut out = 1.0;
    let mut i = 0;
    while i < children.len() {
        let k = children[i..]
            .iter()
            .take_while(|&&c| c == children[i])
            .count();
        for j in 1..=k {
            out *= j as f64 * sigma[children[i] as usize];
        }
        i += k;
    }
    out
}

/// The elementary differentials F(τ) and elementary Hamiltonians H(τ) of one H on its DAG,
/// as explicit sums over components, memoised (the partial derivatives of H by variable, the
/// contractions by function and children).
pub struct Elementary<'a> {
    pub dag: &'a mut Dag,
    h: Id,
    dof: usize,
    forest: &'static Forest,
    partials: HashMap<(Id, Var), Id>,
    contractions: HashMap<(Id, Vec<u32>), Id>,
    differentials: HashMap<u32, Vec<Id>>,
}

impl<'a> Elementary<'a> {
    pub fn new(dag: &'a mut Dag, h: Id, dof: usize, forest: &'static Forest) -> Self {
        Elementary {
            dag,
            h,
            dof,
            forest,
            partials: HashMap::new(),
            contractions: HashMap::new(),
            differentials: HashMap::new(),
        }
    }

    fn partial(&mut self, g: Id, x: Var) -> Id {
        if let Some(&id) = self.partials.get(&(g, x)) {
            return id;
        }
        let id = partial(self.dag, g, x);
        self.partials.insert((g, x), id);
        id
    }

    /// A black child is a q vector (the function is differentiated in q), a white one a p
    /// vector.
    fn var(&self, id: u32, k: usize) -> Var {
        match self.forest.trees[id as usize].colour {
            Colour::Black => Var::Q(k),
            Colour::White => Var::P(k),
        }
    }

    /// ∂^m g/∂(children)[F(c₁), …, F(c_m)], the last child contracted first.
    fn contract(&mut self, g: Id, children: &[u32]) -> Id {
        let Some((&last, prefix)) = children.split_last() else {
            return g;
        };
        let key = (g, children.to_vec());
        if let Some(&id) = self.contractions.get(&key) {
            return id;
        }
        let f = self.differential(last);
        let mut sum = self.dag.constant(0.0);
        for (k, &fk) in f.iter().enumerate() {
            let dg = self.partial(g, self.var(last, k));
            let inner = self.contract(dg, prefix);
            let term = self.dag.mul(inner, fk);
            sum = self.dag.add(sum, term);
        }
        self.contractions.insert(key, sum);
        sum
    }

    /// F(τ): the q components (∂H/∂p contracted) for a black root, the p components
    /// (−∂H/∂q contracted) for a white one.
    pub fn differential(&mut self, id: u32) -> Vec<Id> {
        if let Some(f) = self.differentials.get(&id) {
            return f.clone();
        }
        let t = &self.forest.trees[id as usize];
        let (colour, children) = (t.colour, t.children.clone());
        let f: Vec<Id> = (0..self.dof)
            .map(|k| match colour {
                Colour::Black => {
                    let g = self.partial(self.h, Var::P(k));
                    self.contract(g, &children)
                }
                Colour::White => {
                    let g = self.partial(self.h, Var::Q(k));
                    let c = self.contract(g, &children);
                    self.dag.neg(c)
                }
            })
            .collect();
        self.differentials.insert(id, f.clone());
        f
    }

    /// H(τ) = ∂^m H/∂(children)[F(τ₁), …, F(τ_m)].
    pub fn hamiltonian(&mut self, id: u32) -> Id {
        let children = self.forest.trees[id as usize].children.clone();
        self.contract(self.h, &children)
    }
}

/// H_n = 1/(2n) Σ_{|τ|=n} b̃(τ)/σ(τ) H(τ) as (node, coefficient, its terms' size) triples
/// (`combine` sums them), leaving out the trees whose b̃(τ) is zero to rounding, or with
/// `all` (a degree the order analysis finds there though rounding may hide it) only those
/// whose b̃(τ) is exactly 0.
pub fn term(c: &Coefficients, e: &mut Elementary, n: u32, all: bool) -> Vec<(Id, f64, f64)> {
    let mut out = Vec::new();
    for id in c.of_order(n) {
        let kept = if all {
            c.b[id as usize] != 0.0
        } else {
            c.zero(id) != Zero::Holds
        };
        if kept {
            let per = |x: f64| x / c.sigma[id as usize] / (2.0 * f64::from(n));
            let (w, size) = (per(c.b[id as usize]), per(c.scale[id as usize]));
            out.push((e.hamiltonian(id), w, size));
        }
    }
    out
}
