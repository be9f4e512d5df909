//! The chaos presets run at small sizes (a few grid points, a short time): each writes its
//! maps, and its report.md states each run's chaotic fraction and mean MEGNO as the run's
//! stats.csv has them; the Hénon–Heiles chaotic fraction grows from E = 1/12 to 1/8 to 1/6.

use std::path::Path;

use super::common::{phaseflow, read, stats};

/// `study --preset NAME --quiet` with `extra` flags into `out`; its stderr.
fn study(out: &Path, name: &str, extra: &[&str]) -> String {
    let done = phaseflow()
        .args(["study", "--preset", name, "--quiet", "--out"])
        .arg(out)
        .args(extra)
        .assert()
        .success();
    String::from_utf8_lossy(&done.get_output().stderr).into_owned()
}

/// report.md's chaos table: per run its label, chaotic fraction and mean ⟨Y⟩, each checked
/// against the last row of the run's stats.csv (folder `label` with `/` as `_`).
fn stated(out: &Path) -> Vec<(String, f64, f64)> {
    let report = read(&out.join("report.md"));
    let table = report
        .split("| run | chaotic fraction | mean ⟨Y⟩ | largest λ | points without indicators |")
        .nth(1)
        .unwrap_or_else(|| panic!("no chaos table: {report}"));
    let rows: Vec<(String, f64, f64)> = table
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let (label, fraction, megno) = (cells[1], cells[2], cells[3]);
            (
                label.to_string(),
                fraction.parse().unwrap(),
                megno.parse().unwrap(),
            )
        })
        .collect();
    assert!(!rows.is_empty(), "{report}");
    for (label, fraction, megno) in &rows {
        let folder = label.replace('/', "_");
        let last = stats(&out.join(&folder)).pop().unwrap();
        for (column, value) in [("chaotic_fraction", fraction), ("megno_mean", megno)] {
            let want = last[column];
            assert!(
                (value - want).abs() <= 1e-5 * want.abs().max(1.0),
                "{label}: report.md states {column} {value}, stats.csv has {want}"
            );
        }
        assert!(out.join(&folder).join("map.png").is_file(), "{folder}");
        assert!(report.contains(&format!("({folder}/map.png)")), "{report}");
    }
    rows
}

#[test]
fn henon_heiles_section_chaotic_fraction_grows_with_the_energy() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("hh");
    study(
        &out,
        "henon-heiles-section",
        &["--points", "144", "--t-end", "400"],
    );
    let rows = stated(&out);
    let labels: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(labels, ["E=1/12", "E=1/8", "E=1/6"]);
    let f: Vec<f64> = rows.iter().map(|r| r.1).collect();
    eprintln!("chaotic fraction at E = 1/12, 1/8, 1/6: {f:?}");
    assert!(f[0] < f[1] && f[1] < f[2], "{f:?}");
    assert!(f[0] < 0.1 && f[2] > 0.6, "{f:?}");
    for folder in ["E=1_12", "E=1_8", "E=1_6"] {
        let svg = read(&out.join(folder).join("section.svg"));
        assert!(svg.contains("coloured by MEGNO"), "{folder}");
    }
    for stem in ["chaotic_fraction", "energy_error_against_parameter"] {
        assert!(read(&out.join(format!("{stem}.svg"))).contains(">\nenergy E\n<"));
    }
}

#[test]
fn the_map_presets_run_small_and_state_their_numbers() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, folder) in [
        ("henon-heiles-megno-map", "yoshida4"),
        ("double-pendulum-chaos-map", "gauss2"),
    ] {
        let out = tmp.path().join(name);
        study(&out, name, &["--points", "25", "--t-end", "20"]);
        let rows = stated(&out);
        assert_eq!(rows.len(), 1, "{name}");
        assert_eq!(rows[0].0, folder);
        let report = read(&out.join("report.md"));
        assert!(report.contains("Cincotta & Simó 2000"), "{name}");
    }
}

#[test]
fn elastic_pendulum_sweep_draws_against_g_hat() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("ep");
    study(
        &out,
        "elastic-pendulum-sweep",
        &["--points", "16", "--t-end", "20"],
    );
    let rows = stated(&out);
    let labels: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(labels.first(), Some(&"g_hat=0.01"));
    assert_eq!(labels.last(), Some(&"g_hat=0.5"));
    assert_eq!(rows.len(), 8);
    for stem in ["chaotic_fraction", "energy_error_against_parameter"] {
        let svg = read(&out.join(format!("{stem}.svg")));
        assert!(svg.contains(">\ng_hat\n<"), "{stem}");
    }
    let config = read(&out.join("g_hat=0.5/config.toml"));
    assert!(config.contains("g_hat = 0.5"), "{config}");
}
