//! Liouville-area measurements end to end through the CLI: loop area with refinement, the
//! tangent map's det and defect, CPU vs GPU agreement, the study command and its bad input.

use std::collections::BTreeMap;
use std::path::Path;

use assert_cmd::Command;
use predicates::prelude::*;
use tempfile::TempDir;

fn phaseflow() -> Command {
    Command::cargo_bin("phaseflow").unwrap()
}

/// stats.csv as rows of column → value (empty cells are absent).
fn stats(dir: &Path) -> Vec<BTreeMap<String, f64>> {
    let mut r = csv::Reader::from_path(dir.join("stats.csv")).unwrap();
    let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    r.records()
        .map(|rec| {
            let rec = rec.unwrap();
            header
                .iter()
                .zip(rec.iter())
                .filter(|(_, v)| !v.is_empty())
                .map(|(k, v)| (k.clone(), v.parse::<f64>().unwrap()))
                .collect()
        })
        .collect()
}

fn run(out: &Path, args: &[&str]) {
    phaseflow()
        .arg("run")
        .args(args)
        .args(["--quiet", "--out"])
        .arg(out)
        .assert()
        .success();
}

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

fn shear_run(out: &Path, extra: &[&str]) -> Vec<BTreeMap<String, f64>> {
    let mut args = vec![
        "--system",
        "pendulum",
        "--method",
        "verlet",
        "--ensemble",
        "circle",
        "--center",
        "0,0.8",
        "--radius",
        "0.3",
        "--points",
        "256",
        "--dt",
        "0.05",
        "--steps",
        "12800",
        "--snapshot-every",
        "1600",
        "--backend",
        "cpu",
        "--precision",
        "f64",
    ];
    args.extend_from_slice(extra);
    run(out, &args);
    stats(out)
}

/// Issue 14: with refinement, `area_ratio` divided by the step-0 polygon's area (below πr²), so
/// explicit Euler's exact factor (1 + h²)ⁿ came out 8e-8 high (147.49001482738). Against the
/// exact initial area πr², with the loop's curved area, it is exact to 1e-12.
#[test]
fn refined_euler_circle_area_ratio_is_exact() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("euler");
    run(
        &out,
        &[
            "--system",
            "oscillator",
            "--method",
            "euler",
            "--ensemble",
            "circle",
            "--dt",
            "0.05",
            "--steps",
            "2000",
            "--precision",
            "f64",
            "--backend",
            "cpu",
        ],
    );
    let rows = stats(&out);
    let last = rows.last().unwrap();
    assert!(last["loop_nodes"] > 1000.0, "refinement is on");
    let h: f64 = 0.05;
    for row in &rows {
        let f = (1.0 + h * h).powi(row["step"] as i32);
        assert!(
            (row["area_ratio"] / f - 1.0).abs() < 1e-12,
            "step {}: area_ratio {} vs (1 + h²)ⁿ = {f}",
            row["step"],
            row["area_ratio"]
        );
    }
}

#[test]
fn refinement_keeps_the_area_of_a_shearing_loop() {
    let tmp = TempDir::new().unwrap();
    let plain = shear_run(&tmp.path().join("plain"), &["--no-refine"]);
    let last = plain.last().unwrap();
    assert_eq!(last["loop_nodes"], 256.0);
    assert!(
        last["area_ratio"] < 0.996,
        "the unrefined 256-node loop loses area (0.917 as a polygon, 0.994 with the curved estimate): {}",
        last["area_ratio"]
    );
    let refined = shear_run(&tmp.path().join("refined"), &[]);
    let exact = std::f64::consts::PI * 0.09;
    assert!(
        (refined[0]["area"] / exact - 1.0).abs() < 1e-6,
        "the initial loop is resolved: {} vs πr² = {exact}",
        refined[0]["area"]
    );
    for row in &refined {
        assert!(
            (row["area_ratio"] - 1.0).abs() < 1e-6,
            "refined loop at step {}: area ratio {} with {} nodes",
            row["step"],
            row["area_ratio"],
            row["loop_nodes"]
        );
    }
    let nodes = refined.last().unwrap()["loop_nodes"];
    assert!(
        nodes > 10_000.0,
        "the loop was refined as it stretched: {nodes} nodes"
    );
}

