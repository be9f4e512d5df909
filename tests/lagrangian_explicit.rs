//! The explicit step of a Lagrangian with a constant mass matrix (`system::lagrangian::explicit`):
//! L = ½vᵀMv + c·v − U(q) is recognised from its formula (and nothing else is), its `left`,
//! `right` and `trapezoid` steps are Newton's method's steps to rounding while taking no
//! iteration, the force a step keeps for the next is never read for another formula or
//! another configuration, and the built-in `pendulum-variational` (Torrente's) is its own
//! Lagrangian under the trapezoidal rule, `double-pendulum-variational` the left rule of its
//! discrete Lagrangian.

mod common;

use std::collections::BTreeMap;

use common::{advance_f64, disk_at};
use phaseflow::method::Method;
use phaseflow::system::System;

use phaseflow::expr::ExprHamiltonian;
use phaseflow::system::lagrangian::explicit::ConstantMass;
use phaseflow::system::lagrangian::{step, Discretization};
use phaseflow::system::Newton;

/// Two coupled degrees of freedom with a full mass matrix and an offset: ∂L/∂v1 = 2v1 + v2/2
/// + 0.3, ∂L/∂v2 = v1/2 + v2, so M = [[2, 0.5], [0.5, 1]] and c = (0.3, 0).
const COUPLED: &str = "(2*v1^2 + v1*v2 + v2^2)/2 + 0.3*v1 - q1^2/2 - q2^4/4 - cos(q1 - q2)";

/// `count` steps of h of the block (q, p) (Newton's method, where `mass` is None or the rule
/// needs it, to 1e-14 within 50 iterations); the points' unconverged counts.
fn steps(
    l: &ExprHamiltonian,
    mass: Option<&ConstantMass>,
    rule: Discretization,
    h: f64,
    (q, p): (&mut [f64], &mut [f64]),
    count: usize,
) -> Vec<u32> {
    let newton = Newton {
        tol: 1e-14,
        max_iter: 50,
    };
    let mut unconverged = vec![0u32; q.len() / l.dof];
    for _ in 0..count {
        step::step(l, mass, rule, h, q, p, newton, &mut unconverged);
    }
    unconverged
}

fn compile(formula: &str) -> ExprHamiltonian {
    ExprHamiltonian::lagrangian(formula, &BTreeMap::new(), None).unwrap()
}

/// The constant mass matrix and offset are read from the formula where L has them, and
/// nowhere else: a mass matrix that depends on q (polar coordinates), a kinetic energy not
/// quadratic in v, a velocity term whose coefficient depends on q (a magnetic potential), and
/// a singular M (left to the general path, which refuses it at the initial points).
#[test]
fn a_constant_mass_matrix_is_found_where_the_lagrangian_has_one() {
    let pendulum = compile("v^2/2 - (1 - cos(q))");
    assert_eq!(
        pendulum.constant_mass(),
        Some((vec![1.0], vec![0.0])),
        "pendulum"
    );
    let coupled = compile(COUPLED);
    assert_eq!(
        coupled.constant_mass(),
        Some((vec![2.0, 0.5, 0.5, 1.0], vec![0.3, 0.0])),
        "{COUPLED}"
    );
    for general in [
        "(v1^2 + q1^2*v2^2)/2 + 1/q1",
        "v^4/4 - q^2/2",
        "v^2/2 + q*v - q^2/2",
        "v^2/2 + sin(q)*v",
        "v1^2/2 + v2^2/2 + v1*v2*q1",
    ] {
        assert_eq!(compile(general).constant_mass(), None, "{general}");
    }
    let singular = compile("(v1 + v2)^2/2 - q1^2/2");
    assert!(singular.constant_mass().is_some());
    assert_eq!(ConstantMass::of(&singular), None, "a singular M");
}

/// A seeded block of n points of the coupled system, component-major (q1, q2 | p1, p2).
fn block(n: usize) -> (Vec<f64>, Vec<f64>) {
    let (mut q, mut p) = (vec![0.0; 2 * n], vec![0.0; 2 * n]);
    for i in 0..n {
        let x = i as f64 / n as f64;
        q[i] = 0.8 * (7.0 * x).sin();
        q[n + i] = -0.5 + x;
        p[i] = 0.3 + 0.4 * (3.0 * x).cos();
        p[n + i] = 0.2 * (11.0 * x).sin();
    }
    (q, p)
}

