use super::*;
use crate::expr::run_f64;

const PENDULUM: &str = "p^2/2 + 1 - cos(q)";

fn method(name: &str) -> Method {
    Method::from_name(name).unwrap()
}

fn modified(formula: &str, name: &str, k: u32) -> ModifiedHamiltonian {
    ModifiedHamiltonian::new(formula, &BTreeMap::new(), None, method(name), k, "--order").unwrap()
}

/// The modified energies written out by hand for the pendulum (tests/physics.rs, after
/// Hairer, Lubich and Wanner, GNI IX.3): the general computation gives the same values to
/// rounding, at points all over phase space and several step sizes. This fixes the sign
/// conventions (the order of the flows, the bracket's direction).
#[test]
fn pendulum_terms_equal_the_known_ones() {
    type Tilde = fn(f64, f64, f64) -> f64;
    let cases: [(&str, u32, Tilde); 4] = [
        ("symplectic-euler-a", 2, |q, p, h| {
            p * p / 2.0 + 1.0 - q.cos() - h / 2.0 * p * q.sin()
                + h * h / 12.0 * (q.sin().powi(2) + p * p * q.cos())
        }),
        ("symplectic-euler-b", 2, |q, p, h| {
            p * p / 2.0 + 1.0 - q.cos()
                + h / 2.0 * p * q.sin()
                + h * h / 12.0 * (q.sin().powi(2) + p * p * q.cos())
        }),
        ("verlet", 1, |q, p, h| {
            p * p / 2.0 + 1.0 - q.cos() + h * h * (p * p * q.cos() / 12.0 - q.sin().powi(2) / 24.0)
        }),
        ("position-verlet", 1, |q, p, h| {
            p * p / 2.0 + 1.0 - q.cos() + h * h * (q.sin().powi(2) / 12.0 - p * p * q.cos() / 24.0)
        }),
    ];
    for (name, k, tilde) in cases {
        let m = modified(PENDULUM, name, k);
        assert_eq!(m.terms().len(), k as usize);
        for h in [0.05, 0.2, 1.0] {
            let e = m.at_step(h);
            for (q, p) in [(1.0, 0.0), (0.3, 0.5), (-2.0, 0.1), (2.9, -1.7)] {
                let (a, b) = (e.energy(&[q], &[p]), tilde(q, p, h));
                assert!(
                    (a - b).abs() < 1e-14 * (1.0 + b.abs()),
                    "{name} h={h} ({q},{p}): {a} vs {b}"
                );
            }
        }
    }
}

/// K = 0 is H itself; the correction terms' powers skip what vanishes: 1, 2 for symplectic
/// Euler, 2, 4 for Verlet (symmetric), 4, 6 for yoshida4.
#[test]
fn the_terms_skip_the_vanishing_powers() {
    for (name, powers) in [
        ("symplectic-euler-a", [1, 2, 3]),
        ("verlet", [2, 4, 6]),
        ("yoshida4", [4, 6, 0]),
    ] {
        let want: Vec<u32> = powers.into_iter().filter(|&x| x > 0).collect();
        let m = modified(PENDULUM, name, want.len() as u32);
        let got: Vec<u32> = m.terms().iter().map(|t| t.power).collect();
        assert_eq!(got, want, "{name}");
    }
    let h = modified(PENDULUM, "verlet", 0).at_step(0.1);
    assert_eq!(h.energy(&[1.0], &[0.5]), 0.125 + 1.0 - 1f64.cos());
}

/// Every method with no route, a non-separable H and K out of range are input errors that
/// say what is covered or what to give.
#[test]
fn refusals_name_the_fix() {
    let err = |f: &str, name: &str, k: u32| {
        ModifiedHamiltonian::new(f, &BTreeMap::new(), None, method(name), k, "--order")
            .unwrap_err()
            .to_string()
    };
    for name in ["rk4", "implicit-midpoint", "gauss2"] {
        let e = err(PENDULUM, name, 1);
        assert!(e.contains("not covered") && e.contains("B-series"), "{e}");
    }
    let e = err("p^2/2*(1 + q^2)", "verlet", 1);
    assert!(e.contains("not separable"), "{e}");
    let e = err(PENDULUM, "yoshida4", 3);
    assert!(e.contains("give 0 to 2"), "{e}");
    let e = err(PENDULUM, "verlet", MAX_TERMS + 1);
    assert!(e.contains("give 0 to"), "{e}");
}

/// The printed terms are formulas that parse back to the same values.
#[test]
fn printed_terms_parse_back() {
    let m = modified("(p1^2 + p2^2)/2 - 1/sqrt(q1^2 + q2^2)", "verlet", 2);
    let (q, p) = ([0.8, -0.3], [0.2, 1.1]);
    for i in 0..2 {
        let text = m.term_text(i);
        let direct = {
            let mut one = m.clone();
            one.terms = vec![one.terms[i]];
            one.h = one.dag.constant(0.0);
            one.at_step(1.0).energy(&q, &p)
        };
        let mut back = parse::parse(&text, &BTreeMap::new(), Some(2)).unwrap();
        let program = Program::compile(&mut back.dag, &[back.root]);
        let mut out = [0.0];
        run_f64(&program, 2, &q, &p, 1, 0, &mut out);
        let parsed = out[0];
        assert!(
            (direct - parsed).abs() < 1e-13 * (1.0 + direct.abs()),
            "{text}: {direct} vs {parsed}"
        );
    }
}
