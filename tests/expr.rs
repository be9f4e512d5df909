//! `phaseflow::expr`: formulas against the built-in systems, finite-difference checks of the
//! generated gradients and Hessian-vector products on random formulas, separability, the
//! generated WGSL through naga, and malformed formulas.

use std::collections::BTreeMap;

use phaseflow::expr::ExprHamiltonian;
use phaseflow::system::System;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

fn no_params() -> BTreeMap<String, f64> {
    BTreeMap::new()
}

fn compile(src: &str) -> ExprHamiltonian {
    ExprHamiltonian::new(src, &no_params(), None).unwrap_or_else(|e| panic!("{src}: {e}"))
}

/// `n` random points of `d` components each (component-major), in [lo, hi].
fn block(rng: &mut Pcg64, d: usize, n: usize, lo: f64, hi: f64) -> Vec<f64> {
    (0..d * n).map(|_| rng.random_range(lo..hi)).collect()
}

fn assert_close(what: &str, got: &[f64], want: &[f64], tol: f64) {
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol * w.abs().max(1.0),
            "{what}[{i}]: {g} vs {w} (diff {:e})",
            (g - w).abs()
        );
    }
}

/// The four block functions and H of `expr` against the built-in `system`, f64.
fn against_builtin(expr: &ExprHamiltonian, system: &System, q: &[f64], p: &[f64], tol: f64) {
    let (len, d) = (q.len(), expr.dof);
    let mut rng = Pcg64::seed_from_u64(99);
    let (vq, vp) = (
        block(&mut rng, 1, len, -1.0, 1.0),
        block(&mut rng, 1, len, -1.0, 1.0),
    );
    let system = system.hamiltonian().expect("a Hamiltonian system");
    let (mut a, mut b) = (vec![0.0; len], vec![0.0; len]);
    expr.grad_q(q, p, &mut a);
    system.grad_q(q, p, &mut b);
    assert_close("grad_q", &a, &b, tol);
    expr.grad_p(q, p, &mut a);
    system.grad_p(q, p, &mut b);
    assert_close("grad_p", &a, &b, tol);
    expr.grad_q_dir(q, p, &vq, &vp, &mut a);
    system.grad_q_dir(q, p, &vq, &vp, &mut b);
    assert_close("grad_q_dir", &a, &b, tol);
    expr.grad_p_dir(q, p, &vq, &vp, &mut a);
    system.grad_p_dir(q, p, &vq, &vp, &mut b);
    assert_close("grad_p_dir", &a, &b, tol);
    let n = len / d;
    let point = |x: &[f64], i: usize| (0..d).map(|k| x[k * n + i]).collect::<Vec<f64>>();
    let mut block_h = vec![0.0; n];
    expr.energy_block(q, p, n, 0, &mut block_h);
    for (i, &hb) in block_h.iter().enumerate() {
        let (qi, pi) = (point(q, i), point(p, i));
        let (e, s) = (expr.energy(&qi, &pi), system.energy(&qi, &pi));
        assert!(
            (e - s).abs() <= tol * s.abs().max(1.0),
            "H at {i}: {e} vs {s}"
        );
        assert_eq!(hb, e, "energy_block at {i}");
    }
}

#[test]
fn pendulum_formula_matches_the_builtin_pendulum() {
    let expr = compile("p^2/2 + 1 - cos(q)");
    assert_eq!(expr.dof, 1);
    assert!(expr.separable);
    let system = System::new("pendulum", &no_params()).unwrap();
    let mut rng = Pcg64::seed_from_u64(1);
    let (q, p) = (
        block(&mut rng, 1, 1000, -10.0, 10.0),
        block(&mut rng, 1, 1000, -3.0, 3.0),
    );
    against_builtin(&expr, &system, &q, &p, 1e-14);
}

