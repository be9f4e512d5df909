//! `benches/gpu-suite.sh --smoke` against the binary under test: the suite runs end to end on
//! whatever adapter there is (lavapipe in CI) and its table has the shape BENCHMARKS.md takes:
//! the five columns, a figure in every row, every GPU target, and a `validate` row per system
//! and precision in which every method that runs passes.

use std::path::Path;

use crate::common::{argv, phaseflow};

/// The cells of a Markdown table row (`| a | b |` → ["a", "b"]).
fn cells(line: &str) -> Vec<&str> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    inner.split(" | ").map(str::trim).collect()
}

#[test]
fn the_gpu_suite_smoke_run_writes_a_full_table() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("suite");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/gpu-suite.sh");
    let bin = assert_cmd::cargo::cargo_bin("phaseflow");
    let o = std::process::Command::new("bash")
        .arg(&script)
        .arg("--smoke")
        .arg("--bin")
        .arg(&bin)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    let table = std::fs::read_to_string(out.join("gpu-suite.md")).unwrap();
    // stdout is the table too, ready to paste
    assert_eq!(String::from_utf8_lossy(&o.stdout), table);
    let lines: Vec<&str> = table.lines().filter(|l| l.starts_with('|')).collect();
    assert_eq!(
        cells(lines[0]),
        ["device", "driver", "command", "figure", "target"]
    );
    let rows: Vec<Vec<&str>> = lines[2..].iter().map(|l| cells(l)).collect();
    for r in &rows {
        assert_eq!(r.len(), 5, "{r:?}");
        assert!(r.iter().all(|c| !c.is_empty()), "{r:?}");
        let figure = r[3];
        assert!(
            !figure.contains("not run") && !figure.contains("failed"),
            "{r:?}"
        );
        assert!(figure.chars().any(|c| c.is_ascii_digit()), "{r:?}");
    }
    // the device the engine opened, named in every row
    let devices =
        String::from_utf8_lossy(&phaseflow().arg("devices").output().unwrap().stdout).to_string();
    assert!(devices.contains(rows[0][0]), "{devices} / {}", rows[0][0]);
    for target in [
        "≥ 1e12", "≥ 5e11", "≥ 5e10", "≈ 0.5", "≥ 0.95", "< 60 s", "recorded",
    ] {
        assert!(
            rows.iter().any(|r| r[4] == target),
            "no row for the target {target}"
        );
    }
    // every system of `phaseflow list`, at f32 and f64, every method that runs passing
    let list =
        String::from_utf8_lossy(&phaseflow().arg("list").output().unwrap().stdout).to_string();
    let systems: Vec<&str> = list
        .lines()
        .skip_while(|l| *l != "systems:")
        .take_while(|l| *l != "methods:")
        .filter(|l| l.starts_with("  ") && !l.starts_with("   ") && !l.starts_with("  or "))
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert!(systems.len() >= 15, "{systems:?}");
    for s in &systems {
        for p in ["f32", "f64"] {
            let command = format!("`validate --system {s} --method (each) --precision {p} ");
            let row = rows
                .iter()
                .find(|r| r[2].starts_with(&command))
                .unwrap_or_else(|| panic!("no validate row for {s} {p}"));
            let passed: usize = row[3].split(' ').next().unwrap().parse().unwrap();
            assert!(passed >= 1 && !row[3].contains("fail"), "{row:?}");
        }
    }
}

/// `bench --gpu-only` times the GPU engine alone: no reference loop or CPU row, and says so.
#[test]
fn bench_gpu_only_times_the_gpu_alone() {
    let o = phaseflow()
        .args(argv("bench --gpu-only --points 512 --steps 2"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout);
    let backends: Vec<&str> = stdout
        .lines()
        .skip(2)
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| ["reference", "cpu", "gpu"].contains(w))
        .collect();
    assert_eq!(backends, ["gpu", "gpu"], "{stdout}");
    assert!(stdout.contains("not timed (--gpu-only)"), "{stdout}");
}
