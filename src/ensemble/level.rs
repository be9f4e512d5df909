//! `--ensemble level`: points on the level curve H = E around a 1-DOF system's minimum (a
//! march and bisection along rays from the minimum, safe near a separatrix) and the area the
//! curve encloses.

use super::fill;
use crate::error::{num, Error, Field, Result};
use crate::float::Real;
use crate::invalid;
use crate::state::State;
use crate::system::System;

/// Points on the level set H = E, star-shaped around the system's minimum z*, at angles
/// φ_k = 2πk/N (loop parameter s = k/N).
pub(super) fn level<T: Real>(system: &System, energy: f64, n: usize) -> Result<State<T>> {
    let tau = 2.0 * std::f64::consts::PI;
    let mut points = Vec::with_capacity(n);
    let s = fill(0..n, 1, |k, row| {
        row.copy_from_slice(&level_point(system, energy, tau * k as f64 / n as f64)?);
        points.push((row[0], row[1]));
        Ok(())
    })?;
    check_level_loop(&points).map_err(|why| {
        bad_energy(
            energy,
            format!(
                ": the level set of '{}' is not one closed curve around its minimum ({why}); choose a lower energy",
                system.name()
            ),
        )
    })?;
    Ok(s)
}

/// A safety net for the march: the points of one closed level curve around the minimum,
/// taken at evenly spaced angles, lie close to their neighbours; a point far from them sits
/// on another branch of the level set (outside the well).
fn check_level_loop(points: &[(f64, f64)]) -> Result<(), String> {
    let n = points.len();
    if n < 8 {
        return Ok(());
    }
    let gaps: Vec<f64> = (0..n)
        .map(|i| {
            let (a, b) = (points[i], points[(i + 1) % n]);
            (b.0 - a.0).hypot(b.1 - a.1)
        })
        .collect();
    let mut sorted = gaps.clone();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[n / 2];
    match gaps.iter().position(|&g| g > 50.0 * median) {
        Some(i) => Err(format!(
            "points {} and {} are {:.3e} apart, {:.0}× the median spacing",
            i + 1,
            (i + 1) % n + 1,
            gaps[i],
            gaps[i] / median
        )),
        None => Ok(()),
    }
}

/// The error of a level ensemble on a system without a stable equilibrium.
fn no_minimum(system: &System) -> Error {
    invalid!(Field::Ensemble;
        Field::Ensemble.is("level"),
        format!(
            ": system '{}' has no stable equilibrium to draw level curves around{}; use circle, rect or another kind",
            system.name(),
            if system.expression().is_some() {
                " (for a formula of one degree of freedom, Newton's method looks for a minimum of H from the default state: give one near the minimum as a system file's default_state)"
            } else {
                ""
            }
        )
    )
}

/// The error about the level `energy`: `why` follows it (`: …`).
fn bad_energy(energy: f64, why: String) -> Error {
    invalid!(Field::Energy; Field::Energy.is(num(energy)), why)
}

/// The point of the level set H = E along the ray from z* at angle φ: march outwards until H
/// exceeds E, then bisect to full f64 precision.
pub(super) fn level_point(system: &System, energy: f64, phi: f64) -> Result<Vec<f64>> {
    let zmin = system.minimum().ok_or_else(|| no_minimum(system))?;
    // Level curves of H: a discrete map has no H (nor a minimum).
    let h = system.hamiltonian().ok_or_else(|| no_minimum(system))?;
    let e_min = h.energy(&zmin[..1], &zmin[1..]);
    if energy <= e_min {
        return Err(bad_energy(
            energy,
            format!(
                ": the level must lie above the minimum energy {} of '{}'",
                num(e_min),
                system.name()
            ),
        ));
    }
    let h_at = |r: f64, c: f64, s: f64| h.energy(&[zmin[0] + r * c], &[zmin[1] + r * s]) - energy;
    let (c, s) = (phi.cos(), phi.sin());
    // March with a step that grows slowly so small and large levels both bracket quickly.
    // Near a separatrix the region where H > E along the ray can be much narrower than the
    // step (issue 15, fault 3), so the march also watches for H turning down: the three last
    // points then bracket a maximum of H, which a golden-section search examines; if H exceeds
    // E anywhere there, the first crossing lies before it.
    let (mut r_in, mut r_out) = (0.0, 0.0);
    let mut dr = 1e-6_f64.max(1e-3 * energy.sqrt());
    let mut found = false;
    // (r, H − E) at the previous two march points.
    let mut before = (0.0, h_at(0.0, c, s));
    let mut last = before;
    for _ in 0..100_000 {
        let r = r_in + dr;
        let g = h_at(r, c, s);
        if g > 0.0 {
            r_out = r;
            found = true;
            break;
        }
        if g < last.1 {
            // H rose to `last` and fell again: a maximum lies in [before.0, r].
            if let Some((a, above)) = exceeds_near_max(&|x| h_at(x, c, s), before.0, last.0, r) {
                (r_in, r_out) = (a, above);
                found = true;
                break;
            }
        }
        (before, last) = (last, (r, g));
        r_in = r;
        dr *= 1.02;
        if r_in > 1e6 {
            break;
        }
    }
    if !found {
        return Err(bad_energy(
            energy,
            format!(
                ": the level set of '{}' is not a closed curve around its minimum (no crossing along angle {phi:.3}); choose a lower energy",
                system.name()
            ),
        ));
    }
    for _ in 0..200 {
        let mid = 0.5 * (r_in + r_out);
        if mid <= r_in || mid >= r_out {
            break;
        }
        if h_at(mid, c, s) > 0.0 {
            r_out = mid;
        } else {
            r_in = mid;
        }
    }
    let r = 0.5 * (r_in + r_out);
    // A level just above the minimum can be lost to rounding: H − E near the well's bottom
    // is then 0 or a rounding step, never E − E_min, and the bisection stops on that step
    // instead of the curve. Such a level needs a higher energy, not a lower one.
    let miss = h_at(r, c, s).abs();
    // (NaN, from an H that cannot be evaluated there, fails as well.)
    if miss.is_nan() || miss > 1e-3 * (energy - e_min) {
        return Err(bad_energy(
            energy,
            format!(
                ": the level lies too close to the minimum energy {} of '{}' to be drawn in f64 (on the curve H differs from E by {miss:.1e}, the level's own height above the minimum being {:.1e}); choose a higher energy",
                num(e_min),
                system.name(),
                energy - e_min
            ),
        ));
    }
    Ok(vec![zmin[0] + r * c, zmin[1] + r * s])
}

