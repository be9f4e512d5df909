//! The discrete Euler–Lagrange equations of a discrete Lagrangian by quadrature over a
//! polynomial path, for the points of a block (Marsden & West, "Discrete mechanics and
//! variational integrators", §2.6, the Galerkin discrete Lagrangians). The path q(τh),
//! τ ∈ [0, 1], is the polynomial of degree s through s + 1 control points Q⁰ = q0, Q¹, …,
//! Qˢ = q1 at τ = ν/s, and
//!
//! ```text
//! L_d(Q⁰, …, Qˢ) = h Σᵢ wᵢ L(q(cᵢh), q̇(cᵢh)),   q(cᵢh) = Σ_ν ℓ_ν(cᵢ) Q^ν,   q̇(cᵢh) = Σ_ν ℓ'_ν(cᵢ) Q^ν / h
//! G_ν = ∂L_d/∂Q^ν = Σᵢ wᵢ [h ℓ_ν(cᵢ) L_q + ℓ'_ν(cᵢ) L_v]   at (q(cᵢh), q̇(cᵢh))
//! ```
//!
//! with ℓ_ν the Lagrange basis (`Stage`). The step solves p0 + G₀ = 0 and G_ν = 0 for
//! ν = 1, …, s − 1 (the interior control points make L_d stationary) for the unknowns
//! X = (Q¹, …, Qˢ), and p1 = Gₛ = p0 + Σ_ν G_ν = p0 + h Σᵢ wᵢ L_q (Σ_ν ℓ_ν = 1, Σ_ν ℓ'_ν = 0).
//! For s = 1, ℓ = (1 − c, c) and ℓ' = (−1, 1): the rules of one segment (`left` … `trapezoid`),
//! computed as before bit for bit (Q = (1 − c) q0 + c q1 with the ends exact, V = (q1 − q0)/h).
//!
//! Blocks are component-major (`x[k·n + i]`); X holds its s control points one after another
//! (d·n values each); the residual rows likewise, row ν of G at `ν·d·n`.

use super::discretization::Stage;
use super::Discretization;
use crate::expr::ExprHamiltonian;
use crate::float::Real;

/// Control point ν (Q⁰ = q0, then X's) of a block of `nd` values.
fn control<'a, T>(q0: &'a [T], x: &'a [T], nu: usize) -> &'a [T] {
    let nd = q0.len();
    match nu {
        0 => q0,
        _ => &x[(nu - 1) * nd..][..nd],
    }
}

/// The buffers one evaluation works in (d·n values each).
pub(super) struct Scratch<T> {
    at: Vec<T>,
    vel: Vec<T>,
    gq: Vec<T>,
    gv: Vec<T>,
    dq: Vec<T>,
    dv: Vec<T>,
}

impl<T: Real> Scratch<T> {
    pub fn new(nd: usize) -> Self {
        let z = || vec![T::ZERO; nd];
        Scratch {
            at: z(),
            vel: z(),
            gq: z(),
            gv: z(),
            dq: z(),
            dv: z(),
        }
    }

    /// q(cᵢh) and q̇(cᵢh) of the block at `stage`: the terms with a non-zero coefficient
    /// summed in order, a coefficient 1 alone giving the control point itself (a node at an
    /// end reads that end exactly, whatever the others hold).
    fn node(&mut self, stage: &Stage, h: T, q0: &[T], x: &[T]) {
        if stage.value.len() == 2 {
            // One segment: (1 − c) q0 + c q1 and (q1 − q0)/h, as the WGSL `lag_point` and
            // `lag_velocity` compute them.
            let (a, b) = (T::from_f64(stage.value[0]), T::from_f64(stage.value[1]));
            let q1 = control(q0, x, 1);
            for (((at, v), &x0), &x1) in self.at.iter_mut().zip(&mut self.vel).zip(q0).zip(q1) {
                *at = if stage.value[1] == 0.0 {
                    x0
                } else if stage.value[0] == 0.0 {
                    x1
                } else {
                    a * x0 + b * x1
                };
                *v = (x1 - x0) / h;
            }
            return;
        }
        for (out, coefficients) in [(&mut self.at, &stage.value), (&mut self.vel, &stage.slope)] {
            let mut first = true;
            for (nu, &c) in coefficients.iter().enumerate().filter(|(_, c)| **c != 0.0) {
                let (src, c) = (control(q0, x, nu), T::from_f64(c));
                for (o, &y) in out.iter_mut().zip(src) {
                    *o = match first {
                        true => c * y,
                        false => *o + c * y,
                    };
                }
                first = false;
            }
        }
        for v in &mut self.vel {
            *v = *v / h;
        }
    }

    /// The direction of q(cᵢh) and q̇(cᵢh) along control-point directions (δQ⁰ = `d0`, δX =
    /// `dx`): every term summed in order (directions are finite), (δ¹ − δ⁰)/h for one segment.
    fn node_dir(&mut self, stage: &Stage, h: T, d0: &[T], dx: &[T]) {
        if stage.value.len() == 2 {
            let (a0, a1) = (T::from_f64(stage.value[0]), T::from_f64(stage.value[1]));
            let d1 = control(d0, dx, 1);
            for (((dq, dv), &x0), &x1) in self.dq.iter_mut().zip(&mut self.dv).zip(d0).zip(d1) {
                *dq = a0 * x0 + a1 * x1;
                *dv = (x1 - x0) / h;
            }
            return;
        }
        for (out, coefficients) in [(&mut self.dq, &stage.value), (&mut self.dv, &stage.slope)] {
            for (nu, &c) in coefficients.iter().enumerate() {
                let (src, c) = (control(d0, dx, nu), T::from_f64(c));
                for (o, &y) in out.iter_mut().zip(src) {
                    *o = match nu {
                        0 => c * y,
                        _ => *o + c * y,
                    };
                }
            }
        }
        for v in &mut self.dv {
            *v = *v / h;
        }
    }
}

