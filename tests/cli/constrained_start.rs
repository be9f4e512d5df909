//! The nonholonomic variational systems' initial velocities, put on the discrete rolling
//! constraint before the run (so that the energy errors are the scheme's, not one jump from an
//! inconsistent start), or kept as given with `--raw-start`; and what stderr, config.toml and
//! the study report say of it.

use std::path::Path;

use super::common::{phaseflow, read, stats};

/// `study --preset NAME` (and `extra` flags) into `out`: its stderr, and its one run's
/// largest relative energy error (summary.csv).
fn preset(name: &str, out: &Path, extra: &[&str]) -> (String, f64) {
    let done = phaseflow()
        .args(["study", "--preset", name, "--out"])
        .arg(out)
        .args(extra)
        .assert()
        .success();
    let stderr = String::from_utf8_lossy(&done.get_output().stderr).into_owned();
    let mut summary = csv::Reader::from_path(out.join("summary.csv")).unwrap();
    let column = summary
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == "max_rel_energy_err")
        .unwrap();
    let row = summary.records().next().unwrap().unwrap();
    (stderr, row[column].parse().unwrap())
}

/// The acceptance figures: the disks' presets measure the scheme's energy error, not the one
/// jump of the seed's inconsistent start (0.96, 0.122 and 0.0398 before), and say what was
/// projected on stderr and in the report.
#[test]
fn disk_presets_measure_the_scheme_from_a_consistent_start() {
    let dir = tempfile::tempdir().unwrap();
    for (name, bound, change) in [
        (
            "disk-vertical-line",
            1e-10,
            "the energy from 31.5 to 1.245451",
        ),
        ("disk-vertical", 1e-10, "the energy from 75.125 to 66.33008"),
        ("euler-disk", 1e-5, "the energy from 25.1 to 24.1"),
    ] {
        let out = dir.path().join(name);
        let (stderr, max_rel) = preset(name, &out, &[]);
        assert!(max_rel < bound, "{name}: max_rel_dE {max_rel}");
        let said = format!("the initial velocity was put on the discrete rolling constraint of {} before the run ({change}, the value the energy errors are measured from); --raw-start starts", if name == "euler-disk" { "euler-disk" } else { "vertical-disk" });
        assert!(stderr.contains(&said), "{name} stderr: {stderr}");
        let report = read(&out.join("report.md"));
        assert!(
            report.contains(&format!("Initial state: {said}")),
            "{name}: {report}"
        );
        // config.toml records the choice, and the first row is already on the constraint.
        let config = read(&out.join("variational").join("config.toml"));
        assert!(
            config.contains("raw_start = false")
                && config.contains("# initial velocities put on the discrete rolling constraint"),
            "{config}"
        );
        let rows = stats(&out.join("variational"));
        assert!(
            rows[0]["constraint_err_max"] < 1e-12,
            "{name}: {:?}",
            rows[0]
        );
    }
    // Already on the constraint: nothing changes, and the report says so.
    let (stderr, max_rel) = preset("disk-vertical-spin", &dir.path().join("spin"), &[]);
    assert_eq!(max_rel, 0.0);
    assert!(
        stderr.contains("(the energy unchanged: already on it)"),
        "{stderr}"
    );
}

/// `--raw-start` keeps the seed's velocity: the first step projects it, the energy jumps once
/// (the old figures), and config.toml and the report say the start was raw; `run --config`
/// of that config.toml reproduces it.
#[test]
fn raw_start_keeps_the_given_velocity() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("line");
    let (stderr, max_rel) = preset("disk-vertical-line", &out, &["--raw-start"]);
    assert!((max_rel - 0.9604618805633796).abs() < 1e-12, "{max_rel}");
    assert!(!stderr.contains("was put on"), "{stderr}");
    assert!(read(&out.join("report.md"))
        .contains("Initial state: the velocities as given (`--raw-start`)"));
    let run = out.join("variational");
    let config = read(&run.join("config.toml"));
    assert!(config.contains("raw_start = true"), "{config}");
    let rows = stats(&run);
    assert!(rows[0]["constraint_err_max"] > 1.0 && rows[1]["constraint_err_max"] < 1e-12);
    let again = dir.path().join("again");
    phaseflow()
        .args(["run", "--quiet", "--config"])
        .arg(run.join("config.toml"))
        .arg("--out")
        .arg(&again)
        .assert()
        .success();
    assert_eq!(read(&again.join("stats.csv")), read(&run.join("stats.csv")));
}

