//! The collocation families for any number of stages s, computed in f64: Gauss–Legendre
//! (nodes the zeros of the shifted Legendre polynomial P_s(2x − 1)), Radau IIA (the zeros of
//! P_s − P_{s−1}, the last node 1) and the Lobatto IIIA–IIIB pair (0, 1 and the zeros of
//! P'_{s−1}). A collocation method's coefficients follow from its nodes c: a_ij = ∫₀^{c_i} ℓ_j,
//! b_j = ∫₀¹ ℓ_j, with ℓ_j the Lagrange polynomial of node j (Hairer, Lubich and Wanner,
//! Geometric Numerical Integration, II.1.3); Lobatto IIIB is IIIA's symplectic partner,
//! b_i â_ij + b_j a_ji = b_i b_j (GNI II.2.2, Theorem VI.4.6). The shipped tables
//! (`methods/gauss*.toml`, `radau-iia-*.toml`, `lobatto-iiia-iiib-*.toml`) write the same
//! coefficients as exact expressions; the tests hold these to them within 1e-15.

use crate::method::tableau::Tableau;

/// A family of collocation methods, each member given by its number of stages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Collocation {
    Gauss,
    RadauIIA,
    /// Lobatto IIIA (`lobatto`), with `lobatto_iiib` its partner for the p equation.
    LobattoIIIA,
}

/// P_n(y) and P'_n(y) by the three-term recurrence (k + 1) P_{k+1} = (2k + 1) y P_k − k P_{k−1}.
fn legendre(n: usize, y: f64) -> (f64, f64) {
    let (mut p, mut p_prev, mut dp, mut dp_prev) = (1.0, 0.0, 0.0, 0.0);
    for k in 0..n {
        let kf = k as f64;
        let next = ((2.0 * kf + 1.0) * y * p - kf * p_prev) / (kf + 1.0);
        // P'_{k+1} = P'_{k−1} + (2k + 1) P_k
        let dnext = dp_prev + (2.0 * kf + 1.0) * p;
        (p_prev, p, dp_prev, dp) = (p, next, dp, dnext);
    }
    (p, dp)
}

