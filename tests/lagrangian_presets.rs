//! The presets of a Lagrangian formula, run in full through the CLI and checked against
//! figures computed here independently: Fernández's pendulum (Störmer–Verlet at h = 1 and
//! Euler at h = 0.02 against RK4, their distances from it at the shared times), the discrete
//! Noether theorem on Kepler, the spherical pendulum on its sphere; and a parameter that only a
//! constraint or the momentum reads is accepted.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::phaseflow;

/// summary.csv's rows as maps from column to cell.
fn summary(dir: &Path) -> Vec<BTreeMap<String, String>> {
    common::csv_cells(&dir.join("summary.csv"))
}

fn num(row: &BTreeMap<String, String>, column: &str) -> f64 {
    row[column]
        .parse()
        .unwrap_or_else(|_| panic!("{column}: {row:?}"))
}

fn study(preset: &str) -> (tempfile::TempDir, Vec<BTreeMap<String, String>>, String) {
    let dir = tempfile::tempdir().unwrap();
    let o = phaseflow()
        .args(["study", "--preset", preset, "--quiet", "--backend", "cpu"])
        .arg("--out")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows = summary(dir.path());
    let report = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
    (dir, rows, report)
}

/// θ̈ = −2 sin θ (g = 2, l = 1), from (π/2, 0): the vector field.
fn pendulum(q: f64, p: f64) -> (f64, f64) {
    (p, -2.0 * q.sin())
}

/// (q, p) after every step of `step` at h, n steps.
fn path(h: f64, n: usize, step: impl Fn(f64, f64, f64) -> (f64, f64)) -> Vec<(f64, f64)> {
    let mut z = (std::f64::consts::FRAC_PI_2, 0.0);
    let mut out = vec![z];
    for _ in 0..n {
        z = step(z.0, z.1, h);
        out.push(z);
    }
    out
}

fn verlet(q: f64, p: f64, h: f64) -> (f64, f64) {
    let p = p + h / 2.0 * pendulum(q, p).1;
    let q = q + h * p;
    (q, p + h / 2.0 * pendulum(q, p).1)
}

fn euler(q: f64, p: f64, h: f64) -> (f64, f64) {
    let (dq, dp) = pendulum(q, p);
    (q + h * dq, p + h * dp)
}

fn rk4(q: f64, p: f64, h: f64) -> (f64, f64) {
    let k1 = pendulum(q, p);
    let k2 = pendulum(q + h / 2.0 * k1.0, p + h / 2.0 * k1.1);
    let k3 = pendulum(q + h / 2.0 * k2.0, p + h / 2.0 * k2.1);
    let k4 = pendulum(q + h * k3.0, p + h * k3.1);
    (
        q + h / 6.0 * (k1.0 + 2.0 * k2.0 + 2.0 * k3.0 + k4.0),
        p + h / 6.0 * (k1.1 + 2.0 * k2.1 + 2.0 * k3.1 + k4.1),
    )
}

/// The largest |Δq| and |Δp| of a path at h against the reference at h_ref, at every step of
/// the path (h a multiple of h_ref).
fn largest_distance(run: &[(f64, f64)], reference: &[(f64, f64)], every: usize) -> (f64, f64) {
    run.iter()
        .enumerate()
        .map(|(k, z)| {
            let r = reference[k * every];
            ((z.0 - r.0).abs(), (z.1 - r.1).abs())
        })
        .fold((0.0, 0.0), |a, b| (a.0.max(b.0), a.1.max(b.1)))
}

