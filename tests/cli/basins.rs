//! Exits of a run with `--stop-when` (each condition one exit): Hénon–Heiles at E = 0.25 over a
//! grid in (q2, p2) on q1 = 0 with its three channels as exits. The fractions per exit and of
//! the points that left by none sum to one, each count is what stops.npy and stats.csv hold,
//! each stopped point lies in the channel of its exit; the basin and escape-time maps are
//! drawn; merged shards give the whole run's exits; the preset runs end to end.

use std::path::Path;

use predicates::prelude::*;

use crate::common::{phaseflow, read, stats};

/// The three channels of Hénon–Heiles as exits (the preset's conditions).
const EXITS: [&str; 3] = ["q2 > 2", "-sqrt(3)*q1 - q2 > 4", "sqrt(3)*q1 - q2 > 4"];

/// A `side` × `side` grid on H = 0.25 over q2 ∈ [−0.7, 1.1], p2 ∈ [−0.75, 0.75], q1 = 0, to
/// t = `t_end`, with the three exits.
fn args(side: usize, t_end: f64) -> Vec<String> {
    let mut a: Vec<String> = [
        "--system",
        "henon-heiles",
        "--method",
        "yoshida4",
        "--dt",
        "0.01",
        "--ensemble",
        "grid",
        "--grid-axes",
        "q2,p2",
        "--lo",
        "0,-0.7,0,-0.75",
        "--hi",
        "0,1.1,0,0.75",
        "--energy",
        "0.25",
        "--precision",
        "f64",
        "--backend",
        "cpu",
    ]
    .map(String::from)
    .to_vec();
    a.extend(["--points".into(), (side * side).to_string()]);
    a.extend([
        "--steps".into(),
        ((t_end / 0.01).round() as u64).to_string(),
    ]);
    for e in EXITS {
        a.extend(["--stop-when".into(), e.into()]);
    }
    a
}

/// exits.csv of `dir`: (exit, condition, points, fraction) per row, the header left out.
fn exits(dir: &Path) -> Vec<(String, String, u64, Option<f64>)> {
    let text = read(&dir.join("exits.csv"));
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("exit,condition,points,fraction"));
    lines
        .map(|l| {
            let mut r = csv::ReaderBuilder::new()
                .has_headers(false)
                .from_reader(l.as_bytes());
            let rec = r.records().next().unwrap().unwrap();
            (
                rec[0].to_string(),
                rec[1].to_string(),
                rec[2].parse().unwrap(),
                rec[3].parse().ok(),
            )
        })
        .collect()
}