/// The zeros of `f` in (−1, 1), each bracketed on a fine grid and bisected to the last bit.
fn zeros(f: impl Fn(f64) -> f64) -> Vec<f64> {
    const CELLS: usize = 4096;
    let y = |k: usize| -1.0 + 2.0 * k as f64 / CELLS as f64;
    let mut out = Vec::new();
    for k in 1..CELLS - 1 {
        let (mut lo, mut hi) = (y(k), y(k + 1));
        let (flo, fhi) = (f(lo), f(hi));
        if flo == 0.0 {
            out.push(lo);
            continue;
        }
        if flo.signum() == fhi.signum() || fhi == 0.0 {
            continue;
        }
        loop {
            let mid = 0.5 * (lo + hi);
            if mid <= lo || mid >= hi {
                break;
            }
            if f(mid).signum() == flo.signum() {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        out.push(if f(lo).abs() <= f(hi).abs() { lo } else { hi });
    }
    out
}

/// The nodes c_1 < … < c_s in [0, 1] of the family's s-stage member.
pub fn nodes(family: Collocation, s: usize) -> Vec<f64> {
    let inner: Vec<f64> = match family {
        Collocation::Gauss => zeros(|y| legendre(s, y).0),
        Collocation::RadauIIA => zeros(|y| legendre(s, y).0 - legendre(s - 1, y).0),
        Collocation::LobattoIIIA => zeros(|y| legendre(s - 1, y).1),
    };
    let mut c: Vec<f64> = inner.iter().map(|y| 0.5 + 0.5 * y).collect();
    match family {
        Collocation::Gauss => {}
        Collocation::RadauIIA => c.push(1.0),
        Collocation::LobattoIIIA => {
            c.insert(0, 0.0);
            c.push(1.0);
        }
    }
    if family != Collocation::RadauIIA {
        // Symmetric nodes: c_{s+1−i} = 1 − c_i, with the middle one 1/2 exactly.
        for i in 0..s / 2 {
            c[s - 1 - i] = 1.0 - c[i];
        }
        if s % 2 == 1 {
            c[s / 2] = 0.5;
        }
    }
    assert_eq!(c.len(), s, "{family:?} with {s} stages: nodes {c:?}");
    c
}

/// ℓ_j(t) = Π_{m≠j} (t − c_m)/(c_j − c_m), in product form (stable where the monomial
/// coefficients would cancel).
fn lagrange(c: &[f64], j: usize, t: f64) -> f64 {
    (c.iter().enumerate())
        .filter(|&(m, _)| m != j)
        .map(|(_, &cm)| (t - cm) / (c[j] - cm))
        .product()
}

/// The n-point Gauss–Legendre rule on [0, 1]: nodes, and weights 1/((1 − y²) P'_n(y)²)
/// at y = 2x − 1. Exact for polynomials of degree 2n − 1.
fn gauss_rule(n: usize) -> (Vec<f64>, Vec<f64>) {
    let x = nodes(Collocation::Gauss, n);
    let w = (x.iter())
        .map(|&x| {
            let y = 2.0 * x - 1.0;
            let dp = legendre(n, y).1;
            1.0 / ((1.0 - y * y) * dp * dp)
        })
        .collect();
    (x, w)
}

/// The collocation tableau of the family's s-stage member (for Lobatto, IIIA).
pub fn tableau(family: Collocation, s: usize) -> Tableau {
    let c = nodes(family, s);
    // ∫₀^x ℓ_j by the s-point Gauss rule scaled to [0, x]: exact, as ℓ_j has degree s − 1.
    let (t, w) = gauss_rule(s);
    let integral = |j: usize, x: f64| -> f64 {
        x * (t.iter().zip(&w))
            .map(|(tk, wk)| wk * lagrange(&c, j, x * tk))
            .sum::<f64>()
    };
    let a = (c.iter())
        .map(|&ci| (0..s).map(|j| integral(j, ci)).collect())
        .collect();
    let b = (0..s).map(|j| integral(j, 1.0)).collect();
    Tableau { a, b, c }
}

/// Lobatto IIIB with s stages, from IIIA: â_ij = b_j (1 − a_ji / b_i).
pub fn lobatto_iiib(s: usize) -> Tableau {
    let iiia = tableau(Collocation::LobattoIIIA, s);
    let (a, b) = (&iiia.a, &iiia.b);
    let a_hat = (0..s)
        .map(|i| (0..s).map(|j| b[j] * (1.0 - a[j][i] / b[i])).collect())
        .collect();
    Tableau {
        a: a_hat,
        b: iiia.b.clone(),
        c: iiia.c.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::method::file::shipped_by_name;
    use crate::method::tableau::Family;

    fn close(what: &str, got: &Tableau, want: &Tableau) {
        let pairs =
            (got.b.iter().zip(&want.b)).chain(got.a.iter().flatten().zip(want.a.iter().flatten()));
        for (g, w) in pairs {
            assert!((g - w).abs() <= 1e-15, "{what}: {g} against {w}");
        }
        assert_eq!(got.a.len(), want.a.len(), "{what}");
    }

    fn shipped(name: &str) -> &'static Family {
        &shipped_by_name(name).unwrap().family
    }

    #[test]
    fn gauss_and_radau_match_the_shipped_tables() {
        for (family, s, name) in [
            (Collocation::Gauss, 1, "gauss1"),
            (Collocation::Gauss, 2, "gauss2"),
            (Collocation::Gauss, 3, "gauss3"),
            (Collocation::RadauIIA, 2, "radau-iia-2"),
            (Collocation::RadauIIA, 3, "radau-iia-3"),
        ] {
            let Family::Rk(want) = shipped(name) else {
                panic!("{name} is not a Runge–Kutta tableau")
            };
            let got = tableau(family, s);
            close(name, &got, want);
            for (g, w) in got.c.iter().zip(&want.c) {
                assert!((g - w).abs() <= 1e-15, "{name} nodes: {g} against {w}");
            }
        }
    }

    #[test]
    fn lobatto_pairs_match_the_shipped_tables() {
        for (s, name) in [(2, "lobatto-iiia-iiib-2"), (3, "lobatto-iiia-iiib-3")] {
            let Family::Prk(pair) = shipped(name) else {
                panic!("{name} is not a partitioned pair")
            };
            close(name, &tableau(Collocation::LobattoIIIA, s), &pair.q);
            close(name, &lobatto_iiib(s), &pair.p);
        }
    }

    /// Past the shipped tables: the order conditions (GNI's 2s, 2s − 1, 2s − 2), simplifying
    /// assumptions that hold only to rounding for computed nodes.
    #[test]
    fn larger_members_satisfy_the_quadrature_conditions() {
        for s in 1..=6 {
            for (family, order) in [
                (Collocation::Gauss, 2 * s),
                (Collocation::RadauIIA, 2 * s - 1),
                (Collocation::LobattoIIIA, 2 * s - 2),
            ] {
                if family == Collocation::LobattoIIIA && s < 2 {
                    continue;
                }
                let t = tableau(family, s);
                // Σ b_i c_i^(k−1) = 1/k for k ≤ order; Σ_j a_ij c_j^(k−1) = c_i^k / k for k ≤ s.
                for k in 1..=order {
                    let sum: f64 = (t.b.iter().zip(&t.c))
                        .map(|(b, c)| b * c.powi(k as i32 - 1))
                        .sum();
                    assert!(
                        (sum - 1.0 / k as f64).abs() < 1e-14,
                        "{family:?} s={s} k={k}"
                    );
                }
                for (row, ci) in t.a.iter().zip(&t.c) {
                    for k in 1..=s {
                        let sum: f64 = (row.iter().zip(&t.c))
                            .map(|(a, c)| a * c.powi(k as i32 - 1))
                            .sum();
                        let want = ci.powi(k as i32) / k as f64;
                        assert!((sum - want).abs() < 1e-14, "{family:?} s={s} k={k}");
                    }
                }
            }
        }
    }
}
