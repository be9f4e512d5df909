//! The order conditions: for every tree t up to `MAX_ORDER` the method's elementary weight
//! Φ(t) must equal the exact flow's, 1/γ(t) (GNI III.1.4 for rooted trees, III.2.2 for
//! bicoloured ones; HNW I, II.14 for Nyström trees). The weights are computed once per tree
//! from its prefix and last child: Φ_i(t) = Φ_i(t') · (Ã Φ(last))_i, where Ã is the tableau
//! of the last child's colour, so a tree costs one product and one matrix–vector product.

use super::normal::Normal;
use super::trees::{Colour, Forest, Kind, MAX_ORDER};
use crate::method::tableau::Tableau;
use serde::Serialize;

/// A condition holds when |Φ(t) − 1/γ(t)| ≤ TOLERANCE · (|Φ|(t) + 1/γ(t)), |Φ| being the
/// weight computed with the coefficients' absolute values: the size rounding errors in the
/// coefficients (given in f64, or as decimals of 11 or more digits) can reach.
pub const TOLERANCE: f64 = 1e-10;

/// An order condition that fails.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Condition {
    /// The power of h it governs: the method's order is one less.
    pub order: u32,
    /// The tree in bracket notation (`trees::Forest::bracket`).
    pub tree: String,
    /// The condition written out over the coefficients (sums over repeated indices; c, ĉ
    /// the row sums of a, â), e.g. `Σ b_i c_i a_ij c_j = 1/8`.
    pub condition: String,
    /// Φ(t) − 1/γ(t).
    pub residual: f64,
}

/// The order found and, below `MAX_ORDER`, the first condition that fails.
#[derive(Debug, Clone, PartialEq)]
pub struct Order {
    pub order: u32,
    pub first_failure: Option<Condition>,
}

/// The coefficients the weights read.
enum Coeffs<'a> {
    /// Partitioned: black children weighted by `q`, white ones by `p`.
    Prk { q: &'a Tableau, p: &'a Tableau },
    Rkn {
        a: &'a [Vec<f64>],
        b_bar: &'a [f64],
        b: &'a [f64],
        c: &'a [f64],
    },
}

/// The order for every H the form serves: any H for Runge–Kutta and partitioned methods,
/// separable H for splittings, H = ½pᵀM⁻¹p + V(q) for Nyström methods.
pub fn order(n: &Normal) -> Order {
    match n {
        Normal::Rk(t) => check(Kind::Mono, &Coeffs::Prk { q: t, p: t }),
        Normal::Prk { q, p } => check(Kind::Bicoloured, &Coeffs::Prk { q, p }),
        Normal::Splitting { q, p, .. } => check(Kind::Alternating, &Coeffs::Prk { q, p }),
        Normal::Rkn { .. } => order_nystrom(n),
    }
}

/// The order on H = ½pᵀM⁻¹p + V(q) (q'' = −M⁻¹∇V), at least `order(n)`: fewer conditions
/// apply there, so some splittings built for it reach a higher order than on other H.
pub fn order_nystrom(n: &Normal) -> Order {
    let co = match n {
        Normal::Rk(t) => Coeffs::Prk { q: t, p: t },
        Normal::Prk { q, p } | Normal::Splitting { q, p, .. } => Coeffs::Prk { q, p },
        Normal::Rkn { a, b_bar, b, c } => Coeffs::Rkn { a, b_bar, b, c },
    };
    check(Kind::Nystrom, &co)
}

/// Per-tree stage vectors, stored flat (tree id × stage).
struct Store {
    s: usize,
    v: Vec<f64>,
    abs: Vec<f64>,
}

impl Store {
    fn new(trees: usize, s: usize) -> Self {
        Store {
            s,
            v: vec![0.0; trees * s],
            abs: vec![0.0; trees * s],
        }
    }
    fn get(&self, id: u32) -> (&[f64], &[f64]) {
        let r = id as usize * self.s..(id as usize + 1) * self.s;
        (&self.v[r.clone()], &self.abs[r])
    }
    fn put(&mut self, id: u32, (v, abs): (Vec<f64>, Vec<f64>)) {
        let r = id as usize * self.s;
        self.v[r..r + self.s].copy_from_slice(&v);
        self.abs[r..r + self.s].copy_from_slice(&abs);
    }
}

/// ã·x and |ã|·|x| (x given with its absolute counterpart).
fn product(a: &[Vec<f64>], x: (&[f64], &[f64])) -> (Vec<f64>, Vec<f64>) {
    (
        a.iter().map(|r| dot(r, x.0)).collect(),
        a.iter().map(|r| dot_abs(r, x.1)).collect(),
    )
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn dot_abs(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x.abs() * y).sum()
}

