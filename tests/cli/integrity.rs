//! Files phaseflow reads back whole are checked before they are used: a checkpoint, a study's
//! record (study.toml), a shard's parts and saved states. Their type and size come first (a
//! symlink to /dev/zero or a FIFO is refused at once), then a checksum, then that they belong
//! to this run and this step; a damaged, swapped or foreign file is refused with exit 2 naming
//! it, and the folder is left as it was, still resumable. `merge` refuses an --out that is, or
//! lies inside, one of its shards (or holds one) before deleting anything.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use predicates::prelude::*;
use tempfile::TempDir;

use crate::common::{argv, files, pendulum_disk, phaseflow, same_stats_and_states};

/// A small run with a checkpoint every 20 of its 100 steps; callers add --out.
fn small_run() -> Vec<String> {
    let tail = "--snapshot-every 20 --checkpoint-every 20 --save-states --backend cpu --quiet";
    [argv("run"), pendulum_disk(300, 0.01, 100), argv(tail)].concat()
}

/// `run_args` into `out`, stopped right after its `stop`-th checkpoint (exit 130).
fn interrupted(run_args: &[String], out: &Path, stop: u32) {
    phaseflow()
        .env("PHASEFLOW_STOP_AFTER_CHECKPOINTS", stop.to_string())
        .args(run_args)
        .arg("--out")
        .arg(out)
        .assert()
        .code(130);
}

/// `args` (resume or merge) exits 2 promptly with `needle` in its message and leaves every file
/// under `watched` as it was.
fn refused(args: &[&std::ffi::OsStr], watched: &Path, needle: &str) {
    let before = files(watched);
    phaseflow()
        .args(args)
        .timeout(Duration::from_secs(60))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(needle));
    assert!(files(watched) == before, "{args:?} changed {watched:?}");
}

fn resume_refused(dir: &Path, needle: &str) {
    refused(&["resume".as_ref(), dir.as_os_str()], dir, needle);
}

/// Replace `path` with a symlink to `target` for the duration of `f`.
fn with_symlink(path: &Path, target: &Path, f: impl FnOnce()) {
    let saved = std::fs::read(path).unwrap();
    std::fs::remove_file(path).unwrap();
    std::os::unix::fs::symlink(target, path).unwrap();
    f();
    std::fs::remove_file(path).unwrap();
    std::fs::write(path, saved).unwrap();
}

/// Write `bytes` over `path` for the duration of `f`.
fn with_contents(path: &Path, bytes: &[u8], f: impl FnOnce()) {
    let saved = std::fs::read(path).unwrap();
    std::fs::write(path, bytes).unwrap();
    f();
    std::fs::write(path, saved).unwrap();
}

/// `bytes` with the byte at `at` changed (its lowest bit flipped).
fn flipped(bytes: &[u8], at: usize) -> Vec<u8> {
    let mut b = bytes.to_vec();
    b[at] ^= 1;
    b
}

/// Where each array of a checkpoint starts and how many bytes it holds, from its header (the
/// file: a first line, the header's length, the TOML header listing the arrays as (name, bytes
/// per value, values), then the arrays in that order); and where the header starts.
fn checkpoint_layout(ckpt: &[u8]) -> (usize, BTreeMap<String, (usize, usize)>) {
    let text = String::from_utf8_lossy(ckpt);
    let mut lines = text.splitn(3, '\n');
    let first = lines.next().unwrap().len() + 1;
    let len_line = lines.next().unwrap();
    let header_at = first + len_line.len() + 1;
    let len: usize = len_line.parse().unwrap();
    let header: toml::Value =
        toml::from_str(std::str::from_utf8(&ckpt[header_at..header_at + len]).unwrap()).unwrap();
    let mut at = header_at + len;
    let mut arrays = BTreeMap::new();
    for a in header["arrays"].as_array().unwrap() {
        let a = a.as_array().unwrap();
        let bytes = (a[1].as_integer().unwrap() * a[2].as_integer().unwrap()) as usize;
        arrays.insert(a[0].as_str().unwrap().to_string(), (at, bytes));
        at += bytes;
    }
    (header_at, arrays)
}

