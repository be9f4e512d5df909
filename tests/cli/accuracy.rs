//! The run measured against a reference solution (`--reference`: global_err_max, _mean),
//! run back (`--reverse`: return_err_max, _mean) and with a negative --dt; the convergence
//! study `phaseflow order`, which gives every built-in and shipped method its order; and
//! their bad input (exit 2, nothing written).

use std::collections::BTreeMap;
use std::path::Path;

use predicates::prelude::*;
use tempfile::TempDir;

use crate::common::{argv, pendulum_disk, phaseflow, stats};
use phaseflow::config::verdict::verdicts;
use phaseflow::method::{all, Method};

/// `run` with `args` into `out` (CPU engine); its stdout.
fn run(args: &[String], out: &Path) -> String {
    let got = phaseflow()
        .args(argv("run --backend cpu"))
        .args(args)
        .arg("--out")
        .arg(out)
        .assert()
        .success();
    String::from_utf8(got.get_output().stdout.clone()).unwrap()
}

/// The f64 pendulum disk around (1, 0) (100 points) with `method`, `steps` of `dt`.
fn pendulum(method: &str, dt: f64, steps: u64, extra: &str) -> Vec<String> {
    argv(&format!(
        "--system pendulum --method {method} --ensemble disk --points 100 --center 1,0 \
         --dt {dt} --steps {steps} --precision f64 --snapshot-every {} {extra}",
        steps / 4
    ))
}

fn last(rows: &[BTreeMap<String, f64>]) -> &BTreeMap<String, f64> {
    rows.last().unwrap()
}

/// Verlet (symmetric) run 10⁴ steps forward and back returns every point to rounding;
/// symplectic Euler A (not symmetric, as `method check` says) returns off by O(h): half
/// the step, half the return error. stats.csv's t runs back to 0, the return error is in the
/// last row alone (at the turning row the points are far from their start, which is no return
/// error), and the summary says why.
#[test]
fn symmetric_methods_return_and_others_do_not() {
    let tmp = TempDir::new().unwrap();
    let verlet = run(
        &pendulum("verlet", 0.01, 10_000, "--reverse"),
        &tmp.path().join("v"),
    );
    let rows = stats(&tmp.path().join("v"));
    let times: Vec<f64> = rows.iter().map(|r| r["t"]).collect();
    assert_eq!(times, [0.0, 25.0, 50.0, 75.0, 100.0, 75.0, 50.0, 25.0, 0.0]);
    assert_eq!(last(&rows)["step"], 20_000.0);
    let back = last(&rows)["return_err_max"];
    assert!(back <= 1e-11, "verlet return_err_max {back:e}");
    for row in &rows[..rows.len() - 1] {
        assert!(
            !row.contains_key("return_err_max") && !row.contains_key("return_err_mean"),
            "a return error before the run is back: {row:?}"
        );
    }
    assert!(
        !rows[0].contains_key("global_err_max"),
        "no --reference: empty"
    );
    assert!(verlet.contains("verlet is symmetric"), "{verlet}");

    let euler: Vec<f64> = [0.01, 0.005]
        .iter()
        .enumerate()
        .map(|(i, &dt)| {
            let out = tmp.path().join(format!("e{i}"));
            let printed = run(
                &pendulum("symplectic-euler-a", dt, (10.0 / dt) as u64, "--reverse"),
                &out,
            );
            assert!(
                printed.contains("symplectic-euler-a is not symmetric") && printed.contains("O(h)"),
                "{printed}"
            );
            last(&stats(&out))["return_err_max"]
        })
        .collect();
    assert!(euler[0] > 1e-3, "{euler:?}");
    let ratio = euler[0] / euler[1];
    assert!((1.8..2.2).contains(&ratio), "O(h): {euler:?}");
    // what `method check` says of the two
    for (name, symmetric) in [("verlet", "yes"), ("symplectic-euler-a", "no")] {
        phaseflow()
            .args(["method", "check", name])
            .assert()
            .success()
            .stdout(predicate::str::contains(format!("symmetric: {symmetric}")));
    }
}

/// A negative --dt runs the flow backwards: t goes negative, and run back (--reverse) the
/// points return as with a positive step.
#[test]
fn negative_step_runs_backwards() {
    let tmp = TempDir::new().unwrap();
    run(&pendulum("rk4", -0.01, 1000, "--reverse"), tmp.path());
    let rows = stats(tmp.path());
    assert_eq!(rows[4]["t"], -10.0);
    assert_eq!(last(&rows)["t"], 0.0);
    // rk4 is not symmetric: back off by O(h⁴) over t = 10
    let back = last(&rows)["return_err_max"];
    assert!(back > 0.0 && back < 1e-6, "{back:e}");
}

