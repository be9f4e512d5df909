//! The angular-momentum maximum leaves the points a `--stop-when` condition stopped out, as
//! the energy statistics do: on a Kepler disk under RK4 (which does not conserve L), the
//! eccentric orbits that come close to the centre late stop there with the largest errors,
//! and `ang_mom_err_max` is the largest |L − L0| of the others.

use crate::common::{phaseflow, stats};

fn npy(path: &std::path::Path) -> phaseflow::npy::Array2 {
    phaseflow::npy::decode_f64(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn the_angular_momentum_maximum_is_the_running_points() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    phaseflow()
        .args([
            "run", "--quiet", "--system", "kepler", "--method", "rk4", "--dt", "0.05",
        ])
        .args(["--steps", "2000", "--ensemble", "disk", "--points", "400"])
        .args([
            "--center",
            "1,0,0,1",
            "--radius",
            "0.3",
            "--precision",
            "f64",
        ])
        .args(["--backend", "cpu", "--save-states"])
        // Close to the centre (|q|² < 0.25), late: t · (0.25 − |q|²) > 5.
        .args(["--stop-when", "t*(0.25 - q1^2 - q2^2) > 5", "--out"])
        .arg(&out)
        .assert()
        .success();
    let (z0, z) = (
        npy(&out.join("states/step_0.npy")),
        npy(&out.join("states/step_2000.npy")),
    );
    let stopped: Vec<usize> = {
        let s = npy(&out.join("stops.npy"));
        (0..s.rows).map(|r| s.data[4 * r] as usize).collect()
    };
    assert!(stopped.len() > 5, "{stopped:?}");
    let l = |a: &phaseflow::npy::Array2, i: usize| {
        let r = &a.data[4 * i..4 * i + 4];
        r[0] * r[3] - r[1] * r[2]
    };
    let err = |i: usize| (l(&z, i) - l(&z0, i)).abs();
    let largest =
        |keep: &dyn Fn(usize) -> bool| (0..400).filter(|&i| keep(i)).map(err).fold(0.0, f64::max);
    let running = largest(&|i| !stopped.contains(&i));
    let all = largest(&|_| true);
    assert!(
        all > 1.2 * running,
        "the stopped points' errors are the largest: {all} {running}"
    );
    let column = stats(&out).pop().unwrap()["ang_mom_err_max"];
    assert!(
        (column - running).abs() <= 1e-12 * running,
        "{column} against {running}"
    );
}
