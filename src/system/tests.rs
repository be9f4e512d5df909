//! Checks every registered system: `energy_block` against `energy`, the fused tangent
//! gradient against the per-column one, and gradients against finite differences.

use super::*;

/// The step the discrete maps' energies are evaluated at (a run's `--dt`).
const DT: f64 = 0.01;

/// A Hamiltonian system's gradients (every system the tests differentiate is one).
fn ham(sys: &System) -> &HamiltonianSystem {
    sys.hamiltonian().expect("a Hamiltonian system")
}

/// Sample states near the default state of a system (deterministic perturbations). Each
/// half (q, p) is perturbed on the scale of the default state's largest entry there, at
/// most 1 (1 where it is 0): the outer solar system's momenta are ~1e-6, and perturbing
/// them by 0.025 would make Pluto's kinetic energy 1e12 times the total and drown the
/// finite differences in rounding.
fn samples(sys: &System) -> Vec<Vec<f64>> {
    let z0 = sys.default_state();
    let d = sys.dof();
    let scale = |half: &[f64]| {
        let m = half.iter().fold(0.0f64, |a, x| a.max(x.abs()));
        if m > 0.0 {
            m.min(1.0)
        } else {
            1.0
        }
    };
    let (sq, sp) = (scale(&z0[..d]), scale(&z0[d..]));
    (0..4)
        .map(|j| {
            z0.iter()
                .enumerate()
                .map(|(k, x)| {
                    let s = if k < d { sq } else { sp };
                    x + s * 0.05 * (((k * 7 + j * 13) % 11) as f64 / 11.0 - 0.5)
                })
                .collect()
        })
        .collect()
}

/// One point as a block of n = 1 (component-major is then just the point).
fn grads(sys: &System, z: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let d = sys.dof();
    let (mut gq, mut gp) = (vec![0.0; d], vec![0.0; d]);
    ham(sys).grad_q(&z[..d], &z[d..], &mut gq);
    ham(sys).grad_p(&z[..d], &z[d..], &mut gp);
    (gq, gp)
}

fn max_dev(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs() / (1.0 + y.abs()))
        .fold(0.0, f64::max)
}

/// `energy_block` against the per-point f64 `energy` (libm) for every system, in f64 and
/// f32 states, over a block taken from the middle of a larger state: bit-identical where it
/// is the default or the same arithmetic, within a few ulp of H for the systems whose H calls
/// sin or cos (the kernels' polynomials, including |q| beyond their range, which falls back to
/// libm), and non-finite for a point with a non-finite component.
#[test]
fn energy_block_matches_energy() {
    fn check<T: Real>(sys: &System, zs: &[Vec<f64>], tol: f64) {
        let (d, n) = (sys.dof(), zs.len() + 3);
        let mut s = crate::state::State::<T>::zeros(n, d);
        for (j, z) in zs.iter().enumerate() {
            for k in 0..d {
                s.q[k * n + j + 2] = T::from_f64(z[k]);
                s.p[k * n + j + 2] = T::from_f64(z[d + k]);
            }
        }
        let mut out = vec![0.0; zs.len()];
        sys.energy_block(DT, &s.q, &s.p, n, 2, &mut out);
        for (j, &h) in out.iter().enumerate() {
            let q: Vec<f64> = (0..d).map(|k| s.q[k * n + j + 2].to_f64()).collect();
            let p: Vec<f64> = (0..d).map(|k| s.p[k * n + j + 2].to_f64()).collect();
            let want = sys.energy(DT, &q, &p);
            if !q.iter().chain(&p).all(|x| x.is_finite()) {
                assert!(!h.is_finite(), "{}: {h} at {q:?} {p:?}", sys.name());
            } else {
                assert!(
                    (h - want).abs() <= tol * (1.0 + want.abs()),
                    "{} {}: {h} vs {want} at {q:?} {p:?}",
                    sys.name(),
                    T::NAME
                );
            }
        }
    }
    for info in CATALOGUE {
        let sys = System::new(info.name, &BTreeMap::new()).unwrap();
        let mut zs = samples(&sys);
        let mut bad = zs[0].clone();
        bad[0] = f64::NAN;
        zs.push(bad);
        // The block's f64 energy evaluates sin and cos by the polynomials the kernels use,
        // the point's by the standard library's: a system whose H calls them agrees to their
        // rounding (the elastic pendulum: 5e-17 at H ≈ 2e-3), any other exactly.
        let trigonometric = sys
            .formula()
            .is_some_and(|(h, _, _)| h.contains("sin") || h.contains("cos"));
        let tol = if trigonometric { 1e-15 } else { 0.0 };
        check::<f64>(&sys, &zs, tol);
        check::<f32>(&sys, &zs, tol);
    }
    // The pendulum over many turns and both momenta, and beyond the polynomial's range.
    let sys = System::new(pendulum::NAME, &BTreeMap::new()).unwrap();
    let zs: Vec<Vec<f64>> = (-20_000..20_000)
        .map(|i| {
            vec![
                i as f64 * 1.37e-3 * (1.0 + (i as f64).abs()),
                3.0 - i as f64 * 1.5e-4,
            ]
        })
        .collect();
    check::<f64>(&sys, &zs, 1e-15);
    check::<f32>(&sys, &zs, 1e-15);
    check::<f64>(
        &sys,
        &[vec![3e8, 0.1], vec![-1e7, 0.2], vec![f64::INFINITY, 0.0]],
        1e-15,
    );
}

