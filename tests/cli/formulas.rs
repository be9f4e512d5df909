//! Issue 13 from the command line: `--hamiltonian`, `--system-file`, `show-kernel`,
//! `bench --against`, config.toml round trips, and malformed formulas (exit 2, a message
//! pointing at the column or naming the symbol, nothing written).

use predicates::prelude::*;
use tempfile::TempDir;

use crate::common::{phaseflow, read, stats};

const PENDULUM: &str = "p^2/2 + 1 - cos(q)";

/// A short formula run: a 200-point disk around (0, 0.8), 200 Verlet steps.
pub(crate) fn formula_run(h: &str, extra: &[&str], out: &std::path::Path) -> Vec<String> {
    let mut args: Vec<String> = [
        "run",
        "--hamiltonian",
        h,
        "--method",
        "verlet",
        "--ensemble",
        "disk",
        "--center",
        "0,0.8",
        "--points",
        "200",
        "--dt",
        "0.05",
        "--steps",
        "200",
        "--quiet",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(extra.iter().map(|s| s.to_string()));
    args.extend(["--out".into(), out.display().to_string()]);
    args
}

/// Malformed formulas and their parameters: exit 2, a message that points at the column (a
/// caret line) or names the symbol, and --out untouched.
#[test]
fn malformed_formulas_are_refused_with_the_place() {
    let cases: &[(&str, &[&str], &str)] = &[
        ("p^2/2 + (1 - cos(q)", &[], "unbalanced '('"),
        ("p^2/2 + 1 - cos(q))", &[], "unbalanced ')'"),
        ("p^2/2 + cosh2(q)", &[], "unknown function 'cosh2'"),
        ("p^2/2 + k*q^2", &[], "unknown name 'k'"),
        ("(p1^2 + p2^2)/2 + q3^2", &["--dof", "2"], "q3"),
        ("p^2/2 + q^2/(1 - 1)", &[], "division by a constant zero"),
        (
            "p^2/2 + q^2 +",
            &[],
            "the formula ends where a value is expected",
        ),
        ("p^2/2 + 2 q", &[], "write '*' for a product"),
        ("p**2/2", &[], "'**' is not an operator"),
        ("p^2/2 + q1^2", &[], "mixed with indexed"),
        ("p^2/2 + sin q", &[], "'sin' is a function"),
        ("p^2/2 + q0^2", &[], "indices start at 1"),
        ("p^2/2 + log(0)", &[], "not a finite number"),
        ("p^2/2 + q^2 # x", &[], "unexpected character '#'"),
        ("", &[], "the formula is empty"),
        ("p^2/2 + q^2", &["--param", "k=2"], "no parameter 'k'"),
        ("p^2/2 + k*q^2", &["--param", "k=inf"], "finite"),
    ];
    for (h, extra, needle) in cases {
        let tmp = TempDir::new().unwrap();
        let out = tmp.path().join("out");
        let assert = phaseflow()
            .args(formula_run(h, extra, &out))
            .assert()
            .code(2)
            .stderr(predicate::str::contains(*needle))
            .stderr(predicate::str::contains("panicked").not());
        let stderr = String::from_utf8_lossy(&assert.get_output().stderr).to_string();
        assert!(
            stderr.contains("column") || stderr.contains("--param"),
            "{h}: neither a column nor the parameter in {stderr}"
        );
        assert!(!out.exists(), "{h}: --out must stay untouched");
    }
}

/// H not finite at an initial state (1/q at q = 0) is an input error naming the point.
#[test]
fn non_finite_energy_at_the_initial_states_is_reported() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("out");
    let mut args = formula_run("p^2/2 - 1/q", &[], &out);
    let at = args.iter().position(|a| a == "disk").unwrap();
    args[at] = "point".into();
    let c = args.iter().position(|a| a == "0,0.8").unwrap();
    args[c] = "0,1".into();
    phaseflow()
        .args(&args)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("H = -inf at initial point 1"));
    assert!(!out.exists());
}

