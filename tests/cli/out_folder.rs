//! The --out folder's safety: a used folder needs --force, foreign files are never removed,
//! and the manifest marks a complete run (for `run` and `study`). The lock: out_lock.rs.

use std::path::Path;

use assert_cmd::Command;
use predicates::prelude::*;
use tempfile::TempDir;

use crate::common::{argv, oscillator_study, pendulum_disk, phaseflow, read};
use crate::out_lock::hold_as;

/// `run` into `out` with a small disk (`points` points, 10 steps of the pendulum, CPU engine).
pub fn small_run(out: &Path, points: usize, extra: &[&str]) -> Command {
    let mut c = phaseflow();
    c.arg("run")
        .args(pendulum_disk(points, 0.05, 10))
        .args(argv("--center 0,0.8 --radius 0.3 --backend cpu --quiet"))
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
    small_run(&out, 1, &["--save-states"]).assert().success();
    assert!(out.join("trajectory.csv").exists() && out.join("states/step_10.npy").exists());
    let stats = read(&out.join("stats.csv"));
    let config = read(&out.join("config.toml"));
    // A second run is refused before anything is written.
    small_run(&out, 50, &[])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--force").and(predicate::str::contains("already holds")));
    assert_eq!(read(&out.join("stats.csv")), stats);
    assert_eq!(read(&out.join("config.toml")), config);
    assert!(out.join("trajectory.csv").exists() && out.join("states/step_10.npy").exists());
    assert!(!out.join(".phaseflow.lock").exists());
    // With --force the previous run's files go first.
    small_run(&out, 50, &["--force"]).assert().success();
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
    small_run(&out, 20, &[]).assert().success();
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    std::fs::create_dir_all(out.join("states")).unwrap();
    std::fs::write(out.join("states/plot.py"), "mine").unwrap();
    for extra in [&[][..], &["--force"][..]] {
        small_run(&out, 20, extra).assert().code(2).stderr(
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
    small_run(&other, 20, &["--force"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("data.csv"));
    assert_eq!(std::fs::read_dir(&other).unwrap().count(), 1);
}

/// A chaos run over a grid writes map.png/svg: its own files, which `--force` replaces (before:
/// "the folder holds files phaseflow did not write (map.png, map.svg)"), with `run` and with
/// `study` (before: every file named foreign), also after `plot` drew into the folder.
#[test]
fn force_replaces_a_chaos_run_with_its_map() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("o");
    let chaos_run = |extra: &[&str]| {
        phaseflow()
            .args(argv(
                "run --system pendulum --method verlet --ensemble grid --lo -0.5,-0.5 \
                 --hi 0.5,0.5 --points 16 --dt 0.05 --steps 10 --chaos megno --backend cpu \
                 --quiet --out",
            ))
            .arg(&out)
            .args(extra)
            .assert()
            .success();
    };
    chaos_run(&[]);
    assert!(out.join("map.png").is_file() && out.join("map.svg").is_file());
    chaos_run(&["--force"]);
    phaseflow()
        .arg("plot")
        .arg(&out)
        .arg("--quiet")
        .assert()
        .success();
    phaseflow()
        .args(oscillator_study("verlet"))
        .arg("--force")
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    assert!(!out.join("map.png").exists() && out.join("verlet/manifest.toml").is_file());
}

/// A run folder's files are those its manifest lists, whatever their names (a file of a name
/// this version does not write, as another version's run may hold): `--force` replaces them
/// (before: refused as files phaseflow did not write); a file the manifest does not list is
/// still refused.
#[test]
fn force_replaces_the_files_a_manifest_lists() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("o");
    small_run(&out, 20, &[]).assert().success();
    let manifest = out.join("manifest.toml");
    let text = read(&manifest).replace("[files]\n", "[files]\n\"later.csv\" = 4\n");
    std::fs::write(&manifest, text).unwrap();
    std::fs::write(out.join("later.csv"), "1,2\n").unwrap();
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    small_run(&out, 20, &["--force"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("notes.txt").and(predicate::str::contains("later").not()));
    std::fs::remove_file(out.join("notes.txt")).unwrap();
    small_run(&out, 20, &["--force"]).assert().success();
    assert!(!out.join("later.csv").exists());
}

#[test]
fn the_manifest_marks_a_complete_run_and_is_missing_after_an_interrupted_one() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("o");
    small_run(&out, 20, &["--save-states"]).assert().success();
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
    // A run killed midway leaves no manifest and none of the old run's files (its stats.csv,
    // if any, holds the new run's rows), and a --force re-run takes over its stale lock and
    // clears its files.
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("phaseflow"))
        .arg("run")
        .args(pendulum_disk(20000, 0.001, 100_000_000))
        .args(argv("--backend cpu --quiet --force --out"))
        .arg(&out)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let t0 = std::time::Instant::now();
    // Wait until the new run has written config.toml and removed the old manifest.
    while !out.join("config.toml").exists() || out.join("manifest.toml").exists() {
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
    let stats = std::fs::read_to_string(out.join("stats.csv")).unwrap_or_default();
    assert!(
        stats
            .lines()
            .skip(1)
            .all(|l| l.split(',').nth(2) == Some("20000")),
        "the old run's stats.csv (20 points) beside the new config.toml: {stats}"
    );
    assert!(!out.join("states").exists(), "the old run's states");
    assert!(out.join(".phaseflow.lock").exists());
    small_run(&out, 20, &["--force"]).assert().success();
    assert!(read(&out.join("manifest.toml")).contains("complete = true"));
    assert!(!out.join(".phaseflow.lock").exists());
}

#[test]
fn a_used_study_folder_is_refused_without_force_and_replaced_with_it() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("s");
    let study = |methods: &str, extra: &[&str]| {
        let mut c = phaseflow();
        c.args(oscillator_study(methods))
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
    let holder = hold_as(&out.join("verlet"), 4321, "node-3");
    study("verlet", &["--force"]).assert().code(2).stderr(
        predicate::str::contains("another phaseflow run")
            .and(predicate::str::contains("pid 4321 on host node-3")),
    );
    drop(holder);
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

/// Every figure a study writes is its own: a study with a path figure (Kepler's orbit) and
/// one with the figures against a varied parameter and a MEGNO map per run are replaced with
/// --force.
#[test]
fn force_replaces_a_study_with_every_kind_of_figure() {
    let tmp = TempDir::new().unwrap();
    for (preset, figure) in [
        ("kepler --t-end 2", "path.png"),
        (
            "elastic-pendulum-sweep --t-end 1 --points 4",
            "chaotic_fraction.png",
        ),
    ] {
        let out = tmp.path().join(preset.split(' ').next().unwrap());
        let study = || {
            let mut c = phaseflow();
            c.args(argv(&format!(
                "study --preset {preset} --backend cpu --quiet --out"
            )))
            .arg(&out);
            c
        };
        study().assert().success();
        assert!(out.join(figure).is_file(), "{preset}: no {figure}");
        study().arg("--force").assert().success();
        assert!(out.join(figure).is_file(), "{preset}: no {figure} again");
    }
}

/// stats.csv grows row by row as snapshots are taken (issue 15): a run killed with -9 keeps its
/// statistics up to the last snapshot, every row whole, and has no manifest (incomplete).
#[test]
fn a_killed_run_keeps_its_statistics_rows() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("killed");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_phaseflow"))
        .arg("run")
        .args(pendulum_disk(1_000_000, 0.01, 1_000_000))
        .args(argv(
            "--snapshot-every 20 --precision f64 --backend cpu --quiet --out",
        ))
        .arg(&out)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let stats = out.join("stats.csv");
    let start = std::time::Instant::now();
    let rows = loop {
        let text = std::fs::read_to_string(&stats).unwrap_or_default();
        if text.lines().count() >= 4 || start.elapsed().as_secs() > 120 {
            break text;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    let text = std::fs::read_to_string(&stats).unwrap();
    assert!(rows.lines().count() >= 4, "no rows within 120 s: {rows}");
    assert!(text.ends_with('\n'), "a row was cut: {text}");
    let width = text.lines().next().unwrap().split(',').count();
    for line in text.lines() {
        assert_eq!(line.split(',').count(), width, "{line}");
    }
    assert!(
        text.lines().count() < 1 + 1_000_000 / 20,
        "the run finished"
    );
    assert!(
        !out.join("manifest.toml").exists(),
        "an interrupted run has no manifest"
    );
}
