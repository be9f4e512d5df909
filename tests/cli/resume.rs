//! Issue 15: checkpoints and `phaseflow resume`. An interrupted run, resumed, writes the same
//! bytes as an uninterrupted one (stats.csv, trajectory.csv, states, manifest), on the CPU and
//! the GPU engine, for filled sets, refined loops with the tangent map and single states;
//! SIGINT gives exit 130 and a resumable folder; kill -9 after a checkpoint loses nothing but
//! the work since it.
//!
//! Runs are stopped deterministically by the test hook `PHASEFLOW_STOP_AFTER_CHECKPOINTS=N`
//! (the run behaves as if SIGINT came right after its N-th checkpoint); the signal tests send
//! real signals once a checkpoint exists.

use std::path::Path;
use std::process::Command as StdCommand;
use std::time::{Duration, Instant};

use predicates::prelude::*;
use tempfile::TempDir;

use crate::common::{argv, files, manifest_but_config, pendulum_disk, phaseflow, read, Reaped};

fn args(extra: &[impl AsRef<str>], out: &Path) -> Vec<String> {
    let mut a: Vec<String> = extra.iter().map(|s| s.as_ref().to_string()).collect();
    a.extend(["--quiet".into(), "--out".into(), out.display().to_string()]);
    a
}

/// Every file of `a` (recursively) equals the same file of `b`, and `b` has no other.
pub(super) fn same_files(a: &Path, b: &Path) {
    let mut names = Vec::new();
    list(a, Path::new(""), &mut names);
    let mut other = Vec::new();
    list(b, Path::new(""), &mut other);
    names.sort();
    other.sort();
    assert_eq!(names, other, "file lists differ");
    for n in names {
        if n.ends_with("config.toml") || n.ends_with("report.md") || n.ends_with("study.toml") {
            continue; // they record their own --out
        }
        let (x, y) = (
            std::fs::read(a.join(&n)).unwrap(),
            std::fs::read(b.join(&n)).unwrap(),
        );
        assert!(x == y, "{} differs", n.display());
    }
}

fn list(dir: &Path, rel: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let name = e.file_name();
        if e.file_type().unwrap().is_dir() {
            list(&e.path(), &rel.join(&name), out);
        } else if name != "manifest.toml" {
            out.push(rel.join(&name));
        }
    }
}

/// Run `run_args` once uninterrupted into `full`, once stopped after its `stop`-th checkpoint
/// into `part` (exit 130, a checkpoint left), then resume `part`: the same files.
pub(super) fn interrupted_equals_uninterrupted(run_args: &[impl AsRef<str>], stop: u32) {
    let tmp = TempDir::new().unwrap();
    let (full, part) = (tmp.path().join("full"), tmp.path().join("part"));
    phaseflow().args(args(run_args, &full)).assert().success();
    phaseflow()
        .env("PHASEFLOW_STOP_AFTER_CHECKPOINTS", stop.to_string())
        .args(args(run_args, &part))
        .assert()
        .code(130)
        .stderr(predicate::str::contains("phaseflow resume"));
    assert!(part.join("checkpoint/run.ckpt").is_file());
    assert!(
        !part.join("manifest.toml").exists(),
        "an interrupted run is not complete"
    );
    phaseflow()
        .args(["resume", "--quiet"])
        .arg(&part)
        .assert()
        .success();
    assert!(part.join("manifest.toml").is_file());
    assert!(
        !part.join("checkpoint").exists(),
        "a finished run drops its checkpoint"
    );
    same_files(&full, &part);
    assert_eq!(manifest_but_config(&full), manifest_but_config(&part));
}

/// A compensated pendulum disk with a checkpoint every 700 steps (of 3000) on `backend`.
fn compensated_disk(backend: &str) -> Vec<String> {
    let tail =
        format!("--snapshot-every 500 --checkpoint-every 700 --compensated --backend {backend}");
    [argv("run"), pendulum_disk(5000, 0.01, 3000), argv(&tail)].concat()
}

