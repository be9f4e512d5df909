//! The modified Hamiltonian of a splitting or composition method (backward error analysis,
//! Hairer, Lubich and Wanner, Geometric Numerical Integration, IX): the numerical map of a
//! symplectic splitting is, up to exponentially small terms, the exact time-h flow of
//! H̃ = H + h^p H_{p+1} + h^{p+1} H_{p+2} + …, which the numerical solution conserves far
//! better than H.
//!
//! How it is computed, for separable H = T(p) + V(q): one step is a product of exact flows,
//! drifts exp(c h A) (A: the flow of T) and kicks exp(d h B) (B: the flow of V). Acting on
//! functions (F ↦ F ∘ φ), the flows compose in the order they act: F ∘ φ_m ∘ … ∘ φ₁ =
//! exp(D₁) ⋯ exp(D_m) F, with D F = {F, H} for the flow of H. `lie` takes the logarithm of
//! that product in the free algebra on {A, B} and writes its degree-n part as right-normed
//! brackets [w₁, [w₂, …, w_n]]; as [D_F, D_G] = D_{G,F} (the Poisson bracket the other way
//! round), such a bracket is the Lie operator of (−1)^{n−1} {H_{w₁}, {H_{w₂}, …, H_{w_n}}}, and
//! H_{n} = Σ_w coefficient · (−1)^{n−1} {…}. The Poisson brackets are built symbolically on the
//! expression DAG from ∂H/∂q and ∂H/∂p alone (∂T/∂p = ∂H/∂p, ∂V/∂q = ∂H/∂q), shared between
//! the words by their common tails, and evaluated through `expr::program` in f64.
//!
//! Degrees whose terms vanish (those below the order, and the even ones of a symmetric
//! method) are skipped: the K correction terms are the first K that do not.
//!
//! Every other symplectic Runge–Kutta or partitioned Runge–Kutta method (implicit midpoint,
//! Gauss, Lobatto IIIA–IIIB, and Verlet and its compositions on non-separable H) takes the
//! route by trees, on any H (`bseries`).

mod bseries;
mod lie;

use std::collections::{BTreeMap, HashMap};

use bseries::{Coefficients, Elementary};
pub use lie::MAX_DEGREE;
use lie::{degree_zero, log_brackets, Coefficient, Letter, Word};

use crate::error::Result;
use crate::expr::dag::{Dag, Id, Node, Var};
use crate::expr::diff::partial;
use crate::expr::modified::ModifiedEnergy;
use crate::expr::program::Program;
use crate::expr::{normal, parse, print, separable};
use crate::input_err;
use crate::method::analysis::builtin::{self, family_of};
use crate::method::analysis::trees::MAX_ORDER;
use crate::method::analysis::{decide, normalise, order_of, Normal, Order, Zero, COMPOSITION_TREE};
use crate::method::family::Family;
use crate::method::tableau::Substep;
use crate::method::{position_verlet, symplectic_euler_a, symplectic_euler_b, verlet, Method};
use crate::system::System;

/// The most correction terms asked for (the series stops at brackets of `MAX_DEGREE`
/// letters, which bounds them further per method).
pub const MAX_TERMS: u32 = 7;

/// Compositions nest at most this deep (as the method files' do).
const MAX_NESTING: usize = 16;

/// The methods with a modified Hamiltonian, as messages name them.
pub const COVERED: &str = "splittings (symplectic-euler-a and -b, verlet, position-verlet, blanes-moan4, method files of family \"splitting\") and compositions of them (yoshida4, suzuki4, yoshida6, method files of family \"composition\") on separable H; symplectic Runge–Kutta and partitioned Runge–Kutta methods (implicit-midpoint, gauss1, gauss2, gauss3, lobatto-iiia-iiib-2 and -3, verlet and its compositions, method files of family \"rk\" or \"prk\" that `phaseflow method check` finds symplectic) on any H; not Nyström methods (family \"rkn\") nor methods that are not symplectic (euler, rk3, rk4, …)";

/// The kicks and drifts of one step of `method`, in the order they act; an input error for a
/// method that is not a splitting or a composition of splittings.
pub fn substeps(method: Method) -> Result<Vec<Substep>> {
    substeps_at(method, 0)
}

