//! The indicators beyond MEGNO and λ (`--chaos fli,sali,galiK`): the fast Lyapunov indicator
//! (Froeschlé, Lega and Gonczi, "Fast Lyapunov indicators. Application to asteroidal
//! motion"), the smaller alignment index SALI (Skokos, "Alignment indices: a new, simple
//! method for determining the ordered or chaotic nature of orbits") and the generalized
//! alignment indices GALI_k (Skokos, Bountis and Antonopoulos, "Geometrical properties of
//! local dynamics in Hamiltonian systems: the Generalized Alignment Index (GALI) method").
//!
//! - FLI: the largest ln|δ| so far of the first deviation vector, |δ| the length the vector
//!   would have without its renormalisations: Σ ln r, the λ accumulator, which adds back each
//!   step's exact power of two (`update`). One comparison per step (`update_more`).
//! - SALI and GALI_k follow k deviation vectors (the state's first k tangent columns, started
//!   orthonormal in the metric: `Deviation::vectors`). Each is rescaled after every step by
//!   the exact power of two that brings its squared length into [1, 4), as the first is, so
//!   the carried force stays exact and a run's bits do not depend on where it splits its
//!   steps; the indices use the vectors divided by their lengths, which is the unit vector
//!   renormalisation of the papers. SALI = min(|ŵ1 + ŵ2|, |ŵ1 − ŵ2|) is formed after every
//!   step from the component sums (not from 2 ± 2ŵ1·ŵ2, which would stop near 10⁻⁸), with
//!   its least value so far; both are accumulators. GALI_k, the volume of the parallelotope
//!   of the k unit vectors, is a function of the vectors alone: it is taken from the state at
//!   a snapshot (`gali`), by modified Gram–Schmidt (the product of the diagonal of R in
//!   Ŵ = QR), with only +, −, ×, ÷ and √.
//!
//! The per-step update uses only +, −, ×, ÷, √ and comparisons in a fixed order per point, and
//! the GPU kernel (`observe::chaos`) runs the same operations in the same order.

use super::{
    binade_scale, squared_norms, Chaos, Indicator, Layout, LOG_GROWTH, NORM, STEPS, WIDTH, Y_SUM,
};
use crate::float::Real;

/// Scratch rows `update_more` needs per point of the block (after `update`'s, which it reuses).
pub const SCRATCH_MORE: usize = 5;

/// After `update` on the block (same layout; `acc` holds `layout.width()` rows of `b`, `scratch`
/// `SCRATCH_MORE` rows): the largest ln|δ| (FLI), the renormalisation of deviation vectors
/// 2..k (tangent columns 1..k−1, and their parts of the carried derivative vectors) by
/// `binade_scale`, and SALI from the first two vectors with its least value so far.
#[inline(always)]
pub fn update_more<T: Real>(
    [q, p]: [&mut [T]; 2],
    [fq, fp]: [&mut [T]; 2],
    acc: &mut [T],
    scratch: &mut [T],
    (b, d): (usize, usize),
    weights: Option<&[T]>,
    layout: Layout,
) {
    if let Some(w) = layout.fli_word() {
        let (lo, hi) = acc.split_at_mut(w * b);
        let growth = &lo[LOG_GROWTH * b..(LOG_GROWTH + 1) * b];
        for (f, &g) in hi[..b].iter_mut().zip(growth) {
            if g > *f {
                *f = g;
            }
        }
    }
    let (ns, rest) = scratch[..SCRATCH_MORE * b].split_at_mut(b);
    let (scales, rest) = rest.split_at_mut(b);
    let (second, rest) = rest.split_at_mut(b);
    for j in 1..layout.vectors {
        let (c0, c1) = (d * (1 + j) * b, d * (2 + j) * b);
        squared_norms(&q[c0..c1], &p[c0..c1], (b, d), weights, ns);
        let (quarter, sixteen) = (T::from_f64(0.25), T::from_f64(16.0));
        let (mut far, mut rescale) = (false, false);
        for (s, &n) in scales.iter_mut().zip(&*ns) {
            *s = super::near_scale(n);
            far |= !(n >= quarter && n < sixteen);
            rescale |= *s != T::ONE;
        }
        if far {
            for (s, &n) in scales.iter_mut().zip(&*ns) {
                if !(n >= quarter && n < sixteen) {
                    *s = binade_scale(n);
                    rescale = true;
                }
            }
        }
        if rescale {
            for v in [&mut *q, &mut *p, &mut *fq, &mut *fp] {
                for k in 0..d {
                    let comp = &mut v[c0 + k * b..c0 + (k + 1) * b];
                    for (x, &s) in comp.iter_mut().zip(&*scales) {
                        *x *= s;
                    }
                }
            }
        }
        if j == 1 {
            for ((m, &n), &s) in second.iter_mut().zip(&*ns).zip(&*scales) {
                *m = n * s * s;
            }
        }
    }
    if let Some(w) = layout.sali_word() {
        let (minus, plus) = rest.split_at_mut(b);
        let norm1 = &acc[NORM * b..(NORM + 1) * b];
        sali_sums(
            [&*q, &*p],
            (b, d),
            weights,
            [norm1, second],
            [ns, scales],
            [minus, &mut plus[..b]],
        );
        let (lo, hi) = acc.split_at_mut(w * b);
        let steps = &lo[STEPS * b..(STEPS + 1) * b];
        let (now, least) = hi[..2 * b].split_at_mut(b);
        let rows = now
            .iter_mut()
            .zip(least)
            .zip(steps)
            .zip(minus.iter().zip(&plus[..b]));
        for (((now, least), &k), (&m, &pl)) in rows {
            let s = (if m < pl { m } else { pl }).sqrt();
            *now = s;
            if k == T::ONE || s < *least {
                *least = s;
            }
        }
    }
}