/// `grad_q_tangent` and `grad_p_tangent` (overridden where a system shares work between the
/// gradient and its linearisation) give exactly what `grad_q` and `grad_q_dir` (`grad_p` and
/// `grad_p_dir`) per column give, in f32 and f64, over a block longer than the pendulum's run
/// of 64 points, with 2d columns (`--tangent`) and with one (`--chaos`'s deviation vector).
#[test]
fn grad_q_tangent_equals_the_per_column_evaluation() {
    fn check<T: Real>(sys: &System, n: usize, cols: usize) {
        let d = sys.dof();
        let nd = n * d;
        let len = nd * (1 + cols);
        let val = |k: usize, s: f64| T::from_f64(s * (((k * 37) % 101) as f64 / 101.0 - 0.5));
        let z0 = sys.default_state();
        // points near the default state (component-major), then arbitrary tangent columns
        let q: Vec<T> = (0..len)
            .map(|k| {
                if k < nd {
                    T::from_f64(z0[k / n]) + val(k, 0.1)
                } else {
                    val(k, 1.0)
                }
            })
            .collect();
        let p: Vec<T> = (0..len)
            .map(|k| {
                if k < nd {
                    T::from_f64(z0[d + k / n]) + val(k + 5, 0.1)
                } else {
                    val(k + 5, 1.0)
                }
            })
            .collect();
        // ∂H/∂q's then ∂H/∂p's.
        let mut fused = vec![T::ZERO; 2 * len];
        ham(sys).grad_q_tangent(nd, &q, &p, &mut fused[..len]);
        let mut apart = vec![T::ZERO; 2 * len];
        ham(sys).grad_q(&q[..nd], &p[..nd], &mut apart[..nd]);
        for j in 1..=cols {
            let r = j * nd..(j + 1) * nd;
            ham(sys).grad_q_dir(
                &q[..nd],
                &p[..nd],
                &q[r.clone()],
                &p[r.clone()],
                &mut apart[r],
            );
        }
        ham(sys).grad_p_tangent(nd, &q, &p, &mut fused[len..]);
        ham(sys).grad_p(&q[..nd], &p[..nd], &mut apart[len..len + nd]);
        for j in 1..=cols {
            let r = j * nd..(j + 1) * nd;
            ham(sys).grad_p_dir(
                &q[..nd],
                &p[..nd],
                &q[r.clone()],
                &p[r.clone()],
                &mut apart[len + r.start..len + r.end],
            );
        }
        for k in 0..2 * len {
            assert!(
                fused[k].to_f64() == apart[k].to_f64(),
                "{} ({}, {cols} columns): entry {k}",
                sys.name(),
                T::NAME
            );
        }
    }
    // Variational systems have no Hamiltonian gradients (`System::hamiltonian` is None).
    for info in CATALOGUE.iter().filter(|i| !i.variational) {
        let sys = System::new(info.name, &BTreeMap::new()).unwrap();
        for cols in [1, 2 * sys.dof()] {
            check::<f32>(&sys, 70, cols);
            check::<f64>(&sys, 70, cols);
        }
    }
}

