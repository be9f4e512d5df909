//! The verdicts on classic methods against their known properties (GNI II.1, III, V, VI;
//! the composition papers), the built-ins' tableaus against their code, and the stability
//! ends against steps of the built-ins on the oscillator.

use super::known::{self, reference_step};
use super::stability::{spectral_radius, Step};
use super::*;
use crate::method::tableau::{Composition, Family, Substep};
use crate::method::{Block, Method, ALL};
use crate::system::System;
use std::collections::BTreeMap;

/// Built-ins, and the test methods compositions below name.
fn resolve(name: &str) -> Option<Family> {
    match name {
        "gauss2" => Some(known::gauss2()),
        "verlet-rkn" => Some(known::verlet_rkn()),
        "kick-drift-kick" => Some(kick_drift_kick()),
        "itself" => Some(Family::Composition(Composition::new("itself", vec![1.0]))),
        _ => builtin::family(name),
    }
}

fn kick_drift_kick() -> Family {
    Family::Splitting(vec![
        Substep::Kick(0.5),
        Substep::Drift(1.0),
        Substep::Kick(0.5),
    ])
}

fn builtin(name: &str) -> Family {
    builtin::family(name).unwrap()
}

fn analysed(family: &Family) -> Verdicts {
    analyse(family, &resolve).unwrap()
}

/// Weights that raise a symmetric method of order p to p + 2 (the triple jump).
fn triple_jump(base: &str, p: f64) -> Family {
    let c = 2f64.powf(1.0 / (p + 1.0));
    let w = 1.0 / (2.0 - c);
    Family::Composition(Composition::new(base, vec![w, -c * w, w]))
}

/// How a stability interval is expected to end.
#[derive(Debug, Clone, Copy)]
enum End {
    None,
    At(f64),
    Unbounded,
    /// No closed form: checked against stepping below.
    Computed,
}

struct Known {
    name: &'static str,
    family: Family,
    order: u32,
    symplectic: bool,
    symmetric: bool,
    end: End,
}

#[rustfmt::skip]
fn known_methods() -> Vec<Known> {
    let k = |name, family, order, symplectic, symmetric, end| Known { name, family, order, symplectic, symmetric, end };
    let s2 = 2f64.sqrt();
    vec![
        k("gauss1", known::gauss1(), 2, true, true, End::Unbounded),
        k("gauss2", known::gauss2(), 4, true, true, End::Unbounded),
        k("gauss3", known::gauss3(), 6, true, true, End::Unbounded),
        k("lobatto-iiia-iiib-2 (verlet)", builtin("verlet"), 2, true, true, End::At(2.0)),
        k("lobatto-iiia-iiib-3", known::lobatto_iiia_iiib_3(), 4, true, true, End::Computed),
        k("position-verlet", builtin("position-verlet"), 2, true, true, End::At(2.0)),
        k("radau-iia-2", known::radau_iia_2(), 3, false, false, End::Unbounded),
        k("radau-iia-3", known::radau_iia_3(), 5, false, false, End::Unbounded),
        k("rk4", builtin("rk4"), 4, false, false, End::At(2.0 * s2)),
        k("rk3 (Kutta)", builtin("rk3"), 3, false, false, End::At(3f64.sqrt())),
        k("euler", builtin("euler"), 1, false, false, End::None),
        k("backward-euler", known::backward_euler(), 1, false, false, End::Unbounded),
        k("implicit-midpoint", builtin("implicit-midpoint"), 2, true, true, End::Unbounded),
        k("symplectic-euler-a", builtin("symplectic-euler-a"), 1, true, false, End::At(2.0)),
        k("symplectic-euler-b", builtin("symplectic-euler-b"), 1, true, false, End::At(2.0)),
        k("triple jump (exact weights)", known::triple_jump(), 4, true, true, End::Computed),
        k("yoshida4", builtin("yoshida4"), 4, true, true, End::Computed),
        k("suzuki4", builtin("suzuki4"), 4, true, true, End::Computed),
        k("yoshida6", builtin("yoshida6"), 6, true, true, End::Computed),
        k("blanes-moan4", builtin("blanes-moan4"), 4, true, true, End::Computed),
        k("kahan-li8", known::kahan_li8(), 8, true, true, End::Computed),
        k("mclachlan8", known::mclachlan8(), 8, true, true, End::Computed),
        k("kick-drift-kick splitting", kick_drift_kick(), 2, true, true, End::At(2.0)),
        k("triple jump of the splitting", triple_jump("kick-drift-kick", 2.0), 4, true, true, End::Computed),
        k("gauss2 tripled to order 6", triple_jump("gauss2", 4.0), 6, true, true, End::Unbounded),
        k("verlet as Nyström", known::verlet_rkn(), 2, true, true, End::At(2.0)),
        k("triple jump of Nyström verlet", triple_jump("verlet-rkn", 2.0), 4, true, true, End::Computed),
        k("gauss2 as Nyström", known::as_rkn(&known::gauss2_tableau()), 4, true, true, End::Unbounded),
        k("rk4 as Nyström", known::as_rkn(&known::rk4_tableau()), 4, false, false, End::At(2.0 * s2)),
        k("verlet weights 0.3, 0.7", Family::Composition(Composition::new("verlet", vec![0.3, 0.7])), 2, true, false, End::Computed),
    ]
}