/// The global error: against the run's own method and step it is exactly 0 (the same
/// arithmetic); against rk4 with 8 substeps, Verlet's error is second order (half the step,
/// a quarter of the error); an f32 run is measured from its own rounded start (0 at t = 0).
#[test]
fn global_error_against_a_reference() {
    let tmp = TempDir::new().unwrap();
    let printed = run(
        &pendulum("verlet", 0.05, 200, "--reference verlet"),
        &tmp.path().join("same"),
    );
    assert!(
        printed.contains("global error against verlet (step dt/1)"),
        "{printed}"
    );
    for row in stats(&tmp.path().join("same")) {
        assert_eq!((row["global_err_max"], row["global_err_mean"]), (0.0, 0.0));
    }
    let err: Vec<f64> = [0.05, 0.025]
        .iter()
        .enumerate()
        .map(|(i, &dt)| {
            let out = tmp.path().join(format!("h{i}"));
            run(
                &pendulum("verlet", dt, (10.0 / dt) as u64, "--reference rk4/8"),
                &out,
            );
            let rows = stats(&out);
            assert!(last(&rows)["global_err_mean"] <= last(&rows)["global_err_max"]);
            last(&rows)["global_err_max"]
        })
        .collect();
    let order = (err[0] / err[1]).log2();
    assert!((order - 2.0).abs() < 0.05, "{err:?}: order {order}");
    let f32_run = [
        pendulum_disk(100, 0.05, 100),
        argv("--reference rk4/4 --quiet"),
    ]
    .concat();
    run(&f32_run, &tmp.path().join("f32"));
    let rows = stats(&tmp.path().join("f32"));
    assert_eq!(rows[0]["global_err_max"], 0.0);
    assert!(last(&rows)["global_err_max"] > 0.0);
}

/// A shard's reference covers its own points: the shards' stats.csv merged equal the whole
/// run's, global and return errors included, bit for bit.
#[test]
fn shards_with_reference_and_reverse_merge_bit_for_bit() {
    let tmp = TempDir::new().unwrap();
    let args = [
        pendulum_disk(10000, 0.05, 100),
        argv("--snapshot-every 25 --reference rk4/2 --reverse --quiet"),
    ]
    .concat();
    run(&args, &tmp.path().join("whole"));
    let mut shards = Vec::new();
    for k in 0..2 {
        let dir = tmp.path().join(format!("shard{k}"));
        run(
            &[args.clone(), argv(&format!("--shard {k}/2"))].concat(),
            &dir,
        );
        shards.push(dir);
    }
    phaseflow()
        .arg("merge")
        .args(&shards)
        .arg("--out")
        .arg(tmp.path().join("merged"))
        .arg("--quiet")
        .assert()
        .success();
    let read = |d: &str| std::fs::read_to_string(tmp.path().join(d).join("stats.csv")).unwrap();
    assert_eq!(read("whole"), read("merged"));
    let rows = stats(&tmp.path().join("merged"));
    assert!(last(&rows)["global_err_max"] > 0.0 && last(&rows)["return_err_max"] > 0.0);
}

/// `order` on the pendulum from amplitude 1 (f64): every built-in and shipped method's fitted
/// order is its order from the order conditions (on H = p²/2 + V(q)) within ±0.1. The first
/// step is larger for higher orders, so that the errors stay above rounding over the
/// halvings (4 halvings, 50 steps at h0).
#[test]
fn order_finds_every_methods_order() {
    let tmp = TempDir::new().unwrap();
    for &m in all() {
        if m == Method::Variational {
            continue;
        }
        let want = verdicts(m).unwrap().unwrap().order_nystrom;
        let h0 = match want {
            1 => 0.05,
            2 => 0.1,
            3 | 4 => 0.2,
            5 => 0.3,
            6 => 0.4,
            _ => 0.6,
        };
        let out = tmp.path().join(m.name());
        phaseflow()
            .args(argv(&format!(
                "order --system pendulum --center 1,0 --method {} --dt {h0} --steps 50 --halvings 4 --quiet",
                m.name()
            )))
            .arg("--out")
            .arg(&out)
            .assert()
            .success();
        let csv = std::fs::read_to_string(out.join("order.csv")).unwrap();
        let mut lines = csv.lines();
        assert_eq!(
            lines.next(),
            Some("h,global_err_max,abs_energy_err_max,unconverged")
        );
        assert_eq!(csv.lines().count(), 1 + 5 + 1, "{csv}");
        let fitted = csv.lines().last().unwrap();
        let got: f64 = fitted
            .strip_prefix("fitted_order,")
            .and_then(|f| f.split(',').next())
            .and_then(|f| f.parse().ok())
            .unwrap_or_else(|| panic!("{}: no fit in {csv}", m.name()));
        assert!(
            (got - f64::from(want)).abs() <= 0.1,
            "{}: fitted order {got}, expected {want}\n{csv}",
            m.name()
        );
        for f in ["order.png", "order.svg", "manifest.toml"] {
            assert!(out.join(f).is_file(), "{}: {f}", m.name());
        }
    }
}