/// ∂H/∂q, ∂H/∂p against central differences of H, and the directional derivatives against
/// central differences of the gradients, for every system at states near its default.
#[test]
fn gradients_match_finite_differences_for_every_system() {
    let eps = 1e-6;
    for info in CATALOGUE.iter().filter(|i| !i.variational) {
        let sys = System::new(info.name, &BTreeMap::new()).unwrap();
        let d = sys.dof();
        assert_eq!(sys.default_state().len(), 2 * d, "{}", info.name);
        for z in samples(&sys) {
            let (gq, gp) = grads(&sys, &z);
            let mut fd = vec![0.0; 2 * d];
            for c in 0..2 * d {
                let (mut a, mut b) = (z.clone(), z.clone());
                a[c] += eps;
                b[c] -= eps;
                let h = ham(&sys);
                fd[c] = (h.energy(&a[..d], &a[d..]) - h.energy(&b[..d], &b[d..])) / (2.0 * eps);
            }
            let analytic: Vec<f64> = gq.iter().chain(&gp).copied().collect();
            assert!(
                max_dev(&analytic, &fd) < 1e-6,
                "{}: grad {analytic:?} vs fd {fd:?}",
                info.name
            );
            // Directions: unit vectors and one mixed direction.
            let mut dirs: Vec<Vec<f64>> = (0..2 * d)
                .map(|c| (0..2 * d).map(|k| if k == c { 1.0 } else { 0.0 }).collect())
                .collect();
            dirs.push((0..2 * d).map(|k| 0.3 + 0.1 * k as f64).collect());
            for v in dirs {
                let (mut oq, mut op) = (vec![0.0; d], vec![0.0; d]);
                ham(&sys).grad_q_dir(&z[..d], &z[d..], &v[..d], &v[d..], &mut oq);
                ham(&sys).grad_p_dir(&z[..d], &z[d..], &v[..d], &v[d..], &mut op);
                let a: Vec<f64> = z.iter().zip(&v).map(|(x, w)| x + eps * w).collect();
                let b: Vec<f64> = z.iter().zip(&v).map(|(x, w)| x - eps * w).collect();
                let (aq, ap) = grads(&sys, &a);
                let (bq, bp) = grads(&sys, &b);
                let fd: Vec<f64> = aq
                    .iter()
                    .zip(&bq)
                    .chain(ap.iter().zip(&bp))
                    .map(|(x, y)| (x - y) / (2.0 * eps))
                    .collect();
                let analytic: Vec<f64> = oq.iter().chain(&op).copied().collect();
                assert!(
                    max_dev(&analytic, &fd) < 1e-5,
                    "{}: dir {v:?}: {analytic:?} vs fd {fd:?}",
                    info.name
                );
            }
        }
    }
}

#[test]
fn indexed_parameters_are_accepted_only_where_declared() {
    let given = BTreeMap::from([("m_2".to_string(), 1.0)]);
    assert!(resolve_params(&pendulum::INFO, &given).is_err());
}

/// A formula's cap on d is the largest built-in system's size, which the kernels are built for.
#[test]
fn the_formula_dof_cap_is_the_largest_chain() {
    assert_eq!(crate::expr::MAX_DOF, 2 * spring_chain::MAX_MASSES);
}

/// Every built-in Hamiltonian system (not the variational ones, which have no H) writes its
/// H as a formula (`Hamiltonian::formula`), with non-default parameters where it has some:
/// compiled, the formula's H and gradients equal the system's own at sample points.
#[test]
fn every_hamiltonian_system_has_a_formula_equal_to_its_h() {
    for info in CATALOGUE.iter().filter(|i| !i.variational) {
        // Each parameter moved off its default (a chain's spring count kept).
        let params: BTreeMap<String, f64> = info
            .params
            .iter()
            .filter(|p| p.name != "n")
            .map(|p| (p.name.to_string(), p.default * 1.1 + 0.01))
            .collect();
        let sys = System::new(info.name, &params).unwrap();
        let Some((formula, params, dof)) = sys.formula() else {
            panic!("{}: no formula", info.name);
        };
        let e = crate::expr::ExprHamiltonian::new(&formula, &params, dof).unwrap();
        assert_eq!(e.dof, sys.dof(), "{}", info.name);
        assert_eq!(e.separable, sys.separable(), "{}", info.name);
        let d = sys.dof();
        for z in samples(&sys) {
            let (q, p) = (&z[..d], &z[d..]);
            let (h, want) = (e.energy(q, p), ham(&sys).energy(q, p));
            assert!(
                (h - want).abs() <= 1e-12 * (1.0 + want.abs()),
                "{}: H {h} vs {want}",
                info.name
            );
            let (mut gq, mut gp) = (vec![0.0; d], vec![0.0; d]);
            e.grad_q(q, p, &mut gq);
            e.grad_p(q, p, &mut gp);
            let (wq, wp) = grads(&sys, &z);
            let dev = max_dev(&gq, &wq).max(max_dev(&gp, &wp));
            assert!(dev < 1e-10, "{}: gradients off by {dev:e}", info.name);
        }
    }
}

/// The `systems!` lists decide each system's kind: the `discrete` list's systems are discrete
/// maps (no gradients to reach: `hamiltonian` is None), the others Hamiltonian systems (no
/// map), and `SystemInfo::variational` says the same.
#[test]
fn each_system_is_of_the_kind_its_list_gives() {
    for info in CATALOGUE {
        let sys = System::new(info.name, &BTreeMap::new()).unwrap();
        assert_eq!(sys.variational(), info.variational, "{}", info.name);
        assert_eq!(
            sys.hamiltonian().is_none(),
            info.variational,
            "{}",
            info.name
        );
        assert_eq!(sys.discrete().is_some(), info.variational, "{}", info.name);
        assert_eq!(
            sys.constraints().is_some(),
            info.variational,
            "{}",
            info.name
        );
    }
}