/// Every classic method's order, symplecticity, symmetry and stability interval as known;
/// the table is printed (`--nocapture`) for the report.
#[test]
fn known_methods_get_their_known_verdicts() {
    println!("| method | family | explicit | order | order on ½p²+V | symplectic residual | symmetric | stability interval | first failing condition |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for m in known_methods() {
        let v = analysed(&m.family);
        let failure = v.first_failure.as_ref().map_or(String::from("—"), |c| {
            format!(
                "order {}: {} `{}`, residual {:.3e}",
                c.order, c.tree, c.condition, c.residual
            )
        });
        println!(
            "| {} | {} | {} | {} | {} | {:.1e} | {} | {} | {} |",
            m.name,
            v.family,
            v.explicit,
            v.order,
            v.order_nystrom,
            v.symplectic_residual,
            v.symmetric,
            v.stability_interval,
            failure
        );
        assert_eq!(v.order, m.order, "{}: order", m.name);
        assert!(v.order_nystrom >= v.order, "{}", m.name);
        assert_eq!(v.symplectic, m.symplectic, "{}: symplectic", m.name);
        if m.symplectic {
            assert!(
                v.symplectic_residual <= 1e-14,
                "{}: {}",
                m.name,
                v.symplectic_residual
            );
        } else {
            assert!(
                v.symplectic_residual > 1e-3,
                "{}: {}",
                m.name,
                v.symplectic_residual
            );
        }
        assert_eq!(v.symmetric, m.symmetric, "{}: symmetric", m.name);
        match (m.end, v.stability_interval) {
            (End::None, StabilityInterval::Empty)
            | (End::Unbounded, StabilityInterval::Unbounded) => {}
            (End::At(x), StabilityInterval::UpTo(e)) => {
                assert!((e - x).abs() < 1e-9, "{}: end {e}, expected {x}", m.name)
            }
            (End::Computed, StabilityInterval::UpTo(e)) => assert!(e > 0.1, "{}: {e}", m.name),
            (want, got) => panic!("{}: stability {got:?}, expected {want:?}", m.name),
        }
        // an order below the cap comes with the condition that fails just above it
        assert_eq!(v.first_failure.is_some(), v.order < MAX_ORDER, "{}", m.name);
    }
}

#[test]
fn explicitness() {
    let a = analysed(&builtin("symplectic-euler-a"));
    assert!(!a.explicit && a.explicit_if_separable);
    let v = analysed(&builtin("verlet"));
    assert!(!v.explicit && v.explicit_if_separable);
    let r = analysed(&builtin("rk4"));
    assert!(r.explicit && r.explicit_if_separable);
    let g = analysed(&known::gauss2());
    assert!(!g.explicit && !g.explicit_if_separable);
    let m = analysed(&builtin("implicit-midpoint"));
    assert!(!m.explicit && !m.explicit_if_separable);
    assert!(analysed(&builtin("blanes-moan4")).explicit);
    assert!(!analysed(&builtin("yoshida4")).explicit);
}