/// A formula run writes its formula into config.toml, and `--config` reproduces it exactly;
/// the stats match the built-in pendulum's (f64: to rounding).
#[test]
fn formula_runs_reproduce_from_config_and_match_the_builtin() {
    let tmp = TempDir::new().unwrap();
    let (a, b, c) = (
        tmp.path().join("a"),
        tmp.path().join("b"),
        tmp.path().join("c"),
    );
    let f64 = ["--precision", "f64", "--backend", "cpu"];
    phaseflow()
        .args(formula_run(PENDULUM, &f64, &a))
        .assert()
        .success();
    let config = read(&a.join("config.toml"));
    assert!(
        config.contains("hamiltonian = \"p^2/2 + 1 - cos(q)\""),
        "{config}"
    );
    assert!(config.contains("dof = 1"), "{config}");
    assert!(!config.contains("system ="), "{config}");
    phaseflow()
        .args(["run", "--config"])
        .arg(a.join("config.toml"))
        .args(["--quiet", "--out"])
        .arg(&b)
        .assert()
        .success();
    assert_eq!(read(&a.join("stats.csv")), read(&b.join("stats.csv")));
    // the built-in pendulum on the same points
    let mut builtin = formula_run(PENDULUM, &f64, &c);
    let at = builtin.iter().position(|x| x == "--hamiltonian").unwrap();
    builtin[at] = "--system".into();
    builtin[at + 1] = "pendulum".into();
    phaseflow().args(&builtin).assert().success();
    let (sa, sc) = (stats(&a), stats(&c));
    assert_eq!(sa.len(), sc.len());
    for (ra, rc) in sa.iter().zip(&sc) {
        for key in ["energy_mean", "abs_energy_err_max"] {
            let (x, y) = (ra[key], rc[key]);
            assert!(
                (x - y).abs() <= 1e-12 * (1.0 + y.abs()),
                "{key}: {x} vs {y}"
            );
        }
    }
}

/// `validate` runs the formula's generated kernel on the GPU (lavapipe on CI) against the CPU
/// engine and passes, at f32 and at f64.
#[test]
fn validate_passes_for_a_formula() {
    for precision in ["f32", "f64"] {
        let out = phaseflow()
            .args([
                "validate",
                "--hamiltonian",
                PENDULUM,
                "--method",
                "verlet",
                "--ensemble",
                "disk",
                "--center",
                "0,0.8",
                "--points",
                "500",
                "--dt",
                "0.05",
                "--steps",
                "400",
                "--precision",
                precision,
            ])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        let text = String::from_utf8_lossy(&out);
        assert!(text.contains("PASS"), "{precision}: {text}");
    }
}

