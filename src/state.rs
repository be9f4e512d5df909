//! The structure-of-arrays state of an ensemble (`State<T>`): N points with d degrees of
//! freedom, component-major, with optional tangent columns and per-point unconverged counts.
//! Engines advance it, measurements read it, `ensemble` generates it and `npy` writes it.

use crate::float::Real;

/// N points with d degrees of freedom, component-major: `q[k*n + i]`, `p[k*n + i]`
/// (the layout the GPU buffers use, so loads of neighbouring threads coalesce).
///
/// With `nt` tangent columns (the tangent map DΦⁿ, `--tangent`), q and p carry d·(1 + nt)
/// components: the point itself (k < d), then column j of the tangent matrix at components
/// d·(1 + j) + k, its q-rows in `q` and its p-rows in `p`. Engines advance all components alike;
/// everything that reads only `k < d` sees the plain state.
#[derive(Debug, Clone, PartialEq)]
pub struct State<T> {
    pub n: usize,
    pub d: usize,
    pub nt: usize,
    pub q: Vec<T>,
    pub p: Vec<T>,
    /// Per point: how many implicit solves (fixed-point iterations of the symplectic Euler /
    /// Verlet stages for non-separable H, implicit midpoint) stopped at the iteration cap
    /// without converging since t = 0. Zero for explicit kernels.
    pub unconverged: Vec<u32>,
}

impl<T: Real> State<T> {
    pub fn zeros(n: usize, d: usize) -> Self {
        State {
            n,
            d,
            nt: 0,
            q: vec![T::ZERO; n * d],
            p: vec![T::ZERO; n * d],
            unconverged: vec![0; n],
        }
    }

    /// Components per point in q (and in p): d·(1 + nt).
    pub fn comps(&self) -> usize {
        self.d * (1 + self.nt)
    }

    /// The same points with the 2d tangent columns appended, each set to the identity
    /// (DΦ⁰ = I): column j is the unit vector e_j of (q1..qd, p1..pd).
    pub fn with_tangent(&self) -> State<T> {
        let (n, d) = (self.n, self.d);
        let nt = 2 * d;
        let mut s = State {
            n,
            d,
            nt,
            q: vec![T::ZERO; n * d * (1 + nt)],
            p: vec![T::ZERO; n * d * (1 + nt)],
            unconverged: self.unconverged.clone(),
        };
        s.q[..n * d].copy_from_slice(&self.q[..n * d]);
        s.p[..n * d].copy_from_slice(&self.p[..n * d]);
        for j in 0..nt {
            let (arr, k) = if j < d {
                (&mut s.q, j)
            } else {
                (&mut s.p, j - d)
            };
            let c = d * (1 + j) + k;
            arr[c * n..(c + 1) * n].fill(T::ONE);
        }
        s
    }

    /// The points alone (no tangent columns), in f64.
    pub fn primal_f64(&self) -> State<f64> {
        let m = self.n * self.d;
        State {
            n: self.n,
            d: self.d,
            nt: 0,
            q: self.q[..m].iter().map(|x| x.to_f64()).collect(),
            p: self.p[..m].iter().map(|x| x.to_f64()).collect(),
            unconverged: self.unconverged.clone(),
        }
    }

    /// Points `idx` of this state (all components), in that order.
    pub fn select(&self, idx: &[usize]) -> State<T> {
        let (n, c) = (self.n, self.comps());
        let m = idx.len();
        let mut s = State {
            n: m,
            d: self.d,
            nt: self.nt,
            q: vec![T::ZERO; m * c],
            p: vec![T::ZERO; m * c],
            unconverged: idx.iter().map(|&i| self.unconverged[i]).collect(),
        };
        for k in 0..c {
            for (j, &i) in idx.iter().enumerate() {
                s.q[k * m + j] = self.q[k * n + i];
                s.p[k * m + j] = self.p[k * n + i];
            }
        }
        s
    }

    /// Interleave two states point by point: `from_a[i]` says whether output point i is the
    /// next point of `a` or of `b` (both keep their order).
    pub fn merge(a: &State<T>, b: &State<T>, from_a: &[bool]) -> State<T> {
        assert_eq!((a.d, a.nt), (b.d, b.nt));
        let m = from_a.len();
        assert_eq!(m, a.n + b.n);
        let c = a.comps();
        let mut s = State {
            n: m,
            d: a.d,
            nt: a.nt,
            q: vec![T::ZERO; m * c],
            p: vec![T::ZERO; m * c],
            unconverged: vec![0; m],
        };
        let (mut ia, mut ib) = (0, 0);
        for (j, &take_a) in from_a.iter().enumerate() {
            let (src, i) = if take_a { (a, ia) } else { (b, ib) };
            s.unconverged[j] = src.unconverged[i];
            for k in 0..c {
                s.q[k * m + j] = src.q[k * src.n + i];
                s.p[k * m + j] = src.p[k * src.n + i];
            }
            if take_a {
                ia += 1;
            } else {
                ib += 1;
            }
        }
        s
    }

    /// Convert precision (f64 generators → run precision, f32 states → f64 measurements).
    pub fn convert<U: Real>(&self) -> State<U> {
        State {
            n: self.n,
            d: self.d,
            nt: self.nt,
            q: self.q.iter().map(|x| U::from_f64(x.to_f64())).collect(),
            p: self.p.iter().map(|x| U::from_f64(x.to_f64())).collect(),
            unconverged: self.unconverged.clone(),
        }
    }

    /// Point i as f64 (q1..qd, p1..pd) into the given buffers.
    #[inline]
    pub fn point_f64(&self, i: usize, q: &mut [f64], p: &mut [f64]) {
        for k in 0..self.d {
            q[k] = self.q[k * self.n + i].to_f64();
            p[k] = self.p[k * self.n + i].to_f64();
        }
    }

    /// Build from rows (q1..qd, p1..pd) per point.
    pub fn from_rows(rows: &[Vec<f64>], d: usize) -> Self {
        let n = rows.len();
        let mut s = State::zeros(n, d);
        for (i, row) in rows.iter().enumerate() {
            for k in 0..d {
                s.q[k * n + i] = T::from_f64(row[k]);
                s.p[k * n + i] = T::from_f64(row[d + k]);
            }
        }
        s
    }
}
