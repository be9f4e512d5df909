//! Reports with known truths: what a study's report.md and a run's stdout say must be as
//! right as the numbers. f32 cannot resolve the Kepler tangent map's determinant, and says
//! so; a symplectic f64 run keeps its area to rounding; RK4 contracts the oscillator by the
//! predicted |R(ih)|²ⁿ and its energy error drifts; escaped points are counted.

use super::common::{argv, phaseflow, read, stats, verdict};

/// `study ARGS --out DIR --quiet`, which must succeed; returns report.md and stdout.
fn study(args: &str, out: &std::path::Path) -> (String, String) {
    let got = phaseflow()
        .args(argv(args))
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    assert!(
        got.status.success(),
        "{}",
        String::from_utf8_lossy(&got.stderr)
    );
    (
        read(&out.join("report.md")),
        String::from_utf8_lossy(&got.stdout).into_owned(),
    )
}

/// A number of summary.csv: `column` of the row of `method`.
fn summary_value(dir: &std::path::Path, method: &str, column: &str) -> f64 {
    let mut r = csv::Reader::from_path(dir.join("summary.csv")).unwrap();
    let header = r.headers().unwrap().clone();
    let at = header.iter().position(|h| h == column).unwrap();
    let m = header.iter().position(|h| h == "method").unwrap();
    let row = r
        .records()
        .map(Result::unwrap)
        .find(|rec| &rec[m] == method)
        .unwrap();
    row[at].parse().unwrap()
}

const KEPLER: &str =
    "study --system kepler --methods verlet,yoshida4 --dt 0.01 --t-end 200 --ensemble point";

/// In f32 the tangent map's entries (of order 10² after 32 orbits) leave det − 1 below the
/// rounding floor: no growth "as expected", no "step too large", but "not resolved at f32"
/// (f64 gives 1 ± 3e-11 and a bounded 1e-6 energy error for yoshida4).
#[test]
fn kepler_in_f32_says_what_f32_cannot_resolve() {
    let dir = tempfile::tempdir().unwrap();
    let (report, _) = study(&format!("{KEPLER} --precision f32"), dir.path());
    for method in ["verlet", "yoshida4"] {
        let v = verdict(&report, method);
        assert!(
            v.contains("the area is not resolved at f32 (final ratio")
                && v.contains("rerun with --precision f64 (or --compensated)")
                && v.contains("cannot show whether it kept the area"),
            "{v}"
        );
        for wrong in [
            "grew by",
            "shrank by",
            "as expected",
            "step is too large",
            "drifting",
        ] {
            assert!(!v.contains(wrong), "{wrong:?} in: {v}");
        }
        // The floor is stored beside the value it bounds.
        let floor = summary_value(dir.path(), method, "det_floor");
        let ratio = summary_value(dir.path(), method, "final_area_ratio");
        assert!((ratio - 1.0).abs() <= floor, "{ratio} {floor}");
    }
}

/// Without --precision a custom study runs in f64 on the CPU engine and says why; there both
/// symplectic methods keep the area to rounding, as expected.
#[test]
fn kepler_custom_study_runs_in_f64_and_keeps_the_area_to_rounding() {
    let dir = tempfile::tempdir().unwrap();
    let (report, _) = study(KEPLER, dir.path());
    assert!(report.contains("precision f64"), "{report}");
    assert!(
        report.contains("It runs in f64 on the CPU engine, custom studies' default"),
        "{report}"
    );
    for method in ["verlet", "yoshida4"] {
        let v = verdict(&report, method);
        assert!(
            v.contains("the area was kept to rounding (final ratio 1 ")
                && v.contains("(bounded, without systematic drift)")
                && v.ends_with("as expected of a symplectic method."),
            "{v}"
        );
        let deviation = (summary_value(dir.path(), method, "final_area_ratio") - 1.0).abs();
        let floor = summary_value(dir.path(), method, "det_floor");
        assert!(deviation <= floor && floor < 1e-6, "{deviation} {floor}");
    }
}

/// RK4 on the oscillator: det DΦⁿ = |R(ih)|²ⁿ with |R(ih)|² = 1 − h⁶/72 + h⁸/576, far above
/// the f64 floor, and the energy H = |z|²/2 shrinks by the same factor, steadily: the report
/// says the area shrank and the error drifts; Verlet beside it keeps the area to rounding.
#[test]
fn rk4_contracts_the_oscillator_by_the_predicted_factor() {
    let dir = tempfile::tempdir().unwrap();
    let (report, _) = study(
        "study --system oscillator --methods rk4,verlet --dt 0.1 --t-end 1000 --ensemble point --precision f64",
        dir.path(),
    );
    let h: f64 = 0.1;
    let predicted = (1.0 - h.powi(6) / 72.0 + h.powi(8) / 576.0).powi(10_000);
    let ratio = summary_value(dir.path(), "rk4", "final_area_ratio");
    assert!(
        (ratio / predicted - 1.0).abs() < 1e-9,
        "{ratio} vs {predicted}"
    );
    assert!(summary_value(dir.path(), "rk4", "det_floor") < 1e-3 * (1.0 - predicted));
    let v = verdict(&report, "rk4");
    assert!(
        v.contains("the area shrank by a factor 1 − 1.4e-4 (beyond its rounding floor")
            && v.contains("(drifting upwards: fitted slope")
            && v.ends_with("this method is not symplectic."),
        "{v}"
    );
    let v = verdict(&report, "verlet");
    assert!(
        v.contains("the area was kept to rounding")
            && v.ends_with("as expected of a symplectic method."),
        "{v}"
    );
}

