//! End-to-end runs of the binary, and every kind of bad input (exit code 2, a message naming
//! the flag, nothing written to --out).

use std::path::Path;

use assert_cmd::Command;
use predicates::prelude::*;
use tempfile::TempDir;

fn phaseflow() -> Command {
    Command::cargo_bin("phaseflow").unwrap()
}

const STATS_HEADER: &str = "step,t,points,finite,energy_mean,energy_std,abs_energy_err_mean,abs_energy_err_max,rel_energy_err_mean,rel_energy_err_max,area,area_ratio,loop_nodes,det_mean,det_min,det_max,defect_max,area_from_det,ang_mom_err_max,unconverged";

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// A CSV cell as a number; empty cells (columns that do not apply) read as NaN.
fn num(cell: &str) -> f64 {
    if cell.is_empty() {
        f64::NAN
    } else {
        cell.parse().unwrap()
    }
}

fn base_run(out: &Path) -> Vec<String> {
    [
        "run",
        "--system",
        "pendulum",
        "--method",
        "verlet",
        "--ensemble",
        "circle",
        "--center",
        "0,0.8",
        "--radius",
        "0.3",
        "--points",
        "500",
        "--dt",
        "0.05",
        "--steps",
        "400",
        "--snapshot-every",
        "100",
        "--no-refine",
        "--quiet",
        "--out",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([out.display().to_string()])
    .collect()
}

#[test]
fn run_writes_stats_config_and_states_and_config_reproduces() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("a");
    let mut args = base_run(&out);
    args.extend(["--save-states".into(), "--backend".into(), "cpu".into()]);
    phaseflow().args(&args).assert().success();
    let stats = read(&out.join("stats.csv"));
    let lines: Vec<&str> = stats.lines().collect();
    assert_eq!(lines[0], STATS_HEADER);
    assert_eq!(lines.len(), 1 + 5, "snapshots at 0,100,200,300,400");
    assert!(lines[1].starts_with("0,0.0,500,500,"));
    let first: Vec<&str> = lines[1].split(',').collect();
    assert_eq!(first[6], "0.0", "no energy error at step 0");
    let last: Vec<f64> = lines[5].split(',').map(num).collect();
    assert_eq!(last[0], 400.0);
    assert!((last[1] - 20.0).abs() < 1e-12, "t = step·dt");
    assert!(
        last[7] > 0.0 && last[7] < 1e-2,
        "Verlet energy error is small but nonzero: {}",
        last[7]
    );
    // states: N × 2 float32
    let npy = std::fs::read(out.join("states/step_400.npy")).unwrap();
    let header = String::from_utf8_lossy(&npy[10..128]);
    assert!(
        header.contains("'descr': '<f4'") && header.contains("'shape': (500, 2)"),
        "{header}"
    );
    assert_eq!(npy.len(), 128 + 500 * 2 * 4);
    assert!(out.join("states/step_0.npy").exists());
    // config.toml reproduces the run
    let cfg = out.join("config.toml");
    assert!(read(&cfg).contains("method = \"verlet\""));
    let out2 = tmp.path().join("b");
    phaseflow()
        .args([
            "run",
            "--config",
            cfg.to_str().unwrap(),
            "--quiet",
            "--out",
            out2.to_str().unwrap(),
        ])
        .assert()
        .success();
    assert_eq!(read(&out2.join("stats.csv")), stats);
    // flags override the file
    let out3 = tmp.path().join("c");
    phaseflow()
        .args([
            "run",
            "--config",
            cfg.to_str().unwrap(),
            "--steps",
            "200",
            "--quiet",
            "--out",
            out3.to_str().unwrap(),
        ])
        .assert()
        .success();
    assert_eq!(read(&out3.join("stats.csv")).lines().count(), 1 + 3);
}

#[test]
fn gpu_backend_runs_and_agrees_with_cpu() {
    let tmp = TempDir::new().unwrap();
    let (g, c) = (tmp.path().join("gpu"), tmp.path().join("cpu"));
    let mut args = base_run(&g);
    args.extend(["--backend".into(), "gpu".into()]);
    phaseflow()
        .args(&args)
        .assert()
        .success()
        .stderr(predicate::str::contains("engine gpu:"));
    let mut args = base_run(&c);
    args.extend(["--backend".into(), "cpu".into()]);
    phaseflow().args(&args).assert().success();
    let (gs, cs) = (read(&g.join("stats.csv")), read(&c.join("stats.csv")));
    for (gl, cl) in gs.lines().zip(cs.lines()).skip(1) {
        let gv: Vec<f64> = gl.split(',').map(num).collect();
        let cv: Vec<f64> = cl.split(',').map(num).collect();
        assert!(
            (gv[4] - cv[4]).abs() < 1e-6,
            "energy_mean gpu {} cpu {}",
            gv[4],
            cv[4]
        );
    }
}

