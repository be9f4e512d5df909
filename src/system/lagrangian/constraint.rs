//! Holonomic constraints g(q) = 0 of a Lagrangian system (`--constraint`, repeatable): the
//! constrained discrete Euler–Lagrange equations in position–momentum form, with Lagrange
//! multipliers, in the structure of RATTLE (Marsden & West, "Discrete mechanics and
//! variational integrators", §3.5; Hairer, Lubich & Wanner, "Geometric numerical
//! integration", §VII.1). From (q0, p0), with q0 on the constraints and p0 on their tangent
//! space, the step solves
//!
//! ```text
//! p0 + D₁L_d(q0, q1) − ∇g(q0)ᵀκ/h = 0,   g(q1) = 0                 for (q1, κ),
//! p̃1 = p0 − ∇g(q0)ᵀκ/h + D₁L_d + D₂L_d   (= D₂L_d(q0, q1) there),
//! p1 = p̃1 − ∇g(q1)ᵀμ,  ∂L/∂v(q1, v1) = p1,  ∇g(q1) v1 = 0          for (v1, μ),
//! ```
//!
//! each by Newton's method with the exact Jacobian (the multiplier κ = hλ moves q1 by about
//! as much as it moves, so the solve's test of settled increments, made for positions, holds
//! for it at every h: λ itself rounds at ε/h), and the positions stay on g = 0 and the
//! momenta on the hidden constraint (the velocity tangent to it), and the map is symplectic
//! on that manifold (Σ ∮ p dq of a loop on it is kept). The m constraints are compiled as
//! one formula C(q, μ) = Σⱼ μⱼ gⱼ(q), μ in the momenta's place (`Holonomic::c`), so its
//! gradients are what the step needs: ∂C/∂q = ∇g(q)ᵀμ, ∂C/∂μ = g(q), and the derivative of
//! ∂C/∂μ along δq is ∇g(q) δq.
//!
//! Constraints take a one-segment discrete Lagrangian (left, right, midpoint, trapezoid): a
//! Galerkin path constrained at its ends only would leave the constraint between them and
//! fall to order 2 (`LagrangianSystem::new` refuses the pair).

use std::collections::BTreeMap;

use super::equations::{add_kick, add_rows, add_rows_dir, Scratch};
use super::step::{lend, solve, update};
use super::Discretization;
use crate::error::{Field, Result};
use crate::expr::ExprHamiltonian;
use crate::float::Real;
use crate::invalid;
use crate::system::Newton;

/// The constraints g₁(q) = 0, …, g_m(q) = 0, compiled.
#[derive(Debug, Clone)]
pub struct Holonomic {
    /// The formulas as given.
    pub formulas: Vec<String>,
    /// m, fewer than the degrees of freedom.
    pub m: usize,
    /// C(q, μ) = Σⱼ μⱼ gⱼ(q), with μ in p's place (μⱼ = 0 for j ≥ m).
    pub c: ExprHamiltonian,
}

impl Holonomic {
    /// Compile the constraints of a system of `d` degrees of freedom, refusing one that reads
    /// a velocity or no position, and m ≥ d (nothing would be left to move).
    pub fn new(formulas: &[String], params: &BTreeMap<String, f64>, d: usize) -> Result<Holonomic> {
        let bad = |text: &str, why: String| {
            invalid!(Field::Constraint;
                Field::Constraint.is(text),
                format!(": {why}; a holonomic constraint is a formula g(q) in q1..q{d} that the motion keeps at 0, e.g. "),
                Field::Constraint.is(if d >= 3 { "q1^2 + q2^2 + q3^2 - 1" } else { "q1^2 + q2^2 - 1" })
            )
        };
        if formulas.len() >= d {
            let m = formulas.len();
            return Err(invalid!(Field::Constraint;
                Field::Constraint.is(formulas.join("; ")),
                format!(
                    ": {m} constraint{} on {d} degree{} of freedom leave nothing to move; give fewer constraints than degrees of freedom (a pendulum in the plane: 2 coordinates, 1 constraint)",
                    if m == 1 { "" } else { "s" },
                    if d == 1 { "" } else { "s" }
                )
            ));
        }
        let mut terms = Vec::with_capacity(formulas.len());
        for (j, text) in formulas.iter().enumerate() {
            let g = ExprHamiltonian::lagrangian(text, params, Some(d))
                .map_err(|e| bad(text, e.to_string()))?;
            if g.uses_second() {
                return Err(bad(text, "it depends on a velocity".into()));
            }
            if !g.uses_first() {
                return Err(bad(text, "it does not depend on q".into()));
            }
            // The sum below reads p1..pd as the multipliers: a parameter of that name would be
            // read as one.
            if let Some(name) = g.used_params.iter().find(|n| is_momentum_name(n)) {
                return Err(bad(
                    text,
                    format!("its parameter '{name}' has the name of a momentum; rename it"),
                ));
            }
            terms.push(format!("p{}*({text})", j + 1));
        }
        let c = ExprHamiltonian::new(&terms.join(" + "), params, Some(d))
            .map_err(|e| bad(&formulas.join("; "), e.to_string()))?;
        Ok(Holonomic {
            formulas: formulas.to_vec(),
            m: formulas.len(),
            c,
        })
    }

