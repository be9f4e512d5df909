//! `--modified-hamiltonian K` and `show-modified-hamiltonian` for symplectic Runge–Kutta and
//! partitioned methods by trees, on any H: the implicit midpoint rule, gauss2 and Verlet on the
//! pendulum and on the non-separable H = (p²/2)(1 + q²) + q²/2 (from (1, 0), h = 0.05, 2·10⁴
//! steps, f64), the residual's power of h, the printed terms, and the methods still refused.

use super::common::{argv, phaseflow, stats};
use super::modified_hamiltonian::{assert_residual_exponent, check};

const PENDULUM: &str = "--system pendulum --center 1,0 --dt 0.05 --steps 20000";
const NON_SEPARABLE: &str =
    "--hamiltonian (p^2/2)*(1+q^2)+q^2/2 --center 1,0 --dt 0.05 --steps 20000";

/// Measured: pendulum 2.20e-5 → 1.45e-8 → 7.7e-12; non-separable 1.07e-4 → 2.30e-8 → 9.0e-11.
#[test]
fn midpoint_modified_energy_is_far_better_conserved() {
    check(
        &format!("{PENDULUM} --method implicit-midpoint"),
        1000.0,
        100.0,
    );
    check(
        &format!("{NON_SEPARABLE} --method implicit-midpoint"),
        1000.0,
        100.0,
    );
}

/// gauss2 (order 4): measured 4.48e-8 → 8.2e-11 → 1.2e-13 on the non-separable H; Verlet there
/// (by trees: not a splitting on this H) 6.25e-4 → 8.9e-7 → 2.1e-9.
#[test]
fn gauss_and_verlet_on_non_separable_h() {
    check(&format!("{NON_SEPARABLE} --method gauss2"), 300.0, 100.0);
    check(&format!("{NON_SEPARABLE} --method verlet"), 300.0, 100.0);
}

/// The residual of H̃_K over t = 100 divides by 2^e per halving of h (0.2, 0.1, 0.05), e the
/// first power of h left out plus one, within 0.2: midpoint K = 1, 2: 4, 6 (measured 3.99,
/// 4.00; 5.99, 5.98 on the pendulum, 4.03, 4.01 and 6.00, 6.00 on the non-separable H);
/// gauss2 K = 1: 6 (6.02, 6.01); Verlet K = 1 on the non-separable H: 4 (3.99, 4.00).
#[test]
fn the_residual_scales_as_the_first_power_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let pendulum = "--system pendulum --center 1,0";
    let non_separable = "--hamiltonian (p^2/2)*(1+q^2)+q^2/2 --center 1,0";
    for (system, method, k, exponent) in [
        (pendulum, "implicit-midpoint", 1, 4.0),
        (pendulum, "implicit-midpoint", 2, 6.0),
        (non_separable, "implicit-midpoint", 1, 4.0),
        (non_separable, "implicit-midpoint", 2, 6.0),
        (non_separable, "gauss2", 1, 6.0),
        (non_separable, "verlet", 1, 4.0),
    ] {
        assert_residual_exponent(dir.path(), system, method, k, exponent);
    }
}

/// The midpoint rule's terms print as formulas phaseflow reads back, the first
/// −(p² cos q + sin² q)/24 on the pendulum; gauss2's, on the non-separable H, with the
/// subexpressions they share named once.
#[test]
fn show_prints_the_terms_of_runge_kutta_methods() {
    for (line, want) in [
        (
            "show-modified-hamiltonian --system pendulum --method implicit-midpoint --order 2",
            "H~ = H + h^2 H3 + h^4 H5",
        ),
        (
            "show-modified-hamiltonian --hamiltonian (p^2/2)*(1+q^2)+q^2/2 --method gauss2 --order 1",
            "H~ = H + h^4 H5",
        ),
    ] {
        let output = phaseflow().args(argv(line)).output().unwrap();
        assert!(output.status.success(), "{line}");
        let text = String::from_utf8(output.stdout).unwrap();
        assert!(text.contains(want), "{text}");
        if text.contains("\nwhere, each subexpression the terms share written once:\n") {
            assert!(text.lines().any(|l| l.starts_with("H5 = ")), "{text}");
            continue;
        }
        for l in text.lines().filter(|l| l.starts_with("H") && !l.starts_with("H~")) {
            let formula = l.split_once(" = ").unwrap().1;
            phaseflow()
                .args(["show-kernel", "--hamiltonian"])
                .arg(formula)
                .assert()
                .success();
        }
        if line.contains("implicit-midpoint") {
            assert!(
                text.contains(
                    "H3 = -(0.041666666666666664*(p*(p*cos(q)))) - 0.041666666666666664*sin(q)^2"
                ),
                "{text}"
            );
        }
    }
}

