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
    for name in ["rk4", "euler", "backward-euler", "radau-iia-2"] {
        let e = err(PENDULUM, name, 1);
        assert!(
            e.contains("not symplectic") && e.contains("covered are"),
            "{e}"
        );
    }
    let e = err(PENDULUM, "verlet-rkn", 1);
    assert!(
        e.contains("no modified Hamiltonian") && e.contains("Nyström"),
        "{e}"
    );
    let e = err("p^2/2*(1 + q^2)", "blanes-moan4", 1);
    assert!(
        e.contains("not separable") && e.contains("implicit-midpoint"),
        "{e}"
    );
    let e = err(PENDULUM, "gauss3", 2);
    assert!(
        e.contains("give 0 to 1") && e.contains("trees of 8 vertices"),
        "{e}"
    );
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

/// The terms by trees (`by_trees`), for methods that `new` sends to the brackets.
fn by_trees_of(formula: &str, name: &str, k: u32) -> ModifiedHamiltonian {
    let parse::Parsed {
        mut dag, root, dof, ..
    } = parse::parse(formula, &BTreeMap::new(), None).unwrap();
    let terms = by_trees(&mut dag, root, dof, method(name), k, "--order").unwrap();
    ModifiedHamiltonian {
        dof,
        dag,
        h: root,
        terms,
    }
}

const KEPLER: &str = "(p1^2 + p2^2)/2 - 1/sqrt(q1^2 + q2^2)";

/// Splittings written as partitioned methods (Verlet as Lobatto IIIA–IIIB, symplectic Euler as
/// a one-stage pair, yoshida4 as stacked Verlet steps): the trees give the brackets' modified
/// Hamiltonian to rounding, same powers, same values, on the pendulum and Kepler. This fixes
/// the normalisation of the sum over trees (1/(2n) per tree of n vertices, each b̃/σ).
#[test]
fn trees_equal_brackets_on_splittings() {
    for (formula, points) in [
        (
            PENDULUM,
            vec![([1.0, 0.0], [0.0, 0.0]), ([-2.0, 0.0], [0.7, 0.0])],
        ),
        (
            KEPLER,
            vec![([0.8, -0.3], [0.2, 1.1]), ([-1.2, 0.4], [-0.5, 0.3])],
        ),
    ] {
        let dof = if formula == PENDULUM { 1 } else { 2 };
        for (name, k) in [("verlet", 2), ("symplectic-euler-a", 2), ("yoshida4", 1)] {
            let (trees, brackets) = (by_trees_of(formula, name, k), modified(formula, name, k));
            let powers = |m: &ModifiedHamiltonian| -> Vec<u32> {
                m.terms().iter().map(|t| t.power).collect()
            };
            assert_eq!(powers(&trees), powers(&brackets), "{name}");
            for h in [0.05, 0.3] {
                let (a, b) = (trees.at_step(h), brackets.at_step(h));
                for (q, p) in &points {
                    let (x, y) = (
                        a.energy(&q[..dof], &p[..dof]),
                        b.energy(&q[..dof], &p[..dof]),
                    );
                    assert!(
                        (x - y).abs() < 1e-13 * (1.0 + y.abs()),
                        "{name} {formula} h={h}: {x} vs {y}"
                    );
                }
            }
        }
    }
}

/// The value of `node` at (q, p).
fn value(dag: &mut Dag, dof: usize, node: Id, q: &[f64], p: &[f64]) -> f64 {
    let program = Program::compile(dag, &[node]);
    let mut out = [0.0];
    run_f64(&program, dof, q, p, 1, 0, &mut out);
    out[0]
}

/// The defining property, on a non-separable H of two degrees of freedom: each term H_n's
/// Hamiltonian vector field (∂H_n/∂p, −∂H_n/∂q) is the degree-n part of the modified vector
/// field, Σ_{|τ|=n} b̃(τ)/σ(τ) F(τ) (black roots the q components, white roots the p ones), for
/// Runge–Kutta (implicit midpoint, gauss2) and partitioned (symplectic Euler, Verlet) methods.
#[test]
fn each_term_is_the_hamiltonian_of_the_modified_vector_field() {
    let formula = "(p1^2 + p2^2)/2*(1 + q1^2) + q1^2*q2^2/2 + p1*sin(q2) - cos(q1)";
    let (q, p) = ([0.7, -0.4], [0.3, 1.2]);
    for (name, orders) in [
        ("implicit-midpoint", vec![3, 5]),
        ("gauss2", vec![5]),
        ("symplectic-euler-a", vec![2, 3, 4]),
        ("verlet", vec![3, 5]),
    ] {
        let normal = normalise(&family_of(method(name)).unwrap(), &builtin::family).unwrap();
        let (tq, tp) = crate::method::analysis::to_prk(&normal).unwrap();
        let c = bseries::Coefficients::new(&tq, &tp);
        let parse::Parsed {
            mut dag, root, dof, ..
        } = parse::parse(formula, &BTreeMap::new(), None).unwrap();
        let mut e = Elementary::new(&mut dag, root, dof, c.forest);
        for n in orders {
            let terms = bseries::term(&c, &mut e, n, false);
            let hn = combine(e.dag, &terms, Zero::Fails);
            let mut field = vec![0.0; 2 * dof];
            for id in c.of_order(n) {
                let w = c.b[id as usize] / c.sigma[id as usize];
                let white = c.forest.trees[id as usize].colour == bseries::Colour::White;
                let f = e.differential(id);
                for (k, &fk) in f.iter().enumerate() {
                    field[k + if white { dof } else { 0 }] += w * value(e.dag, dof, fk, &q, &p);
                }
            }
            let mut size = 0.0f64;
            for k in 0..dof {
                let dp = partial(e.dag, hn, Var::P(k));
                let dq = partial(e.dag, hn, Var::Q(k));
                let (a, b) = (
                    value(e.dag, dof, dp, &q, &p),
                    -value(e.dag, dof, dq, &q, &p),
                );
                size = size.max(field[k].abs()).max(field[k + dof].abs());
                assert!(
                    (a - field[k]).abs() < 1e-12 * (1.0 + a.abs()),
                    "{name} n={n} q{k}: {a} vs {}",
                    field[k]
                );
                assert!(
                    (b - field[k + dof]).abs() < 1e-12 * (1.0 + b.abs()),
                    "{name} n={n} p{k}: {b} vs {}",
                    field[k + dof]
                );
            }
            assert!(
                size > 1e-3,
                "{name} n={n}: the field vanishes here ({size})"
            );
        }
    }
}

