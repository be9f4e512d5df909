//! Runs that succeed: the files they write (stats.csv, states, config.toml), the GPU engine
//! against the CPU one, file inputs, ensemble generation and the exact loop-area factors.

use predicates::prelude::*;
use tempfile::TempDir;

use crate::common::{phaseflow, read, stats};
use crate::{base_run, values};

/// stats.csv's header: step, t and points, then every registered measurement's columns.
fn stats_header() -> String {
    let measured = phaseflow::measure::row::columns().iter().map(|c| c.name);
    ["step", "t", "points"]
        .into_iter()
        .chain(measured)
        .collect::<Vec<_>>()
        .join(",")
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
    assert_eq!(lines[0], stats_header());
    assert_eq!(lines.len(), 1 + 5, "snapshots at 0,100,200,300,400");
    assert!(lines[1].starts_with("0,0.0,500,500,"));
    let first: Vec<&str> = lines[1].split(',').collect();
    assert_eq!(first[6], "0.0", "no energy error at step 0");
    let last = values(lines[5]);
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
    args.retain(|a| a != "--quiet");
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
        let gv = values(gl);
        let cv = values(cl);
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
    // f32, f64 on the GPU (issue 12), compensated f32 (H read at q + eq, p + ep on both sides)
    for (mode, extra) in [
        ("f32", &[][..]),
        ("f64", &["--precision", "f64"][..]),
        ("compensated", &["--compensated"][..]),
    ] {
        let (gs, gerr) = run("gpu", &format!("gpu-{mode}"), extra);
        assert!(
            gerr.contains("energy statistics reduced on the device in f64"),
            "{gerr}"
        );
        let saved = [extra, &["--save-states"]].concat();
        let (gs2, _) = run("gpu", &format!("gpu-saved-{mode}"), &saved);
        let (cs, cerr) = run("cpu", &format!("cpu-{mode}"), extra);
        assert!(!cerr.contains("reduced on the device"), "{cerr}");
        assert_eq!(gs.lines().count(), 1 + 4);
        compare_stats(&gs, &[&gs2, &cs]);
    }
}

/// stats.csv of the GPU run (`gs`) against others of the same run: counts equal, energy
/// columns to rounding.
fn compare_stats(gs: &str, others: &[&String]) {
    for other in others {
        for (gl, cl) in gs.lines().zip(other.lines()).skip(1) {
            let gv = values(gl);
            let cv = values(cl);
            assert_eq!(gv[..4], cv[..4], "step, t, points, finite");
            assert_eq!(gv[19], cv[19], "unconverged");
            assert_eq!(gv[20], cv[20], "escaped (counted on the device too)");
            // energy_mean, energy_std, the error columns (errors ~1e-6 against H ~0.3), the
            // stayed points' maxima (reduced on the device too)
            for (k, tol) in [
                (4, 1e-13),
                (5, 1e-9),
                (6, 1e-8),
                (7, 1e-8),
                (8, 1e-8),
                (9, 1e-8),
                (22, 1e-8),
                (23, 1e-8),
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
    // --quiet drops the notes (the engine is still named in config.toml)...
    phaseflow()
        .args(base_run(&tmp.path().join("quiet")))
        .assert()
        .success()
        .stderr(predicate::str::contains("phaseflow:").not());
    let used = read(&tmp.path().join("quiet/config.toml"));
    assert!(used.contains("# engine used:"), "{used}");
    // ... and without it stderr says which engine runs.
    let mut args = base_run(&tmp.path().join("a"));
    args.retain(|a| a != "--quiet");
    phaseflow()
        .args(args)
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
    let row0 = values(stats.lines().nth(1).unwrap());
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
        let area = stats(&out)[0]["area"];
        assert!(area > 15.9 && area < 16.0, "E = {energy}: area {area}");
    }
}