/// rows += G₀, …, G_{s−1} of the block (rows: s·d·n values, row ν at ν·d·n), at the control
/// points (q0, X): Σᵢ wᵢ [a L_q + b L_v] with a = h ℓ_ν(cᵢ), b = ℓ'_ν(cᵢ).
pub(super) fn add_rows<T: Real>(
    l: &ExprHamiltonian,
    rule: Discretization,
    h: T,
    (q0, x): (&[T], &[T]),
    s: &mut Scratch<T>,
    rows: &mut [T],
) {
    let nd = q0.len();
    for stage in rule.stages() {
        s.node(stage, h, q0, x);
        l.grad_q(&s.at, &s.vel, &mut s.gq);
        l.grad_p(&s.at, &s.vel, &mut s.gv);
        add_terms(stage, h, (&s.gq, &s.gv), rows, nd);
    }
}

/// rows += the derivative of G₀, …, G_{s−1} along (δQ⁰, δX) = (`d0`, `dx`), at (q0, X).
#[allow(clippy::too_many_arguments)]
pub(super) fn add_rows_dir<T: Real>(
    l: &ExprHamiltonian,
    rule: Discretization,
    h: T,
    (q0, x): (&[T], &[T]),
    (d0, dx): (&[T], &[T]),
    s: &mut Scratch<T>,
    rows: &mut [T],
) {
    let nd = q0.len();
    for stage in rule.stages() {
        s.node(stage, h, q0, x);
        s.node_dir(stage, h, d0, dx);
        l.grad_q_dir(&s.at, &s.vel, &s.dq, &s.dv, &mut s.gq);
        l.grad_p_dir(&s.at, &s.vel, &s.dq, &s.dv, &mut s.gv);
        add_terms(stage, h, (&s.gq, &s.gv), rows, nd);
    }
}

/// Row ν += w (h ℓ_ν L_q + ℓ'_ν L_v) of one stage, for each of the s residual rows.
fn add_terms<T: Real>(stage: &Stage, h: T, (gq, gv): (&[T], &[T]), rows: &mut [T], nd: usize) {
    let w = T::from_f64(stage.w);
    for (row, out) in rows.chunks_exact_mut(nd).enumerate() {
        let a = h * T::from_f64(stage.value[row]);
        let b = T::from_f64(stage.slope[row]);
        for ((o, &gq), &gv) in out.iter_mut().zip(gq).zip(gv) {
            *o += w * (a * gq + b * gv);
        }
    }
}

/// out += h Σᵢ wᵢ L_q at (q0, X) (p1 − p0 where the rows vanish), or, with directions
/// (`dirs`: δQ⁰, δX), its derivative along them.
pub(super) fn add_kick<T: Real>(
    l: &ExprHamiltonian,
    rule: Discretization,
    h: T,
    (q0, x): (&[T], &[T]),
    dirs: Option<(&[T], &[T])>,
    s: &mut Scratch<T>,
    out: &mut [T],
) {
    for stage in rule.stages() {
        s.node(stage, h, q0, x);
        match dirs {
            Some((d0, dx)) => {
                s.node_dir(stage, h, d0, dx);
                l.grad_q_dir(&s.at, &s.vel, &s.dq, &s.dv, &mut s.gq);
            }
            None => l.grad_q(&s.at, &s.vel, &mut s.gq),
        }
        let w = T::from_f64(stage.w);
        for (o, &gq) in out.iter_mut().zip(&s.gq) {
            *o += w * (h * gq);
        }
    }
}

/// The Jacobian ∂(G₀, …, G_{s−1})/∂X of every point of the block, u = s·d unknowns:
/// `jac[(r·u + k)·n + i]` is row r, column k of point i's; `unit` and `column` are s·d·n
/// values of work space, `zero` d·n zeros (δQ⁰ = 0).
#[allow(clippy::too_many_arguments)]
pub(super) fn jacobian<T: Real>(
    l: &ExprHamiltonian,
    rule: Discretization,
    h: T,
    (q0, x): (&[T], &[T]),
    s: &mut Scratch<T>,
    (zero, unit, column): (&[T], &mut [T], &mut [T]),
    jac: &mut [T],
) {
    let (d, nd) = (l.dof, q0.len());
    let (n, u) = (nd / d, rule.degree() * d);
    for k in 0..u {
        unit.fill(T::ZERO);
        unit[k * n..(k + 1) * n].fill(T::ONE);
        column.fill(T::ZERO);
        add_rows_dir(l, rule, h, (q0, x), (zero, unit), s, column);
        for r in 0..u {
            jac[(r * u + k) * n..][..n].copy_from_slice(&column[r * n..][..n]);
        }
    }
}