#[test]
fn resumed_runs_write_the_files_of_an_uninterrupted_run() {
    // a filled set on the CPU engine, compensated f32
    interrupted_equals_uninterrupted(&compensated_disk("cpu"), 2);
    // a refined loop with the tangent map and saved states (checkpoint at a snapshot step)
    interrupted_equals_uninterrupted(
        &[
            "run",
            "--system",
            "pendulum",
            "--method",
            "symplectic-euler-a",
            "--ensemble",
            "circle",
            "--center",
            "0,0.8",
            "--radius",
            "0.5",
            "--points",
            "500",
            "--dt",
            "0.05",
            "--steps",
            "2000",
            "--snapshot-every",
            "100",
            "--checkpoint-every",
            "300",
            "--tangent",
            "--save-states",
            "--backend",
            "cpu",
        ],
        3,
    );
    // a single state (trajectory.csv), an implicit method, f64
    interrupted_equals_uninterrupted(
        &[
            "run",
            "--system",
            "double-pendulum",
            "--method",
            "verlet",
            "--ensemble",
            "point",
            "--dt",
            "0.01",
            "--steps",
            "20000",
            "--snapshot-every",
            "1000",
            "--checkpoint-every",
            "3000",
            "--precision",
            "f64",
        ],
        3,
    );
}

/// The GPU engine (lavapipe on CI), with the energy statistics reduced on the device: the
/// checkpoint carries the device's initial energies.
#[test]
fn resumed_gpu_runs_write_the_files_of_an_uninterrupted_run() {
    interrupted_equals_uninterrupted(&compensated_disk("gpu"), 2);
}

