//! The step of a Lagrangian L = ½vᵀMv + c·v − U(q) whose mass matrix M and offset c are
//! constant (`ConstantMass`, found from the formula's symbolic second derivatives), for a
//! discrete Lagrangian whose quadrature nodes are the step's ends (`left`, `right`,
//! `trapezoid`). ∂L/∂q then reads no velocity and ∂L/∂v = MV + c, so the discrete
//! Euler–Lagrange equation p0 + D₁L_d(q0, q1) = 0 (`step.rs`) is affine in q1 and is solved
//! in one linear solve with the constant M: a kick, a drift, a kick, Störmer–Verlet's form
//! for the trapezoid and its bits on the pendulum (f32 and f64). Newton's method found the
//! same q1 in two iterations, each with D₁L_d at two nodes and its Jacobian: a Lagrangian run
//! took 14 times the Hamiltonian run, now about 1.3 times.
//!
//! WGSL mirror: `wgsl::EXPLICIT`, the same operations in the same order.

use super::legendre::singular;
use super::step::{lend, solve_many};
use super::Discretization;
use crate::expr::ExprHamiltonian;
use crate::float::Real;

/// The constant mass matrix M (by rows) and offset c of a Lagrangian L = ½vᵀMv + c·v − U(q):
/// ∂L/∂v = Mv + c, so the continuous Legendre transform is inverted in one solve,
/// v = M⁻¹(p − c), and ∂L/∂q does not depend on v (the trapezoidal, left and right discrete
/// Lagrangians then step explicitly: `step`). Found from the formula's symbolic
/// second derivatives (`ExprHamiltonian::constant_mass`).
#[derive(Debug, Clone, PartialEq)]
pub struct ConstantMass {
    pub mass: Vec<f64>,
    pub offset: Vec<f64>,
}

impl ConstantMass {
    /// L's constant mass matrix and offset, or None where L is not of that form or M is
    /// singular (the general path refuses such an L at its initial points with the reason).
    pub fn of(l: &ExprHamiltonian) -> Option<ConstantMass> {
        let (mass, offset) = l.constant_mass()?;
        singular(&mass, l.dof)
            .is_none()
            .then_some(ConstantMass { mass, offset })
    }

    /// v = M⁻¹(p − c) of a component-major block, in `b` (p on entry), with `a` (d² values)
    /// as the solve's work space (`solve_many`: each point's v is `solve`'s, as the GPU
    /// kernel's `lag_solve` computes it).
    pub fn velocities<T: Real>(&self, a: &mut [T], b: &mut [T]) {
        let d = self.offset.len();
        let n = b.len() / d;
        for (x, &m) in a.iter_mut().zip(&self.mass) {
            *x = T::from_f64(m);
        }
        for (k, &c) in self.offset.iter().enumerate() {
            let c = T::from_f64(c);
            for x in &mut b[k * n..][..n] {
                *x -= c;
            }
        }
        solve_many(a, b, d, n);
    }

    /// `velocity` for this L: v = M⁻¹(p − c) of one point, `Err` with the reason where it
    /// is not finite.
    pub fn velocity(&self, p: &[f64]) -> Result<Vec<f64>, String> {
        let mut v = p.to_vec();
        self.velocities(&mut vec![0.0; v.len() * v.len()], &mut v);
        match v.iter().all(|x| x.is_finite()) {
            true => Ok(v),
            false => {
                Err("the velocity M⁻¹(p − c) of the constant mass matrix M is not finite".into())
            }
        }
    }
}

