//! The modified Hamiltonian presets (`modified-hamiltonian`, `-kepler`, `-nonseparable`): each
//! runs, summary.csv carries the mod_* columns, report.md states per method how many times
//! better H̃ is kept than H (at least 1000× for Verlet and the midpoint rule, 100× for
//! symplectic Euler, with one correction term), and the energy figure draws both.

use std::collections::BTreeMap;
use std::path::Path;

use super::common::{num, phaseflow, read};

/// `study --preset NAME` (CPU, quiet) with `extra` flags; summary.csv's rows as column → cell,
/// and report.md.
fn study(out: &Path, name: &str, extra: &[&str]) -> (Vec<BTreeMap<String, String>>, String) {
    phaseflow()
        .args([
            "study",
            "--preset",
            name,
            "--backend",
            "cpu",
            "--quiet",
            "--out",
        ])
        .arg(out)
        .args(extra)
        .assert()
        .success();
    let mut r = csv::Reader::from_path(out.join("summary.csv")).unwrap();
    let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    let rows = r
        .records()
        .map(|rec| {
            let rec = rec.unwrap();
            header
                .iter()
                .cloned()
                .zip(rec.iter().map(String::from))
                .collect()
        })
        .collect();
    (rows, read(&out.join("report.md")))
}

/// The factor report.md states for `label` ("verlet, h = 0.05", or the method alone).
fn stated_factor(report: &str, label: &str) -> f64 {
    let line = format!("- {label}: the numerical solution conserves the modified Hamiltonian ");
    let at = report
        .find(&line)
        .unwrap_or_else(|| panic!("no factor for {label}: {report}"));
    let rest = &report[at + line.len()..];
    num(&rest[..rest.find("× better than H").unwrap()])
}

/// Each run's label in report.md, its factor from summary.csv (max_abs_energy_err over
/// mod_abs_energy_err_max) and the factor report.md states, which must agree to its rounding.
fn factors(rows: &[BTreeMap<String, String>], report: &str) -> Vec<(String, f64)> {
    let mixed_h = rows.iter().any(|r| r["dt"] != rows[0]["dt"]);
    rows.iter()
        .map(|r| {
            let h = num(&r["max_abs_energy_err"]);
            let mh = num(&r["mod_abs_energy_err_max"]);
            assert!(mh > 0.0 && mh.is_finite(), "{r:?}");
            assert!(num(&r["mod_rel_energy_err_max"]) > 0.0, "{r:?}");
            let label = if mixed_h {
                format!("{}, h = {}", r["method"], r["dt"])
            } else {
                r["method"].clone()
            };
            let stated = stated_factor(report, &label);
            let factor = h / mh;
            assert!(
                (stated - factor).abs() <= 0.01 * factor,
                "{label}: stated {stated}, summary.csv {factor}"
            );
            (label, stated)
        })
        .collect()
}

/// Every preset, the factors its methods must reach with one correction term (measured:
/// symplectic Euler 251 and 128, Verlet 2346 and 586 at h = 0.05 and 0.1; Kepler Verlet 2248,
/// yoshida4 418; midpoint 4656, gauss2 547), and its energy figure.
#[test]
fn the_modified_hamiltonian_presets_state_how_much_better_h_tilde_is_kept() {
    let cases: [(&str, &[(&str, f64)]); 3] = [
        (
            "modified-hamiltonian",
            &[
                ("symplectic-euler-a, h = 0.05", 100.0),
                ("symplectic-euler-a, h = 0.1", 100.0),
                ("verlet, h = 0.05", 1000.0),
                ("verlet, h = 0.1", 300.0),
            ],
        ),
        (
            "modified-hamiltonian-kepler",
            &[("verlet", 1000.0), ("yoshida4", 100.0)],
        ),
        (
            "modified-hamiltonian-nonseparable",
            &[("implicit-midpoint", 1000.0), ("gauss2", 300.0)],
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (name, wanted) in cases {
        let out = dir.path().join(name);
        let (rows, report) = study(&out, name, &[]);
        let got = factors(&rows, &report);
        println!("{name}: {got:?}");
        assert_eq!(got.len(), wanted.len(), "{name}: {got:?}");
        for ((label, factor), (want_label, least)) in got.iter().zip(wanted) {
            assert_eq!(label, want_label, "{name}");
            assert!(factor >= least, "{name} {label}: {factor}× < {least}×");
        }
        assert!(
            report.contains("H̃ with 1 correction term (`--modified-hamiltonian 1`)"),
            "{report}"
        );
        // H solid and H̃ dashed, each run labelled twice in the legend.
        assert!(report.contains("](energy_error.png)"), "{report}");
        assert!(out.join("energy_error.png").is_file());
        let svg = read(&out.join("energy_error.svg"));
        let legend: Vec<&str> = svg.lines().map(str::trim).collect();
        for (label, _) in &got {
            for entry in [format!("{label}: H"), format!("{label}: modified H")] {
                assert!(legend.contains(&entry.as_str()), "{name}: {entry}");
            }
        }
    }
}

/// `--modified-hamiltonian 2` overrides the preset's one term: every factor grows (H̃_2's
/// residual is a power of h smaller), and the report names the two terms; a preset without
/// the columns has no such section.
#[test]
fn the_presets_term_count_can_be_overridden_and_other_presets_have_no_factor() {
    let dir = tempfile::tempdir().unwrap();
    let (rows1, report1) = study(&dir.path().join("k1"), "modified-hamiltonian", &[]);
    let (rows2, report2) = study(
        &dir.path().join("k2"),
        "modified-hamiltonian",
        &["--modified-hamiltonian", "2"],
    );
    assert!(report2.contains("H̃ with 2 correction terms (`--modified-hamiltonian 2`)"));
    for ((label, f1), (_, f2)) in factors(&rows1, &report1)
        .iter()
        .zip(factors(&rows2, &report2))
    {
        println!("{label}: K = 1 {f1}×, K = 2 {f2}×");
        assert!(f2 > 5.0 * f1, "{label}: K = 1 {f1}×, K = 2 {f2}×");
    }
    let (rows, report) = study(&dir.path().join("plain"), "oscillator-rectangle", &[]);
    assert!(
        rows.iter().all(|r| r["mod_abs_energy_err_max"].is_empty()),
        "{rows:?}"
    );
    assert!(!report.contains("## Modified Hamiltonian"), "{report}");
    assert!(!report.contains("conserves the modified Hamiltonian"));
}