    /// max over j of |gⱼ(q)| of one point.
    pub fn error(&self, q: &[f64]) -> f64 {
        let mut g = vec![0.0; q.len()];
        self.c.grad_p(q, &vec![0.0; q.len()], &mut g);
        g[..self.m].iter().fold(0.0, |e: f64, x| e.max(x.abs()))
    }

    /// ∇gⱼ of a block's configurations q, for every j: `normals[j·nd..]` (`pad`: d·n values
    /// of work space).
    fn normals<T: Real>(&self, q: &[T], pad: &mut [T], normals: &mut [T]) {
        let (nd, n) = (q.len(), q.len() / self.c.dof);
        for (j, out) in normals.chunks_exact_mut(nd).enumerate() {
            pad.fill(T::ZERO);
            pad[j * n..][..n].fill(T::ONE);
            self.c.grad_q(q, pad, out);
        }
    }

    /// Put one point on the constraints (q by Newton's method for the nearest point,
    /// q ← q − ∇gᵀ(∇g∇gᵀ)⁻¹g, until it settles) and its momentum on their tangent space
    /// (`momenta`, from the velocity `v`, the Legendre image of p); `Err` with the reason
    /// where either fails.
    pub fn project(
        &self,
        l: &ExprHamiltonian,
        q: &mut [f64],
        p: &mut [f64],
        v: &[f64],
    ) -> std::result::Result<(), String> {
        let (d, m) = (q.len(), self.m);
        let (mut g, mut pad, mut normals) = (vec![0.0; d], vec![0.0; d], vec![0.0; m * d]);
        let mut settled = false;
        for _ in 0..64 {
            self.c.grad_p(q, &vec![0.0; d], &mut g);
            self.normals(q, &mut pad, &mut normals);
            let mut a: Vec<f64> = (0..m * m)
                .map(|e| {
                    (0..d)
                        .map(|k| normals[e / m * d + k] * normals[e % m * d + k])
                        .sum()
                })
                .collect();
            let mut kappa = g[..m].to_vec();
            solve(&mut a, &mut kappa, m);
            let (mut moved, mut size) = (0.0f64, 0.0f64);
            for k in 0..d {
                let delta: f64 = (0..m).map(|j| normals[j * d + k] * kappa[j]).sum();
                q[k] -= delta;
                moved = moved.max(delta.abs());
                size = size.max(q[k].abs());
            }
            if !(moved.is_finite() && size.is_finite()) {
                return Err("the constraints' gradients ∇g are dependent or zero there, so no nearest point on them was found".into());
            }
            if moved <= 4.0 * f64::EPSILON * (1.0 + size) {
                settled = true;
                break;
            }
        }
        if !settled {
            return Err("Newton's method for the nearest point on the constraints did not settle: is g(q) = 0 reachable from there?".into());
        }
        let mut unconverged = [0u32];
        let newton = Newton {
            tol: 4.0 * f64::EPSILON,
            max_iter: 64,
        };
        with_work(l, self, 1, |w| {
            w.x[..d].copy_from_slice(v);
            w.capped.fill(false);
            momenta(l, self, q, p, newton, &mut unconverged, w);
        });
        match unconverged[0] == 0 && p.iter().all(|x| x.is_finite()) {
            true => Ok(()),
            false => Err("the momentum could not be put on the constraints' tangent space (Newton's method did not settle)".into()),
        }
    }
}

/// Whether `name` is p followed by digits.
fn is_momentum_name(name: &str) -> bool {
    name.strip_prefix('p')
        .is_some_and(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()))
}