/// The step of an L = ½vᵀMv + c·v − U(q) (M, c constant) with every node at an end: ∂L/∂q
/// reads no v and ∂L/∂v = MV + c, so p0 + D₁L_d(q0, q1) = 0 reads
/// M V = p0 + h Σ_{cᵢ=0} wᵢ L_q(q0) − c, and p1 = p0 + h Σᵢ wᵢ L_q(Qᵢ) (as Newton's step
/// sums it, `step::step`):
///
/// ```text
/// p ← p + h Σ_{cᵢ=0} wᵢ L_q(q0);   q1 = q0 + h M⁻¹(p − c);   p1 = p + h Σ_{cᵢ=1} wᵢ L_q(q1)
/// ```
///
/// one evaluation of ∂L/∂q per step for the trapezoid (Störmer–Verlet's kick, drift, kick;
/// the first kick's force is the last step's, `LastForce`) where Newton's method took two
/// iterations, each with D₁L_d at two nodes and its Jacobian.
/// Nothing to converge: `unconverged` is not touched. WGSL mirror: `wgsl::EXPLICIT`.
pub fn step<T: Real>(
    l: &ExprHamiltonian,
    mass: &ConstantMass,
    rule: Discretization,
    h: T,
    q: &mut [T],
    p: &mut [T],
) {
    let (d, nd) = (l.dof, q.len());
    lend(
        |w: &Work<T>| w.a.len() == d * d && w.v.len() == nd,
        || Work::new(d, nd),
        |w| step_in(l, mass, rule, h, (q, p), w),
    )
}

/// `step` in `w`.
fn step_in<T: Real>(
    l: &ExprHamiltonian,
    mass: &ConstantMass,
    rule: Discretization,
    h: T,
    (q, p): (&mut [T], &mut [T]),
    w: &mut Work<T>,
) {
    let Work {
        zero,
        gq: force,
        v,
        a,
        last,
    } = w;
    let kick = |end: f64, gq: &[T], p: &mut [T]| {
        for &(_, w) in rule.nodes().iter().filter(|(c, _)| *c == end) {
            let w = T::from_f64(w);
            for (o, &g) in p.iter_mut().zip(gq) {
                *o += w * (h * g);
            }
        }
    };
    let at = |end: f64| rule.nodes().iter().any(|&(c, _)| c == end);
    if at(0.0) {
        let gq = match last.at(l.id, q) {
            Some(gq) => gq,
            None => {
                l.grad_q(q, zero, force);
                &*force
            }
        };
        kick(0.0, gq, p);
    }
    v.copy_from_slice(p);
    mass.velocities(a, v);
    for (x, &v) in q.iter_mut().zip(&*v) {
        *x += h * v;
    }
    if at(1.0) {
        l.grad_q(q, zero, &mut last.gq);
        last.q.copy_from_slice(q);
        last.formula = l.id;
        kick(1.0, &last.gq, p);
    }
}

/// What `step` works in, kept by each thread from one call to the next (`step::lend`).
struct Work<T> {
    /// Zeros in the velocities' place (∂L/∂q reads none).
    zero: Vec<T>,
    gq: Vec<T>,
    v: Vec<T>,
    a: Vec<T>,
    last: LastForce<T>,
}

impl<T: Real> Work<T> {
    fn new(d: usize, nd: usize) -> Self {
        let z = || vec![T::ZERO; nd];
        Work {
            zero: z(),
            gq: z(),
            v: z(),
            a: vec![T::ZERO; d * d],
            last: LastForce {
                formula: 0,
                q: z(),
                gq: z(),
            },
        }
    }
}

/// ∂L/∂q at the configuration the last `step` of this thread ended at: the next step of the same block starts there and needs the same values
/// (Störmer–Verlet's last kick and next first kick read one force), so it reads them here
/// instead of evaluating L's derivatives again, where the formula and every bit of q match.
struct LastForce<T> {
    /// `ExprHamiltonian::id` of the formula evaluated; 0 for none yet.
    formula: u64,
    q: Vec<T>,
    gq: Vec<T>,
}

impl<T: Real> LastForce<T> {
    /// The values at `q` of formula `formula`, where they are kept.
    fn at(&self, formula: u64, q: &[T]) -> Option<&[T]> {
        let same = self.formula == formula
            && bytemuck::cast_slice::<T, u8>(&self.q) == bytemuck::cast_slice::<T, u8>(q);
        same.then_some(&self.gq)
    }
}
