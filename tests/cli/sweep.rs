//! `run --sweep NAME=LO:HI:N`: every part's rows equal the separate run with
//! `--param NAME=value`, bit for bit (CPU engine, and the GPU engine on lavapipe at f32 and
//! f64); two sweeps make a grid, the first parameter slowest; the `sweep` key of `--config`;
//! an interrupted sweep resumed equals an uninterrupted one; bad input exits 2 naming the fix,
//! with nothing written.

use std::path::Path;

use predicates::prelude::*;
use tempfile::TempDir;

use crate::common::{argv, files, phaseflow, read};

/// A small elastic pendulum run (a disk of 300 points, Verlet, 200 steps of 0.05, snapshots
/// every 50) on `backend`; callers add the parameter flags.
fn elastic(backend: &str) -> Vec<String> {
    argv(&format!(
        "run --system elastic-pendulum --method verlet --ensemble disk --center 1.1,1.4,0,0 \
         --radius 0.05 --points 300 --dt 0.05 --steps 200 --snapshot-every 50 \
         --backend {backend} --quiet"
    ))
}

fn run_into(args: &[String], extra: &[String], out: &Path) {
    phaseflow()
        .args(args)
        .args(extra)
        .arg("--out")
        .arg(out)
        .assert()
        .success();
}

/// The rows of the sweep's stats.csv for `index`, without the sweep_index and value cells
/// (`values` of them), and checked to carry those values.
fn part_rows(sweep: &Path, index: usize, values: &[&str]) -> Vec<String> {
    let text = read(&sweep.join("stats.csv"));
    let prefix = format!("{index},{},", values.join(","));
    let rows: Vec<String> = text
        .lines()
        .skip(1)
        .filter(|l| l.split(',').next() == Some(&index.to_string()))
        .map(|l| {
            assert!(l.starts_with(&prefix), "{l}: expected {prefix}");
            l[prefix.len()..].to_string()
        })
        .collect();
    assert!(!rows.is_empty(), "no rows of part {index}");
    rows
}

/// Each value of `--sweep g_hat=0.1:0.3:3` against the separate run with `--param g_hat=v`:
/// the part folder's stats.csv is byte for byte the separate run's, and so are the sweep's
/// stats.csv rows after their sweep cells.
fn parts_equal_separate_runs(run: &[String]) {
    let tmp = TempDir::new().unwrap();
    let sweep = tmp.path().join("sweep");
    run_into(run, &argv("--sweep g_hat=0.1:0.3:3"), &sweep);
    let header = read(&sweep.join("stats.csv"));
    assert!(header.starts_with("sweep_index,g_hat,step,t,"), "{header}");
    for (i, v) in ["0.1", "0.2", "0.3"].iter().enumerate() {
        let alone = tmp.path().join(format!("alone_{i}"));
        run_into(run, &argv(&format!("--param g_hat={v}")), &alone);
        let want = read(&alone.join("stats.csv"));
        assert_eq!(
            want,
            read(&sweep.join(format!("part_{i}/stats.csv"))),
            "part {i} (g_hat={v}) differs from its separate run"
        );
        let rows: Vec<String> = want.lines().skip(1).map(String::from).collect();
        assert_eq!(part_rows(&sweep, i, &[v]), rows, "g_hat={v}");
    }
    let lines: Vec<String> = read(&sweep.join("sweep.csv"))
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(lines.len(), 4, "{lines:?}");
    assert!(lines[0].starts_with("sweep_index,g_hat,dir,"));
    assert!(lines[2].starts_with("1,0.2,part_1,"));
    for f in ["sweep.png", "sweep.svg", "manifest.toml", "sweep.toml"] {
        assert!(sweep.join(f).is_file(), "{f} missing");
    }
}

#[test]
fn sweep_parts_equal_separate_runs_on_the_cpu() {
    parts_equal_separate_runs(&elastic("cpu"));
    let f64 = [elastic("cpu"), argv("--precision f64 --tangent")].concat();
    parts_equal_separate_runs(&f64);
}

#[test]
fn sweep_parts_equal_separate_runs_on_the_gpu() {
    parts_equal_separate_runs(&elastic("gpu"));
    // f64: the energy statistics reduced on the device
    parts_equal_separate_runs(&[elastic("gpu"), argv("--precision f64")].concat());
}

