//! The order conditions: for every tree t up to `MAX_ORDER` the method's elementary weight
//! Φ(t) must equal the exact flow's, 1/γ(t) (GNI III.1.4 for rooted trees, III.2.2 for
//! bicoloured ones; HNW I, II.14 for Nyström trees). The weights are computed once per tree
//! from its prefix and last child: Φ_i(t) = Φ_i(t') · (Ã Φ(last))_i, where Ã is the tableau
//! of the last child's colour, so a tree costs one product and one matrix–vector product.

use super::normal::Normal;
use super::trees::{Colour, Forest, Kind, MAX_ORDER};
use crate::method::tableau::Tableau;
use serde::Serialize;

/// A condition holds when |Φ(t) − 1/γ(t)| ≤ ROUNDING · (|Φ|(t) + 1/γ(t)), |Φ| being the
/// weight computed with the coefficients' absolute values: with a wide margin, what rounding
/// the coefficients to f64 (half a unit in the last place each, about 1e-16) and summing over
/// the stages can leave. It fails when the residual is above TOLERANCE · (|Φ| + 1/γ), beyond
/// what coefficients given as decimals of 11 or more digits can leave. In between it is not
/// decided: the coefficients as given do not satisfy it, the exact ones they round may, so the
/// order found is a lower bound (`Order::at_least`).
pub const TOLERANCE: f64 = 1e-10;

/// See `TOLERANCE`.
pub const ROUNDING: f64 = 1e-13;

/// Whether a quantity that is zero for exact coefficients is zero for these: the verdict on
/// an order condition (`verdict`) and on a modified Hamiltonian's coefficients (which vanish
/// exactly where the conditions hold) alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Zero {
    /// Within what rounding leaves (`ROUNDING` of the size of the terms summed).
    Holds,
    /// Beyond rounding, within `TOLERANCE`: the exact coefficients the given ones round may
    /// make it zero.
    Undecided,
    /// Beyond `TOLERANCE`: not zero.
    Fails,
}

/// The verdict on `value`, a sum of terms whose absolute values sum to `scale`.
pub fn decide(value: f64, scale: f64) -> Zero {
    let r = value.abs();
    if r <= ROUNDING * scale {
        Zero::Holds
    } else if r <= TOLERANCE * scale {
        Zero::Undecided
    } else {
        Zero::Fails
    }
}

/// An order condition that fails (or, for an order found `at_least`, that is not decided).
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
    /// The first condition above `order` is not decided (its residual lies between the
    /// rounding and the tolerance, see `TOLERANCE`): the order is `order` or more.
    pub at_least: bool,
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

impl Coeffs<'_> {
    /// The rows of the tableaus the products read: (q's, p's), or (ā's, none) for Nyström.
    fn rows(&self) -> (Rows, Rows) {
        match self {
            Coeffs::Prk { q, p } => (Rows::new(&q.a), Rows::new(&p.a)),
            Coeffs::Rkn { a, .. } => (Rows::new(a), Rows { rows: Vec::new() }),
        }
    }
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

/// `Condition::tree` of a composition's own condition Σ w^{p+1} = 0 (`composition_order`).
pub const COMPOSITION_TREE: &str = "composition";

/// The order of a composition Φ_{w_s h} ∘ … ∘ Φ_{w_1 h} (Σ w = 1) of a base method whose own
/// order is `base`, given `found`, the order its stacked tableau's conditions give.
///
/// The stacked tableau's weights are sums over every stage of products of the weights: a
/// composition with large weights of both signs makes their size |Φ|(t), and with it the
/// rounding allowance, so large that a real residual reads as rounding (63 weights up to ±6
/// over Gauss–Legendre 3 left Σ wᵢ⁷ = 2e-6 unseen and the order read 8). The composition's
/// own condition is sharper: when the base has order exactly p (its condition of order p + 1
/// fails for certain), the composition's error at h^{p+1} is Σ wᵢ^{p+1} times the base's, so
/// the composition has order p unless Σ wᵢ^{p+1} = 0 (GNI II.4, Theorem 4.1). That sum is
/// decided against its own terms' size, Σ |wᵢ|^{p+1}, by the rule of every other condition
/// (`decide`); the lower of the two orders stands, on a tie the tableau's unless only the
/// composition's is decided.
pub fn composition_order(found: Order, weights: &[f64], base: &Order) -> Order {
    let p = base.order;
    if base.at_least || base.first_failure.is_none() || p >= MAX_ORDER {
        return found;
    }
    let power = (p + 1) as i32;
    let residual: f64 = weights.iter().map(|w| w.powi(power)).sum();
    let scale: f64 = weights.iter().map(|w| w.abs().powi(power)).sum();
    let zero = decide(residual, scale);
    let undecided = zero == Zero::Undecided;
    if zero == Zero::Holds
        || found.order < p
        || (found.order == p && (!found.at_least || undecided))
    {
        return found;
    }
    Order {
        order: p,
        at_least: undecided,
        first_failure: Some(Condition {
            order: p + 1,
            tree: COMPOSITION_TREE.into(),
            condition: format!(
                "Σ w_k{} = 0 over the composition's {} weights (its base has order {p})",
                superscript(p + 1),
                weights.len()
            ),
            residual,
        }),
    }
}

