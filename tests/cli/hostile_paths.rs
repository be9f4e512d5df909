//! Output paths a hostile but realistic user gives: links, named pipes and devices as file
//! targets, folders that cannot be folders, another run's folder, user files among a run's,
//! and a full disk (lock files: out_lock.rs). Each is refused (exit 2, a message naming the fix) or fails
//! cleanly, and what the user's path pointed to is left as it was.

use std::os::unix::fs::{symlink, FileTypeExt};
use std::path::Path;

use assert_cmd::cargo::CommandCargoExt;
use predicates::prelude::*;
use tempfile::TempDir;

use crate::base_run;
use crate::common::{argv, limit_file_size, oscillator_study, pendulum_disk, phaseflow, read};

/// `run` of the short pendulum circle into `out` on the CPU engine, with `extra` flags.
fn run_into(out: &Path, extra: &[&str]) -> assert_cmd::Command {
    let mut c = phaseflow();
    c.args(base_run(out)).args(["--backend", "cpu"]).args(extra);
    c
}

/// A path's type, links not followed.
fn kind(p: &Path) -> std::fs::FileType {
    std::fs::symlink_metadata(p).unwrap().file_type()
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// A named pipe at `path`.
fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

/// A device to write to: as root a copy of /dev/full's node in `dir` (a bug replacing it then
/// harms nothing else); otherwise /dev/full itself, which a user cannot replace.
fn full_device(dir: &Path) -> std::path::PathBuf {
    if !is_root() {
        return "/dev/full".into();
    }
    let path = dir.join("full");
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path; (1, 7) is the full device.
    let made = unsafe { libc::mknod(c.as_ptr(), libc::S_IFCHR | 0o666, libc::makedev(1, 7)) };
    assert_eq!(made, 0, "mknod");
    path
}

#[test]
fn a_file_output_never_replaces_a_link_a_named_pipe_or_a_device() {
    let tmp = TempDir::new().unwrap();
    let target = tmp.path().join("mine.csv");
    std::fs::write(&target, "my data\n").unwrap();
    let link = tmp.path().join("link.csv");
    symlink(&target, &link).unwrap();
    let fifo = tmp.path().join("pipe.csv");
    mkfifo(&fifo);
    let device = full_device(tmp.path());
    for (path, what) in [
        (&link, "symbolic link"),
        (&fifo, "named pipe"),
        (&device, "device"),
    ] {
        phaseflow()
            .args(["bench", "--points", "1000", "--steps", "2", "--no-gpu"])
            .arg("--csv")
            .arg(path)
            .timeout(std::time::Duration::from_secs(60))
            .assert()
            .code(2)
            .stderr(predicate::str::contains(what).and(predicate::str::contains("--csv")));
    }
    assert!(kind(&link).is_symlink(), "the link was replaced");
    assert_eq!(std::fs::read_link(&link).unwrap(), target);
    assert_eq!(read(&target), "my data\n");
    assert!(kind(&fifo).is_fifo(), "the named pipe was replaced");
    assert!(kind(&device).is_char_device(), "the device was replaced");

    // A link among the files a command writes into a folder is not replaced either.
    let run = tmp.path().join("run");
    run_into(&run, &[]).assert().success();
    let figures = tmp.path().join("figures");
    std::fs::create_dir(&figures).unwrap();
    symlink(&target, figures.join("energy_error.png")).unwrap();
    phaseflow()
        .arg("plot")
        .arg(&run)
        .arg("--out")
        .arg(&figures)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "energy_error.png: is a symbolic link",
        ));
    assert!(kind(&figures.join("energy_error.png")).is_symlink());
    assert_eq!(read(&target), "my data\n");
}

#[test]
fn force_removes_only_the_step_files_phaseflow_writes() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("o");
    run_into(&out, &["--save-states"]).assert().success();
    for name in [
        "states/step_abc.npy",
        "states/step_-1.npy",
        "states/step_07.npy",
        "states/step_1.npy.bak",
        "states/.step_1.npy",
        "parts/step_x.bin",
        "checkpoint/run.ckpt.old",
    ] {
        let mine = out.join(name);
        std::fs::create_dir_all(mine.parent().unwrap()).unwrap();
        std::fs::write(&mine, "mine").unwrap();
        run_into(&out, &["--force"])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(name).and(predicate::str::contains("did not write")));
        assert_eq!(read(&mine), "mine", "{name} was removed");
        assert!(
            out.join("states/step_400.npy").exists(),
            "{name}: the run was cleared"
        );
        std::fs::remove_file(&mine).unwrap();
    }
    // The names phaseflow gives are its own: --force replaces that run.
    run_into(&out, &["--force"]).assert().success();
    assert!(!out.join("states").exists() && !out.join("parts").exists());
}

