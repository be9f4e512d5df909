//! Issue 14: a study whose ensemble escapes reads well. A Hénon–Heiles grid reaching above the
//! escape energy H = 1/6 loses points to infinity; the report counts them, calls no area ratio
//! or energy error of a blown-up set a measurement, and says that the symplectic method's
//! ensemble left the region where its guarantees hold. A single point reads in the singular.

use std::path::Path;

use tempfile::TempDir;

use crate::common::{phaseflow, read, stats, verdict};

/// `phaseflow study ARGS --backend cpu --quiet --out OUT` (the CPU engine counts escapes).
fn study(out: &Path, args: &[&str]) {
    phaseflow()
        .arg("study")
        .args(args)
        .args(["--backend", "cpu", "--quiet", "--out"])
        .arg(out)
        .assert()
        .success();
}

#[test]
fn an_escaping_ensemble_is_reported_as_escaped() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("esc");
    study(
        &out,
        &[
            "--system",
            "henon-heiles",
            "--methods",
            "euler,verlet",
            "--dt",
            "0.05",
            "--t-end",
            "100",
            "--ensemble",
            "grid",
            "--lo",
            "-1,0,-0.1,0",
            "--hi",
            "1,0,0.1,0",
            "--points",
            "100",
            // f32, as custom studies ran before their f64 default: Euler's points overflow
            // to non-finite values within the run.
            "--precision",
            "f32",
        ],
    );
    // stats.csv counts escapes at each snapshot: none at t = 0, and at the end at least the
    // points that are no longer finite.
    let rows = stats(&out.join("verlet"));
    let (first, last) = (&rows[0], rows.last().unwrap());
    assert_eq!(first["escaped"], 0.0);
    let blown = last["points"] - last["finite"];
    assert!(blown > 0.0 && last["escaped"] >= blown, "{last:?}");
    // summary.csv: the most escaped at any snapshot, after `engine` (the measurements'
    // summarised columns follow it).
    let mut r = csv::Reader::from_path(out.join("summary.csv")).unwrap();
    let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    let at = header.iter().position(|h| h == "escaped").unwrap();
    assert_eq!(header[at - 1], "engine");
    let escaped: Vec<f64> = r
        .records()
        .map(|rec| rec.unwrap()[at].parse().unwrap())
        .collect();
    assert_eq!(escaped[0], 100.0, "every Euler point blows up");
    assert!(escaped[1] >= blown, "{escaped:?}");

    let report = read(&out.join("report.md"));
    let euler = verdict(&report, "euler");
    assert!(
        euler.contains("all 100 points blew up (non-finite)"),
        "{euler}"
    );
    let verlet = verdict(&report, "verlet");
    for said in [
        "of 100 points",
        "the area is not measurable: ",
        "(not bounded",
        "a symplectic method, but part of the ensemble left the region where its guarantees",
    ] {
        assert!(verlet.contains(said), "{said:?} missing from: {verlet}");
    }
    for line in [euler, verlet] {
        for never in ["by a factor", "bounded, without systematic drift", "): and"] {
            assert!(!line.contains(never), "{never:?} in: {line}");
        }
    }
}

#[test]
fn a_single_point_study_reads_in_the_singular() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("one");
    study(
        &out,
        &[
            "--system",
            "henon-heiles",
            "--methods",
            "verlet",
            "--dt",
            "0.05",
            "--t-end",
            "10",
            "--ensemble",
            "point",
        ],
    );
    let report = read(&out.join("report.md"));
    assert!(report.contains("(1 initial point)"), "{report}");
    let verlet = verdict(&report, "verlet");
    assert!(
        verlet.contains("(h = 0.05, 200 steps to t = 10): the area was kept")
            && verlet.contains(
                "(bounded, without systematic drift): as expected of a symplectic method."
            ),
        "{verlet}"
    );
}