#[test]
fn max_nodes_cap_is_reported() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("cap");
    phaseflow()
        .args([
            "run",
            "--system",
            "pendulum",
            "--method",
            "verlet",
            "--ensemble",
            "circle",
            "--center",
            "0,0.8",
            "--radius",
            "0.3",
            "--points",
            "64",
            "--dt",
            "0.05",
            "--steps",
            "2000",
            "--snapshot-every",
            "500",
            "--max-nodes",
            "1000",
            "--backend",
            "cpu",
            "--quiet",
            "--out",
        ])
        .arg(&out)
        .assert()
        .success()
        .stderr(predicate::str::contains("reached --max-nodes 1000"));
    assert!(stats(&out).iter().all(|r| r["loop_nodes"] <= 1000.0));
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

#[test]
fn loop_file_is_refined_and_bad_loop_files_are_refused() {
    let tmp = TempDir::new().unwrap();
    // a 64-gon inscribed in the unit circle of the oscillator: its polygon is the set
    let n = 64;
    let rows: String = (0..n)
        .map(|k| {
            let a = 2.0 * std::f64::consts::PI * k as f64 / n as f64;
            format!("{},{}\n", a.cos(), a.sin())
        })
        .collect();
    let good = tmp.path().join("loop.csv");
    std::fs::write(&good, format!("q,p\n{rows}")).unwrap();
    let out = tmp.path().join("file");
    phaseflow()
        .args([
            "run",
            "--system",
            "oscillator",
            "--method",
            "verlet",
            "--ensemble",
            "file",
            "--loop",
            "--input",
        ])
        .arg(&good)
        .args([
            "--dt",
            "0.1",
            "--steps",
            "100",
            "--backend",
            "cpu",
            "--precision",
            "f64",
            "--quiet",
            "--out",
        ])
        .arg(&out)
        .assert()
        .success();
    let st = stats(&out);
    let polygon = 0.5 * n as f64 * (2.0 * std::f64::consts::PI / n as f64).sin();
    assert!(
        (st[0]["area"] - polygon).abs() < 1e-12,
        "{} vs {polygon}",
        st[0]["area"]
    );
    assert!(
        st[0]["loop_nodes"] > n as f64,
        "refined by inserting nodes on the polygon's edges"
    );
    // closed by hand (last row repeats the first) and an open arc: refused
    let closed = tmp.path().join("closed.csv");
    std::fs::write(&closed, format!("q,p\n{rows}1,0\n")).unwrap();
    let arc: String = (0..n)
        .map(|k| {
            let a = std::f64::consts::PI * k as f64 / n as f64;
            format!("{},{}\n", a.cos(), a.sin())
        })
        .collect();
    let open = tmp.path().join("open.csv");
    std::fs::write(&open, format!("q,p\n{arc}")).unwrap();
    for (file, why) in [(&closed, "repeats the first"), (&open, "open curve")] {
        phaseflow()
            .args([
                "run",
                "--system",
                "oscillator",
                "--method",
                "verlet",
                "--ensemble",
                "file",
                "--loop",
                "--input",
            ])
            .arg(file)
            .args(["--dt", "0.1", "--steps", "10", "--out"])
            .arg(tmp.path().join("x"))
            .assert()
            .code(2)
            .stderr(
                predicate::str::contains("not a closed loop").and(predicate::str::contains(why)),
            );
    }
}

