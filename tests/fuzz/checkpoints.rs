//! Bounded fuzzing of the files `resume` and `merge` read back whole: an interrupted run's
//! checkpoint, a sharded run's parts and its chaos indicators, mutated (bytes flipped, cut,
//! inserted, runs duplicated), truncated, swapped with another step's or another run's. Every
//! damaged file must be answered with exit 2 and a message naming it, never exit 0 with a wrong
//! result and never a crash, and must leave the folders as they were; the untouched files still
//! resume and merge to the uninterrupted, unsharded run's bytes. And the folder of a run
//! paused while it writes: `resume`, `run` and `study` into it are refused, changing nothing.

use std::path::Path;
use std::time::Duration;

use assert_cmd::Command;
use tempfile::TempDir;

use crate::common::{argv, files, manifest_but_config, pendulum_disk, phaseflow, Reaped};
use crate::{mutate, Rng};

/// A run of `points` points small enough to resume in a few milliseconds, with saved states;
/// callers add --out.
fn run_args(points: usize) -> Vec<String> {
    let tail = "--snapshot-every 20 --checkpoint-every 10 --save-states --backend cpu --quiet";
    [argv("run"), pendulum_disk(points, 0.02, 60), argv(tail)].concat()
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
    for name in ["stats.csv", "states/step_60.npy"] {
        let read = |d: &Path| std::fs::read(d.join(name)).unwrap();
        assert!(read(&full) == read(&part), "resumed {name} differs");
    }
    assert_eq!(manifest_but_config(&full), manifest_but_config(&part));

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
    let damage = Damage {
        file: "parts/step_20.bin",
        mutations: 60,
        other_step: "parts/step_40.bin",
        other_run: &other,
    };
    merges_refusing(&mut rng, t, [&s0, &s1], damage);
    let merged = t.join("merged");
    for name in ["stats.csv", "states/step_20.npy", "states/step_60.npy"] {
        let read = |d: &Path| std::fs::read(d.join(name)).unwrap();
        assert!(read(&whole) == read(&merged), "merged {name} differs");
    }
}

/// Which file of shard 1 `merges_refusing` damages (relative to the shard's folder): mutated
/// `mutations` times, cut, and swapped with shard 1's `other_step`, shard 0's own and
/// `other_run`'s.
struct Damage<'a> {
    file: &'a str,
    mutations: usize,
    other_step: &'a str,
    other_run: &'a Path,
}

/// `merge` of `shards` into `t/merged` refused for every damage of shard 1's file (exit 2,
/// naming it, nothing changed under `t`, no --out written), then, the file restored,
/// merged.
fn merges_refusing(rng: &mut Rng, t: &Path, shards: [&Path; 2], damage: Damage) {
    let target = shards[1].join(damage.file);
    let base = std::fs::read(&target).unwrap();
    let list = cases(
        rng,
        &base,
        damage.mutations,
        &[
            ("another step's", &shards[1].join(damage.other_step)),
            ("shard 0's", &shards[0].join(damage.file)),
            ("another run's", &damage.other_run.join(damage.file)),
        ],
    );
    let merged = t.join("merged");
    let merge = || {
        let mut c = phaseflow();
        c.arg("merge").args(shards).arg("--out").arg(&merged);
        c
    };
    each_refused(&list, &target, t, &merge);
    assert!(!merged.exists(), "a refused merge wrote --out");
    merge().assert().success();
}

/// `run` of a pendulum chaos grid of 91 × 91 points (two shards: 4096 and 4185 points) with
/// its indicators saved at steps 0, 20 and 40 and its map; callers add --out.
fn chaos_grid_args(dt: &str) -> Vec<String> {
    argv(&format!(
        "run --system pendulum --method verlet --ensemble grid --lo -2,-1 --hi 2,1 --points 8281 \
         --dt {dt} --steps 40 --snapshot-every 20 --save-states --chaos megno,lyapunov \
         --backend cpu --quiet"
    ))
}

