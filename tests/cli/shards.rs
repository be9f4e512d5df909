//! Issue 17: `run --shard K/N` and `phaseflow merge`. The shards of a filled ensemble, merged,
//! give the unsharded run's stats.csv and states/step_k.npy byte for byte, on the CPU engine
//! and on the GPU engine (lavapipe, with the device's energy reduction), for f32, f64,
//! compensated, --tangent, angular momentum and implicit solves; bad splits and bad merges
//! are refused with exit 2.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use predicates::prelude::*;
use tempfile::TempDir;

use crate::common::{argv, pendulum_disk, phaseflow, same_stats_and_states};

fn run(args: &[impl AsRef<OsStr>], out: &Path, extra: &[&str]) {
    phaseflow()
        .args(["run", "--quiet"])
        .args(args)
        .args(extra)
        .arg("--out")
        .arg(out)
        .assert()
        .success();
}

/// The run whole, in `count` shards, and the shards merged: every stats.csv and state file of
/// the merge equals the whole run's. The folder holding `whole` and `merged`.
pub(super) fn shards_merge_to_the_whole(
    args: &[impl AsRef<OsStr> + std::fmt::Debug],
    count: usize,
) -> TempDir {
    let tmp = TempDir::new().unwrap();
    let whole = tmp.path().join("whole");
    run(args, &whole, &[]);
    let shards: Vec<PathBuf> = (0..count)
        .map(|k| {
            let dir = tmp.path().join(format!("shard-{k}"));
            run(args, &dir, &["--shard", &format!("{k}/{count}")]);
            dir
        })
        .collect();
    let merged = tmp.path().join("merged");
    // shards in reverse order: merge sorts them
    phaseflow()
        .arg("merge")
        .args(shards.iter().rev())
        .arg("--out")
        .arg(&merged)
        .assert()
        .success()
        .stdout(predicate::str::contains(format!("merged {count} shards")));
    same_stats_and_states(&whole, &merged, &format!("{args:?} merged"));
    // a shard's own stats.csv covers its points only
    let first = std::fs::read_to_string(shards[0].join("stats.csv")).unwrap();
    assert!(!first.lines().nth(1).unwrap().contains(",10000,"));
    assert!(merged.join("manifest.toml").is_file());
    let config = std::fs::read_to_string(merged.join("config.toml")).unwrap();
    assert!(!config.contains("shard ="), "{config}");
    tmp
}

#[test]
fn cpu_shards_merge_bit_for_bit() {
    shards_merge_to_the_whole(
        &[
            pendulum_disk(10000, 0.05, 200),
            argv("--snapshot-every 50 --save-states --backend cpu"),
        ]
        .concat(),
        2,
    );
    // f64 Gaussian (drawn-and-dropped stream), angular momentum, three uneven shards
    shards_merge_to_the_whole(
        &[
            "--system",
            "kepler",
            "--method",
            "yoshida4",
            "--ensemble",
            "gaussian",
            "--sigma",
            "0.01",
            "--points",
            "9000",
            "--dt",
            "0.01",
            "--steps",
            "100",
            "--precision",
            "f64",
            "--save-states",
            "--backend",
            "cpu",
        ],
        3,
    );
    // tangent columns on a grid, compensated f32
    shards_merge_to_the_whole(
        &[
            "--system",
            "pendulum",
            "--method",
            "symplectic-euler-a",
            "--ensemble",
            "grid",
            "--points",
            "10000",
            "--dt",
            "0.05",
            "--steps",
            "100",
            "--tangent",
            "--compensated",
            "--backend",
            "cpu",
        ],
        2,
    );
}

#[test]
fn gpu_shards_merge_bit_for_bit() {
    // f64 on the device: energy statistics reduced there, per workgroup
    shards_merge_to_the_whole(
        &[
            "--system",
            "pendulum",
            "--method",
            "verlet",
            "--ensemble",
            "disk",
            "--points",
            "9000",
            "--dt",
            "0.05",
            "--steps",
            "100",
            "--precision",
            "f64",
            "--backend",
            "gpu",
        ],
        2,
    );
    // implicit solves, f32, states saved
    shards_merge_to_the_whole(
        &[
            "--system",
            "double-pendulum",
            "--method",
            "implicit-midpoint",
            "--ensemble",
            "disk",
            "--points",
            "8200",
            "--dt",
            "0.05",
            "--steps",
            "20",
            "--save-states",
            "--backend",
            "gpu",
        ],
        2,
    );
}