/// `left`, `right` and `trapezoid` on the coupled L, 500 steps of 0.02 for 64 points: the
/// explicit step and Newton's method (to the f64 rounding gate) agree to 1e-12, the explicit
/// one counting nothing unconverged, and both moved the points.
#[test]
fn explicit_steps_are_newtons_steps_to_rounding() {
    let l = compile(COUPLED);
    let mass = ConstantMass::of(&l).expect("a constant mass matrix");
    let n = 64;
    for rule in Discretization::ALL.into_iter().filter(|r| r.ends_only()) {
        let (q0, p0) = block(n);
        let run = |mass: Option<&ConstantMass>| {
            let (mut q, mut p) = (q0.clone(), p0.clone());
            let unconverged = steps(&l, mass, rule, 0.02, (&mut q, &mut p), 500);
            (q, p, unconverged)
        };
        let (qe, pe, ue) = run(Some(&mass));
        let (qn, pn, un) = run(None);
        assert!(ue.iter().all(|&u| u == 0), "{}", rule.name());
        assert!(un.iter().all(|&u| u == 0), "{}: Newton", rule.name());
        let dev = qe
            .iter()
            .zip(&qn)
            .chain(pe.iter().zip(&pn))
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f64, f64::max);
        assert!(dev < 1e-12, "{}: explicit vs Newton {dev:e}", rule.name());
        let moved = qe
            .iter()
            .zip(&q0)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0f64, f64::max);
        assert!(moved > 0.1, "{}: nothing moved", rule.name());
    }
}

/// The trapezoid's end force is kept for the next step of the same block (`LastForce`), and
/// read only for the same formula at the same configuration, bit for bit: formula b stepped
/// from exactly where formula a's last step ended (so a's force at that configuration is
/// kept) gives what b gives with nothing kept (the thread's buffers remade by a Newton step
/// in between), and two formulas stepped in turn give each one's own run.
#[test]
fn a_kept_force_is_never_read_for_another_formula() {
    let a = compile("v1^2/2 + v2^2/2 - (1 - cos(q1)) - q2^2/2");
    let b = compile("v1^2/2 + v2^2/2 - q1^2/2 - (1 - cos(q2))");
    let kepler = compile("(v1^2 + q1^2*v2^2)/2 + 1/q1");
    let (ma, mb) = (ConstantMass::of(&a).unwrap(), ConstantMass::of(&b).unwrap());
    let rule = Discretization::Trapezoid;
    let n = 32;
    let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    // Remakes this thread's kept buffers: a Newton step's are another kind.
    let forget = || {
        let (mut q, mut p) = (vec![1.0; 2 * n], vec![0.1; 2 * n]);
        steps(&kepler, None, rule, 0.05, (&mut q, &mut p), 1);
    };
    let (mut q, mut p) = block(n);
    for round in 0..20 {
        steps(&a, Some(&ma), rule, 0.05, (&mut q, &mut p), 1);
        let (mut qb, mut pb) = (q.clone(), p.clone());
        steps(&b, Some(&mb), rule, 0.05, (&mut qb, &mut pb), 1);
        forget();
        let (mut qf, mut pf) = (q.clone(), p.clone());
        steps(&b, Some(&mb), rule, 0.05, (&mut qf, &mut pf), 1);
        assert_eq!(
            (bits(&qb), bits(&pb)),
            (bits(&qf), bits(&pf)),
            "round {round}"
        );
        forget();
    }
    let alone = |l: &ExprHamiltonian, m: &ConstantMass| {
        let (mut q, mut p) = block(n);
        steps(l, Some(m), rule, 0.05, (&mut q, &mut p), 50);
        (bits(&q), bits(&p))
    };
    let (own_a, own_b) = (alone(&a, &ma), alone(&b, &mb));
    let (mut qa, mut pa) = block(n);
    let (mut qb, mut pb) = block(n);
    for _ in 0..50 {
        steps(&a, Some(&ma), rule, 0.05, (&mut qa, &mut pa), 1);
        steps(&b, Some(&mb), rule, 0.05, (&mut qb, &mut pb), 1);
    }
    assert_eq!((bits(&qa), bits(&pa)), own_a);
    assert_eq!((bits(&qb), bits(&pb)), own_b);
    assert_ne!(own_a, own_b, "the two formulas differ");
}

/// A built-in variational system (state (q, v)) and its Lagrangian (state (q, p)) run 2000
/// steps of h from `start`, the Lagrangian from the momenta `momentum(q, v)` gives: the largest
/// difference of the Lagrangian's (q, p) from the built-in's (q, momentum(q, v)), and how far
/// the built-in's q moved.
fn both_runs(
    builtin: &System,
    lagrangian: &System,
    h: f64,
    start: &phaseflow::state::State<f64>,
    momentum: impl Fn(&[f64], &[f64]) -> Vec<f64>,
) -> (f64, f64) {
    let mut start_p = start.clone();
    start_p.p = momentum(&start.q, &start.p);
    let a = advance_f64(builtin, Method::Variational, h, 2000, start);
    let b = advance_f64(lagrangian, Method::Variational, h, 2000, &start_p);
    let pa = momentum(&a.q, &a.p);
    let largest = |pairs: &mut dyn Iterator<Item = (&f64, &f64)>| {
        pairs.map(|(x, y)| (x - y).abs()).fold(0.0f64, f64::max)
    };
    let dev = largest(&mut a.q.iter().zip(&b.q).chain(pa.iter().zip(&b.p)));
    (dev, largest(&mut a.q.iter().zip(&start.q)))
}