fn npy(path: &Path) -> phaseflow::npy::Array2 {
    phaseflow::npy::decode_f64(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn escape_fractions_sum_to_one_with_the_unescaped_points() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    // t = 15: most points have left, those near the basins' boundaries not yet.
    let done = phaseflow()
        .arg("run")
        .args(args(40, 15.0))
        .args(["--save-states", "--out"])
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("exit 1 (q2 > 2)"));
    let printed = String::from_utf8_lossy(&done.get_output().stdout).into_owned();
    let rows = exits(&out);
    assert_eq!(rows.len(), 5, "three exits, none, no value: {rows:?}");
    for (j, e) in EXITS.iter().enumerate() {
        assert_eq!(
            (rows[j].0.as_str(), rows[j].1.as_str()),
            (&*(j + 1).to_string(), *e)
        );
    }
    assert_eq!(rows[3].0, "none");
    assert_eq!((rows[4].0.as_str(), rows[4].3), ("no value", None));
    // The counts: stops.npy's per condition, the running finite points, the rest.
    let stops = npy(&out.join("stops.npy"));
    let last = stats(&out).pop().unwrap();
    let first = stats(&out)[0].clone();
    for (j, row) in rows.iter().take(3).enumerate() {
        let k = (0..stops.rows)
            .filter(|&r| stops.data[4 * r + 3] == j as f64)
            .count() as u64;
        assert_eq!(row.2, k, "exit {}", j + 1);
        assert!(
            k > 100,
            "every channel takes points: exit {} has {k}",
            j + 1
        );
    }
    assert_eq!(rows[3].2 as f64, last["finite"]);
    assert!(rows[3].2 > 0, "some points have not left by t = 15");
    let with_value: u64 = rows[..4].iter().map(|r| r.2).sum();
    assert_eq!(
        with_value as f64, first["finite"],
        "the points on the energy surface"
    );
    assert_eq!(with_value + rows[4].2, 1600);
    let sum: f64 = rows[..4].iter().map(|r| r.3.unwrap()).sum();
    assert!((sum - 1.0).abs() < 1e-12, "fractions sum to {sum}");
    for r in &rows[..4] {
        assert_eq!(r.3.unwrap(), r.2 as f64 / with_value as f64);
        assert!(
            printed.contains(&format!("{} points, {:.4}", r.2, r.3.unwrap())),
            "{printed}"
        );
    }
    // Each stopped point is in its exit's channel: beyond radius 2, within 30° of the
    // channel's direction (π/2, 7π/6, 11π/6).
    let end = npy(&out.join("states/step_1500.npy"));
    for r in 0..stops.rows {
        let (i, c) = (stops.data[4 * r] as usize, stops.data[4 * r + 3] as usize);
        let (x, y) = (end.data[4 * i], end.data[4 * i + 1]);
        let angle = [90.0f64, 210.0, 330.0][c].to_radians();
        let along = x * angle.cos() + y * angle.sin();
        let r2 = (x * x + y * y).sqrt();
        assert!(
            r2 > 2.0 && along > r2 * 30f64.to_radians().cos(),
            "point {i} exit {c}: ({x}, {y})"
        );
    }
    for file in [
        "basins.png",
        "basins.svg",
        "escape_time.png",
        "escape_time.svg",
    ] {
        assert!(out.join(file).is_file(), "{file}");
    }
    let svg = read(&out.join("basins.svg"));
    for label in ["exit basins", "exit 1", "exit 3", "none", "no value"] {
        assert!(svg.contains(label), "basins.svg lacks {label}");
    }
    // `plot` draws the same maps from the files.
    let again = tmp.path().join("again");
    phaseflow()
        .args(["plot"])
        .arg(&out)
        .arg("--out")
        .arg(&again)
        .assert()
        .success();
    assert_eq!(read(&again.join("basins.svg")), svg);
}

#[test]
fn merged_shards_give_the_whole_runs_exits() {
    let args = args(100, 5.0);
    let tmp = super::shards::shards_merge_to_the_whole(&args, 2);
    let (whole, merged) = (tmp.path().join("whole"), tmp.path().join("merged"));
    assert_eq!(
        read(&whole.join("exits.csv")),
        read(&merged.join("exits.csv"))
    );
    assert_eq!(
        read(&whole.join("basins.svg")),
        read(&merged.join("basins.svg"))
    );
    assert!(
        !tmp.path().join("shard-0/exits.csv").exists(),
        "a shard's exits are partial"
    );
}

#[test]
fn the_exit_basins_preset_runs_small_and_states_its_fractions() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("basins");
    phaseflow()
        .args(["study", "--preset", "henon-heiles-exit-basins", "--quiet"])
        .args(["--points", "400", "--t-end", "20", "--out"])
        .arg(&out)
        .assert()
        .success();
    let report = read(&out.join("report.md"));
    assert!(
        report.contains("Aguirre, Vallejo & Sanjuán 2001"),
        "{report}"
    );
    let table = report
        .split(
            "| run | exit 1 | exit 2 | exit 3 | none | points with a value | points without one |",
        )
        .nth(1)
        .unwrap_or_else(|| panic!("no exits table: {report}"));
    let row = table.lines().nth(2).unwrap();
    let cells: Vec<&str> = row.split('|').map(str::trim).collect();
    assert_eq!(cells[1], "yoshida4");
    let stated: Vec<f64> = cells[2..6].iter().map(|c| c.parse().unwrap()).collect();
    let file = exits(&out.join("yoshida4"));
    for (s, r) in stated.iter().zip(&file) {
        assert!((s - r.3.unwrap()).abs() <= 5e-5, "{s} against {r:?}");
    }
    assert!(
        (stated.iter().sum::<f64>() - 1.0).abs() <= 3e-4,
        "{stated:?}"
    );
    assert!(stated[..3].iter().all(|&f| f > 0.1), "{stated:?}");
    for file in ["basins.png", "escape_time.png"] {
        assert!(out.join("yoshida4").join(file).is_file(), "{file}");
        assert!(report.contains(&format!("(yoshida4/{file})")), "{report}");
    }
}
