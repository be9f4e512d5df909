//! The chaos indicators' deviation vector (`--deviation`, `--deviation-metric`): a seeded
//! random direction per point by default, the same in shards, resumed runs and a rerun from
//! config.toml; the outer solar system's MEGNO near 2 on its regular orbit once momenta are
//! measured as velocities; the old fixed vector on request; refusals.

use std::path::Path;

use tempfile::TempDir;

use crate::chaos::{each_refused, rows, shards_merge_to_the_whole_run};
use crate::common::{argv, phaseflow, read, run_quiet as run, stats};

/// The outer solar system from GNI's 1994 state, 4 copies, yoshida4 at h = 10 days to
/// t = 10⁵ days (f64), with `extra` flags.
fn solar(extra: &str) -> String {
    format!(
        "run --system outer-solar-system --method yoshida4 --precision f64 --ensemble point \
         --points 4 --dt 10 --steps 10000 --snapshot-every 5000 --chaos megno,lyapunov {extra}"
    )
}

/// The planets' orbits are regular: with the default start and metric every copy's ⟨Y⟩ at
/// t = 10⁵ days is near 2 (measured 2.15 to 2.69 over three seeds and four copies) and λ is the
/// ln t / t of a regular orbit (1.2e-4/day). The fixed vector (1, …, 1)/√(2d) in (q, p),
/// which sets Pluto's velocity to ~2e7 AU/day, gives the old 1.34 and 2.8e-4/day.
#[test]
fn outer_solar_system_megno_is_near_two_on_its_regular_orbit() {
    let tmp = TempDir::new().unwrap();
    for seed in [0, 1] {
        let dir = tmp.path().join(format!("seed{seed}"));
        run(&solar(&format!("--seed {seed}")), &dir);
        for r in rows(&dir, 10000, 2) {
            println!("seed {seed}: <Y> {} lambda {}", r[0], r[1]);
            assert!((1.8..2.8).contains(&r[0]), "seed {seed}: {r:?}");
            assert!(r[1] > 0.0 && r[1] < 1.6e-4, "seed {seed}: {r:?}");
        }
        let last = stats(&dir).pop().unwrap();
        assert_eq!(last["chaotic_fraction"], 0.0);
    }
    let old = tmp.path().join("old");
    run(&solar("--deviation ones --deviation-metric unit"), &old);
    let r = rows(&old, 10000, 2);
    println!("fixed vector: {:?}", r[0]);
    assert!(r.iter().all(|x| x == &r[0]), "one vector for every copy");
    assert!(
        (r[0][0] - 1.3436).abs() < 1e-3 && (r[0][1] - 2.766e-4).abs() < 1e-6,
        "{r:?}"
    );
}

/// Copies of one state get different deviation vectors, hence different indicators; the run
/// is reproducible, from its flags and from its config.toml, which records the start and
/// the metric; another seed gives other vectors.
#[test]
fn the_default_start_is_seeded_per_point_and_recorded() {
    let tmp = TempDir::new().unwrap();
    let args = "run --system henon-heiles --method yoshida4 --precision f64 --ensemble point \
                --center 0,0.1,0.39,0.1 --points 3 --dt 0.05 --steps 400 --chaos lyapunov";
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    run(args, &a);
    run(args, &b);
    let ra = rows(&a, 400, 1);
    println!("lambda per copy: {ra:?}");
    assert!(ra[0] != ra[1] && ra[1] != ra[2] && ra[0] != ra[2], "{ra:?}");
    let npy = |d: &Path| std::fs::read(d.join("chaos/step_400.npy")).unwrap();
    assert_eq!(npy(&a), npy(&b));
    let config = read(&a.join("config.toml"));
    assert!(
        config.contains("deviation = \"random\"")
            && config.contains("deviation_metric = \"natural\""),
        "{config}"
    );
    let again = tmp.path().join("again");
    phaseflow()
        .args(["run", "--quiet", "--config"])
        .arg(a.join("config.toml"))
        .arg("--out")
        .arg(&again)
        .assert()
        .success();
    assert_eq!(npy(&a), npy(&again));
    let seeded = tmp.path().join("seeded");
    run(&format!("{args} --seed 5"), &seeded);
    assert_ne!(npy(&a), npy(&seeded));
    let given = tmp.path().join("given");
    run(
        &format!("{args} --deviation 1,0,0,0 --deviation-metric 1,1,2,2"),
        &given,
    );
    let rg = rows(&given, 400, 1);
    assert!(rg.iter().all(|x| x == &rg[0]), "{rg:?}");
    let config = read(&given.join("config.toml"));
    assert!(
        config.contains("deviation = \"1,0,0,0\"")
            && config.contains("deviation_metric = \"1,1,2,2\""),
        "{config}"
    );
}

/// Shards draw each point's vector at its index in the whole ensemble: two shards of 8200
/// copies of one state merge to the whole run's indicators bit for bit (and the copies'
/// indicators differ, so the shards' starts are not the same vectors).
#[test]
fn shards_give_each_point_the_whole_runs_start() {
    let tmp = TempDir::new().unwrap();
    let whole = shards_merge_to_the_whole_run(
        tmp.path(),
        "run --system pendulum --method verlet --ensemble point --center 1,0.5 --points 8200 \
         --dt 0.1 --steps 40 --snapshot-every 40 --chaos megno,lyapunov",
        &["stats.csv", "chaos/step_40.npy"],
    );
    let r = rows(&whole, 40, 2);
    assert_ne!(r[0], r[4096]);
    let merged = tmp.path().join("merged");
    assert!(read(&merged.join("config.toml")).contains("deviation = \"random\""));
}