/// Per point, Σ (a − c)² and Σ (a + c)² over the components (q then p, each times its weight
/// where the metric has weights) of the unit vectors a = w1/√n1 and c = w2/√n2, w1 and w2 the
/// first two tangent columns and n1, n2 their squared lengths.
#[inline(always)]
fn sali_sums<T: Real>(
    [q, p]: [&[T]; 2],
    (b, d): (usize, usize),
    weights: Option<&[T]>,
    [n1, n2]: [&[T]; 2],
    [inv1, inv2]: [&mut [T]; 2],
    [minus, plus]: [&mut [T]; 2],
) {
    let rows = inv1.iter_mut().zip(inv2.iter_mut()).zip(n1.iter().zip(n2));
    for ((i1, i2), (&a, &c)) in rows {
        *i1 = T::ONE / a.sqrt();
        *i2 = T::ONE / c.sqrt();
    }
    minus.fill(T::ZERO);
    plus.fill(T::ZERO);
    for (v_at, v) in [q, p].into_iter().enumerate() {
        for k in 0..d {
            let w = weights.map(|w| w[v_at * d + k]);
            let x1 = &v[(d + k) * b..(d + k + 1) * b];
            let x2 = &v[(2 * d + k) * b..(2 * d + k + 1) * b];
            let rows = minus
                .iter_mut()
                .zip(plus.iter_mut())
                .zip(x1.iter().zip(x2))
                .zip(inv1.iter().zip(&*inv2));
            for (((m, pl), (&x1, &x2)), (&i1, &i2)) in rows {
                let (y1, y2) = match w {
                    Some(w) => (x1 * w, x2 * w),
                    None => (x1, x2),
                };
                let (a, c) = (y1 * i1, y2 * i2);
                let (e, f) = (a - c, a + c);
                *m += e * e;
                *pl += f * f;
            }
        }
    }
}

/// The indicators of one point from its accumulators (f64) and the step size: (⟨Y⟩, λ), or
/// `None` before the first step or when the point or its deviation vector blew up.
pub fn point_indicators(acc: [f64; WIDTH], h: f64) -> Option<(f64, f64)> {
    let k = acc[STEPS];
    if k < 1.0 || !acc.iter().all(|x| x.is_finite()) {
        return None;
    }
    Some((acc[Y_SUM] / k, acc[LOG_GROWTH] / (k * h.abs())))
}

/// GALI_1..GALI_k of the k vectors `w` (each of the same length, already times the metric's
/// weights): each divided by its length, then modified Gram–Schmidt; GALI_j is the product of
/// the first j diagonal entries of R. NaN where a vector is not finite or zero.
pub fn gali(w: &[Vec<f64>]) -> Vec<f64> {
    let mut basis: Vec<Vec<f64>> = Vec::with_capacity(w.len());
    let mut out = Vec::with_capacity(w.len());
    let mut volume = 1.0;
    for v in w {
        let len = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        let mut u: Vec<f64> = v.iter().map(|x| x / len).collect();
        for e in &basis {
            let r: f64 = e.iter().zip(&u).map(|(a, b)| a * b).sum();
            for (x, a) in u.iter_mut().zip(e) {
                *x -= r * a;
            }
        }
        let r = u.iter().map(|x| x * x).sum::<f64>().sqrt();
        volume *= r;
        out.push(if volume.is_finite() { volume } else { f64::NAN });
        basis.push(u.into_iter().map(|x| x / r).collect());
    }
    out
}

