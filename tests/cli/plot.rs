//! `phaseflow plot DIR`: a finished run's figures and report.md drawn again from its files,
//! into the run's folder (which stays complete and replaceable) or --out; unfinished and
//! foreign folders refused with exit 2.

use predicates::prelude::*;
use tempfile::TempDir;

use phaseflow::plot;
use phaseflow::study;

use crate::base_run;
use crate::common::{argv, pendulum_disk, phaseflow, read};

/// A short CPU run of `base_run` into `dir`, with extra flags.
fn run_into(dir: &std::path::Path, extra: &[&str]) {
    let mut args = base_run(dir);
    args.extend(
        ["--backend", "cpu"]
            .iter()
            .chain(extra)
            .map(|s| s.to_string()),
    );
    phaseflow().args(&args).assert().success();
}

/// Each figure passes `plot::check_figure`, and its PNG and SVG are non-empty files in `dir`.
fn check_figures(figures: &[(String, plot::Figure)], dir: &std::path::Path) {
    for (stem, fig) in figures {
        if let Err(e) = plot::check_figure(fig) {
            panic!("{stem}: {e}");
        }
        for ext in ["png", "svg"] {
            let len = std::fs::metadata(dir.join(format!("{stem}.{ext}")))
                .map(|m| m.len())
                .unwrap_or(0);
            assert!(len > 0, "{stem}.{ext} missing or empty");
        }
    }
}

fn stems(figures: &[(String, plot::Figure)]) -> Vec<&str> {
    figures.iter().map(|(s, _)| s.as_str()).collect()
}

#[test]
fn plot_draws_a_saved_run_into_its_folder_which_stays_complete() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("run");
    run_into(&out, &["--save-states"]);
    phaseflow()
        .args(["plot", out.to_str().unwrap()])
        .assert()
        .success()
        .stdout(predicate::str::contains("phase_verlet.png"))
        .stdout(predicate::str::contains("report.md"))
        .stderr(predicate::str::contains("--save-states").not());
    let report = read(&out.join("report.md"));
    for stem in ["phase_verlet", "energy_error", "area_ratio"] {
        assert!(
            report.contains(&format!("]({stem}.png)")),
            "{stem}: {report}"
        );
        assert!(out.join(format!("{stem}.svg")).is_file(), "{stem}");
    }
    assert!(report.contains("System `pendulum`"), "{report}");
    assert!(report.contains("**verlet**"), "{report}");
    let manifest = read(&out.join("manifest.toml"));
    assert!(manifest.contains("\"report.md\" = "), "{manifest}");
    assert!(manifest.contains("\"phase_verlet.png\" = "), "{manifest}");
    // The folder is still a phaseflow run: plotted again, and replaced with --force.
    phaseflow()
        .args(["plot", out.to_str().unwrap(), "--quiet"])
        .assert()
        .success()
        .stdout("");
    run_into(&out, &["--force"]);
    assert!(!out.join("report.md").exists());

    // The same figures into --out, checked in memory.
    let tmp2 = TempDir::new().unwrap();
    let figs = tmp2.path().join("figs");
    run_into(&out, &["--force", "--save-states"]);
    phaseflow::console::set_quiet(true);
    let outcome = study::plot_run(&out, Some(&figs)).unwrap();
    assert_eq!(
        stems(&outcome.figures),
        ["phase_verlet", "energy_error", "area_ratio"]
    );
    check_figures(&outcome.figures, &figs);
    assert_eq!(
        read(&figs.join("report.md")).matches("![").count(),
        outcome.figures.len()
    );
    assert!(
        !out.join("report.md").exists(),
        "--out leaves the run folder alone"
    );
}

#[test]
fn a_single_point_gets_its_path_and_observable_without_saved_states() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("chain");
    let args = [
        "run",
        "--system",
        "spring-chain",
        "--param",
        "n=2",
        "--method",
        "verlet",
        "--ensemble",
        "point",
        "--dt",
        "0.001",
        "--steps",
        "500",
        "--precision",
        "f64",
        "--quiet",
        "--out",
    ];
    phaseflow().args(args).arg(&out).assert().success();
    let figs = tmp.path().join("figs");
    phaseflow()
        .args([
            "plot",
            out.to_str().unwrap(),
            "--out",
            figs.to_str().unwrap(),
        ])
        .assert()
        .success()
        .stderr(predicate::str::contains("--save-states").not());
    phaseflow::console::set_quiet(true);
    let outcome = study::plot_run(&out, Some(&figs)).unwrap();
    let drawn = stems(&outcome.figures);
    assert!(drawn.contains(&"observable"), "{drawn:?}");
    assert!(drawn.contains(&"phase_verlet"), "{drawn:?}");
    check_figures(&outcome.figures, &figs);
}

