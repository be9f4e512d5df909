//! `--stop-when`: per-point stop conditions. The pendulum's rotating points (H > 2 m g l)
//! and only they pass over the top, so exactly they stop; a stopped point keeps its state and
//! the statistics leave it out; the stop steps are equal on both engines in f64 (lavapipe);
//! an interrupted and resumed run and merged shards give the same stops.npy; bad conditions
//! exit 2; a stopped ensemble costs no steps.

use std::path::Path;
use std::time::Instant;

use predicates::prelude::*;
use tempfile::TempDir;

use crate::common::{phaseflow, stats};

/// `file` of the run folder `dir`, decoded.
fn npy(dir: &Path, file: &str) -> phaseflow::npy::Array2 {
    let bytes = std::fs::read(dir.join(file)).unwrap();
    phaseflow::npy::decode_f64(&bytes).unwrap()
}

/// `args` with the value after `flag` replaced by `value`.
fn set<'a>(args: &mut [&'a str], flag: &str, value: &'a str) {
    let at = args.iter().position(|&a| a == flag).unwrap();
    args[at + 1] = value;
}

fn run(args: &[&str], out: &Path) {
    phaseflow()
        .args(["run", "--quiet"])
        .args(args)
        .arg("--out")
        .arg(out)
        .assert()
        .success();
}

/// A 20 × 20 grid of pendulum states over q ∈ [−0.1, 0.1], p ∈ [−3, 3]: 8 rows of p rotate
/// (H ≥ 2.1 > 2), the others librate (H ≤ 1.51), none near the separatrix.
const PENDULUM: &[&str] = &[
    "--system",
    "pendulum",
    "--method",
    "verlet",
    "--dt",
    "0.05",
    "--steps",
    "2000",
    "--snapshot-every",
    "500",
    "--ensemble",
    "grid",
    "--points",
    "400",
    "--lo",
    "-0.1,-3",
    "--hi",
    "0.1,3",
    "--precision",
    "f64",
    "--backend",
    "cpu",
];

/// The pendulum's H (m = g = l = 1) as the statistics compute it.
fn energy(q: f64, p: f64) -> f64 {
    p * p / 2.0 + 2.0 * (q / 2.0).sin().powi(2)
}

#[test]
fn exactly_the_rotating_pendulum_points_stop_keep_their_state_and_leave_the_statistics() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("run");
    let mut args = PENDULUM.to_vec();
    args.extend(["--stop-when", "q^2 > 10", "--save-states"]);
    run(&args, &out);
    let (init, mid, last) = (
        npy(&out, "states/step_0.npy"),
        npy(&out, "states/step_1000.npy"),
        npy(&out, "states/step_2000.npy"),
    );
    let stops = npy(&out, "stops.npy");
    assert_eq!(stops.cols, 4);
    let h0: Vec<f64> = (0..400)
        .map(|i| energy(init.data[2 * i], init.data[2 * i + 1]))
        .collect();
    assert!(
        h0.iter().all(|&h| (h - 2.0).abs() > 0.09),
        "a point near the separatrix"
    );
    let rotating: Vec<usize> = (0..400).filter(|&i| h0[i] > 2.0).collect();
    assert_eq!(rotating.len(), 160, "8 of 20 rows rotate");
    let row = |r: usize| &stops.data[4 * r..4 * r + 4];
    let stopped: Vec<usize> = (0..stops.rows).map(|r| row(r)[0] as usize).collect();
    assert_eq!(
        stopped, rotating,
        "the stopped points are the rotating ones, in order"
    );
    for r in 0..stops.rows {
        let [i, step, t, cond] = row(r).try_into().unwrap();
        let i = i as usize;
        assert_eq!(cond, 0.0);
        assert_eq!(t, step * 0.05);
        assert!(
            step > 0.0 && step < 1000.0,
            "a rotating point passes q² = 10 within 50 s: {step}"
        );
        // The state where the condition first held, kept since.
        let (q, p) = (last.data[2 * i], last.data[2 * i + 1]);
        assert!(q * q > 10.0 && q * q < 11.0, "point {i}: q = {q}");
        assert_eq!(
            (mid.data[2 * i], mid.data[2 * i + 1]),
            (q, p),
            "point {i} moved after its stop"
        );
    }
    let rows = stats(&out);
    let end = rows.last().unwrap();
    assert_eq!(
        (end["stopped"], end["finite"], end["escaped"]),
        (160.0, 240.0, 0.0)
    );
    assert_eq!(rows[0]["stopped"], 0.0);
    // The energy statistics are the running points' alone.
    let running: Vec<usize> = (0..400).filter(|i| !rotating.contains(i)).collect();
    let h = |i: usize| energy(last.data[2 * i], last.data[2 * i + 1]);
    let mean = running.iter().map(|&i| h(i)).sum::<f64>() / running.len() as f64;
    let all = (0..400).map(h).sum::<f64>() / 400.0;
    assert!(
        (end["energy_mean"] - mean).abs() < 1e-12 * mean,
        "{} {mean}",
        end["energy_mean"]
    );
    assert!(
        (all - mean).abs() > 0.1,
        "the stopped points' energies differ: {all} {mean}"
    );
    let err_max = running
        .iter()
        .map(|&i| (h(i) - h0[i]).abs())
        .fold(0.0, f64::max);
    assert!(
        (end["abs_energy_err_max"] - err_max).abs() <= 1e-15,
        "{err_max}"
    );
    // The condition is recorded for resume and --config.
    let config = std::fs::read_to_string(out.join("config.toml")).unwrap();
    assert!(config.contains("stop_when = [\"q^2 > 10\"]"), "{config}");
}

