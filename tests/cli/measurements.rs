//! The measurements' columns reach summary.csv as they reach stats.csv: a study's summary
//! has the largest `constraint_err_max` over the run's snapshots, and an empty cell for
//! systems without constraints.

use std::path::Path;

use super::common::{phaseflow, stats};

/// summary.csv's header and its rows, each cell by column name.
fn summary(out: &Path) -> Vec<std::collections::BTreeMap<String, String>> {
    let mut r = csv::Reader::from_path(out.join("summary.csv")).unwrap();
    let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    // after the columns summary.csv has always had (the last of them: escaped)
    let at = |name: &str| header.iter().position(|h| h == name);
    assert!(at("constraint_err_max") > at("escaped"), "{header:?}");
    r.records()
        .map(|rec| {
            header
                .iter()
                .cloned()
                .zip(rec.unwrap().iter().map(String::from))
                .collect()
        })
        .collect()
}

#[test]
fn summary_has_the_largest_constraint_violation_of_the_snapshots() {
    let dir = tempfile::tempdir().unwrap();
    // From the given velocities (off the discrete constraint): the violation is largest at
    // t = 0 and zero to rounding after, so the summary's cell is the first row's, not the last.
    let out = dir.path().join("line");
    phaseflow()
        .args([
            "study",
            "--preset",
            "disk-vertical-line",
            "--raw-start",
            "--quiet",
            "--out",
        ])
        .arg(&out)
        .assert()
        .success();
    let rows = stats(&out.join("variational"));
    let largest = rows
        .iter()
        .map(|r| r["constraint_err_max"])
        .fold(f64::NEG_INFINITY, f64::max);
    assert!(largest > 1.0 && rows.last().unwrap()["constraint_err_max"] < 1e-12);
    let cell: f64 = summary(&out)[0]["constraint_err_max"].parse().unwrap();
    assert_eq!(cell, largest);
    // A system without constraints: the column is there, empty.
    let kepler = dir.path().join("kepler");
    phaseflow()
        .args(["study", "--preset", "kepler", "--quiet", "--out"])
        .arg(&kepler)
        .assert()
        .success();
    for row in summary(&kepler) {
        assert_eq!(row["constraint_err_max"], "", "{row:?}");
    }
}
