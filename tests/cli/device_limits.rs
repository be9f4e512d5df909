//! The GPU within its device's limits, and a quiet first run: WebGPU's default limits
//! (`PHASEFLOW_GPU_LIMITS=webgpu`) still reduce the energy statistics on the device, in smaller
//! workgroups, and say so; no driver chatter (`error: XDG_RUNTIME_DIR …`) where there is no
//! desktop session.

use crate::common::{argv, pendulum_disk, phaseflow, stats};

/// Lines of `stderr` that start with `error:`, the form of libwayland-client's complaint.
fn error_lines(stderr: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(stderr)
        .lines()
        .filter(|l| l.starts_with("error:"))
        .map(String::from)
        .collect()
}

/// At WebGPU's 16 KiB of workgroup memory the 24 KiB reduction cannot run: the run says it
/// reduces in workgroups of 128 points, and its statistics are those of the run with the
/// adapter's own limits (256 points a workgroup) to rounding of the merge order.
#[test]
fn webgpu_default_limits_reduce_in_smaller_workgroups_and_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let run = |limits: &str, out: &str| {
        let out = dir.path().join(out);
        let o = phaseflow()
            .arg("run")
            .args(pendulum_disk(3000, 0.01, 200))
            .args(argv("--snapshot-every 100 --no-refine --backend gpu --out"))
            .arg(&out)
            .env("PHASEFLOW_GPU_LIMITS", limits)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr).to_string();
        assert!(o.status.success(), "{limits}: {stderr}");
        (out, stderr)
    };
    let (own, own_err) = run("adapter", "own");
    let (webgpu, webgpu_err) = run("webgpu", "webgpu");
    assert!(
        webgpu_err.contains("16384 B of workgroup memory")
            && webgpu_err.contains("reduced on the device in workgroups of 128 points"),
        "{webgpu_err}"
    );
    assert!(!own_err.contains("workgroups of"), "{own_err}");
    let (a, b) = (stats(&own), stats(&webgpu));
    assert_eq!(a.len(), 3);
    assert_eq!(a.len(), b.len());
    for (ra, rb) in a.iter().zip(&b) {
        assert_eq!(ra.keys().collect::<Vec<_>>(), rb.keys().collect::<Vec<_>>());
        for (k, x) in ra {
            let y = rb[k];
            assert!(
                (x - y).abs() <= 1e-12 * x.abs().max(1e-300),
                "{k}: {x} with the adapter's limits, {y} with WebGPU's"
            );
        }
    }
    // the energy errors are measured, not zero
    assert!(a[2]["abs_energy_err_max"] > 0.0);
}

#[test]
fn an_unknown_limits_choice_is_an_input_error() {
    let dir = tempfile::tempdir().unwrap();
    phaseflow()
        .arg("run")
        .args(pendulum_disk(10, 0.01, 1))
        .args(argv("--backend gpu --quiet --out"))
        .arg(dir.path().join("out"))
        .env("PHASEFLOW_GPU_LIMITS", "tiny")
        .assert()
        .code(2)
        .stderr(predicates::str::contains("PHASEFLOW_GPU_LIMITS=tiny"));
}

/// The study a newcomer runs first, with no desktop session (XDG_RUNTIME_DIR unset): every
/// method's `--backend auto` looks for a GPU, and each look used to print libwayland's
/// complaint twice; the GPU engine's own probe did too.
#[test]
fn a_first_run_without_a_desktop_session_prints_no_driver_errors() {
    let dir = tempfile::tempdir().unwrap();
    let o = phaseflow()
        .args(argv("study --preset pendulum-level --t-end 100 --out"))
        .arg(dir.path().join("study"))
        .env_remove("XDG_RUNTIME_DIR")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(error_lines(&o.stderr), Vec::<String>::new());
    // the study did run its three methods and said so on stderr
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("[3/3]"), "{stderr}");
    let gpu_run = dir.path().join("gpu-run").display().to_string();
    for args in [
        argv("devices"),
        [
            argv("run"),
            pendulum_disk(100, 0.01, 10),
            argv("--backend gpu --out"),
            vec![gpu_run],
        ]
        .concat(),
    ] {
        let o = phaseflow()
            .args(&args)
            .env_remove("XDG_RUNTIME_DIR")
            .output()
            .unwrap();
        assert!(o.status.success(), "{args:?}");
        assert_eq!(error_lines(&o.stderr), Vec::<String>::new(), "{args:?}");
    }
}
