//! Linear stability on the harmonic oscillator H = (p² + ω²q²)/2, q'' = −ω²q: the step maps
//! (ωq, p) by a 2×2 matrix M(hω) that depends on hω alone; the stability interval is the range
//! of hω from 0 where both eigenvalues of M have modulus ≤ 1 (for symplectic Euler (0, 2], as
//! worked out from its propagator's eigenvalues in the course notes the oscillator tests cite).

use super::normal::Normal;
use crate::method::tableau::Substep;
use serde::ser::{Serialize, SerializeSeq, Serializer};

/// Where the scan stops: an interval reaching it is reported unbounded (A-stable methods such
/// as the Gauss methods, whose eigenvalues stay on the unit circle at every hω).
pub const CAP: f64 = 1000.0;

/// The scan's step up to hω = 10 (then 0.1 % of hω up to `CAP`); an interval found shorter
/// than one step is reported empty.
pub const GRID: f64 = 1e-3;

/// The range (0, end] of hω where the step's eigenvalues have modulus ≤ 1.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum StabilityInterval {
    /// The amplitude grows at every hω > 0 the scan resolves (explicit Euler).
    Empty,
    /// Stable for 0 < hω ≤ end, unstable just beyond.
    UpTo(f64),
    /// Stable at every hω up to `CAP`.
    Unbounded,
}

impl StabilityInterval {
    /// The upper end: `Some(0.0)` when empty, `None` when unbounded.
    pub fn end(self) -> Option<f64> {
        match self {
            StabilityInterval::Empty => Some(0.0),
            StabilityInterval::UpTo(e) => Some(e),
            StabilityInterval::Unbounded => None,
        }
    }
}

/// Serialised as the pair `[0, end]`: `end` 0 when empty and infinite when unbounded (TOML
/// writes `inf`; JSON, which has no infinity, `null` as serde_json writes non-finite numbers).
impl Serialize for StabilityInterval {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(2))?;
        seq.serialize_element(&0.0)?;
        seq.serialize_element(&self.end().unwrap_or(f64::INFINITY))?;
        seq.end()
    }
}

impl std::fmt::Display for StabilityInterval {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StabilityInterval::Empty => write!(f, "none (unstable at every hω > 0)"),
            StabilityInterval::UpTo(e) => write!(f, "(0, {e:.6}]"),
            StabilityInterval::Unbounded => write!(f, "(0, ∞) (no end up to hω = {CAP})"),
        }
    }
}

/// A method's step on the oscillator: a normal form, or a composition of a step.
pub enum Step {
    Normal(Normal),
    Composition(Box<Step>, Vec<f64>),
}

type Matrix = [[f64; 2]; 2];

fn mul(a: Matrix, b: Matrix) -> Matrix {
    let mut m = [[0.0; 2]; 2];
    for i in 0..2 {
        for j in 0..2 {
            m[i][j] = a[i][0] * b[0][j] + a[i][1] * b[1][j];
        }
    }
    m
}

impl Step {
    /// M(x), x = hω, acting on (ωq, p); `None` where the stage equations are singular.
    pub fn matrix(&self, x: f64) -> Option<Matrix> {
        match self {
            Step::Composition(base, weights) => weights
                .iter()
                .try_fold([[1.0, 0.0], [0.0, 1.0]], |acc, &w| {
                    Some(mul(base.matrix(w * x)?, acc))
                }),
            Step::Normal(Normal::Splitting { steps, .. }) => {
                Some(steps.iter().fold([[1.0, 0.0], [0.0, 1.0]], |acc, s| {
                    let m = match *s {
                        Substep::Kick(c) => [[1.0, 0.0], [-c * x, 1.0]],
                        Substep::Drift(c) => [[1.0, c * x], [0.0, 1.0]],
                    };
                    mul(m, acc)
                }))
            }
            Step::Normal(Normal::Rk(t)) => prk(&t.a, &t.b, &t.a, &t.b, x),
            Step::Normal(Normal::Prk { q, p }) => prk(&q.a, &q.b, &p.a, &p.b, x),
            Step::Normal(Normal::Rkn { a, b_bar, b, c }) => rkn(a, b_bar, b, c, x),
        }
    }
}

/// Q = q0 + x a P, P = p0 − x â Q (2s unknowns), then q1 = q0 + x b·P, p1 = p0 − x b̂·Q.
fn prk(a: &[Vec<f64>], b: &[f64], ah: &[Vec<f64>], bh: &[f64], x: f64) -> Option<Matrix> {
    let s = b.len();
    let mut m = vec![vec![0.0; 2 * s]; 2 * s];
    for i in 0..s {
        m[i][i] = 1.0;
        m[s + i][s + i] = 1.0;
        for j in 0..s {
            m[i][s + j] = -x * a[i][j];
            m[s + i][j] = x * ah[i][j];
        }
    }
    let rhs: Vec<Vec<f64>> = (0..2)
        .map(|col| {
            (0..2 * s)
                .map(|r| f64::from((r < s) == (col == 0)))
                .collect()
        })
        .collect();
    let sol = solve(m, rhs)?;
    let mut out = [[0.0; 2]; 2];
    for (col, y) in sol.iter().enumerate() {
        let (q, p) = y.split_at(s);
        out[0][col] = f64::from(col == 0) + x * dot(b, p);
        out[1][col] = f64::from(col == 1) - x * dot(bh, q);
    }
    Some(out)
}

