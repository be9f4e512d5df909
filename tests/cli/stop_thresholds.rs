//! Thresholds on chaos indicators as stop conditions (`--chaos megno,sali --stop-when
//! 'megno > 8'`, `'sali < 1e-8'`): on a pair of Hénon–Heiles orbits at E = 1/8, one on a torus
//! and one in the chaotic sea, the chaotic one stops and the regular one runs to the end; the
//! stopped point keeps its indicators as they were when it stopped; the stop steps and the
//! indicators are equal on the GPU (lavapipe) and the CPU in f64; an interrupted run resumes
//! to the same files and merged shards give the whole run's; a threshold on an indicator the
//! run does not compute exits 2 naming the fix.

use std::path::{Path, PathBuf};

use predicates::prelude::*;
use tempfile::TempDir;

use crate::common::phaseflow;

/// The energy of the pair.
const E: f64 = 0.125;

/// (q2, p2) on q1 = 0 of the pair: a torus (MEGNO ⟨Y⟩ → 2) and a chaotic orbit.
const REGULAR: (f64, f64) = (0.45, -0.05);
const CHAOTIC: (f64, f64) = (-0.2, 0.05);

/// The pair as a CSV of (q1, q2, p1, p2), p1 ≥ 0 solved from H = E.
fn pair(dir: &Path) -> PathBuf {
    let row = |(y, py): (f64, f64)| {
        let p1 = (2.0 * E - py * py - y * y + 2.0 * y * y * y / 3.0).sqrt();
        format!("0,{y},{p1},{py}\n")
    };
    let path = dir.join("pair.csv");
    std::fs::write(&path, row(REGULAR) + &row(CHAOTIC)).unwrap();
    path
}

/// The pair with the indicators to t = 1000 (yoshida4, h = 0.05) and `condition`.
fn args(input: &Path, condition: &str) -> Vec<String> {
    [
        "--system",
        "henon-heiles",
        "--method",
        "yoshida4",
        "--dt",
        "0.05",
        "--steps",
        "20000",
        "--snapshot-every",
        "2500",
        "--ensemble",
        "file",
        "--input",
        input.to_str().unwrap(),
        "--precision",
        "f64",
        "--chaos",
        "megno,sali",
        "--stop-when",
        condition,
    ]
    .map(String::from)
    .to_vec()
}

fn npy(path: &Path) -> phaseflow::npy::Array2 {
    phaseflow::npy::decode_f64(&std::fs::read(path).unwrap()).unwrap()
}

fn run(args: &[String], backend: &str, out: &Path) {
    phaseflow()
        .args(["run", "--quiet"])
        .args(args)
        .args(["--backend", backend, "--save-states", "--out"])
        .arg(out)
        .assert()
        .success();
}