fn substeps_at(method: Method, depth: usize) -> Result<Vec<Substep>> {
    use Substep::{Drift, Kick};
    let name = method.name();
    let none = || {
        input_err!(
            "--method {name}: no modified Hamiltonian for this method; covered are {COVERED}"
        )
    };
    // The built-in partitioned methods that are splittings on separable H (`builtin`):
    // symplectic Euler A kicks at q0 then drifts, B the other way round; velocity Verlet is
    // half kick, drift, half kick, position Verlet the dual.
    Ok(match name {
        n if n == symplectic_euler_a::INFO.name => vec![Kick(1.0), Drift(1.0)],
        n if n == symplectic_euler_b::INFO.name => vec![Drift(1.0), Kick(1.0)],
        n if n == verlet::INFO.name => vec![Kick(0.5), Drift(1.0), Kick(0.5)],
        n if n == position_verlet::INFO.name => vec![Drift(0.5), Kick(1.0), Drift(0.5)],
        _ => match family_of(method).ok_or_else(none)? {
            Family::Splitting(steps) => steps,
            Family::Composition(c) if depth < MAX_NESTING => {
                let base = substeps_at(Method::from_name(&c.base)?, depth + 1).map_err(|_| {
                    input_err!(
                        "--method {name}: a composition over {}, which has no modified Hamiltonian; covered are {COVERED}",
                        c.base
                    )
                })?;
                c.weights
                    .iter()
                    .flat_map(|&w| {
                        base.iter().map(move |s| match *s {
                            Kick(x) => Kick(w * x),
                            Drift(x) => Drift(w * x),
                        })
                    })
                    .collect()
            }
            _ => return Err(none()),
        },
    })
}

/// One correction term: h^power · H_{degree} (power = degree − 1).
#[derive(Debug, Clone, Copy)]
pub struct Correction {
    pub power: u32,
    node: Id,
    /// The term may vanish for the exact coefficients the given ones round: the order
    /// analysis leaves its order condition undecided (`Verdicts::order_at_least`), or its
    /// coefficients lie between rounding and `analysis::TOLERANCE` of their terms' size. It
    /// is kept (`show-modified-hamiltonian` says so).
    pub undecided: bool,
}

impl Correction {
    /// The term's name, `H7` for h⁶ H7.
    pub fn name(&self) -> String {
        format!("H{}", self.power + 1)
    }

    /// For an undecided term, why it is kept (`show-modified-hamiltonian` prints it, and a
    /// run's columns of H̃ say it on stderr).
    pub fn undecided_note(&self) -> Option<String> {
        self.undecided.then(|| format!(
            "{} is kept, though it may vanish: its coefficients, as the order conditions of order {} (`phaseflow method check`), miss zero by more than rounding but by less than {:e} of their terms' size, which coefficients given to fewer digits can leave",
            self.name(),
            self.power + 1,
            crate::method::analysis::TOLERANCE
        ))
    }
}

/// Whether the correction term of degree n (h^{n−1} H_n) is there. The order analysis's
/// verdict on the method (`order`) decides the degrees it covers, so that the two never
/// disagree: the terms up to its order vanish, the next one is there, undecided where the
/// verdict is (`Order::at_least`). Beyond that, `own`: the term's coefficients' verdict.
fn presence(n: u32, order: Option<&Order>, own: Zero) -> Zero {
    match order {
        Some(o) if n <= o.order => Zero::Holds,
        Some(o) if n == o.order + 1 && o.first_failure.is_some() => {
            if o.at_least {
                Zero::Undecided
            } else {
                Zero::Fails
            }
        }
        _ => own,
    }
}

/// The order analysis's verdict on `method`, where it has coefficients to analyse.
fn order_verdict(method: Method) -> Result<Option<Order>> {
    match family_of(method) {
        Some(f) => Ok(Some(order_of(
            &f,
            &builtin::family,
            &normalise(&f, &builtin::family)?,
            false,
        )?)),
        None => Ok(None),
    }
}