#[test]
fn kepler_formula_matches_the_builtin_kepler() {
    let expr = compile("(p1^2+p2^2)/2 - 1/sqrt(q1^2+q2^2)");
    assert_eq!(expr.dof, 2);
    assert!(expr.separable);
    let system = System::new("kepler", &no_params()).unwrap();
    let mut rng = Pcg64::seed_from_u64(2);
    let n = 500;
    let (mut q, p) = (vec![0.0; 2 * n], block(&mut rng, 2, n, -1.5, 1.5));
    for i in 0..n {
        let (r, a) = (
            rng.random_range(0.5..2.0),
            rng.random_range(0.0..std::f64::consts::TAU),
        );
        q[i] = r * f64::cos(a);
        q[n + i] = r * f64::sin(a);
    }
    against_builtin(&expr, &system, &q, &p, 1e-14);
}

#[test]
fn parameters_are_folded_in() {
    let params = BTreeMap::from([("k".to_string(), 4.0), ("m".to_string(), 2.0)]);
    let expr = ExprHamiltonian::new("p^2/(2*m) + k*q^2/2", &params, None).unwrap();
    let (q, p) = ([0.5, -1.0], [3.0, 1.0]);
    let mut g = [0.0; 2];
    expr.grad_q(&q, &p, &mut g);
    assert_eq!(g, [2.0, -4.0]);
    expr.grad_p(&q, &p, &mut g);
    assert_eq!(g, [1.5, 0.5]);
    assert_eq!(expr.energy(&[1.0], &[2.0]), 3.0);
}

#[test]
fn non_integer_powers_go_through_exp_and_log() {
    let params = BTreeMap::from([("n".to_string(), 2.0), ("a".to_string(), 1.5)]);
    let integer = ExprHamiltonian::new("q^n + p^2", &params, None).unwrap();
    assert!(!integer.wgsl().contains("exp("), "q^n with n = 2 is q*q");
    let h = ExprHamiltonian::new("q^a + p^2/2", &params, None).unwrap();
    let mut g = [0.0f64];
    h.grad_q(&[4.0], &[0.0], &mut g);
    assert!(
        (g[0] - 3.0).abs() < 1e-14,
        "d/dq q^1.5 = 1.5 q^0.5 = 3 at 4: {}",
        g[0]
    );
    assert!((h.energy(&[4.0], &[0.0]) - 8.0).abs() < 1e-14);
}

/// The derivative of q^n/n is q^(n-1) itself, not n·(q^(n-1)/n), which rounds twice and
/// differs from it in the last bit at many points.
#[test]
fn a_power_over_its_exponent_differentiates_to_the_lower_power_bit_for_bit() {
    let h = compile("p^2/2 + q^3/3");
    let mut rng = Pcg64::seed_from_u64(7);
    let q = block(&mut rng, 1, 1000, -3.0, 3.0);
    let mut g = vec![0.0; q.len()];
    h.grad_q(&q, &q, &mut g);
    for (g, q) in g.iter().zip(&q) {
        assert_eq!(
            g.to_bits(),
            (q * q).to_bits(),
            "d/dq q^3/3 at {q}: {g} vs {}",
            q * q
        );
    }
}

#[test]
fn separability_is_detected_symbolically() {
    let params = BTreeMap::from([("b".to_string(), 0.7)]);
    let separable = [
        "p^2/2 + 1 - cos(q)",
        "(p1^2 + p2^2)/2 + (q1^2 + q2^2)/2 + q1^2*q2 - q2^3/3",
        "(p1^2 + p2^2)/2 + exp(q1 - q2) + exp(q2 - q3) + exp(q3 - q1) + p3^2/2",
        "p^4 + q^4 + (p*q - q*p)",
        "sqrt(1 + p^2) + b*log(1 + q^2)",
    ];
    for src in separable {
        let h = ExprHamiltonian::new(src, &params, None).unwrap();
        assert!(h.separable, "{src} is separable");
    }
    let not_separable = [
        "((p1 + b*q2/2)^2 + (p2 - b*q1/2)^2)/2",
        "p*q",
        "p^2*(1 + q^2)/2",
        "cos(q1 - q2)*p1*p2 + p1^2/2 + p2^2/2",
    ];
    for src in not_separable {
        let h = ExprHamiltonian::new(src, &params, None).unwrap();
        assert!(!h.separable, "{src} is not separable");
    }
}

