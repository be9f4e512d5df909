//! Formulas built to break the compiler: nesting deep enough to exhaust the stack, more degrees
//! of freedom than the kernels take, integer exponents past 1024, literals that overflow, and
//! constants the run's precision cannot hold. Each is refused with exit 2 and a message that
//! names the place and the fix (or, for powers, computed exactly), and nothing is written.

use std::path::Path;
use std::time::Duration;

use phaseflow::expr::{MAX_DEPTH, MAX_DOF};
use predicates::prelude::*;
use tempfile::TempDir;

use crate::common::{phaseflow, read, stats};
use crate::formulas::formula_run;

/// `formula_run` of one point at `center`, 3 steps on the CPU engine in f64.
fn point_run(h: &str, center: &str, out: &Path) -> Vec<String> {
    let mut args = formula_run(h, &["--precision", "f64", "--backend", "cpu"], out);
    let at = args.iter().position(|a| a == "disk").unwrap();
    args[at] = "point".into();
    let c = args.iter().position(|a| a == "0,0.8").unwrap();
    args[c] = center.into();
    let s = args.iter().position(|a| a == "--steps").unwrap();
    args[s + 1] = "3".into();
    args.retain(|a| a != "--points" && a != "200");
    args
}

/// The three shapes of nesting, `levels` deep.
fn nested(levels: usize) -> [String; 3] {
    [
        format!("{}q{}^2/2 + p^2/2", "(".repeat(levels), ")".repeat(levels)),
        format!("{}q{} + p^2/2", "sin(".repeat(levels), ")".repeat(levels)),
        format!("{}q*q + p^2/2", "-".repeat(levels)),
    ]
}

/// A system file holding `formula` (and `extra` lines) in `dir`.
fn system_file(dir: &Path, formula: &str, extra: &str) -> String {
    let file = dir.join("system.toml");
    std::fs::write(
        &file,
        format!("name = \"hostile\"\nhamiltonian = \"{formula}\"\n{extra}"),
    )
    .unwrap();
    file.display().to_string()
}

/// Deep nesting (30 000 parentheses, `sin(` 20 000 times, 100 000 signs) overflowed the
/// parser's stack: abort 134, no message, in every command. Now a nesting-depth error with
/// a caret, exit 2, from run, validate, show-kernel and a system file alike; at the limit
/// every shape still compiles and runs.
#[test]
fn deep_nesting_is_a_depth_error_in_every_command() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("out");
    let too_deep = [
        nested(30_000)[0].clone(),
        nested(20_000)[1].clone(),
        nested(100_000)[2].clone(),
    ];
    let depth_error = format!("nests deeper than {MAX_DEPTH} levels");
    for h in &too_deep {
        let file = system_file(tmp.path(), h, "");
        let run = formula_run(h, &["--backend", "cpu"], &out);
        let mut validate = run.clone();
        validate[0] = "validate".into();
        validate.truncate(validate.len() - 2);
        let commands: [Vec<String>; 4] = [
            run,
            validate,
            vec!["show-kernel".into(), "--hamiltonian".into(), h.clone()],
            vec!["show-kernel".into(), "--system-file".into(), file],
        ];
        for args in commands {
            phaseflow()
                .args(&args)
                .timeout(Duration::from_secs(60))
                .assert()
                .code(2)
                .stderr(predicate::str::contains(depth_error.as_str()))
                .stderr(predicate::str::contains("column"))
                .stderr(predicate::str::contains("\n  ").and(predicate::str::contains("^")));
        }
        assert!(!out.exists(), "--out must stay untouched");
    }
    // At the limit (the outermost level is the formula itself) each shape compiles and runs.
    for h in nested(MAX_DEPTH - 1) {
        let file = system_file(tmp.path(), &h, "");
        phaseflow()
            .args(["show-kernel", "--system-file", &file])
            .assert()
            .success()
            .stdout(predicate::str::contains("fn grad_q_dir("));
        let at_limit = tmp.path().join("limit");
        phaseflow()
            .args(formula_run(&h, &["--backend", "cpu", "--force"], &at_limit))
            .assert()
            .success();
        assert!(stats(&at_limit).last().unwrap()["finite"] == 200.0, "{h}");
    }
    for h in nested(MAX_DEPTH) {
        phaseflow()
            .args(["show-kernel", "--hamiltonian", &h])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(depth_error.as_str()));
    }
}