/// For a composition whose first correction term its weights decide
/// (`analysis::order::composition_order`: the first condition is the composition's own,
/// Σ w^{p+1} = 0, over a base of order p), Σ w^{p+1} and the base method.
fn composition_leading(method: Method) -> Result<Option<(f64, Method)>> {
    let Some(Family::Composition(c)) = family_of(method) else {
        return Ok(None);
    };
    let Some(order) = order_verdict(method)? else {
        return Ok(None);
    };
    match order.first_failure {
        Some(f) if f.tree == COMPOSITION_TREE => {
            Ok(Some((f.residual, Method::from_name(&c.base)?)))
        }
        _ => Ok(None),
    }
}

/// The step's flows as letters with their coefficients (drift: A, kick: B), refusing an
/// inconsistent method (drifts or kicks not summing to 1), whose H̃ would not start with H.
fn factors(method: Method, steps: &[Substep]) -> Result<Vec<(f64, Letter)>> {
    let factors: Vec<(f64, Letter)> = steps
        .iter()
        .map(|s| match *s {
            Substep::Drift(c) => (c, Letter::A),
            Substep::Kick(c) => (c, Letter::B),
        })
        .collect();
    let sum = |l: Letter| -> f64 { factors.iter().filter(|f| f.1 == l).map(|f| f.0).sum() };
    let (drifts, kicks) = (sum(Letter::A), sum(Letter::B));
    if (drifts - 1.0).abs() > 1e-10 || (kicks - 1.0).abs() > 1e-10 {
        return Err(input_err!(
            "--method {}: its drifts sum to {drifts} and its kicks to {kicks}; a modified Hamiltonian needs a consistent method (both sums 1)",
            method.name()
        ));
    }
    Ok(factors)
}

/// H and the first correction terms of its modified Hamiltonian for one method, as formulas.
#[derive(Debug, Clone)]
pub struct ModifiedHamiltonian {
    dof: usize,
    dag: Dag,
    h: Id,
    terms: Vec<Correction>,
}

impl ModifiedHamiltonian {
    /// The modified Hamiltonian of `method` for H = `formula` (`expr` syntax, with `params`
    /// and `dof` as `ExprHamiltonian::new` takes them), truncated after `k` correction terms.
    /// `flag` names the option that gave `k` in messages. Input errors: a splitting on
    /// non-separable H, a method with no route (`COVERED`), an inconsistent method, k beyond
    /// what the series (to `MAX_DEGREE` letters or `MAX_ORDER` vertices) holds for this method.
    pub fn new(
        formula: &str,
        params: &BTreeMap<String, f64>,
        dof: Option<usize>,
        method: Method,
        k: u32,
        flag: &str,
    ) -> Result<Self> {
        if k > MAX_TERMS {
            return Err(input_err!(
                "{flag} {k}: at most {MAX_TERMS} correction terms (0 is H itself); give 0 to {MAX_TERMS}"
            ));
        }
        let parse::Parsed {
            mut dag, root, dof, ..
        } = parse::parse(formula, params, dof)?;
        let grad_q: Vec<Id> = (0..dof)
            .map(|i| partial(&mut dag, root, Var::Q(i)))
            .collect();
        let grad_p: Vec<Id> = (0..dof)
            .map(|i| partial(&mut dag, root, Var::P(i)))
            .collect();
        let separable = separable(&mut dag, &grad_q);
        let of = |dag: &mut Dag, method: Method, k: u32| -> Result<Vec<Correction>> {
            // Splittings and their compositions on separable H take the brackets (exact to
            // the coefficients' rounding, short formulas); every symplectic Runge–Kutta or
            // partitioned method, on any H, the trees.
            match substeps(method) {
                Ok(steps) if separable => Brackets {
                    dag,
                    grad_q: &grad_q,
                    grad_p: &grad_p,
                    memo: HashMap::new(),
                }
                .terms(method, &steps, k, flag),
                _ => by_trees(dag, root, dof, method, k, flag),
            }
        };
        let mut terms = of(&mut dag, method, k)?;
        // A composition whose order its weights decide (Σ w^{p+1} ≠ 0 over a base of order
        // p: `analysis::order::composition_order`) has the first term Σ w^{p+1} · H_{p+1} of
        // its base (its local error at h^{p+1} is Σ w^{p+1} times the base's, GNI II.4 and
        // IX.4). The stacked method's own coefficients of that term are sums over hundreds of
        // stages that rounding can swamp (63 weights over gauss3 gave every coefficient of
        // H7 at rounding level, and printed H7 = 0.0 for a term that is there).
        if let (Some((scale, base)), Some(first)) =
            (composition_leading(method)?, terms.first_mut())
        {
            let base_first = of(&mut dag, base, 1)?;
            if let Some(b) = base_first.first().filter(|b| b.power == first.power) {
                let c = dag.constant(scale);
                first.node = dag.mul(c, b.node);
            }
        }
        Ok(ModifiedHamiltonian {
            dof,
            dag,
            h: root,
            terms,
        })
    }

