//! The multi-degree-of-freedom systems and the implicit methods (issue 4): convergence orders on
//! separable, triangular (polar elastic pendulum) and non-separable (double pendulum) systems,
//! Kepler's angular momentum and bounded energy error, the explicit structure of the polar
//! elastic pendulum's symplectic Euler, unconverged points counted, and bad input.

mod common;

use std::collections::BTreeMap;

use phaseflow::engine::{CpuEngine, Engine, Integrator};
use phaseflow::ensemble::State;
use phaseflow::method::{Method, Solver, ALL};
use phaseflow::system::System;
use predicates::prelude::*;
use tempfile::TempDir;

use common::{advance_f64, phaseflow, read, stats, system};

/// The system's default state, and a second point near it.
fn two_points(sys: &System) -> State<f64> {
    let z0 = sys.default_state();
    let z1: Vec<f64> = z0
        .iter()
        .enumerate()
        .map(|(k, x)| x + 0.01 * (k as f64 + 1.0))
        .collect();
    State::from_rows(&[z0, z1], sys.dof())
}

fn max_dev(a: &State<f64>, b: &State<f64>) -> f64 {
    a.q.iter()
        .zip(&b.q)
        .chain(a.p.iter().zip(&b.p))
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

/// Halving h divides the error at fixed t (against RK4 with a 2000× finer step) by 2^order,
/// for every method a system accepts: separable (Kepler, Hénon–Heiles, Cartesian elastic
/// pendulum), triangular (polar elastic pendulum: exact sweeps) and non-separable (double
/// pendulum: fixed-point iteration).
#[test]
fn convergence_orders_match_on_the_two_degree_of_freedom_systems() {
    for name in [
        "kepler",
        "henon-heiles",
        "elastic-pendulum",
        "elastic-pendulum-cartesian",
        "double-pendulum",
    ] {
        let sys = system(name);
        let init = two_points(&sys);
        let t_end = 1.0;
        let reference = advance_f64(&sys, Method::Rk4, t_end / 40_000.0, 40_000, &init);
        for &method in ALL {
            if method.check_system(&sys).is_err() {
                // `variational` serves only the variational systems (tests/variational.rs).
                assert!(
                    method == Method::Variational
                        || (!sys.separable() && method == Method::BlanesMoan4),
                    "{name} / {}",
                    method.name()
                );
                continue;
            }
            let order = method.info().order as f64;
            let h = match method.info().order {
                1 => 0.005,
                2 => 0.01,
                6 => 0.1,
                _ => 0.05,
            };
            let err = |h: f64| {
                let n = (t_end / h).round() as u64;
                max_dev(&advance_f64(&sys, method, h, n, &init), &reference)
            };
            let (e1, e2) = (err(h), err(h / 2.0));
            let measured = (e1 / e2).log2();
            assert!(
                (measured - order).abs() < 0.25,
                "{name} / {}: errors {e1:e}, {e2:e}: measured order {measured}, expected {order}",
                method.name()
            );
        }
    }
}

/// Energies of a single Kepler orbit (e = 0.6) at `samples` times up to t_end, in f64.
fn kepler_run(method: Method, h: f64, t_end: f64, samples: usize) -> (Vec<f64>, Vec<f64>) {
    let sys = system("kepler");
    let init = State::from_rows(&[sys.default_state()], 2);
    let mut e = CpuEngine::<f64>::new(
        &Integrator::with_default_solver::<f64>(sys.clone(), method, h).unwrap(),
        init,
    );
    let per = ((t_end / h).round() as u64) / samples as u64;
    let (mut energy_err, mut l_err) = (Vec::new(), Vec::new());
    for _ in 0..samples {
        e.advance(per).unwrap();
        let s = e.state().unwrap();
        let (q, p) = ([s.q[0], s.q[1]], [s.p[0], s.p[1]]);
        energy_err.push((sys.energy(h, &q, &p) + 0.5).abs());
        l_err.push((sys.angular_momentum(&q, &p).unwrap()[2] - 0.8).abs());
    }
    (energy_err, l_err)
}

fn max(v: &[f64]) -> f64 {
    v.iter().cloned().fold(0.0, f64::max)
}

/// GNI Table I.2.1: symplectic Euler, Verlet and implicit midpoint keep L = √(1 − e²) = 0.8 to
/// roundoff and their energy error bounded; explicit Euler's energy error grows with t.
#[test]
fn kepler_angular_momentum_is_kept_and_energy_error_stays_bounded() {
    let t_end = 40.0 * std::f64::consts::PI; // 20 periods
    for method in [
        Method::SymplecticEulerA,
        Method::SymplecticEulerB,
        Method::Verlet,
        Method::PositionVerlet,
        Method::ImplicitMidpoint,
    ] {
        let (de, dl) = kepler_run(method, 0.005, t_end, 400);
        assert!(
            max(&dl) < 1e-11,
            "{}: angular momentum error {:e}",
            method.name(),
            max(&dl)
        );
        let (first, last) = (max(&de[..100]), max(&de[300..]));
        assert!(
            last < 1.5 * first,
            "{}: energy error grows: first quarter {first:e}, last {last:e}",
            method.name()
        );
    }
    let (de, dl) = kepler_run(Method::Euler, 0.0005, t_end, 400);
    let (first, last) = (max(&de[..100]), max(&de[300..]));
    assert!(
        last > 2.0 * first,
        "explicit Euler: first quarter {first:e}, last quarter {last:e}"
    );
    assert!(
        max(&dl) > 1e-3,
        "explicit Euler does not keep L: {:e}",
        max(&dl)
    );
}

/// The polar elastic pendulum's symplectic Euler A is explicit: two sweeps give exactly the
/// ordered update of PHYSICS.md §2.3 (p_θ, then p_r with the new p_θ, then r and θ with the
/// old r), with no tolerance involved.
#[test]
fn polar_elastic_pendulum_symplectic_euler_is_the_explicit_ordered_update() {
    let sys = system("elastic-pendulum");
    let g = 0.2;
    let init = State::from_rows(&[vec![1.1, 0.7, 0.3, -0.4]], 2);
    let h = 0.2;
    let s = advance_f64(&sys, Method::SymplecticEulerA, h, 1, &init);
    let (r, th, pr, pth) = (1.1f64, 0.7f64, 0.3f64, -0.4f64);
    let pth1 = pth - h * g * r * th.sin();
    let pr1 = pr - h * (-pth1 * pth1 / r.powi(3) + (r - 1.0) - g * th.cos());
    let r1 = r + h * pr1;
    let th1 = th + h * pth1 / (r * r);
    for (got, want) in [(s.q[0], r1), (s.q[1], th1), (s.p[0], pr1), (s.p[1], pth1)] {
        assert!((got - want).abs() < 1e-14, "{got} vs {want}");
    }
    assert_eq!(s.unconverged, vec![0]);
}

/// A non-separable solve that cannot converge within the cap is counted per point; with the
/// default cap the same run converges everywhere.
#[test]
fn unconverged_points_are_counted() {
    let sys = system("double-pendulum");
    let init = common::disk(&sys, 64, 0.3);
    let run = |max_iter: u32| {
        let solver = Solver {
            tol: 1e-14,
            max_iter,
        };
        let mut e = CpuEngine::<f64>::new(
            &Integrator::new(sys.clone(), Method::ImplicitMidpoint, 0.1, solver).unwrap(),
            init.clone(),
        );
        e.advance(50).unwrap();
        e.state().unwrap().unconverged.clone()
    };
    let capped = run(3);
    assert!(
        capped.iter().all(|&u| u == 50),
        "every step hits a cap of 3: {capped:?}"
    );
    assert!(run(100).iter().all(|&u| u == 0));
}

/// The `unconverged` column end to end, and the seed-002 polar start on every backend default.
#[test]
fn cli_reports_unconverged_points() {
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("dp");
    phaseflow()
        .args([
            "run",
            "--system",
            "double-pendulum",
            "--method",
            "verlet",
            "--ensemble",
            "disk",
            "--points",
            "50",
            "--dt",
            "0.1",
            "--steps",
            "100",
            "--precision",
            "f64",
            "--implicit-max-iter",
            "2",
            "--quiet",
            "--out",
        ])
        .arg(&out)
        .assert()
        .success();
    let last = stats(&out).pop().unwrap();
    assert_eq!(last["unconverged"], 50.0, "{last:?}");
    assert!(read(&out.join("config.toml")).contains("implicit_max_iter = 2"));
}

/// Bad parameters and combinations get exit 2 and a message naming the fix.
#[test]
fn bad_system_input_is_refused() {
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "--system",
                "double-pendulum",
                "--param",
                "m1=-1",
                "--method",
                "verlet",
            ],
            "m1 > 0",
        ),
        (
            &[
                "--system", "kepler", "--param", "e=1.2", "--method", "verlet",
            ],
            "0 ≤ e < 1",
        ),
        (
            &["--system", "double-pendulum", "--method", "blanes-moan4"],
            "not separable",
        ),
        (
            &[
                "--system",
                "kepler",
                "--method",
                "verlet",
                "--ensemble",
                "level",
                "--energy",
                "0.1",
            ],
            "one degree of freedom",
        ),
        (
            &[
                "--system",
                "double-pendulum",
                "--method",
                "verlet",
                // 0 is valid (iterate to the rounding level); a negative tolerance is not.
                "--implicit-tol",
                "-1e-10",
            ],
            "--implicit-tol",
        ),
        (
            &[
                "--system",
                "double-pendulum",
                "--method",
                "verlet",
                "--implicit-max-iter",
                "0",
            ],
            "--implicit-max-iter",
        ),
        (
            &[
                "--system", "kepler", "--method", "verlet", "--param", "k_2=3",
            ],
            "no parameter 'k_2'",
        ),
    ];
    for (args, needle) in cases {
        let dir = TempDir::new().unwrap();
        let out = dir.path().join("o");
        phaseflow()
            .arg("run")
            .args(*args)
            .args(if args.contains(&"--ensemble") {
                vec![]
            } else {
                vec!["--ensemble", "point"]
            })
            .args(["--dt", "0.01", "--steps", "10", "--quiet", "--out"])
            .arg(&out)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(*needle));
        assert!(!out.exists(), "{args:?} wrote output");
    }
}

#[test]
fn every_system_has_a_default_state_of_the_right_size_and_finite_energy() {
    for info in phaseflow::system::CATALOGUE {
        let sys = System::new(info.name, &BTreeMap::new()).unwrap();
        let z = sys.default_state();
        let d = sys.dof();
        assert_eq!(z.len(), 2 * d, "{}", info.name);
        assert!(
            sys.energy(0.01, &z[..d], &z[d..]).is_finite(),
            "{}",
            info.name
        );
    }
}
