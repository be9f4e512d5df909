//! `--compensated` on a discrete map from the command line: the CPU engine takes each f32 step
//! in f64 from the state's (value, carried error) pairs (`method::variational`), so the
//! vertical disk keeps its energy within 10× of the f64 run's over 3·10⁴ steps.

use super::common::{run_quiet, stats};

/// The vertical disk at h = 0.01 for 3·10⁴ steps on the CPU engine: f64, f32 plain and f32
/// compensated, their `rel_energy_err_max` at the end (measured: 1.9e-12, 4.9e-4, 1.6e-11; the
/// compensated run's error was 9.3e-4 while the map ran in f32).
#[test]
fn compensated_f32_vertical_disk_keeps_its_energy_within_ten_times_f64() {
    let dir = tempfile::tempdir().unwrap();
    let last_error = |name: &str, precision: &str| {
        let out = dir.path().join(name);
        run_quiet(
            &format!(
                "run --system vertical-disk --method variational --dt 0.01 --steps 30000 \
                 --ensemble point --backend cpu --precision {precision}"
            ),
            &out,
        );
        stats(&out).last().unwrap()["rel_energy_err_max"]
    };
    let f64e = last_error("f64", "f64");
    let plain = last_error("f32", "f32");
    let carried = last_error("compensated", "f32 --compensated");
    eprintln!(
        "vertical disk, 3e4 steps: f64 {f64e:.2e}, f32 {plain:.2e}, f32 compensated {carried:.2e}"
    );
    assert!(f64e > 0.0 && plain > 1e-5, "f64 {f64e:e}, f32 {plain:e}");
    assert!(
        carried <= 10.0 * f64e,
        "f32 compensated {carried:e} against f64 {f64e:e}"
    );
}
