//! The continuous Legendre transform of a Lagrangian run's points: the velocity v with
//! ∂L/∂v(q, v) = p by Newton's method (`velocity`; `LagrangianSystem` refuses initial states
//! where it fails), and the energy E = v·∂L/∂v − L there (`energy`, `energies`: the
//! statistics' energy column). The step (`step.rs`) works in (q, p) and needs neither.
//! Where L = ½vᵀMv + c·v − U(q) with M and c constant (`explicit::ConstantMass`), the
//! transform is linear, v = M⁻¹(p − c), and the energy takes it in one solve.

use super::explicit::ConstantMass;
use super::step::solve;
use crate::expr::ExprHamiltonian;
use crate::float::Real;

/// The velocity v with ∂L/∂v(q, v) = p (the continuous Legendre transform inverted) of one
/// point, by Newton's method from v = 0 with the Hessian ∂²L/∂v², in f64: `Err` with the
/// reason where the Hessian is singular on the way or the iteration does not settle.
pub fn velocity(l: &ExprHamiltonian, q: &[f64], p: &[f64]) -> Result<Vec<f64>, String> {
    let d = l.dof;
    let mut v = vec![0.0; d];
    let mut r = vec![0.0; d];
    for _ in 0..64 {
        l.grad_p(q, &v, &mut r);
        for (r, p) in r.iter_mut().zip(p) {
            *r -= p;
        }
        let mut a = hessian(l, q, &v);
        if velocity_move(&mut a, &mut r, d, v.iter_mut())? {
            return Ok(v);
        }
    }
    Err(UNSETTLED.into())
}

/// Why `velocity` failed where its iterates did not settle.
const UNSETTLED: &str = "Newton's method for the velocity of ∂L/∂v = p did not settle";

/// One iteration of `velocity` for one point (also `energies`'): v (its d components in
/// order) moved by −a⁻¹b, for the Hessian ∂²L/∂v² `a` (by rows) and the residual
/// b = ∂L/∂v − p. Ok(true) where the move is within rounding of v (settled); `Err` with the
/// reason where `a` is singular or the iterate is not finite.
fn velocity_move<'a>(
    a: &mut [f64],
    b: &mut [f64],
    d: usize,
    v: impl Iterator<Item = &'a mut f64>,
) -> Result<bool, String> {
    if let Some(why) = singular(a, d) {
        return Err(why);
    }
    solve(a, b, d);
    let (mut moved, mut size) = (0.0f64, 0.0f64);
    for (v, delta) in v.zip(b.iter()) {
        *v -= delta;
        moved = moved.max(delta.abs());
        size = size.max(v.abs());
    }
    if !(moved.is_finite() && size.is_finite()) {
        return Err(UNSETTLED.into());
    }
    Ok(moved <= 4.0 * f64::EPSILON * size)
}

/// The velocity Hessian ∂²L/∂v² of one point, by rows (`hessians` of a block of one).
pub fn hessian(l: &ExprHamiltonian, q: &[f64], v: &[f64]) -> Vec<f64> {
    let mut a = vec![0.0; l.dof * l.dof];
    hessians(l, q, v, &mut a);
    a
}

/// ∂²L/∂v² of every point of a component-major block (q, v): column k is L_v's derivative
/// along the unit vector e_k; `out[(r·d + k)·m + i]` is row r, column k of point i's.
fn hessians(l: &ExprHamiltonian, q: &[f64], v: &[f64], out: &mut [f64]) {
    let (d, m) = (l.dof, q.len() / l.dof);
    let zero = vec![0.0; d * m];
    let (mut unit, mut column) = (zero.clone(), zero.clone());
    for k in 0..d {
        unit.fill(0.0);
        unit[k * m..(k + 1) * m].fill(1.0);
        l.grad_p_dir(q, v, &zero, &unit, &mut column);
        for r in 0..d {
            out[(r * d + k) * m..][..m].copy_from_slice(&column[r * m..][..m]);
        }
    }
}

/// Why the d×d matrix `a` (by rows) is singular to working precision, or None: a pivot of
/// Gaussian elimination below 1e-12 times the largest entry.
pub fn singular(a: &[f64], d: usize) -> Option<String> {
    let largest = a.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    if !(largest.is_finite() && largest > 0.0) {
        return Some(format!(
            "∂²L/∂v² is {}",
            if largest == 0.0 { "zero" } else { "not finite" }
        ));
    }
    let mut m = a.to_vec();
    for col in 0..d {
        let pivot = (col..d)
            .max_by(|&x, &y| m[x * d + col].abs().total_cmp(&m[y * d + col].abs()))
            .unwrap_or(col);
        for k in 0..d {
            m.swap(col * d + k, pivot * d + k);
        }
        let x = m[col * d + col];
        // NaN is singular too.
        if x.abs().partial_cmp(&(1e-12 * largest)) != Some(std::cmp::Ordering::Greater) {
            return Some(format!(
                "∂²L/∂v² has rank {col} of {d} (Gaussian elimination's pivot {x:.3e} against its largest entry {largest:.3e})"
            ));
        }
        for r in col + 1..d {
            let f = m[r * d + col] / x;
            for k in col..d {
                m[r * d + k] -= f * m[col * d + k];
            }
        }
    }
    None
}