#[test]
fn a_threshold_stops_the_chaotic_orbit_alone_at_the_same_step_on_both_engines() {
    let tmp = TempDir::new().unwrap();
    let input = pair(tmp.path());
    // (condition, column of chaos/*.npy it reads: ⟨Y⟩, SALI), whether it holds of a value.
    type Holds = fn(f64) -> bool;
    let cases: [(&str, usize, Holds); 2] = [
        ("megno > 8", 0, |x| x > 8.0 && x < 8.1),
        ("sali < 1e-8", 1, |x| x < 1e-8 && x > 1e-10),
    ];
    for (condition, column, holds) in cases {
        let a = args(&input, condition);
        let (cpu, gpu) = (tmp.path().join("cpu"), tmp.path().join("gpu"));
        run(&a, "cpu", &cpu);
        let stops = npy(&cpu.join("stops.npy"));
        assert_eq!(stops.rows, 1, "{condition}: only the chaotic orbit stops");
        let (point, step) = (stops.data[0], stops.data[1]);
        assert_eq!(point, 1.0, "{condition}");
        assert!(
            step > 0.0 && step < 17500.0,
            "{condition}: stopped at step {step}"
        );
        // Its indicators as they were when it stopped, at every later snapshot.
        let last = npy(&cpu.join("chaos/step_20000.npy"));
        assert_eq!(last.cols, 3, "megno, sali, sali_min");
        let later = ((step / 2500.0).ceil() * 2500.0) as u64;
        let then = npy(&cpu.join(format!("chaos/step_{later}.npy")));
        assert_eq!(
            &then.data[3..],
            &last.data[3..],
            "{condition}: indicators moved after the stop"
        );
        assert!(
            holds(last.data[3 + column]),
            "{condition}: {:?}",
            &last.data[3..]
        );
        // The regular orbit ran to the end: ⟨Y⟩ near 2, SALI far from 0.
        assert!(
            (last.data[0] - 2.0).abs() < 0.1 && last.data[1] > 1e-3,
            "{:?}",
            &last.data[..3]
        );
        let stats = crate::common::stats(&cpu);
        assert_eq!(stats.last().unwrap()["stopped"], 1.0);
        // The GPU engine (lavapipe) in f64: the same stop record and indicators, bit for bit.
        run(&a, "gpu", &gpu);
        for file in ["stops.npy", "chaos/step_20000.npy"] {
            assert_eq!(
                std::fs::read(cpu.join(file)).unwrap(),
                std::fs::read(gpu.join(file)).unwrap(),
                "{condition}: {file} differs between the engines"
            );
        }
        phaseflow()
            .arg("validate")
            .args(&a)
            .assert()
            .success()
            .stdout(
                predicate::str::contains("stopped=1 stop_mismatch=0")
                    .and(predicate::str::contains("PASS")),
            );
        std::fs::remove_dir_all(&cpu).unwrap();
        std::fs::remove_dir_all(&gpu).unwrap();
    }
}

#[test]
fn an_interrupted_run_with_a_threshold_resumes_to_the_same_files() {
    let tmp = TempDir::new().unwrap();
    let input = pair(tmp.path());
    let mut a = vec!["run".to_string()];
    a.extend(args(&input, "megno > 8"));
    a.extend(["--backend", "cpu", "--checkpoint-every", "3000"].map(String::from));
    super::resume::interrupted_equals_uninterrupted(&a, 2);
}

#[test]
fn shards_with_a_threshold_merge_to_the_whole_run() {
    // A 96 × 96 grid on H = 1/8 in (q2, p2), long enough for some chaotic points to stop.
    let args: Vec<&str> = vec![
        "--system",
        "henon-heiles",
        "--method",
        "verlet",
        "--dt",
        "0.1",
        "--steps",
        "1500",
        "--ensemble",
        "grid",
        "--points",
        "9216",
        "--grid-axes",
        "q2,p2",
        "--lo",
        "0,-0.45,0,-0.5",
        "--hi",
        "0,0.7,0,0.5",
        "--energy",
        "0.125",
        "--precision",
        "f64",
        "--chaos",
        "megno",
        "--stop-when",
        "megno > 6",
        "--backend",
        "cpu",
    ];
    let tmp = super::shards::shards_merge_to_the_whole(&args, 2);
    let (whole, merged) = (tmp.path().join("whole"), tmp.path().join("merged"));
    let (w, m) = (
        npy(&whole.join("stops.npy")),
        npy(&merged.join("stops.npy")),
    );
    assert!(w.rows > 100, "{}", w.rows);
    assert_eq!(w.data, m.data);
    assert_eq!(
        std::fs::read(whole.join("chaos/step_1500.npy")).unwrap(),
        std::fs::read(merged.join("chaos/step_1500.npy")).unwrap()
    );
}

#[test]
fn a_threshold_on_an_indicator_the_run_does_not_compute_exits_2() {
    let tmp = TempDir::new().unwrap();
    let input = pair(tmp.path());
    let mut a = args(&input, "fli > 10");
    let out = tmp.path().join("run");
    phaseflow()
        .arg("run")
        .args(&a)
        .arg("--out")
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("add --chaos fli"));
    assert!(!out.exists());
    let at = a.iter().position(|x| x == "--chaos").unwrap();
    a.drain(at..at + 2);
    phaseflow()
        .arg("run")
        .args(&a)
        .arg("--out")
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--stop-when"));
}