/// A random formula in q1, q2, p1, p2, finite and smooth everywhere.
fn random_formula(rng: &mut Pcg64, depth: u32) -> String {
    const LEAVES: [&str; 7] = ["q1", "q2", "p1", "p2", "0.5", "1.3", "2"];
    if depth == 0 || rng.random_range(0..4) == 0 {
        return LEAVES[rng.random_range(0..LEAVES.len())].to_string();
    }
    let a = random_formula(rng, depth - 1);
    let b = random_formula(rng, depth - 1);
    match rng.random_range(0..15) {
        0 => format!("({a} + {b})"),
        1 => format!("({a} - {b})"),
        2 | 3 => format!("({a} * {b})"),
        4 => format!("({a} / (2 + ({b})^2))"),
        5 => format!("-{a}"),
        6 => format!("sin({a})"),
        7 => format!("cos({a})"),
        8 => format!("exp(sin({a}))"),
        9 => format!("atan({a})"),
        10 => format!("tanh({a})"),
        11 => format!("sqrt(1 + ({a})^2)"),
        12 => format!("log(2 + ({a})^2)"),
        13 => format!("({a})^3"),
        _ => format!("(1.5 + ({a})^2)^-2 + tan(0.3*sin({b}))"),
    }
}

/// The gradient from central differences of H at (q, p) of one point.
fn fd_gradient(h: &ExprHamiltonian, q: &[f64], p: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let step = 1e-5;
    let diff = |f: &dyn Fn(f64) -> f64| (f(step) - f(-step)) / (2.0 * step);
    let d = q.len();
    let gq = (0..d)
        .map(|k| {
            diff(&|s| {
                let mut x = q.to_vec();
                x[k] += s;
                h.energy(&x, p)
            })
        })
        .collect();
    let gp = (0..d)
        .map(|k| {
            diff(&|s| {
                let mut x = p.to_vec();
                x[k] += s;
                h.energy(q, &x)
            })
        })
        .collect();
    (gq, gp)
}

#[test]
fn random_formulas_gradients_match_finite_differences() {
    let mut rng = Pcg64::seed_from_u64(13);
    for case in 0..200 {
        let src = random_formula(&mut rng, 4);
        let h = ExprHamiltonian::new(&src, &no_params(), Some(2)).unwrap();
        let (q, p) = (
            block(&mut rng, 2, 1, -1.5, 1.5),
            block(&mut rng, 2, 1, -1.5, 1.5),
        );
        let (mut gq, mut gp) = (vec![0.0; 2], vec![0.0; 2]);
        h.grad_q(&q, &p, &mut gq);
        h.grad_p(&q, &p, &mut gp);
        let (fq, fp) = fd_gradient(&h, &q, &p);
        let what = format!("case {case}: {src} at q={q:?} p={p:?}");
        assert_close(&format!("{what} grad_q"), &gq, &fq, 1e-6);
        assert_close(&format!("{what} grad_p"), &gp, &fp, 1e-6);
    }
}

#[test]
fn random_formulas_hessian_vector_products_match_finite_differences() {
    let mut rng = Pcg64::seed_from_u64(17);
    let step = 1e-5;
    for case in 0..200 {
        let src = random_formula(&mut rng, 4);
        let h = ExprHamiltonian::new(&src, &no_params(), Some(2)).unwrap();
        let (q, p) = (
            block(&mut rng, 2, 1, -1.5, 1.5),
            block(&mut rng, 2, 1, -1.5, 1.5),
        );
        let (vq, vp) = (
            block(&mut rng, 2, 1, -1.0, 1.0),
            block(&mut rng, 2, 1, -1.0, 1.0),
        );
        let shifted = |s: f64| {
            let qs: Vec<f64> = q.iter().zip(&vq).map(|(x, v)| x + s * v).collect();
            let ps: Vec<f64> = p.iter().zip(&vp).map(|(x, v)| x + s * v).collect();
            let (mut gq, mut gp) = (vec![0.0; 2], vec![0.0; 2]);
            h.grad_q(&qs, &ps, &mut gq);
            h.grad_p(&qs, &ps, &mut gp);
            (gq, gp)
        };
        let ((qa, pa), (qb, pb)) = (shifted(step), shifted(-step));
        let fd = |a: &[f64], b: &[f64]| -> Vec<f64> {
            a.iter()
                .zip(b)
                .map(|(x, y)| (x - y) / (2.0 * step))
                .collect()
        };
        let (mut dq, mut dp) = (vec![0.0; 2], vec![0.0; 2]);
        h.grad_q_dir(&q, &p, &vq, &vp, &mut dq);
        h.grad_p_dir(&q, &p, &vq, &vp, &mut dp);
        let what = format!("case {case}: {src}");
        assert_close(&format!("{what} grad_q_dir"), &dq, &fd(&qa, &qb), 1e-6);
        assert_close(&format!("{what} grad_p_dir"), &dp, &fd(&pa, &pb), 1e-6);
    }
}

