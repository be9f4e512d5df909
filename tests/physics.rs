//! Exact results of PHYSICS.md §5 for the oscillator and the pendulum (CPU engine, f64),
//! and the convergence order of every method.

mod common;

use common::{advance_f64, disk, state_1d, system};
use phaseflow::method::{Method, ALL};

fn sq_radius(s: &phaseflow::ensemble::State<f64>, i: usize) -> f64 {
    s.q[i] * s.q[i] + s.p[i] * s.p[i]
}

#[test]
fn oscillator_explicit_euler_grows_by_one_plus_h2_per_step() {
    let sys = system("oscillator");
    let init = disk(&sys, 200, 0.5);
    let (h, n) = (0.01, 3000);
    let end = advance_f64(&sys, Method::Euler, h, n, &init);
    let factor = (1.0 + h * h).powi(n as i32);
    for i in 0..init.n {
        let ratio = sq_radius(&end, i) / sq_radius(&init, i);
        assert!(
            (ratio / factor - 1.0).abs() < 1e-11,
            "point {i}: ratio {ratio}, expected {factor}"
        );
    }
}

#[test]
fn oscillator_rk4_contracts_by_its_stability_function() {
    let sys = system("oscillator");
    let init = disk(&sys, 200, 0.5);
    let (h, n) = (0.5, 2000);
    let end = advance_f64(&sys, Method::Rk4, h, n, &init);
    let per_step = 1.0 - h.powi(6) / 72.0 + h.powi(8) / 576.0;
    let factor = per_step.powi(n as i32);
    assert!(
        factor < 0.9,
        "the test must see the contraction, factor {factor}"
    );
    for i in 0..init.n {
        let ratio = sq_radius(&end, i) / sq_radius(&init, i);
        assert!(
            (ratio / factor - 1.0).abs() < 1e-11,
            "point {i}: ratio {ratio}, expected {factor}"
        );
    }
}

/// Each symplectic method conserves a modified quadratic form of the oscillator exactly.
#[test]
fn oscillator_quadratic_invariants_are_kept_to_roundoff() {
    let sys = system("oscillator");
    let init = disk(&sys, 100, 0.5);
    let h: f64 = 0.1;
    type Form = fn(f64, f64, f64) -> f64;
    let cases: [(Method, Form); 4] = [
        (Method::SymplecticEulerA, |q, p, h| {
            p * p + q * q - h * p * q
        }),
        (Method::SymplecticEulerB, |q, p, h| {
            p * p + q * q + h * p * q
        }),
        (Method::Verlet, |q, p, h| {
            p * p + (1.0 - h * h / 4.0) * q * q
        }),
        (Method::PositionVerlet, |q, p, h| {
            (1.0 - h * h / 4.0) * p * p + q * q
        }),
    ];
    for (method, form) in cases {
        let end = advance_f64(&sys, method, h, 10_000, &init);
        for i in 0..init.n {
            let (a, b) = (form(init.q[i], init.p[i], h), form(end.q[i], end.p[i], h));
            assert!(
                (b / a - 1.0).abs() < 1e-12,
                "{}: invariant moved from {a} to {b}",
                method.name()
            );
            // … while the plain energy is not conserved exactly (the form really depends on h).
        }
        let plain_moved =
            (0..init.n).any(|i| (sq_radius(&end, i) / sq_radius(&init, i) - 1.0).abs() > 1e-4);
        assert!(
            plain_moved,
            "{}: q²+p² should oscillate at O(h)",
            method.name()
        );
    }
}