/// A filled ensemble on the GPU: the energy statistics are reduced on the device in f64 (the
/// state is not read back) and equal the CPU engine's at the same precision to rounding
/// (lavapipe's f32 states are bit-identical to the CPU's; H differs only by the device's
/// polynomial against the host's, and the merge order). With --save-states the state is read
/// back as well, and the statistics stay the same.
#[test]
fn gpu_statistics_reduced_on_the_device_equal_the_cpu_ones() {
    let tmp = TempDir::new().unwrap();
    let run = |backend: &str, name: &str, extra: &[&str]| {
        let out = tmp.path().join(name);
        let mut cmd = phaseflow();
        cmd.args([
            "run",
            "--system",
            "pendulum",
            "--method",
            "verlet",
            "--dt",
            "0.01",
            "--ensemble",
            "disk",
            "--points",
            "3000",
            "--steps",
            "300",
            "--snapshot-every",
            "100",
            "--backend",
            backend,
            "--out",
        ])
        .arg(&out)
        .args(extra);
        let assert = cmd.assert().success();
        let stderr = String::from_utf8_lossy(&assert.get_output().stderr).to_string();
        (read(&out.join("stats.csv")), stderr)
    };
    let (gs, gerr) = run("gpu", "gpu", &[]);
    assert!(
        gerr.contains("energy statistics reduced on the device in f64"),
        "{gerr}"
    );
    let (gs2, _) = run("gpu", "gpu-saved", &["--save-states"]);
    let (cs, cerr) = run("cpu", "cpu", &[]);
    assert!(!cerr.contains("reduced on the device"), "{cerr}");
    assert_eq!(gs.lines().count(), 1 + 4);
    for other in [&gs2, &cs] {
        for (gl, cl) in gs.lines().zip(other.lines()).skip(1) {
            let gv: Vec<f64> = gl.split(',').map(num).collect();
            let cv: Vec<f64> = cl.split(',').map(num).collect();
            assert_eq!(gv[..4], cv[..4], "step, t, points, finite");
            assert_eq!(gv[19], cv[19], "unconverged");
            // energy_mean, energy_std, the error columns (errors ~1e-6 against H ~0.3)
            for (k, tol) in [
                (4, 1e-13),
                (5, 1e-9),
                (6, 1e-8),
                (7, 1e-8),
                (8, 1e-8),
                (9, 1e-8),
            ] {
                let (a, b) = (gv[k], cv[k]);
                assert!(
                    (a - b).abs() <= tol * b.abs() || (a == 0.0 && b == 0.0),
                    "column {k}: gpu {a:e} cpu {b:e}\n{gl}\n{cl}"
                );
            }
        }
    }
}

#[test]
fn auto_backend_says_which_engine() {
    let tmp = TempDir::new().unwrap();
    let expected = if phaseflow::gpu::hardware_gpu_available() {
        "engine gpu:"
    } else {
        "using the CPU engine"
    };
    phaseflow()
        .args(base_run(&tmp.path().join("a")))
        .assert()
        .success()
        .stderr(predicate::str::contains(expected));
}

#[test]
fn f64_run_writes_f64_states_and_level_energy() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("a");
    phaseflow()
        .args([
            "run",
            "--system",
            "pendulum",
            "--method",
            "symplectic-euler-a",
            "--ensemble",
            "level",
            "--energy",
            "0.1339746",
            "--points",
            "200",
            "--dt",
            "0.05",
            "--steps",
            "100",
            "--precision",
            "f64",
            "--save-states",
            "--quiet",
            "--out",
        ])
        .arg(&out)
        .assert()
        .success();
    let npy = std::fs::read(out.join("states/step_100.npy")).unwrap();
    assert!(String::from_utf8_lossy(&npy[..128]).contains("'<f8'"));
    let stats = read(&out.join("stats.csv"));
    let row0: Vec<f64> = stats.lines().nth(1).unwrap().split(',').map(num).collect();
    assert!(
        (row0[4] - 0.1339746).abs() < 1e-12,
        "level points start on the level: {}",
        row0[4]
    );
    assert!(row0[5] < 1e-12);
}