/// Hénon–Heiles above the escape energy (H ≈ 0.245): the points that leave the disk of
/// radius 2 within 12 time units, on both engines in f64, at the same steps.
const HENON_HEILES: &[&str] = &[
    "--system",
    "henon-heiles",
    "--method",
    "verlet",
    "--dt",
    "0.02",
    "--steps",
    "600",
    "--ensemble",
    "disk",
    "--points",
    "1000",
    "--center",
    "0,0,0.7,0",
    "--radius",
    "0.05",
    "--precision",
    "f64",
    "--stop-when",
    "q1^2 + q2^2 > 4",
    "--stop-when",
    "H > 1",
];

#[test]
fn stop_steps_are_equal_on_the_gpu_and_the_cpu_in_f64() {
    phaseflow()
        .arg("validate")
        .args(HENON_HEILES)
        .assert()
        .success()
        .stdout(predicate::str::contains("stop_mismatch=0").and(predicate::str::contains("PASS")));
    let tmp = TempDir::new().unwrap();
    let (cpu, gpu) = (tmp.path().join("cpu"), tmp.path().join("gpu"));
    let mut args = HENON_HEILES.to_vec();
    args.extend(["--backend", "cpu"]);
    run(&args, &cpu);
    args.pop();
    args.push("gpu");
    run(&args, &gpu);
    let (c, g) = (npy(&cpu, "stops.npy"), npy(&gpu, "stops.npy"));
    assert!(
        c.rows > 50 && c.rows < 950,
        "some escape, some not: {}",
        c.rows
    );
    assert_eq!(c.data, g.data, "stop records differ between the engines");
    assert_eq!(stats(&cpu).last().unwrap()["stopped"], c.rows as f64);
}

/// With --chaos, a point stopped by a condition on its state keeps its indicators as they
/// were after the step it stopped on, also between snapshots (they are the no-stop run's at
/// that step), on both engines (f64, lavapipe).
#[test]
fn a_stopped_point_keeps_its_indicators_from_its_stop_step() {
    let tmp = TempDir::new().unwrap();
    let (cpu, gpu, free) = (
        tmp.path().join("cpu"),
        tmp.path().join("gpu"),
        tmp.path().join("free"),
    );
    let mut args = PENDULUM.to_vec();
    set(&mut args, "--steps", "60");
    set(&mut args, "--snapshot-every", "20");
    args.extend(["--chaos", "megno", "--save-states"]);
    // Every step a snapshot, without the condition: the reference.
    let mut every = args.clone();
    set(&mut every, "--snapshot-every", "1");
    run(&every, &free);
    args.extend(["--stop-when", "q^2 > 10"]);
    run(&args, &cpu);
    set(&mut args, "--backend", "gpu");
    run(&args, &gpu);
    let stops = npy(&cpu, "stops.npy");
    let last = npy(&cpu, "chaos/step_60.npy");
    let mut between = 0;
    for row in stops.data.chunks(4) {
        let (point, step) = (row[0] as usize, row[1] as u64);
        between += usize::from(step % 20 != 0);
        let then = npy(&free, &format!("chaos/step_{step}.npy"));
        assert_eq!(
            last.data[point].to_bits(),
            then.data[point].to_bits(),
            "point {point}, stopped at step {step}: MEGNO {} at the end, {} at its stop",
            last.data[point],
            then.data[point]
        );
    }
    assert!(between > 10, "{between} points stopped between snapshots");
    // The GPU's loop ends for a stopped point: its indicators are the CPU's to rounding (the
    // pendulum's MEGNO on lavapipe differs from the CPU's in the last bits, stopped or not).
    let on_gpu = npy(&gpu, "chaos/step_60.npy");
    let worst = (last.data.iter().zip(&on_gpu.data))
        .map(|(a, b)| (a - b).abs() / a.abs().max(1e-300))
        .fold(0.0, f64::max);
    assert!(worst < 1e-12, "the engines' indicators differ by {worst:e}");
}