/// A checkpoint that is a device, a FIFO or a dangling symlink is refused at once (before: read
/// whole from /dev/zero until the memory ran out; a FIFO waited forever); a checkpoint with a
/// byte changed anywhere (header, state, initial energies, unconverged counts, last byte) is
/// refused as damaged (before: resumed to a complete-looking run with wrong statistics).
/// After every refusal the folder is untouched, and resumes to the uninterrupted run's files.
#[test]
fn damaged_or_unreadable_checkpoints_are_refused() {
    let tmp = TempDir::new().unwrap();
    let (full, part) = (tmp.path().join("full"), tmp.path().join("part"));
    phaseflow()
        .args(small_run())
        .arg("--out")
        .arg(&full)
        .assert()
        .success();
    interrupted(&small_run(), &part, 2);
    let ckpt_path = part.join("checkpoint/run.ckpt");
    let ckpt = std::fs::read(&ckpt_path).unwrap();

    with_symlink(&ckpt_path, Path::new("/dev/zero"), || {
        resume_refused(&part, "not a regular file")
    });
    let fifo = tmp.path().join("fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo(3) with a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    with_symlink(&ckpt_path, &fifo, || {
        resume_refused(&part, "not a regular file")
    });
    with_symlink(&ckpt_path, &tmp.path().join("gone"), || {
        resume_refused(&part, "run.ckpt")
    });

    let (header_at, arrays) = checkpoint_layout(&ckpt);
    let step_digit = header_at
        + String::from_utf8_lossy(&ckpt[header_at..])
            .find("step = ")
            .unwrap()
        + "step = ".len();
    let middle = |name: &str| arrays[name].0 + arrays[name].1 / 2;
    for (what, at) in [
        ("the step in the header", step_digit),
        ("q", middle("q")),
        ("p", middle("p")),
        ("h0", middle("h0") | 6),
        ("an unconverged count", arrays["unconverged"].0),
        ("the last byte", ckpt.len() - 1),
    ] {
        with_contents(&ckpt_path, &flipped(&ckpt, at), || {
            eprintln!("a byte of {what} changed");
            resume_refused(&part, "damaged");
        });
    }
    phaseflow()
        .args(["resume", "--quiet"])
        .arg(&part)
        .assert()
        .success();
    same_stats_and_states(&full, &part, "resumed after the refusals");
}

/// Another run's checkpoint copied into a folder is named as such (before: "config.toml
/// changed"); stats.csv deleted after the checkpoint is named (before: exit 1, "No such file").
#[test]
fn checkpoints_of_other_runs_and_missing_statistics_are_named() {
    let tmp = TempDir::new().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    interrupted(&small_run(), &a, 1);
    interrupted(&small_run(), &b, 1);
    let ckpt = |d: &Path| d.join("checkpoint/run.ckpt");
    with_contents(
        &ckpt(b.as_path()),
        &std::fs::read(ckpt(&a)).unwrap(),
        || {
            resume_refused(&b, "another run");
        },
    );
    let stats = b.join("stats.csv");
    let saved = std::fs::read(&stats).unwrap();
    std::fs::remove_file(&stats).unwrap();
    resume_refused(&b, "stats.csv is missing");
    // a link in its place, even to a file holding the same rows: resume would append through it
    let elsewhere = tmp.path().join("elsewhere.csv");
    std::fs::write(&elsewhere, &saved).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &stats).unwrap();
    resume_refused(&b, "stats.csv is not a regular file");
    assert_eq!(
        std::fs::read(&elsewhere).unwrap(),
        saved,
        "the link's target is untouched"
    );
    std::fs::remove_file(&stats).unwrap();
    // rows edited before the checkpoint
    let edited = String::from_utf8(saved.clone())
        .unwrap()
        .replacen(",300,", ",301,", 1);
    assert_ne!(edited.as_bytes(), saved.as_slice());
    std::fs::write(&stats, edited).unwrap();
    resume_refused(&b, "stats.csv changed");
    std::fs::write(&stats, saved).unwrap();
    phaseflow()
        .args(["resume", "--quiet"])
        .arg(&b)
        .assert()
        .success();
}

/// A custom study interrupted in its second method; `study_args` with --out.
fn study_args(out: &Path) -> Vec<String> {
    let mut a = argv(
        "study --system pendulum --methods euler,verlet --dt 0.01 --steps 400 \
         --ensemble circle --center 0,0.8 --radius 0.3 --points 200 \
         --checkpoint-every 100 --backend cpu --quiet --out",
    );
    a.push(out.display().to_string());
    a
}