/// `order` prints its table and fitted orders; it replaces only a previous convergence study
/// (with --force), never a user's files or a run's folder.
#[test]
fn order_prints_and_keeps_to_its_folder() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("o");
    let args = argv("order --system oscillator --method rk4 --dt 0.2 --halvings 3 --out");
    phaseflow()
        .args(&args)
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("fitted order"))
        .stdout(predicate::str::contains("global error 4.0"));
    phaseflow()
        .args(&args)
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--force"));
    phaseflow()
        .args(&args)
        .arg(&out)
        .arg("--force")
        .assert()
        .success();
    std::fs::write(tmp.path().join("mine.txt"), "keep").unwrap();
    phaseflow()
        .args(&args)
        .arg(tmp.path())
        .arg("--force")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("mine.txt"));
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("mine.txt")).unwrap(),
        "keep"
    );
    let run_dir = tmp.path().join("run");
    run(
        &[pendulum_disk(10, 0.1, 10), argv("--quiet")].concat(),
        &run_dir,
    );
    phaseflow()
        .args(&args)
        .arg(&run_dir)
        .arg("--force")
        .assert()
        .code(2);
    assert!(run_dir.join("stats.csv").is_file());
}

/// Bad input: exit 2, a message naming the fix, nothing written to --out.
#[test]
fn bad_reference_reverse_and_order_input() {
    let tmp = TempDir::new().unwrap();
    // a method file whose weights sum to 2/3: order 0, refused as a reference (the method
    // file reader refuses it first, naming the order)
    let bad = tmp.path().join("order0.toml");
    std::fs::write(
        &bad,
        "name = \"order0\"\nfamily = \"rk\"\na = [[0]]\nb = [\"2/3\"]\n",
    )
    .unwrap();
    let bad = bad.display().to_string();
    let back = tmp.path().join("back.toml");
    std::fs::write(&back, "reverse = true\n").unwrap();
    let back = back.display().to_string();
    let run_with =
        |extra: &str| [argv("run --quiet"), pendulum_disk(10, 0.1, 10), argv(extra)].concat();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (run_with(&format!("--reference {bad}")), "order 0"),
        (run_with(&format!("--reference {bad}/4")), "order 0"),
        (run_with("--reference rk4/0"), "substeps K"),
        (
            run_with("--reverse --checkpoint-every 5"),
            "keep no checkpoints",
        ),
        (
            run_with("--reference nope"),
            "--reference nope: nope: unknown method",
        ),
        (
            run_with("--reference variational"),
            "name a method with a tableau",
        ),
        (
            [
                argv("run --quiet --system pendulum-variational --method variational"),
                argv("--ensemble point --dt 0.01 --steps 10 --reverse"),
            ]
            .concat(),
            "without --reverse",
        ),
        (
            [
                argv("run --quiet --system pendulum-variational --method variational"),
                argv("--ensemble point --dt -0.01 --steps 10"),
            ]
            .concat(),
            "positive --dt",
        ),
        (
            [
                argv("run --quiet --system pendulum --method verlet --ensemble circle"),
                argv("--dt 0.01 --steps 10 --reverse"),
            ]
            .concat(),
            "add --no-refine",
        ),
        (
            [
                argv("validate"),
                pendulum_disk(10, 0.1, 10),
                argv("--reference rk4"),
            ]
            .concat(),
            "validate does not use it",
        ),
        (
            argv(&format!(
                "study --config {back} --system pendulum --methods verlet --dt 0.1 --steps 10 --ensemble disk"
            )),
            "a study does not",
        ),
        (
            argv("order --system pendulum --method verlet --dt 0.1 --halvings 0"),
            "--halvings 0",
        ),
        (
            argv("order --system pendulum-variational --method variational --dt 0.1"),
            "no reference solution",
        ),
        (
            argv(&format!(
                "order --system pendulum --method-file {bad} --dt 0.1 --reference {bad}"
            )),
            "order 0",
        ),
    ];
    for (args, needle) in cases {
        let out = tmp.path().join("out");
        phaseflow()
            .args(&args)
            .arg("--out")
            .arg(&out)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(needle))
            .stderr(predicate::str::contains("panicked").not());
        assert!(!out.exists(), "{args:?}: --out must stay untouched");
    }
}