    /// The modified Hamiltonian of `method` for `system` (its `System::formula`), truncated
    /// after `k` correction terms.
    pub fn of_system(system: &System, method: Method, k: u32, flag: &str) -> Result<Self> {
        let Some((formula, params, dof)) = system.formula() else {
            return Err(input_err!(
                "system '{}' has no formula of its H to build a modified Hamiltonian from; write H with --hamiltonian",
                system.name()
            ));
        };
        Self::new(&formula, &params, dof, method, k, flag)
    }

    /// The correction terms, lowest power of h first.
    pub fn terms(&self) -> &[Correction] {
        &self.terms
    }

    /// H as a formula.
    pub fn h_text(&self) -> String {
        print::text(&self.dag, self.h, self.dof)
    }

    /// Correction term `i`'s H_{power+1} (without its h^power) as a formula.
    pub fn term_text(&self, i: usize) -> String {
        print::text(&self.dag, self.terms[i].node, self.dof)
    }

    /// Whether writing every term out as one formula stays short (at most `nodes` nodes each).
    pub fn printable(&self, nodes: u64) -> bool {
        self.terms
            .iter()
            .all(|t| print::tree_size(&self.dag, t.node) <= nodes)
    }

    /// The terms' formulas with the subexpressions they share named (`print::shared`): each
    /// term's text, then each name with its definition.
    pub fn shared_texts(&self) -> (Vec<String>, Vec<(String, String)>) {
        let roots: Vec<Id> = self.terms.iter().map(|t| t.node).collect();
        print::shared(&self.dag, &roots, self.dof)
    }

    /// H̃ at step size `h` (H + Σ h^power H_{power+1}), compiled for evaluation. The terms
    /// are put in normal form first (`normal`): nested brackets reach the same derivative by
    /// many routes, which the program then computes once.
    pub fn at_step(&self, h: f64) -> ModifiedEnergy {
        let mut dag = self.dag.clone();
        let root = self.terms.iter().fold(self.h, |acc, t| {
            let c = dag.constant(h.powi(t.power as i32));
            let term = dag.mul(c, t.node);
            dag.add(acc, term)
        });
        let (mut dag, roots) = normal::normalise(&dag, &[root]);
        ModifiedEnergy::new(
            self.dof,
            self.terms.len() as u32,
            Program::compile_for_host(&mut dag, &roots),
        )
    }
}

/// Σ coefficient · node over `terms` (node, coefficient, the size of the terms the coefficient
/// sums), the terms whose nodes are one node or its negation summed first, so that the
/// printed terms are short and cancellations exact. A sum zero to rounding (`decide`) is left
/// out, unless `zero` (the degree's verdict) is not `Fails`: then only a sum of exactly 0,
/// as rounding must not drop what may be a term.
fn combine(dag: &mut Dag, terms: &[(Id, f64, f64)], zero: Zero) -> Id {
    let mut sums: BTreeMap<Id, (f64, f64)> = BTreeMap::new();
    for &(b, c, size) in terms {
        let (b, c) = match dag.node(b) {
            Node::Neg(a) => (a, -c),
            _ => (b, c),
        };
        let sum = sums.entry(b).or_insert((0.0, 0.0));
        *sum = (sum.0 + c, sum.1 + size);
    }
    let mut node = dag.constant(0.0);
    for (b, (c, size)) in sums {
        let there = if zero == Zero::Fails {
            decide(c, size) != Zero::Holds
        } else {
            c != 0.0
        };
        if there && !dag.is(b, 0.0) {
            let size = dag.constant(c.abs());
            let t = dag.mul(size, b);
            node = if c > 0.0 {
                dag.add(node, t)
            } else {
                dag.sub(node, t)
            };
        }
    }
    node
}

