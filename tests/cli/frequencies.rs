//! Frequency analysis (`--frequencies`): the pendulum's libration frequency against the exact
//! value, the halves of a regular orbit agreeing and a chaotic orbit's not, the GPU engine's
//! frequencies against the CPU's (`validate`, lavapipe in CI), the files and figures, bad input.

use std::path::Path;

use phaseflow::npy::{decode_f64, Array2};
use tempfile::TempDir;

use crate::common::{argv, phaseflow, read};

fn run_with(line: &str, out: &Path) -> Array2 {
    let mut args = argv(line);
    args.extend(["--quiet".into(), "--out".into(), out.display().to_string()]);
    phaseflow().args(&args).assert().success();
    decode_f64(&std::fs::read(out.join("frequencies.npy")).unwrap()).unwrap()
}

/// The arithmetic–geometric mean of a and b.
fn agm(mut a: f64, mut b: f64) -> f64 {
    for _ in 0..60 {
        let (x, y) = ((a + b) / 2.0, (a * b).sqrt());
        a = x;
        b = y;
    }
    a
}

/// The pendulum (m = g = l = 1) released from rest at q0 = 1 librates with angular frequency
/// π/(2K(k)), k = sin(q0/2), which is AGM(1, √(1 − k²)). Over 10⁴ periods, Kahan–Li's order-8
/// composition at h = 0.02 has a phase error far below 1e-10 (its own error per unit time is
/// about (h ω)⁸ times a constant), so NAFF's accuracy is what is measured: the whole run's and
/// both halves' frequencies within 1e-10 relative. With a plain Fourier peak (the bin of the
/// largest modulus) the error would be half a bin, 2π/(2T) ≈ 5e-5 relative.
#[test]
fn pendulum_libration_frequency_to_1e_10() {
    let tmp = TempDir::new().unwrap();
    let q0: f64 = 1.0;
    let k = (q0 / 2.0).sin();
    let exact = agm(1.0, (1.0 - k * k).sqrt());
    let period = 2.0 * std::f64::consts::PI / exact;
    let dt = 0.02;
    let steps = (1e4 * period / dt).ceil() as u64;
    let a = run_with(
        &format!(
            "run --system pendulum --method kahan-li8 --ensemble point --center {q0},0 \
             --precision f64 --backend cpu --dt {dt} --steps {steps} --snapshot-every {steps} \
             --frequencies q,q-ip --frequency-stride 10"
        ),
        &tmp.path().join("run"),
    );
    assert_eq!((a.rows, a.cols), (1, 8));
    for (c, name) in [
        (0, "q: whole"),
        (1, "q: first half"),
        (2, "q: second half"),
        (4, "q - ip: whole"),
    ] {
        let rel = (a.data[c] - exact).abs() / exact;
        println!(
            "{name}: ν = {:.15} exact {exact:.15} relative error {rel:.2e}",
            a.data[c]
        );
        assert!(
            rel < 1e-10,
            "{name}: {} against {exact}: {rel:e}",
            a.data[c]
        );
    }
    // The diffusion index of a periodic orbit: the halves agree to NAFF's accuracy.
    assert!(a.data[3] < (exact * 1e-10).log10(), "{}", a.data[3]);
}

/// Hénon–Heiles at E = 1/8: a regular orbit (q2 = 0.1 in the outer island) has halves that
/// agree far better than a chaotic one's (q2 = −0.1 … in the sea), and the run writes the
/// frequency map and, over a grid, the diffusion map.
#[test]
fn henon_heiles_grid_writes_the_maps() {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("grid");
    let a = run_with(
        "run --system henon-heiles --method yoshida4 --ensemble grid --grid-axes q2,p2 \
         --points 64 --lo 0,-0.4,0,-0.4 --hi 0,0.6,0,0.4 --energy 0.125 --precision f64 \
         --backend cpu --dt 0.05 --steps 8192 --frequencies q1-ip1,q2-ip2 --frequency-stride 4",
        &out,
    );
    assert_eq!((a.rows, a.cols), (64, 8));
    for file in [
        "frequency-map.png",
        "frequency-map.svg",
        "diffusion-map.png",
        "diffusion-map.svg",
    ] {
        assert!(out.join(file).exists(), "{file}");
    }
    let manifest = read(&out.join("manifest.toml"));
    assert!(manifest.contains("frequencies.npy"), "{manifest}");
    // Points on the energy surface: frequencies near the harmonic limit 1, positive for the
    // clockwise q − i p, and a finite diffusion index.
    let mut found = 0;
    for r in 0..a.rows {
        let row = &a.data[r * 8..r * 8 + 8];
        if !row[0].is_finite() {
            continue;
        }
        found += 1;
        for s in [0, 4] {
            assert!(row[s] > 0.5 && row[s] < 1.2, "row {r}: {row:?}");
        }
    }
    assert!(found > 20, "{found} points on the surface");
}

