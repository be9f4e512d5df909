//! Per-point chaos indicators (`--chaos megno,lyapunov`) and grids over two coordinates or on
//! an energy surface: MEGNO → 2 on regular orbits (pendulum librations, Hénon–Heiles tori),
//! ⟨Y⟩ ≈ λt/2 on chaotic ones, the oscillator's λ decaying like 1/t, the chaotic fraction of a
//! Hénon–Heiles section growing with the energy, resume and shards bit for bit, and refusals.

use std::path::{Path, PathBuf};

use tempfile::TempDir;

use crate::common::{argv, phaseflow, read, run_quiet as run, stats};

/// `chaos/step_<k>.npy` of a run: its rows (f64).
pub(crate) fn rows(dir: &Path, step: u64, cols: usize) -> Vec<Vec<f64>> {
    let bytes = std::fs::read(dir.join(format!("chaos/step_{step}.npy"))).unwrap();
    let a = phaseflow::npy::decode_f64(&bytes).unwrap();
    assert_eq!(a.cols, cols);
    a.data.chunks(cols).map(<[f64]>::to_vec).collect()
}

/// A Hénon–Heiles section q1 = 0 at energy `e`, `side`² points over (q2, p2).
fn section(e: f64, side: usize, steps: u64, extra: &str) -> String {
    format!(
        "run --system henon-heiles --method yoshida4 --precision f64 --ensemble grid \
         --grid-axes q2,p2 --energy {e} --lo 0,-0.45,0,-0.45 --hi 0,0.75,0,0.45 --points {} \
         --dt 0.05 --steps {steps} --chaos megno,lyapunov {extra}",
        side * side
    )
}

/// Librations of the pendulum and tori of Hénon–Heiles at E = 1/12: every point's ⟨Y⟩ within
/// 0.1 of 2 at t = 10⁴ (measured 1.93 to 2.00 from the random starts: ⟨Y⟩ ≈ 2 − c ln t / t,
/// with c larger the less of the start lies across the tori); the oscillator's λ decays like
/// 1/t (λ·t stays bounded).
#[test]
fn regular_orbits_have_megno_two() {
    let tmp = TempDir::new().unwrap();
    let pendulum = tmp.path().join("pendulum");
    run(
        "run --system pendulum --method yoshida4 --precision f64 --ensemble grid \
         --lo -0.1,0.8 --hi 0.1,1.6 --points 9 --dt 0.1 --steps 100000 --chaos megno,lyapunov",
        &pendulum,
    );
    let hh = tmp.path().join("hh");
    run(
        "run --system henon-heiles --method yoshida4 --precision f64 --ensemble grid \
         --grid-axes q2,p2 --energy 0.08333333333333333 --lo 0,-0.1,0,0.15 --hi 0,0.1,0,0.3 \
         --points 4 --dt 0.05 --steps 200000 --chaos megno",
        &hh,
    );
    for (dir, step, cols) in [(&pendulum, 100000, 2), (&hh, 200000, 1)] {
        let megno: Vec<f64> = rows(dir, step, cols).iter().map(|r| r[0]).collect();
        println!("{}: <Y> at t = 1e4: {megno:?}", dir.display());
        assert!(megno.iter().all(|y| (y - 2.0).abs() < 0.1), "{megno:?}");
        let last = stats(dir).pop().unwrap();
        assert_eq!(last["chaotic_fraction"], 0.0);
        assert_eq!(last["chaos_undefined"], 0.0);
    }
    let osc = tmp.path().join("osc");
    run(
        "run --system oscillator --method verlet --precision f64 --ensemble point \
         --dt 0.1 --steps 100000 --snapshot-every 10000 --chaos lyapunov",
        &osc,
    );
    let rows = stats(&osc);
    let scaled: Vec<f64> = rows[1..]
        .iter()
        .map(|r| r["lyapunov_max"].abs() * r["t"])
        .collect();
    println!("oscillator: |lambda| t = {scaled:?}");
    assert!(scaled.iter().all(|x| *x < 0.2), "{scaled:?}");
    assert!(
        !rows[1].contains_key("megno_mean"),
        "megno was not asked for"
    );
}

/// A chaotic Hénon–Heiles orbit (E = 1/6): ⟨Y⟩ grows linearly, ⟨Y⟩/t within 10 % of λ/2
/// measured in the same run, and ⟨Y⟩/t at half the time within 20 % of it at the end.
#[test]
fn chaotic_megno_grows_with_half_the_lyapunov_exponent() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("chaotic");
    run(
        "run --system henon-heiles --method yoshida4 --precision f64 --ensemble grid --points 1 \
         --grid-axes q2,p2 --energy 0.16666666666666666 --lo 0,0.29,0,-0.01 --hi 0,0.31,0,0.01 \
         --dt 0.05 --steps 200000 --snapshot-every 100000 --chaos megno,lyapunov",
        &dir,
    );
    let rows = stats(&dir);
    let (half, end) = (&rows[1], &rows[2]);
    let (slope, lambda) = (end["megno_mean"] / end["t"], end["lyapunov_mean"]);
    println!(
        "<Y>/t {slope} (at t/2: {}), lambda/2 {}",
        half["megno_mean"] / half["t"],
        lambda / 2.0
    );
    assert!(lambda > 0.05, "{lambda}");
    assert!((slope / (lambda / 2.0) - 1.0).abs() < 0.1);
    assert!((half["megno_mean"] / half["t"] / slope - 1.0).abs() < 0.2);
    assert_eq!(end["chaotic_fraction"], 1.0);
}

