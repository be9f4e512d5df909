//! The `rk-symplecticity` preset, shortened: the report says which conditions each method's
//! coefficients satisfy, and the loop's area shows it (Gauss keeps it, Radau IIA does not).

use tempfile::TempDir;

use crate::common::{argv, phaseflow, read, stats};

/// |final area − initial area| of one method's run in the study folder.
fn area_deviation(study: &std::path::Path, method: &str) -> f64 {
    let rows = stats(&study.join(method));
    let area = |row: &std::collections::BTreeMap<String, f64>| row["area"];
    (area(rows.last().unwrap()) - area(&rows[0])).abs()
}

#[test]
fn rk_symplecticity_report_names_the_conditions_and_gauss_keeps_the_area() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("study");
    // 1000 steps of the preset's h = 0.05.
    phaseflow()
        .args(argv(
            "study --preset rk-symplecticity --t-end 50 --quiet --out",
        ))
        .arg(&out)
        .assert()
        .success();
    let report = read(&out.join("report.md"));
    for (method, verdict) in [
        ("gauss2", "order 4 from the order conditions"),
        ("gauss2", "; symplectic (largest residual"),
        ("lobatto-iiia-iiib-3", "; symplectic (largest residual"),
        ("radau-iia-2", "; not symplectic (largest residual"),
        ("rk4", "; not symplectic (largest residual"),
    ] {
        let line = report
            .lines()
            .find(|l| l.contains(&format!("Conditions: {method} (")))
            .unwrap_or_else(|| panic!("no conditions line for {method}:\n{report}"));
        assert!(line.contains(verdict), "{method}: {line}");
    }
    let gauss = area_deviation(&out, "gauss2");
    let lobatto = area_deviation(&out, "lobatto-iiia-iiib-3");
    let radau = area_deviation(&out, "radau-iia-2");
    let rk4 = area_deviation(&out, "rk4");
    eprintln!("area deviations after 1000 steps: gauss2 {gauss:.2e}, lobatto-iiia-iiib-3 {lobatto:.2e}, radau-iia-2 {radau:.2e}, rk4 {rk4:.2e}");
    assert!(gauss < 1e-12 && lobatto < 1e-12, "{gauss} {lobatto}");
    // Radau IIA loses area at order h⁴ per step, RK4 at h⁶: both far above round-off.
    assert!(radau > 1e6 * gauss.max(1e-15), "{radau} vs {gauss}");
    assert!(rk4 > 1e3 * gauss.max(1e-15), "{rk4} vs {gauss}");
}