/// A discrete map holds no step size: its energy is evaluated at the step it is given (the
/// pendulum's E_d = ½v² − ½ω²(cos q + cos(q + h v))), and its energy kernel's `H_STEP` is
/// that step; a Hamiltonian system's H and constants do not depend on it.
#[test]
fn a_discrete_maps_energy_is_evaluated_at_the_step_it_is_given() {
    let map = System::new(pendulum_variational::NAME, &BTreeMap::new()).unwrap();
    let (q, v) = (0.3f64, 0.7f64);
    for h in [0.001, 0.05, -0.02] {
        let want = 0.5 * v * v - 0.5 * (q.cos() + (q + h * v).cos());
        assert_eq!(map.energy(h, &[q], &[v]), want);
        let constants = map.energy_constants(h);
        assert_eq!(constants.last(), Some(&("H_STEP", h)));
    }
    assert!(!map
        .wgsl_constants()
        .iter()
        .any(|(name, _)| *name == "H_STEP"));
    let pendulum = System::new(pendulum::NAME, &BTreeMap::new()).unwrap();
    assert_eq!(
        pendulum.energy(0.001, &[q], &[v]),
        pendulum.energy(0.05, &[q], &[v])
    );
    assert_eq!(pendulum.energy_constants(0.05), pendulum.wgsl_constants());
}

/// Every linearised discrete map advances a block's tangent columns together
/// (`tangent_columns`, which the CPU engine calls) as it advances each column alone, bit for
/// bit: columns do not mix, whichever maps override the per-column default.
#[test]
fn discrete_maps_advance_their_tangent_columns_together_as_each_alone() {
    fn check<T: Real>(map: &DiscreteSystem, name: &str, d: usize, n: usize) {
        let (nd, cols) = (n * d, 2 * d);
        let val = |k: usize, s: f64| T::from_f64(s * (((k * 37) % 101) as f64 / 101.0 - 0.5));
        let q: Vec<T> = (0..nd).map(|k| val(k, 1.0)).collect();
        let v: Vec<T> = (0..nd).map(|k| val(k + 3, 1.0)).collect();
        let tq0: Vec<T> = (0..nd * cols).map(|k| val(k + 7, 2.0)).collect();
        let tp0: Vec<T> = (0..nd * cols).map(|k| val(k + 13, 2.0)).collect();
        let h = T::from_f64(DT);
        let (mut tq, mut tp) = (tq0.clone(), tp0.clone());
        map.tangent_columns(h, &q, &v, &mut tq, &mut tp);
        let (mut aq, mut ap) = (tq0, tp0);
        for j in 0..cols {
            let r = j * nd..(j + 1) * nd;
            map.tangent_columns(h, &q, &v, &mut aq[r.clone()], &mut ap[r]);
        }
        let bits = |x: &[T]| x.iter().map(|y| y.to_f64().to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&tq), bits(&aq), "{name} ({}) q rows, n = {n}", T::NAME);
        assert_eq!(bits(&tp), bits(&ap), "{name} ({}) p rows, n = {n}", T::NAME);
        assert!(tq.iter().chain(&tp).all(|x| x.to_f64().is_finite()));
    }
    let mut linearised = Vec::new();
    for info in CATALOGUE.iter().filter(|i| i.variational) {
        let sys = System::new(info.name, &BTreeMap::new()).unwrap();
        let Some(map) = sys.discrete().filter(|m| m.linearised()) else {
            continue;
        };
        for n in [1, 16, 37] {
            check::<f32>(map, info.name, sys.dof(), n);
            check::<f64>(map, info.name, sys.dof(), n);
        }
        linearised.push(info.name);
    }
    // The maps this test covers: the two that take the per-column default and the one that
    // overrides it.
    linearised.sort();
    assert_eq!(
        linearised,
        [
            "double-pendulum-variational",
            "elastic-pendulum-zphi",
            "pendulum-variational"
        ]
    );
}

/// Every system names each of its 2d state components once, positions first: the labels the
/// Python package gives arrays (`Run.components`; from a config.toml's record:
/// `config::file::tests`).
#[test]
fn every_system_names_its_state_components_once() {
    for info in CATALOGUE {
        let sys = System::new(info.name, &BTreeMap::new()).unwrap();
        let names = sys.component_names();
        assert_eq!(names.len(), 2 * sys.dof(), "{}", info.name);
        let distinct: std::collections::BTreeSet<&String> = names.iter().collect();
        assert_eq!(distinct.len(), names.len(), "{}: {names:?}", info.name);
    }
    let pendulum = System::new("pendulum", &BTreeMap::new()).unwrap();
    assert_eq!(pendulum.component_names(), ["θ", "p_θ"]);
}
