//! The commands besides `run`: `validate`, `bench` (its table, CSV and speed-guard floor),
//! `list` and `devices`.

use predicates::prelude::*;
use tempfile::TempDir;

use crate::common::{phaseflow, read, stats};

#[test]
fn validate_reports_deviations_and_passes() {
    // f32 (default tolerance 1e-3), f64 on the GPU (1e-12) and compensated (issue 12)
    for (extra, arithmetic, tolerance) in [
        (&[][..], "(f32)", "tolerance=1e-3"),
        (&["--precision", "f64"][..], "(f64)", "tolerance=1e-12"),
        (
            &["--compensated"][..],
            "(f32 with compensated summation)",
            "tolerance=1e-3",
        ),
    ] {
        phaseflow()
            .args([
                "validate",
                "--system",
                "oscillator",
                "--method",
                "rk4",
                "--ensemble",
                "gaussian",
                "--points",
                "300",
                "--dt",
                "0.1",
                "--steps",
                "200",
                "--quiet",
            ])
            .args(extra)
            .assert()
            .success()
            .stdout(predicate::str::is_match(r"max_abs_dev=\S+ max_rel_dev=\S+").unwrap())
            .stdout(predicate::str::contains(arithmetic))
            .stdout(predicate::str::contains(tolerance))
            .stdout(predicate::str::contains("PASS"));
    }
}

#[test]
fn bench_writes_the_table_and_csv() {
    let tmp = TempDir::new().unwrap();
    let csv = tmp.path().join("bench.csv");
    phaseflow()
        .args([
            "bench",
            "--points",
            "20000",
            "--steps",
            "20",
            "--compensated",
            "--csv",
        ])
        .arg(&csv)
        .assert()
        .success()
        .stdout(predicate::str::contains("gpu f32 vs cpu f32: max_abs_dev="))
        .stdout(predicate::str::contains("gpu f64 vs cpu f64: max_abs_dev="))
        .stdout(predicate::str::contains(
            "gpu f32 comp vs cpu f32 comp: max_abs_dev=",
        ));
    let text = read(&csv);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "backend,device,precision,points,steps,seconds,point_steps_per_s,ratio_to_reference,compensated,system,ratio_to_against,method,ratio_to_peer"
    );
    // per precision (f64, then f32): reference, cpu, cpu compensated, gpu, gpu compensated
    // (lavapipe has f64); each row ends with `compensated,system,ratio_to_against,method,ratio_to_peer`
    // (ratio_to_against empty without --against, ratio_to_peer without --peers)
    let expected = [
        (
            "reference,",
            ",f64,",
            ",false,pendulum,,symplectic-euler-a,",
        ),
        ("cpu,", ",f64,", ",false,pendulum,,symplectic-euler-a,"),
        ("cpu,", ",f64,", ",true,pendulum,,symplectic-euler-a,"),
        ("gpu,", ",f64,", ",false,pendulum,,symplectic-euler-a,"),
        ("gpu,", ",f64,", ",true,pendulum,,symplectic-euler-a,"),
        (
            "reference,",
            ",f32,",
            ",false,pendulum,,symplectic-euler-a,",
        ),
        ("cpu,", ",f32,", ",false,pendulum,,symplectic-euler-a,"),
        ("cpu,", ",f32,", ",true,pendulum,,symplectic-euler-a,"),
        ("gpu,", ",f32,", ",false,pendulum,,symplectic-euler-a,"),
        ("gpu,", ",f32,", ",true,pendulum,,symplectic-euler-a,"),
    ];
    assert_eq!(lines.len(), 1 + expected.len(), "{text}");
    for (line, (backend, precision, compensated)) in lines[1..].iter().zip(expected) {
        assert!(
            line.starts_with(backend) && line.contains(precision) && line.ends_with(compensated),
            "{line}"
        );
        assert!(line.contains(",20000,20,"), "{line}");
    }
    assert!(
        lines[1].ends_with(",,false,pendulum,,symplectic-euler-a,"),
        "the reference has no ratio: {}",
        lines[1]
    );
    // every other row's ratio to the reference is the quotient of their rates
    for (r, rows) in [(1, 2..6), (6, 7..11)] {
        let cells = |i: usize| lines[i].rsplit(',').skip(5).take(2).collect::<Vec<&str>>();
        let rate = |i: usize| cells(i)[1].parse::<f64>().unwrap();
        for c in rows {
            let ratio: f64 = cells(c)[0].parse().unwrap();
            assert!((ratio - rate(c) / rate(r)).abs() <= 1e-9 * ratio, "{text}");
        }
    }
}