#[test]
fn plot_refuses_another_run_folder_and_folders_inside_a_run() {
    let tmp = TempDir::new().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    run_into(&a, &[]).assert().success();
    run_into(&b, &[]).assert().success();
    let b_manifest = read(&b.join("manifest.toml"));
    let plot = |out: &Path| {
        let mut c = phaseflow();
        c.args(["plot", "--quiet"]).arg(&a).arg("--out").arg(out);
        c
    };
    for (out, is) in [
        (b.clone(), "is the folder of a phaseflow run"),
        (a.join("sub"), "is inside the folder of a phaseflow run"),
        (b.join("figures"), "is inside the folder of a phaseflow run"),
    ] {
        plot(&out)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(is).and(predicate::str::contains("omit --out")));
    }
    assert!(!a.join("sub").exists() && !b.join("figures").exists());
    assert!(!b.join("energy_error.png").exists() && !b.join("report.md").exists());
    assert_eq!(read(&b.join("manifest.toml")), b_manifest);
    // A folder of its own, or the run's folder itself, takes the figures.
    plot(&tmp.path().join("figs/a")).assert().success();
    assert!(tmp.path().join("figs/a/energy_error.png").exists());
    plot(&a.join(".")).assert().success();
    // The run's folder holds only its own files: --force can still replace it.
    run_into(&a, &["--force"]).assert().success();
}

#[test]
fn out_paths_that_cannot_be_folders_are_input_errors() {
    let tmp = TempDir::new().unwrap();
    let file = tmp.path().join("notes.txt");
    std::fs::write(&file, "mine").unwrap();
    let dangling = tmp.path().join("dangling");
    symlink(tmp.path().join("nowhere"), &dangling).unwrap();
    let (l1, l2) = (tmp.path().join("loop1"), tmp.path().join("loop2"));
    symlink(&l2, &l1).unwrap();
    symlink(&l1, &l2).unwrap();
    for (out, what) in [
        (file.join("sub"), "is a file, not a folder"),
        (file.clone(), "is a file, not a folder"),
        (dangling.clone(), "symbolic link to nothing"),
        (dangling.join("sub"), "symbolic link to nothing"),
        (l1.clone(), "symbolic link to nothing"),
    ] {
        run_into(&out, &[])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(what).and(predicate::str::contains("--out")));
    }
    assert_eq!(read(&file), "mine");
    assert!(kind(&dangling).is_symlink() && !tmp.path().join("nowhere").exists());
    assert!(kind(&l1).is_symlink() && kind(&l2).is_symlink());
}

#[test]
fn a_study_into_a_run_folder_is_told_it_holds_a_run() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("r");
    run_into(&out, &[]).assert().success();
    let study = |extra: &[&str]| {
        let mut c = phaseflow();
        c.args(oscillator_study("verlet"))
            .arg("--out")
            .arg(&out)
            .args(extra);
        c
    };
    study(&[]).assert().code(2).stderr(
        predicate::str::contains("already holds a phaseflow run")
            .and(predicate::str::contains("--force"))
            .and(predicate::str::contains("did not write").not()),
    );
    assert!(out.join("manifest.toml").exists() && out.join("stats.csv").exists());
    // And the other way round; --force replaces phaseflow's own folder either way.
    study(&["--force"]).assert().success();
    assert!(out.join("summary.csv").exists() && !out.join("stats.csv").exists());
    run_into(&out, &[]).assert().code(2).stderr(
        predicate::str::contains("already holds a phaseflow study")
            .and(predicate::str::contains("did not write").not()),
    );
    run_into(&out, &["--force"]).assert().success();
    assert!(!out.join("summary.csv").exists() && out.join("stats.csv").exists());
}

/// `run` of 100 points for 400 steps, a row at every step, into `out`, with files limited to
/// `limit` bytes: past it a write fails (EFBIG, SIGXFSZ ignored) as on a full disk.
fn run_on_a_small_disk(out: &Path, limit: u64) -> std::process::Output {
    let mut c = std::process::Command::cargo_bin("phaseflow").unwrap();
    c.arg("run")
        .args(pendulum_disk(100, 0.05, 400))
        .args(argv("--snapshot-every 1 --backend cpu --quiet --out"))
        .arg(out);
    limit_file_size(&mut c, limit);
    c.output().unwrap()
}

#[test]
fn a_full_disk_leaves_whole_rows_and_no_empty_folder() {
    let tmp = TempDir::new().unwrap();
    // stats.csv (about 100 kB) reaches the limit; config.toml and the lock stay below it.
    let out = tmp.path().join("o");
    let limit = 20_000;
    let done = run_on_a_small_disk(&out, limit);
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert_eq!(done.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("stats.csv") && !stderr.contains("panicked"),
        "{stderr}"
    );
    let text = read(&out.join("stats.csv"));
    assert!(
        text.len() > 1000 && (text.len() as u64) < limit,
        "{}",
        text.len()
    );
    assert!(
        text.ends_with('\n'),
        "a row was cut: {:?}",
        &text[text.len() - 40..]
    );
    let width = text.lines().next().unwrap().split(',').count();
    assert!(text.lines().all(|l| l.split(',').count() == width));
    assert!(
        !out.join("manifest.toml").exists(),
        "a failed run looks complete"
    );
    // Refused at the first byte (the lock): no folder is left where there was none.
    let nested = tmp.path().join("new/o");
    let refused = run_on_a_small_disk(&nested, 1);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(".phaseflow.lock"), "{stderr}");
    assert!(
        !tmp.path().join("new").exists(),
        "an empty --out folder was left"
    );
}