/// The first `k` correction terms of a symplectic Runge–Kutta or partitioned Runge–Kutta
/// method by trees (`bseries`), on any H; input errors for other methods, naming the fix.
fn by_trees(
    dag: &mut Dag,
    root: Id,
    dof: usize,
    method: Method,
    k: u32,
    flag: &str,
) -> Result<Vec<Correction>> {
    let name = method.name();
    let none = || {
        input_err!(
            "--method {name}: no modified Hamiltonian for this method; covered are {COVERED}"
        )
    };
    let family = family_of(method).ok_or_else(none)?;
    let (q, p) = match normalise(&family, &builtin::family)? {
        Normal::Rk(t) => (t.clone(), t),
        Normal::Prk { q, p } => (q, p),
        Normal::Splitting { .. } => return Err(input_err!(
            "H is not separable (H ≠ T(p) + V(q)): --method {name} is a splitting, whose modified Hamiltonian is computed for separable H only; use a separable system, or a symplectic Runge–Kutta method (implicit-midpoint, gauss4, verlet, …) for this H"
        )),
        Normal::Rkn { .. } => return Err(none()),
    };
    if !method.info().symplectic {
        return Err(input_err!(
            "--method {name}: not symplectic, so its steps conserve no modified Hamiltonian; covered are {COVERED}"
        ));
    }
    let c = Coefficients::new(&q, &p);
    // the single black and white vertices: Σb and Σb̂
    if (c.b[0] - 1.0).abs() > 1e-10 || (c.b[1] - 1.0).abs() > 1e-10 {
        return Err(input_err!(
            "--method {name}: its weights sum to {} and {}; a modified Hamiltonian needs a consistent method (both sums 1)",
            c.b[0],
            c.b[1]
        ));
    }
    let order = order_verdict(method)?;
    let found: Vec<(u32, Zero)> = (2..=MAX_ORDER)
        .map(|n| (n, presence(n, order.as_ref(), c.degree(n))))
        .filter(|&(_, z)| z != Zero::Holds)
        .collect();
    if k as usize > found.len() {
        return Err(input_err!(
            "{flag} {k}: method {name} has {} correction terms within trees of {MAX_ORDER} vertices, where the series is computed; give 0 to {}",
            found.len(),
            found.len()
        ));
    }
    let mut e = Elementary::new(dag, root, dof, c.forest);
    Ok(found[..k as usize]
        .iter()
        .map(|&(n, zero)| {
            let terms = bseries::term(&c, &mut e, n, zero != Zero::Fails);
            Correction {
                power: n - 1,
                node: combine(e.dag, &terms, zero),
                undecided: zero == Zero::Undecided,
            }
        })
        .collect())
}

/// The word with the same bracket up to sign whose last two letters are B then A, and that sign:
/// a bracket is linear in its innermost one, and {T, V} = −{V, T}, so a word ending in A B is
/// the word ending in B A negated. Building one of the two halves the bracket nodes of every
/// degree, and lets `combine` sum the pair's coefficients on one node, where the two
/// (the same terms with opposite signs, spelled differently) would each be evaluated.
fn innermost_ba(w: Word) -> (Word, f64) {
    // the last letter is the lowest bit (B = 1): A B is 0b01, B A is 0b10
    if w.bits & 0b11 == 0b01 {
        let ba = Word {
            len: w.len,
            bits: w.bits ^ 0b11,
        };
        (ba, -1.0)
    } else {
        (w, 1.0)
    }
}

/// The nested Poisson brackets {H_{w₁}, {H_{w₂}, …, H_{w_n}}} of T (letter A) and V (letter B),
/// memoised by word (the words of one degree share their tails).
struct Brackets<'a> {
    dag: &'a mut Dag,
    grad_q: &'a [Id],
    grad_p: &'a [Id],
    memo: HashMap<Word, Id>,
}