#[test]
fn bad_shards_and_merges_are_refused() {
    let tmp = TempDir::new().unwrap();
    let base = [
        "--system",
        "pendulum",
        "--method",
        "verlet",
        "--dt",
        "0.05",
        "--steps",
        "10",
        "--backend",
        "cpu",
    ];
    let refused = |extra: &[&str], needle: &str| {
        let out = tmp.path().join("refused");
        phaseflow()
            .arg("run")
            .args(base)
            .args(extra)
            .arg("--out")
            .arg(&out)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(needle));
        assert!(!out.exists());
    };
    refused(
        &["--ensemble", "disk", "--points", "9000", "--shard", "2/2"],
        "0 <= K < N",
    );
    refused(
        &["--ensemble", "disk", "--points", "9000", "--shard", "x"],
        "expected K/N",
    );
    refused(
        &["--ensemble", "disk", "--points", "5000", "--shard", "0/3"],
        "at most 2",
    );
    refused(
        &["--ensemble", "circle", "--points", "9000", "--shard", "0/2"],
        "mpirun",
    );
    let shard = |k: usize, points: &str| {
        let dir = tmp.path().join(format!("s{k}-{points}"));
        run(
            &base,
            &dir,
            &[
                "--ensemble",
                "disk",
                "--points",
                points,
                "--shard",
                &format!("{k}/2"),
            ],
        );
        dir
    };
    let (a, b, c) = (shard(0, "9000"), shard(1, "9000"), shard(1, "9001"));
    let merge = |dirs: &[&PathBuf], needle: &str| {
        let out = tmp.path().join("merged");
        phaseflow()
            .arg("merge")
            .args(dirs)
            .arg("--out")
            .arg(&out)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(needle));
        assert!(!out.exists());
    };
    merge(&[&a], "shard 1/2 is missing");
    merge(&[&a, &a], "given twice");
    merge(&[&a, &c], "different runs");
    let whole = tmp.path().join("whole");
    run(&base, &whole, &["--ensemble", "disk", "--points", "9000"]);
    merge(&[&a, &whole], "not a shard");
    std::fs::remove_file(b.join("manifest.toml")).unwrap();
    merge(&[&a, &b], "phaseflow resume");
}

/// The files of the run with `extra` equal those of the run without: stats.csv, and every
/// saved state.
fn same_as_one_gpu(args: &[&str], extra: &[&str]) {
    let tmp = TempDir::new().unwrap();
    let (one, many) = (tmp.path().join("one"), tmp.path().join("many"));
    run(args, &one, &["--backend", "gpu"]);
    run(args, &many, extra);
    same_stats_and_states(&one, &many, &format!("{args:?} {extra:?}"));
    let config = std::fs::read_to_string(many.join("config.toml")).unwrap();
    assert!(config.contains("devices = "), "{config}");
}

/// `--devices`: the ensemble spread over several GPU engines (lavapipe's one adapter opened
/// as GPU 0 several times, which exercises the split, the read-back and the merge exactly as
/// separate GPUs do) writes the one-GPU files, for the device's f64 energy reduction, a
/// compensated f32 run with saved states, and a refined loop with the tangent map (which
/// grows across the devices' boundaries).
#[test]
fn devices_merge_bit_for_bit() {
    let disk = [
        "--system",
        "pendulum",
        "--method",
        "verlet",
        "--ensemble",
        "disk",
        "--points",
        "20000",
        "--dt",
        "0.05",
        "--steps",
        "100",
    ];
    same_as_one_gpu(
        &[&disk[..], &["--precision", "f64"]].concat(),
        &["--devices", "0,0,0"],
    );
    same_as_one_gpu(
        &[
            &disk[..],
            &["--compensated", "--save-states", "--snapshot-every", "50"],
        ]
        .concat(),
        &["--devices", "all"],
    );
    same_as_one_gpu(
        &[
            "--system",
            "pendulum",
            "--method",
            "verlet",
            "--ensemble",
            "circle",
            "--center",
            "0,0.8",
            "--radius",
            "0.3",
            "--points",
            "9000",
            "--dt",
            "0.05",
            "--steps",
            "400",
            "--tangent",
        ],
        &["--devices", "0,0"],
    );
    let tmp = TempDir::new().unwrap();
    for (extra, needle) in [
        (&["--devices", "7"][..], "no GPU 7"),
        (&["--devices", "x"][..], "expected `all`"),
        (
            &["--devices", "0", "--backend", "cpu"][..],
            "drop --backend cpu",
        ),
    ] {
        let out = tmp.path().join("refused");
        phaseflow()
            .args(["run", "--quiet"])
            .args(disk)
            .args(extra)
            .arg("--out")
            .arg(&out)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(needle));
        assert!(!out.exists(), "{extra:?}");
    }
}

/// A binary built without MPI, started by mpirun as one of several ranks, refuses to run
/// (every copy would run the whole ensemble into one folder).
#[cfg(not(feature = "mpi"))]
#[test]
fn mpi_launch_without_the_feature_is_refused() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("refused");
    phaseflow()
        .env("OMPI_COMM_WORLD_SIZE", "2")
        .args([
            "run",
            "--system",
            "pendulum",
            "--method",
            "verlet",
            "--ensemble",
            "disk",
            "--dt",
            "0.05",
            "--steps",
            "10",
            "--out",
        ])
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--features mpi"));
    assert!(!out.exists());
}
