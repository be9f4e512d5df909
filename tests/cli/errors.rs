//! Bad input: exit code 2, a message naming the flag, and nothing written to --out; the
//! malformed, empty and unbounded input files of issue 15 among them.

use assert_cmd::prelude::*;
use predicates::prelude::*;
use tempfile::TempDir;

use crate::common::{argv, gpu_point_run, pendulum_disk, phaseflow};

/// Bad input: exit code 2, a message naming the flag, and nothing created in --out.
fn rejects(extra: &[&str], needle: &str) {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("out");
    let mut args = [argv("run"), pendulum_disk(100, 0.1, 10)].concat();
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

/// `ulimit -v` caps what the process may map: an ensemble that fits in the machine's memory
/// but not under the limit is refused (exit 2) instead of aborting when it allocates (issue 15,
/// fault 5).
#[test]
fn address_space_limit_is_respected() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("out");
    let bin = std::path::PathBuf::from(env!("CARGO_BIN_EXE_phaseflow"));
    // 3e8 f32 points take ~6 GB, more than the 4 GiB allowed here, less than the machine's memory.
    let script = format!(
        "ulimit -v 4194304; exec '{}' run --system pendulum --method verlet --ensemble disk --points 300000000 --dt 0.1 --steps 1 --backend cpu --out '{}'",
        bin.display(),
        out.display()
    );
    std::process::Command::new("sh")
        .args(["-c", &script])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--points 300000000: the ensemble needs about",
        ));
    assert!(!out.exists());
}

#[test]
fn bad_step_sizes() {
    // (a negative step runs backwards: tests/cli/accuracy.rs)
    rejects(&["--dt", "nan"], "--dt must be a finite non-zero number");
    rejects(&["--dt", "inf"], "--dt must be a finite non-zero number");
    rejects(&["--dt", "0"], "--dt must be a finite non-zero number");
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
    rejects(&["--backend", "tpu"], "invalid value 'tpu' for '--backend");
    rejects(
        &["--precision", "f16"],
        "invalid value 'f16' for '--precision",
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
        .args(["--tolerance", "0"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--tolerance must be a positive"));
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

/// A kernel too large for a CPU driver (the solar system with its tangent map: 666 components
/// per point; lavapipe took 132 s to build it, then ran slower than the CPU engine) is refused
/// at once with exit 2 naming `--backend cpu`, before `--out` exists (issue 15, fault 4). A
/// hardware GPU builds it.
#[test]
fn kernels_too_large_for_a_cpu_driver_are_refused() {
    let ctx = phaseflow::gpu::context()
        .expect("GPU tests need a wgpu adapter: apt-get install mesa-vulkan-drivers");
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("out");
    let run = phaseflow()
        .args(gpu_point_run("outer-solar-system", 1.0))
        .args(["--tangent", "--out"])
        .arg(&out)
        .timeout(std::time::Duration::from_secs(600))
        .assert();
    if ctx.info.device_type == wgpu::DeviceType::Cpu {
        run.code(2)
            .stderr(predicate::str::contains("666 components per point"))
            .stderr(predicate::str::contains("use --backend cpu"));
        assert!(!out.exists(), "--out must stay untouched");
        // A study checks every method's kernel before it touches its folder.
        let study_out = tmp.path().join("study");
        phaseflow()
            .args([
                "study",
                "--system",
                "outer-solar-system",
                "--methods",
                "verlet,yoshida4",
                "--dt",
                "1",
                "--steps",
                "1",
                "--ensemble",
                "point",
                "--backend",
                "gpu",
                "--out",
            ])
            .arg(&study_out)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("use --backend cpu"));
        assert!(!study_out.exists(), "the study folder must stay untouched");
    } else {
        run.success();
    }
}