#[test]
fn refinement_on_a_filled_set_and_unknown_preset_are_refused() {
    let tmp = TempDir::new().unwrap();
    phaseflow()
        .args([
            "run",
            "--system",
            "pendulum",
            "--method",
            "verlet",
            "--ensemble",
            "disk",
            "--refine-tol",
            "1e-3",
            "--dt",
            "0.1",
            "--steps",
            "10",
            "--out",
        ])
        .arg(tmp.path().join("a"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("filled set"));
    phaseflow()
        .args(["study", "--preset", "no-such-study", "--out"])
        .arg(tmp.path().join("b"))
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("unknown study preset")
                .and(predicate::str::contains("pendulum-level")),
        );
    phaseflow()
        .args([
            "study",
            "--system",
            "pendulum",
            "--methods",
            "euler,verlet",
            "--dt",
            "0.1,0.2,0.3",
            "--steps",
            "10",
            "--ensemble",
            "disk",
            "--out",
        ])
        .arg(tmp.path().join("c"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("one per method"));
    assert!(
        !tmp.path().join("b").exists() && !tmp.path().join("c").exists(),
        "nothing written on bad input"
    );
}

/// Decode a PNG and count pixels that differ from the corner (background) colour.
fn png_ink(path: &Path) -> (u32, u32, usize, usize) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    let bpp = info.line_size / info.width as usize;
    let px: Vec<&[u8]> = buf[..info.buffer_size()].chunks(bpp).collect();
    let bg = px[0];
    let ink = px.iter().filter(|p| *p != &bg).count();
    let colours: std::collections::BTreeSet<&[u8]> = px.iter().copied().collect();
    (info.width, info.height, ink, colours.len())
}

#[test]
fn study_preset_writes_data_plots_and_report() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("study");
    phaseflow()
        .args([
            "study",
            "--preset",
            "oscillator-rectangle",
            "--backend",
            "cpu",
            "--quiet",
            "--out",
        ])
        .arg(&out)
        .assert()
        .success();
    // summary: Euler's area grows by (1 + h²)^512 (f32), symplectic Euler keeps it
    let mut r = csv::Reader::from_path(out.join("summary.csv")).unwrap();
    let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    for col in [
        "method",
        "dt",
        "steps",
        "final_area_ratio",
        "max_abs_det_minus_1",
        "max_rel_energy_err",
        "energy_drift_slope",
        "refine_capped_at_step",
        "refine_stuck_at_step",
    ] {
        assert!(header.contains(&col.to_string()), "summary.csv has {col}");
    }
    let rows: Vec<csv::StringRecord> = r.records().map(|x| x.unwrap()).collect();
    let col = |row: &csv::StringRecord, name: &str| -> f64 {
        row[header.iter().position(|h| h == name).unwrap()]
            .parse()
            .unwrap()
    };
    let method_col = header.iter().position(|h| h == "method").unwrap();
    assert_eq!(&rows[0][method_col], "euler");
    let h = 2.0 * std::f64::consts::PI / 128.0;
    let f = (1.0 + h * h).powi(512);
    assert!(
        (col(&rows[0], "final_area_ratio") / f - 1.0).abs() < 1e-4,
        "{}",
        col(&rows[0], "final_area_ratio")
    );
    assert!((col(&rows[1], "final_area_ratio") - 1.0).abs() < 1e-5);
    assert!(col(&rows[1], "max_abs_det_minus_1") < 1e-5);
    assert!(col(&rows[0], "energy_drift_slope") > 0.0);
    // per-method data
    for m in ["euler", "symplectic-euler-a"] {
        assert!(out.join(m).join("stats.csv").exists() && out.join(m).join("config.toml").exists());
        assert!(out.join(m).join("states").join("step_0.npy").exists());
    }
    // plots: real, non-blank images in both formats
    for stem in [
        "phase_euler",
        "phase_symplectic-euler-a",
        "energy_error",
        "area_ratio",
    ] {
        let (w, h, ink, colours) = png_ink(&out.join(format!("{stem}.png")));
        assert!(w >= 400 && h >= 300, "{stem}: {w}×{h}");
        assert!(
            ink > (w * h) as usize / 100,
            "{stem}.png is blank: {ink} inked pixels"
        );
        assert!(colours >= 3, "{stem}.png has {colours} colours");
        let svg = std::fs::read_to_string(out.join(format!("{stem}.svg"))).unwrap();
        assert!(
            svg.contains("<svg")
                && (svg.contains("<polyline") || svg.contains("<path") || svg.contains("<circle"))
        );
    }
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    for needle in [
        "| method |",
        "phase_euler.png",
        "energy_error.png",
        "area_ratio.png",
        "**euler**",
        "**symplectic-euler-a**",
        "not symplectic",
    ] {
        assert!(
            report.contains(needle),
            "report.md lacks {needle}:\n{report}"
        );
    }
    // Euler's energy grows by (1 + h²) per step: a drift, which the verdict must call one;
    // symplectic Euler's oscillates.
    let line = |m: &str| {
        report
            .lines()
            .find(|l| l.starts_with(&format!("- **{m}**")))
            .unwrap_or_else(|| panic!("no verdict for {m}:\n{report}"))
            .to_string()
    };
    assert!(
        line("euler").contains("(drifting upwards)"),
        "{}",
        line("euler")
    );
    assert!(
        line("symplectic-euler-a").contains("(bounded, without systematic drift)"),
        "{}",
        line("symplectic-euler-a")
    );
}

