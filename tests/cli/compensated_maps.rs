//! `--compensated` on a discrete map from the command line: the CPU engine takes each f32 step
//! in f64 from the state's (value, carried error) pairs (`method::variational`), and starts
//! from the f64 points' pairs (`State::convert_pairs`), so the vertical disk keeps its energy
//! within 10× of the f64 run's over 3·10⁴ steps.

use super::common::{run_quiet, stats};

/// The vertical disk at h = 0.01 for 3·10⁴ steps on the CPU engine: f64, f32 plain and f32
/// compensated, the largest `rel_energy_err_max` of the run's rows, every 1000 steps. The
/// compensated run's error was 9.3e-4 while the map ran in f32, and 1.9e-11 (10× f64's) at
/// its first row while it started from the f32-rounded point, off the discrete constraint
/// by a rounding.
#[test]
fn compensated_f32_vertical_disk_keeps_its_energy_within_ten_times_f64() {
    let dir = tempfile::tempdir().unwrap();
    let worst_error = |name: &str, precision: &str| {
        let out = dir.path().join(name);
        run_quiet(
            &format!(
                "run --system vertical-disk --method variational --dt 0.01 --steps 30000 \
                 --snapshot-every 1000 --ensemble point --backend cpu --precision {precision}"
            ),
            &out,
        );
        let rows = stats(&out);
        assert_eq!(
            rows.len(),
            31,
            "{name}: a row every 1000 steps, from step 0"
        );
        rows.iter()
            .map(|row| row["rel_energy_err_max"])
            .fold(0.0, f64::max)
    };
    let f64e = worst_error("f64", "f64");
    let plain = worst_error("f32", "f32");
    let carried = worst_error("compensated", "f32 --compensated");
    eprintln!(
        "vertical disk, 3e4 steps, worst over the run: f64 {f64e:.2e}, f32 {plain:.2e}, f32 compensated {carried:.2e}"
    );
    assert!(f64e > 0.0 && plain > 1e-5, "f64 {f64e:e}, f32 {plain:e}");
    assert!(
        carried <= 10.0 * f64e,
        "f32 compensated {carried:e} against f64 {f64e:e}"
    );
}