/// `bench --peers` builds the C peer of benches/ and times it in the same rounds: a `c-peer`
/// row per precision, every engine row's `ratio_to_peer` the quotient of the rates; refused
/// (exit 2, naming `--peers`) on a system the peer does not advance and without a C compiler.
#[test]
fn bench_peers_times_the_c_peer_beside_the_engines() {
    let tmp = TempDir::new().unwrap();
    let csv = tmp.path().join("bench.csv");
    phaseflow()
        .args(["bench", "--no-gpu", "--points", "20000", "--steps", "20"])
        .args(["--rounds", "2", "--peers", "--csv"])
        .arg(&csv)
        .assert()
        .success()
        .stdout(predicate::str::contains("x C peer"))
        .stdout(predicate::str::contains(
            "c-peer     f32        C peer: cc -O3 -ffast-math",
        ));
    let text = read(&csv);
    let rows: Vec<Vec<String>> = csv::Reader::from_reader(text.as_bytes())
        .records()
        .map(|r| r.unwrap().iter().map(String::from).collect())
        .collect();
    let header = text.lines().next().unwrap();
    let col = |name: &str| header.split(',').position(|c| c == name).unwrap();
    let (backend, precision, rate, to_peer) = (
        col("backend"),
        col("precision"),
        col("point_steps_per_s"),
        col("ratio_to_peer"),
    );
    for p in ["f64", "f32"] {
        let of = |b: &str| {
            rows.iter()
                .find(|r| r[backend] == b && r[precision] == p)
                .unwrap_or_else(|| panic!("no {b} {p} row: {text}"))
        };
        let peer: f64 = of("c-peer")[rate].parse().unwrap();
        assert!(peer > 0.0, "{text}");
        assert_eq!(of("c-peer")[to_peer], "", "{text}");
        for b in ["reference", "cpu"] {
            let ratio: f64 = of(b)[to_peer].parse().unwrap();
            let own: f64 = of(b)[rate].parse().unwrap();
            assert!((ratio - own / peer).abs() <= 1e-9 * ratio, "{text}");
        }
    }
    phaseflow()
        .args([
            "bench", "--system", "kepler", "--no-gpu", "--points", "10", "--peers",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--peers: the C peer advances the pendulum",
        ));
    phaseflow()
        .env("CC", "/nonexistent/cc")
        .args(["bench", "--no-gpu", "--points", "10", "--peers"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--peers needs a C compiler with OpenMP",
        ));
}

/// The speed guard's floor is checked: a floor no engine can reach fails (exit 1, naming the
/// row), a bad floor or a system without a reference loop is refused (exit 2).
#[test]
fn bench_min_ratio_fails_below_the_floor_and_refuses_bad_input() {
    phaseflow()
        .args([
            "bench",
            "--no-gpu",
            "--points",
            "2000",
            "--steps",
            "5",
            "--min-ratio",
            "1e9",
        ])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("below --min-ratio"));
    phaseflow()
        .args([
            "bench",
            "--no-gpu",
            "--points",
            "2000",
            "--steps",
            "5",
            "--min-ratio",
            "0.001",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("speed guard: every cpu row"));
    for bad in [
        vec!["--min-ratio", "-1"],
        vec!["--min-ratio", "nan"],
        vec!["--rounds", "0"],
        vec!["--system", "kepler", "--min-ratio", "2"],
    ] {
        phaseflow()
            .args(["bench", "--no-gpu", "--points", "2000", "--steps", "5"])
            .args(&bad)
            .assert()
            .code(2);
    }
}