/// Methods with no modified Hamiltonian exit 2 saying why and what is covered.
#[test]
fn methods_with_no_route_exit_2() {
    for (method, wants) in [
        ("rk4", ["not symplectic", "covered are"]),
        ("radau-iia-2", ["not symplectic", "implicit-midpoint"]),
        ("verlet-rkn", ["no modified Hamiltonian", "Nyström"]),
    ] {
        let a = phaseflow()
            .args(argv(&format!(
                "show-modified-hamiltonian --system pendulum --method {method} --order 1"
            )))
            .assert()
            .code(2);
        let err = String::from_utf8_lossy(&a.get_output().stderr).to_string();
        for w in wants {
            assert!(err.contains(w), "{method}: {err}");
        }
    }
}

/// The GPU engine's state, read back, gives the CPU engine's mod_* columns for the implicit
/// midpoint rule (f64 on both; the columns are computed on the host from either state).
#[test]
fn gpu_and_cpu_agree_on_the_midpoint_columns() {
    let dir = tempfile::tempdir().unwrap();
    let run = |backend: &str| {
        let out = dir.path().join(backend);
        phaseflow()
            .args(argv(&format!(
                "run --system pendulum --method implicit-midpoint --ensemble disk --points 100 \
                 --dt 0.05 --steps 100 --precision f64 --backend {backend} --quiet \
                 --modified-hamiltonian 2 --out"
            )))
            .arg(&out)
            .assert()
            .success();
        super::common::stats(&out)
    };
    let (gpu, cpu) = (run("gpu"), run("cpu"));
    for (g, c) in gpu.iter().zip(&cpu).skip(1) {
        let (a, b) = (g["mod_abs_energy_err_max"], c["mod_abs_energy_err_max"]);
        assert!(b > 0.0 && (a - b).abs() <= 1e-6 * b, "gpu {a:e}, cpu {b:e}");
    }
}

/// The implicit midpoint rule's solve runs to the rounding level by default in f64, so H̃₂'s
/// error does not drift: on the pendulum (from (1, 0), h = 0.05, 2·10⁴ steps) its largest
/// value over the last quarter of the run is within 1e-13 of the first quarter's (measured
/// 7.712e-12 and 7.721e-12; the exact map 7.708e-12). Stopping at a fixed 1e-14 drifted by
/// about 7e-17 a step: 8.05e-12 and 9.09e-12.
#[test]
fn midpoint_modified_energy_does_not_drift_at_the_default_tolerance() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m");
    phaseflow()
        .args(argv(&format!(
            "run {PENDULUM} --method implicit-midpoint --ensemble point --precision f64 \
             --modified-hamiltonian 2 --snapshot-every 10 --backend cpu --quiet --out"
        )))
        .arg(&out)
        .assert()
        .success();
    let rows = stats(&out);
    let errors: Vec<f64> = rows[1..]
        .iter()
        .map(|r| r["mod_abs_energy_err_max"])
        .collect();
    let quarter = errors.len() / 4;
    let largest = |part: &[f64]| part.iter().fold(0.0f64, |m, &x| m.max(x));
    let (first, last) = (largest(&errors[..quarter]), largest(&errors[3 * quarter..]));
    assert!(first > 7e-12 && first < 8e-12, "{first}");
    assert!((last - first).abs() < 1e-13, "{first} → {last}");
    assert_eq!(rows.last().unwrap()["unconverged"], 0.0);
}

/// A symmetric composition of 63 steps of gauss3, a, …, a, 1 − 62a, a, …, a, written to
/// `dir` as a method file.
fn gauss3_composition(dir: &std::path::Path, a: &str) -> std::path::PathBuf {
    let mut weights = vec![a.to_string(); 31];
    weights.push(format!("1 - 62*{a}"));
    weights.extend(vec![a.to_string(); 31]);
    gauss3_weights(dir, a, &weights)
}

/// 63 symmetric steps of gauss3 with weights of both signs up to ±6: thirty 0.1 on each side
/// of c, b, c, solved so that Σ w = 1 and Σ w⁷ = 2e-6.
fn signed_gauss3_composition(dir: &std::path::Path) -> std::path::PathBuf {
    let (c, b) = ("-5.580914696615276", "6.161829393230552");
    let mut signed = vec!["0.1"; 30];
    signed.extend([c, b, c]);
    signed.extend(["0.1"; 30]);
    gauss3_weights(dir, "signed", &signed)
}