/// Every point of an ensemble is projected, each on its own, on a shard as in the whole run
/// (the shards' merge equals the whole run); a system with nothing to project refuses
/// `--raw-start` (exit 2, nothing written) and writes no raw_start key.
#[test]
fn ensembles_are_projected_point_by_point_and_other_systems_refuse_raw_start() {
    let dir = tempfile::tempdir().unwrap();
    let euler = |out: &Path, extra: &[&str]| {
        phaseflow()
            .args(["run", "--system", "euler-disk", "--method", "variational"])
            .args(["--dt", "0.001", "--steps", "20", "--snapshot-every", "10"])
            .args([
                "--ensemble",
                "gaussian",
                "--points",
                "4200",
                "--sigma",
                "0.05",
            ])
            .args(["--precision", "f64", "--backend", "cpu", "--out"])
            .arg(out)
            .args(extra)
            .assert()
            .success()
    };
    let whole = dir.path().join("whole");
    let done = euler(&whole, &[]);
    let stderr = String::from_utf8_lossy(&done.get_output().stderr).into_owned();
    assert!(
        stderr.contains("the initial velocities of the 4200 points were put on the discrete rolling constraint of euler-disk before the run (the largest energy change at point"),
        "{stderr}"
    );
    let rows = stats(&whole);
    assert!(
        rows.iter().all(|r| r["constraint_err_max"] < 1e-12),
        "{rows:?}"
    );
    let shards: Vec<_> = (0..2)
        .map(|k| {
            let s = dir.path().join(format!("shard-{k}"));
            euler(&s, &["--shard", &format!("{k}/2"), "--quiet"]);
            s
        })
        .collect();
    let merged = dir.path().join("merged");
    phaseflow()
        .arg("merge")
        .args(&shards)
        .arg("--out")
        .arg(&merged)
        .arg("--quiet")
        .assert()
        .success();
    assert_eq!(
        read(&merged.join("stats.csv")),
        read(&whole.join("stats.csv"))
    );

    for system in ["pendulum-variational", "ball-turntable", "pendulum"] {
        let out = dir.path().join(system);
        let method = if system == "pendulum" {
            "verlet"
        } else {
            "variational"
        };
        let refused = phaseflow()
            .args(["run", "--system", system, "--method", method])
            .args([
                "--dt",
                "0.01",
                "--steps",
                "10",
                "--ensemble",
                "point",
                "--raw-start",
            ])
            .arg("--out")
            .arg(&out)
            .assert()
            .code(2);
        let stderr = String::from_utf8_lossy(&refused.get_output().stderr).into_owned();
        assert!(
            stderr.contains(&format!(
                "--raw-start: system '{system}' has no discrete constraint"
            )) && stderr.contains("drop --raw-start"),
            "{stderr}"
        );
        assert!(!out.exists());
    }
    let ball = dir.path().join("ball");
    phaseflow()
        .args([
            "run",
            "--system",
            "ball-turntable",
            "--method",
            "variational",
        ])
        .args([
            "--dt",
            "0.001",
            "--steps",
            "10",
            "--ensemble",
            "point",
            "--quiet",
            "--out",
        ])
        .arg(&ball)
        .assert()
        .success();
    assert!(!read(&ball.join("config.toml")).contains("raw_start"));
}

/// An ensemble part of which escapes: the report's energy figure is the escaped points'
/// (7e63 here), so the points that stayed get their own, from stats.csv's stayed columns,
/// over the snapshots after the last escape.
#[test]
fn the_points_that_stayed_get_their_own_energy_figure() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("escapes");
    phaseflow()
        .args(["study", "--system", "henon-heiles", "--methods", "verlet"])
        .args([
            "--dt",
            "0.05",
            "--t-end",
            "100",
            "--ensemble",
            "grid",
            "--points",
            "100",
        ])
        .args([
            "--lo=-1,0,-0.1,0",
            "--hi",
            "1,0,0.1,0",
            "--backend",
            "cpu",
            "--quiet",
        ])
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    let rows = stats(&out.join("verlet"));
    let last = rows.last().unwrap();
    let stayed = last["points"] - last["escaped"];
    assert!(stayed > 0.0 && last["escaped"] > 0.0, "{last:?}");
    assert!(last["stayed_rel_energy_err_max"] < 1e-3 && last["rel_energy_err_max"] < 1e-3);
    // Some snapshot's maximum is an escaping point's, far above the rest's.
    assert!(rows
        .iter()
        .any(|r| r["rel_energy_err_max"] > 1e3 * r["stayed_rel_energy_err_max"]));
    let report = read(&out.join("report.md"));
    let verdict = report
        .lines()
        .find(|l| l.starts_with("- **verlet**"))
        .unwrap();
    let said = format!(
        "(not bounded: the escaped points' error); the {stayed} points that stayed (from t = "
    );
    let at = verdict.find(&said).unwrap_or_else(|| panic!("{verdict}"));
    let rest = &verdict[at + said.len()..];
    let figure: f64 = rest
        .split("relative energy error at most ")
        .nth(1)
        .and_then(|r| r.split(',').next())
        .unwrap()
        .parse()
        .unwrap();
    assert!(figure < 1e-3 && rest.contains(", bounded:"), "{verdict}");
}