/// `--chaos megno` over a sweep: sweep.csv carries each part's chaotic fraction and mean ⟨Y⟩
/// at the last snapshot (its own stats.csv's last row), stdout prints them per part, and the
/// fraction is drawn against the parameter in sweep_chaos.png.
#[test]
fn a_chaos_sweep_carries_the_chaotic_fraction_per_part() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("sweep");
    let run = [
        elastic("cpu"),
        argv("--chaos megno --sweep g_hat=0.1:0.3:3"),
    ]
    .concat();
    let run: Vec<String> = run.into_iter().filter(|a| a != "--quiet").collect();
    let printed = phaseflow()
        .args(&run)
        .arg("--out")
        .arg(&out)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let printed = String::from_utf8(printed).unwrap();
    let text = read(&out.join("sweep.csv"));
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(
        header[header.len() - 2..],
        ["final_chaotic_fraction", "final_megno_mean"]
    );
    for (i, line) in lines.enumerate() {
        let cells: Vec<f64> = line.split(',').skip(3).map(crate::common::num).collect();
        let last = crate::common::stats(&out.join(format!("part_{i}")))
            .pop()
            .unwrap();
        let (fraction, megno) = (cells[cells.len() - 2], cells[cells.len() - 1]);
        assert_eq!(fraction, last["chaotic_fraction"], "part {i}");
        assert_eq!(megno, last["megno_mean"], "part {i}");
        assert!(
            megno.is_finite() && (0.0..=1.0).contains(&fraction),
            "{line}"
        );
        let said = format!("chaotic_fraction {fraction:.4}  megno_mean {megno:.6e}");
        assert!(
            printed
                .lines()
                .any(|l| l.starts_with(&format!("part {i} ")) && l.contains(&said)),
            "part {i}: {said} not in\n{printed}"
        );
    }
    for f in ["sweep_chaos.png", "sweep_chaos.svg"] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    // The chaos figure is the sweep's own: --force replaces the sweep with it.
    run_into(
        &elastic("cpu"),
        &argv("--force --sweep g_hat=0.1:0.2:2"),
        &out,
    );
    assert!(!out.join("sweep_chaos.png").exists());
    // Without --chaos: no chaos columns and no chaos figure.
    let plain = tmp.path().join("plain");
    run_into(&elastic("cpu"), &argv("--sweep g_hat=0.1:0.3:3"), &plain);
    assert!(!read(&plain.join("sweep.csv")).contains("megno"));
    assert!(!plain.join("sweep_chaos.png").exists());
}

#[test]
fn two_sweeps_make_a_grid_first_parameter_slowest() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("grid");
    let run = argv(
        "run --system pendulum --method verlet --ensemble disk --center 0,0.5 --radius 0.2 \
         --points 100 --dt 0.1 --steps 50 --backend cpu --quiet --param m=3",
    );
    run_into(&run, &argv("--sweep g=1:2:2 --sweep l=0.5:1.5:3"), &out);
    let sweep: Vec<String> = read(&out.join("sweep.csv"))
        .lines()
        .map(|l| l.split(',').take(4).collect::<Vec<_>>().join(","))
        .collect();
    assert_eq!(
        sweep,
        [
            "sweep_index,g,l,dir",
            "0,1,0.5,part_0",
            "1,1,1,part_1",
            "2,1,1.5,part_2",
            "3,2,0.5,part_3",
            "4,2,1,part_4",
            "5,2,1.5,part_5",
        ]
    );
    // part 4 is g = 2, l = 1 with the --param kept
    let alone = tmp.path().join("alone");
    run_into(&run, &argv("--param g=2 --param l=1"), &alone);
    let want: Vec<String> = read(&alone.join("stats.csv"))
        .lines()
        .skip(1)
        .map(String::from)
        .collect();
    assert_eq!(part_rows(&out, 4, &["2", "1"]), want);
    assert!(read(&out.join("stats.csv")).starts_with("sweep_index,g,l,step,"));
}

#[test]
fn formula_sweep_equals_its_param_runs_and_the_config_key_equals_the_flag() {
    let tmp = TempDir::new().unwrap();
    let run = [
        argv("run --hamiltonian"),
        vec!["p^2/2 + a*q^4".into()],
        argv(
            "--method verlet --ensemble disk --center 1,0 --radius 0.1 --points 64 --dt 0.05 \
             --steps 40 --backend cpu --quiet",
        ),
    ]
    .concat();
    let flag = tmp.path().join("flag");
    run_into(&run, &argv("--sweep a=0.5:1:2"), &flag);
    let alone = tmp.path().join("alone");
    run_into(&run, &argv("--param a=1"), &alone);
    assert_eq!(
        read(&alone.join("stats.csv")),
        read(&flag.join("part_1/stats.csv"))
    );
    let config = tmp.path().join("sweep.toml");
    std::fs::write(&config, "sweep = [\"a=0.5:1:2\"]\n").unwrap();
    let file = tmp.path().join("file");
    run_into(
        &run,
        &[String::from("--config"), config.display().to_string()],
        &file,
    );
    assert_eq!(read(&flag.join("stats.csv")), read(&file.join("stats.csv")));
}

