//! Method files on the command line: `--method-file` beside `--method` (run, validate, study),
//! recorded whole in config.toml so that `--config` and `resume` work after the file is gone;
//! a file restating a method gives its results bit for bit; `method check`; bad files and
//! flag clashes exit 2 naming the field and the fix, leaving `--out` as it was.

use std::path::{Path, PathBuf};

use predicates::prelude::*;
use tempfile::TempDir;

use crate::common::{argv, phaseflow, read};

/// Gauss–Legendre with 2 stages, in exact coefficients, under the shipped method's name.
pub(crate) const GAUSS2: &str = r#"name = "gauss2"
family = "rk"
a = [["1/4", "1/4 - sqrt(3)/6"], ["1/4 + sqrt(3)/6", "1/4"]]
b = ["1/2", "1/2"]
"#;

/// Yoshida's triple jump of Verlet, as a user's composition.
pub(crate) const TRIPLE_JUMP: &str = r#"name = "my-triple-jump"
family = "composition"
base = "verlet"
weights = ["1/(2 - 2^(1/3))", "-2^(1/3)/(2 - 2^(1/3))", "1/(2 - 2^(1/3))"]
"#;

/// `text` written to `dir/name`.
pub(crate) fn file(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// A pendulum disk of 300 points, 200 steps of 0.05 on the CPU engine at `precision`, final
/// states saved; callers add the method and --out.
fn pendulum_run(precision: &str) -> Vec<String> {
    argv(&format!(
        "run --system pendulum --ensemble disk --points 300 --dt 0.05 --steps 200 \
         --snapshot-every 100 --backend cpu --precision {precision} --save-states --quiet"
    ))
}

fn final_states(dir: &Path) -> Vec<u8> {
    std::fs::read(dir.join("states/step_200.npy")).unwrap()
}

/// The gauss2 text gives the final states of `--method gauss2` bit for bit (under its own
/// name too), and the triple jump those of `yoshida4`, at f32 and f64.
#[test]
fn method_files_equal_the_methods_they_restate() {
    let tmp = TempDir::new().unwrap();
    let gauss = file(tmp.path(), "gauss2.toml", GAUSS2);
    let mine = file(
        tmp.path(),
        "mine.toml",
        &GAUSS2.replace("\"gauss2\"", "\"my-gauss2\""),
    );
    let jump = file(tmp.path(), "jump.toml", TRIPLE_JUMP);
    for precision in ["f32", "f64"] {
        let run = |method: &[&str], out: &str| {
            let out = tmp.path().join(format!("{out}-{precision}"));
            phaseflow()
                .args(pendulum_run(precision))
                .args(method)
                .arg("--out")
                .arg(&out)
                .assert()
                .success();
            final_states(&out)
        };
        let builtin = run(&["--method", "gauss2"], "gauss2");
        for (f, name) in [(&gauss, "file"), (&mine, "mine")] {
            let got = run(&["--method-file", f.to_str().unwrap()], name);
            assert!(got == builtin, "{precision}: {name} differs from gauss2");
        }
        let y4 = run(&["--method", "yoshida4"], "yoshida4");
        let got = run(&["--method-file", jump.to_str().unwrap()], "jump");
        assert!(
            got == y4,
            "{precision}: the triple jump differs from yoshida4"
        );
    }
}

/// A run with a user's method file, its file deleted: `resume` of an interrupted run and
/// `run --config` of the finished run's config.toml write the uninterrupted stats.csv byte
/// for byte, the method rebuilt from the text config.toml recorded.
#[test]
fn config_and_resume_work_without_the_method_file() {
    let tmp = TempDir::new().unwrap();
    let method = file(
        tmp.path(),
        "mine.toml",
        &GAUSS2.replace("\"gauss2\"", "\"my-gauss2\""),
    );
    let args = |out: &Path| {
        let mut a = argv(
            "run --system pendulum --ensemble disk --points 500 --dt 0.05 --steps 600 \
             --snapshot-every 50 --checkpoint-every 200 --backend cpu --precision f64 --quiet",
        );
        a.extend(["--method-file".into(), method.display().to_string()]);
        a.extend(["--out".into(), out.display().to_string()]);
        a
    };
    let (full, part, again) = (
        tmp.path().join("full"),
        tmp.path().join("part"),
        tmp.path().join("again"),
    );
    phaseflow().args(args(&full)).assert().success();
    phaseflow()
        .env("PHASEFLOW_STOP_AFTER_CHECKPOINTS", "1")
        .args(args(&part))
        .assert()
        .code(130);
    let config = read(&full.join("config.toml"));
    assert!(
        config.contains("method = \"my-gauss2\"")
            && config.contains("method_source = ")
            && config.contains("1/4 - sqrt(3)/6")
            && config.contains("# method my-gauss2 (rk): implicit; order 4"),
        "{config}"
    );
    std::fs::remove_file(&method).unwrap();
    phaseflow()
        .args(["resume", "--quiet"])
        .arg(&part)
        .assert()
        .success();
    phaseflow()
        .args(["run", "--quiet", "--config"])
        .arg(full.join("config.toml"))
        .arg("--out")
        .arg(&again)
        .assert()
        .success();
    let stats = |d: &Path| std::fs::read(d.join("stats.csv")).unwrap();
    assert!(stats(&full) == stats(&part), "resumed stats.csv differs");
    assert!(stats(&full) == stats(&again), "--config stats.csv differs");
    // A shipped method is recorded by name.
    let shipped = tmp.path().join("shipped");
    phaseflow()
        .args(pendulum_run("f64"))
        .args(["--method", "gauss2", "--out"])
        .arg(&shipped)
        .assert()
        .success();
    let config = read(&shipped.join("config.toml"));
    assert!(
        config.contains("method = \"gauss2\"") && !config.contains("method_source"),
        "{config}"
    );
}

/// A study's --methods takes file paths beside names; study.toml records the file's text.
#[test]
fn study_methods_take_files() {
    let tmp = TempDir::new().unwrap();
    let jump = file(tmp.path(), "jump.toml", TRIPLE_JUMP);
    let out = tmp.path().join("study");
    phaseflow()
        .args(crate::common::oscillator_study(&format!(
            "verlet,{}",
            jump.display()
        )))
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    assert!(out.join("my-triple-jump/stats.csv").is_file());
    let record = read(&out.join("study.toml"));
    assert!(record.contains("2^(1/3)"), "{record}");
}

/// `method check` on a file and on names: the text names each verdict; `--json` has exactly
/// the documented keys.
#[test]
fn method_check_reports_the_verdicts() {
    let tmp = TempDir::new().unwrap();
    let jump = file(tmp.path(), "jump.toml", TRIPLE_JUMP);
    phaseflow()
        .args(["method", "check"])
        .arg(&jump)
        .assert()
        .success()
        .stdout(
            predicate::str::contains("my-triple-jump (composition)")
                .and(predicate::str::contains("order: 4"))
                .and(predicate::str::contains("symplectic: yes"))
                .and(predicate::str::contains("symmetric: yes"))
                .and(predicate::str::contains("linear stability interval")),
        );
    phaseflow()
        .args(["method", "check", "radau-iia-2"])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("order: 3")
                .and(predicate::str::contains(
                    "first failing condition (order 4)",
                ))
                .and(predicate::str::contains("symplectic: no")),
        );
    let out = phaseflow()
        .args(["method", "check", "--json", "rk4"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.starts_with("{\"name\":\"rk4\",\"family\":\"rk\",\"explicit\":true,\"order\":4,\"order_at_least\":false,\"symplectic\":false,\"symplectic_residual\":")
            && text.contains(",\"symmetric\":false,\"stability_interval\":[0.0,2.828"),
        "{text}"
    );
    phaseflow()
        .args(["method", "check", "variational"])
        .assert()
        .success()
        .stdout(predicate::str::contains("not a tableau method"));
    phaseflow()
        .args(["method", "check", "no-such-method"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown method"));
}

/// Bad method files and flag clashes: exit 2, a message naming the field and the fix, and
/// --out as it was (an absent folder stays absent, a finished run's folder unchanged).
#[test]
fn bad_method_files_exit_2_and_leave_out_alone() {
    let tmp = TempDir::new().unwrap();
    let d = tmp.path();
    let existing = d.join("existing");
    phaseflow()
        .args(pendulum_run("f64"))
        .args(["--method", "verlet", "--out"])
        .arg(&existing)
        .assert()
        .success();
    let before = read(&existing.join("stats.csv"));
    let rkn = read(Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/methods/verlet-rkn.toml"
    )))
    .replace("name = \"verlet-rkn\"", "name = \"my-rkn\"");
    let cases: Vec<(&str, String, &str, &[&str])> = vec![
        (
            "malformed",
            "name = \"m\"\nfamily = \"rk\"\na = [[0]\nb = [1]\n".into(),
            "pendulum",
            &["malformed TOML", "line 4"],
        ),
        (
            "ragged",
            GAUSS2
                .replace("\"gauss2\"", "\"m\"")
                .replace("[\"1/4 + sqrt(3)/6\", \"1/4\"]", "[\"1/4 + sqrt(3)/6\"]"),
            "pendulum",
            &["a, row 2", "must be square"],
        ),
        (
            "inconsistent",
            "name = \"m\"\nfamily = \"rk\"\na = [[0]]\nb = [0.5]\n".into(),
            "pendulum",
            &["b: the entries sum to 0.5", "must sum to 1"],
        ),
        (
            "unparsable",
            "name = \"m\"\nfamily = \"rk\"\na = [[\"1/x\"]]\nb = [1]\n".into(),
            "pendulum",
            &["a, row 1, column 1", "unknown name 'x'"],
        ),
        (
            "splitting-non-separable",
            "name = \"m\"\nfamily = \"splitting\"\nsteps = [{ kick = \"1/2\" }, { drift = 1 }, { kick = \"1/2\" }]\n".into(),
            "double-pendulum",
            &["not separable", "use a composition or a prk method"],
        ),
        ("rkn-non-separable", rkn, "double-pendulum", &["T quadratic", "use family prk"]),
        (
            "unknown-base",
            TRIPLE_JUMP.replace("\"verlet\"", "\"no-such-method\""),
            "pendulum",
            &["base = \"no-such-method\": unknown method", "base = \"verlet\""],
        ),
    ];
    for (name, text, system, needles) in cases {
        let path = file(d, &format!("{name}.toml"), &text);
        for out in [d.join(format!("absent-{name}")), existing.clone()] {
            let mut a = argv(&format!(
                "run --system {system} --ensemble disk --points 10 --dt 0.1 --steps 10 --force"
            ));
            a.extend(["--method-file".into(), path.display().to_string()]);
            a.extend(["--out".into(), out.display().to_string()]);
            let assert = phaseflow().args(&a).assert().code(2);
            let err = String::from_utf8_lossy(&assert.get_output().stderr).to_string();
            for n in needles {
                assert!(err.contains(n), "{name}: {n:?} not in {err}");
            }
        }
        assert!(!d.join(format!("absent-{name}")).exists(), "{name}");
        assert_eq!(read(&existing.join("stats.csv")), before, "{name}");
        phaseflow()
            .args(["method", "check"])
            .arg(&path)
            .assert()
            .code(if system == "pendulum" { 2 } else { 0 });
    }
    let missing = d.join("missing.toml");
    phaseflow()
        .args(argv(
            "run --system pendulum --ensemble disk --dt 0.1 --steps 10",
        ))
        .arg("--method-file")
        .arg(&missing)
        .arg("--out")
        .arg(d.join("absent-missing"))
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("missing.toml").and(predicate::str::contains("--method-file")),
        );
    let gauss = file(d, "gauss2.toml", GAUSS2);
    for cmd in ["run", "validate"] {
        phaseflow()
            .args(argv(&format!(
                "{cmd} --system pendulum --ensemble disk --dt 0.1 --steps 10 --method verlet"
            )))
            .arg("--method-file")
            .arg(&gauss)
            .arg("--out")
            .arg(d.join("absent-both"))
            .assert()
            .code(2)
            .stderr(predicate::str::contains("cannot be used with"));
    }
    assert!(!d.join("absent-missing").exists() && !d.join("absent-both").exists());
}

