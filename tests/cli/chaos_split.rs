//! `--chaos` runs that stop at different snapshots write the same indicators: the deviation
//! vector is rescaled by exact powers of two, so yoshida4's prologue, which recomputes the
//! carried force at every stop, finds the force the steps carried, to the bit.

use std::path::Path;

use tempfile::TempDir;

use crate::common::{argv, phaseflow};

/// A Hénon–Heiles section at E = 1/8 (regular and chaotic orbits), 256 points, 2000 steps.
fn run(precision: &str, every: u64, out: &Path) {
    phaseflow()
        .args(argv(&format!(
            "run --system henon-heiles --method yoshida4 --precision {precision} --ensemble grid \
             --grid-axes q2,p2 --energy 0.125 --lo 0,-0.45,0,-0.45 --hi 0,0.75,0,0.45 \
             --points 256 --dt 0.05 --steps 2000 --chaos megno,lyapunov --snapshot-every {every}"
        )))
        .args(["--quiet", "--out"])
        .arg(out)
        .assert()
        .success();
}

#[test]
fn chaos_files_do_not_depend_on_snapshot_every() {
    let tmp = TempDir::new().unwrap();
    for precision in ["f64", "f32"] {
        let files: Vec<Vec<u8>> = [500, 1000, 2000]
            .iter()
            .map(|every| {
                let out = tmp.path().join(format!("{precision}-{every}"));
                run(precision, *every, &out);
                std::fs::read(out.join("chaos/step_2000.npy")).unwrap()
            })
            .collect();
        let a = phaseflow::npy::decode_f64(&files[0]).unwrap();
        let megno: Vec<f64> = a.data.chunks(2).map(|r| r[0]).collect();
        let chaotic = megno.iter().filter(|y| **y > 4.0).count();
        println!(
            "{precision}: {chaotic} of {} points with <Y> > 4",
            megno.len()
        );
        assert!(chaotic > 0 && chaotic < megno.len(), "{chaotic}");
        for (every, f) in [1000, 2000].iter().zip(&files[1..]) {
            assert!(
                *f == files[0],
                "{precision}: --snapshot-every {every} differs from 500"
            );
        }
    }
}