/// The area enclosed by the level curve H = E around the minimum z*, which `level` samples:
/// in polar coordinates about z*, A = ½ ∫₀^{2π} r(φ)² dφ with r(φ) from `level_point` (full
/// f64 precision). The integrand is smooth and periodic, so the trapezoidal rule converges
/// geometrically (no turning-point singularity arises in this form); the node count doubles
/// until two estimates agree to 1e-15 relative. None when the level is not one closed curve
/// around the minimum or the rule has not converged to 1e-13 by 2^17 nodes (near a
/// separatrix): the caller then falls back to the step-0 polygon.
pub fn level_area(system: &System, energy: f64) -> Option<f64> {
    let tau = 2.0 * std::f64::consts::PI;
    let zmin = system.minimum()?;
    let r2 = |phi: f64| -> Option<f64> {
        let z = level_point(system, energy, phi).ok()?;
        Some((z[0] - zmin[0]).powi(2) + (z[1] - zmin[1]).powi(2))
    };
    let mut n = 16usize;
    let mut sum = 0.0;
    for k in 0..n {
        sum += r2(tau * k as f64 / n as f64)?;
    }
    let mut area = 0.5 * sum * tau / n as f64;
    while n < 1 << 17 {
        // The midpoints of the current rule's intervals.
        for k in 0..n {
            sum += r2(tau * (k as f64 + 0.5) / n as f64)?;
        }
        n *= 2;
        let next = 0.5 * sum * tau / n as f64;
        let diff = (next - area).abs();
        area = next;
        if diff <= 1e-15 * area && n >= 64 {
            return Some(area);
        }
        if n == 1 << 17 {
            return (diff <= 1e-13 * area).then_some(area);
        }
    }
    None
}

