//! Option values a hostile user gives (the reliability campaign's option rows): degenerate and
//! self-crossing loop files, step sizes the run's precision cannot hold, level sets by a
//! separatrix and around a degenerate minimum, a study's default tangent map on a variational
//! system, `validate` flags it does not use, repeated `--param`s, extreme numbers in messages
//! and config.toml, and kernels a CPU driver takes minutes to build.

use std::path::Path;

use predicates::prelude::*;
use tempfile::TempDir;

use crate::common::{argv, gpu_point_run, pendulum_disk, phaseflow, read, stats};

/// `run` of the pendulum (or `--hamiltonian`, given in `extra`) with Verlet on the CPU engine
/// into `out`: `extra` gives the ensemble, step and anything else.
fn run_args(extra: &[&str], out: &Path) -> Vec<String> {
    let mut args: Vec<String> = ["run", "--method", "verlet", "--backend", "cpu", "--quiet"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    if !extra.contains(&"--hamiltonian") {
        args.extend(["--system".to_string(), "pendulum".to_string()]);
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    args.extend(["--out".to_string(), out.display().to_string()]);
    args
}

/// Exit 2 with `needle` on stderr, no panic, and `--out` never created.
fn refused(extra: &[&str], needle: &str) -> String {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("out");
    let got = phaseflow().args(run_args(extra, &out)).output().unwrap();
    let err = String::from_utf8_lossy(&got.stderr).to_string();
    assert_eq!(got.status.code(), Some(2), "{extra:?}: {err}");
    assert!(err.contains(needle), "{extra:?}: {err}");
    assert!(!err.contains("panicked"), "{extra:?}: {err}");
    assert!(!out.exists(), "{extra:?}: --out must stay untouched");
    err
}

/// Row 10: a loop file of collinear nodes (area 0: area_ratio was NaN, then inf) and a figure
/// eight (lobes cancelling: area_ratio 8.0 from rounding; unequal lobes: a sum of opposite
/// signs) are refused; a square is accepted.
#[test]
fn degenerate_and_self_crossing_loop_files_are_refused() {
    let tmp = TempDir::new().unwrap();
    let file = |name: &str, text: &str| {
        let path = tmp.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    let step = [
        "--dt",
        "0.1",
        "--steps",
        "2",
        "--ensemble",
        "file",
        "--loop",
    ];
    let with = |path: &str| -> Vec<String> {
        step.iter()
            .map(|s| s.to_string())
            .chain(["--input".to_string(), path.to_string()])
            .collect()
    };
    for (name, text, needle) in [
        (
            "line.csv",
            "0,0\n1,0\n2,0\n3,0\n",
            "enclosed area ∮p·dq is 0.000e0",
        ),
        (
            "eight.csv",
            "0,0\n1,1\n1,0\n0,1\n",
            "enclosed area ∮p·dq is 0.000e0",
        ),
        (
            "lobes.csv",
            "0,0\n2,0\n2,2\n1,-1\n0,1\n",
            "the edge from row 1 to row 2 meets the edge from row 3 to row 4",
        ),
    ] {
        let args = with(&file(name, text));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        refused(&args, needle);
    }
    let out = tmp.path().join("square");
    let args = with(&file("square.csv", "0,0\n1,0\n1,1\n0,1\n"));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    phaseflow().args(run_args(&args, &out)).assert().success();
    let rows = stats(&out);
    assert!((rows[0]["area"] - 1.0).abs() < 1e-6, "{:?}", rows[0]);
}

/// Row 12: a step that rounds to 0 at f32 (nothing moved while t advanced, exit 0) or to
/// infinity is refused naming --dt and the precision; the same 1e-50 is a valid f64 step.
#[test]
fn steps_the_precision_cannot_hold_are_refused() {
    let disk = ["--ensemble", "disk", "--points", "50", "--steps", "3"];
    let with = |dt: &str, extra: &[&'static str]| -> Vec<String> {
        disk.iter()
            .chain(extra)
            .map(|s| s.to_string())
            .chain(["--dt".to_string(), dt.to_string()])
            .collect()
    };
    for (dt, needle) in [
        (
            "1e-50",
            "--dt 1e-50 is below the smallest normal f32 number",
        ),
        (
            "1e-40",
            "--dt 1e-40 is below the smallest normal f32 number",
        ),
        ("3.5e38", "--dt 3.5e38 overflows to infinity at f32"),
    ] {
        let args = with(dt, &[]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        refused(&args, needle);
    }
    let args = with("1e308", &["--precision", "f64"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    refused(&args, "the end time overflows");
    let tmp = TempDir::new().unwrap();
    let args = with("1e-50", &["--precision", "f64"]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    phaseflow()
        .args(run_args(&args, &tmp.path().join("f64")))
        .assert()
        .success();
}

/// Row 14: the pendulum's level just below the separatrix enclosed 16.0000005, more than the
/// separatrix's 16 (the curved correction overshot at the corners by the hyperbolic points).
/// The exact area is 15.99999999940412 (16[E(k) − (1 − k²)K(k)], k² = E/2).
#[test]
fn level_by_the_separatrix_stays_inside_it() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("level");
    let args = [
        "--ensemble",
        "level",
        "--energy",
        "1.99999999999",
        "--precision",
        "f64",
        "--dt",
        "0.1",
        "--steps",
        "1",
    ];
    phaseflow().args(run_args(&args, &out)).assert().success();
    let exact = 15.999_999_999_404_12;
    for row in stats(&out) {
        let area = row["area"];
        assert!(area < 16.0, "area {area} above the separatrix's 16");
        assert!((area - exact).abs() < 1e-9, "area {area} vs {exact}");
    }
}

/// Row 16: H = p²/2 + q⁴ has a minimum at the origin where its Hessian is degenerate; its
/// level set E = 1 was refused ("no stable equilibrium"). Its exact area is
/// 2∫ √(2(1 − q⁴)) dq over [−1, 1] = 4.944199139470325.
#[test]
fn level_around_a_degenerate_minimum_is_drawn() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("quartic");
    let args = [
        "--hamiltonian",
        "p^2/2+q^4",
        "--ensemble",
        "level",
        "--energy",
        "1",
        "--precision",
        "f64",
        "--dt",
        "0.01",
        "--steps",
        "2",
    ];
    phaseflow().args(run_args(&args, &out)).assert().success();
    let first = &stats(&out)[0];
    assert!(
        (first["area"] / 4.944_199_139_470_325 - 1.0).abs() < 1e-12,
        "{first:?}"
    );
    // A formula with a line of minima (flat along q) has no level curve around a point.
    refused(
        &[
            "--hamiltonian",
            "p^2/2",
            "--ensemble",
            "level",
            "--energy",
            "1",
            "--dt",
            "0.1",
            "--steps",
            "1",
        ],
        "no stable equilibrium",
    );
}

/// The level 1e-300 above the pendulum's minimum is lost to rounding: the message said
/// "choose a lower energy" (a higher one is the fix) and printed the energy with 300 digits.
#[test]
fn a_level_lost_to_rounding_asks_for_a_higher_energy() {
    let err = refused(
        &[
            "--ensemble",
            "level",
            "--energy",
            "1e-300",
            "--dt",
            "0.1",
            "--steps",
            "1",
        ],
        "--energy 1e-300: the level lies too close to the minimum energy 0",
    );
    assert!(err.contains("choose a higher energy"), "{err}");
    assert!(!err.contains("lower energy"), "{err}");
    assert!(!err.contains("0000000000"), "{err}");
}

/// Extreme values read as they were given, in messages and in config.toml (which printed
/// --dt 1e-300 with 300 zeros), and the written config.toml reproduces the run exactly.
#[test]
fn extreme_numbers_are_written_in_exponent_form() {
    refused(
        &[
            "--ensemble",
            "disk",
            "--radius=-1e-300",
            "--dt",
            "0.1",
            "--steps",
            "1",
        ],
        "--radius must be a positive finite number, got -1e-300",
    );
    let tmp = TempDir::new().unwrap();
    let first = tmp.path().join("first");
    let args = [
        "--ensemble",
        "disk",
        "--points",
        "20",
        "--radius",
        "1e-200",
        "--precision",
        "f64",
        "--dt",
        "1e-300",
        "--steps",
        "3",
    ];
    let mut cmd = phaseflow();
    let args = run_args(&args, &first);
    let done = cmd
        .args(args.iter().filter(|a| *a != "--quiet"))
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&done.get_output().stdout).to_string();
    assert!(stdout.contains("final t = 3e-300:"), "{stdout}");
    let config = read(&first.join("config.toml"));
    assert!(config.contains("dt = 1e-300\n"), "{config}");
    assert!(config.contains("radius = 1e-200\n"), "{config}");
    assert!(!config.contains("0000000000000000000000"), "{config}");
    let again = tmp.path().join("again");
    phaseflow()
        .args(["run", "--quiet", "--config"])
        .arg(first.join("config.toml"))
        .arg("--out")
        .arg(&again)
        .assert()
        .success();
    assert_eq!(
        read(&first.join("stats.csv")),
        read(&again.join("stats.csv"))
    );
}

/// `--param a=1 --param a=2` ran with one of the two values, without a word.
#[test]
fn a_parameter_given_twice_is_refused() {
    refused(
        &[
            "--ensemble",
            "disk",
            "--param",
            "g=1",
            "--param",
            "g=2",
            "--dt",
            "0.1",
            "--steps",
            "1",
        ],
        "--param g is given twice (g=1 and g=2)",
    );
}

/// Row 11: a study turns the tangent map on by default; for Euler's disk (variational, no
/// Hamiltonian to linearise) it was refused with "--tangent: … drop --tangent", a flag the
/// user never gave. The study now runs it without the tangent map.
#[test]
fn a_study_of_a_variational_system_runs_without_the_tangent_map() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("study");
    phaseflow()
        .args(argv(
            "study --system euler-disk --methods variational --ensemble point \
             --dt 0.01 --steps 20 --backend cpu --quiet --out",
        ))
        .arg(&out)
        .assert()
        .success();
    let config = read(&out.join("variational/config.toml"));
    assert!(config.contains("tangent = false"), "{config}");
}

/// Row 19: flags `validate --help` lists but validate does not use were ignored without a
/// word (`--shard 0/2` compared the whole ensemble); they are refused before any engine is
/// built.
#[test]
fn validate_refuses_the_flags_it_does_not_use() {
    // Refinement flags apply to loops, shards to filled sets: each on an ensemble `run`
    // would take it with.
    for (extra, flag) in [
        (&["--ensemble", "disk", "--shard", "0/2"][..], "--shard"),
        (&["--ensemble", "disk", "--devices", "0"][..], "--devices"),
        (
            &["--ensemble", "disk", "--save-states"][..],
            "--save-states",
        ),
        (
            &["--ensemble", "disk", "--checkpoint-every", "2"][..],
            "--checkpoint-every",
        ),
        (
            &["--ensemble", "circle", "--refine-tol", "1e-3"][..],
            "--refine-tol/--max-nodes",
        ),
        (
            &["--ensemble", "circle", "--max-nodes", "5000"][..],
            "--refine-tol/--max-nodes",
        ),
    ] {
        phaseflow()
            .args([
                "validate", "--system", "pendulum", "--method", "verlet", "--points", "8192",
                "--dt", "0.1", "--steps", "2",
            ])
            .args(extra)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(format!(
                "{flag}: validate does not use it"
            )))
            .stdout(predicate::str::contains("PASS").not());
    }
}

/// Row 19: `validate --tangent` compares the tangent columns as well (they were carried by
/// neither engine and the flag ignored).
#[test]
fn validate_compares_the_tangent_map() {
    phaseflow()
        .arg("validate")
        .args(pendulum_disk(200, 0.05, 40))
        .args(["--tangent", "--quiet"])
        .assert()
        .success()
        .stdout(predicate::str::is_match(r"tangent_max_rel_dev=\S+").unwrap())
        .stdout(predicate::str::contains("PASS"));
}

/// Row 20: a CPU driver is refused the 64-mass spring chain's kernel (d = 128: about 180 s of
/// kernel build before step 1 on lavapipe), as it is the large tangent kernels, before --out
/// exists. A hardware GPU runs it.
#[test]
fn many_degrees_of_freedom_are_refused_on_a_cpu_driver() {
    let ctx = phaseflow::gpu::context()
        .expect("GPU tests need a wgpu adapter: apt-get install mesa-vulkan-drivers");
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("out");
    let run = phaseflow()
        .args(gpu_point_run("spring-chain", 1e-4))
        .args(["--param", "n=64", "--out"])
        .arg(&out)
        .timeout(std::time::Duration::from_secs(600))
        .assert();
    if ctx.info.device_type == wgpu::DeviceType::Cpu {
        run.code(2)
            .stderr(predicate::str::contains("128 degrees of freedom"))
            .stderr(predicate::str::contains("use --backend cpu"));
        assert!(!out.exists(), "--out must stay untouched");
    } else {
        run.success();
    }
}

/// `refused` of extra flags given as one line (no value holds a space).
fn refused_line(extra: &str, needle: &str) -> String {
    let args = argv(extra);
    refused(&args.iter().map(String::as_str).collect::<Vec<_>>(), needle)
}

/// A tiny disk run's step flags, before the flags a test adds.
const TINY: &str = "--ensemble disk --points 8 --dt 0.1 --steps 2";

/// Round 3, row 2: two sweeps of 2^32 values each make 2^64 parts, which the part count's
/// 64-bit product wrapped to 0, past the 10 000-part cap: the values were allocated and the
/// process aborted (exit 134). Refused with exit 2, from the flags and from a `--config` file's
/// `sweep` key alike.
#[test]
fn a_sweep_past_64_bits_of_parts_is_refused() {
    let needle = "--sweep: 4294967296 × 4294967296 parts, more than 10000; give fewer values";
    refused_line(
        &format!("{TINY} --sweep g=1:2:4294967296 --sweep l=0.5:1.5:4294967296"),
        needle,
    );
    let tmp = TempDir::new().unwrap();
    let config = tmp.path().join("sweep.toml");
    let sweep = "sweep = [\"g=1:2:4294967296\", \"l=0.5:1.5:4294967296\"]\n";
    std::fs::write(&config, sweep).unwrap();
    refused_line(&format!("{TINY} --config {}", config.display()), needle);
}

/// Round 3, row 7: a negative number after an option was read as a flag ("unexpected argument
/// '-1' found"), so a valid backward step `--dt -1e-5` (how Python writes -0.00001) could not be
/// given. Negative steps now run; negative counts are refused naming the option.
#[test]
fn negative_numbers_reach_their_option() {
    let tmp = TempDir::new().unwrap();
    for dt in ["-1e-5", "-1E-5", "-0.01"] {
        let out = tmp.path().join(format!("dt{dt}"));
        let args = argv(&format!("--ensemble disk --points 8 --steps 2 --dt {dt}"));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        phaseflow().args(run_args(&args, &out)).assert().success();
        let config = read(&out.join("config.toml"));
        assert!(config.contains("\ndt = -"), "{dt}: {config}");
    }
    refused_line(
        "--ensemble disk --points 8 --steps 2 --dt -inf",
        "--dt must be a finite non-zero number (negative runs backwards in time), got -inf",
    );
    for (flag, value, line) in [
        (
            "--steps",
            "-5",
            "--ensemble disk --points 8 --dt 0.1 --steps -5",
        ),
        (
            "--steps",
            "-1e3",
            "--ensemble disk --points 8 --dt 0.1 --steps -1e3",
        ),
        (
            "--points",
            "-5",
            "--ensemble disk --points -5 --dt 0.1 --steps 2",
        ),
        (
            "--snapshot-every",
            "-1",
            &format!("{TINY} --snapshot-every -1"),
        ),
    ] {
        let err = refused_line(line, "must be positive");
        assert!(
            err.starts_with(&format!("Error: invalid value '{value}' for '{flag} <")),
            "{err}"
        );
        assert!(!err.contains("unexpected argument"), "{err}");
    }
    let err = refused_line(&format!("{TINY} --seed -3"), "must not be negative");
    assert!(err.contains("'--seed <SEED>'"), "{err}");
    // `order` takes a negative h0 (backwards in time) too.
    phaseflow()
        .args(argv(
            "order --system pendulum --method verlet --dt -0.1 --steps 10 --halvings 2",
        ))
        .args(["--quiet", "--out"])
        .arg(tmp.path().join("order"))
        .assert()
        .success();
}

/// Counts written in exponent form (`1e5`, as Python and shells write large numbers) are the
/// same counts; one that is not a whole number is refused naming the option.
#[test]
fn counts_in_exponent_form_are_whole_numbers() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("exp");
    let args = argv("--ensemble disk --points 2.5e1 --dt 0.1 --steps 1e1");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    phaseflow().args(run_args(&args, &out)).assert().success();
    let config = read(&out.join("config.toml"));
    assert!(config.contains("steps = 10\n"), "{config}");
    assert!(config.contains("points = 25\n"), "{config}");
    for (value, why) in [
        ("1.5e0", "is not a whole number"),
        ("1e-1", "is not a whole number"),
        ("1e30", "is too large (at most 18446744073709551615)"),
        ("ten", "is not a number"),
    ] {
        let line = format!("--ensemble disk --points 8 --dt 0.1 --steps {value}");
        refused_line(&line, &format!("'{value}' for '--steps <STEPS>': {why}"));
    }
}