/// The implicit midpoint rule's first term is −H''(f, f)/24 (GNI IX.1's modified equation
/// f + h²(−f''(f,f)/24 + f'f'f/12) integrated): on the pendulum −(p² cos q + sin² q)/24.
#[test]
fn midpoint_first_term_is_the_known_one() {
    let m = modified(PENDULUM, "implicit-midpoint", 1);
    assert_eq!(m.terms()[0].power, 2);
    let e = m.at_step(0.3);
    for (q, p) in [(1.0, 0.0), (0.3, 0.5), (-2.0, 0.1)] {
        let want =
            p * p / 2.0 + 1.0 - f64::cos(q) - 0.09 / 24.0 * (p * p * q.cos() + q.sin().powi(2));
        assert!((e.energy(&[q], &[p]) - want).abs() < 1e-15, "({q},{p})");
    }
}

/// What `--modified-hamiltonian` costs per point is the size of H̃'s program: Kepler's terms
/// under Verlet, whose brackets pair up as {…{T, V}} and {…{V, T}} and whose nested
/// derivatives reach each mixed partial in every order, evaluate each once (K = 2: 548
/// instructions as the brackets build it, 179 in normal form written term by term, 132 with its
/// sums nested and its shared divisors inverted).
#[test]
fn kepler_programs_stay_small() {
    const KEPLER: &str = "(p1^2 + p2^2)/2 - 1/sqrt(q1^2 + q2^2)";
    for (k, most) in [(1, 36), (2, 140)] {
        let (instructions, registers) = modified(KEPLER, "verlet", k).at_step(0.01).size();
        eprintln!("kepler verlet K = {k}: {instructions} instructions, {registers} registers");
        assert!(instructions <= most, "K = {k}: {instructions} instructions");
    }
}

/// A composition whose order its weights decide starts with Σ w^{p+1} times its base's first
/// term: 63 positive weights over gauss3 (Σ w⁷ = 2e-9) and over verlet (Σ w³ ≠ 0), on the
/// pendulum (by trees) and with verlet's brackets. The stacked gauss3 composition's own
/// coefficients were at rounding level, and its H7 came out 0.0.
#[test]
fn a_composition_starts_with_its_weights_times_its_bases_first_term() {
    for (base, a, power) in [
        ("gauss3", 0.015207447097782953_f64, 7),
        ("verlet", 0.015207447097782953, 3),
    ] {
        let mut weights = vec![format!("{a:?}"); 31];
        weights.push(format!("\"1 - 62*{a:?}\""));
        weights.extend(vec![format!("{a:?}"); 31]);
        let text = format!(
            "name = \"c63-{base}\"\nfamily = \"composition\"\nbase = \"{base}\"\nweights = [{}]\n",
            weights.join(", ")
        );
        let composed = Method::from_source(&text, "test").unwrap();
        let first = |m: Method| {
            let mh = ModifiedHamiltonian::new(PENDULUM, &BTreeMap::new(), None, m, 1, "--order")
                .unwrap();
            assert_eq!(mh.terms()[0].power, power - 1, "{}", m.name());
            // (H̃ − H)/h^power is the first term's value; a large h lifts it above H's rounding
            let h = 100f64;
            let (h0, h1) = (mh.at_step(0.0), mh.at_step(h));
            move |q: f64, p: f64| {
                (h1.energy(&[q], &[p]) - h0.energy(&[q], &[p])) / h.powi(power as i32 - 1)
            }
        };
        let (c, b) = (first(composed), first(method(base)));
        let last = 1.0 - 62.0 * a;
        let scale = 62.0 * a.powi(power as i32) + last.powi(power as i32);
        for (q, p) in [(0.3, 0.2), (1.0, -0.7), (2.5, 1.1)] {
            let (got, want) = (c(q, p), scale * b(q, p));
            assert!(
                want != 0.0 && ((got - want) / want).abs() < 1e-6,
                "{base}: {got} vs {want}"
            );
        }
    }
}