/// A composition of `n` weights over `base`: the first `n − 1` equal, the last making the sum 1.
fn composition_over(base: &str, n: usize) -> String {
    let w: Vec<String> = (0..n)
        .map(|i| {
            if i + 1 < n {
                format!("\"1/{n}\"")
            } else {
                format!("\"1 - {}/{n}\"", n - 1)
            }
        })
        .collect();
    format!(
        "name = \"many-{n}\"\nfamily = \"composition\"\nbase = \"{base}\"\nweights = [{}]\n",
        w.join(", ")
    )
}

/// The analysis is bounded: a composition over `kahan-li8` (34 stages) of 30 weights (1 020
/// stages in all) is analysed within seconds, one of 64 weights (2 176 stages, above the
/// 1 024 the analysis reads) is refused up front with exit 2, naming the count and the fix.
#[test]
fn method_check_of_a_large_composition_is_bounded() {
    let tmp = TempDir::new().unwrap();
    let f = file(tmp.path(), "c30.toml", &composition_over("kahan-li8", 30));
    let start = std::time::Instant::now();
    phaseflow()
        .args(["method", "check"])
        .arg(&f)
        .assert()
        .success()
        .stdout(predicate::str::contains("order: 8"));
    let took = start.elapsed().as_secs_f64();
    assert!(took < 10.0, "method check took {took} s");
    let f = file(tmp.path(), "c64.toml", &composition_over("kahan-li8", 64));
    let start = std::time::Instant::now();
    phaseflow()
        .args(["method", "check"])
        .arg(&f)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("make 2176 stages"))
        .stderr(predicate::str::contains("use fewer weights"));
    assert!(start.elapsed().as_secs_f64() < 10.0);
}