/// Seed 000's experiment I end to end: explicit Euler gains energy (the seed: exponentially from
/// t ≈ 10), symplectic Euler's energy oscillation stays below 1e-5 (its figure 6d), and the
/// single trajectory gives trajectory.csv and a plot of the free end's x(t).
#[test]
fn spring_chain_experiment_i_preset() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("chain");
    phaseflow()
        .args(["study", "--preset", "spring-chain-i", "--quiet", "--out"])
        .arg(&out)
        .assert()
        .success();
    let mut r = csv::Reader::from_path(out.join("summary.csv")).unwrap();
    let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    let rows: Vec<csv::StringRecord> = r.records().map(|x| x.unwrap()).collect();
    let get = |method: &str, name: &str| -> f64 {
        let row = rows.iter().find(|r| &r[1] == method).unwrap();
        row[header.iter().position(|h| h == name).unwrap()]
            .parse()
            .unwrap()
    };
    assert_eq!(rows.len(), 4);
    assert!(get("euler", "max_abs_energy_err") > 1.0);
    assert!(get("symplectic-euler-a", "max_abs_energy_err") < 1e-5);
    assert!(get("verlet", "max_abs_energy_err") < 1e-8);
    assert!(get("rk3", "max_abs_energy_err") < 1e-8);
    let traj = std::fs::read_to_string(out.join("verlet").join("trajectory.csv")).unwrap();
    let first = traj.lines().next().unwrap();
    assert!(
        first.starts_with("t,q1,q2") && first.ends_with("p16,energy"),
        "{first}"
    );
    assert!(traj.lines().count() > 1000);
    let (w, h, ink, colours) = png_ink(&out.join("observable.png"));
    assert!(w >= 400 && h >= 300 && ink > (w * h) as usize / 100 && colours >= 3);
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("observable.png") && report.contains("x of the free end"));
}

/// Kepler (GNI I.2.3): the symplectic methods keep the angular momentum to roundoff, explicit
/// Euler does not; the per-run system override gives polar and Cartesian folders side by side.
#[test]
fn kepler_and_elastic_pendulum_presets() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("kepler");
    phaseflow()
        .args(["study", "--preset", "kepler", "--quiet", "--out"])
        .arg(&out)
        .assert()
        .success();
    let csv = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let col = header.iter().position(|&h| h == "max_ang_mom_err").unwrap();
    for line in csv.lines().skip(1) {
        let cells: Vec<&str> = line.split(',').collect();
        let l: f64 = cells[col].parse().unwrap();
        if cells[1] == "euler" {
            assert!(l > 1e-2, "{line}");
        } else {
            assert!(l < 1e-12, "{line}");
        }
    }
    let out = tmp.path().join("elastic");
    phaseflow()
        .args([
            "study",
            "--preset",
            "elastic-pendulum",
            "--t-end",
            "200",
            "--quiet",
            "--out",
        ])
        .arg(&out)
        .assert()
        .success();
    for dir in [
        "symplectic-euler-a",
        "elastic-pendulum-cartesian_symplectic-euler-b",
    ] {
        assert!(out.join(dir).join("stats.csv").exists(), "{dir}");
    }
    // E = 0: the energy plot shows the absolute error
    assert!(std::fs::read_to_string(out.join("report.md"))
        .unwrap()
        .contains("Absolute energy error"));
}
