//! `bench --against-method`: a second method timed on the same points in the same rounds, each
//! row of the main method with its speed relative to the second's row of the same engine.

use predicates::prelude::*;
use tempfile::TempDir;

use crate::common::{argv, phaseflow, read};

/// The CSV's rows as column → cell.
fn csv_rows(text: &str) -> Vec<std::collections::BTreeMap<String, String>> {
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    r.records()
        .map(|rec| {
            header
                .iter()
                .cloned()
                .zip(rec.unwrap().iter().map(String::from))
                .collect()
        })
        .collect()
}

/// rk4-tableau against rk4 (a name), and a user's triple jump against yoshida4 (the file as
/// the compared method): both methods' rows at both precisions, the main rows' ratio the
/// quotient of the two rates, the text table naming the methods.
#[test]
fn bench_against_method_times_both_methods_side_by_side() {
    let tmp = TempDir::new().unwrap();
    let jump = tmp.path().join("jump.toml");
    std::fs::write(
        &jump,
        "name = \"my-triple-jump\"\nfamily = \"composition\"\nbase = \"verlet\"\n\
         weights = [\"1/(2 - 2^(1/3))\", \"-2^(1/3)/(2 - 2^(1/3))\", \"1/(2 - 2^(1/3))\"]\n",
    )
    .unwrap();
    for (main, against, other) in [
        ("--method rk4-tableau", "rk4".to_string(), "rk4"),
        (
            "--method yoshida4",
            jump.display().to_string(),
            "my-triple-jump",
        ),
    ] {
        let main_name = main.split(' ').nth(1).unwrap();
        let csv = tmp.path().join(format!("{main_name}.csv"));
        phaseflow()
            .args(argv(&format!(
                "bench {main} --no-gpu --points 5000 --steps 10 --rounds 2 --against-method"
            )))
            .arg(&against)
            .arg("--csv")
            .arg(&csv)
            .assert()
            .success()
            .stdout(predicate::str::contains(format!(
                "method {main_name} against {other},"
            )))
            .stdout(predicate::str::contains("x against"))
            .stdout(predicate::str::is_match(format!(r"(?m)^{other} +cpu +f64 ")).unwrap());
        let rows = csv_rows(&read(&csv));
        for precision in ["f64", "f32"] {
            let cpu = |method: &str| {
                rows.iter()
                    .find(|r| {
                        r["method"] == method
                            && r["backend"] == "cpu"
                            && r["precision"] == precision
                    })
                    .unwrap_or_else(|| panic!("no cpu {precision} row of {method}: {rows:?}"))
            };
            let (m, a) = (cpu(main_name), cpu(other));
            let rate = |r: &std::collections::BTreeMap<String, String>| {
                r["point_steps_per_s"].parse::<f64>().unwrap()
            };
            let ratio: f64 = m["ratio_to_against"].parse().unwrap();
            assert!(
                (ratio - rate(m) / rate(a)).abs() <= 1e-9 * ratio,
                "{rows:?}"
            );
            assert_eq!(a["ratio_to_against"], "", "the compared method's own rows");
        }
    }
}

/// The same method twice, an unknown one, and with --against: exit 2 naming the flag.
#[test]
fn bench_against_method_refuses_bad_input() {
    for (args, message) in [
        (
            "bench --method rk4 --against-method rk4",
            "--against-method rk4: it is the method timed already",
        ),
        ("bench --against-method no-such-method", "no-such-method"),
        (
            "bench --against-method rk4 --against pendulum --hamiltonian p^2/2",
            "--against-method",
        ),
    ] {
        phaseflow()
            .args(argv(args))
            .args(["--no-gpu", "--points", "10", "--steps", "1"])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(message));
    }
}
