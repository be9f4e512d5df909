//! Every family reduced to one of four normal forms the conditions read: a Runge–Kutta
//! tableau, a partitioned pair, a splitting with its equivalent partitioned pair, or a
//! Nyström tableau. A composition becomes its base's form with the stages stacked (the
//! composition of Runge–Kutta steps is a Runge–Kutta method, GNI III.1), a splitting the
//! explicit partitioned method with one stage per kick or drift (GNI III.2).

use crate::error::Result;
use crate::input_err;
use crate::method::family::Bases;
use crate::method::tableau::{Family, Substep, Tableau};

/// A method as the conditions read it (conventions of `method::tableau`).
#[derive(Debug, Clone, PartialEq)]
pub enum Normal {
    /// A Runge–Kutta method, for any H.
    Rk(Tableau),
    /// A partitioned Runge–Kutta method, for any H: `q` the q equation's tableau, `p` the
    /// p equation's.
    Prk { q: Tableau, p: Tableau },
    /// Kicks and drifts, for separable H, with the partitioned method they equal there.
    Splitting {
        steps: Vec<Substep>,
        q: Tableau,
        p: Tableau,
    },
    /// A Nyström method for H = ½pᵀM⁻¹p + V(q).
    Rkn {
        a: Vec<Vec<f64>>,
        b_bar: Vec<f64>,
        b: Vec<f64>,
        c: Vec<f64>,
    },
}

impl Normal {
    /// The number of stages (a splitting's: its kicks and drifts).
    pub fn stages(&self) -> usize {
        match self {
            Normal::Rk(t) | Normal::Prk { q: t, .. } => t.stages(),
            Normal::Splitting { steps, .. } => steps.len(),
            Normal::Rkn { b, .. } => b.len(),
        }
    }
}

/// The most stages a normal form may have, a composition's weights multiplied through its
/// base's stages (64 weights over Kahan–Li's 17 Verlet steps make 2 176): the analysis holds
/// a vector of stages for each of up to some 5 300 trees, so this bounds its memory (about
/// 170 MB) and time (a second or so).
pub const MAX_ANALYSED_STAGES: usize = 1024;

/// The normal form of `family`, a composition's base found through `bases` by name (each
/// family's `Kind::normal`).
pub fn normalise(family: &Family, bases: Bases) -> Result<Normal> {
    family.normal(bases, 0)
}

/// A splitting with its equivalent partitioned method: stage i is substep i; a drift's stage
/// evaluates ∂H/∂p at the momentum left by the kicks before it, a kick's ∂H/∂q at the
/// position left by the drifts before it (so a_ij = b_j and â_ij = b̂_j for j < i).
pub fn splitting(steps: Vec<Substep>) -> Normal {
    let s = steps.len();
    let weight = |kick: bool| -> Vec<f64> {
        steps
            .iter()
            .map(|st| match (*st, kick) {
                (Substep::Kick(c), true) | (Substep::Drift(c), false) => c,
                _ => 0.0,
            })
            .collect()
    };
    let lower = |b: Vec<f64>| {
        let a: Vec<Vec<f64>> = (0..s)
            .map(|i| (0..s).map(|j| if j < i { b[j] } else { 0.0 }).collect())
            .collect();
        let c = a.iter().map(|row| row.iter().sum()).collect();
        Tableau { a, b, c }
    };
    Normal::Splitting {
        q: lower(weight(false)),
        p: lower(weight(true)),
        steps,
    }
}

/// Φ_{w_m h} ∘ … ∘ Φ_{w_1 h} of the normal form `n`, in the same form.
pub fn compose(n: Normal, w: &[f64]) -> Normal {
    match n {
        Normal::Rk(t) => Normal::Rk(stack(&t, w)),
        Normal::Prk { q, p } => Normal::Prk {
            q: stack(&q, w),
            p: stack(&p, w),
        },
        Normal::Splitting { steps, .. } => splitting(
            w.iter()
                .flat_map(|&wk| {
                    steps.iter().map(move |s| match *s {
                        Substep::Kick(c) => Substep::Kick(wk * c),
                        Substep::Drift(c) => Substep::Drift(wk * c),
                    })
                })
                .collect(),
        ),
        Normal::Rkn { a, b_bar, b, c } => stack_rkn(&a, &b_bar, &b, &c, w),
    }
}