/// Σb ≠ 1 (or weights that do not sum to 1): order 0, the failing condition the first.
#[test]
fn inconsistent_methods_have_order_zero() {
    let v = analysed(&known::rk(
        vec![vec![0.0, 0.0], vec![1.0, 0.0]],
        vec![0.5, 0.4],
    ));
    assert_eq!(v.order, 0);
    let c = v.first_failure.unwrap();
    assert_eq!((c.order, c.condition.as_str()), (1, "Σ b_i = 1/1"));
    assert!((c.residual + 0.1).abs() < 1e-15, "{}", c.residual);
    for weights in [vec![0.5, 0.4], vec![1.0, 1.0]] {
        let w = analysed(&Family::Composition(Composition::new("verlet", weights)));
        assert_eq!(w.order, 0);
    }
    let p = analysed(&Family::Splitting(vec![
        Substep::Kick(1.0),
        Substep::Drift(0.9),
    ]));
    assert_eq!(p.order, 0);
    assert!((p.first_failure.unwrap().residual + 0.1).abs() < 1e-15);
}

/// Heun's method: order 2, and the first order-3 condition, Σ b_i c_i² = 1/3, fails by
/// 1/2 − 1/3.
#[test]
fn a_failing_order_three_condition_is_reported() {
    let v = analysed(&known::heun2());
    assert_eq!(v.order, 2);
    let c = v.first_failure.unwrap();
    assert_eq!(c.order, 3);
    assert_eq!(c.tree, "•[•,•]");
    assert_eq!(c.condition, "Σ b_i c_i² = 1/3");
    assert!((c.residual - 1.0 / 6.0).abs() < 1e-15, "{}", c.residual);
    // a partitioned method names the tableau of each factor: symplectic Euler A's
    // first order-2 condition is Σ b_i a_ij = 1/2 of the q tableau (a = 0)
    let a = analysed(&builtin("symplectic-euler-a"))
        .first_failure
        .unwrap();
    assert_eq!((a.order, a.tree.as_str()), (2, "•[•]"));
    assert_eq!(a.condition, "Σ b_i c_i = 1/2");
    assert_eq!(a.residual, -0.5);
}

/// A composition's stacked tableau and the product of its base's steps are two computations
/// of one map: their stability matrices agree.
#[test]
fn stacked_compositions_equal_products_of_their_steps() {
    for (name, family) in [
        ("yoshida6", builtin("yoshida6")),
        ("kahan-li8", known::kahan_li8()),
        ("gauss2 tripled", triple_jump("gauss2", 4.0)),
        ("nyström tripled", triple_jump("verlet-rkn", 2.0)),
    ] {
        let stacked = Step::Normal(normalise(&family, &resolve).unwrap());
        let Family::Composition(Composition { base, weights, .. }) = &family else {
            unreachable!()
        };
        let base = normalise(&resolve(base).unwrap(), &resolve).unwrap();
        let product = Step::Composition(Box::new(Step::Normal(base)), weights.clone());
        for x in [0.1, 0.7, 1.3] {
            let (a, b) = (stacked.matrix(x).unwrap(), product.matrix(x).unwrap());
            for i in 0..2 {
                for j in 0..2 {
                    assert!(
                        (a[i][j] - b[i][j]).abs() < 1e-12,
                        "{name} at {x}: {a:?} {b:?}"
                    );
                }
            }
        }
    }
}

/// Radau IIA damps (spectral radius below 1), Gauss keeps it at 1, at every hω.
#[test]
fn a_stable_methods_keep_the_spectral_radius_at_most_one() {
    let step = |f: &Family| Step::Normal(normalise(f, &resolve).unwrap());
    let (gauss, radau) = (step(&known::gauss3()), step(&known::radau_iia_3()));
    for x in [0.5, 5.0, 50.0, 500.0] {
        assert!((spectral_radius(&gauss, x).unwrap() - 1.0).abs() < 1e-9);
        assert!(spectral_radius(&radau, x).unwrap() < 1.0 - 1e-6);
    }
}