/// The GPU engine (lavapipe) and the CPU engine agree on the new columns, f32 and f64 (where
/// the device reduces the energy statistics, the state is read back for them), over the run
/// forward and back; and `validate --reverse` compares the engines on the way back too.
#[test]
fn gpu_and_cpu_agree_on_global_and_return_errors() {
    let tmp = TempDir::new().unwrap();
    let columns = [
        "global_err_max",
        "global_err_mean",
        "return_err_max",
        "return_err_mean",
    ];
    for (precision, abs, rel) in [("f32", 1e-5, 1e-3), ("f64", 1e-12, 1e-9)] {
        let args = [
            pendulum_disk(1000, 0.05, 200),
            argv(&format!(
                "--precision {precision} --snapshot-every 50 --reference rk4/4 --reverse --quiet"
            )),
        ]
        .concat();
        let rows: Vec<_> = ["gpu", "cpu"]
            .iter()
            .map(|backend| {
                let out = tmp.path().join(format!("{precision}-{backend}"));
                phaseflow()
                    .args(argv(&format!("run --backend {backend}")))
                    .args(&args)
                    .arg("--out")
                    .arg(&out)
                    .assert()
                    .success();
                stats(&out)
            })
            .collect();
        assert_eq!(rows[0].len(), 9);
        for (g, c) in rows[0].iter().zip(&rows[1]) {
            for col in columns {
                // the return errors are in the last row alone
                let (Some(&g), Some(&c)) = (g.get(col), c.get(col)) else {
                    assert_eq!(g.get(col), c.get(col), "{precision} {col}");
                    continue;
                };
                assert!(
                    (g - c).abs() <= abs + rel * c.abs(),
                    "{precision} {col}: gpu {g:e}, cpu {c:e}"
                );
            }
        }
        phaseflow()
            .arg("validate")
            .args(pendulum_disk(1000, 0.05, 200))
            .args(argv(&format!("--precision {precision} --reverse --quiet")))
            .assert()
            .success()
            .stdout(predicate::str::contains("× 400 steps"))
            .stdout(predicate::str::contains("PASS"));
    }
}

/// config.toml records --reference and --reverse, and `--config` reproduces the run's
/// stats.csv byte for byte.
#[test]
fn config_records_reference_and_reverse() {
    let tmp = TempDir::new().unwrap();
    let first = tmp.path().join("first");
    run(
        &pendulum(
            "yoshida4",
            -0.05,
            40,
            "--reference gauss2/3 --reverse --quiet",
        ),
        &first,
    );
    let config = std::fs::read_to_string(first.join("config.toml")).unwrap();
    assert!(
        config.contains("reference = \"gauss2/3\"") && config.contains("reverse = true"),
        "{config}"
    );
    let again = tmp.path().join("again");
    phaseflow()
        .args(["run", "--quiet", "--config"])
        .arg(first.join("config.toml"))
        .arg("--out")
        .arg(&again)
        .assert()
        .success();
    let read = |d: &Path| std::fs::read_to_string(d.join("stats.csv")).unwrap();
    assert_eq!(read(&first), read(&again));
    // the header, then steps 0, 10, .., 40 at t = -2
    assert!(read(&first).lines().nth(5).unwrap().starts_with("40,-2.0,"));
}

/// `order` with an implicit method whose solve gives up (`--implicit-max-iter 2` at large h):
/// order.csv counts the unconverged points per step size, a warning names them, and those
/// step sizes are left out of the fits (here every one, so there is no fit at all).
#[test]
fn order_counts_unconverged_points_and_leaves_them_out_of_the_fit() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("o");
    let got = phaseflow()
        .args(argv(
            "order --system pendulum --ensemble disk --points 16 --center 1,0 --method gauss3 \
             --dt 5 --steps 10 --halvings 2 --implicit-max-iter 2 --out",
        ))
        .arg(&out)
        .assert()
        .success()
        .stderr(predicate::str::contains("hit --implicit-max-iter 2"))
        .stderr(predicate::str::contains("left out of the fits"));
    let stdout = String::from_utf8(got.get_output().stdout.clone()).unwrap();
    assert!(stdout.contains("global error none"), "{stdout}");
    let csv = std::fs::read_to_string(out.join("order.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("h,global_err_max,abs_energy_err_max,unconverged")
    );
    for line in lines.by_ref().take(3) {
        assert!(line.ends_with(",16"), "{csv}");
    }
    assert_eq!(lines.next(), Some("fitted_order,,,"), "{csv}");
    // with the default cap every point converges: the column reads 0 and the fit stands
    let out = tmp.path().join("converged");
    phaseflow()
        .args(argv(
            "order --system pendulum --center 1,0 --method gauss3 --dt 0.4 --steps 50 \
             --halvings 2 --quiet --out",
        ))
        .arg(&out)
        .assert()
        .success()
        .stderr(predicate::str::is_empty());
    let csv = std::fs::read_to_string(out.join("order.csv")).unwrap();
    assert!(
        csv.lines().skip(1).take(3).all(|l| l.ends_with(",0")),
        "{csv}"
    );
    assert!(!csv.ends_with("fitted_order,,,\n"), "{csv}");
}