/// The stacked tableau of a composition: stage (k, i) is stage i of step k; it sees every
/// earlier step whole (w_l b_j) and its own step scaled (w_k a_ij).
fn stack(t: &Tableau, w: &[f64]) -> Tableau {
    let s = t.stages();
    let n = s * w.len();
    let mut a = vec![vec![0.0; n]; n];
    let mut b = vec![0.0; n];
    let mut c = vec![0.0; n];
    let mut start = 0.0; // W_{k-1}: the time at which step k begins
    for (k, &wk) in w.iter().enumerate() {
        for i in 0..s {
            let row = &mut a[k * s + i];
            for (l, &wl) in w.iter().enumerate().take(k) {
                for j in 0..s {
                    row[l * s + j] = wl * t.b[j];
                }
            }
            for j in 0..s {
                row[k * s + j] = wk * t.a[i][j];
            }
            c[k * s + i] = start + wk * t.c[i];
            b[k * s + i] = wk * t.b[i];
        }
        start += wk;
    }
    Tableau { a, b, c }
}

/// The stacked Nyström tableau: a later stage sees an earlier step's position jump
/// (w_l² b̄_j) and its velocity change (w_l b_j) carried over the time since that step ended.
fn stack_rkn(a: &[Vec<f64>], b_bar: &[f64], b: &[f64], c: &[f64], w: &[f64]) -> Normal {
    let s = b.len();
    let n = s * w.len();
    let ends: Vec<f64> = w
        .iter()
        .scan(0.0, |acc, &x| {
            *acc += x;
            Some(*acc)
        })
        .collect();
    let total = ends.last().copied().unwrap_or(0.0);
    let mut big = vec![vec![0.0; n]; n];
    let (mut bb, mut bbar, mut cc) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    for (k, &wk) in w.iter().enumerate() {
        let start = ends[k] - wk;
        for i in 0..s {
            let time = start + c[i] * wk;
            let row = &mut big[k * s + i];
            for (l, &wl) in w.iter().enumerate().take(k) {
                for j in 0..s {
                    row[l * s + j] = wl * wl * b_bar[j] + wl * b[j] * (time - ends[l]);
                }
            }
            for j in 0..s {
                row[k * s + j] = wk * wk * a[i][j];
            }
            cc[k * s + i] = time;
            bb[k * s + i] = wk * b[i];
            bbar[k * s + i] = wk * wk * b_bar[i] + wk * b[i] * (total - ends[k]);
        }
    }
    Normal::Rkn {
        a: big,
        b_bar: bbar,
        b: bb,
        c: cc,
    }
}

/// The partitioned pair (q tableau, p tableau) a normal form equals: a Runge–Kutta tableau
/// used for both equations, a partitioned pair as it is, a splitting's equivalent pair (on
/// separable H). `None` for a Nyström method, which is not a partitioned method in general.
pub fn to_prk(n: &Normal) -> Option<(Tableau, Tableau)> {
    match n {
        Normal::Rk(t) => Some((t.clone(), t.clone())),
        Normal::Prk { q, p } | Normal::Splitting { q, p, .. } => Some((q.clone(), p.clone())),
        Normal::Rkn { .. } => None,
    }
}

pub(crate) fn check_tableau(t: &Tableau, field: &str) -> Result<()> {
    let s = t.b.len();
    if s == 0 {
        return Err(input_err!("{field}b: no stages; give at least one weight"));
    }
    if t.a.len() != s || t.a.iter().any(|row| row.len() != s) {
        return Err(input_err!(
            "{field}a: must be {s}×{s} (one row of {s} entries per stage, as b has {s} entries)"
        ));
    }
    check_len(&t.c, s, &format!("{field}c"))?;
    check_finite(t.a.iter().flatten().copied(), &format!("{field}a"))?;
    check_finite(t.b.iter().copied(), &format!("{field}b"))?;
    check_finite(t.c.iter().copied(), &format!("{field}c"))
}

pub(crate) fn check_len(v: &[f64], s: usize, field: &str) -> Result<()> {
    if v.len() != s {
        return Err(input_err!(
            "{field}: has {} entries; give one per stage ({s})",
            v.len()
        ));
    }
    check_finite(v.iter().copied(), field)
}

pub(crate) fn check_finite(mut v: impl Iterator<Item = f64>, field: &str) -> Result<()> {
    match v.find(|x| !x.is_finite()) {
        Some(x) => Err(input_err!(
            "{field}: coefficient {x} is not a finite number; give finite coefficients"
        )),
        None => Ok(()),
    }
}