/// Blocks of many points give, per point, what single points give (the runs of the bytecode
/// and their partial last run), in f32 as in f64.
#[test]
fn blocks_agree_with_single_points_in_f32_and_f64() {
    let mut rng = Pcg64::seed_from_u64(23);
    let h = compile("(p1^2 + p2^2)/2 + exp(q1 - q2) + q1^2*sin(q2) + tanh(p1*q2)");
    let n = 203;
    let (q, p) = (
        block(&mut rng, 2, n, -1.0, 1.0),
        block(&mut rng, 2, n, -1.0, 1.0),
    );
    let mut all = vec![0.0; 2 * n];
    h.grad_q(&q, &p, &mut all);
    let (q32, p32): (Vec<f32>, Vec<f32>) = (
        q.iter().map(|&x| x as f32).collect(),
        p.iter().map(|&x| x as f32).collect(),
    );
    let mut all32 = vec![0.0f32; 2 * n];
    h.grad_q(&q32, &p32, &mut all32);
    for i in 0..n {
        let mut one = [0.0; 2];
        h.grad_q(&[q[i], q[n + i]], &[p[i], p[n + i]], &mut one);
        assert_eq!([all[i], all[n + i]], one, "point {i}");
        for k in 0..2 {
            let (a, b) = (all32[k * n + i] as f64, all[k * n + i]);
            assert!(
                (a - b).abs() < 1e-5 * b.abs().max(1.0),
                "f32 point {i}: {a} vs {b}"
            );
        }
    }
}

fn validate_wgsl(h: &ExprHamiltonian, real: &str) {
    let source = format!(
        "alias real = {real};\nconst D: u32 = {}u;\n\
         fn sin_poly(x: real) -> real {{ return sin(x); }}\n\
         fn cos_poly(x: real) -> real {{ return cos(x); }}\n\
         fn opaque(x: real) -> real {{ return x; }}\n{}",
        h.dof,
        h.wgsl()
    );
    if let Err(e) = phaseflow::gpu::shader::validate(&source) {
        panic!("{}: {e}\n{source}", h.source);
    }
}

#[test]
fn generated_wgsl_passes_naga() {
    let params = BTreeMap::from([("b".to_string(), 0.7), ("k".to_string(), 1e-3)]);
    for src in [
        "p^2/2 + 1 - cos(q)",
        "(p1^2+p2^2)/2 - 1/sqrt(q1^2+q2^2)",
        "((p1 + b*q2/2)^2 + (p2 - b*q1/2)^2)/2",
        "p^2/2 + k*q^4 - q^2/2",
        "p^2/2",
    ] {
        let h = ExprHamiltonian::new(src, &params, None).unwrap();
        validate_wgsl(&h, "f32");
        validate_wgsl(&h, "f64");
        let text = h.wgsl();
        assert!(!text.contains("f32") && !text.contains("f64"), "{text}");
        for f in [
            "fn grad_q(",
            "fn grad_p(",
            "fn grad_q_dir(",
            "fn grad_p_dir(",
        ] {
            assert!(text.contains(f), "{f} missing:\n{text}");
        }
    }
    let mut rng = Pcg64::seed_from_u64(29);
    for _ in 0..50 {
        let h = ExprHamiltonian::new(&random_formula(&mut rng, 4), &no_params(), Some(2)).unwrap();
        validate_wgsl(&h, "f32");
    }
}