/// What the constrained step works in, kept by each thread (`step::lend`); every value is
/// written before it is read in each call.
struct Work<T> {
    q0: Vec<T>,
    /// The unknowns, (q1, λ) then (v1, μ): u = d + m a point, component-major.
    x: Vec<T>,
    f: Vec<T>,
    jac: Vec<T>,
    s: Scratch<T>,
    /// d·n values: zeros (never written), a unit direction, a column, multipliers padded
    /// with zeros to d components, a gradient.
    zero: Vec<T>,
    unit: Vec<T>,
    column: Vec<T>,
    pad: Vec<T>,
    out: Vec<T>,
    /// ∇gⱼ at q0 and at q1 (m·d·n each).
    normals0: Vec<T>,
    normals1: Vec<T>,
    a: Vec<T>,
    b: Vec<T>,
    active: Vec<bool>,
    /// The points whose position solve did not settle: counted once per step.
    capped: Vec<bool>,
}

/// `work` given this thread's buffers for n points of `l` under `hol`.
fn with_work<T: Real, R>(
    l: &ExprHamiltonian,
    hol: &Holonomic,
    n: usize,
    work: impl FnOnce(&mut Work<T>) -> R,
) -> R {
    let (d, m) = (l.dof, hol.m);
    let (u, nd) = (d + m, d * n);
    let make = || {
        let z = |len: usize| vec![T::ZERO; len];
        Work {
            q0: z(nd),
            x: z(u * n),
            f: z(u * n),
            jac: z(u * u * n),
            s: Scratch::new(nd),
            zero: z(nd),
            unit: z(nd),
            column: z(nd),
            pad: z(nd),
            out: z(nd),
            normals0: z(m * nd),
            normals1: z(m * nd),
            a: z(u * u),
            b: z(u),
            active: vec![true; n],
            capped: vec![false; n],
        }
    };
    let fits = |w: &Work<T>| w.b.len() == u && w.q0.len() == nd && w.active.len() == n;
    lend(fits, make, work)
}

/// One constrained step of a block's points (q, p component-major), in place.
#[allow(clippy::too_many_arguments)]
pub fn step<T: Real>(
    l: &ExprHamiltonian,
    hol: &Holonomic,
    rule: Discretization,
    h: T,
    q: &mut [T],
    p: &mut [T],
    newton: Newton,
    unconverged: &mut [u32],
) {
    let (nd, n, m) = (q.len(), q.len() / l.dof, hol.m);
    with_work(l, hol, n, |w| {
        w.q0.copy_from_slice(q);
        positions(l, hol, rule, h, p, newton, unconverged, w);
        // p̃1 = p0 − ∇g(q0)ᵀκ/h + h Σᵢ wᵢ L_q: D₂L_d(q0, q1) where the rows hold (`step.rs`).
        w.pad[..m * n].copy_from_slice(&w.x[nd..]);
        hol.c.grad_q(&w.q0, &w.pad, &mut w.out);
        for (p, &f) in p.iter_mut().zip(&w.out) {
            *p -= f / h;
        }
        q.copy_from_slice(&w.x[..nd]);
        add_kick(l, rule, h, (&w.q0, q), None, &mut w.s, p);
        // The velocity's first guess: the chord's.
        for ((v, &a), &b) in w.x.iter_mut().zip(&w.q0).zip(q.iter()) {
            *v = (b - a) / h;
        }
        momenta(l, hol, q, p, newton, unconverged, w);
    })
}

/// (q1, κ) solved into `w.x` from (q0 = `w.q0`, p0): q1 starts at q0, κ at 0.
#[allow(clippy::too_many_arguments)]
fn positions<T: Real>(
    l: &ExprHamiltonian,
    hol: &Holonomic,
    rule: Discretization,
    h: T,
    p0: &[T],
    newton: Newton,
    unconverged: &mut [u32],
    w: &mut Work<T>,
) {
    let (d, m, nd) = (l.dof, hol.m, w.q0.len());
    let (n, u) = (nd / d, d + m);
    let Work {
        q0,
        x,
        f,
        jac,
        s,
        zero,
        unit,
        column,
        pad,
        out,
        normals0,
        normals1,
        a,
        b,
        active,
        ..
    } = w;
    x[..nd].copy_from_slice(q0);
    x[nd..].fill(T::ZERO);
    active.fill(true);
    hol.normals(q0, pad, normals0);
    let tol = T::from_f64(newton.tol);
    for _ in 0..newton.max_iter {
        let (q1, kappa) = x.split_at(nd);
        // Rows 0..d: p0 + D₁L_d(q0, q1) − ∇g(q0)ᵀκ/h; rows d..d + m: g(q1).
        f[..nd].copy_from_slice(p0);
        add_rows(l, rule, h, (q0, q1), s, &mut f[..nd]);
        pad[..m * n].copy_from_slice(kappa);
        hol.c.grad_q(q0, pad, out);
        for (f, &g) in f.iter_mut().zip(out.iter()) {
            *f -= g / h;
        }
        hol.c.grad_p(q1, zero, out);
        f[nd..].copy_from_slice(&out[..m * n]);
        hol.normals(q1, pad, normals1);
        for k in 0..d {
            unit.fill(T::ZERO);
            unit[k * n..][..n].fill(T::ONE);
            column.fill(T::ZERO);
            add_rows_dir(l, rule, h, (q0, q1), (zero, unit), s, column);
            for r in 0..d {
                jac[(r * u + k) * n..][..n].copy_from_slice(&column[r * n..][..n]);
            }
        }
        border(jac, (normals1, normals0), -h, (d, m, n));
        if !update(jac, f, x, active, (a, b), tol) {
            break;
        }
    }
    super::step::count(active, unconverged);
    w.capped.copy_from_slice(&w.active);
}