#[test]
fn bad_input_is_an_input_error() {
    let unknown = Family::Composition(Composition::new("nope", vec![1.0]));
    let e = analyse(&unknown, &resolve).unwrap_err();
    assert!(
        e.is_input() && e.to_string().contains("unknown base method 'nope'"),
        "{e}"
    );
    let cycle = Family::Composition(Composition::new("itself", vec![1.0]));
    let e = analyse(&cycle, &resolve).unwrap_err();
    assert!(
        e.is_input() && e.to_string().contains("lead back to itself"),
        "{e}"
    );
    let ragged = known::rk(vec![vec![0.0, 0.0], vec![1.0]], vec![0.5, 0.5]);
    let e = analyse(&ragged, &resolve).unwrap_err();
    assert!(
        e.is_input() && e.to_string().starts_with("a: must be 2×2"),
        "{e}"
    );
    let nan = known::rk(vec![vec![f64::NAN]], vec![1.0]);
    assert!(analyse(&nan, &resolve)
        .unwrap_err()
        .to_string()
        .contains("not a finite number"));
    let empty = Family::Composition(Composition::new("verlet", vec![]));
    assert!(analyse(&empty, &resolve).unwrap_err().is_input());
}

/// The serialised form config.toml records (and `--json` builds on): the interval as a pair,
/// its end `inf` when unbounded.
#[test]
fn verdicts_serialise_with_the_interval_as_a_pair() {
    let text = |f: &Family| toml::to_string(&analysed(f)).unwrap();
    assert!(text(&builtin("verlet")).contains("stability_interval = [0.0, 2.0"));
    assert!(text(&known::gauss2()).contains("stability_interval = [0.0, inf]"));
    assert!(text(&builtin("euler")).contains("stability_interval = [0.0, 0.0]"));
    let heun = text(&known::heun2());
    assert!(heun.contains("order = 2\n"), "{heun}");
    assert!(heun.contains("[first_failure]\norder = 3\n"), "{heun}");
}

/// The analysis of a 34-stage partitioned method (Kahan–Li over Störmer–Verlet: 24 314
/// bicoloured trees up to order 8), timed for the report.
#[test]
fn the_largest_check_is_timed() {
    let f = known::kahan_li8();
    let start = std::time::Instant::now();
    let v = analysed(&f);
    let first = start.elapsed();
    let start = std::time::Instant::now();
    analysed(&f);
    println!(
        "kahan-li8 (34-stage PRK, order {}): {:.3} s with the trees' generation, {:.3} s after",
        v.order,
        first.as_secs_f64(),
        start.elapsed().as_secs_f64()
    );
}

/// The built-ins' tableaus step as their code does: one step of each from the same state on
/// a non-separable H (the double pendulum; the splitting on the separable Hénon–Heiles),
/// the tableau's by an independent fixed-point solve.
#[test]
fn builtin_tableaus_match_their_code() {
    for &m in ALL {
        let Some(family) = builtin::family_of(m) else {
            continue;
        };
        let name = if m == Method::BlanesMoan4 {
            "henon-heiles"
        } else {
            "double-pendulum"
        };
        let system = System::new(name, &BTreeMap::new()).unwrap();
        let (q0, p0) = (vec![0.3, -0.2], vec![0.1, 0.25]);
        let mut b = Block::<f64>::new(1, 2, 0);
        b.q.copy_from_slice(&q0);
        b.p.copy_from_slice(&p0);
        let h = 0.05;
        step_block(m, &system, &mut b, h, true);
        let (mut q, mut p) = (q0, p0);
        reference_step(
            system.hamiltonian().unwrap(),
            &family,
            &resolve,
            &mut q,
            &mut p,
            h,
        );
        for k in 0..2 {
            let (dq, dp) = ((b.q[k] - q[k]).abs(), (b.p[k] - p[k]).abs());
            assert!(
                dq < 1e-13 && dp < 1e-13,
                "{}: {:?} {:?} vs {q:?} {p:?}",
                m.name(),
                b.q,
                b.p
            );
        }
    }
}

