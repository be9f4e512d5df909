//! `phaseflow devices --calibrate`: the CPU engine and the GPU timed (here lavapipe, which
//! `--backend auto` never takes, as it is no hardware GPU), the figures kept in the cache named
//! by PHASEFLOW_CACHE_DIR and shown by `devices` afterwards; a damaged cache is measured again.

use tempfile::TempDir;

use crate::common::phaseflow;

fn devices(cache: &std::path::Path, args: &[&str]) -> (String, String) {
    let out = phaseflow()
        .arg("devices")
        .args(args)
        .env("PHASEFLOW_CACHE_DIR", cache)
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    );
    assert!(out.status.success(), "{stdout}\n{stderr}");
    (stdout, stderr)
}

#[test]
fn calibrate_keeps_the_figures_that_devices_shows() {
    let tmp = TempDir::new().unwrap();
    let (before, _) = devices(tmp.path(), &[]);
    assert!(
        before.contains("no calibration of this machine yet")
            && before.contains("phaseflow devices --calibrate"),
        "{before}"
    );
    let (measured, stderr) = devices(tmp.path(), &["--calibrate"]);
    assert!(stderr.contains("timing the CPU engine and"), "{stderr}");
    let file = tmp.path().join("calibration.toml");
    let text = std::fs::read_to_string(&file).unwrap();
    let figures: toml::Table = toml::from_str(&text).unwrap();
    let entry = &figures["calibration"].as_array().unwrap()[0];
    for precision in ["f32", "f64"] {
        for engine in ["cpu", "gpu"] {
            let times = &entry[precision][engine];
            assert_eq!(
                times["points"].as_array().unwrap().len(),
                4,
                "{precision} {engine}"
            );
            for step in times["step"].as_array().unwrap() {
                assert!(step.as_float().unwrap() > 0.0, "{text}");
            }
        }
    }
    // The sentence per precision: both engines' speed, the start-up and the break-even.
    for line in [&measured, &devices(tmp.path(), &[]).0] {
        assert!(line.contains("calibration of llvmpipe"), "{line}");
        for precision in [
            "  f32: at 524288 points the CPU engine ",
            "  f64: at 524288 points",
        ] {
            assert!(line.contains(precision), "{line}");
        }
        assert!(line.contains("snapshots --backend auto "), "{line}");
    }
    // A cut cache reads as none; measuring again writes it whole.
    std::fs::write(&file, &text[..text.len() / 3]).unwrap();
    assert!(devices(tmp.path(), &[])
        .0
        .contains("no calibration of this machine yet"));
    devices(tmp.path(), &["--calibrate"]);
    let again: toml::Table = toml::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(again["calibration"].as_array().unwrap().len(), 1);
    assert_eq!(
        std::fs::read_dir(tmp.path()).unwrap().count(),
        1,
        "no partial file left"
    );
}
