//! Issue 15, fault 1: standard output and error that are closed or full.

use tempfile::TempDir;

use crate::base_run;

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