/// `validate --frequencies` on the GPU engine at f64 (lavapipe in CI) and the CPU engine's
/// frequencies of `steps` steps sampled every 2.
fn validate_frequencies(steps: u64) -> f64 {
    let out = phaseflow()
        .args(argv(&format!(
            "validate --system henon-heiles --method verlet --ensemble disk --points 40 \
             --radius 0.1 --center 0,0.1,0.3,0 --precision f64 --dt 0.05 --steps {steps} \
             --snapshot-every {steps} --frequencies q1-ip1,q2 --frequency-stride 2"
        )))
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    println!("{text}");
    assert!(text.contains("frequencies=240"), "{text}");
    assert!(text.contains("frequency_mismatch=0"), "{text}");
    text.split("frequency_max_rel_dev=")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|s| s.parse().ok())
        .unwrap()
}

/// The device's analysis (512 samples of two signals: within a CPU driver's loop budget, so
/// lavapipe runs the WGSL analysis too) agrees with the CPU's to the rounding of its sums; a
/// longer one, which lavapipe's loop limiter rules out on the device, is analysed on the host
/// from the samples read back once, by the CPU engine's code: equal.
#[test]
fn validate_compares_the_gpu_frequencies() {
    let device = validate_frequencies(1024);
    assert!(device < 1e-13, "{device}");
    let host = validate_frequencies(4096);
    assert!(host < 1e-13, "{host}");
}

/// Bad input is refused with exit 2 and a message naming the fix.
#[test]
fn bad_input_exits_2() {
    let tmp = TempDir::new().unwrap();
    let base = "run --system henon-heiles --method verlet --ensemble disk --points 10 --dt 0.05 --steps 400";
    for (flags, says) in [
        ("--frequencies q3", "q1..q2, p1..p2"),
        ("--frequencies q1,q1", "given twice"),
        ("--frequencies x1-iy1", "not a signal"),
        (
            "--frequencies q1 --frequency-stride 100",
            "fewer than the 16",
        ),
        ("--frequency-stride 4", "add --frequencies"),
        ("--frequencies q1 --frequency-stride 0", "at least 1"),
        ("--frequencies q1 --reverse", "forward in time"),
        (
            "--frequencies q1 --checkpoint-every 10",
            "keep no checkpoints",
        ),
        ("--frequencies q1 --devices 0,1", "drop --devices"),
    ] {
        let out = tmp.path().join("x");
        let mut args = argv(base);
        args.extend(argv(flags));
        args.extend(["--out".into(), out.display().to_string()]);
        let err = phaseflow().args(&args).assert().code(2);
        let text = String::from_utf8_lossy(&err.get_output().stderr).to_string();
        assert!(text.contains(says), "{flags}: {text}");
        assert!(!out.exists(), "{flags}: the folder was written");
    }
}

/// A point stopped by `--stop-when` has no frequency (NaN, its samples after the stop would
/// repeat the stopped state); the points still running have the frequencies of the run
/// without the condition, bit for bit.
#[test]
fn stopped_points_have_no_frequency() {
    let tmp = TempDir::new().unwrap();
    let base = "run --system pendulum --method yoshida4 --ensemble disk --points 50 --radius 0.5 \
                --center 0.5,0 --precision f64 --backend cpu --dt 0.05 --steps 2048 \
                --frequencies q-ip,q --frequency-stride 4";
    let free = run_with(base, &tmp.path().join("free"));
    let stopped = run_with(
        &format!("{base} --stop-when q>0.9"),
        &tmp.path().join("stopped"),
    );
    let stops = decode_f64(&std::fs::read(tmp.path().join("stopped/stops.npy")).unwrap()).unwrap();
    let who: Vec<usize> = (0..stops.rows)
        .map(|r| stops.data[r * 4] as usize)
        .collect();
    assert!(!who.is_empty() && who.len() < 50, "{who:?}");
    for i in 0..50 {
        let (a, b) = (
            &free.data[i * 8..i * 8 + 8],
            &stopped.data[i * 8..i * 8 + 8],
        );
        match who.contains(&i) {
            true => assert!(b.iter().all(|v| v.is_nan()), "point {i}: {b:?}"),
            false => assert!(
                a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits()),
                "point {i}: {a:?} against {b:?}"
            ),
        }
    }
}

