//! The algebraic verdicts: explicitness, symplecticity (the conditions of Sanz-Serna, Lasagni
//! and Suris; GNI VI.4 Theorems 4.3, 4.6, 4.11 and 4.13) and symmetry (the adjoint method
//! equals the method; GNI V.1–V.2).

use super::normal::Normal;
use super::order::TOLERANCE;
use crate::method::tableau::{Substep, Tableau};

/// Every stage computable from earlier ones, for every H the form serves.
pub fn explicit(n: &Normal) -> bool {
    match n {
        Normal::Rk(t) => t.explicit(),
        Normal::Prk { q, p } => q.explicit() && p.explicit(),
        Normal::Splitting { .. } => true,
        Normal::Rkn { a, .. } => strictly_lower(a),
    }
}

/// Explicit on separable H, where stage i's position Q_i needs only the momenta P_j with
/// a_ij ≠ 0 and its momentum P_i only the positions Q_j with â_ij ≠ 0: explicit when that
/// dependency graph has no cycle (symplectic Euler, Störmer–Verlet: implicit for other H).
pub fn explicit_if_separable(n: &Normal) -> bool {
    let (q, p) = match n {
        Normal::Rk(t) => (t, t),
        Normal::Prk { q, p } => (q, p),
        _ => return explicit(n),
    };
    let s = q.stages();
    // node i < s: Q_i, node s + i: P_i
    let needs = |node: usize| -> Vec<usize> {
        if node < s {
            (0..s)
                .filter(|&j| q.a[node][j] != 0.0)
                .map(|j| s + j)
                .collect()
        } else {
            (0..s).filter(|&j| p.a[node - s][j] != 0.0).collect()
        }
    };
    // depth-first search for a cycle: 0 unvisited, 1 on the path, 2 done
    fn cyclic(node: usize, state: &mut [u8], needs: &dyn Fn(usize) -> Vec<usize>) -> bool {
        state[node] = 1;
        for next in needs(node) {
            if state[next] == 1 || (state[next] == 0 && cyclic(next, state, needs)) {
                return true;
            }
        }
        state[node] = 2;
        false
    }
    let mut state = vec![0u8; 2 * s];
    !(0..2 * s).any(|v| state[v] == 0 && cyclic(v, &mut state, &needs))
}

fn strictly_lower(a: &[Vec<f64>]) -> bool {
    a.iter()
        .enumerate()
        .all(|(i, row)| row.iter().skip(i).all(|&x| x == 0.0))
}

/// The largest residual of the symplecticity conditions, and whether it is within
/// `TOLERANCE` of the size of the terms it is made of.
pub fn symplectic(n: &Normal) -> (bool, f64) {
    let mut worst = Worst::default();
    match n {
        Normal::Rk(t) => prk_conditions(t, t, true, &mut worst),
        Normal::Prk { q, p } => prk_conditions(q, p, true, &mut worst),
        // kicks and drifts serve separable H only, where b = b̂ is not needed
        Normal::Splitting { q, p, .. } => prk_conditions(q, p, false, &mut worst),
        Normal::Rkn { a, b_bar, b, c } => {
            let s = b.len();
            for i in 0..s {
                worst.add(b_bar[i], b[i] * (1.0 - c[i]));
                for j in 0..s {
                    worst.add(b[i] * (b_bar[j] - a[i][j]), b[j] * (b_bar[i] - a[j][i]));
                }
            }
        }
    }
    (worst.residual <= TOLERANCE * worst.scale, worst.residual)
}

/// b_i â_ij + b̂_j a_ji − b_i b̂_j = 0 for all i, j (a, b the q tableau's, â, b̂ the p
/// tableau's; for Runge–Kutta both the same), and b_i = b̂_i where H may be non-separable.
fn prk_conditions(q: &Tableau, p: &Tableau, equal_weights: bool, worst: &mut Worst) {
    let s = q.stages();
    for i in 0..s {
        for j in 0..s {
            worst.add(q.b[i] * p.a[i][j] + p.b[j] * q.a[j][i], q.b[i] * p.b[j]);
        }
        if equal_weights {
            worst.add(q.b[i], p.b[i]);
        }
    }
}

/// The largest |x − y| over the conditions x = y, and the largest |x|, |y| seen.
#[derive(Default)]
struct Worst {
    residual: f64,
    scale: f64,
}

impl Worst {
    fn add(&mut self, x: f64, y: f64) {
        self.residual = self.residual.max((x - y).abs());
        self.scale = self.scale.max(x.abs()).max(y.abs()).max(f64::MIN_POSITIVE);
    }
}