#[test]
fn energy_wgsl_passes_naga_where_vulkan_has_the_f64_functions() {
    let math = include_str!("../shaders/energy/math_f64.wgsl");
    for (src, portable) in [
        ("p^2/2 + 1 - cos(q)", true),
        ("(p1^2+p2^2)/2 - 1/sqrt(q1^2+q2^2) + sin(q1)*0.25", true),
        ("p^2/2 + exp(q)", false),
        ("p^2/2 + atan(q)", false),
    ] {
        let h = compile(src);
        let Some(text) = h.energy_wgsl() else {
            assert!(!portable, "{src}: no energy WGSL");
            continue;
        };
        assert!(portable, "{src}: exp/atan in f64 WGSL");
        // `keep_f64` as the energy reduction defines it (src/gpu/energy.rs).
        let keep = "fn keep_f64(x: f64) -> f64 { return x; }";
        let source = format!("const D: u32 = {}u;\n{keep}\n{math}\n{text}", h.dof);
        if let Err(e) = phaseflow::gpu::shader::validate(&source) {
            panic!("{src}: {e}\n{source}");
        }
    }
}

#[test]
fn pendulum_wgsl_uses_the_shared_polynomial() {
    let text = compile("p^2/2 + 1 - cos(q)").wgsl();
    assert!(text.contains("sin_poly(q[0])"), "{text}");
    assert!(text.contains("cos_poly(q[0])"), "{text}");
    assert!(text.contains("return array<real, D>(p[0]);"), "{text}");
}

#[test]
fn shared_subexpressions_are_computed_once() {
    // 1/sqrt(q1² + q2²) and its cube appear in both components of the Kepler force.
    let h = compile("(p1^2+p2^2)/2 - 1/sqrt(q1^2+q2^2)");
    let text = h.wgsl();
    let after = text.split("fn grad_q(").nth(1).unwrap();
    let grad_q = after.split("fn grad_p(").next().unwrap();
    assert_eq!(grad_q.matches("sqrt(").count(), 1, "{grad_q}");
    // H, 2 gradients and 2 directional derivatives of 2 components each share one DAG.
    assert!(h.nodes() < 60, "{} nodes", h.nodes());
}

#[test]
fn malformed_formulas_are_input_errors_pointing_at_the_column() {
    let params = BTreeMap::from([("b".to_string(), 1.0)]);
    let cases: &[(&str, Option<usize>, &str, usize)] = &[
        ("(p^2 + q", None, "unbalanced '('", 1),
        ("p^2 + q)", None, "unbalanced ')'", 8),
        ("foo(q) + p", None, "unknown function 'foo'", 1),
        ("p^2 + k*q^2", None, "--param k=VALUE", 7),
        (
            "q3 + p1",
            Some(2),
            "index 3 is above the 2 degrees of freedom",
            1,
        ),
        ("p^2 +", None, "trailing operator", 6),
        ("", None, "empty", 1),
        ("   ", None, "empty", 1),
        ("p^2 + 1/0", None, "division by a constant zero", 8),
        ("p^2 + q/(b - 1)", None, "division by a constant zero", 8),
        ("sin() + p", None, "sin takes one argument", 5),
        ("2**3*q", None, "'**'", 3),
        ("q # p", None, "unexpected character '#'", 3),
        ("q + q1", None, "mixed", 5),
        ("2q + p", None, "write '*'", 2),
        ("log(0) + q", None, "not a finite number", 1),
        ("q0 + p0", None, "indices start at 1", 1),
        ("sin q", None, "is a function", 1),
        ("p^2/2 + q", Some(2), "write q1..q2", 1),
        ("p^2 * (q + )", None, "')' where a value is expected", 12),
        ("atan(q, p)", None, "atan takes one argument", 7),
    ];
    for &(src, dof, needle, column) in cases {
        let err = match ExprHamiltonian::new(src, &params, dof) {
            Ok(_) => panic!("{src:?} was accepted"),
            Err(e) => e,
        };
        assert!(err.is_input(), "{src:?}: not an input error: {err}");
        let msg = err.to_string();
        assert!(msg.contains(needle), "{src:?}: {msg:?} lacks {needle:?}");
        assert!(
            msg.contains(&format!("(column {column})")),
            "{src:?}: {msg}"
        );
        let caret = format!("\n  {src}\n  {}^", " ".repeat(column - 1));
        assert!(
            msg.ends_with(&caret),
            "{src:?}: caret not under column {column}:\n{msg}"
        );
    }
}
