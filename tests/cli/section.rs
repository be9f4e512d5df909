//! Poincaré sections (`--section`): located crossings on the plane and on the orbit, a regular
//! orbit's section a closed curve, the GPU's crossings equal to the CPU's, the cap, bad input.

use std::path::Path;

use phaseflow::npy::{decode_f64, Array2};

use crate::common::{argv, phaseflow};

/// Hénon–Heiles H at (q1, q2, p1, p2).
fn hh(q1: f64, q2: f64, p1: f64, p2: f64) -> f64 {
    (p1 * p1 + p2 * p2) / 2.0 + (q1 * q1 + q2 * q2) / 2.0 + q1 * q1 * q2 - q2 * q2 * q2 / 3.0
}

const START: [f64; 4] = [0.0, 0.1, 0.35, 0.0];

/// section.npy of a one-point Hénon–Heiles run from `START` with `flags` appended.
fn section_of(dir: &Path, flags: &str) -> Array2 {
    let out = dir.join("run");
    let mut line = argv(
        "run --system henon-heiles --ensemble point --center 0,0.1,0.35,0 --section q1=0 --quiet",
    );
    line.extend(argv(flags));
    line.extend(["--out".into(), out.display().to_string()]);
    phaseflow().args(&line).assert().success();
    decode_f64(&std::fs::read(out.join("section.npy")).unwrap()).unwrap()
}

fn row(a: &Array2, r: usize) -> &[f64] {
    &a.data[r * a.cols..(r + 1) * a.cols]
}

/// RK4 at h = 0.05 locates its crossings of q1 = 0 where RK4 at h/20 does (to the h⁴ of the
/// method and of the cubic Hermite interpolation), on the energy surface of the start.
#[test]
fn crossings_lie_on_the_plane_and_on_the_orbit() {
    let tmp = tempfile::tempdir().unwrap();
    let coarse = section_of(
        tmp.path(),
        "--method rk4 --dt 0.05 --steps 2000 --precision f64 --backend cpu",
    );
    let tmp2 = tempfile::tempdir().unwrap();
    let fine = section_of(
        tmp2.path(),
        "--method rk4 --dt 0.0025 --steps 40000 --precision f64 --backend cpu",
    );
    assert_eq!(coarse.cols, 6);
    assert!(
        coarse.rows >= 10 && coarse.rows == fine.rows,
        "{} {}",
        coarse.rows,
        fine.rows
    );
    let h0 = hh(START[0], START[1], START[2], START[3]);
    let (mut worst, mut worst_energy) = (0.0f64, 0.0f64);
    for r in 0..coarse.rows {
        let (c, f) = (row(&coarse, r), row(&fine, r));
        assert_eq!((c[0], c[1]), (0.0, r as f64));
        for k in 2..6 {
            worst = worst.max((c[k] - f[k]).abs());
        }
        worst_energy = worst_energy.max((hh(0.0, c[3], c[4], c[5]) - h0).abs());
        assert!(c[4] > 0.0, "an upward crossing of q1 has p1 > 0: {c:?}");
    }
    println!(
        "{} crossings: largest difference to h/20 {worst:.2e}, energy error {worst_energy:.2e}",
        coarse.rows
    );
    // RK4's own global error at h = 0.05 over t = 100 dominates; a located point off by the
    // secant's O(h²) would be ~1e-3 away.
    assert!(worst < 3e-5, "{worst}");
    assert!(worst_energy < 1e-6, "{worst_energy}");
}

/// A regular orbit's crossings, sorted by angle around their centre in (q2, p2), follow one
/// closed curve: no gap between neighbours is more than a tenth of the curve's width.
#[test]
fn a_regular_orbit_crosses_on_a_closed_curve() {
    let tmp = tempfile::tempdir().unwrap();
    let a = section_of(
        tmp.path(),
        "--method verlet --dt 0.01 --steps 100000 --section-max 300 --precision f64 --backend cpu",
    );
    assert!(a.rows > 100, "{}", a.rows);
    let pts: Vec<(f64, f64)> = (0..a.rows)
        .map(|r| (row(&a, r)[3], row(&a, r)[5]))
        .collect();
    let n = pts.len() as f64;
    let c = pts
        .iter()
        .fold((0.0, 0.0), |s, p| (s.0 + p.0 / n, s.1 + p.1 / n));
    let mut by_angle: Vec<(f64, (f64, f64))> = pts
        .iter()
        .map(|&p| ((p.1 - c.1).atan2(p.0 - c.0), p))
        .collect();
    by_angle.sort_by(|x, y| x.0.total_cmp(&y.0));
    let width = pts.iter().map(|p| p.0).fold(f64::MIN, f64::max)
        - pts.iter().map(|p| p.0).fold(f64::MAX, f64::min);
    let gap = (0..by_angle.len())
        .map(|i| {
            let (p, q) = (by_angle[i].1, by_angle[(i + 1) % by_angle.len()].1);
            ((p.0 - q.0).powi(2) + (p.1 - q.1).powi(2)).sqrt()
        })
        .fold(0.0, f64::max);
    println!(
        "{} crossings, curve width {width:.3}, largest gap {gap:.4}",
        a.rows
    );
    assert!(gap < 0.1 * width, "{gap} {width}");
}

