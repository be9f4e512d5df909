//! FLI, SALI and GALI_k through the binary (`--chaos fli,sali,gali2..gali4`): their columns in
//! `chaos/step_<k>.npy` and stats.csv, regular and chaotic Hénon–Heiles sections told apart,
//! resume and shards bit for bit, the GPU engine's files equal to the CPU's on lavapipe and
//! `validate` comparing them, and refusals.

use tempfile::TempDir;

use crate::chaos::{each_refused, rows, shards_merge_to_the_whole_run};
use crate::common::{argv, phaseflow, read, run_quiet as run, stats};

/// A Hénon–Heiles disk with every new indicator on `backend`.
fn henon_heiles(backend: &str) -> String {
    format!(
        "run --system henon-heiles --method yoshida4 --ensemble disk --points 300 --radius 0.2 \
         --dt 0.05 --steps 400 --snapshot-every 100 --chaos fli,sali,gali2,gali3,gali4 \
         --save-states --backend {backend}"
    )
}

/// Sections of E = 1/12 (tori) and E = 1/6 (mostly chaotic) to t = 2000: the columns
/// fli, sali, sali_min, gali2 per point, and stats.csv's fractions: none chaotic at 1/12 by
/// any indicator, most at 1/6 by all three, the means in their ranges.
#[test]
fn the_indicators_tell_tori_from_chaos() {
    let tmp = TempDir::new().unwrap();
    let mut fractions = Vec::new();
    for e in ["0.08333333333333333", "0.16"] {
        let dir = tmp.path().join(e);
        run(
            &format!(
                "run --system henon-heiles --method yoshida4 --precision f64 --ensemble grid \
                 --grid-axes q2,p2 --energy {e} --lo 0,-0.3,0,-0.2 --hi 0,0.4,0,0.2 --points 25 \
                 --dt 0.05 --steps 40000 --snapshot-every 20000 --chaos fli,sali,gali2"
            ),
            &dir,
        );
        let r = rows(&dir, 40000, 4);
        let last = stats(&dir).pop().unwrap();
        println!("E = {e}: {last:?}");
        for row in r.iter().filter(|r| r[0].is_finite()) {
            // SALI in [0, √2], its least so far no larger; GALI_2 in [0, 1].
            assert!(row[1] >= 0.0 && row[1] <= 2f64.sqrt() + 1e-12, "{row:?}");
            assert!(
                row[2] <= row[1] && row[3] >= 0.0 && row[3] <= 1.0 + 1e-12,
                "{row:?}"
            );
        }
        for c in ["fli_mean", "sali_mean", "gali_mean"] {
            assert!(last[c].is_finite(), "{c}");
        }
        fractions.push([
            last["fli_chaotic_fraction"],
            last["sali_chaotic_fraction"],
            last["gali_chaotic_fraction"],
        ]);
    }
    println!("chaotic fractions (fli, sali, gali) at E = 1/12 and 0.16: {fractions:?}");
    assert_eq!(fractions[0], [0.0; 3]);
    assert!(fractions[1].iter().all(|f| *f > 0.3), "{fractions:?}");
}

/// A resumed run writes the same files as an uninterrupted one (the vectors and accumulators
/// travel in the checkpoint), and shards merge to the whole run's stats.csv and indicators
/// bit for bit.
#[test]
fn the_indicators_resume_and_merge_bit_for_bit() {
    crate::resume::interrupted_equals_uninterrupted(
        &argv(
            "run --system henon-heiles --method yoshida4 --ensemble disk --points 64 \
             --radius 0.2 --dt 0.05 --steps 400 --snapshot-every 100 --checkpoint-every 150 \
             --chaos megno,fli,sali,gali3 --save-states",
        ),
        2,
    );
    let tmp = TempDir::new().unwrap();
    let whole = shards_merge_to_the_whole_run(
        tmp.path(),
        "run --system henon-heiles --method verlet --ensemble disk --points 8200 --radius 0.2 \
         --dt 0.05 --steps 60 --snapshot-every 30 --chaos sali,gali4 --save-states",
        &["stats.csv", "chaos/step_30.npy", "chaos/step_60.npy"],
    );
    assert!(read(&whole.join("config.toml")).contains("chaos = \"sali,gali4\""));
}

/// On lavapipe the GPU engine's vectors and accumulators are the CPU's to the bit: every
/// `chaos/step_<k>.npy` byte for byte and the new stats.csv columns cell for cell; `validate`
/// reports no deviation.
#[test]
fn gpu_run_writes_the_cpu_indicators_and_validate_compares_them() {
    let tmp = TempDir::new().unwrap();
    let (g, c) = (tmp.path().join("gpu"), tmp.path().join("cpu"));
    run(&henon_heiles("gpu"), &g);
    run(&henon_heiles("cpu"), &c);
    for step in [0, 100, 200, 300, 400] {
        let file = format!("chaos/step_{step}.npy");
        assert_eq!(
            std::fs::read(g.join(&file)).unwrap(),
            std::fs::read(c.join(&file)).unwrap(),
            "{file}"
        );
    }
    assert_eq!(rows(&c, 400, 6).len(), 300);
    let (gs, cs) = (stats(&g), stats(&c));
    for (a, b) in gs.iter().zip(&cs).skip(1) {
        for col in [
            "fli_mean",
            "fli_chaotic_fraction",
            "sali_mean",
            "sali_chaotic_fraction",
            "gali_mean",
            "gali_chaotic_fraction",
        ] {
            assert_eq!(a[col].to_bits(), b[col].to_bits(), "{col}");
        }
    }
    let args = "validate --system henon-heiles --method yoshida4 --ensemble disk --points 64 \
                --radius 0.2 --dt 0.05 --steps 400 --snapshot-every 100 --chaos fli,sali,gali4";
    let out = phaseflow().args(argv(args)).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    println!("{text}");
    assert!(
        text.contains("chaos_max_rel_dev=0.000e0 chaos_undefined_mismatch=0"),
        "{text}"
    );
}

/// GALI_k needs k ≤ 2d vectors; unknown names are refused with the list.
#[test]
fn bad_alignment_input_is_refused() {
    let tmp = TempDir::new().unwrap();
    let cases = [
        (
            "run --system pendulum --method verlet --ensemble disk --points 4 --dt 0.01 --steps 10 --chaos gali3".into(),
            "choose gali2 to gali2",
        ),
        (
            "run --system henon-heiles --method verlet --ensemble disk --points 4 --dt 0.01 --steps 10 --chaos gali5".into(),
            "unknown indicator 'gali5'; choose from megno, lyapunov, fli, sali, gali2, gali3, gali4",
        ),
    ];
    each_refused(tmp.path(), &cases);
}