fn check(kind: Kind, co: &Coeffs) -> Order {
    let forest = Forest::get(kind);
    let s = match co {
        Coeffs::Prk { q, .. } => q.stages(),
        Coeffs::Rkn { b, .. } => b.len(),
    };
    let n = forest.trees.len();
    // phi: Φ(t) per stage; child: the contribution of t as a child (Ã Φ(t), or for a Nyström
    // meagre vertex c or ā Φ(its fat child)).
    let mut phi = Store::new(n, s);
    let mut child = Store::new(n, s);
    for (id, t) in forest.trees.iter().enumerate() {
        let id = id as u32;
        let nystrom_meagre = matches!(co, Coeffs::Rkn { .. }) && t.colour == Colour::Black;
        if !nystrom_meagre {
            let value = match (t.prefix, t.last()) {
                (Some(pre), Some(last)) => {
                    let (p, pa) = phi.get(pre);
                    let (g, ga) = child.get(last);
                    (
                        p.iter().zip(g).map(|(x, y)| x * y).collect(),
                        pa.iter().zip(ga).map(|(x, y)| x * y).collect(),
                    )
                }
                _ => (vec![1.0; s], vec![1.0; s]),
            };
            phi.put(id, value);
        }
        let weight = match co {
            Coeffs::Prk { q, p } => {
                let tab = if t.colour == Colour::Black { q } else { p };
                if t.order < MAX_ORDER {
                    let g = product(&tab.a, phi.get(id));
                    child.put(id, g);
                }
                let (v, a) = phi.get(id);
                (dot(&tab.b, v), dot_abs(&tab.b, a))
            }
            Coeffs::Rkn { a, b_bar, b, c } => match (t.colour, t.last()) {
                (Colour::White, _) => {
                    let (v, va) = phi.get(id);
                    (dot(b, v), dot_abs(b, va))
                }
                (Colour::Black, None) => {
                    let abs: Vec<f64> = c.iter().map(|x| x.abs()).collect();
                    child.put(id, (c.to_vec(), abs));
                    (1.0, 1.0) // q1 = q0 + h q0' + …: holds by construction
                }
                (Colour::Black, Some(fat)) => {
                    let g = product(a, phi.get(fat));
                    child.put(id, g);
                    let (v, va) = phi.get(fat);
                    (dot(b_bar, v), dot_abs(b_bar, va))
                }
            },
        };
        let exact = 1.0 / t.gamma;
        let residual = weight.0 - exact;
        if residual.abs() > TOLERANCE * (weight.1 + exact) {
            return Order {
                order: t.order - 1,
                first_failure: Some(Condition {
                    order: t.order,
                    tree: forest.bracket(id),
                    condition: formula(forest, id, matches!(co, Coeffs::Rkn { .. }), kind),
                    residual,
                }),
            };
        }
    }
    Order {
        order: MAX_ORDER,
        first_failure: None,
    }
}

const INDICES: [&str; 12] = ["i", "j", "k", "l", "m", "n", "r", "s", "t", "u", "v", "w"];

/// The condition of tree `id` written over the coefficients.
fn formula(forest: &Forest, id: u32, nystrom: bool, kind: Kind) -> String {
    let t = &forest.trees[id as usize];
    let hat = |c: Colour| {
        if kind != Kind::Mono && c == Colour::White {
            "̂"
        } else {
            ""
        }
    };
    let mut factors: Vec<String> = Vec::new();
    let mut next = 1;
    if nystrom {
        match (t.colour, t.last()) {
            (Colour::Black, None) => return "q₁ = q₀ + h q₀' (holds by construction)".into(),
            (Colour::Black, Some(fat)) => {
                factors.push("b̄_i".into());
                fat_terms(forest, fat, 0, &mut next, &mut factors);
            }
            (Colour::White, _) => {
                factors.push("b_i".into());
                fat_terms(forest, id, 0, &mut next, &mut factors);
            }
        }
    } else {
        factors.push(format!("b{}_i", hat(t.colour)));
        prk_terms(forest, id, 0, &mut next, &mut factors, &hat);
    }
    // Identical factors as powers, in the order they first appear.
    let mut counted: Vec<(String, usize)> = Vec::new();
    for f in factors {
        match counted.iter_mut().find(|(g, _)| *g == f) {
            Some((_, k)) => *k += 1,
            None => counted.push((f, 1)),
        }
    }
    const POW: [&str; 9] = ["", "", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸"];
    let body: Vec<String> = counted
        .into_iter()
        .map(|(f, k)| format!("{f}{}", POW[k.min(8)]))
        .collect();
    format!("Σ {} = 1/{}", body.join(" "), t.gamma)
}

fn prk_terms(
    forest: &Forest,
    id: u32,
    at: usize,
    next: &mut usize,
    out: &mut Vec<String>,
    hat: &dyn Fn(Colour) -> &'static str,
) {
    for &ch in &forest.trees[id as usize].children {
        let c = &forest.trees[ch as usize];
        if c.children.is_empty() {
            out.push(format!("c{}_{}", hat(c.colour), INDICES[at]));
        } else {
            let y = *next;
            *next += 1;
            out.push(format!("a{}_{}{}", hat(c.colour), INDICES[at], INDICES[y]));
            prk_terms(forest, ch, y, next, out, hat);
        }
    }
}

/// A fat (white) vertex's children: each meagre child is c (a leaf) or ā to its fat child.
fn fat_terms(forest: &Forest, id: u32, at: usize, next: &mut usize, out: &mut Vec<String>) {
    for &m in &forest.trees[id as usize].children {
        match forest.trees[m as usize].last() {
            None => out.push(format!("c_{}", INDICES[at])),
            Some(fat) => {
                let y = *next;
                *next += 1;
                out.push(format!("ā_{}{}", INDICES[at], INDICES[y]));
                fat_terms(forest, fat, y, next, out);
            }
        }
    }
}
