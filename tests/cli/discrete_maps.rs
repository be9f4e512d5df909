//! The holonomic discrete maps are symplectic in (q, p = −D₁L_d) (Marsden & West, "Discrete
//! mechanics and variational integrators"): a loop's area measured in (q, p) and the tangent
//! map's determinant show it; the nonholonomic ones, which are not symplectic, keep loops and
//! the tangent map refused, with the reason.

use tempfile::TempDir;

use crate::common::{argv, phaseflow, stats};

/// A run of `system` with the variational method in f64 on the CPU engine, `extra` appended.
fn run(system: &str, extra: &str) -> Vec<std::collections::BTreeMap<String, f64>> {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("run");
    phaseflow()
        .args(argv(&format!(
            "run --system {system} --method variational --precision f64 --quiet {extra} --out"
        )))
        .arg(&out)
        .assert()
        .success();
    stats(&out)
}

/// pendulum-variational, a circle loop in f64 over 10⁴ steps: its area in (q, p) is kept to
/// rounding at every snapshot. The elastic pendulum in (z, φ), whose momentum p = −D₁L_d mixes
/// q and v (p_φ = (1 + z)² v_φ + …), keeps it too, where the loop's area in the stored
/// (q, v) would not be kept, and so does the double pendulum, whose step is implicit.
#[test]
fn holonomic_maps_keep_a_loops_area_in_q_p() {
    for (system, extra, tol) in [
        (
            "pendulum-variational",
            "--dt 0.02 --steps 10000 --snapshot-every 2500 --center 0.5,0.2 --radius 0.3",
            1e-12,
        ),
        (
            "elastic-pendulum-zphi",
            "--dt 0.002 --steps 10000 --snapshot-every 2500 --center 0.2,0.3,0.1,0.2 --radius 0.05",
            1e-11,
        ),
        (
            "double-pendulum-variational",
            "--dt 0.01 --steps 10000 --snapshot-every 2500 --center 0.5,0.3,0.2,-0.1 --radius 0.05",
            1e-12,
        ),
    ] {
        let rows = run(
            system,
            &format!("{extra} --ensemble circle --points 400 --backend cpu"),
        );
        let worst = rows
            .iter()
            .map(|r| (r["area_ratio"] - 1.0).abs())
            .fold(0.0, f64::max);
        eprintln!(
            "{system}: largest |area_ratio − 1| over {} snapshots: {worst:.2e}",
            rows.len()
        );
        assert!(worst < tol, "{system}: {worst:e}");
        assert!(
            rows.last().unwrap()["loop_nodes"] > 400.0,
            "{system}: refined"
        );
    }
}

/// --tangent on the holonomic maps (pendulum-variational, elastic-pendulum-zphi and the double
/// pendulum's implicit map) in f64 over 10⁴ steps: the tangent columns hold the derivative of the (q, p) map, whose
/// determinant stays 1 and symplecticity defect at rounding. `--backend auto` runs them on the
/// CPU engine (the discrete maps' GPU kernels carry no tangent columns).
#[test]
fn the_tangent_map_of_holonomic_maps_is_symplectic() {
    for (system, start) in [
        ("pendulum-variational", "--dt 0.02 --center 0.5,0.2"),
        (
            "elastic-pendulum-zphi",
            "--dt 0.002 --center 0.2,0.3,0.1,0.2",
        ),
        (
            "double-pendulum-variational",
            "--dt 0.01 --center 0.5,0.3,0.2,-0.1",
        ),
    ] {
        let rows = run(
            system,
            &format!("{start} --steps 10000 --snapshot-every 5000 --ensemble disk --points 200 --radius 0.05 --tangent"),
        );
        let last = rows.last().unwrap();
        let det = (last["det_min"] - 1.0)
            .abs()
            .max((last["det_max"] - 1.0).abs());
        eprintln!(
            "{system}: |det − 1| {det:.2e}, defect {:.2e} after 10⁴ steps",
            last["defect_max"]
        );
        assert!(det < 1e-12, "{system}: {det:e}");
        assert!(
            last["defect_max"] < 1e-12,
            "{system}: {}",
            last["defect_max"]
        );
    }
}

/// What stays refused, and why: loops and the tangent map of the nonholonomic maps (not
/// symplectic), and tangent columns on the GPU.
#[test]
fn nonholonomic_maps_keep_loops_and_the_tangent_map_refused() {
    for (args, says) in [
        (
            "--system vertical-disk --ensemble circle",
            "nonholonomic (it rolls without slipping)",
        ),
        (
            "--system euler-disk --ensemble point --tangent",
            "nonholonomic, so its map is not symplectic",
        ),
        (
            "--system pendulum-variational --ensemble point --tangent --backend gpu",
            "carry no tangent columns",
        ),
    ] {
        let tmp = TempDir::new().unwrap();
        let out = tmp.path().join("refused");
        let got = phaseflow()
            .args(argv(&format!(
                "run {args} --method variational --dt 0.01 --steps 10 --out"
            )))
            .arg(&out)
            .assert()
            .code(2);
        let err = String::from_utf8_lossy(&got.get_output().stderr).to_string();
        assert!(err.contains(says), "{args}: {err}");
        assert!(!out.exists(), "{args} wrote output");
    }
}

/// A loop and the tangent map in one run of the double pendulum's map (`--backend auto`, so
/// the CPU engine): the loop's area in (q, p) is kept, and every node's tangent map keeps its
/// determinant 1 and its symplecticity defect at rounding.
#[test]
fn a_loop_and_the_tangent_map_together() {
    let rows = run(
        "double-pendulum-variational",
        "--dt 0.01 --steps 2000 --snapshot-every 1000 --center 0.5,0.3,0.2,-0.1 --ensemble circle --points 200 --radius 0.05 --tangent",
    );
    let last = rows.last().unwrap();
    eprintln!(
        "double-pendulum-variational, loop and --tangent: |area_ratio − 1| {:.2e}, det in [{}, {}], defect {:.2e}",
        (last["area_ratio"] - 1.0).abs(),
        last["det_min"],
        last["det_max"],
        last["defect_max"]
    );
    assert!((last["area_ratio"] - 1.0).abs() < 1e-12, "{last:?}");
    assert!((last["det_min"] - 1.0).abs() < 1e-12, "{last:?}");
    assert!((last["det_max"] - 1.0).abs() < 1e-12, "{last:?}");
    assert!(last["defect_max"] < 1e-12, "{last:?}");
}