/// `n` in superscript digits (w⁷).
fn superscript(n: u32) -> String {
    const DIGITS: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    n.to_string()
        .chars()
        .map(|c| DIGITS[c.to_digit(10).unwrap_or(0) as usize])
        .collect()
}

/// Per-tree stage vectors, stored flat (slot × stage) for the trees that later trees read
/// (as a prefix or a child: those below `MAX_ORDER`); a tree of the last order is held only
/// while its own condition is checked.
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
    fn get(&self, slot: usize) -> (&[f64], &[f64]) {
        let r = slot * self.s..(slot + 1) * self.s;
        (&self.v[r.clone()], &self.abs[r])
    }
    fn put(&mut self, slot: usize, (v, abs): (Vec<f64>, Vec<f64>)) {
        let r = slot * self.s;
        self.v[r..r + self.s].copy_from_slice(&v);
        self.abs[r..r + self.s].copy_from_slice(&abs);
    }
}

/// Above this many stages a tableau's products are taken row by row as differences from
/// the row before (`Rows`); below it, directly (the residuals reports print are those sums).
const DIRECT_UP_TO: usize = 64;

/// A tableau's rows for the products ã·x and |ã|·|x|: each row either whole (its nonzero
/// entries) or as its difference from the row before, whichever has fewer nonzero entries.
/// A composition's stacked rows repeat the row before but for the entries of one base step
/// (`normal::compose`), and a splitting's grow by one entry a row, so a product costs a few
/// multiplications a row instead of s: the analysis of a composition of s stages in all
/// takes O(s) per tree rather than O(s²).
struct Rows {
    rows: Vec<Row>,
}

struct Row {
    /// Added to the row before's product (a difference) or taken alone (a whole row).
    from_previous: bool,
    entries: Vec<(usize, f64)>,
    abs_entries: Vec<(usize, f64)>,
}

impl Rows {
    fn new(a: &[Vec<f64>]) -> Rows {
        let nonzero = |v: &mut dyn Iterator<Item = f64>| -> Vec<(usize, f64)> {
            v.enumerate().filter(|(_, x)| *x != 0.0).collect()
        };
        let direct = a.len() <= DIRECT_UP_TO;
        let rows = a
            .iter()
            .enumerate()
            .map(|(i, row)| {
                let whole = nonzero(&mut row.iter().copied());
                let prev = if i == 0 || direct {
                    None
                } else {
                    Some(&a[i - 1])
                };
                let diff = prev.map(|p| nonzero(&mut row.iter().zip(p).map(|(x, y)| x - y)));
                match diff {
                    Some(d) if d.len() < whole.len() => Row {
                        from_previous: true,
                        abs_entries: nonzero(
                            &mut row.iter().zip(&a[i - 1]).map(|(x, y)| x.abs() - y.abs()),
                        ),
                        entries: d,
                    },
                    _ => Row {
                        from_previous: false,
                        abs_entries: whole.iter().map(|&(j, x)| (j, x.abs())).collect(),
                        entries: whole,
                    },
                }
            })
            .collect();
        Rows { rows }
    }

