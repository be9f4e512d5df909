//! `phaseflow plot DIR` draws a run's Poincaré section again from section.npy (and, with
//! --chaos, the last chaos file's MEGNO for its colours): the same bytes as the run's
//! section.png/svg, into the run's folder or --out, for every part of a sweep; a damaged
//! section.npy is refused with exit 2 naming the file.

use std::path::Path;

use predicates::prelude::*;

use crate::common::{read, run_quiet};

/// A Hénon–Heiles section q1 = 0 of a 4 × 4 grid on H = 1/8 (points off the surface
/// included), with `extra` flags.
const HH_GRID: &str = "run --system henon-heiles --ensemble grid --grid-axes q2,p2 --energy 0.125 --lo 0,-0.5,0,-0.6 --hi 0,1,0,0.6 --points 16 --method yoshida4 --dt 0.05 --steps 1000 --section q1=0";

const FIGURES: [&str; 2] = ["section.png", "section.svg"];

fn bytes(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn plot(args: &[&Path]) -> assert_cmd::assert::Assert {
    let mut c = crate::common::phaseflow();
    c.args(["plot", "--quiet"]);
    for a in args {
        c.arg(a);
    }
    c.assert()
}

/// `plot --out` into an empty folder and `plot DIR` over the run's own figures both write
/// the run's section.png and section.svg byte for byte, and the folder stays complete.
fn redraws_the_same_section(run: &Path, again: &Path) {
    let before: Vec<Vec<u8>> = FIGURES.iter().map(|f| bytes(&run.join(f))).collect();
    plot(&[Path::new("--out"), again, run]).success();
    plot(&[run]).success();
    for (file, want) in FIGURES.iter().zip(&before) {
        assert!(
            bytes(&again.join(file)) == *want,
            "{file} drawn by plot --out differs from the run's"
        );
        assert!(
            bytes(&run.join(file)) == *want,
            "{file} drawn by plot in the run's folder differs from the run's"
        );
    }
    // The manifest still matches the folder: plot accepts it again.
    plot(&[run]).success();
}

#[test]
fn plot_redraws_the_section_byte_for_byte_with_and_without_chaos() {
    let tmp = tempfile::tempdir().unwrap();
    let chaos = tmp.path().join("chaos");
    run_quiet(&format!("{HH_GRID} --chaos megno"), &chaos);
    assert!(read(&chaos.join("section.svg")).contains("coloured by MEGNO"));
    redraws_the_same_section(&chaos, &tmp.path().join("chaos_again"));
    // A λ-only run colours by λ on the scale of its own values.
    let lyapunov = tmp.path().join("lyapunov");
    run_quiet(&format!("{HH_GRID} --chaos lyapunov"), &lyapunov);
    assert!(read(&lyapunov.join("section.svg")).contains("coloured by Lyapunov exponent"));
    redraws_the_same_section(&lyapunov, &tmp.path().join("lyapunov_again"));
    // Without --chaos, coloured by point index, at f32 on a disk of 40 points.
    let plain = tmp.path().join("plain");
    run_quiet(
        "run --system henon-heiles --ensemble disk --points 40 --center 0,0.1,0.35,0 --radius 0.05 --method verlet --dt 0.05 --steps 1500 --precision f32 --section q2=0,both --section-max 7",
        &plain,
    );
    assert!(read(&plain.join("section.svg")).contains("coloured by point index"));
    redraws_the_same_section(&plain, &tmp.path().join("plain_again"));
}

#[test]
fn plot_on_a_sweep_folder_redraws_every_parts_section() {
    let tmp = tempfile::tempdir().unwrap();
    let sweep = tmp.path().join("sweep");
    run_quiet(
        "run --system elastic-pendulum-cartesian --sweep g_hat=0.1:0.3:2 --ensemble grid --grid-axes q1,q2 --lo 0.5,0,0,0 --hi 1.2,0.8,0,0 --points 9 --method verlet --dt 0.05 --steps 400 --section q1=0,both --chaos megno",
        &sweep,
    );
    let parts = ["part_0", "part_1"];
    let before: Vec<Vec<u8>> = parts
        .iter()
        .map(|p| bytes(&sweep.join(p).join("section.png")))
        .collect();
    assert_ne!(before[0], before[1], "the parts ran with different g_hat");
    let again = tmp.path().join("again");
    plot(&[Path::new("--out"), &again, &sweep]).success();
    for (part, want) in parts.iter().zip(&before) {
        assert!(
            bytes(&again.join(part).join("section.png")) == *want,
            "{part}/section.png drawn by plot differs from the run's"
        );
    }
}

/// section.npy of the run in `dir` replaced by `new`, and the manifest's size and CRC-32 for
/// it with it (as if the run had written it so), so that plot reads the file rather than
/// refusing a folder that changed since the run.
fn replace_section(dir: &Path, new: &[u8]) {
    let manifest = dir.join("manifest.toml");
    let mut text = read(&manifest);
    let entries = |data: &[u8]| {
        let crc = phaseflow::checksum::crc32(data);
        [
            format!("\"section.npy\" = {}\n", data.len()),
            format!("\"section.npy\" = \"{crc:08x}\"\n"),
        ]
    };
    for (old, new) in entries(&bytes(&dir.join("section.npy")))
        .iter()
        .zip(entries(new))
    {
        assert!(text.contains(old), "{text}");
        text = text.replace(old, &new);
    }
    std::fs::write(&manifest, text).unwrap();
    std::fs::write(dir.join("section.npy"), new).unwrap();
}

#[test]
fn a_damaged_section_npy_is_refused_naming_the_file() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    run_quiet(&format!("{HH_GRID} --chaos megno"), &run);
    let good = bytes(&run.join("section.npy"));
    let refused = |says: &str| {
        plot(&[Path::new("--out"), &tmp.path().join("figures"), &run])
            .code(2)
            .stderr(predicate::str::contains("section.npy").and(predicate::str::contains(says)))
            .stderr(predicate::str::contains("panicked").not());
    };
    // Truncated after the run: its manifest says so first.
    std::fs::write(run.join("section.npy"), &good[..good.len() - 13]).unwrap();
    refused("changed since the run");
    // Truncated with a manifest to match.
    std::fs::write(run.join("section.npy"), &good).unwrap();
    replace_section(&run, &good[..good.len() - 13]);
    refused("truncated or malformed .npy");
    // Not an .npy file at all.
    replace_section(&run, b"not an npy file");
    refused("section.npy");
    // A row's point index outside the run's 16 points.
    let mut stray = good.clone();
    let header = good.len() - {
        let a = phaseflow::npy::decode_f64(&good).unwrap();
        a.rows * a.cols * 8
    };
    stray[header..header + 8].copy_from_slice(&16.0f64.to_le_bytes());
    replace_section(&run, &stray);
    refused("point index 16 is not one of the run's points 0..15");
    // Another section's columns (a d = 3 system's, 2 + 2·3 of them) in place of this one's.
    let a = phaseflow::npy::decode_f64(&good).unwrap();
    let wide = phaseflow::npy::encode(1, 8, &[0.0f64; 8]);
    assert_eq!(a.cols, 6);
    replace_section(&run, &wide);
    refused("8 columns, where the section q1=0,up writes 6");
    // The good file back: plot draws again.
    replace_section(&run, &good);
    plot(&[&run]).success();
}
