//! The discrete maps' (q, p) coordinates: the tangent columns a linearised holonomic map
//! advances are the derivative of its map in (q, p = −D₁L_d) (`DiscreteMap::tangent_step`),
//! checked against central differences of the map itself (the double pendulum's implicit step
//! included), and, for the pendulum, whose map in
//! (q, p) is Störmer–Verlet, against Verlet's tangent map. CPU engine in f64.

mod common;

use std::collections::BTreeMap;

use phaseflow::engine::{CpuEngine, Engine, Integrator};
use phaseflow::ensemble::State;
use phaseflow::method::Method;
use phaseflow::system::{Constraints, System};

fn system(name: &str, params: &[(&str, f64)]) -> System {
    let given: BTreeMap<String, f64> = params.iter().map(|&(k, v)| (k.into(), v)).collect();
    System::new(name, &given).unwrap()
}

/// One point after `steps` steps of `method`, its tangent columns too when `tangent`.
fn advance(
    sys: &System,
    method: Method,
    h: f64,
    z: &[f64],
    steps: u64,
    tangent: bool,
) -> State<f64> {
    let k = Integrator::with_default_solver::<f64>(sys.clone(), method, h).unwrap();
    let start = State::from_rows(&[z.to_vec()], sys.dof());
    let start = if tangent { start.with_tangent() } else { start };
    let mut e = CpuEngine::<f64>::new(&k, start);
    e.advance(steps).unwrap();
    e.state().unwrap().clone()
}

/// (q, p) of a discrete map's state (q, v) at step h, by the discrete Legendre transform.
fn phase(sys: &System, h: f64, s: &State<f64>) -> Vec<f64> {
    let d = sys.dof();
    let (q, v): (Vec<f64>, Vec<f64>) = (s.q[..d].to_vec(), s.p[..d].to_vec());
    let mut p = vec![0.0; d];
    sys.momentum(h, &q, &v, &mut p);
    q.into_iter().chain(p).collect()
}

/// M[r][j] = ∂z_r/∂z0_j from a one-point state's tangent columns.
fn columns(s: &State<f64>) -> Vec<Vec<f64>> {
    let d = s.d;
    (0..2 * d)
        .map(|r| {
            (0..2 * d)
                .map(|j| {
                    let c = d * (1 + j) + r % d;
                    if r < d {
                        s.q[c]
                    } else {
                        s.p[c]
                    }
                })
                .collect()
        })
        .collect()
}

/// A system, its parameters, its step and a start (q, v) (the first 2d values).
type Case = (&'static str, &'static [(&'static str, f64)], f64, [f64; 4]);

/// Central differences of the (q, p) map from the (q, v) start z: d(q_n, p_n)/d(q_0, v_0)
/// e_j, which is M · J₀ e_j with J₀ = ∂(q, p)/∂(q, v) at z.
#[test]
fn tangent_columns_are_the_derivative_of_the_q_p_map() {
    let cases: [Case; 3] = [
        (
            "pendulum-variational",
            &[("omega", 1.3)],
            0.05,
            [0.7, 0.4, 0.0, 0.0],
        ),
        (
            "elastic-pendulum-zphi",
            &[("omega_z", 2.0), ("omega_phi", 1.0)],
            0.01,
            [0.2, 0.3, 0.1, 0.2],
        ),
        // The implicit step (Newton on the bilinear system for v), with the thesis's masses and
        // rods, far from the linear regime: both angles large, the coupling's sin Δ too.
        (
            "double-pendulum-variational",
            &[],
            0.01,
            [0.9, -0.6, 0.4, -0.7],
        ),
    ];
    for (name, params, h, z) in cases {
        let sys = system(name, params);
        assert_eq!(sys.constraints(), Some(Constraints::Holonomic));
        let d = sys.dof();
        let z = &z[..2 * d];
        let steps = 300;
        let m = columns(&advance(&sys, Method::Variational, h, z, steps, true));
        let eps = 1e-6;
        let mut worst: f64 = 0.0;
        for j in 0..2 * d {
            let shifted = |sign: f64| {
                let mut y = z.to_vec();
                y[j] += sign * eps;
                y
            };
            let at = |y: &[f64], steps| {
                phase(
                    &sys,
                    h,
                    &advance(&sys, Method::Variational, h, y, steps, false),
                )
            };
            let (plus, minus) = (shifted(1.0), shifted(-1.0));
            let fd: Vec<f64> = (at(&plus, steps).iter().zip(at(&minus, steps)))
                .map(|(a, b)| (a - b) / (2.0 * eps))
                .collect();
            let j0: Vec<f64> = (at(&plus, 0).iter().zip(at(&minus, 0)))
                .map(|(a, b)| (a - b) / (2.0 * eps))
                .collect();
            for r in 0..2 * d {
                let mj: f64 = (0..2 * d).map(|c| m[r][c] * j0[c]).sum();
                worst = worst.max((mj - fd[r]).abs() / (1.0 + fd[r].abs()));
            }
        }
        eprintln!("{name}: tangent columns against central differences: {worst:.1e}");
        assert!(worst < 1e-6, "{name}: {worst:e}");
    }
}

/// pendulum-variational in (q, p) is Verlet on `pendulum` (g = ω²): the same tangent map.
#[test]
fn the_pendulum_maps_tangent_is_verlets() {
    let (h, w2) = (0.02, 1.7f64);
    let var = system("pendulum-variational", &[("omega", w2.sqrt())]);
    let ham = system("pendulum", &[("g", w2)]);
    let (q0, v0) = (0.9f64, 0.3);
    let p0 = v0 + 0.5 * h * w2 * q0.sin();
    let a = columns(&advance(
        &var,
        Method::Variational,
        h,
        &[q0, v0],
        2000,
        true,
    ));
    let b = columns(&advance(&ham, Method::Verlet, h, &[q0, p0], 2000, true));
    for r in 0..2 {
        for c in 0..2 {
            assert!(
                (a[r][c] - b[r][c]).abs() < 1e-10 * (1.0 + b[r][c].abs()),
                "{a:?} vs {b:?}"
            );
        }
    }
}