#[test]
fn an_interrupted_run_resumes_to_the_same_stops() {
    let mut args: Vec<&str> = vec!["run"];
    args.extend(HENON_HEILES);
    args.extend([
        "--backend",
        "cpu",
        "--snapshot-every",
        "100",
        "--checkpoint-every",
        "150",
    ]);
    super::resume::interrupted_equals_uninterrupted(&args, 2);
}

#[test]
fn shards_merge_to_the_whole_runs_stops() {
    let mut args: Vec<&str> = HENON_HEILES.to_vec();
    set(&mut args, "--points", "9000");
    args.extend(["--backend", "cpu"]);
    let tmp = super::shards::shards_merge_to_the_whole(&args, 2);
    let (whole, merged) = (tmp.path().join("whole"), tmp.path().join("merged"));
    let (w, m) = (npy(&whole, "stops.npy"), npy(&merged, "stops.npy"));
    assert!(w.rows > 100, "{}", w.rows);
    assert_eq!(w.data, m.data);
}

#[test]
fn bad_conditions_exit_2_naming_the_fix() {
    for (cond, says) in [
        ("q > ", "ends where a value is expected"),
        ("q^2 + 1", "expected a comparison here"),
        ("q = 3", "expected a comparison here"),
        ("q > 1 < 2", "one comparison between two formulas"),
        ("x > 1", "unknown name 'x'"),
        ("q2 > 1", "above the 1 degrees of freedom"),
    ] {
        let tmp = TempDir::new().unwrap();
        let out = tmp.path().join("run");
        let mut args = PENDULUM.to_vec();
        args.extend(["--stop-when", cond]);
        phaseflow()
            .arg("run")
            .args(&args)
            .arg("--out")
            .arg(&out)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("--stop-when").and(predicate::str::contains(says)));
        assert!(!out.exists(), "{cond}: a folder was written");
    }
    let tmp = TempDir::new().unwrap();
    let mut args = PENDULUM.to_vec();
    args.extend(["--stop-when", "q > 3", "--tangent"]);
    phaseflow()
        .arg("run")
        .args(&args)
        .arg("--out")
        .arg(tmp.path().join("run"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--stop-when cannot be combined with --tangent",
        ));
}

/// A point stopped at step k costs no more than k steps: an ensemble all of whose points
/// stop after the first step runs in a small fraction of the time of the same ensemble
/// tested against a condition that never holds (the CPU engine advances only the running
/// points).
#[test]
fn stopped_points_cost_no_steps() {
    let tmp = TempDir::new().unwrap();
    let mut args = HENON_HEILES[..HENON_HEILES.len() - 4].to_vec();
    args.extend(["--backend", "cpu"]);
    set(&mut args, "--points", "100000");
    set(&mut args, "--steps", "3000");
    set(&mut args, "--center", "0,0,0.1,0");
    let time = |extra: &[&str], name: &str| {
        let mut a = args.clone();
        a.extend(extra);
        let start = Instant::now();
        run(&a, &tmp.path().join(name));
        start.elapsed().as_secs_f64()
    };
    let all = time(&["--stop-when", "t < 0"], "running");
    let none = time(&["--stop-when", "t > 0"], "stopped");
    let stopped = stats(&tmp.path().join("stopped"));
    assert_eq!(stopped.last().unwrap()["stopped"], 100000.0);
    assert_eq!(
        stats(&tmp.path().join("running")).last().unwrap()["stopped"],
        0.0
    );
    assert!(
        none < 0.5 * all,
        "stopped after one step {none:.3} s, running {all:.3} s"
    );
}