/// Hénon–Heiles far above the escape energy: `run` counts the escaped points beside its
/// statistics (which they dominate) and gives the others' errors; the study's report counts
/// them too, and calls nothing bounded.
#[test]
fn escaped_points_are_counted_in_stdout_and_in_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let ensemble = "--system henon-heiles --ensemble disk --points 400 --center 0,0,0,0 --radius 0.8 --dt 0.05";
    let got = phaseflow()
        .args(argv(&format!(
            "run {ensemble} --method yoshida4 --steps 400 --out"
        )))
        .arg(dir.path().join("run"))
        .output()
        .unwrap();
    assert!(got.status.success());
    let stdout = String::from_utf8_lossy(&got.stdout);
    let last = stats(&dir.path().join("run")).pop().unwrap();
    let escaped = last["escaped"] as u64;
    assert!(escaped > 0 && escaped < 400, "{last:?}");
    assert!(
        stdout.contains(&format!(
            "escaped: {escaped} of 400 points (non-finite, or energy error above 1000 × (1 + |H(z0)|)); the {} that stayed: abs_energy_err_max ",
            400 - escaped
        )),
        "{stdout}"
    );
    let (report, _) = study(
        // f32: escaping points take the f64 CPU path minutes (as before this change)
        &format!("study {ensemble} --methods yoshida4 --t-end 20 --precision f32"),
        &dir.path().join("study"),
    );
    let v = verdict(&report, "yoshida4");
    let counted = summary_value(&dir.path().join("study"), "yoshida4", "escaped");
    assert!(
        v.contains(&format!("{counted} of 400 points")) && v.contains("the area is not measurable"),
        "{v}"
    );
    assert!(
        !v.contains("bounded, without") && !v.contains("as expected"),
        "{v}"
    );
}

/// The tour's quartic run in f32: its mean energy error rises about 20× over the run, all
/// of it rounding (f64: 1e-11): `plot` says so, not "bounded, without systematic drift".
#[test]
fn a_rise_within_the_rounding_floor_is_called_rounding() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("quartic");
    phaseflow()
        .args(argv(
            "run --hamiltonian p^2/2+q^4/4 --method yoshida4 --ensemble disk --points 2000 --dt 0.01 --steps 1000 --quiet --out",
        ))
        .arg(&run)
        .assert()
        .success();
    phaseflow().arg("plot").arg(&run).assert().success();
    let v = verdict(&read(&run.join("report.md")), "yoshida4").to_string();
    assert!(
        v.contains("(kept to rounding: the absolute error is within its rounding floor"),
        "{v}"
    );
    assert!(!v.contains("bounded, without systematic drift"), "{v}");
}

/// A grid on an energy surface whose corners have no real momentum there: those points are
/// non-finite from the start, and `run` says so apart, not as escaped points (nothing escapes
/// at E = 1/12 in 40 steps).
#[test]
fn points_undefined_from_the_start_are_not_called_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let got = phaseflow()
        .args(argv(
            "run --system henon-heiles --method yoshida4 --ensemble grid --grid-axes q2,p2 \
             --energy 0.08333333333333333 --lo 0,-0.45,0,-0.45 --hi 0,0.75,0,0.45 --points 400 \
             --dt 0.05 --steps 40 --out",
        ))
        .arg(dir.path().join("run"))
        .output()
        .unwrap();
    assert!(got.status.success());
    let stdout = String::from_utf8_lossy(&got.stdout);
    let rows = stats(&dir.path().join("run"));
    let undefined = rows[0]["escaped"] as u64;
    assert!(undefined > 0 && undefined < 400, "{:?}", rows[0]);
    assert_eq!(rows.last().unwrap()["escaped"] as u64, undefined);
    assert!(
        stdout.contains(&format!(
            "undefined from the start: {undefined} of 400 points (a non-finite initial state"
        )) && stdout.contains("on the energy surface); not counted as escaped"),
        "{stdout}"
    );
    assert!(!stdout.contains("escaped:"), "{stdout}");
}