/// Each built-in's stability end divides its own steps on the oscillator (ω = 1) into
/// bounded (1 % below the end) and growing (0.1 % above: blanes-moan4's instability beyond
/// its end is a band 0.005 wide, where T(hω) dips 6·10⁻⁶ below −2, stable again after).
#[test]
fn builtin_stability_ends_bound_their_steps() {
    let system = System::new("oscillator", &BTreeMap::new()).unwrap();
    for &m in ALL {
        let Some(family) = builtin::family_of(m) else {
            continue;
        };
        let StabilityInterval::UpTo(end) = analysed(&family).stability_interval else {
            continue;
        };
        let amplitude = |h: f64| {
            let mut b = Block::<f64>::new(1, 1, 0);
            b.q[0] = 1.0;
            let mut most = 0.0f64;
            for i in 0..20_000 {
                step_block(m, &system, &mut b, h, i == 0);
                most = most.max(b.q[0].hypot(b.p[0]));
            }
            most
        };
        let (below, above) = (amplitude(0.99 * end), amplitude(1.001 * end));
        assert!(below < 20.0, "{}: {below} below {end}", m.name());
        assert!(above >= 1e3, "{}: {above} above {end}", m.name());
    }
}

/// Blanes–Moan's SRKN₁₁ᵇ is built for H = ½p² + V(q), where fewer conditions apply: order 6
/// there (the Nyström trees), lower on other separable H (an order-5 condition fails).
#[test]
fn a_nystrom_splitting_has_its_order_on_quadratic_kinetic_energy() {
    let v = analysed(&known::blanes_moan_srkn11b());
    println!(
        "SRKN11b: order {} (first failure {:?}), Nyström order {}, symmetric {}, interval {}",
        v.order, v.first_failure, v.order_nystrom, v.symmetric, v.stability_interval
    );
    assert_eq!(v.order_nystrom, 6);
    assert!(v.order < 6);
    assert!(v.symplectic && v.symmetric && v.explicit);
}

/// One step of `m` on the CPU block `b`, after the method's prologue when it is the `first`
/// of a run of steps (as the engine runs them).
fn step_block(m: Method, system: &System, b: &mut Block<f64>, h: f64, first: bool) {
    let mut ops = crate::method::Cpu { system, b, h };
    if first {
        m.prologue(&mut ops);
    }
    m.step(&mut ops);
}

/// The stages of a tableau listed in the order `perm` (new stage i is old stage perm[i]).
fn permuted(
    t: &crate::method::tableau::Tableau,
    perm: &[usize],
) -> crate::method::tableau::Tableau {
    crate::method::tableau::Tableau {
        a: perm
            .iter()
            .map(|&i| perm.iter().map(|&j| t.a[i][j]).collect())
            .collect(),
        b: perm.iter().map(|&i| t.b[i]).collect(),
        c: perm.iter().map(|&i| t.c[i]).collect(),
    }
}

/// Symmetry is a property of the map, not of the order the stages are listed in: Gauss-3,
/// the Lobatto IIIA–IIIB-3 pair and Gauss-2 as a Nyström method with their stages listed
/// 2, 1, 3 (2, 1) are the same maps and still symmetric; Radau IIA-3 permuted is still not.
#[test]
fn symmetry_does_not_depend_on_the_order_of_the_stages() {
    let perm = [1, 0, 2];
    let Family::Rk(g) = known::gauss3() else {
        unreachable!()
    };
    assert!(analysed(&Family::Rk(permuted(&g, &perm))).symmetric);
    let Family::Prk(l) = known::lobatto_iiia_iiib_3() else {
        unreachable!()
    };
    let pair = crate::method::tableau::Prk {
        q: permuted(&l.q, &perm),
        p: permuted(&l.p, &perm),
    };
    assert!(analysed(&Family::Prk(pair)).symmetric);
    // the q tableau permuted alone is another method, which is not symmetric
    let mixed = crate::method::tableau::Prk {
        q: permuted(&l.q, &perm),
        p: l.p.clone(),
    };
    assert!(!analysed(&Family::Prk(mixed)).symmetric);
    let Family::Rkn(r) = known::as_rkn(&permuted(&known::gauss2_tableau(), &[1, 0])) else {
        unreachable!()
    };
    assert!(analysed(&Family::Rkn(r)).symmetric);
    let Family::Rk(radau) = known::radau_iia_3() else {
        unreachable!()
    };
    for perm in [[0, 1, 2], [1, 0, 2], [2, 1, 0], [2, 0, 1]] {
        assert!(!analysed(&Family::Rk(permuted(&radau, &perm))).symmetric);
    }
}