/// A composition of steps of gauss3 with `weights` (formulas), written to `dir` as a method
/// file named after `tag`.
fn gauss3_weights(
    dir: &std::path::Path,
    tag: &str,
    weights: &[impl AsRef<str>],
) -> std::path::PathBuf {
    let quoted: Vec<String> = weights
        .iter()
        .map(|w| format!("\"{}\"", w.as_ref()))
        .collect();
    let file = dir.join(format!("c63-{tag}.toml"));
    std::fs::write(
        &file,
        format!(
            "name = \"c63\"\nfamily = \"composition\"\nsummary = \"63 symmetric steps of gauss3\"\nbase = \"gauss3\"\nweights = [{}]\n",
            quoted.join(", ")
        ),
    )
    .unwrap();
    file
}

/// `method check` and `show-modified-hamiltonian --order 1` of the method file `file`.
fn check_and_first_term(file: &std::path::Path) -> (String, String) {
    let text =
        |a: assert_cmd::assert::Assert| String::from_utf8_lossy(&a.get_output().stdout).to_string();
    let check = phaseflow()
        .args(["method", "check"])
        .arg(file)
        .assert()
        .success();
    let shown = phaseflow()
        .args([
            "show-modified-hamiltonian",
            "--system",
            "pendulum",
            "--order",
            "1",
        ])
        .arg("--method-file")
        .arg(file)
        .assert()
        .success();
    (text(check), text(shown))
}

/// The composition above with Σw⁷ = 2e-6 (a = 0.0136…) has order 6: its order-7 conditions
/// fail by 7e-10, beyond the tolerance. Its first correction term h⁶ H7, whose coefficients are
/// about 1e-12 to 3e-11, is there in full (an absolute cut-off at 1e-11 printed it as 0.0).
/// With Σw⁷ ≈ 2e-9 (a = 0.0152…) the stacked tableau's conditions miss by less than their
/// tolerance, but the weights are all positive, so Σw⁷ = 0 fails for certain: order 6, decided.
/// Weights of both signs up to ±6 (thirty 0.1 on each side of c, b, c) with Σw⁷ = 2e-6 miss
/// Σw⁷ = 0 by 3e-12 of Σ|w|⁷, more than rounding but less than the tolerance, so the order
/// analysis leaves it undecided (order ≥ 6; the stacked tableau alone said 8); h⁶ H7 shares
/// that verdict: kept, and said to be undecided, rather than dropped (which left no term).
#[test]
fn a_term_is_dropped_only_where_its_order_conditions_hold() {
    let dir = tempfile::tempdir().unwrap();
    for (file, order, flagged) in [
        (
            gauss3_composition(dir.path(), "0.013654634188158895"),
            "order: 6\n",
            false,
        ),
        (
            gauss3_composition(dir.path(), "0.015207447097782953"),
            "order: 6\n",
            false,
        ),
        (signed_gauss3_composition(dir.path()), "order: ≥ 6\n", true),
    ] {
        let (check, shown) = check_and_first_term(&file);
        assert!(check.contains(order), "{check}");
        assert!(shown.contains("H~ = H + h^6 H7"), "{shown}");
        let h7 = shown.lines().find(|l| l.starts_with("H7 = ")).unwrap();
        assert!(h7.contains("cos(q)") && h7.contains("sin(q)"), "{h7}");
        let note = "# H7 is kept, though it may vanish";
        assert_eq!(shown.contains(note), flagged, "{shown}");
    }
}

/// A run's H̃ columns say on stderr when a term they include is undecided, as
/// `show-modified-hamiltonian` does, and say nothing when every term is decided.
#[test]
fn a_run_says_when_its_modified_hamiltonian_keeps_an_undecided_term() {
    let dir = tempfile::tempdir().unwrap();
    for (file, said) in [
        (signed_gauss3_composition(dir.path()), true),
        (
            gauss3_composition(dir.path(), "0.015207447097782953"),
            false,
        ),
    ] {
        let out = dir.path().join(format!("run-{said}"));
        let run = phaseflow()
            .args(["run", "--system", "pendulum", "--dt", "0.1", "--steps", "4"])
            .args([
                "--ensemble",
                "point",
                "--backend",
                "cpu",
                "--modified-hamiltonian",
                "1",
            ])
            .arg("--method-file")
            .arg(&file)
            .arg("--out")
            .arg(&out)
            .assert()
            .success();
        let stderr = String::from_utf8_lossy(&run.get_output().stderr).to_string();
        let note = "the modified Hamiltonian's H7 is kept, though it may vanish";
        assert_eq!(stderr.contains(note), said, "{stderr}");
    }
}
