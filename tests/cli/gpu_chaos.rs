//! The chaos indicators on the GPU engine through the binary (lavapipe in CI): the same
//! stats.csv columns and `chaos/step_<k>.npy` as the CPU engine, MEGNO → 2 on a regular
//! pendulum orbit, resume equal to the uninterrupted GPU run, and `validate --chaos --section`
//! reporting the indicators' and the crossings' deviations.

use tempfile::TempDir;

use crate::common::{argv, phaseflow, read, run_quiet as run, stats};

/// A Hénon–Heiles disk with both indicators on `backend`.
fn henon_heiles(backend: &str) -> String {
    format!(
        "run --system henon-heiles --method yoshida4 --ensemble disk --points 300 --radius 0.2 \
         --dt 0.05 --steps 400 --snapshot-every 100 --chaos megno,lyapunov --save-states \
         --backend {backend}"
    )
}

/// The GPU's indicators are the CPU's bit for bit on lavapipe: every `chaos/step_<k>.npy`
/// byte for byte and stats.csv's chaos columns cell for cell. (Hénon–Heiles' states are equal
/// to the bit on both engines, and the 100-step snapshot pieces are shorter than lavapipe's
/// steps per dispatch, so both engines cut the run at the same steps: a kick–drift method
/// recomputes its carried force from the renormalised δ where an advance starts, which moves
/// the last bits.)
#[test]
fn gpu_run_writes_the_cpu_indicators() {
    let tmp = TempDir::new().unwrap();
    let (g, c) = (tmp.path().join("gpu"), tmp.path().join("cpu"));
    run(&henon_heiles("gpu"), &g);
    run(&henon_heiles("cpu"), &c);
    assert!(read(&g.join("config.toml")).contains("backend = \"gpu\""));
    for step in [0, 100, 200, 300, 400] {
        let file = format!("chaos/step_{step}.npy");
        assert_eq!(
            std::fs::read(g.join(&file)).unwrap(),
            std::fs::read(c.join(&file)).unwrap(),
            "{file}"
        );
    }
    let (gs, cs) = (stats(&g), stats(&c));
    assert_eq!(gs.len(), 5);
    for (a, b) in gs.iter().zip(&cs) {
        for col in [
            "megno_mean",
            "lyapunov_mean",
            "lyapunov_max",
            "chaotic_fraction",
            "chaos_undefined",
        ] {
            // (empty at step 0, before the first step, on both)
            assert_eq!(
                a.get(col).map(|x| x.to_bits()),
                b.get(col).map(|x| x.to_bits()),
                "{col} at step {}",
                a["step"]
            );
        }
    }
    println!("GPU megno_mean at t = 20: {}", gs[4]["megno_mean"]);
    assert!(gs[4]["megno_mean"] > 0.0);
}

/// `run --backend gpu --chaos megno`: ⟨Y⟩ of pendulum librations within 0.05 of 2 at t = 10⁴.
#[test]
fn gpu_megno_is_two_on_regular_pendulum_orbits() {
    let tmp = TempDir::new().unwrap();
    let dir = tmp.path().join("pendulum");
    run(
        "run --system pendulum --method yoshida4 --precision f64 --ensemble grid \
         --lo -0.1,0.8 --hi 0.1,1.6 --points 9 --dt 0.1 --steps 100000 --chaos megno \
         --backend gpu",
        &dir,
    );
    let bytes = std::fs::read(dir.join("chaos/step_100000.npy")).unwrap();
    let megno = phaseflow::npy::decode_f64(&bytes).unwrap().data;
    println!("GPU <Y> at t = 1e4: {megno:?}");
    assert_eq!(megno.len(), 9);
    assert!(megno.iter().all(|y| (y - 2.0).abs() < 0.05), "{megno:?}");
    let last = stats(&dir).pop().unwrap();
    assert_eq!(last["chaotic_fraction"], 0.0);
}

/// A GPU run interrupted after a checkpoint and resumed writes the files of the uninterrupted
/// GPU run (the accumulators are read back into the checkpoint and uploaded on resume).
#[test]
fn gpu_indicators_resume_bit_for_bit() {
    crate::resume::interrupted_equals_uninterrupted(
        &argv(&format!("{} --checkpoint-every 150", henon_heiles("gpu"))),
        2,
    );
}

/// `validate --chaos --section`: the indicators and the crossings compared and reported; a
/// tolerance below the crossings' deviation fails naming them.
#[test]
fn validate_compares_indicators_and_crossings() {
    let args = "validate --system henon-heiles --method yoshida4 --ensemble disk --points 64 \
                --radius 0.2 --dt 0.05 --steps 400 --snapshot-every 100 --chaos megno,lyapunov \
                --section q1=0";
    let out = phaseflow().args(argv(args)).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    println!("{text}");
    assert!(
        text.contains("chaos_max_rel_dev=0.000e0 chaos_undefined_mismatch=0"),
        "{text}"
    );
    assert!(text.contains("section_count_mismatch=0"), "{text}");
    let crossings: u64 = text
        .split("section_crossings=")
        .nth(1)
        .and_then(|t| t.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert!(crossings > 64, "{crossings}");
    assert!(text.ends_with("PASS\n"), "{text}");
    let strict = phaseflow()
        .args(argv(args))
        .args(["--tolerance", "1e-12"])
        .assert()
        .code(1);
    let err = String::from_utf8(strict.get_output().stderr.clone()).unwrap();
    assert!(err.contains("section crossings disagree"), "{err}");
}