/// A condition whose residual is beyond the rounding of exact coefficients but within the
/// tolerance is not decided, and the order is reported as a lower bound: the triple jump with
/// its weights given to 10 digits misses its order-3 conditions by about 1e-10 of their terms'
/// size, so its order is "at least 2" (not 4, as the tolerance alone said); with the exact
/// weights it is 4, decided, and Heun's method fails its order-3 condition outright.
#[test]
fn a_residual_between_rounding_and_tolerance_gives_a_lower_bound() {
    let ten_digits = Family::Composition(Composition::new(
        "verlet",
        vec![1.351207192, -1.702414384, 1.351207192],
    ));
    let v = analysed(&ten_digits);
    assert_eq!((v.order, v.order_at_least), (2, true), "{v:?}");
    let c = v.first_failure.unwrap();
    assert_eq!(c.order, 3);
    assert!(c.residual.abs() > 1e-12 && c.residual.abs() < 1e-8, "{c:?}");
    let exact = analysed(&known::triple_jump());
    assert_eq!((exact.order, exact.order_at_least), (4, false));
    let heun = analysed(&known::heun2());
    assert_eq!((heun.order, heun.order_at_least), (2, false));
}

/// 63 symmetric weights over Gauss–Legendre 3 (order 6): thirty 0.1 on each side of c, b, c
/// solved so that Σ w = 1 and Σ w⁷ = 2e-6. The stacked tableau's conditions take the
/// residual for rounding against weights of size (Σ|w|)⁸ ≈ 1e11, and said order 8; the
/// composition's own condition Σ w⁷ = 0 (against Σ|w|⁷ ≈ 7e5) leaves it undecided, order ≥ 6.
/// Weights that miss it by far (c = −5.58, Σ w⁷ ≈ −313) give order 6, decided.
#[test]
fn a_composition_is_decided_on_its_weights_not_only_its_stacked_tableau() {
    let (c, b) = (-5.580914696615276, 6.161829393230552);
    let weights = |c: f64, b: f64| {
        let mut w = vec![0.1; 30];
        w.extend([c, b, c]);
        w.extend([0.1; 30]);
        w
    };
    let w = weights(c, b);
    let seventh: f64 = w.iter().map(|x| x.powi(7)).sum();
    assert!((seventh - 2e-6).abs() < 1e-8, "Σ w⁷ = {seventh}");
    let v = analysed(&Family::Composition(Composition::new("gauss3", w)));
    assert_eq!((v.order, v.order_at_least), (6, true), "{v:?}");
    let failure = v.first_failure.unwrap();
    assert_eq!((failure.order, failure.tree.as_str()), (7, "composition"));
    assert!((failure.residual - 2e-6).abs() < 1e-8, "{failure:?}");
    assert!(failure.condition.contains("Σ w_k⁷ = 0"), "{failure:?}");
    let far = analysed(&Family::Composition(Composition::new(
        "gauss3",
        weights(-5.58, 6.16),
    )));
    assert_eq!((far.order, far.order_at_least), (6, false), "{far:?}");
    // the composition rule never lowers an order the weights reach: the triple jump over
    // Gauss–Legendre 3 is order 8, decided
    let jump = analysed(&triple_jump("gauss3", 6.0));
    assert_eq!((jump.order, jump.order_at_least), (8, false), "{jump:?}");
}
