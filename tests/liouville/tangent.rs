//! The tangent map (--tangent): det DΦⁿ and the symplecticity defect against exact factors,
//! and the GPU engine against the CPU one on area and det.

use std::collections::BTreeMap;
use std::path::Path;

use tempfile::TempDir;

use crate::common::stats;
use crate::run;

fn oscillator_rect_tangent(
    out: &Path,
    method: &str,
    dt: &str,
    steps: &str,
) -> Vec<BTreeMap<String, f64>> {
    run(
        out,
        &[
            "--system",
            "oscillator",
            "--method",
            method,
            "--ensemble",
            "rect",
            "--lo=-0.1,0.9",
            "--hi=0.1,1.1",
            "--points",
            "200",
            "--dt",
            dt,
            "--steps",
            steps,
            "--snapshot-every",
            "250",
            "--tangent",
            "--backend",
            "cpu",
            "--precision",
            "f64",
        ],
    );
    stats(out)
}

#[test]
fn oscillator_det_and_area_follow_the_exact_factors() {
    let tmp = TempDir::new().unwrap();
    // explicit Euler: every det and the area are multiplied by exactly (1 + h²) per step
    let rows = oscillator_rect_tangent(&tmp.path().join("euler"), "euler", "0.01", "1000");
    let h: f64 = 0.01;
    for row in &rows {
        let f = (1.0 + h * h).powi(row["step"] as i32);
        for col in ["det_min", "det_max", "det_mean", "area_ratio"] {
            assert!(
                (row[col] / f - 1.0).abs() < 1e-12,
                "euler {col} at step {}: {} vs {f}",
                row["step"],
                row[col]
            );
        }
        assert!(
            row["defect_max"] > 0.0 || row["step"] == 0.0,
            "Euler is not symplectic"
        );
    }
    // RK4: by 1 − h⁶/72 + h⁸/576 per step
    let rows = oscillator_rect_tangent(&tmp.path().join("rk4"), "rk4", "0.5", "1000");
    let h: f64 = 0.5;
    let last = rows.last().unwrap();
    let f = (1.0 - h.powi(6) / 72.0 + h.powi(8) / 576.0).powi(1000);
    for col in ["det_min", "det_max", "area_ratio"] {
        assert!(
            (last[col] / f - 1.0).abs() < 1e-11,
            "rk4 {col}: {} vs {f}",
            last[col]
        );
    }
    // symplectic methods: det = 1, defect 0 and area kept, to roundoff
    for method in [
        "symplectic-euler-a",
        "symplectic-euler-b",
        "verlet",
        "position-verlet",
        "yoshida4",
        "suzuki4",
        "yoshida6",
        "blanes-moan4",
    ] {
        let rows = oscillator_rect_tangent(&tmp.path().join(method), method, "0.1", "1000");
        for row in &rows {
            for col in ["det_min", "det_max", "area_ratio"] {
                assert!(
                    (row[col] - 1.0).abs() < 1e-12,
                    "{method} {col}: {}",
                    row[col]
                );
            }
            assert!(
                row["defect_max"] < 1e-13,
                "{method} defect {}",
                row["defect_max"]
            );
        }
    }
}

#[test]
fn pendulum_euler_det_per_step_is_one_plus_h2_cos_q() {
    // one step from a grid of q values: det = 1 + h² cos q, so min/max are at the extreme q
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("one");
    run(
        &out,
        &[
            "--system",
            "pendulum",
            "--method",
            "euler",
            "--ensemble",
            "grid",
            "--lo=0,0.1",
            "--hi=3,0.4",
            "--points",
            "16",
            "--dt",
            "0.1",
            "--steps",
            "1",
            "--tangent",
            "--backend",
            "cpu",
            "--precision",
            "f64",
        ],
    );
    let last = stats(&out).pop().unwrap();
    let h2: f64 = 0.01;
    assert!(
        (last["det_max"] - (1.0 + h2)).abs() < 1e-14,
        "{}",
        last["det_max"]
    );
    assert!(
        (last["det_min"] - (1.0 + h2 * 3f64.cos())).abs() < 1e-14,
        "{}",
        last["det_min"]
    );
    // a filled grid reports its area from det: (3 × 0.3) · mean det
    assert!((last["area_from_det"] - 0.9 * last["det_mean"]).abs() < 1e-14);
}

#[test]
fn gpu_and_cpu_agree_on_area_and_det() {
    let tmp = TempDir::new().unwrap();
    let mut rows = Vec::new();
    for backend in ["gpu", "cpu"] {
        let out = tmp.path().join(backend);
        run(
            &out,
            &[
                "--system",
                "pendulum",
                "--method",
                "rk4",
                "--ensemble",
                "rect",
                "--points",
                "64",
                "--dt",
                "0.1",
                "--steps",
                "600",
                "--snapshot-every",
                "200",
                "--tangent",
                "--backend",
                backend,
                "--precision",
                "f32",
            ],
        );
        rows.push(stats(&out));
    }
    let (g, c) = (&rows[0], &rows[1]);
    assert_eq!(g.len(), c.len());
    for (gr, cr) in g.iter().zip(c) {
        // f32 on both; the GPU fuses multiply-adds, and det of a sheared M (entries ~10) amplifies
        // that roundoff: extremes over ~10⁴ points agree to 1e-4, means and areas to 1e-5
        for (col, tol) in [
            ("area_ratio", 1e-5),
            ("det_mean", 1e-5),
            ("det_min", 1e-4),
            ("det_max", 1e-4),
        ] {
            assert!(
                (gr[col] - cr[col]).abs() < tol,
                "step {}: {col} gpu {} cpu {}",
                gr["step"],
                gr[col],
                cr[col]
            );
        }
    }
    // RK4 is not symplectic: the det moved away from 1, on both
    let last = c.last().unwrap();
    assert!(
        (last["det_mean"] - 1.0).abs() > 1e-6,
        "{}",
        last["det_mean"]
    );
}