#[test]
fn file_ensemble_counts_points_that_blow_up() {
    let tmp = TempDir::new().unwrap();
    let input = tmp.path().join("init.csv");
    std::fs::write(&input, "q,p\n0,0\n1,0\n0.5,0.5\n").unwrap();
    let out = tmp.path().join("a");
    phaseflow()
        .args([
            "run",
            "--system",
            "oscillator",
            "--method",
            "euler",
            "--ensemble",
            "file",
            "--input",
        ])
        .arg(&input)
        .args([
            "--dt",
            "10",
            "--steps",
            "100",
            "--backend",
            "cpu",
            "--quiet",
            "--out",
        ])
        .arg(&out)
        .assert()
        .success();
    assert!(
        read(&out.join("config.toml")).contains("points = 3"),
        "the file decides the point count"
    );
    let stats = read(&out.join("stats.csv"));
    let last = stats.lines().last().unwrap();
    let cols: Vec<&str> = last.split(',').collect();
    assert_eq!(cols[2], "3");
    assert_eq!(
        cols[3], "1",
        "only the point at the origin stays finite: {last}"
    );
    assert_eq!(cols[4], "0.0", "statistics over the finite point only");
    // Relative columns are empty when no finite point has |H0| large enough to divide by.
    assert_eq!(cols[8], "");
}

#[test]
fn npy_input_is_read() {
    let tmp = TempDir::new().unwrap();
    let input = tmp.path().join("init.npy");
    std::fs::write(
        &input,
        phaseflow::output::npy::encode(3, 2, &[0.1f64, 0.0, 0.2, 0.1, -0.3, 0.2]),
    )
    .unwrap();
    phaseflow()
        .args([
            "run",
            "--system",
            "pendulum",
            "--method",
            "rk4",
            "--ensemble",
            "file",
            "--input",
        ])
        .arg(&input)
        .args(["--dt", "0.1", "--steps", "10", "--quiet", "--out"])
        .arg(tmp.path().join("a"))
        .assert()
        .success();
    assert!(read(&tmp.path().join("a/stats.csv"))
        .lines()
        .nth(1)
        .unwrap()
        .starts_with("0,0.0,3,3,"));
}

#[test]
fn validate_reports_deviations_and_passes() {
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
        .assert()
        .success()
        .stdout(predicate::str::is_match(r"max_abs_dev=\S+ max_rel_dev=\S+").unwrap())
        .stdout(predicate::str::contains("PASS"));
}

#[test]
fn bench_writes_the_table_and_csv() {
    let tmp = TempDir::new().unwrap();
    let csv = tmp.path().join("bench.csv");
    phaseflow()
        .args(["bench", "--points", "20000", "--steps", "20", "--csv"])
        .arg(&csv)
        .assert()
        .success()
        .stdout(predicate::str::contains("gpu f32 vs cpu f32: max_abs_dev="));
    let text = read(&csv);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "backend,device,precision,points,steps,seconds,point_steps_per_s,ratio_to_reference"
    );
    assert_eq!(
        lines.len(),
        6,
        "reference f64, cpu f64, reference f32, cpu f32, gpu f32: {text}"
    );
    assert!(lines[1].starts_with("reference,") && lines[1].contains(",f64,20000,20,"));
    assert!(
        lines[1].ends_with(','),
        "the reference has no ratio: {}",
        lines[1]
    );
    assert!(lines[2].starts_with("cpu,") && lines[2].contains(",f64,20000,20,"));
    assert!(lines[3].starts_with("reference,") && lines[3].contains(",f32,"));
    assert!(lines[4].starts_with("cpu,") && lines[4].contains(",f32,"));
    assert!(lines[5].starts_with("gpu,"));
    // the CPU rows' ratio to the reference is the quotient of their rates
    for (r, c) in [(1, 2), (3, 4)] {
        let (rv, cv): (Vec<&str>, Vec<&str>) =
            (lines[r].split(',').collect(), lines[c].split(',').collect());
        let rate = |v: &[&str]| v[v.len() - 2].parse::<f64>().unwrap();
        let ratio: f64 = cv[cv.len() - 1].parse().unwrap();
        assert!(
            (ratio - rate(&cv) / rate(&rv)).abs() <= 1e-9 * ratio,
            "{text}"
        );
    }
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

/// Bad input: exit code 2, a message naming the flag, and nothing created in --out.
fn rejects(extra: &[&str], needle: &str) {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("out");
    let mut args: Vec<String> = vec![
        "run",
        "--system",
        "pendulum",
        "--method",
        "verlet",
        "--ensemble",
        "disk",
        "--points",
        "100",
        "--dt",
        "0.1",
        "--steps",
        "10",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    // later flags override earlier ones in clap only for single values: rebuild with overrides
    for pair in extra.chunks(2) {
        if let Some(pos) = args.iter().position(|a| a == pair[0]) {
            if pair.len() == 2 {
                args[pos + 1] = pair[1].to_string();
                continue;
            }
        }
        args.extend(pair.iter().map(|s| s.to_string()));
    }
    args.extend(["--out".to_string(), out.display().to_string()]);
    phaseflow()
        .current_dir(tmp.path())
        .args(&args)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(needle))
        .stderr(predicate::str::contains("panicked").not());
    assert!(!out.exists(), "{extra:?}: --out must stay untouched");
}