/// `q100000` made d = 100 000 (no result after 400 s: the separability test is O(d²));
/// `q100000000` and a system file's `dof = 100000000` aborted allocating gigabytes. Now d is
/// capped at `MAX_DOF` with the reason, refused at once.
#[test]
fn degrees_of_freedom_beyond_the_cap_are_refused_at_once() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("out");
    let cap = format!("at most {MAX_DOF} degrees of freedom");
    let refuse = |args: &[String]| {
        phaseflow()
            .args(args)
            .timeout(Duration::from_secs(20))
            .assert()
            .code(2)
            .stderr(predicate::str::contains(cap.as_str()))
            .stderr(predicate::str::contains("spring-chain"));
    };
    for h in [
        "p1^2/2 + q100000^2",
        "p1^2/2 + q100000000^2",
        "p1^2/2 + q99999999999999999999999999^2",
        &format!("p1^2/2 + q{}^2", MAX_DOF + 1),
    ] {
        refuse(&formula_run(h, &["--backend", "cpu"], &out));
        let file = system_file(tmp.path(), h, "");
        refuse(&["show-kernel".into(), "--system-file".into(), file]);
    }
    let file = system_file(tmp.path(), "p1^2/2 + q1^2", "dof = 100000000\n");
    refuse(&formula_run("p1^2/2 + q1^2", &["--dof", "100000000"], &out));
    refuse(&["show-kernel".into(), "--system-file".into(), file]);
    assert!(!out.exists());
    // The cap itself is allowed.
    let top = format!("p1^2/2 + q{MAX_DOF}^2");
    phaseflow()
        .args(["show-kernel", "--hamiltonian", &top])
        .assert()
        .success();
}

