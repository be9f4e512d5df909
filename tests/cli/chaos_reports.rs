//! The further chaos indicators in a study's report and a sweep's sweep.csv: with `--chaos
//! megno,sali` the report's chaos table has SALI's chaotic fraction and mean beside MEGNO's,
//! each as the run's stats.csv has it; a sweep with `--chaos sali` carries them per part.

use crate::common::{num, phaseflow, read, stats};

#[test]
fn the_study_report_shows_sali_where_it_ran() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("hh");
    phaseflow()
        .args(["study", "--preset", "henon-heiles-megno-map", "--quiet"])
        .args([
            "--points",
            "36",
            "--t-end",
            "100",
            "--chaos",
            "megno,sali",
            "--out",
        ])
        .arg(&out)
        .assert()
        .success();
    let report = read(&out.join("report.md"));
    let head = "| run | chaotic fraction | mean ⟨Y⟩ | largest λ | points without indicators | SALI chaotic fraction | mean SALI |";
    let table = report
        .split(head)
        .nth(1)
        .unwrap_or_else(|| panic!("no SALI columns: {report}"));
    assert!(report.contains("Skokos 2001"), "{report}");
    let row = table.lines().nth(2).unwrap();
    let cells: Vec<&str> = row.split('|').map(str::trim).collect();
    let last = stats(&out.join("yoshida4")).pop().unwrap();
    for (cell, column) in [(6, "sali_chaotic_fraction"), (7, "sali_mean")] {
        let (stated, want): (f64, f64) = (cells[cell].parse().unwrap(), last[column]);
        assert!(
            (stated - want).abs() <= 1e-5 * want.abs().max(1e-300),
            "{column}: report {stated}, stats.csv {want}"
        );
    }
    // Without SALI, no SALI column.
    let plain = tmp.path().join("plain");
    phaseflow()
        .args(["study", "--preset", "henon-heiles-megno-map", "--quiet"])
        .args(["--points", "16", "--t-end", "10", "--out"])
        .arg(&plain)
        .assert()
        .success();
    assert!(!read(&plain.join("report.md")).contains("SALI chaotic fraction"));
}

#[test]
fn a_sweep_carries_sali_per_part() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("sweep");
    phaseflow()
        .args([
            "run",
            "--quiet",
            "--system",
            "elastic-pendulum-cartesian",
            "--method",
            "verlet",
        ])
        .args([
            "--ensemble",
            "grid",
            "--points",
            "16",
            "--lo",
            "0.5,0,0,0",
            "--hi",
            "1.2,0.8,0,0",
            "--grid-axes",
            "q1,q2",
        ])
        .args([
            "--dt",
            "0.02",
            "--steps",
            "500",
            "--precision",
            "f64",
            "--backend",
            "cpu",
        ])
        .args(["--chaos", "sali", "--sweep", "g_hat=0.1:0.3:2", "--out"])
        .arg(&out)
        .assert()
        .success();
    let text = read(&out.join("sweep.csv"));
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(
        header[header.len() - 2..],
        ["final_sali_chaotic_fraction", "final_sali_mean"]
    );
    for (i, line) in lines.enumerate() {
        let cells: Vec<f64> = line.split(',').skip(3).map(num).collect();
        let last = stats(&out.join(format!("part_{i}"))).pop().unwrap();
        assert_eq!(
            cells[cells.len() - 2],
            last["sali_chaotic_fraction"],
            "part {i}"
        );
        assert_eq!(cells[cells.len() - 1], last["sali_mean"], "part {i}");
    }
    assert!(out.join("sweep_chaos.png").is_file());
}