/// Golden-section search for the maximum of `g` in [a, c] (with a < b < c and g(b) ≥ g(a),
/// g(b) > g(c)), stopping at the first point where g > 0. Returns (a', x): g(x) > 0 and g < 0
/// at a', g rising on [a', x] (so the first crossing after a' is in [a', x]), or None when the
/// maximum stays ≤ 0.
fn exceeds_near_max(g: &dyn Fn(f64) -> f64, a: f64, b: f64, c: f64) -> Option<(f64, f64)> {
    let (mut lo, mut hi) = (a, c);
    let mut best = b;
    let mut g_best = g(b);
    let ratio = 0.5 * (5f64.sqrt() - 1.0);
    for _ in 0..200 {
        if g_best > 0.0 {
            return Some((lo, best));
        }
        // Probe the larger of the two sub-intervals around `best`.
        let x = if best - lo > hi - best {
            best - (1.0 - ratio) * (best - lo)
        } else {
            best + (1.0 - ratio) * (hi - best)
        };
        if x <= lo || x >= hi || x == best {
            break;
        }
        let gx = g(x);
        if gx > g_best {
            // The maximum moves to x; the side beyond `best` is cut off.
            if x < best {
                hi = best;
            } else {
                lo = best;
            }
            (best, g_best) = (x, gx);
        } else if x < best {
            lo = x;
        } else {
            hi = x;
        }
    }
    (g_best > 0.0).then_some((lo, best))
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::collections::BTreeMap;

    /// Issue 15, fault 3: near the pendulum's separatrix (E → 2) the march stepped over the
    /// narrow region around q = ±π where H > E and put points on periodic copies of the level
    /// (q = ±15.7, ±22.0), or found no crossing at all. Every point must lie on the level and
    /// inside the well |q| < π, and the loop enclose less than the separatrix's area 16.
    #[test]
    fn level_near_the_separatrix_stays_in_the_well() {
        let sys = System::new("pendulum", &BTreeMap::new()).unwrap();
        for e in [1.9999, 1.99999, 1.9999999] {
            let n = 2000;
            let s: State<f64> = level(&sys, e, n).unwrap();
            let mut area = 0.0;
            for i in 0..n {
                let h = sys.energy(0.01, &[s.q[i]], &[s.p[i]]);
                assert!((h - e).abs() < 1e-12, "E = {e}, point {i}: H = {h}");
                assert!(
                    s.q[i].abs() < std::f64::consts::PI,
                    "E = {e}, point {i}: q = {}",
                    s.q[i]
                );
                let j = (i + 1) % n;
                area += 0.5 * (s.q[i] * s.p[j] - s.q[j] * s.p[i]);
            }
            assert!(area > 15.0 && area < 16.0, "E = {e}: area {area}");
        }
        // The safety net: a point on a periodic copy of the level is refused.
        let mut ring: Vec<(f64, f64)> = (0..64)
            .map(|k| {
                let a = std::f64::consts::TAU * k as f64 / 64.0;
                (3.0 * a.cos(), 2.0 * a.sin())
            })
            .collect();
        assert!(check_level_loop(&ring).is_ok());
        ring[0] = (21.98, 0.0);
        assert!(check_level_loop(&ring)
            .unwrap_err()
            .contains("points 1 and 2"));
    }

    #[test]
    fn level_points_lie_on_the_level() {
        let sys = System::new("pendulum", &BTreeMap::new()).unwrap();
        let e = 1.0 - (std::f64::consts::PI / 6.0).cos();
        let s: State<f64> = level(&sys, e, 64).unwrap();
        for i in 0..64 {
            let h = sys.energy(0.01, &[s.q[i]], &[s.p[i]]);
            assert!((h - e).abs() < 1e-14, "point {i}: H = {h}");
        }
    }

    /// By the arithmetic–geometric mean: the complete elliptic integral K(k) and
    /// E(k) − (1 − k²)K(k) = K·(k²/2 − Σ_{n≥1} 2^{n−1} c_n²), a form without cancellation.
    fn ellip_k_and_area_term(k: f64) -> (f64, f64) {
        let (mut a, mut b) = (1.0, (1.0 - k * k).sqrt());
        let mut rest = 0.0;
        let mut pow2 = 0.5;
        for _ in 0..40 {
            let c = 0.5 * (a - b);
            let an = 0.5 * (a + b);
            b = (a * b).sqrt();
            a = an;
            pow2 *= 2.0;
            rest += pow2 * c * c;
            if c.abs() < 1e-17 * a {
                break;
            }
        }
        let kk = std::f64::consts::PI / (2.0 * a);
        (kk, kk * (0.5 * k * k - rest))
    }

    /// Issue 14: the level curve's area by quadrature against closed forms: the oscillator's
    /// 2πE·sqrt(m/k) and the pendulum's 16[E(k) − (1 − k²)K(k)], k² = E/2 (m = g = l = 1).
    #[test]
    fn level_area_matches_closed_forms() {
        let mut params = BTreeMap::new();
        params.insert("m".to_string(), 2.0);
        params.insert("k".to_string(), 0.5);
        let osc = System::new("oscillator", &params).unwrap();
        for e in [1e-3, 0.5, 3.0] {
            let a = level_area(&osc, e).unwrap();
            let exact = 2.0 * std::f64::consts::PI * e * (2.0f64 / 0.5).sqrt();
            assert!(
                (a / exact - 1.0).abs() < 1e-14,
                "oscillator E = {e}: {a} vs {exact}"
            );
        }
        let pend = System::new("pendulum", &BTreeMap::new()).unwrap();
        // The AGM reference: K(0) = π/2, and A → 2πE in the harmonic limit.
        assert_eq!(ellip_k_and_area_term(0.0).0, std::f64::consts::FRAC_PI_2);
        let small = 16.0 * ellip_k_and_area_term(1e-4).1;
        assert!((small / (2.0 * std::f64::consts::PI * 2e-8) - 1.0).abs() < 1e-7);
        for e in [0.01, 0.3, 1.0, 1.5, 1.9] {
            let k = (e / 2.0f64).sqrt();
            let exact = 16.0 * ellip_k_and_area_term(k).1;
            let a = level_area(&pend, e).unwrap();
            assert!(
                (a / exact - 1.0).abs() < 1e-14,
                "pendulum E = {e}: {a} vs {exact}"
            );
        }
    }

    #[test]
    fn level_above_separatrix_is_rejected() {
        let sys = System::new("pendulum", &BTreeMap::new()).unwrap();
        assert!(level::<f64>(&sys, 2.5, 8).is_err());
    }
}