#[test]
fn without_saved_states_plot_says_portraits_need_them() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("run");
    run_into(&out, &[]);
    phaseflow()
        .args(["plot", out.to_str().unwrap()])
        .assert()
        .success()
        .stderr(predicate::str::contains("need a run with --save-states"));
    assert!(out.join("energy_error.png").is_file());
    assert!(!out.join("phase_verlet.png").exists());
}

#[test]
fn a_study_is_refused_and_its_method_folders_plotted_within_its_manifest() {
    let tmp = TempDir::new().unwrap();
    let st = tmp.path().join("study");
    let args = [
        "study",
        "--system",
        "pendulum",
        "--methods",
        "euler,verlet",
        "--dt",
        "0.1",
        "--steps",
        "100",
        "--ensemble",
        "disk",
        "--points",
        "100",
        "--backend",
        "cpu",
        "--quiet",
        "--out",
    ];
    phaseflow().args(args).arg(&st).assert().success();
    phaseflow()
        .args(["plot", st.to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("study folder"));
    // The study's portrait states are saved states: the method folder gets its portrait.
    phaseflow()
        .current_dir(&st)
        .args(["plot", "verlet", "--quiet"])
        .assert()
        .success();
    assert!(st.join("verlet/phase_verlet.png").is_file());
    let manifest = read(&st.join("manifest.toml"));
    assert!(manifest.contains("\"verlet/report.md\" = "), "{manifest}");
    phaseflow()
        .args(["plot", st.join("verlet").to_str().unwrap(), "--quiet"])
        .assert()
        .success();
}

#[test]
fn plot_refuses_unfinished_and_foreign_folders() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("partial");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("stats.csv"), "step,t\n0,0\n").unwrap();
    phaseflow()
        .args(["plot", dir.to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no manifest.toml"));
    assert!(!dir.join("report.md").exists());
    // A finished run whose stats.csv changed since: the manifest no longer matches.
    let out = tmp.path().join("run");
    run_into(&out, &[]);
    std::fs::write(out.join("stats.csv"), "step,t\n").unwrap();
    phaseflow()
        .args(["plot", out.to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("stats.csv").and(predicate::str::contains("changed")));
    phaseflow()
        .args(["plot", tmp.path().join("missing").to_str().unwrap()])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not a folder"));
}

/// A saved state or chaos file changed in place after the run (a byte flipped, the size kept)
/// is refused by `plot`, naming it, by the CRC-32 the manifest records; a folder whose manifest
/// records no CRC-32s (written by an earlier version) is still checked by its sizes.
#[test]
fn plot_refuses_a_data_file_changed_in_place_by_its_crc() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("run");
    phaseflow()
        .arg("run")
        .args(pendulum_disk(50, 0.05, 100))
        .args(argv(
            "--center 0,0.8 --radius 0.3 --backend cpu --save-states --snapshot-every 50 \
             --chaos megno --quiet --out",
        ))
        .arg(&out)
        .assert()
        .success();
    let plot_it = || phaseflow().arg("plot").arg(&out).arg("--quiet").assert();
    for rel in ["states/step_50.npy", "chaos/step_50.npy"] {
        let path = out.join(rel);
        let good = std::fs::read(&path).unwrap();
        let mut flipped = good.clone();
        *flipped.last_mut().unwrap() ^= 1;
        std::fs::write(&path, &flipped).unwrap();
        plot_it().code(2).stderr(
            predicate::str::contains(rel)
                .and(predicate::str::contains("changed since the run"))
                .and(predicate::str::contains("panicked").not()),
        );
        assert!(!out.join("report.md").exists(), "{rel}: plot drew anyway");
        std::fs::write(&path, &good).unwrap();
    }
    // The manifest of an earlier version: [files] only.
    let manifest = out.join("manifest.toml");
    let text = read(&manifest);
    let sizes_only = &text[..text.find("\n[crc32]").expect(&text)];
    std::fs::write(&manifest, sizes_only).unwrap();
    let stats = out.join("stats.csv");
    let good = std::fs::read(&stats).unwrap();
    std::fs::write(&stats, &good[..good.len() - 1]).unwrap();
    plot_it()
        .code(2)
        .stderr(predicate::str::contains("stats.csv").and(predicate::str::contains("changed")));
    std::fs::write(&stats, &good).unwrap();
    plot_it().success();
}