/// The chaotic fraction of a 20 × 20 section grows from E = 1/12 to 1/8 to 1/6; points off the
/// energy surface are counted, not measured.
#[test]
fn henon_heiles_chaotic_fraction_grows_with_energy() {
    let tmp = TempDir::new().unwrap();
    let mut fractions = Vec::new();
    for (k, e) in [1.0 / 12.0, 1.0 / 8.0, 1.0 / 6.0].into_iter().enumerate() {
        let dir = tmp.path().join(format!("e{k}"));
        run(&section(e, 20, 20000, ""), &dir);
        let last = stats(&dir).pop().unwrap();
        assert!(
            last["chaos_undefined"] > 0.0,
            "the box reaches past the surface"
        );
        let npy = rows(&dir, 20000, 2);
        let undefined = npy.iter().filter(|r| r[0].is_nan()).count();
        assert_eq!(undefined as f64, last["chaos_undefined"]);
        fractions.push(last["chaotic_fraction"]);
    }
    println!("chaotic fraction at E = 1/12, 1/8, 1/6: {fractions:?}");
    assert!(fractions[0] < 0.1 && fractions[0] < fractions[1] && fractions[1] < fractions[2]);
    assert!(fractions[2] > 0.5);
}

/// A resumed run writes the same files as an uninterrupted one (the accumulators travel in
/// the checkpoint), and shards merge to the whole run's stats.csv and indicators bit for bit.
#[test]
fn indicators_resume_and_merge_bit_for_bit() {
    crate::resume::interrupted_equals_uninterrupted(
        &argv(
            "run --system henon-heiles --method yoshida4 --ensemble disk --points 64 \
             --radius 0.2 --dt 0.05 --steps 400 --snapshot-every 100 --checkpoint-every 150 \
             --chaos megno,lyapunov --save-states",
        ),
        2,
    );
    let tmp = TempDir::new().unwrap();
    let whole = shards_merge_to_the_whole_run(
        tmp.path(),
        "run --system pendulum --method verlet --ensemble disk --points 8200 --radius 1.5 \
         --dt 0.1 --steps 60 --snapshot-every 30 --chaos megno,lyapunov --save-states",
        &["stats.csv", "chaos/step_30.npy", "chaos/step_60.npy"],
    );
    assert!(read(&whole.join("config.toml")).contains("chaos = \"megno,lyapunov\""));
}

/// `args` run whole into `dir/whole` and as two shards merged into `dir/merged`: the files
/// `names` of the two are byte for byte the same. The whole run's folder.
pub(crate) fn shards_merge_to_the_whole_run(dir: &Path, args: &str, names: &[&str]) -> PathBuf {
    let whole = dir.join("whole");
    run(args, &whole);
    let shards: Vec<_> = (0..2)
        .map(|k| {
            let shard = dir.join(format!("s{k}"));
            run(&format!("{args} --shard {k}/2"), &shard);
            shard
        })
        .collect();
    let merged = dir.join("merged");
    phaseflow()
        .args(["merge", "--quiet"])
        .args(&shards)
        .arg("--out")
        .arg(&merged)
        .assert()
        .success();
    for name in names {
        assert_eq!(
            std::fs::read(whole.join(name)).unwrap(),
            std::fs::read(merged.join(name)).unwrap(),
            "{name}"
        );
    }
    whole
}

/// Bad input exits 2 with a message naming the flag and the fix.
#[test]
fn bad_chaos_and_grid_input_is_refused() {
    let tmp = TempDir::new().unwrap();
    let base =
        "run --system henon-heiles --method verlet --ensemble disk --points 4 --dt 0.01 --steps 10";
    let cases = [
        (format!("{base} --chaos megno,fly"), "unknown indicator 'fly'"),
        (format!("{base} --chaos megno --tangent"), "--tangent"),
        (format!("{base} --chaos megno --compensated"), "--compensated"),
        (
            "run --system vertical-disk --method variational --ensemble disk --points 4 --steps 10 --dt 0.01 --chaos megno".into(),
            "variational",
        ),
        (
            "run --system pendulum --method verlet --ensemble circle --points 8 --steps 10 --dt 0.01 --chaos megno".into(),
            "--ensemble grid",
        ),
        (
            "run --system henon-heiles --method verlet --ensemble grid --points 4 --grid-axes q3,p1 --dt 0.01 --steps 10".into(),
            "no coordinate 'q3'",
        ),
        (
            "run --system henon-heiles --method verlet --ensemble grid --points 0 --grid-axes q2,p2 --dt 0.01 --steps 10".into(),
            "--points",
        ),
        (
            format!("{base} --grid-axes q2,p2"),
            "--grid-axes applies to --ensemble grid",
        ),
        (
            "run --system henon-heiles --method verlet --ensemble grid --points 4 --grid-axes q2,p1 --energy 0.1 --dt 0.01 --steps 10".into(),
            "p1 is solved",
        ),
    ];
    each_refused(tmp.path(), &cases);
}

/// Each case's arguments exit 2 with its text on stderr and leave its `--out` (a folder in
/// `dir`) untouched.
pub(crate) fn each_refused(dir: &Path, cases: &[(String, &str)]) {
    for (k, (args, want)) in cases.iter().enumerate() {
        let out = dir.join(format!("bad{k}"));
        let a = phaseflow()
            .args(argv(args))
            .arg("--out")
            .arg(&out)
            .assert()
            .code(2);
        let err = String::from_utf8_lossy(&a.get_output().stderr).to_string();
        assert!(err.contains(want), "{args}: {err}");
        assert!(!out.exists(), "{args}: --out was touched");
    }
}