#[test]
fn an_interrupted_sweep_resumed_equals_an_uninterrupted_one() {
    let tmp = TempDir::new().unwrap();
    let (full, part) = (tmp.path().join("full"), tmp.path().join("part"));
    let run = [
        elastic("cpu"),
        argv("--checkpoint-every 70 --sweep g_hat=0.1:0.3:3"),
    ]
    .concat();
    run_into(&run, &[], &full);
    // 2 checkpoints per part (steps 70 and 140): the 4th is in part 1
    phaseflow()
        .env("PHASEFLOW_STOP_AFTER_CHECKPOINTS", "4")
        .args(&run)
        .arg("--out")
        .arg(&part)
        .assert()
        .code(130)
        .stderr(predicate::str::contains(format!(
            "phaseflow resume {}",
            part.display()
        )));
    assert!(part.join("part_0/manifest.toml").is_file());
    assert!(part.join("part_1/checkpoint/run.ckpt").is_file());
    assert!(!part.join("manifest.toml").exists());
    // a second `run` into it is refused, naming resume
    phaseflow()
        .args(&run)
        .arg("--out")
        .arg(&part)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("phaseflow resume"));
    resumes_as_uninterrupted(&full, &part);
    phaseflow()
        .arg("resume")
        .arg(&part)
        .assert()
        .success()
        .stdout(predicate::str::contains("the sweep is complete"));
}

/// `resume` of the interrupted sweep `part` succeeds and writes the files of `full`, the
/// uninterrupted one.
fn resumes_as_uninterrupted(full: &Path, part: &Path) {
    phaseflow()
        .args(["resume", "--quiet"])
        .arg(part)
        .assert()
        .success();
    super::resume::same_files(full, part);
}

/// The sweep of `an_interrupted_sweep_resumed_equals_an_uninterrupted_one` with saved states,
/// run whole into `full` and stopped in part 1 into `part` (part 0 finished).
fn full_and_interrupted(full: &Path, part: &Path) -> Vec<String> {
    let run = [
        elastic("cpu"),
        argv("--checkpoint-every 70 --save-states --sweep g_hat=0.1:0.3:3"),
    ]
    .concat();
    run_into(&run, &[], full);
    phaseflow()
        .env("PHASEFLOW_STOP_AFTER_CHECKPOINTS", "4")
        .args(&run)
        .arg("--out")
        .arg(part)
        .assert()
        .code(130);
    assert!(part.join("part_0/manifest.toml").is_file());
    assert!(part.join("part_1/checkpoint/run.ckpt").is_file());
    run
}

/// `resume` checks the files of the parts that finished before against their manifests: a
/// changed digit of part 0's stats.csv, a changed byte of its saved states or its config.toml
/// is refused naming the file, changing nothing (before: exit 0, the sweep's stats.csv
/// carrying the changed value). Restored, the sweep resumes to the uninterrupted one.
#[test]
fn resume_refuses_a_changed_file_of_a_finished_part() {
    let tmp = TempDir::new().unwrap();
    let (full, part) = (tmp.path().join("full"), tmp.path().join("part"));
    full_and_interrupted(&full, &part);
    for name in ["stats.csv", "states/step_100.npy", "config.toml"] {
        let path = part.join("part_0").join(name);
        let good = std::fs::read(&path).unwrap();
        let mut changed = good.clone();
        // The last digit of the file (stats.csv: of the last row's last value).
        let at = changed.iter().rposition(u8::is_ascii_digit).unwrap();
        changed[at] = if changed[at] == b'7' { b'3' } else { b'7' };
        std::fs::write(&path, &changed).unwrap();
        let before = files(&part);
        phaseflow()
            .arg("resume")
            .arg(&part)
            .assert()
            .code(2)
            .stderr(
                predicate::str::contains(format!("part_0/{name}"))
                    .and(predicate::str::contains("changed since the run wrote it")),
            );
        assert!(
            files(&part) == before,
            "{name}: the refused resume changed the sweep"
        );
        std::fs::write(&path, &good).unwrap();
    }
    resumes_as_uninterrupted(&full, &part);
}

/// `resume` removes the temporary files that writes killed midway left (a sweep killed three
/// times left `part_1/states/.step_200000.npy.tmp-30824` behind before), in the sweep's folder
/// and in the part it continues.
#[test]
fn resume_removes_the_temporaries_of_killed_writes() {
    let tmp = TempDir::new().unwrap();
    let (full, part) = (tmp.path().join("full"), tmp.path().join("part"));
    full_and_interrupted(&full, &part);
    let left = [
        ".stats.csv.tmp-4194305",
        "part_1/.stats.csv.tmp-4194306",
        "part_1/states/.step_200.npy.tmp-4194307",
        "part_1/checkpoint/.run.ckpt.tmp-4194308",
    ];
    for name in left {
        std::fs::write(part.join(name), "cut short").unwrap();
    }
    resumes_as_uninterrupted(&full, &part);
    for name in left {
        assert!(!part.join(name).exists(), "{name} left behind");
    }
}