#[test]
fn fernandez_pendulum_verlet_at_h_1_is_as_close_to_the_solution_as_euler_at_h_0_02() {
    let (_dir, rows, report) = study("lagrangian-pendulum");
    let reference = path(0.001, 10_000, rk4);
    let want = [
        largest_distance(&path(1.0, 10, verlet), &reference, 1000),
        largest_distance(&path(0.02, 500, verlet), &reference, 20),
        largest_distance(&path(0.02, 500, euler), &reference, 20),
    ];
    assert_eq!(rows.len(), 4);
    for (row, (dq, dp)) in rows.iter().zip(want) {
        let (got_q, got_p) = (
            num(row, "reference_position_err_max"),
            num(row, "reference_momentum_err_max"),
        );
        // The Lagrangian's trapezoid step is Verlet to rounding (its Newton solve settles
        // there); Euler and RK4 are the built-in pendulum's.
        assert!((got_q - dq).abs() <= 1e-9 * dq.max(1e-3), "{row:?}: {dq}");
        assert!((got_p - dp).abs() <= 1e-9 * dp.max(1e-3), "{row:?}: {dp}");
    }
    // The reference has no distance from itself.
    assert_eq!(rows[3]["reference_position_err_max"], "");
    // The slides' observation: Verlet at h = 1 and Euler at h = 0.02 are within a factor 2.
    let (v, e) = (&rows[0], &rows[2]);
    for column in ["reference_position_err_max", "reference_momentum_err_max"] {
        let ratio = num(v, column) / num(e, column);
        assert!((0.5..2.0).contains(&ratio), "{column}: {ratio}");
    }
    assert!(
        report.contains(
            "against the reference (pendulum, rk4, h = 0.001), at 11 shared times up to t = 10"
        ),
        "{report}"
    );
    assert!(report.contains("reference_distance.png"), "{report}");
}

#[test]
fn the_discrete_angular_momentum_is_kept_to_rounding_while_the_energy_oscillates() {
    let (_dir, rows, report) = study("lagrangian-kepler-noether");
    let (coarse, fine, rk4) = (&rows[0], &rows[1], &rows[2]);
    for row in [coarse, fine] {
        assert!(num(row, "momentum_err_max") < 1e-13, "{row:?}");
    }
    // Energy error O(h²): halving h divides it by about 4.
    let ratio = num(coarse, "max_rel_energy_err") / num(fine, "max_rel_energy_err");
    assert!((3.5..4.5).contains(&ratio), "{ratio}");
    // RK4 is not symplectic: its angular momentum drifts far beyond rounding.
    assert!(num(rk4, "max_ang_mom_err") > 1e-6, "{rk4:?}");
    assert!(
        report.contains("the discrete momentum J changed by at most"),
        "{report}"
    );
    assert!(report.contains("momentum_error.png"), "{report}");
}

#[test]
fn the_spherical_pendulum_stays_on_its_sphere() {
    let (_dir, rows, report) = study("spherical-pendulum-constrained");
    for row in &rows {
        assert!(num(row, "constraint_err_max") < 1e-14, "{row:?}");
        assert!(num(row, "momentum_err_max") < 1e-13, "{row:?}");
        assert!(num(row, "max_rel_energy_err") < 1e-3, "{row:?}");
    }
    let ratio = num(&rows[0], "max_rel_energy_err") / num(&rows[1], "max_rel_energy_err");
    assert!((3.5..4.5).contains(&ratio), "{ratio}");
    assert!(
        report.contains("the constraints were violated by at most"),
        "{report}"
    );
    assert!(report.contains("Tangent map: off"), "{report}");
}

/// `--param l` read only by the constraint, `--param w` only by the momentum: both are
/// parameters of the system; one that nothing reads is refused, naming every formula's.
#[test]
fn a_parameter_of_the_constraints_or_the_momentum_is_the_systems() {
    let dir = tempfile::tempdir().unwrap();
    let run = |params: &[&str], out: &str| {
        let mut c = phaseflow();
        c.args(["run", "--lagrangian", "(v1^2 + v2^2 + v3^2)/2 - g*q3"])
            .args(["--constraint", "q1^2 + q2^2 + q3^2 - l^2"])
            .args(["--momentum", "-w*q2, w*q1, 0", "--method", "variational"])
            .args([
                "--ensemble",
                "point",
                "--center",
                "0.6,0,-0.8,0,1,0",
                "--dt",
                "0.05",
                "--steps",
                "100",
            ])
            .args(["--backend", "cpu", "--quiet"]);
        for p in params {
            c.args(["--param", p]);
        }
        c.arg("--out").arg(dir.path().join(out)).output().unwrap()
    };
    let ok = run(&["g=1", "l=1", "w=1"], "ok");
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let bad = run(&["g=1", "l=1", "w=1", "k=2"], "bad");
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("the Lagrangian with its constraints and momentum has no parameter 'k' (its names: g, l, w)"),
        "{err}"
    );
}