/// p (p̃1 on entry) put on the tangent space of the constraints at q (the block's q1):
/// (v, μ) solved into `w.x` from v = `w.x[..nd]` (the caller's guess) and μ = 0, then
/// p − ∇g(q)ᵀμ.
fn momenta<T: Real>(
    l: &ExprHamiltonian,
    hol: &Holonomic,
    q: &[T],
    p: &mut [T],
    newton: Newton,
    unconverged: &mut [u32],
    w: &mut Work<T>,
) {
    let (d, m, nd) = (l.dof, hol.m, q.len());
    let (n, u) = (nd / d, d + m);
    let Work {
        x,
        f,
        jac,
        zero,
        unit,
        column,
        pad,
        out,
        normals1: normals,
        a,
        b,
        active,
        capped,
        ..
    } = w;
    x[nd..].fill(T::ZERO);
    active.fill(true);
    hol.normals(q, pad, normals);
    let tol = T::from_f64(newton.tol);
    for _ in 0..newton.max_iter {
        let (v, mu) = x.split_at(nd);
        // Rows 0..d: ∂L/∂v(q, v) − p + ∇g(q)ᵀμ; rows d..d + m: ∇g(q) v.
        l.grad_p(q, v, &mut f[..nd]);
        pad[..m * n].copy_from_slice(mu);
        hol.c.grad_q(q, pad, out);
        for ((f, &p), &g) in f.iter_mut().zip(p.iter()).zip(out.iter()) {
            *f = *f - p + g;
        }
        hol.c.grad_p_dir(q, zero, v, zero, out);
        f[nd..].copy_from_slice(&out[..m * n]);
        for k in 0..d {
            unit.fill(T::ZERO);
            unit[k * n..][..n].fill(T::ONE);
            l.grad_p_dir(q, v, zero, unit, column);
            for r in 0..d {
                jac[(r * u + k) * n..][..n].copy_from_slice(&column[r * n..][..n]);
            }
        }
        border(jac, (normals, normals), T::ONE, (d, m, n));
        if !update(jac, f, x, active, (a, b), tol) {
            break;
        }
    }
    for ((u, &on), &capped) in unconverged.iter_mut().zip(active.iter()).zip(capped.iter()) {
        *u += u32::from(on && !capped);
    }
    pad[..m * n].copy_from_slice(&x[nd..]);
    hol.c.grad_q(q, pad, out);
    for (p, &g) in p.iter_mut().zip(out.iter()) {
        *p -= g;
    }
}

/// The constraints' border of a block's Jacobians of u = d + m unknowns: rows d + j are
/// ∇gⱼ at `rows` (`normals` layout), columns d + j are ∇gⱼ at `columns` divided by
/// `divisor` (−h: −∇g/h exactly, as WGSL computes it), the m×m corner 0.
fn border<T: Real>(
    jac: &mut [T],
    (rows, columns): (&[T], &[T]),
    divisor: T,
    (d, m, n): (usize, usize, usize),
) {
    let (u, nd) = (d + m, d * n);
    for j in 0..m {
        for k in 0..d {
            let normal = &rows[j * nd + k * n..][..n];
            jac[((d + j) * u + k) * n..][..n].copy_from_slice(normal);
            let normal = &columns[j * nd + k * n..][..n];
            for (y, &g) in jac[(k * u + d + j) * n..][..n].iter_mut().zip(normal) {
                *y = g / divisor;
            }
        }
        for r in 0..m {
            jac[((d + r) * u + d + j) * n..][..n].fill(T::ZERO);
        }
    }
}