#[test]
fn bad_sweeps_exit_2_naming_the_fix_and_write_nothing() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("out");
    let cases = [
        (
            "--sweep omega=0:1:3",
            "system 'elastic-pendulum' has no parameter 'omega' (its parameters: g_hat)",
        ),
        ("--sweep g_hat=0.1:0.5:0", "N = 0 gives no values"),
        ("--sweep g_hat=0.5:0.1:3", "--sweep g_hat=0.1:0.5:3"),
        ("--sweep g_hat=0.1:0.5:1", "give N ≥ 2"),
        ("--sweep g_hat=0.1:0.5", "expected NAME=LO:HI:N"),
        ("--sweep g_hat=x:0.5:3", "expected NAME=LO:HI:N"),
        ("--sweep g_hat=-0.5:0.5:3", "choose LO and HI inside"),
        (
            "--sweep g_hat=0.1:0.5:3 --sweep g_hat=0.1:0.2:2",
            "give each parameter one --sweep",
        ),
        ("--sweep g_hat=0.1:0.5:3 --shard 0/2", "drop --shard"),
        (
            "--sweep g_hat=0:1:200 --sweep n=0:1:200",
            "give fewer values",
        ),
    ];
    for (flags, says) in cases {
        phaseflow()
            .args(elastic("cpu"))
            .args(argv(flags))
            .arg("--out")
            .arg(&out)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(says));
        assert!(!out.exists(), "{flags}: --out written");
    }
    // only `run` sweeps
    phaseflow()
        .args(argv(
            "validate --system pendulum --method verlet --dt 0.1 --steps 10 --sweep g=1:2:2",
        ))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("taken by `phaseflow run` only"));
}

#[test]
fn force_replaces_a_sweep_with_a_run_and_a_run_with_a_sweep() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("out");
    let run = argv(
        "run --system elastic-pendulum --method verlet --ensemble disk --points 50 --dt 0.05 \
         --steps 20 --backend cpu --quiet",
    );
    let sweep = argv("--sweep g_hat=0.1:0.5:2");
    run_into(&run, &sweep, &out);
    let again = |extra: &[String], says: &str| {
        phaseflow()
            .args(&run)
            .args(extra)
            .arg("--out")
            .arg(&out)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(says));
    };
    again(&[], "already holds a phaseflow parameter sweep");
    run_into(&run, &argv("--force"), &out);
    assert!(!out.join("part_0").exists() && !out.join("sweep.csv").exists());
    again(&sweep, "already holds a phaseflow run");
    run_into(&run, &[sweep.clone(), argv("--force")].concat(), &out);
    assert!(out.join("part_1/manifest.toml").is_file() && !out.join("config.toml").exists());
}

/// On the CPU engine a sweep's parts run as one ensemble (said on stderr), and what they write
/// is what the parts run one after another write (`--checkpoint-every` keeps them in turn):
/// stats.csv and every part's saved states, byte for byte, for parts of 1 000 points (short
/// last blocks) and a method with three forces a step.
#[test]
fn cpu_parts_run_together_as_they_run_in_turn() {
    let tmp = TempDir::new().unwrap();
    let (together, in_turn) = (tmp.path().join("together"), tmp.path().join("turn"));
    let run = argv(
        "run --system pendulum --method yoshida4 --ensemble disk --radius 0.5 --points 1000 \
         --dt 0.05 --steps 300 --snapshot-every 100 --backend cpu --save-states \
         --sweep g=0.5:2:5",
    );
    phaseflow()
        .args(&run)
        .arg("--out")
        .arg(&together)
        .assert()
        .success()
        .stderr(predicate::str::contains("the 5 parts run as one ensemble"));
    phaseflow()
        .args(&run)
        .args(argv("--checkpoint-every 150"))
        .arg("--out")
        .arg(&in_turn)
        .assert()
        .success()
        .stderr(predicate::str::contains("as one ensemble").not());
    assert_eq!(
        read(&together.join("stats.csv")),
        read(&in_turn.join("stats.csv"))
    );
    let states = |dir: &Path| -> Vec<(std::path::PathBuf, Vec<u8>)> {
        files(dir)
            .into_iter()
            .filter(|(p, _)| p.to_string_lossy().contains("states"))
            .collect()
    };
    let (a, b) = (states(&together), states(&in_turn));
    assert_eq!(
        a.len(),
        5 * 4,
        "{:?}",
        a.iter().map(|x| &x.0).collect::<Vec<_>>()
    );
    assert!(a == b, "the parts' saved states differ");
    // The parts' parameters reached them: part 0's last states differ from part 4's.
    assert_ne!(a[3].1, a[19].1);
}