/// A resumed run measures the deviation vector in the metric its config.toml records (here
/// `unit`, not the outer solar system's default): the same files as an uninterrupted run.
#[test]
fn resume_keeps_the_recorded_metric() {
    crate::resume::interrupted_equals_uninterrupted(
        &argv(
            "run --system outer-solar-system --method verlet --ensemble disk --points 8 \
             --radius 1e-3 --dt 5 --steps 400 --snapshot-every 100 --checkpoint-every 150 \
             --chaos megno,lyapunov --deviation-metric unit --save-states",
        ),
        2,
    );
}

/// A chaos run whose config.toml predates the deviation vector's options (no `deviation`
/// keys) continues with the fixed vector in the unit metric it started with, not today's
/// defaults: resumed from that config.toml it writes what `--deviation ones
/// --deviation-metric unit` writes.
#[test]
fn an_older_runs_config_keeps_its_fixed_vector() {
    let tmp = TempDir::new().unwrap();
    let args = "run --system henon-heiles --method yoshida4 --precision f64 --ensemble point \
                --center 0,0.1,0.39,0.1 --points 3 --dt 0.05 --steps 400 --chaos lyapunov \
                --deviation ones --deviation-metric unit";
    let fixed = tmp.path().join("fixed");
    run(args, &fixed);
    let older: String = read(&fixed.join("config.toml"))
        .lines()
        .filter(|l| !l.starts_with("deviation"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(!older.contains("deviation"), "{older}");
    let old = tmp.path().join("old");
    std::fs::create_dir(&old).unwrap();
    std::fs::write(old.join("config.toml"), older).unwrap();
    phaseflow()
        .args(["resume", "--quiet"])
        .arg(&old)
        .assert()
        .success();
    let npy = |d: &Path| std::fs::read(d.join("chaos/step_400.npy")).unwrap();
    assert_eq!(npy(&fixed), npy(&old));
}

/// Bad starts and metrics, and either without --chaos, exit 2 naming the flag and the fix.
#[test]
fn bad_deviation_input_is_refused() {
    let base = "run --system henon-heiles --method verlet --ensemble disk --points 4 --dt 0.01 \
                --steps 10";
    let cases = [
        (
            "--chaos megno --deviation 1,2,3",
            "--deviation 1,2,3: 3 numbers given",
        ),
        ("--chaos megno --deviation 0,0,0,0", "the direction is zero"),
        (
            "--chaos megno --deviation random,1",
            "expected random, ones or 2d = 4 numbers",
        ),
        (
            "--chaos megno --deviation-metric 1,1,0,1",
            "every scale must be positive",
        ),
        (
            "--chaos megno --deviation-metric 1,1,nan,1",
            "not a finite number",
        ),
        (
            "--chaos megno --deviation-metric velocity",
            "expected natural, unit or 2d = 4",
        ),
        (
            "--deviation ones",
            "--deviation sets the chaos indicators' deviation vector: add --chaos",
        ),
        ("--deviation-metric unit", "--deviation-metric sets"),
    ];
    let cases: Vec<(String, &str)> = cases
        .iter()
        .map(|(extra, want)| (format!("{base} {extra}"), *want))
        .collect();
    each_refused(TempDir::new().unwrap().path(), &cases);
}

/// The same for a sweep: a sweep.toml written before the deviation options (no `deviation`
/// keys, sealed again) resumes with the fixed vector in the unit metric, its parts' indicators
/// equal to the sweep run with `--deviation ones --deviation-metric unit`.
#[test]
fn an_older_sweeps_record_keeps_its_fixed_vector() {
    let tmp = TempDir::new().unwrap();
    let args = "run --system elastic-pendulum --method yoshida4 --precision f64 --ensemble point \
                --points 3 --dt 0.05 --steps 200 --chaos lyapunov \
                --sweep g_hat=0.1:0.3:2 --deviation ones --deviation-metric unit";
    let fixed = tmp.path().join("fixed");
    run(args, &fixed);
    let record = read(&fixed.join("sweep.toml"));
    let (first, body) = record.split_once('\n').unwrap();
    let body: String = body
        .lines()
        .filter(|l| !l.starts_with("deviation"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(!body.contains("deviation"), "{body}");
    let line = &first[..first.len() - 8];
    let crc = phaseflow::checksum::crc32(body.as_bytes());
    let old = tmp.path().join("old");
    std::fs::create_dir(&old).unwrap();
    std::fs::write(old.join("sweep.toml"), format!("{line}{crc:08x}\n{body}")).unwrap();
    phaseflow()
        .args(["resume", "--quiet"])
        .arg(&old)
        .assert()
        .success();
    for part in ["part_0", "part_1"] {
        let npy = |d: &Path| std::fs::read(d.join(part).join("chaos/step_200.npy")).unwrap();
        assert_eq!(npy(&fixed), npy(&old), "{part}");
    }
}