    /// ã·x and |ã|·|x| (x given with its absolute counterpart).
    fn product(&self, x: (&[f64], &[f64])) -> (Vec<f64>, Vec<f64>) {
        let (mut v, mut va) = (Vec::with_capacity(x.0.len()), Vec::with_capacity(x.0.len()));
        let (mut last, mut last_abs) = (0.0, 0.0);
        for r in &self.rows {
            let dot =
                |e: &[(usize, f64)], y: &[f64]| -> f64 { e.iter().map(|&(j, c)| c * y[j]).sum() };
            let (d, da) = (dot(&r.entries, x.0), dot(&r.abs_entries, x.1));
            (last, last_abs) = if r.from_previous {
                (last + d, last_abs + da)
            } else {
                (d, da)
            };
            v.push(last);
            va.push(last_abs);
        }
        (v, va)
    }
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
    // Trees below the last order come first (ordered by order) and keep their slot, their id;
    // every tree of the last order shares the slot after them.
    let kept = forest.trees.partition_point(|t| t.order < MAX_ORDER);
    let slot = |id: u32| (id as usize).min(kept);
    // phi: Φ(t) per stage; child: the contribution of t as a child (Ã Φ(t), or for a Nyström
    // meagre vertex c or ā Φ(its fat child)).
    let mut phi = Store::new(kept + 1, s);
    let mut child = Store::new(kept + 1, s);
    let rows = co.rows();
    for (id, t) in forest.trees.iter().enumerate() {
        let id = id as u32;
        let nystrom_meagre = matches!(co, Coeffs::Rkn { .. }) && t.colour == Colour::Black;
        if !nystrom_meagre {
            let value = match (t.prefix, t.last()) {
                (Some(pre), Some(last)) => {
                    let (p, pa) = phi.get(slot(pre));
                    let (g, ga) = child.get(slot(last));
                    (
                        p.iter().zip(g).map(|(x, y)| x * y).collect(),
                        pa.iter().zip(ga).map(|(x, y)| x * y).collect(),
                    )
                }
                _ => (vec![1.0; s], vec![1.0; s]),
            };
            phi.put(slot(id), value);
        }
        let weight = match co {
            Coeffs::Prk { q, p } => {
                let (tab, tab_rows) = if t.colour == Colour::Black {
                    (q, &rows.0)
                } else {
                    (p, &rows.1)
                };
                if t.order < MAX_ORDER {
                    let g = tab_rows.product(phi.get(slot(id)));
                    child.put(slot(id), g);
                }
                let (v, a) = phi.get(slot(id));
                (dot(&tab.b, v), dot_abs(&tab.b, a))
            }
            Coeffs::Rkn { b_bar, b, c, .. } => match (t.colour, t.last()) {
                (Colour::White, _) => {
                    let (v, va) = phi.get(slot(id));
                    (dot(b, v), dot_abs(b, va))
                }
                (Colour::Black, None) => {
                    let abs: Vec<f64> = c.iter().map(|x| x.abs()).collect();
                    child.put(slot(id), (c.to_vec(), abs));
                    (1.0, 1.0) // q1 = q0 + h q0' + …: holds by construction
                }
                (Colour::Black, Some(fat)) => {
                    let g = rows.0.product(phi.get(slot(fat)));
                    child.put(slot(id), g);
                    let (v, va) = phi.get(slot(fat));
                    (dot(b_bar, v), dot_abs(b_bar, va))
                }
            },
        };
        if let Some(failed) = verdict(forest, id, kind, co, weight) {
            return failed;
        }
    }
    Order {
        order: MAX_ORDER,
        at_least: false,
        first_failure: None,
    }
}

/// The order below tree `id` when its condition, with weights Φ(t) and |Φ|(t) = `weight`,
/// does not hold for certain (`ROUNDING`); undecided within `TOLERANCE`.
fn verdict(forest: &Forest, id: u32, kind: Kind, co: &Coeffs, weight: (f64, f64)) -> Option<Order> {
    let t = &forest.trees[id as usize];
    let exact = 1.0 / t.gamma;
    let residual = weight.0 - exact;
    let zero = decide(residual, weight.1 + exact);
    (zero != Zero::Holds).then(|| Order {
        order: t.order - 1,
        at_least: zero == Zero::Undecided,
        first_failure: Some(Condition {
            order: t.order,
            tree: forest.bracket(id),
            condition: formula(forest, id, matches!(co, Coeffs::Rkn { .. }), kind),
            residual,
        }),
    })
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