/// (I + x² ā) Q = q0 + c x v0, then q1 = q0 + x v0 − x² b̄·Q, v1 = v0 − x b·Q.
fn rkn(a: &[Vec<f64>], b_bar: &[f64], b: &[f64], c: &[f64], x: f64) -> Option<Matrix> {
    let s = b.len();
    let m: Vec<Vec<f64>> = (0..s)
        .map(|i| {
            (0..s)
                .map(|j| f64::from(i == j) + x * x * a[i][j])
                .collect()
        })
        .collect();
    let rhs = vec![vec![1.0; s], c.iter().map(|ci| ci * x).collect()];
    let sol = solve(m, rhs)?;
    let mut out = [[0.0; 2]; 2];
    for (col, q) in sol.iter().enumerate() {
        out[0][col] = f64::from(col == 0) + f64::from(col == 1) * x - x * x * dot(b_bar, q);
        out[1][col] = f64::from(col == 1) - x * dot(b, q);
    }
    Some(out)
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Gaussian elimination with partial pivoting, one solution per right-hand side; `None` when
/// a pivot vanishes against the matrix's size.
fn solve(mut m: Vec<Vec<f64>>, mut rhs: Vec<Vec<f64>>) -> Option<Vec<Vec<f64>>> {
    let n = m.len();
    let size = m.iter().flatten().fold(0.0f64, |a, x| a.max(x.abs()));
    for k in 0..n {
        let piv = (k..n).max_by(|&i, &j| m[i][k].abs().total_cmp(&m[j][k].abs()))?;
        if m[piv][k].abs() <= 1e-13 * size {
            return None;
        }
        m.swap(k, piv);
        for r in rhs.iter_mut() {
            r.swap(k, piv);
        }
        let (top, below) = m.split_at_mut(k + 1);
        let pivot = &top[k];
        for (i, row) in below.iter_mut().enumerate() {
            let f = row[k] / pivot[k];
            if f != 0.0 {
                row[k..]
                    .iter_mut()
                    .zip(&pivot[k..])
                    .for_each(|(x, y)| *x -= f * y);
                for r in rhs.iter_mut() {
                    r[k + 1 + i] -= f * r[k];
                }
            }
        }
    }
    for r in rhs.iter_mut() {
        for k in (0..n).rev() {
            let tail: f64 = (k + 1..n).map(|j| m[k][j] * r[j]).sum();
            r[k] = (r[k] - tail) / m[k][k];
        }
    }
    Some(rhs)
}

/// Both eigenvalues of M in the closed unit disk, by the Schur–Cohn conditions on
/// λ² − (tr M) λ + det M (no square root, so a double eigenvalue on the circle is not lost
/// to rounding): |det M| ≤ 1 and |tr M| ≤ 1 + det M, each within 10⁻¹⁴ (1 + hω)², the
/// rounding of the step's matrix.
fn stable(m: Option<Matrix>, x: f64) -> bool {
    let Some(m) = m else { return false };
    let tol = 1e-14 * (1.0 + x) * (1.0 + x);
    let t = m[0][0] + m[1][1];
    let d = m[0][0] * m[1][1] - m[0][1] * m[1][0];
    d.abs() <= 1.0 + tol && t.abs() <= 1.0 + d + tol
}

/// The spectral radius of M(x) (for reports and tests; the scan uses `stable`).
pub fn spectral_radius(step: &Step, x: f64) -> Option<f64> {
    let m = step.matrix(x)?;
    let t = m[0][0] + m[1][1];
    let d = m[0][0] * m[1][1] - m[0][1] * m[1][0];
    let disc = t * t - 4.0 * d;
    Some(if disc >= 0.0 {
        (t.abs() + disc.sqrt()) / 2.0
    } else {
        d.abs().sqrt()
    })
}

/// Scan hω upwards for the first unstable point, then bisect between it and the last stable
/// one to the resolution of f64.
pub fn interval(step: &Step) -> StabilityInterval {
    let is_stable = |x: f64| stable(step.matrix(x), x);
    let mut lo = 0.0;
    let mut k = 1;
    loop {
        let x = if k <= 10_000 {
            k as f64 * GRID
        } else {
            lo * 1.001
        };
        if x > CAP {
            return StabilityInterval::Unbounded;
        }
        if !is_stable(x) {
            if k == 1 {
                return StabilityInterval::Empty;
            }
            let mut hi = x;
            while hi - lo > 1e-14 * hi {
                let mid = 0.5 * (lo + hi);
                if is_stable(mid) {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            return StabilityInterval::UpTo(lo);
        }
        lo = x;
        k += 1;
    }
}