/// An ensemble too big for the host's memory is refused before anything is generated or
/// written (10^14 points of 20 bytes: 2 PB), with the figure and the fix; a refined loop is
/// checked at the node count it may grow to.
#[test]
fn ensemble_too_big_for_memory_is_refused() {
    rejects(
        &["--points", "100000000000000"],
        "bytes per point) but only",
    );
    rejects(
        &["--points", "100000000000000"],
        "use fewer --points (at most about",
    );
    rejects(
        &["--points", "100000000000000", "--precision", "f64"],
        "--points 100000000000000: the ensemble needs about",
    );
    // A refined loop may grow to --max-nodes: that is what must fit.
    rejects(
        &["--ensemble", "circle", "--max-nodes", "100000000000000"],
        "--max-nodes 100000000000000: the ensemble needs about",
    );
}

#[test]
fn bad_step_sizes() {
    rejects(&["--dt", "nan"], "--dt must be a positive finite number");
    rejects(&["--dt", "inf"], "--dt must be a positive finite number");
    rejects(&["--dt", "-0.1"], "--dt must be a positive finite number");
    rejects(&["--dt", "0"], "--dt must be a positive finite number");
}

#[test]
fn bad_counts() {
    rejects(&["--points", "0"], "--points must be at least 1");
    rejects(&["--steps", "0"], "--steps must be at least 1");
    rejects(
        &["--snapshot-every", "0"],
        "--snapshot-every must be at least 1",
    );
    rejects(&["--points", "1000000000000"], "use fewer --points");
    rejects(
        &["--ensemble", "grid", "--points", "1000"],
        "perfect square",
    );
}

#[test]
fn unknown_names() {
    rejects(
        &["--system", "blackhole"],
        "--system blackhole: unknown system",
    );
    rejects(
        &["--method", "leapfrog9"],
        "--method leapfrog9: unknown method",
    );
    rejects(
        &["--ensemble", "blob"],
        "--ensemble blob: unknown ensemble kind",
    );
    rejects(&["--param", "mass=2"], "has no parameter 'mass'");
    rejects(&["--param", "m=-1"], "needs m > 0");
    rejects(&["--param", "m"], "expected KEY=VALUE");
    rejects(&["--param", "m=1e-39"], "overflow f32");
    rejects(&["--backend", "tpu"], "--backend tpu");
    rejects(&["--precision", "f16"], "--precision f16");
    rejects(
        &["--precision", "f64", "--backend", "gpu"],
        "the GPU engine computes in f32",
    );
}

#[test]
fn bad_files_and_dimensions() {
    rejects(
        &["--center", "1,2,3"],
        "--center: expected 2 comma-separated values",
    );
    rejects(&["--center", "1,x"], "is not a number");
    rejects(&["--ensemble", "file"], "--input");
    rejects(
        &["--ensemble", "file", "--input", "missing.csv"],
        "file not found",
    );
    rejects(&["--ensemble", "level"], "--energy");
    rejects(
        &["--ensemble", "level", "--energy", "5"],
        "not a closed curve",
    );
    rejects(&["--config", "missing.toml"], "--config: cannot read");
}

#[test]
fn malformed_inputs() {
    let tmp = TempDir::new().unwrap();
    let csv = tmp.path().join("bad.csv");
    std::fs::write(&csv, "q,p\n0.1,0.2\n0.3,oops\n").unwrap();
    rejects(
        &["--ensemble", "file", "--input", csv.to_str().unwrap()],
        "malformed CSV",
    );
    let ragged = tmp.path().join("ragged.csv");
    std::fs::write(&ragged, "0.1,0.2\n0.3\n").unwrap();
    rejects(
        &["--ensemble", "file", "--input", ragged.to_str().unwrap()],
        "malformed CSV",
    );
    let wide = tmp.path().join("wide.csv");
    std::fs::write(&wide, "0.1,0.2,0.3\n").unwrap();
    rejects(
        &["--ensemble", "file", "--input", wide.to_str().unwrap()],
        "expected 2 columns",
    );
    let npy = tmp.path().join("bad.npy");
    let mut bytes = phaseflow::output::npy::encode(4, 2, &[0.0f64; 8]);
    bytes.truncate(bytes.len() - 5);
    std::fs::write(&npy, bytes).unwrap();
    rejects(
        &["--ensemble", "file", "--input", npy.to_str().unwrap()],
        "truncated or malformed .npy",
    );
    let toml = tmp.path().join("bad.toml");
    std::fs::write(&toml, "system = \"pendulum\"\ndt = [oops\n").unwrap();
    rejects(&["--config", toml.to_str().unwrap()], "malformed TOML");
    let unknown = tmp.path().join("unknown.toml");
    std::fs::write(&unknown, "sytem = \"pendulum\"\n").unwrap();
    rejects(&["--config", unknown.to_str().unwrap()], "unknown field");
}

