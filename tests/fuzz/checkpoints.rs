//! Bounded fuzzing of the files `resume` and `merge` read back whole: an interrupted run's
//! checkpoint and a sharded run's parts, mutated (bytes flipped, cut, inserted, runs
//! duplicated), truncated, swapped with another step's or another run's. Every damaged file
//! must be answered with exit 2 and a message naming it, never exit 0 with a wrong result and
//! never a crash, and must leave the folders as they were; the untouched files still resume
//! and merge to the uninterrupted, unsharded run's bytes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;
use tempfile::TempDir;

use crate::common::{argv, pendulum_disk, phaseflow};
use crate::{mutate, Rng};

/// A run of `points` points small enough to resume in a few milliseconds, with saved states;
/// callers add --out.
fn run_args(points: usize) -> Vec<String> {
    let tail = "--snapshot-every 20 --checkpoint-every 10 --save-states --backend cpu --quiet";
    [argv("run"), pendulum_disk(points, 0.02, 60), argv(tail)].concat()
}

/// Every file under `dir`, to tell that a refusal changed nothing.
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(dir: &Path, rel: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let e = e.unwrap();
            let rel = rel.join(e.file_name());
            if e.file_type().unwrap().is_dir() {
                walk(&e.path(), &rel, out);
            } else {
                out.insert(rel, std::fs::read(e.path()).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, Path::new(""), &mut out);
    out
}

/// Each of `cases` written over `target` in turn: `cmd` must exit 2 with a message naming
/// `target`'s file, changing nothing under `watched`; `target` is restored after each.
fn each_refused(
    cases: &[(String, Vec<u8>)],
    target: &Path,
    watched: &Path,
    cmd: &dyn Fn() -> Command,
) {
    let original = std::fs::read(target).unwrap();
    let name = target.file_name().unwrap().to_string_lossy().into_owned();
    let before = files(watched);
    for (what, bytes) in cases {
        if *bytes == original {
            continue; // a mutation that undid itself: the file is intact
        }
        std::fs::write(target, bytes).unwrap();
        let out = cmd().timeout(Duration::from_secs(30)).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{name}, {what}: expected exit 2, stderr: {stderr}"
        );
        assert!(stderr.contains(&name), "{name}, {what}: {stderr}");
        std::fs::write(target, &original).unwrap();
        assert!(files(watched) == before, "{name}, {what}: files changed");
    }
}

/// Mutations, truncations and the given swaps of `base`.
fn cases(
    rng: &mut Rng,
    base: &[u8],
    count: usize,
    swaps: &[(&str, &Path)],
) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = (0..count)
        .map(|k| (format!("mutation {k}"), mutate(rng, base)))
        .collect();
    for cut in [0, 1, 8, base.len() / 2, base.len() - 4, base.len() - 1] {
        v.push((format!("cut to {cut} bytes"), base[..cut].to_vec()));
    }
    for (what, path) in swaps {
        v.push((what.to_string(), std::fs::read(path).unwrap()));
    }
    v
}

#[test]
fn damaged_checkpoints_and_parts_are_refused_never_resumed() {
    let tmp = TempDir::new().unwrap();
    let t = tmp.path();
    let mut rng = Rng(0xc4ec_4b01_7f11_e5a1);
    let run = |out: &Path, points: usize, extra: &[&str], stop: Option<&str>| {
        let mut c = phaseflow();
        c.args(run_args(points)).args(extra).arg("--out").arg(out);
        if let Some(n) = stop {
            c.env("PHASEFLOW_STOP_AFTER_CHECKPOINTS", n);
        }
        c.assert().code(if stop.is_some() { 130 } else { 0 });
    };

    // Checkpoints: the run stopped at step 30 (its third checkpoint), and another seed's.
    let (full, part, seed) = (t.join("full"), t.join("part"), t.join("seed"));
    run(&full, 200, &[], None);
    run(&part, 200, &[], Some("3"));
    run(&seed, 200, &["--seed", "9"], Some("3"));
    let ckpt = part.join("checkpoint/run.ckpt");
    let base = std::fs::read(&ckpt).unwrap();
    let list = cases(
        &mut rng,
        &base,
        60,
        &[
            (
                "another run's checkpoint",
                &seed.join("checkpoint/run.ckpt"),
            ),
            ("a stats.csv", &part.join("stats.csv")),
        ],
    );
    let resume = || {
        let mut c = phaseflow();
        c.arg("resume").arg(&part);
        c
    };
    each_refused(&list, &ckpt, &part, &resume);
    phaseflow().arg("resume").arg(&part).assert().success();
    for name in ["stats.csv", "states/step_60.npy", "manifest.toml"] {
        let read = |d: &Path| std::fs::read(d.join(name)).unwrap();
        assert!(read(&full) == read(&part), "resumed {name} differs");
    }

    // Parts: two shards of 8192 points; shard 1's step_20 part mutated, swapped with its
    // step_40 part, shard 0's, another seed's.
    let shard = |k: usize, extra: &[&str]| {
        let dir = t.join(format!("shard-{k}{}", extra.join("")));
        let split = format!("{k}/2");
        run(
            &dir,
            8192,
            &[&["--shard", &split][..], extra].concat(),
            None,
        );
        dir
    };
    let (s0, s1, other) = (shard(0, &[]), shard(1, &[]), shard(1, &["--seed", "9"]));
    let whole = t.join("whole");
    run(&whole, 8192, &[], None);
    let target = s1.join("parts/step_20.bin");
    let base = std::fs::read(&target).unwrap();
    let list = cases(
        &mut rng,
        &base,
        60,
        &[
            ("step 40's parts", &s1.join("parts/step_40.bin")),
            ("shard 0's parts", &s0.join("parts/step_20.bin")),
            ("another run's parts", &other.join("parts/step_20.bin")),
        ],
    );
    let merged = t.join("merged");
    let merge = || {
        let mut c = phaseflow();
        c.arg("merge").args([&s0, &s1]).arg("--out").arg(&merged);
        c
    };
    each_refused(&list, &target, t, &merge);
    assert!(!merged.exists(), "a refused merge wrote --out");
    merge().assert().success();
    for name in ["stats.csv", "states/step_20.npy", "states/step_60.npy"] {
        let read = |d: &Path| std::fs::read(d.join(name)).unwrap();
        assert!(read(&whole) == read(&merged), "merged {name} differs");
    }
}
