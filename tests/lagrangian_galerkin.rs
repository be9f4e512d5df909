//! The order of every discrete Lagrangian of `--lagrangian`, measured by `phaseflow order` on
//! two systems: the pendulum (one degree of freedom, a constant mass) and Kepler in polar
//! coordinates (two, a mass matrix that depends on q). The one-segment rules have orders 1
//! (`left`, `right`) and 2 (`midpoint`, `trapezoid`); the Galerkin rules, along quadratic and
//! cubic paths with Gauss and Lobatto quadrature, 4 (`lobatto3`, `gauss2`) and 6 (`lobatto4`,
//! `gauss3`) (Marsden & West, "Discrete mechanics and variational integrators", §2.6).

mod common;

use common::phaseflow;
use phaseflow::system::lagrangian::Discretization;

/// The fitted orders of the global and energy errors `phaseflow order` prints.
fn fitted(stdout: &str) -> (f64, Option<f64>) {
    let line = stdout
        .lines()
        .find(|l| l.starts_with("fitted order"))
        .unwrap_or_else(|| panic!("no fitted order in:\n{stdout}"));
    let after = |key: &str| -> Option<f64> {
        let rest = &line[line.find(key)? + key.len()..];
        rest.split_whitespace()
            .next()?
            .trim_end_matches(',')
            .parse()
            .ok()
    };
    (
        after("global error ").expect("a global order"),
        after("energy error "),
    )
}

#[test]
fn every_discretization_has_its_order_on_two_systems() {
    let dir = tempfile::tempdir().unwrap();
    let systems = [
        ("pendulum", "v^2/2 - (1 - cos(q))", "1,0.5"),
        ("polar Kepler", "(v1^2 + q1^2*v2^2)/2 + 1/q1", "1,0,0.1,1.1"),
    ];
    for rule in Discretization::ALL {
        // Step sizes whose errors stay above the reference's rounding at every halving.
        let (dt, steps, halvings) = match rule.order() {
            1 | 2 => ("0.05", "100", "4"),
            4 => ("0.1", "50", "3"),
            _ => ("0.5", "10", "2"),
        };
        for (name, formula, center) in systems {
            let out = dir.path().join(format!("{}-{}", rule.name(), name.len()));
            let o = phaseflow()
                .args(["order", "--lagrangian", formula, "--method", "variational"])
                .args(["--discretization", rule.name(), "--center", center])
                .args(["--dt", dt, "--steps", steps, "--halvings", halvings])
                .arg("--out")
                .arg(&out)
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&o.stdout);
            assert!(
                o.status.success(),
                "{} {name}: {}",
                rule.name(),
                String::from_utf8_lossy(&o.stderr)
            );
            let (global, energy) = fitted(&stdout);
            let expected = rule.order() as f64;
            assert!(
                (global - expected).abs() < 0.25,
                "{} on {name}: global error order {global}, expected {expected}\n{stdout}",
                rule.name()
            );
            if let Some(energy) = energy {
                assert!(
                    energy > expected - 0.25,
                    "{} on {name}: energy error order {energy}\n{stdout}",
                    rule.name()
                );
            }
        }
    }
}

/// The buffers a thread keeps for the step follow the block's whole shape: a quadratic path in
/// one degree of freedom and one segment in two both have 2 unknowns a point, and the second
/// block, stepped on the thread right after the first, once found the first's buffers (a
/// panic on lavapipe's test threads). Each result is also the block's own, bit for bit.
#[test]
fn kept_buffers_follow_the_shape_not_only_the_unknowns() {
    use phaseflow::expr::ExprHamiltonian;
    use phaseflow::system::lagrangian::step;
    use phaseflow::system::Newton;
    use std::collections::BTreeMap;

    let compile = |f: &str| ExprHamiltonian::lagrangian(f, &BTreeMap::new(), None).unwrap();
    let (one, two) = (
        compile("v^2/2 - (1 - cos(q))"),
        compile("(v1^2 + q1^2*v2^2)/2 + 1/q1"),
    );
    let newton = Newton {
        tol: 1e-14,
        max_iter: 50,
    };
    let n = 16;
    let go = |l: &ExprHamiltonian, rule: Discretization, q: &mut Vec<f64>, p: &mut Vec<f64>| {
        step::step(l, None, rule, 0.05, q, p, newton, &mut vec![0; n]);
    };
    let start_two = || (vec![1.0; 2 * n], vec![0.1; 2 * n]);
    let (mut qa, mut pa) = start_two();
    go(&two, Discretization::Trapezoid, &mut qa, &mut pa);
    let (mut q1, mut p1) = (vec![0.5; n], vec![0.2; n]);
    go(&one, Discretization::Gauss2, &mut q1, &mut p1);
    let (mut qb, mut pb) = start_two();
    go(&two, Discretization::Trapezoid, &mut qb, &mut pb);
    let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert_eq!((bits(&qa), bits(&pa)), (bits(&qb), bits(&pb)));
}