#[test]
fn damaged_chaos_files_are_refused_never_merged() {
    let tmp = TempDir::new().unwrap();
    let t = tmp.path();
    let mut rng = Rng(0x0c4a_05f1_1e5e_a1ed);
    let run = |name: &str, dt: &str, extra: &[&str]| {
        let dir = t.join(name);
        phaseflow()
            .args(chaos_grid_args(dt))
            .args(extra)
            .arg("--out")
            .arg(&dir)
            .assert()
            .success();
        dir
    };
    let whole = run("whole", "0.05", &[]);
    let s0 = run("shard-0", "0.05", &["--shard", "0/2"]);
    let s1 = run("shard-1", "0.05", &["--shard", "1/2"]);
    let other = run("other", "0.04", &["--shard", "1/2"]);
    let damage = Damage {
        file: "chaos/step_20.npy",
        mutations: 40,
        other_step: "chaos/step_40.npy",
        other_run: &other,
    };
    merges_refusing(&mut rng, t, [&s0, &s1], damage);
    let merged = t.join("merged");
    for name in [
        "stats.csv",
        "chaos/step_20.npy",
        "chaos/step_40.npy",
        "map.svg",
    ] {
        let read = |d: &Path| std::fs::read(d.join(name)).unwrap();
        assert!(read(&whole) == read(&merged), "merged {name} differs");
    }
}

/// A run of 20 000 steps with a row every 100 and a checkpoint every `every`; callers add
/// --out.
fn live_args(every: u64) -> Vec<String> {
    let tail = format!("--snapshot-every 100 --checkpoint-every {every} --backend cpu --quiet");
    [argv("run"), pendulum_disk(20000, 0.01, 20000), argv(&tail)].concat()
}

/// `live_args(every)` into `out`, started and paused (SIGSTOP) once stats.csv holds `past`
/// rows after those of its first checkpoint, so that cutting it back would change it.
fn paused_past_checkpoint(every: u64, past: usize, out: &Path) -> Reaped {
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_phaseflow"))
        .args(live_args(every))
        .arg("--out")
        .arg(out)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let child = Reaped::new(child);
    // The header, the rows of steps 0 to every - 100, then `past` more.
    let lines = 1 + (every / 100) as usize + past;
    let t0 = std::time::Instant::now();
    let ready = || {
        out.join("checkpoint/run.ckpt").is_file()
            && std::fs::read_to_string(out.join("stats.csv"))
                .is_ok_and(|t| t.lines().count() >= lines)
    };
    while !ready() {
        assert!(t0.elapsed().as_secs() < 120, "no rows past the checkpoint");
        std::thread::sleep(Duration::from_millis(2));
    }
    child.signal(libc::SIGSTOP);
    child
}

/// A run paused (SIGSTOP) after a checkpoint and rows past it, both picked by the seed, holds
/// its folder's lock: `resume`, and `run` and `study` into the folder, in an order the seed
/// picks, are refused with exit 2 naming the run's pid and change no byte of it (before,
/// `resume` cut stats.csv back to the checkpoint first). Continued (SIGCONT), the run finishes
/// as if alone; killed (SIGKILL), its folder is resumed to the same files.
#[test]
fn commands_under_a_live_lock_change_nothing() {
    let tmp = TempDir::new().unwrap();
    let t = tmp.path();
    let mut rng = Rng(0x10c4_ed0f_f1ce_5eed);
    let study = crate::common::oscillator_study("verlet");
    for round in 0..3 {
        let every = [500, 1000, 2000][rng.below(3)];
        let past = 2 + rng.below(4);
        let full = t.join(format!("full-{every}"));
        if !full.exists() {
            let mut c = phaseflow();
            c.args(live_args(every)).arg("--out").arg(&full);
            c.assert().success();
        }
        let part = t.join(format!("part-{round}"));
        let child = paused_past_checkpoint(every, past, &part);
        let before = files(&part);
        let commands: [Vec<String>; 4] = [
            argv("resume"),
            live_args(every),
            [run_args(20), argv("--force")].concat(),
            [study.clone(), argv("--force")].concat(),
        ];
        for _ in 0..6 {
            let args = &commands[rng.below(commands.len())];
            let mut c = phaseflow();
            c.args(args);
            if args[0] != "resume" {
                c.arg("--out");
            }
            let out = c
                .arg(&part)
                .timeout(Duration::from_secs(30))
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            let what = format!("{args:?}, checkpoints every {every}, {past} rows past");
            assert_eq!(out.status.code(), Some(2), "{what}: {stderr}");
            let holder = format!("another phaseflow run (pid {}", child.id());
            assert!(stderr.contains(&holder), "{what}: {stderr}");
            assert!(files(&part) == before, "{what}: files changed");
        }
        if rng.below(2) == 0 {
            child.signal(libc::SIGCONT);
            assert!(child.wait().status.success());
        } else {
            child.signal(libc::SIGKILL);
            child.wait();
            phaseflow().arg("resume").arg(&part).assert().success();
        }
        let read = |d: &Path| std::fs::read(d.join("stats.csv")).unwrap();
        assert!(
            read(&full) == read(&part),
            "stats.csv differs, every {every}"
        );
        assert_eq!(manifest_but_config(&full), manifest_but_config(&part));
    }
}
