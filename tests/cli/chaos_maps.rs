//! Pictures of the chaos indicators: map.png/svg over a 2-D grid ensemble (labels, colour
//! bar, points without a value), the Poincaré section coloured by MEGNO, both redrawn by
//! `plot` (on a run folder and on a sweep's), and the four chaos presets at small sizes, whose
//! report.md states the figures of their runs' stats.csv (the Hénon–Heiles chaotic fraction
//! growing with the energy).

use std::path::Path;

use super::common::{phaseflow, read, stats};

/// A Hénon–Heiles grid of `points` on q1 = 0 at E, in (q2, p2), yoshida4 to t = 300.
fn henon_heiles_grid(out: &Path, energy: &str, points: &str, extra: &[&str]) {
    phaseflow()
        .args([
            "run",
            "--system",
            "henon-heiles",
            "--ensemble",
            "grid",
            "--grid-axes",
            "q2,p2",
            "--energy",
            energy,
            "--lo",
            "0,-0.5,0,-0.6",
            "--hi",
            "0,1,0,0.6",
            "--points",
            points,
            "--method",
            "yoshida4",
            "--dt",
            "0.05",
            "--steps",
            "6000",
            "--precision",
            "f64",
            "--quiet",
            "--out",
        ])
        .arg(out)
        .args(extra)
        .assert()
        .success();
}

/// A PNG's width and height, after decoding every pixel.
fn png_size(path: &Path) -> (u32, u32) {
    let file = std::io::BufReader::new(std::fs::File::open(path).unwrap());
    let mut reader = png::Decoder::new(file).read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert!(buf.iter().any(|&b| b != 255), "{}: blank", path.display());
    (info.width, info.height)
}

/// An SVG document's text, checked to be one, with each of `labels` in it (plotters writes
/// each text on a line of its own: a whole label is ">\nLABEL\n<").
fn svg_with(path: &Path, labels: &[&str]) -> String {
    let text = read(path);
    assert!(text.trim_start().starts_with("<svg") && text.trim_end().ends_with("</svg>"));
    for label in labels {
        assert!(text.contains(label), "{} lacks {label:?}", path.display());
    }
    text
}

#[test]
fn a_chaos_grid_run_draws_its_map_and_a_section_coloured_by_megno() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("hh");
    // The fixed deviation vector (1, 1, 1, 1)/2 in (q, p), with which a point of this grid
    // has ⟨Y⟩ < 1 at t = 300, so the legend shows its lowest bin; `plot` reads it back.
    henon_heiles_grid(
        &out,
        "0.125",
        "100",
        &[
            "--chaos",
            "megno,lyapunov",
            "--section",
            "q1=0",
            "--deviation",
            "ones",
            "--deviation-metric",
            "unit",
        ],
    );
    assert_eq!(png_size(&out.join("map.png")), (900, 700));
    let undefined = stats(&out).last().unwrap()["chaos_undefined"];
    assert!(undefined > 0.0, "the box reaches beyond the energy surface");
    svg_with(
        &out.join("map.svg"),
        &[
            "henon-heiles: MEGNO ⟨Y⟩ at t = 300 on H = 0.125",
            ">\nq2\n<",
            ">\np2\n<",
            "MEGNO ⟨Y⟩ (colours clipped to 0–8)",
            &format!(
                "no value: no real p1 ≥ 0 on the energy surface, or blown up ({undefined} of 100)"
            ),
        ],
    );
    png_size(&out.join("section.png"));
    svg_with(
        &out.join("section.svg"),
        &[
            "coloured by MEGNO ⟨Y⟩ (colours clipped to 0–8)",
            "≥ 7",
            "&lt; 1",
        ],
    );
    // `plot` draws the same map from the folder's files.
    let again = tmp.path().join("again");
    phaseflow()
        .args(["plot", "--quiet", "--out"])
        .arg(&again)
        .arg(&out)
        .assert()
        .success();
    assert_eq!(
        std::fs::read(again.join("map.svg")).unwrap(),
        std::fs::read(out.join("map.svg")).unwrap()
    );

    // Without --chaos the section is coloured by point index and there is no map.
    let plain = tmp.path().join("plain");
    henon_heiles_grid(&plain, "0.125", "16", &["--section", "q1=0"]);
    assert!(!plain.join("map.png").exists());
    let svg = svg_with(&plain.join("section.svg"), &["coloured by point index"]);
    assert!(!svg.contains("MEGNO"));
}

#[test]
fn a_lyapunov_only_map_says_so_on_its_colour_bar() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("ly");
    henon_heiles_grid(&out, "0.125", "16", &["--chaos", "lyapunov"]);
    svg_with(
        &out.join("map.svg"),
        &[
            "henon-heiles: Lyapunov exponent λ at t = 300",
            "Lyapunov exponent λ",
        ],
    );
}

/// An elastic-pendulum sweep over g_hat, two values, a 3 × 3 grid each with MEGNO.
fn sweep(out: &Path) {
    phaseflow()
        .args([
            "run",
            "--system",
            "elastic-pendulum-cartesian",
            "--sweep",
            "g_hat=0.1:0.3:2",
            "--ensemble",
            "grid",
            "--grid-axes",
            "q1,q2",
            "--lo",
            "0.5,0,0,0",
            "--hi",
            "1.2,0.8,0,0",
            "--points",
            "9",
            "--method",
            "verlet",
            "--dt",
            "0.05",
            "--steps",
            "200",
            "--chaos",
            "megno",
            "--quiet",
            "--out",
        ])
        .arg(out)
        .assert()
        .success();
}

#[test]
fn plot_on_a_sweep_folder_draws_every_part() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("sw");
    sweep(&out);
    phaseflow()
        .args(["plot", "--quiet"])
        .arg(&out)
        .assert()
        .success();
    for part in ["part_0", "part_1"] {
        for file in ["report.md", "energy_error.png", "map.png"] {
            assert!(out.join(part).join(file).is_file(), "{part}/{file}");
        }
    }
    // The sweep stays a complete folder: its manifest lists the new files.
    let manifest = read(&out.join("manifest.toml"));
    assert!(manifest.contains("part_1/report.md"), "{manifest}");
    // With --out, each part's figures go to their own folder there.
    let figures = tmp.path().join("figures");
    phaseflow()
        .args(["plot", "--quiet", "--out"])
        .arg(&figures)
        .arg(&out)
        .assert()
        .success();
    assert!(figures.join("part_1/map.svg").is_file());
    // A part whose files changed since it ran is refused, exit 2, naming the file.
    std::fs::remove_file(out.join("part_0/map.svg")).unwrap();
    phaseflow()
        .arg("plot")
        .arg(&out)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("map.svg"));
}