/// Integer exponents above 1024 went through exp(b·log a): NaN for a negative base, so
/// `(q+p)^2000` and `p^1025` were refused as "H = NaN at initial point". They are exact powers
/// now (the same products on the CPU and in the WGSL); only exponents beyond ±10⁹ are refused.
#[test]
fn integer_powers_above_1024_are_exact() {
    let tmp = TempDir::new().unwrap();
    for (h, center, energy) in [
        ("(q+p)^2000", "-0.5,-0.5", 1.0),
        ("p^1025 + q^2", "0.5,-1", -0.75),
        ("q^-1026 + p^2", "-1,0", 1.0),
    ] {
        let out = tmp.path().join("out");
        phaseflow()
            .args(point_run(h, center, &out))
            .assert()
            .success();
        assert_eq!(stats(&out)[0]["energy_mean"], energy, "{h}");
        std::fs::remove_dir_all(&out).unwrap();
    }
    let kernel = phaseflow()
        .args(["show-kernel", "--hamiltonian", "p^1025 + q^2"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let kernel = String::from_utf8_lossy(&kernel);
    assert!(
        !kernel.contains("exp(") && !kernel.contains("log("),
        "{kernel}"
    );
    // The GPU kernel computes the same products: validate agrees to the last bit.
    let h = "p^1025/1025 + (q+p)^2000/1e3 + q^2";
    phaseflow()
        .args([
            "validate",
            "--hamiltonian",
            h,
            "--method",
            "verlet",
            "--ensemble",
            "disk",
        ])
        .args([
            "--center", "0,0", "--radius", "0.01", "--points", "100", "--dt", "0.01",
        ])
        .args(["--steps", "20"])
        .assert()
        .success()
        .stdout(predicate::str::contains("max_abs_dev=0.000e0"));
    phaseflow()
        .args(["show-kernel", "--hamiltonian", "q^3000000000 + p^2"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("exponent 3000000000 is too large"))
        .stderr(predicate::str::contains("(column 2)"));
}

/// `1e400` parsed as inf and surfaced as "H = inf at initial point … move the initial set".
/// A literal beyond f64 (or a non-zero one that rounds to 0) is now a parse error at its column.
#[test]
fn literals_beyond_f64_are_a_parse_error_at_their_column() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("out");
    for (h, needle) in [
        ("1e400*q^2 + p^2", "'1e400' is too large for a number"),
        ("p^2 + 2.5E+999*q^2", "'2.5E+999' is too large for a number"),
        ("p^2 + 1e-400*q^2", "'1e-400' is too small for a number"),
    ] {
        let literal = needle.split('\'').nth(1).unwrap();
        let column = h.find(literal).unwrap();
        let caret = format!("\n  {h}\n  {}^", " ".repeat(column));
        phaseflow()
            .args(point_run(h, "0.5,0.5", &out))
            .assert()
            .code(2)
            .stderr(predicate::str::contains(needle))
            .stderr(predicate::str::contains(caret.as_str()));
    }
    assert!(!out.exists());
    // Zero written any way is still zero.
    phaseflow()
        .args(point_run("0e400*q + 0.000e-5 + p^2 + q^2", "0.5,0.5", &out))
        .assert()
        .success();
}

/// A formula constant beyond f32 (`p^2 + 1e39*q^2`), or a ball on a turntable at Ω = 1e30,
/// ran at f32 with every point non-finite and exit 0. Both are refused at f32, naming the
/// number, parameter or coefficient and the fix, as built-in parameters are; f64 still runs.
#[test]
fn constants_beyond_f32_are_refused_at_f32() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("out");
    let f32_run = |h: &str, extra: &[&str]| {
        let mut args = point_run(h, "0.5,0.5", &out);
        let p = args.iter().position(|a| a == "f64").unwrap();
        args[p] = "f32".into();
        args.extend(extra.iter().map(|s| s.to_string()));
        args
    };
    for (h, extra, needle) in [
        ("p^2 + 1e39*q^2", &[][..], "(column 7)"),
        ("p^2 + 1e-50*q^2", &[], "below f32's normal range"),
        ("p^2 + k*q^2", &["--param", "k=1e39"], "--param k=1e39"),
        ("p^2 + 1e20*1e20*q^2", &[], "the constant 2e40"),
    ] {
        phaseflow()
            .args(f32_run(h, extra))
            .assert()
            .code(2)
            .stderr(predicate::str::contains(needle))
            .stderr(predicate::str::contains("--precision f64"));
        assert!(!out.exists(), "{h}");
    }
    // bench times f32 engines: refused too.
    phaseflow()
        .args([
            "bench",
            "--hamiltonian",
            "p^2 + 1e39*q^2",
            "--no-gpu",
            "--points",
            "10",
        ])
        .args(["--steps", "2"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("(column 7)"));
    // A constant H never differentiates into the kernels is no matter; f64 holds 1e39.
    phaseflow()
        .args(f32_run("p^2 + q^2 + 1e39", &[]))
        .assert()
        .success();
    std::fs::remove_dir_all(&out).unwrap();
    phaseflow()
        .args(point_run("p^2 + 1e39*q^2", "0.5,0.5", &out))
        .assert()
        .success();
    assert_eq!(stats(&out).last().unwrap()["finite"], 1.0);
    std::fs::remove_dir_all(&out).unwrap();
    let ball = |precision: &str| {
        let mut c = phaseflow();
        c.args([
            "run",
            "--system",
            "ball-turntable",
            "--method",
            "variational",
            "--param",
            "omega=1e30",
            "--ensemble",
            "point",
            "--dt",
            "0.01",
            "--steps",
            "3",
            "--backend",
            "cpu",
            "--quiet",
            "--precision",
            precision,
            "--out",
        ])
        .arg(&out);
        c
    };
    ball("f32")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("h·omega"))
        .stderr(predicate::str::contains("--precision f64"));
    assert!(!out.exists());
    ball("f64").assert().success();
    assert!(read(&out.join("stats.csv")).lines().count() > 1);
}