/// The indicators of one point, in the order of `chaos.columns()`, from its accumulators
/// (`acc`, `Layout::width` of them, in f64), its deviation vectors (`vector(j)`: tangent
/// column j's 2d components, q then p) and the step size; all NaN before the first step or
/// when the point or its deviation vectors blew up.
pub fn point_values(
    chaos: &Chaos,
    acc: &[f64],
    vector: &dyn Fn(usize) -> Vec<f64>,
    weights: Option<&[f64]>,
    h: f64,
) -> Vec<f64> {
    let columns = chaos.columns().len();
    let undefined = vec![f64::NAN; columns];
    let Some((megno, lyap)) = point_indicators(std::array::from_fn(|c| acc[c]), h) else {
        return undefined;
    };
    if !acc.iter().all(|x| x.is_finite()) {
        return undefined;
    }
    let layout = chaos.layout();
    let galis = if chaos.gali().is_empty() {
        Vec::new()
    } else {
        let w: Vec<Vec<f64>> = (0..layout.vectors)
            .map(|j| {
                let v = vector(j);
                match weights {
                    Some(w) => v.iter().zip(w).map(|(x, w)| x * w).collect(),
                    None => v,
                }
            })
            .collect();
        gali(&w)
    };
    let mut out = Vec::with_capacity(columns);
    for &i in &chaos.indicators {
        match i {
            Indicator::Megno => out.push(megno),
            Indicator::Lyapunov => out.push(lyap),
            Indicator::Fli => out.push(acc[layout.fli_word().unwrap_or(0)]),
            Indicator::Sali => {
                let w = layout.sali_word().unwrap_or(0);
                out.extend([acc[w], acc[w + 1]]);
            }
            Indicator::Gali(k) => out.push(galis.get(k - 1).copied().unwrap_or(f64::NAN)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// GALI of orthonormal vectors is 1, of two vectors at angle θ sin θ, and of dependent ones 0.
    #[test]
    fn gali_is_the_volume_of_the_unit_vectors() {
        let e = |k: usize| -> Vec<f64> { (0..4).map(|i| f64::from(u8::from(i == k))).collect() };
        assert_eq!(gali(&[e(0), e(1), e(2), e(3)]), vec![1.0; 4]);
        let t: f64 = 0.3;
        let g = gali(&[vec![2.0, 0.0, 0.0, 0.0], vec![t.cos(), t.sin(), 0.0, 0.0]]);
        assert!((g[1] - t.sin()).abs() < 1e-15, "{g:?}");
        let g = gali(&[vec![1.0, 2.0, 0.0, 0.0], vec![-2.0, -4.0, 0.0, 0.0]]);
        assert!(g[1] < 1e-15, "{g:?}");
        // Nearly parallel: the small side to relative accuracy.
        let eps = 1e-9;
        let g = gali(&[vec![1.0, 0.0, 0.0, 0.0], vec![1.0, eps, 0.0, 0.0]]);
        assert!((g[1] / eps - 1.0).abs() < 1e-6, "{g:?}");
    }

    /// SALI of two unit vectors at a small angle θ is 2 sin(θ/2) to relative accuracy down to
    /// θ = 10⁻¹² (where 2 − 2|ŵ1·ŵ2| would give 0), FLI keeps the largest Σ ln r, and the
    /// second vector is rescaled by a power of two.
    #[test]
    fn sali_is_accurate_for_nearly_parallel_vectors() {
        let layout = Layout {
            vectors: 2,
            fli: true,
            sali: true,
        };
        for theta in [1.0_f64, 1e-4, 1e-8, 1e-12] {
            let (b, d) = (1, 1);
            // Components: the point, then column 0, then column 1 (q and p each).
            let mut q = vec![0.0, 1.0, 3.0 * theta.cos()];
            let mut p = vec![0.0, 0.0, 3.0 * theta.sin()];
            let (mut fq, mut fp) = (vec![0.0; 3], vec![0.0; 3]);
            let mut acc = vec![0.0; layout.width()];
            acc[STEPS] = 1.0;
            acc[NORM] = 1.0;
            acc[LOG_GROWTH] = 0.5;
            let mut scratch = vec![0.0; SCRATCH_MORE];
            update_more(
                [&mut q, &mut p],
                [&mut fq, &mut fp],
                &mut acc,
                &mut scratch,
                (b, d),
                None,
                layout,
            );
            let s = acc[layout.sali_word().unwrap()];
            let want = 2.0 * (theta / 2.0).sin();
            assert!((s / want - 1.0).abs() < 1e-10, "{theta}: {s} vs {want}");
            assert_eq!(acc[layout.sali_word().unwrap() + 1], s);
            assert_eq!(acc[layout.fli_word().unwrap()], 0.5);
            // |w2|² = 9 is brought into [1, 4) by 1/2.
            assert_eq!(q[2], 1.5 * theta.cos());
        }
    }
}