#[test]
fn list_and_devices() {
    let out = phaseflow()
        .arg("list")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    for name in [
        "oscillator",
        "pendulum",
        "--param l=1",
        "euler",
        "symplectic-euler-a",
        "symplectic-euler-b",
        "verlet",
        "position-verlet",
        "rk4",
        "level",
        "circle",
        "rect",
        "disk",
        "grid",
        "gaussian",
        "file",
    ] {
        assert!(text.contains(name), "list misses {name}");
    }
    phaseflow()
        .arg("devices")
        .assert()
        .success()
        .stdout(predicate::str::contains("backend="));
}

/// Issue 15, fault 10: when every point blows up on both engines nothing is compared, and
/// `validate` used to print PASS over the empty comparison; that is a failure with the reason.
#[test]
fn validate_fails_when_nothing_was_compared() {
    phaseflow()
        .args([
            "validate",
            "--system",
            "oscillator",
            "--method",
            "euler",
            "--ensemble",
            "circle",
            "--center",
            "0,0.8",
            "--radius",
            "0.3",
            "--points",
            "50",
            "--dt",
            "10",
            "--steps",
            "100",
            "--quiet",
        ])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("both_nonfinite=50"))
        .stdout(predicate::str::contains("PASS").not())
        .stderr(predicate::str::contains("nothing was compared"));
}

/// `study` takes every run flag that makes sense for it (issue 11): a custom study from a run's
/// config.toml (its method, step and steps as the one run), with the solver, snapshot and
/// state flags reaching the method's run.
#[test]
fn study_takes_a_config_and_the_run_flags() {
    let tmp = TempDir::new().unwrap();
    let run_dir = tmp.path().join("run");
    phaseflow()
        .args([
            "run",
            "--system",
            "double-pendulum",
            "--method",
            "verlet",
            "--ensemble",
            "disk",
            "--points",
            "50",
            "--dt",
            "0.05",
            "--steps",
            "40",
            "--precision",
            "f64",
            "--quiet",
        ])
        .arg("--out")
        .arg(&run_dir)
        .assert()
        .success();
    let study_dir = tmp.path().join("study");
    phaseflow()
        .arg("study")
        .arg("--config")
        .arg(run_dir.join("config.toml"))
        .args([
            "--snapshot-every",
            "10",
            "--save-states",
            "--implicit-max-iter",
            "3",
            "--quiet",
        ])
        .arg("--out")
        .arg(&study_dir)
        .assert()
        .success();
    let cfg = read(&study_dir.join("verlet/config.toml"));
    for want in [
        "system = \"double-pendulum\"",
        "dt = 0.05",
        "steps = 40",
        "snapshot_every = 10",
        "save_states = true",
        "implicit_max_iter = 3",
        "precision = \"f64\"",
    ] {
        assert!(cfg.contains(want), "{want} missing from\n{cfg}");
    }
    let rows = stats(&study_dir.join("verlet"));
    let steps: Vec<f64> = rows.iter().map(|r| r["step"]).collect();
    assert_eq!(steps, [0.0, 10.0, 20.0, 30.0, 40.0]);
    assert!(study_dir.join("verlet/states/step_40.npy").exists());
    // With 3 sweeps the double pendulum's implicit stages hit the cap, and are counted.
    assert!(rows[4]["unconverged"] > 0.0, "{:?}", rows[4]);
}

/// The study's stdout table names each row's system when the study mixes systems (issue 14: it
/// printed the same method twice without the system).
#[test]
fn study_table_names_the_system_when_runs_differ_in_it() {
    let tmp = TempDir::new().unwrap();
    let output = phaseflow()
        .args([
            "study",
            "--preset",
            "elastic-pendulum",
            "--t-end",
            "2",
            "--out",
        ])
        .arg(tmp.path().join("s"))
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(output).unwrap();
    for run in [
        "elastic-pendulum/symplectic-euler-a ",
        "elastic-pendulum-cartesian/symplectic-euler-a ",
    ] {
        assert!(text.contains(run), "{run} missing from\n{text}");
    }
}
