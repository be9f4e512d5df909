//! `--compensated` on a discrete map from the command line: the CPU engine takes each f32 step
//! in f64 from the state's (value, carried error) pairs (`method::variational`), and starts
//! from the f64 points' pairs (`State::convert_pairs`), so the vertical disk keeps its energy
//! within 10× of the f64 run's over 3·10⁴ steps.

use super::common::compensated_vertical_disk_within_ten_times_f64;

/// The vertical disk at h = 0.01 for 3·10⁴ steps on the CPU engine: f64, f32 plain and f32
/// compensated, the largest `rel_energy_err_max` of the run's rows, every 1000 steps. The
/// compensated run's error was 9.3e-4 while the map ran in f32, and 1.9e-11 (10× f64's) at
/// its first row while it started from the f32-rounded point, off the discrete constraint
/// by a rounding.
#[test]
fn compensated_f32_vertical_disk_keeps_its_energy_within_ten_times_f64() {
    compensated_vertical_disk_within_ten_times_f64("cpu");
}