/// Where a point of `energies` stands in `velocity`'s iteration.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Solve {
    Running,
    Settled,
    Failed,
}

/// `energy` of the points `first..first + out.len()` of a component-major block of `n`
/// points (components k ≥ d not read), all at once: `velocity`'s Newton iterations run on
/// them together, L's derivatives evaluated once per iteration for all of them, and a point
/// stops iterating where `velocity` returns (settled, a singular Hessian, a non-finite
/// iterate), so each takes exactly `velocity`'s iterates and gets `energy`'s value bit for
/// bit. Evaluated point by point, with a vector or two allocated per call, the energy was 86 %
/// of a Lagrangian run of 200 steps (its statistics at every snapshot); a non-finite point is
/// NaN, as `system::energy_per_point` makes it.
pub fn energies<T: Real>(
    l: &ExprHamiltonian,
    mass: Option<&ConstantMass>,
    q: &[T],
    p: &[T],
    n: usize,
    first: usize,
    out: &mut [f64],
) {
    let (d, m) = (l.dof, out.len());
    let gather = |x: &[T]| -> Vec<f64> {
        let mut v = Vec::with_capacity(d * m);
        for k in 0..d {
            v.extend(x[k * n + first..][..m].iter().map(|v| v.to_f64()));
        }
        v
    };
    let (q, p) = (gather(q), gather(p));
    let mut state: Vec<Solve> = (0..m)
        .map(
            |i| match (0..d).all(|k| q[k * m + i].is_finite() && p[k * m + i].is_finite()) {
                true => Solve::Running,
                false => Solve::Failed,
            },
        )
        .collect();
    let v = match mass {
        Some(mass) => {
            // One solve, v = M⁻¹(p − c), where Newton's method took two iterations of the
            // Hessian and a solve (the second confirming the first).
            let mut v = p;
            mass.velocities(&mut vec![0.0; d * d], &mut v);
            for (i, s) in state.iter_mut().enumerate() {
                if *s == Solve::Running {
                    *s = match (0..d).all(|k| v[k * m + i].is_finite()) {
                        true => Solve::Settled,
                        false => Solve::Failed,
                    };
                }
            }
            v
        }
        None => velocities(l, &q, &p, &mut state),
    };
    let mut r = vec![0.0; d * m];
    l.grad_p(&q, &v, &mut r);
    l.energy_block(&q, &v, m, 0, out);
    for (i, (e, s)) in out.iter_mut().zip(&state).enumerate() {
        *e = match s {
            Solve::Settled => (0..d).map(|k| v[k * m + i] * r[k * m + i]).sum::<f64>() - *e,
            _ => f64::NAN,
        };
    }
}

/// `velocity`'s iterations for the m points of a component-major block (q, p) together, from
/// `state` (the points not `Running` are not moved), to where each stops alone: the
/// velocities, and each point's `state` updated.
fn velocities(l: &ExprHamiltonian, q: &[f64], p: &[f64], state: &mut [Solve]) -> Vec<f64> {
    let (d, m) = (l.dof, state.len());
    let z = || vec![0.0; d * m];
    let (mut v, mut r) = (z(), z());
    let mut hess = vec![0.0; d * d * m];
    let (mut a, mut b) = (vec![0.0; d * d], vec![0.0; d]);
    for _ in 0..64 {
        if !state.contains(&Solve::Running) {
            break;
        }
        l.grad_p(q, &v, &mut r);
        hessians(l, q, &v, &mut hess);
        for (i, s) in state.iter_mut().enumerate() {
            if *s != Solve::Running {
                continue;
            }
            for (e, x) in a.iter_mut().enumerate() {
                *x = hess[e * m + i];
            }
            for (k, x) in b.iter_mut().enumerate() {
                *x = r[k * m + i] - p[k * m + i];
            }
            *s = match velocity_move(&mut a, &mut b, d, v.iter_mut().skip(i).step_by(m)) {
                Ok(true) => Solve::Settled,
                Ok(false) => Solve::Running,
                Err(_) => Solve::Failed,
            };
        }
    }
    v
}

/// The energy E = v·∂L/∂v − L of one point (q, p), at the velocity of its continuous
/// Legendre image (`velocity`); NaN where there is none.
pub fn energy(l: &ExprHamiltonian, mass: Option<&ConstantMass>, q: &[f64], p: &[f64]) -> f64 {
    let mut out = [0.0];
    energies(l, mass, q, p, 1, 0, &mut out);
    out[0]
}
