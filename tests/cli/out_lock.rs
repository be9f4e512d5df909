//! The --out folder's lock is a file lock held for the run's lifetime: a second run is refused
//! while any process holds it, naming the holder's pid and host as its lock file records them
//! (also a run on another node of a cluster, which this machine's process table does not
//! show), and a holder that is killed leaves the folder free at once.

use std::fs::File;
use std::io::Write;
use std::path::Path;

use predicates::prelude::*;
use tempfile::TempDir;

use crate::common::{argv, pendulum_disk, read, Reaped};
use crate::out_folder::small_run;

const LOCK: &str = ".phaseflow.lock";

/// A pid no process here can have (Linux pids stay below 2²², the largest pid_max): the run of
/// another node.
const PID_ELSEWHERE: u32 = 1 << 22;

/// A phaseflow run into `dir` that goes on until killed, once its lock records it.
fn live_phaseflow(dir: &Path) -> Reaped {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("phaseflow"))
        .arg("run")
        .args(pendulum_disk(10, 0.001, 100_000_000))
        .args(argv(
            "--snapshot-every 100000000 --backend cpu --quiet --out",
        ))
        .arg(dir)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let recorded = format!("{}\n", child.id());
    let t0 = std::time::Instant::now();
    while !std::fs::read_to_string(dir.join(LOCK)).is_ok_and(|t| t.starts_with(&recorded)) {
        if t0.elapsed().as_secs() > 60 || child.try_wait().unwrap().is_some() {
            let _ = child.kill();
            panic!("the long run never took its lock");
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    Reaped::new(child)
}

/// The lock of `dir` held by this test process as a run with `pid` on `host` holds it (the
/// file locked, the record written): the double of a run on another machine sharing the
/// folder, since a lock file says no more than that about its holder. Released when dropped.
pub fn hold_as(dir: &Path, pid: u32, host: &str) -> File {
    std::fs::create_dir_all(dir).unwrap();
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(dir.join(LOCK))
        .unwrap();
    // Retried briefly: a test running beside this one that forks a process while this file is
    // open (or was, for the previous holder) shares its lock until the child's exec closes it.
    let t0 = std::time::Instant::now();
    while let Err(e) = f.try_lock() {
        assert!(t0.elapsed().as_secs() < 10, "cannot take the lock: {e}");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    write!(f, "{pid}\n{host}\n").unwrap();
    f
}

fn this_host() -> String {
    read(Path::new("/proc/sys/kernel/hostname"))
        .trim()
        .to_string()
}

#[test]
fn a_killed_run_leaves_its_folder_free_at_once() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("o");
    let holder = live_phaseflow(&out);
    let pid = holder.id();
    for extra in [&[][..], &["--force"][..]] {
        small_run(&out, 20, extra).assert().code(2).stderr(
            predicate::str::contains("another phaseflow run").and(predicate::str::contains(
                format!("pid {pid} on host {}", this_host()),
            )),
        );
    }
    // SIGKILL: the run cannot remove its lock file, but the lock goes with the process.
    drop(holder);
    assert!(out.join(LOCK).exists());
    let t0 = std::time::Instant::now();
    small_run(&out, 20, &["--force"]).assert().success();
    println!(
        "the next run took the killed run's folder in {:?}",
        t0.elapsed()
    );
    assert!(read(&out.join("manifest.toml")).contains("complete = true"));
    assert!(!out.join(LOCK).exists(), "the lock is removed at the end");
}

#[test]
fn a_run_on_another_machine_keeps_the_folder_until_it_lets_go() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("o");
    // Another node, and a node that has this machine's name (containers often share one):
    // either way the pid is not running here, which is no reason to take the lock.
    for host in ["node-17".to_string(), this_host()] {
        let held = hold_as(&out, PID_ELSEWHERE, &host);
        for extra in [&[][..], &["--force"][..]] {
            small_run(&out, 20, extra).assert().code(2).stderr(
                predicate::str::contains("another phaseflow run").and(predicate::str::contains(
                    format!("pid {PID_ELSEWHERE} on host {host}"),
                )),
            );
        }
        assert!(!out.join("stats.csv").exists());
        drop(held);
    }
    // Released (the file stays, as a killed holder leaves it): the folder is free.
    assert!(out.join(LOCK).exists());
    small_run(&out, 20, &[]).assert().success();
    assert!(!out.join(LOCK).exists());
    // Held by a run that has not yet written who it is: refused all the same.
    let f = hold_as(&out, 0, "");
    f.set_len(0).unwrap();
    small_run(&out, 20, &["--force"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("another phaseflow run is writing"));
}

#[cfg(unix)]
#[test]
fn a_lock_file_that_is_a_link_is_refused_and_what_it_points_to_left_alone() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("o");
    std::fs::create_dir_all(&out).unwrap();
    let mine = tmp.path().join("mine.txt");
    std::fs::write(&mine, "mine").unwrap();
    let nowhere = tmp.path().join("nowhere");
    for target in [&mine, &nowhere] {
        let _ = std::fs::remove_file(out.join(LOCK));
        std::os::unix::fs::symlink(target, out.join(LOCK)).unwrap();
        small_run(&out, 20, &[]).assert().code(2).stderr(
            predicate::str::contains("not a regular file")
                .and(predicate::str::contains(LOCK))
                .and(predicate::str::contains("remove it")),
        );
    }
    assert_eq!(read(&mine), "mine");
    assert!(!nowhere.exists() && !out.join("stats.csv").exists());
}

/// A resume refused because a live run holds the folder says to wait and then resume, not to
/// choose another --out (resume has none: it continues the run in its own folder); a new run
/// refused the same way is still told to choose another --out.
#[test]
fn a_refused_resume_says_to_resume_later_not_to_choose_another_out() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("o");
    small_run(&out, 20, &[]).assert().success();
    // Interrupted as far as resume can tell: no manifest.
    std::fs::remove_file(out.join("manifest.toml")).unwrap();
    let held = hold_as(&out, PID_ELSEWHERE, "node-17");
    crate::common::phaseflow()
        .arg("resume")
        .arg(&out)
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains(format!("pid {PID_ELSEWHERE} on host node-17"))
                .and(predicate::str::contains(
                    "wait for it to finish, then resume",
                ))
                .and(predicate::str::contains("--out").not()),
        );
    small_run(&out, 20, &["--force"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "wait for it to finish or choose another --out",
        ));
    drop(held);
    crate::common::phaseflow()
        .args(["resume", "--quiet"])
        .arg(&out)
        .assert()
        .success();
    assert!(read(&out.join("manifest.toml")).contains("complete = true"));
}