/// Two shards (shards start at multiples of 4096 points: a 91 × 91 grid) merged give the
/// whole run's frequencies.npy byte for byte (in point order) and its maps; `phaseflow plot` draws the maps again from frequencies.npy, the same files.
#[test]
fn shards_merge_and_plot_redraws_the_maps() {
    let tmp = TempDir::new().unwrap();
    let args = "run --system henon-heiles --method yoshida4 --ensemble grid --grid-axes q2,p2 \
                --points 8281 --lo 0,-0.4,0,-0.4 --hi 0,0.6,0,0.4 --energy 0.125 --precision f64 \
                --backend cpu --dt 0.05 --steps 256 --frequencies q1-ip1,q2-ip2 \
                --frequency-stride 4";
    let whole = crate::chaos::shards_merge_to_the_whole_run(
        tmp.path(),
        args,
        &["frequencies.npy", "frequency-map.svg", "diffusion-map.svg"],
    );
    let drawn = tmp.path().join("drawn");
    phaseflow()
        .args(["plot", "--quiet"])
        .arg(&whole)
        .arg("--out")
        .arg(&drawn)
        .assert()
        .success();
    for name in [
        "frequency-map.svg",
        "diffusion-map.svg",
        "frequency-map.png",
    ] {
        assert_eq!(
            std::fs::read(whole.join(name)).unwrap(),
            std::fs::read(drawn.join(name)).unwrap(),
            "{name}"
        );
    }
}

/// Without --frequency-stride the run takes about 512 samples (a stride of ⌊steps/512⌋, at
/// least 1), written to config.toml; a frequency near the highest the samples resolve,
/// π/(K·dt), is noted on stderr: one just below it, and one above it that the samples fold
/// back below it (aliasing).
#[test]
fn the_default_stride_and_the_aliasing_note() {
    let tmp = TempDir::new().unwrap();
    let base = "run --system pendulum --method yoshida4 --ensemble point --center 0.5,0 \
                --precision f64 --backend cpu --dt 0.05 --frequencies q --quiet";
    for (steps, stride) in [(1000, 1), (16384, 32), (20000, 39), (40960, 80)] {
        let out = tmp.path().join(format!("s{steps}"));
        let mut args = argv(&format!("{base} --steps {steps}"));
        args.extend(["--out".into(), out.display().to_string()]);
        phaseflow().args(&args).assert().success();
        let config = read(&out.join("config.toml"));
        assert!(
            config.contains(&format!("frequency_stride = {stride}\n")),
            "{steps}: {config}"
        );
    }
    // ω ≈ 0.985 sampled every 60 · 0.05 = 3 time units: π/3 ≈ 1.047, within 10 % of it; every
    // 65 · 0.05 = 3.25: π/3.25 ≈ 0.967 is below ω, which the samples fold back to
    // 2π/3.25 − ω ≈ 0.948 (the frequency found), within 10 % of the limit.
    for (stride, found) in [(60, 0.985), (65, 2.0 * std::f64::consts::PI / 3.25 - 0.985)] {
        let out = tmp.path().join(format!("aliased{stride}"));
        let mut args = argv(&format!("{base} --steps 8000 --frequency-stride {stride}"));
        args.extend(["--out".into(), out.display().to_string()]);
        let done = phaseflow().args(&args).assert().success();
        let text = String::from_utf8_lossy(&done.get_output().stderr).to_string();
        assert!(text.contains("aliasing"), "stride {stride}: {text}");
        let nu = decode_f64(&std::fs::read(out.join("frequencies.npy")).unwrap()).unwrap();
        assert!(
            (nu.data[0] - found).abs() < 2e-3,
            "stride {stride}: {:?}",
            nu.data
        );
    }
    let mut args = argv(&format!("{base} --steps 8000 --frequency-stride 4"));
    args.extend([
        "--out".into(),
        tmp.path().join("fine").display().to_string(),
    ]);
    let done = phaseflow().args(&args).assert().success();
    let text = String::from_utf8_lossy(&done.get_output().stderr).to_string();
    assert!(!text.contains("aliasing"), "{text}");
}