/// `--reference METHOD` in a custom study: that method's run is the reference (the legend and
/// report say so); a method the study does not run, or a study of many points, is refused.
#[test]
fn a_custom_study_names_its_reference_run() {
    let dir = tempfile::tempdir().unwrap();
    let study = |extra: &[&str], out: &str| {
        phaseflow()
            .args([
                "study",
                "--system",
                "pendulum",
                "--methods",
                "euler,verlet,rk4",
            ])
            .args(["--dt", "0.02,0.1,0.001", "--t-end", "10", "--center", "1,0"])
            .args(["--backend", "cpu", "--quiet"])
            .args(extra)
            .arg("--out")
            .arg(dir.path().join(out))
            .output()
            .unwrap()
    };
    let o = study(&["--ensemble", "point", "--reference", "rk4"], "ok");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows = summary(&dir.path().join("ok"));
    // Verlet at h = 0.1 from (1, 0), 101 shared times: its distance is O(h²).
    let verlet = num(&rows[1], "reference_position_err_max");
    assert!((1e-3..1e-2).contains(&verlet), "{verlet}");
    assert!(num(&rows[0], "reference_position_err_max") > 10.0 * verlet);
    assert_eq!(rows[2]["reference_position_err_max"], "");
    assert!(dir.path().join("ok/reference_distance.png").is_file());
    let bad = study(&["--ensemble", "point", "--reference", "gauss2"], "bad");
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&bad.stderr)
            .contains("--reference gauss2: not one of the study's methods (euler, verlet, rk4)"),
        "{}",
        String::from_utf8_lossy(&bad.stderr)
    );
    let many = study(
        &[
            "--ensemble",
            "disk",
            "--radius",
            "0.1",
            "--points",
            "50",
            "--reference",
            "rk4",
        ],
        "many",
    );
    assert_eq!(many.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&many.stderr)
            .contains("compared with single trajectories, and this study starts 50 points"),
        "{}",
        String::from_utf8_lossy(&many.stderr)
    );
    assert!(!dir.path().join("many").exists());
}

/// A study with a reference run interrupted in the reference's run (the fourth) and resumed:
/// the finished runs' trajectories are read back from their trajectory.csv, the reference's is
/// continued from its checkpoint, and summary.csv (the distances included) and report.md are
/// those of the uninterrupted study.
#[test]
fn a_resumed_study_measures_the_same_distances_from_its_reference() {
    let dir = tempfile::tempdir().unwrap();
    let (full, part) = (dir.path().join("full"), dir.path().join("part"));
    let study = |out: &Path, stop: Option<&str>| {
        let mut c = phaseflow();
        c.args(["study", "--preset", "lagrangian-pendulum", "--quiet"])
            .args(["--backend", "cpu", "--checkpoint-every", "200"])
            .arg("--out")
            .arg(out);
        if let Some(n) = stop {
            c.env("PHASEFLOW_STOP_AFTER_CHECKPOINTS", n);
        }
        c.output().unwrap()
    };
    assert!(study(&full, None).status.success());
    // Runs of 10, 500, 500 and 10 000 steps write 0, 2, 2 and 49 checkpoints: the fifth is
    // the reference's first.
    let stopped = study(&part, Some("5"));
    assert_eq!(stopped.status.code(), Some(130));
    assert!(part.join("pendulum_rk4/checkpoint/run.ckpt").is_file());
    assert!(!part.join("summary.csv").exists());
    let resumed = phaseflow()
        .args(["resume", "--quiet"])
        .arg(&part)
        .output()
        .unwrap();
    assert!(
        resumed.status.success(),
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    let text = |d: &Path, f: &str| {
        std::fs::read_to_string(d.join(f))
            .unwrap()
            .replace(&d.display().to_string(), "DIR")
    };
    assert_eq!(text(&full, "summary.csv"), text(&part, "summary.csv"));
    assert_eq!(text(&full, "report.md"), text(&part, "report.md"));
    assert!(text(&part, "summary.csv").contains("0.5447"));
}