/// Modified energies (backward error analysis) are conserved to O(h³)/O(h⁴) while H errs at O(h)/O(h²).
#[test]
fn pendulum_modified_energies_are_conserved_much_better_than_h() {
    let sys = system("pendulum");
    let init = state_1d(&[(1.0, 0.0), (0.3, 0.5), (-2.0, 0.1)]);
    let h: f64 = 0.05;
    let energy = |q: f64, p: f64| p * p / 2.0 + 1.0 - q.cos();
    type Tilde = fn(f64, f64, f64) -> f64;
    let cases: [(Method, Tilde); 4] = [
        (Method::SymplecticEulerA, |q, p, h| {
            p * p / 2.0 + 1.0 - q.cos() - h / 2.0 * p * q.sin()
                + h * h / 12.0 * (q.sin().powi(2) + p * p * q.cos())
        }),
        (Method::SymplecticEulerB, |q, p, h| {
            p * p / 2.0 + 1.0 - q.cos()
                + h / 2.0 * p * q.sin()
                + h * h / 12.0 * (q.sin().powi(2) + p * p * q.cos())
        }),
        (Method::Verlet, |q, p, h| {
            p * p / 2.0 + 1.0 - q.cos() + h * h * (p * p * q.cos() / 12.0 - q.sin().powi(2) / 24.0)
        }),
        (Method::PositionVerlet, |q, p, h| {
            p * p / 2.0 + 1.0 - q.cos() + h * h * (q.sin().powi(2) / 12.0 - p * p * q.cos() / 24.0)
        }),
    ];
    for (method, tilde) in cases {
        let (mut max_h, mut max_tilde) = (0.0f64, 0.0f64);
        let mut s = init.clone();
        for _ in 0..200 {
            s = advance_f64(&sys, method, h, 50, &s);
            for i in 0..s.n {
                max_h = max_h.max((energy(s.q[i], s.p[i]) - energy(init.q[i], init.p[i])).abs());
                max_tilde = max_tilde
                    .max((tilde(s.q[i], s.p[i], h) - tilde(init.q[i], init.p[i], h)).abs());
            }
        }
        let order = method.info().order as i32;
        assert!(
            max_tilde < 2.0 * h.powi(order + 2),
            "{}: modified energy moved by {max_tilde}",
            method.name()
        );
        assert!(
            max_tilde * 10.0 < max_h,
            "{}: H̃ error {max_tilde} should be far below H error {max_h}",
            method.name()
        );
    }
}

/// Explicit Euler gains energy at dH/dt ≈ h⟨|∇V|²⟩ (PHYSICS.md §5).
#[test]
fn pendulum_explicit_euler_energy_drift_matches_the_law() {
    let sys = system("pendulum");
    let (h, steps) = (0.001, 20_000u64);
    let mut s = state_1d(&[(1.0, 0.0)]);
    let energy = |q: f64, p: f64| p * p / 2.0 + 1.0 - q.cos();
    let h_start = energy(s.q[0], s.p[0]);
    let mut predicted = 0.0;
    for _ in 0..steps {
        predicted += h * h * s.q[0].sin().powi(2);
        s = advance_f64(&sys, Method::Euler, h, 1, &s);
    }
    let gained = energy(s.q[0], s.p[0]) - h_start;
    assert!(gained > 0.0);
    assert!(
        (gained / predicted - 1.0).abs() < 0.1,
        "gained {gained}, law predicts {predicted}"
    );
}

/// Halving h divides the global error at fixed t by 2^order, for every method.
#[test]
fn convergence_orders_match() {
    let sys = system("pendulum");
    let init = state_1d(&[(1.0, 0.0), (0.5, 0.8)]);
    let t_end = 2.0;
    let reference = advance_f64(&sys, Method::Rk4, t_end / 20_000.0, 20_000, &init);
    for &method in ALL {
        if method.check_system(&sys).is_err() {
            continue; // `variational` serves only the variational systems (tests/variational.rs)
        }
        let order = method.info().order as f64;
        let h = match method.info().order {
            1 => 0.01,
            2 => 0.02,
            _ => 0.1,
        };
        let err = |h: f64| {
            let n = (t_end / h).round() as u64;
            let s = advance_f64(&sys, method, h, n, &init);
            (0..s.n)
                .map(|i| {
                    (s.q[i] - reference.q[i])
                        .abs()
                        .max((s.p[i] - reference.p[i]).abs())
                })
                .fold(0.0, f64::max)
        };
        let measured = (err(h) / err(h / 2.0)).log2();
        assert!(
            (measured - order).abs() < 0.2,
            "{}: measured order {measured}, expected {order}",
            method.name()
        );
    }
}