/// A study whose study.toml was edited after the interruption is refused (before: a
/// "complete" study mixing 400- and 401-step methods); a damaged or unreadable method
/// checkpoint is refused as a run's is. Afterwards the study resumes.
#[test]
fn edited_study_records_and_damaged_method_checkpoints_are_refused() {
    let tmp = TempDir::new().unwrap();
    let (full, part) = (tmp.path().join("full"), tmp.path().join("part"));
    phaseflow().args(study_args(&full)).assert().success();
    // euler writes 3 checkpoints (100, 200, 300): stop after verlet's first
    phaseflow()
        .env("PHASEFLOW_STOP_AFTER_CHECKPOINTS", "4")
        .args(study_args(&part))
        .assert()
        .code(130);
    let record = part.join("study.toml");
    let text = std::fs::read_to_string(&record).unwrap();
    assert!(text.contains("steps = 400"), "{text}");
    with_contents(
        &record,
        text.replace("steps = 400", "steps = 401").as_bytes(),
        || resume_refused(&part, "study.toml changed"),
    );
    let ckpt_path = part.join("verlet/checkpoint/run.ckpt");
    let ckpt = std::fs::read(&ckpt_path).unwrap();
    with_contents(&ckpt_path, &flipped(&ckpt, ckpt.len() / 2), || {
        resume_refused(&part, "damaged")
    });
    with_symlink(&ckpt_path, Path::new("/dev/zero"), || {
        resume_refused(&part, "not a regular file")
    });
    phaseflow()
        .args(["resume", "--quiet"])
        .arg(&part)
        .assert()
        .success();
    for name in ["summary.csv", "euler/stats.csv", "verlet/stats.csv"] {
        assert_eq!(
            std::fs::read(full.join(name)).unwrap(),
            std::fs::read(part.join(name)).unwrap(),
            "{name}"
        );
    }
}

/// The run `sharded` makes whole and in two shards (8192 points: two shards of 4096, so a
/// shard's states have as many rows as the other's); callers add --shard and --out.
fn sharded_run() -> Vec<String> {
    let tail = "--snapshot-every 50 --save-states --backend cpu --quiet";
    [argv("run"), pendulum_disk(8192, 0.05, 200), argv(tail)].concat()
}

fn sharded(tmp: &Path) -> (PathBuf, [PathBuf; 2]) {
    let whole = tmp.join("whole");
    phaseflow()
        .args(sharded_run())
        .arg("--out")
        .arg(&whole)
        .assert()
        .success();
    let shards = [0, 1].map(|k| {
        let dir = tmp.join(format!("shard-{k}"));
        phaseflow()
            .args(sharded_run())
            .args(["--shard", &format!("{k}/2"), "--out"])
            .arg(&dir)
            .assert()
            .success();
        dir
    });
    (whole, shards)
}

/// `merge` refuses an --out that is one of its shards, lies inside one, or holds them, before
/// deleting anything (before: `--out shard-0 --force` emptied shard-0, then failed reading it).
#[test]
fn merge_refuses_an_out_folder_that_overlaps_a_shard() {
    let tmp = TempDir::new().unwrap();
    let (_, [s0, s1]) = sharded(tmp.path());
    let merge = |out: &Path| -> Vec<std::ffi::OsString> {
        vec![
            "merge".into(),
            s0.clone().into(),
            s1.clone().into(),
            "--out".into(),
            out.into(),
            "--force".into(),
        ]
    };
    for (out, needle) in [
        (s0.clone(), "is the shard folder"),
        (s1.join("merged"), "inside the shard folder"),
        (tmp.path().to_path_buf(), "holds the shard folder"),
        (s0.join("..").join("shard-1"), "is the shard folder"),
    ] {
        let args = merge(&out);
        let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
        refused(&args, tmp.path(), needle);
    }
}