impl Brackets<'_> {
    /// The first `k` correction terms of the splitting or composition whose kicks and drifts
    /// are `steps`.
    fn terms(
        &mut self,
        method: Method,
        steps: &[Substep],
        k: u32,
        flag: &str,
    ) -> Result<Vec<Correction>> {
        let factors = factors(method, steps)?;
        let degrees = log_brackets(&factors);
        let order = order_verdict(method)?;
        let found: Vec<(usize, Zero)> = (2..=MAX_DEGREE)
            .map(|n| {
                let own = degree_zero(&degrees[n - 1]);
                (n, presence(n as u32, order.as_ref(), own))
            })
            .filter(|&(_, z)| z != Zero::Holds)
            .collect();
        if k as usize > found.len() {
            return Err(input_err!(
                "{flag} {k}: method {} has {} correction terms within brackets of degree {MAX_DEGREE}, where the series is computed; give 0 to {}",
                method.name(),
                found.len(),
                found.len()
            ));
        }
        Ok(found[..k as usize]
            .iter()
            .map(|&(n, zero)| Correction {
                power: n as u32 - 1,
                node: self.term(n, &degrees[n - 1], zero),
                undecided: zero == Zero::Undecided,
            })
            .collect())
    }

    /// The degree-n term Σ_w coefficient · (−1)^{n−1} {H_{w₁}, {…, H_{w_n}}}. Words whose
    /// brackets are one node (or its negation) are summed first, so that the printed terms
    /// are short and cancellations exact; those zero to rounding are left out unless the
    /// degree's verdict `zero` is not `Fails` (`combine`).
    fn term(&mut self, n: usize, words: &[Coefficient], zero: Zero) -> Id {
        let sign = if n % 2 == 1 { 1.0 } else { -1.0 };
        let terms: Vec<(Id, f64, f64)> = words
            .iter()
            .filter(|c| c.value != 0.0 && (zero != Zero::Fails || c.zero() != Zero::Holds))
            .map(|c| {
                let (w, s) = innermost_ba(c.word);
                (self.of(w), s * sign * c.value, c.size)
            })
            .collect();
        combine(self.dag, &terms, zero)
    }

    /// {F, G} = Σ_k ∂F/∂q_k ∂G/∂p_k − ∂F/∂p_k ∂G/∂q_k for F = T: −Σ_k ∂H/∂p_k ∂G/∂q_k, and for
    /// F = V: Σ_k ∂H/∂q_k ∂G/∂p_k, where G's gradients are `gq`, `gp`.
    fn with(&mut self, f: Letter, gq: &[Id], gp: &[Id]) -> Id {
        let zero = self.dag.constant(0.0);
        (0..self.grad_q.len()).fold(zero, |acc, k| match f {
            Letter::A => {
                let t = self.dag.mul(self.grad_p[k], gq[k]);
                self.dag.sub(acc, t)
            }
            Letter::B => {
                let t = self.dag.mul(self.grad_q[k], gp[k]);
                self.dag.add(acc, t)
            }
        })
    }

    /// The bracket of word `w` (at least two letters, the last two B then A: `innermost_ba`).
    fn of(&mut self, w: Word) -> Id {
        if let Some(&id) = self.memo.get(&w) {
            return id;
        }
        let d = self.grad_q.len();
        let id = if w.len == 2 {
            // G = T: ∂T/∂q = 0, ∂T/∂p = ∂H/∂p; G = V: ∂V/∂q = ∂H/∂q, ∂V/∂p = 0.
            let zero = vec![self.dag.constant(0.0); d];
            let (gq, gp) = match w.letter(1) {
                Letter::A => (zero, self.grad_p.to_vec()),
                Letter::B => (self.grad_q.to_vec(), zero),
            };
            self.with(w.letter(0), &gq, &gp)
        } else {
            let g = self.of(w.tail());
            let gq: Vec<Id> = (0..d).map(|k| partial(self.dag, g, Var::Q(k))).collect();
            let gp: Vec<Id> = (0..d).map(|k| partial(self.dag, g, Var::P(k))).collect();
            self.with(w.letter(0), &gq, &gp)
        };
        self.memo.insert(w, id);
        id
    }
}

#[cfg(test)]
mod tests;