/// Whether the method equals its adjoint, as a map: for (partitioned) Runge–Kutta methods,
/// when some permutation σ of the stages gives a_{σ(i)σ(j)} + a_ij = b_j and b_{σ(i)} = b_i for
/// each tableau (the adjoint's tableau, GNI V.2 Theorem 2.3, is the method's with its stages
/// listed in another order, which is the same map); for a splitting, its kicks and drifts
/// (adjacent ones of a kind merged) read the same backwards; for a Nyström method the
/// adjoint's coefficients (c*_i = 1 − c_i, b* = b, b̄* = b − b̄, ā*_ij = ā_ij + (1 − c_i) b_j −
/// b̄_j) equal the method's under some σ. The mirror order σ(i) = s + 1 − i (palindromic
/// compositions, tableaus listed by increasing c) is tried first; `stage_permutation` searches
/// the others.
pub fn symmetric(n: &Normal) -> bool {
    match n {
        Normal::Rk(t) => stage_permutation(t.stages(), &|i, j, k, l| adjoint_entry(t, i, j, k, l)),
        Normal::Prk { q, p } => stage_permutation(q.stages(), &|i, j, k, l| {
            adjoint_entry(q, i, j, k, l) && adjoint_entry(p, i, j, k, l)
        }),
        Normal::Splitting { steps, .. } => {
            let merged = merge(steps);
            merged
                .iter()
                .zip(merged.iter().rev())
                .all(|(x, y)| match (x, y) {
                    (Substep::Kick(a), Substep::Kick(b))
                    | (Substep::Drift(a), Substep::Drift(b)) => close(*a, *b),
                    _ => false,
                })
        }
        Normal::Rkn { a, b_bar, b, c } => stage_permutation(b.len(), &|i, j, k, l| {
            (i != k
                || (close(c[j], 1.0 - c[i])
                    && close(b[j], b[i])
                    && close(b_bar[j], b[i] - b_bar[i])))
                && close(a[j][l], a[i][k] + (1.0 - c[i]) * b[k] - b_bar[k])
        }),
    }
}

/// The adjoint's condition on entry (i, k) of `t` with σ(i) = j, σ(k) = l: a_jl + a_ik = b_k,
/// and on the diagonal (i = k) b_j = b_i.
fn adjoint_entry(t: &Tableau, i: usize, j: usize, k: usize, l: usize) -> bool {
    (i != k || close(t.b[j], t.b[i])) && close(t.a[j][l] + t.a[i][k], t.b[k])
}

/// Nodes the search for σ may visit beyond one per stage: far above what tableaus with
/// distinct nodes c need (one candidate per stage), a bound on tableaus with many equal ones.
const SEARCH_BUDGET: usize = 100_000;

/// Whether some permutation σ of the `s` stages satisfies `entry(i, σ(i), k, σ(k))` for every
/// pair of stages (i, k): the mirror order first, then a depth-first search that assigns σ
/// stage by stage, a candidate kept only while its entries with every stage assigned before
/// hold. A search that exceeds `SEARCH_BUDGET` nodes answers no (not shown symmetric).
fn stage_permutation(s: usize, entry: &dyn Fn(usize, usize, usize, usize) -> bool) -> bool {
    let fits = |sigma: &[usize], i: usize, j: usize| {
        entry(i, j, i, j)
            && sigma
                .iter()
                .enumerate()
                .all(|(k, &l)| entry(i, j, k, l) && entry(k, l, i, j))
    };
    let mirror: Vec<usize> = (0..s).rev().collect();
    if (0..s).all(|i| fits(&mirror[..i], i, mirror[i])) {
        return true;
    }
    let mut sigma: Vec<usize> = Vec::with_capacity(s);
    let mut used = vec![false; s];
    let mut next = vec![0usize; s]; // the next candidate to try for each stage
    let mut budget = SEARCH_BUDGET + s;
    while sigma.len() < s {
        let i = sigma.len();
        let found = (next[i]..s).find(|&j| !used[j] && fits(&sigma, i, j));
        budget = budget.saturating_sub(1);
        match found {
            Some(j) if budget > 0 => {
                next[i] = j + 1;
                used[j] = true;
                sigma.push(j);
                if i + 1 < s {
                    next[i + 1] = 0;
                }
            }
            _ => {
                // no candidate left for stage i: try the next one for stage i − 1
                let Some(j) = sigma.pop().filter(|_| budget > 0) else {
                    return false;
                };
                used[j] = false;
            }
        }
    }
    true
}

/// Zero substeps dropped and adjacent ones of a kind merged (their flows add), until no
/// two neighbours are of a kind (a pair that cancels lets its neighbours meet).
fn merge(steps: &[Substep]) -> Vec<Substep> {
    let mut out: Vec<Substep> = Vec::new();
    for &s in steps {
        let (kick, c) = match s {
            Substep::Kick(c) => (true, c),
            Substep::Drift(c) => (false, c),
        };
        if close(c, 0.0) {
            continue;
        }
        match out.last_mut() {
            Some(Substep::Kick(a)) if kick => *a += c,
            Some(Substep::Drift(a)) if !kick => *a += c,
            _ => {
                out.push(s);
                continue;
            }
        }
        if let Some(Substep::Kick(a) | Substep::Drift(a)) = out.last() {
            if close(*a, 0.0) {
                out.pop();
            }
        }
    }
    out
}

fn close(x: f64, y: f64) -> bool {
    (x - y).abs() <= TOLERANCE * x.abs().max(y.abs()).max(1.0)
}