/// A study interrupted in its second method: resume finishes that method from its
/// checkpoint, does not redo the first, and writes the summary, figures and report an
/// uninterrupted study writes.
#[test]
fn resumed_studies_write_the_files_of_an_uninterrupted_study() {
    let tmp = TempDir::new().unwrap();
    let (full, part) = (tmp.path().join("full"), tmp.path().join("part"));
    let study = |out: &Path| {
        let mut a: Vec<String> = [
            "study",
            "--system",
            "pendulum",
            "--methods",
            "euler,verlet",
            "--dt",
            "0.01",
            "--steps",
            "4000",
            "--ensemble",
            "circle",
            "--center",
            "0,0.8",
            "--radius",
            "0.3",
            "--points",
            "400",
            "--checkpoint-every",
            "1000",
            "--backend",
            "cpu",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        a.extend(["--quiet".into(), "--out".into(), out.display().to_string()]);
        a
    };
    phaseflow().args(study(&full)).assert().success();
    // the first method writes 3 checkpoints (1000, 2000, 3000): stop at the second method's 1st
    phaseflow()
        .env("PHASEFLOW_STOP_AFTER_CHECKPOINTS", "4")
        .args(study(&part))
        .assert()
        .code(130)
        .stderr(predicate::str::contains(format!(
            "phaseflow resume {}",
            part.display()
        )));
    assert!(part.join("euler/manifest.toml").is_file());
    assert!(part.join("verlet/checkpoint/run.ckpt").is_file());
    // a method folder is resumed through its study
    phaseflow()
        .args(["resume"])
        .arg(part.join("verlet"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("resume the study"));
    let euler_before = std::fs::metadata(part.join("euler/stats.csv"))
        .unwrap()
        .modified()
        .unwrap();
    phaseflow()
        .args(["resume", "--quiet"])
        .arg(&part)
        .assert()
        .success();
    let euler_after = std::fs::metadata(part.join("euler/stats.csv"))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(
        euler_before, euler_after,
        "the finished method was run again"
    );
    // every file the same (config.toml and report.md name their own folder)
    same_files(&full, &part);
    let report = |d: &Path| read(&d.join("report.md")).replace(&d.display().to_string(), "DIR");
    assert_eq!(report(&full), report(&part));
    assert!(part.join("manifest.toml").is_file());
}

/// Start `run_args` in the background and wait until its first checkpoint exists.
fn start_until_checkpoint(run_args: &[impl AsRef<str>], out: &Path) -> std::process::Child {
    let child = StdCommand::new(env!("CARGO_BIN_EXE_phaseflow"))
        .args(args(run_args, out))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while !out.join("checkpoint/run.ckpt").is_file() {
        assert!(
            t0.elapsed() < Duration::from_secs(120),
            "no checkpoint within 120 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child
}

/// A run long enough to be interrupted after its first checkpoint (of one every 500 steps).
fn long_run() -> Vec<String> {
    let tail = "--snapshot-every 1000 --checkpoint-every 500 --backend cpu";
    [argv("run"), pendulum_disk(200000, 0.01, 20000), argv(tail)].concat()
}

/// SIGINT: the run finishes its piece of work, writes a checkpoint, says how to resume and
/// exits 130; `resume` completes it to the uninterrupted run's stats.csv. kill -9 after a
/// checkpoint: `resume` continues from that checkpoint to the same stats.csv.
#[test]
fn signals_leave_a_resumable_folder() {
    let tmp = TempDir::new().unwrap();
    let full = tmp.path().join("full");
    phaseflow()
        .args(args(&long_run(), &full))
        .assert()
        .success();
    for (signal, code) in [("INT", Some(130)), ("KILL", None)] {
        let out = tmp.path().join(signal);
        let mut child = start_until_checkpoint(&long_run(), &out);
        if signal == "INT" {
            // SAFETY: kill(2) on the child's pid, which has not been waited for yet.
            let r = unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
            assert_eq!(r, 0);
        } else {
            child.kill().unwrap(); // SIGKILL
        }
        let output = child.wait_with_output().unwrap();
        assert_eq!(output.status.code(), code, "{signal}");
        if code.is_some() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(stderr.contains("phaseflow resume"), "{stderr}");
        }
        assert!(!out.join("manifest.toml").exists());
        phaseflow()
            .args(["resume", "--quiet"])
            .arg(&out)
            .assert()
            .success();
        assert_eq!(
            std::fs::read(full.join("stats.csv")).unwrap(),
            std::fs::read(out.join("stats.csv")).unwrap(),
            "{signal}: stats.csv differs from the uninterrupted run's"
        );
    }
}

/// A run that checkpoints every 1000 of 20 000 steps and takes a row every 100.
fn paused_run() -> Vec<String> {
    let tail = "--snapshot-every 100 --checkpoint-every 1000 --backend cpu";
    [argv("run"), pendulum_disk(20000, 0.01, 20000), argv(tail)].concat()
}

/// `paused_run` into `out`, started and let run until stats.csv holds rows after its first
/// checkpoint (the header, the rows of steps 0 to 900 that the checkpoint records, then those
/// of steps 1000 and 1100), so that cutting it back to the checkpoint would change it.
fn start_past_checkpoint(out: &Path) -> Reaped {
    let child = Reaped::new(start_until_checkpoint(&paused_run(), out));
    let t0 = Instant::now();
    while read(&out.join("stats.csv")).lines().count() < 13 {
        assert!(
            t0.elapsed() < Duration::from_secs(120),
            "no rows after the checkpoint"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    child
}

/// A resume against a folder that a paused (SIGSTOP) run is writing is refused before it
/// reads or changes anything (before: it cut stats.csv back to the checkpoint, then found the
/// lock, and the run, continued, finished "complete" with NUL bytes in stats.csv). Continued,
/// the run ends as if alone; killed instead, it leaves the folder to a resume that finishes it
/// as the uninterrupted run.
#[test]
fn resume_leaves_a_folder_that_a_paused_run_writes_untouched() {
    let tmp = TempDir::new().unwrap();
    let full = tmp.path().join("full");
    phaseflow()
        .args(args(&paused_run(), &full))
        .assert()
        .success();
    for (name, then) in [("continued", libc::SIGCONT), ("killed", libc::SIGKILL)] {
        let out = tmp.path().join(name);
        let child = start_past_checkpoint(&out);
        child.signal(libc::SIGSTOP);
        let before = files(&out);
        phaseflow()
            .arg("resume")
            .arg(&out)
            .timeout(Duration::from_secs(60))
            .assert()
            .code(2)
            .stderr(
                predicate::str::contains("another phaseflow run")
                    .and(predicate::str::contains(format!("pid {}", child.id()))),
            );
        assert!(
            files(&out) == before,
            "{name}: the refused resume changed the folder"
        );
        child.signal(then);
        let status = child.wait().status;
        if then == libc::SIGKILL {
            phaseflow()
                .args(["resume", "--quiet"])
                .arg(&out)
                .assert()
                .success();
        } else {
            assert!(status.success(), "{name}: {status}");
        }
        assert!(read(&out.join("manifest.toml")).contains("complete = true"));
        assert!(
            read(&full.join("stats.csv")) == read(&out.join("stats.csv")),
            "{name}: stats.csv differs from the uninterrupted run's"
        );
    }
}

/// A run whose stats.csv another process cuts while the run is paused is not marked complete
/// when it goes on (before: exit 0, `complete = true` over a file with a hole of NUL bytes):
/// it fails naming the file, and leaves no manifest.
#[test]
fn a_run_whose_stats_csv_changed_under_it_is_not_marked_complete() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("o");
    let child = start_past_checkpoint(&out);
    child.signal(libc::SIGSTOP);
    let stats = out.join("stats.csv");
    let header = read(&stats).lines().next().unwrap().len() as u64 + 1;
    std::fs::OpenOptions::new()
        .write(true)
        .open(&stats)
        .unwrap()
        .set_len(header)
        .unwrap();
    child.signal(libc::SIGCONT);
    let output = child.wait();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("stats.csv") && stderr.contains("another process changed"),
        "{stderr}"
    );
    assert!(!out.join("manifest.toml").exists(), "marked complete");
}

/// What `resume` refuses or has nothing to do for.
#[test]
fn resume_says_what_it_cannot_do() {
    let tmp = TempDir::new().unwrap();
    // not a run folder
    phaseflow()
        .args(["resume"])
        .arg(tmp.path())
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("nothing to resume")
                .or(predicate::str::contains("no config.toml")),
        );
    // a complete run
    let done = tmp.path().join("done");
    phaseflow()
        .args(args(
            &[
                "run",
                "--system",
                "oscillator",
                "--method",
                "verlet",
                "--ensemble",
                "disk",
                "--points",
                "10",
                "--dt",
                "0.1",
                "--steps",
                "10",
            ],
            &done,
        ))
        .assert()
        .success();
    phaseflow()
        .args(["resume"])
        .arg(&done)
        .assert()
        .success()
        .stdout(predicate::str::contains("nothing to resume"));
    // a configuration edited after the checkpoint
    let part = tmp.path().join("part");
    let run = [
        argv("run"),
        pendulum_disk(100, 0.01, 100),
        argv("--checkpoint-every 20"),
    ]
    .concat();
    phaseflow()
        .env("PHASEFLOW_STOP_AFTER_CHECKPOINTS", "1")
        .args(args(&run, &part))
        .assert()
        .code(130);
    // running into it again points at resume
    phaseflow()
        .args(args(&run, &part))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("phaseflow resume"));
    let config = part.join("config.toml");
    let text = read(&config).replace("dt = 0.01", "dt = 0.02");
    std::fs::write(&config, text).unwrap();
    phaseflow()
        .args(["resume"])
        .arg(&part)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("config.toml changed"));
    // --checkpoint-every 0
    phaseflow()
        .args(args(
            &[&run[..13], &argv("--checkpoint-every 0")[..]].concat(),
            &tmp.path().join("z"),
        ))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--checkpoint-every must be at least 1",
        ));
}