#[test]
fn bench_and_validate_reject_bad_input() {
    phaseflow()
        .args(["bench", "--points", "0"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--points"));
    phaseflow()
        .args(["bench", "--dt", "-1"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--dt"));
    phaseflow()
        .args(["bench", "--system", "nope"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--system nope"));
    phaseflow()
        .args([
            "validate",
            "--system",
            "pendulum",
            "--method",
            "verlet",
            "--ensemble",
            "disk",
            "--dt",
            "0.1",
            "--steps",
            "5",
        ])
        .args(["--precision", "f64"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("validate compares at f32"));
}

/// Final area_ratio of a loop run on the oscillator (f64, CPU).
fn final_area_ratio(method: &str, dt: &str, steps: &str, backend: &str, precision: &str) -> f64 {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("a");
    phaseflow()
        .args([
            "run",
            "--system",
            "oscillator",
            "--method",
            method,
            "--ensemble",
            "rect",
            "--lo=-0.1,0.9",
            "--hi=0.1,1.1",
        ])
        .args([
            "--points",
            "400",
            "--dt",
            dt,
            "--steps",
            steps,
            "--backend",
            backend,
            "--precision",
            precision,
            "--quiet",
            "--out",
        ])
        .arg(&out)
        .assert()
        .success();
    let stats = read(&out.join("stats.csv"));
    let first: Vec<&str> = stats.lines().nth(1).unwrap().split(',').collect();
    let area0: f64 = first[10].parse().unwrap();
    let tol = if precision == "f64" { 1e-12 } else { 1e-6 };
    assert!((area0 - 0.04).abs() < tol, "a 0.2 × 0.2 rectangle: {area0}");
    stats
        .lines()
        .last()
        .unwrap()
        .split(',')
        .nth(11)
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn loop_area_follows_the_exact_oscillator_factors() {
    let h: f64 = 0.01;
    let euler = final_area_ratio("euler", "0.01", "1000", "cpu", "f64");
    assert!(
        (euler / (1.0 + h * h).powi(1000) - 1.0).abs() < 1e-12,
        "explicit Euler: {euler}"
    );
    let h: f64 = 0.5;
    let rk4 = final_area_ratio("rk4", "0.5", "2000", "cpu", "f64");
    let factor = (1.0 - h.powi(6) / 72.0 + h.powi(8) / 576.0).powi(2000);
    assert!((rk4 / factor - 1.0).abs() < 1e-12, "rk4: {rk4} vs {factor}");
    for method in [
        "symplectic-euler-a",
        "symplectic-euler-b",
        "verlet",
        "position-verlet",
        "yoshida4",
        "blanes-moan4",
    ] {
        let r = final_area_ratio(method, "0.1", "1000", "cpu", "f64");
        assert!((r - 1.0).abs() < 1e-12, "{method}: area ratio {r}");
    }
    // The GPU (f32) keeps it too, to f32 roundoff.
    let r = final_area_ratio("verlet", "0.1", "1000", "gpu", "f32");
    assert!((r - 1.0).abs() < 1e-4, "gpu verlet: area ratio {r}");
}

/// The binary with its standard output and error bound to given files, waited for.
fn run_with(
    args: &[&str],
    stdout: std::process::Stdio,
    stderr: std::process::Stdio,
) -> std::process::Output {
    std::process::Command::new(assert_cmd::cargo::cargo_bin("phaseflow"))
        .args(args)
        .stdout(stdout)
        .stderr(stderr)
        .output()
        .unwrap()
}

/// Issue 15, fault 1: a reader that has gone (`phaseflow list | head -1`) ends the program
/// quietly with 141 (the shell's code for SIGPIPE), not a panic (101).
#[test]
fn closed_stdout_ends_quietly() {
    for args in [&["list"][..], &["devices"][..]] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = run_with(args, writer.into(), std::process::Stdio::piped());
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(141), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

/// Issue 15, fault 1: stdout on a full device is a runtime failure (exit 1) with a message;
/// stderr on a full device loses its messages but changes no exit code.
#[test]
fn full_device_is_a_runtime_failure() {
    let full = || {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap()
    };
    let out = run_with(&["list"], full().into(), std::process::Stdio::piped());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("writing standard output"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    // Bad input with stderr full: still exit 2.
    let out = run_with(
        &["run", "--system", "nope", "--out", "/nonexistent/x"],
        std::process::Stdio::null(),
        full().into(),
    );
    assert_eq!(out.status.code(), Some(2));
    // A run whose engine lines go to a full stderr still succeeds.
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("out");
    let mut args = base_run(&dir);
    args.extend(["--backend".into(), "cpu".into()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = run_with(&args, std::process::Stdio::null(), full().into());
    assert_eq!(out.status.code(), Some(0));
    assert!(dir.join("stats.csv").exists());
}

/// An `.npy` file of f8 values whose header declares `shape` (as written) over `body`.
fn npy_with_shape(shape: &str, body: &[u8]) -> Vec<u8> {
    let mut header = format!("{{'descr': '<f8', 'fortran_order': False, 'shape': {shape}, }}");
    header.push_str(&" ".repeat((64 - (10 + header.len() + 1) % 64) % 64));
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(body);
    out
}

/// Issue 15, fault 2: a shape whose byte count overflows is refused (it was read as 0 or 3
/// points), and so is every input that holds no points, for `run` and `validate`.
#[test]
fn npy_shape_overflow_and_empty_inputs_are_refused() {
    let tmp = TempDir::new().unwrap();
    let file = |name: &str, bytes: &[u8]| {
        let path = tmp.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path.to_str().unwrap().to_string()
    };
    let huge = file("huge.npy", &npy_with_shape("(2305843009213693952, 2)", &[]));
    let wrapped = file(
        "wrapped.npy",
        &npy_with_shape("(1152921504606846979, 2)", &[0u8; 48]),
    );
    for path in [&huge, &wrapped] {
        rejects(&["--ensemble", "file", "--input", path], "malformed .npy");
    }
    let empty_npy = file("empty.npy", &npy_with_shape("(0, 2)", &[]));
    let empty_csv = file("empty.csv", b"");
    let header_only = file("header.csv", b"q,p\n# no rows\n");
    for path in [&empty_npy, &empty_csv, &header_only] {
        rejects(&["--ensemble", "file", "--input", path], "holds no points");
    }
    for path in [&huge, &empty_npy] {
        phaseflow()
            .args([
                "validate",
                "--system",
                "pendulum",
                "--ensemble",
                "file",
                "--input",
                path,
                "--steps",
                "1",
                "--out",
            ])
            .arg(tmp.path().join("v"))
            .assert()
            .code(2)
            .stdout(predicate::str::contains("PASS").not());
    }
}

/// Issue 15, fault 7: a first line that is not numbers is a header only when it is a line of
/// names; `0.1,O` used to be dropped as a header, losing a data row.
#[test]
fn csv_first_row_is_not_dropped() {
    let tmp = TempDir::new().unwrap();
    for (i, text) in ["0.1,O\n0.3,0.4\n", "0.1,0  # c\n0.3,0.4\n"]
        .iter()
        .enumerate()
    {
        let csv = tmp.path().join(format!("in{i}.csv"));
        std::fs::write(&csv, text).unwrap();
        rejects(
            &["--ensemble", "file", "--input", csv.to_str().unwrap()],
            "malformed CSV at line 1",
        );
    }
}

/// Issue 15, fault 8: a `--loop` file that visits a node twice (not next to itself) is
/// refused like an adjacent repeat.
#[test]
fn loop_file_with_a_repeated_node_is_refused() {
    let tmp = TempDir::new().unwrap();
    let csv = tmp.path().join("loop.csv");
    std::fs::write(&csv, "q,p\n0,0\n1,0\n1,1\n0.5,0.5\n1,0\n0,1\n").unwrap();
    rejects(
        &[
            "--ensemble",
            "file",
            "--loop",
            "--input",
            csv.to_str().unwrap(),
        ],
        "rows 2 and 5 are the same point",
    );
}

/// Issue 15, fault 9: `--config` and `--input` naming a device (or a symlink to one) are
/// refused without reading it (they used to read /dev/zero until memory ran out), and a
/// configuration file is at most 1 MiB.
#[test]
fn unbounded_inputs_are_refused() {
    let tmp = TempDir::new().unwrap();
    let link = tmp.path().join("zero.npy");
    std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
    let link = link.to_str().unwrap();
    rejects(&["--config", "/dev/zero"], "not a regular file");
    rejects(&["--config", link], "not a regular file");
    for input in ["/dev/zero", link] {
        rejects(
            &["--ensemble", "file", "--input", input],
            "not a regular file",
        );
    }
    let big = tmp.path().join("big.toml");
    std::fs::write(&big, format!("# {}\n", "x".repeat(1 << 20))).unwrap();
    rejects(
        &["--config", big.to_str().unwrap()],
        "more than the 1048576 bytes",
    );
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

/// Issue 15, fault 3: a level just below the pendulum's separatrix (E < 2) is a closed curve
/// inside the well; it used to be refused ("not a closed curve") or to put points on periodic
/// copies of the level (area above the separatrix's 16).
#[test]
fn level_near_the_separatrix_is_generated_in_the_well() {
    let tmp = TempDir::new().unwrap();
    for energy in ["1.9999", "1.99999"] {
        let out = tmp.path().join(energy);
        phaseflow()
            .args([
                "run",
                "--system",
                "pendulum",
                "--method",
                "verlet",
                "--ensemble",
                "level",
                "--energy",
                energy,
                "--points",
                "2000",
                "--dt",
                "0.01",
                "--steps",
                "1",
                "--no-refine",
                "--backend",
                "cpu",
                "--quiet",
                "--out",
            ])
            .arg(&out)
            .assert()
            .success();
        let stats = read(&out.join("stats.csv"));
        let header: Vec<&str> = stats.lines().next().unwrap().split(',').collect();
        let row0: Vec<&str> = stats.lines().nth(1).unwrap().split(',').collect();
        let area = num(row0[header.iter().position(|h| *h == "area").unwrap()]);
        assert!(area > 15.9 && area < 16.0, "E = {energy}: area {area}");
    }
}

/// `run` into `out` with a small disk (`points` points, 10 steps of the pendulum, CPU engine).
fn small_run(out: &Path, points: &str, extra: &[&str]) -> Command {
    let mut c = phaseflow();
    c.args([
        "run",
        "--system",
        "pendulum",
        "--method",
        "verlet",
        "--ensemble",
        "disk",
        "--center",
        "0,0.8",
        "--radius",
        "0.3",
        "--points",
        points,
        "--dt",
        "0.05",
        "--steps",
        "10",
        "--backend",
        "cpu",
        "--quiet",
    ])
    .args(extra)
    .arg("--out")
    .arg(out);
    c
}

#[test]
fn a_used_out_folder_is_refused_without_force_and_replaced_with_it() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("o");
    // First run: one point (trajectory.csv) with states.
    small_run(&out, "1", &["--save-states"]).assert().success();
    assert!(out.join("trajectory.csv").exists() && out.join("states/step_10.npy").exists());
    let stats = read(&out.join("stats.csv"));
    let config = read(&out.join("config.toml"));
    // A second run is refused before anything is written.
    small_run(&out, "50", &[])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--force").and(predicate::str::contains("already holds")));
    assert_eq!(read(&out.join("stats.csv")), stats);
    assert_eq!(read(&out.join("config.toml")), config);
    assert!(out.join("trajectory.csv").exists() && out.join("states/step_10.npy").exists());
    assert!(!out.join(".phaseflow.lock").exists());
    // With --force the previous run's files go first.
    small_run(&out, "50", &["--force"]).assert().success();
    assert!(
        !out.join("trajectory.csv").exists(),
        "old trajectory.csv left"
    );
    assert!(!out.join("states").exists(), "old states left");
    assert!(read(&out.join("stats.csv"))
        .lines()
        .nth(1)
        .unwrap()
        .starts_with("0,0.0,50,"));
    assert!(!out.join(".phaseflow.lock").exists());
    // `--config DIR/config.toml` without --out writes into DIR again: it needs --force.
    let cfg = out.join("config.toml");
    phaseflow()
        .args(["run", "--quiet", "--config"])
        .arg(&cfg)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--force"));
    phaseflow()
        .args(["run", "--quiet", "--force", "--config"])
        .arg(&cfg)
        .assert()
        .success();
    assert!(read(&out.join("manifest.toml")).contains("complete = true"));
}

#[test]
fn an_out_folder_with_foreign_files_is_refused_even_with_force() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("o");
    small_run(&out, "20", &[]).assert().success();
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    std::fs::create_dir_all(out.join("states")).unwrap();
    std::fs::write(out.join("states/plot.py"), "mine").unwrap();
    for extra in [&[][..], &["--force"][..]] {
        small_run(&out, "20", extra).assert().code(2).stderr(
            predicate::str::contains("did not write")
                .and(predicate::str::contains("notes.txt"))
                .and(predicate::str::contains("plot.py")),
        );
    }
    assert_eq!(read(&out.join("notes.txt")), "mine");
    assert_eq!(read(&out.join("states/plot.py")), "mine");
    assert!(out.join("stats.csv").exists());
    // A folder of someone else's files only is refused the same way.
    let other = tmp.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("data.csv"), "1,2\n").unwrap();
    small_run(&other, "20", &["--force"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("data.csv"));
    assert_eq!(std::fs::read_dir(&other).unwrap().count(), 1);
}

#[test]
fn a_held_lock_refuses_a_second_run_and_a_stale_one_is_taken_over() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("o");
    std::fs::create_dir_all(&out).unwrap();
    let lock = out.join(".phaseflow.lock");
    // This test's own pid: a live process holds the folder.
    std::fs::write(&lock, format!("{}\n", std::process::id())).unwrap();
    for extra in [&[][..], &["--force"][..]] {
        small_run(&out, "20", extra).assert().code(2).stderr(
            predicate::str::contains("another phaseflow run")
                .and(predicate::str::contains(std::process::id().to_string())),
        );
    }
    assert!(lock.exists() && !out.join("stats.csv").exists());
    // A pid that is not running (above any pid_max): the lock is stale and taken over.
    std::fs::write(&lock, "4294967294\n").unwrap();
    small_run(&out, "20", &[]).assert().success();
    assert!(!lock.exists(), "the lock is removed at the end");
    assert!(out.join("stats.csv").exists());
}

#[test]
fn the_manifest_marks_a_complete_run_and_is_missing_after_an_interrupted_one() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("o");
    small_run(&out, "20", &["--save-states"]).assert().success();
    let manifest = read(&out.join("manifest.toml"));
    assert!(manifest.contains("complete = true"), "{manifest}");
    for f in ["stats.csv", "config.toml", "states/step_10.npy"] {
        let size = std::fs::metadata(out.join(f)).unwrap().len();
        assert!(
            manifest.contains(&format!("\"{f}\" = {size}\n")),
            "{f}: {manifest}"
        );
    }
    assert!(!manifest.contains(".phaseflow.lock"));
    // A run killed midway (after config.toml, before stats.csv) leaves no manifest, and a
    // --force re-run takes over its stale lock and clears its files.
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("phaseflow"))
        .args([
            "run",
            "--system",
            "pendulum",
            "--method",
            "verlet",
            "--ensemble",
            "disk",
            "--points",
            "20000",
            "--dt",
            "0.001",
            "--steps",
            "100000000",
            "--backend",
            "cpu",
            "--quiet",
            "--force",
            "--out",
        ])
        .arg(&out)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let t0 = std::time::Instant::now();
    while !(out.join("config.toml").exists() && !out.join("manifest.toml").exists()) {
        assert!(t0.elapsed().as_secs() < 60, "the run never started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(200));
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(out.join("config.toml").exists());
    assert!(
        !out.join("manifest.toml").exists(),
        "an interrupted run looks complete"
    );
    assert!(
        !out.join("stats.csv").exists(),
        "the old stats.csv beside the new config.toml"
    );
    assert!(out.join(".phaseflow.lock").exists());
    small_run(&out, "20", &["--force"]).assert().success();
    assert!(read(&out.join("manifest.toml")).contains("complete = true"));
    assert!(!out.join(".phaseflow.lock").exists());
}

#[test]
fn a_used_study_folder_is_refused_without_force_and_replaced_with_it() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("s");
    let study = |methods: &str, extra: &[&str]| {
        let mut c = phaseflow();
        c.args([
            "study",
            "--system",
            "oscillator",
            "--methods",
            methods,
            "--dt",
            "0.1",
            "--steps",
            "10",
            "--ensemble",
            "disk",
            "--points",
            "50",
            "--backend",
            "cpu",
            "--quiet",
        ])
        .args(extra)
        .arg("--out")
        .arg(&out);
        c
    };
    study("euler,verlet", &[]).assert().success();
    assert!(out.join("euler/stats.csv").exists() && out.join("verlet/manifest.toml").exists());
    let manifest = read(&out.join("manifest.toml"));
    assert!(manifest.contains("complete = true") && manifest.contains("\"euler/stats.csv\""));
    assert!(manifest.contains("\"report.md\"") && manifest.contains("\"summary.csv\""));
    let summary = read(&out.join("summary.csv"));
    study("verlet", &[])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--force"));
    assert_eq!(read(&out.join("summary.csv")), summary);
    study("verlet", &["--force"]).assert().success();
    assert!(!out.join("euler").exists(), "the old method folder is left");
    assert!(out.join("verlet/stats.csv").exists());
    assert!(!out.join(".phaseflow.lock").exists() && !out.join("verlet/.phaseflow.lock").exists());
    // A method folder that a live run holds is not cleared.
    let lock = out.join("verlet/.phaseflow.lock");
    std::fs::write(&lock, format!("{}\n", std::process::id())).unwrap();
    study("verlet", &["--force"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("another phaseflow run"));
    assert!(lock.exists() && out.join("verlet/stats.csv").exists());
    std::fs::remove_file(&lock).unwrap();
    // A user's folder inside the study folder is not removed.
    std::fs::create_dir_all(out.join("mine")).unwrap();
    std::fs::write(out.join("mine/notes.txt"), "x").unwrap();
    study("verlet", &["--force"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("notes.txt"));
    assert!(out.join("mine/notes.txt").exists() && out.join("verlet/stats.csv").exists());
}