/// Torrente's variational pendulum (`pendulum-variational`: L_d = h[½v_k² + ½cos q_k +
/// ½cos q_{k+1}], state (q_k, v_k), v_k = (q_{k+1} − q_k)/h) is the trapezoidal discrete
/// Lagrangian of L = ½v² + cos q: started at the discrete Legendre transform
/// p_k = −D₁L_d = v_k + (h/2) sin q_k, the Lagrangian run's (q_k, p_k) are the built-in's
/// (q_k, v_k + (h/2) sin q_k) to 1e-12 after 2 000 steps of 0.05 (f64, 64 points).
#[test]
fn the_built_in_variational_pendulum_is_its_lagrangian_under_the_trapezoid() {
    let builtin = System::new("pendulum-variational", &BTreeMap::new()).unwrap();
    let lagrangian = common::lagrangian_system("v^2/2 + cos(q)", Discretization::Trapezoid, &[]);
    let h = 0.05;
    let start = disk_at(&builtin, h, 64, 0.5);
    let momentum = |q: &[f64], v: &[f64]| -> Vec<f64> {
        q.iter()
            .zip(v)
            .map(|(q, v)| v + h / 2.0 * q.sin())
            .collect()
    };
    let (dev, moved) = both_runs(&builtin, &lagrangian, h, &start, momentum);
    assert!(dev < 1e-12, "built-in against its Lagrangian: {dev:e}");
    assert!(moved > 0.1, "nothing moved");
}

/// Torrente's variational double pendulum (`double-pendulum-variational`, its default masses
/// m1 = 55/24, m2 = 3/8 and rods l1 = 1, l2 = 8/3, g = 1) has the discrete Lagrangian
/// L_d = h[T(q_k, v) − ½V(q_k) − ½V(q_{k+1})], v = (q_{k+1} − q_k)/h: T at the left end, V by
/// the trapezoid, which no single quadrature of T − V gives. Every discrete Lagrangian is
/// the `left` rule of L(q, v) := L_d(q, q + h v)/h, here T(q, v) − ½V(q) − ½V(q + h v) with
/// the run's h written into the formula: started at the discrete Legendre transform
/// p_k = −D₁L_d = M(q_k)v_k − h ∂T/∂q(q_k, v_k) + (h/2)∇V(q_k), the Lagrangian run's
/// (q_k, p_k) are the built-in's (q_k, v_k) transformed so, to 1e-12 after 2 000 steps
/// (measured: 1.8e-13).
#[test]
fn the_built_in_variational_double_pendulum_is_the_left_rule_of_its_discrete_lagrangian() {
    let builtin = System::new("double-pendulum-variational", &BTreeMap::new()).unwrap();
    let h = 0.01;
    // (m1 + m2) l1² = (m1 + m2) g l1 = m2 l2² = 8/3; m2 l1 l2 = m2 g l2 = 1.
    let c = 8.0 / 3.0;
    let formula = format!(
        "{c}*(v1^2 + v2^2)/2 + v1*v2*cos(q1 - q2) + ({c}*(cos(q1) + cos(q1 + {h}*v1)) + cos(q2) + cos(q2 + {h}*v2))/2"
    );
    let lagrangian = common::lagrangian_system(&formula, Discretization::Left, &[]);
    let start = disk_at(&builtin, h, 64, 0.2);
    let momentum = |q: &[f64], v: &[f64]| -> Vec<f64> {
        // Structure of arrays: every point's θ1, then every point's θ2.
        let n = q.len() / 2;
        let mut p = vec![0.0; q.len()];
        for k in 0..n {
            let (q1, q2, v1, v2) = (q[k], q[n + k], v[k], v[n + k]);
            let (s, co) = ((q1 - q2).sin(), (q1 - q2).cos());
            p[k] = c * v1 + co * v2 + h * v1 * v2 * s + h / 2.0 * c * q1.sin();
            p[n + k] = co * v1 + c * v2 - h * v1 * v2 * s + h / 2.0 * q2.sin();
        }
        p
    };
    let (dev, moved) = both_runs(&builtin, &lagrangian, h, &start, momentum);
    assert!(
        dev < 1e-12,
        "built-in against its discrete Lagrangian: {dev:e}"
    );
    assert!(moved > 0.1, "nothing moved");
}