/// A system file: parameters with defaults and ranges, a default state and coordinate names;
/// `--param` within the range overrides, outside it (or unknown) is refused; config.toml
/// records the system whole, so the run reproduces without the file.
#[test]
fn system_files_define_a_system_and_check_their_parameters() {
    let tmp = TempDir::new().unwrap();
    let file = tmp.path().join("well.toml");
    std::fs::write(
        &file,
        "name = \"double-well\"\nhamiltonian = \"p^2/2 + a*q^4 - b*q^2\"\ncoordinates = [\"x\"]\ndefault_state = [1.0, 0.2]\n\n[params.a]\ndefault = 0.25\nrange = [0.0, 10.0]\nmeaning = \"quartic stiffness\"\n\n[params.b]\ndefault = 0.5\n",
    )
    .unwrap();
    let run = |extra: &[&str], out: &std::path::Path| {
        let mut args: Vec<String> = ["run", "--system-file"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        args.push(file.display().to_string());
        args.extend(
            [
                "--method",
                "verlet",
                "--ensemble",
                "disk",
                "--points",
                "100",
                "--dt",
                "0.05",
                "--steps",
                "100",
                "--quiet",
            ]
            .iter()
            .map(|s| s.to_string()),
        );
        args.extend(extra.iter().map(|s| s.to_string()));
        args.extend(["--out".into(), out.display().to_string()]);
        phaseflow().args(args).assert()
    };
    let a = tmp.path().join("a");
    run(&["--param", "a=2"], &a).success();
    let config = read(&a.join("config.toml"));
    for want in [
        "system_name = \"double-well\"",
        "hamiltonian = \"p^2/2 + a*q^4 - b*q^2\"",
        "coordinates = [\"x\"]",
        "a = 2.0",
        "b = 0.5",
        // the disk is centred on the file's default state
        "center = [1.0, 0.2]",
    ] {
        assert!(config.contains(want), "{want} not in {config}");
    }
    std::fs::remove_file(&file).unwrap();
    let b = tmp.path().join("b");
    phaseflow()
        .args(["run", "--config"])
        .arg(a.join("config.toml"))
        .args(["--quiet", "--out"])
        .arg(&b)
        .assert()
        .success();
    assert_eq!(read(&a.join("stats.csv")), read(&b.join("stats.csv")));
    std::fs::write(
        &file,
        "name = \"w\"\nhamiltonian = \"p^2/2 + a*q^4\"\n[params.a]\ndefault = 1\nrange = [0, 10]\n",
    )
    .unwrap();
    let c = tmp.path().join("c");
    run(&["--param", "a=11"], &c)
        .code(2)
        .stderr(predicate::str::contains("outside the range [0, 10]"));
    run(&["--param", "k=1"], &c)
        .code(2)
        .stderr(predicate::str::contains("has no parameter 'k'"));
    std::fs::write(
        &file,
        "name = \"w\"\nhamiltonian = \"p^2/2\"\nstiffness = 3\n",
    )
    .unwrap();
    run(&[], &c)
        .code(2)
        .stderr(predicate::str::contains("malformed TOML"));
    assert!(!c.exists());
}

/// `show-kernel` prints the generated WGSL: the system's functions (sin through the shared
/// polynomial), or with --method the whole kernel, which naga accepts.
#[test]
fn show_kernel_prints_the_generated_wgsl() {
    let out = phaseflow()
        .args(["show-kernel", "--hamiltonian", PENDULUM])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8_lossy(&out);
    for want in ["separable", "fn grad_q(", "sin_poly(q[0])", "fn energy("] {
        assert!(text.contains(want), "{want} not in {text}");
    }
    let out = phaseflow()
        .args([
            "show-kernel",
            "--hamiltonian",
            "p1^2/2 + p2^2/2 + q1^2*q2^2 + p1*q2",
            "--method",
            "verlet",
            "--precision",
            "f64",
        ])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let kernel = String::from_utf8_lossy(&out).to_string();
    assert!(kernel.contains("alias real = f64;"), "{kernel}");
    phaseflow::gpu::shader::validate(&kernel).unwrap();
    phaseflow()
        .args([
            "show-kernel",
            "--hamiltonian",
            "p^2/2 + exp(q)",
            "--method",
            "verlet",
            "--precision",
            "f64",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("exp"));
}

/// `bench --against` times the formula and the built-in system in one run and gives each
/// formula row its speed relative to the built-in's (CSV column `ratio_to_against`).
#[test]
fn bench_against_a_builtin_reports_the_ratio() {
    let tmp = TempDir::new().unwrap();
    let csv_path = tmp.path().join("bench.csv");
    phaseflow()
        .args([
            "bench",
            "--hamiltonian",
            PENDULUM,
            "--against",
            "pendulum",
            "--points",
            "2000",
            "--steps",
            "20",
            "--no-gpu",
            "--csv",
        ])
        .arg(&csv_path)
        .assert()
        .success()
        .stdout(predicate::str::contains("x against"));
    let mut r = csv::Reader::from_path(&csv_path).unwrap();
    let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let rows: Vec<csv::StringRecord> = r.records().map(|x| x.unwrap()).collect();
    let formula_cpu: Vec<&csv::StringRecord> = rows
        .iter()
        .filter(|x| &x[col("system")] == "expression" && &x[col("backend")] == "cpu")
        .collect();
    assert_eq!(formula_cpu.len(), 2, "cpu f64 and f32 rows of the formula");
    for row in formula_cpu {
        let ratio: f64 = row[col("ratio_to_against")].parse().unwrap();
        assert!(ratio > 0.0 && ratio.is_finite());
    }
    phaseflow()
        .args([
            "bench",
            "--system",
            "kepler",
            "--against",
            "pendulum",
            "--no-gpu",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--against"));
}

/// A custom study of a formula system: every method's run, the summary and report.
#[test]
fn studies_take_a_formula() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("study");
    phaseflow()
        .args([
            "study",
            "--hamiltonian",
            "p^2/2 + q^4/4 - q^2/2",
            "--methods",
            "euler,verlet",
            "--dt",
            "0.05",
            "--t-end",
            "5",
            "--ensemble",
            "circle",
            "--center",
            "1,0.3",
            "--radius",
            "0.2",
            "--points",
            "200",
            "--quiet",
            "--out",
        ])
        .arg(&out)
        .assert()
        .success();
    let summary = read(&out.join("summary.csv"));
    assert!(
        summary.contains("verlet") && summary.contains("euler"),
        "{summary}"
    );
    let report = read(&out.join("report.md"));
    assert!(report.contains("q^4/4"), "{report}");
}

/// `level` ensembles of a formula wind around the minimum Newton's method finds from the
/// default state: the pendulum formula's level equals the built-in pendulum's; the double
/// well's right well (a system file's default state) at a negative energy keeps its area in
/// f64; a default state at the saddle is refused with the fix.
#[test]
fn level_ensembles_of_formulas_wind_around_their_minimum() {
    let tmp = TempDir::new().unwrap();
    let level = |system: &[&str], energy: &str, out: &std::path::Path| {
        let mut a: Vec<String> = ["run"].iter().map(|s| s.to_string()).collect();
        a.extend(system.iter().map(|s| s.to_string()));
        a.extend(
            [
                "--method",
                "verlet",
                "--ensemble",
                "level",
                "--energy",
                energy,
                "--points",
                "400",
                "--dt",
                "0.05",
                "--steps",
                "400",
                "--precision",
                "f64",
                "--quiet",
                "--out",
            ]
            .iter()
            .map(|s| s.to_string()),
        );
        a.push(out.display().to_string());
        phaseflow().args(a).assert()
    };
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    level(&["--hamiltonian", PENDULUM], "0.5", &a).success();
    level(&["--system", "pendulum"], "0.5", &b).success();
    for (ra, rb) in stats(&a).iter().zip(&stats(&b)) {
        for key in ["energy_mean", "area", "area_ratio", "loop_nodes"] {
            let (x, y) = (ra[key], rb[key]);
            assert!(
                (x - y).abs() <= 1e-12 * (1.0 + y.abs()),
                "{key}: {x} vs {y}"
            );
        }
    }
    let file = tmp.path().join("well.toml");
    std::fs::write(
        &file,
        "name = \"well\"\nhamiltonian = \"p^2/2 + q^4/4 - q^2/2\"\ndefault_state = [0.9, 0.1]\n",
    )
    .unwrap();
    let c = tmp.path().join("c");
    level(&["--system-file", file.to_str().unwrap()], "-0.2", &c).success();
    let last = stats(&c).pop().unwrap();
    assert!((last["area_ratio"] - 1.0).abs() < 1e-9, "{last:?}");
    assert!(last["energy_mean"] < 0.0);
    level(
        &["--hamiltonian", "p^2/2 + q^4/4 - q^2/2"],
        "0.1",
        &tmp.path().join("d"),
    )
    .code(2)
    .stderr(predicate::str::contains("default_state"));
}