/// The GPU engine (lavapipe) finds the CPU engine's crossings, rows and values, in f64.
#[test]
fn the_gpu_collects_the_cpu_engines_crossings() {
    let run = |backend: &str| {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("run");
        let line = format!("run --system henon-heiles --method verlet --ensemble disk --points 64 --radius 0.05 --dt 0.01 --steps 3000 --section q1=0,both --section-max 20 --precision f64 --quiet --backend {backend} --out {}", out.display());
        phaseflow().args(argv(&line)).assert().success();
        decode_f64(&std::fs::read(out.join("section.npy")).unwrap()).unwrap()
    };
    let (cpu, gpu) = (run("cpu"), run("gpu"));
    assert!(cpu.rows > 300 && (cpu.rows, cpu.cols) == (gpu.rows, gpu.cols));
    let worst = cpu
        .data
        .iter()
        .zip(&gpu.data)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    println!("{} crossings, largest difference {worst:.1e}", cpu.rows);
    assert!(worst < 1e-12, "{worst}");
}

/// Crossings past --section-max are counted, said on stderr and noted in the manifest.
#[test]
fn crossings_past_the_cap_are_counted_and_reported() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let line = format!("run --system henon-heiles --method verlet --ensemble point --center 0,0.1,0.35,0 --dt 0.01 --steps 5000 --section q1=0 --section-max 2 --backend cpu --out {}", out.display());
    let o = phaseflow().args(argv(&line)).assert().success();
    let err = String::from_utf8_lossy(&o.get_output().stderr).to_string();
    assert!(err.contains("past --section-max 2"), "{err}");
    let a = decode_f64(&std::fs::read(out.join("section.npy")).unwrap()).unwrap();
    assert_eq!(a.rows, 2);
    let manifest = std::fs::read_to_string(out.join("manifest.toml")).unwrap();
    assert!(
        manifest.contains("section_crossings_over_cap = "),
        "{manifest}"
    );
    assert!(
        !manifest.contains("section_crossings_over_cap = 0\n"),
        "{manifest}"
    );
    for f in ["section.png", "section.svg"] {
        assert!(std::fs::metadata(out.join(f)).unwrap().len() > 1000, "{f}");
    }
}

#[test]
fn bad_sections_exit_2_naming_the_fix() {
    for (flags, says) in [
        (
            "--system henon-heiles --section q3=0",
            "use q1..q2 or p1..p2",
        ),
        (
            "--system pendulum --section q1=0",
            "at least 2 degrees of freedom",
        ),
        (
            "--system henon-heiles --section q1=0 --section-max 0",
            "at least 1",
        ),
        ("--system henon-heiles --section q1=zero", "finite number"),
        (
            "--system henon-heiles --section q1=0,left",
            "up, down or both",
        ),
        ("--system henon-heiles --section-max 5", "add --section"),
        (
            "--system henon-heiles --section q1=0 --reverse",
            "drop --reverse",
        ),
        (
            "--system henon-heiles --section q1=0 --shard 1/2",
            "drop --shard and --devices",
        ),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("run");
        let line = format!(
            "run {flags} --ensemble point --method verlet --dt 0.01 --steps 10 --backend cpu --out {}",
            out.display()
        );
        let o = phaseflow().args(argv(&line)).assert().code(2);
        let err = String::from_utf8_lossy(&o.get_output().stderr).to_string();
        assert!(err.contains(says), "{flags}: {err}");
        assert!(!out.exists(), "{flags}");
    }
}