/// `merge` checks each part file's checksum, step and shard, and each shard's saved states
/// against the checksum its parts record (before: a changed byte, `step_50.bin` copied over
/// `step_100.bin`, or the other shard's parts or states copied in, all merged with exit 0 into
/// wrong statistics or states). Nothing is written to --out; afterwards the merge succeeds.
#[test]
fn merge_refuses_damaged_or_swapped_parts_and_states() {
    let tmp = TempDir::new().unwrap();
    let (whole, [s0, s1]) = sharded(tmp.path());
    let merged = tmp.path().join("merged");
    let merge_args: Vec<std::ffi::OsString> = vec![
        "merge".into(),
        s0.clone().into(),
        s1.clone().into(),
        "--out".into(),
        merged.clone().into(),
    ];
    let merge_refused = |needle: &str| {
        let args: Vec<&std::ffi::OsStr> = merge_args.iter().map(|a| a.as_os_str()).collect();
        refused(&args, tmp.path(), needle);
        assert!(!merged.exists());
    };
    let part = s1.join("parts/step_100.bin");
    let bytes = std::fs::read(&part).unwrap();
    with_contents(&part, &flipped(&bytes, bytes.len() / 2), || {
        merge_refused("step_100.bin")
    });
    with_contents(&part, &flipped(&bytes, bytes.len() - 1), || {
        merge_refused("step_100.bin")
    });
    let other = |p: PathBuf| std::fs::read(p).unwrap();
    with_contents(&part, &other(s1.join("parts/step_50.bin")), || {
        merge_refused("step_100.bin")
    });
    with_contents(&part, &other(s0.join("parts/step_100.bin")), || {
        merge_refused("step_100.bin")
    });
    with_symlink(&part, Path::new("/dev/zero"), || {
        merge_refused("not a regular file")
    });
    let states = s1.join("states/step_100.npy");
    with_contents(&states, &other(s0.join("states/step_100.npy")), || {
        merge_refused("step_100.npy")
    });
    with_contents(&states, &other(s1.join("states/step_50.npy")), || {
        merge_refused("step_100.npy")
    });
    let args: Vec<&std::ffi::OsStr> = merge_args.iter().map(|a| a.as_os_str()).collect();
    phaseflow().args(args).assert().success();
    same_stats_and_states(&whole, &merged, "merged after the refusals");
}

/// A Hénon–Heiles chaos grid of 96 × 96 points (9216: three shards of whole 4096-point
/// blocks) with its indicators saved at steps 0, 100 and 200; callers add --shard and --out.
fn chaos_grid() -> Vec<String> {
    argv(
        "run --system henon-heiles --ensemble grid --grid-axes q2,p2 --energy 0.125 \
         --lo 0,-0.5,0,-0.6 --hi 0,1,0,0.6 --points 9216 --method verlet --dt 0.05 \
         --steps 200 --snapshot-every 100 --save-states --chaos megno,lyapunov --backend cpu \
         --quiet",
    )
}

/// `merge` checks every file it reads against its shard's manifest: a chaos file with a
/// changed byte, or another step's or shard's copied over it, is refused naming it, nothing
/// written (before: exit 0, its 8192 values merged and drawn). Restored, the merge holds
/// the unsharded run's files, its map.png/svg too (before: none).
#[test]
fn merge_checks_the_chaos_files_and_draws_the_whole_map() {
    let tmp = TempDir::new().unwrap();
    let whole = tmp.path().join("whole");
    let run = |out: &Path, extra: &[&str]| {
        phaseflow()
            .args(chaos_grid())
            .args(extra)
            .arg("--out")
            .arg(out)
            .assert()
            .success();
    };
    run(&whole, &[]);
    let shards = [0, 1, 2].map(|k| {
        let dir = tmp.path().join(format!("shard-{k}"));
        run(&dir, &["--shard", &format!("{k}/3")]);
        dir
    });
    let merged = tmp.path().join("merged");
    let mut args: Vec<&std::ffi::OsStr> = vec!["merge".as_ref()];
    args.extend(shards.iter().map(|s| s.as_os_str()));
    args.extend(["--out".as_ref(), merged.as_os_str()]);
    let chaos = shards[1].join("chaos/step_100.npy");
    let bytes = std::fs::read(&chaos).unwrap();
    let other = |p: PathBuf| std::fs::read(p).unwrap();
    for changed in [
        flipped(&bytes, bytes.len() / 2),
        flipped(&bytes, bytes.len() - 1),
        other(shards[1].join("chaos/step_200.npy")),
        other(shards[2].join("chaos/step_100.npy")),
    ] {
        with_contents(&chaos, &changed, || {
            refused(&args, tmp.path(), "shard-1/chaos/step_100.npy");
            assert!(!merged.exists());
        });
    }
    phaseflow().args(&args).assert().success();
    same_stats_and_states(&whole, &merged, "merged chaos grid");
    for name in [
        "chaos/step_0.npy",
        "chaos/step_100.npy",
        "chaos/step_200.npy",
        "map.png",
        "map.svg",
    ] {
        let read = |d: &Path| std::fs::read(d.join(name)).unwrap_or_default();
        assert!(!read(&whole).is_empty(), "the whole run wrote no {name}");
        assert!(read(&whole) == read(&merged), "merged {name} differs");
    }
}
