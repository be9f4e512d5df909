//! The speed guard: the CPU engine must stay several times faster than the plain
//! single-threaded Rust loop a user would write for the same step (`engine::reference`),
//! both timed in this one process (`bench --min-ratio`). Ratios measured side by side are
//! stable where absolute timings on a shared machine are not. Both run on one thread here, so
//! a busy neighbour slows them alike; this file holds this one test, so no other test of the
//! suite runs beside it (cargo runs test binaries one after another).
//!
//! The floor: on the 2-core development machine (AVX-512), with this command, the CPU engine
//! runs at 3.5–5.2× the reference on one thread (f64 and f32, symplectic Euler A and Verlet),
//! and the code before the fix of issue 10 (the pendulum evaluating its tangent path, and the
//! exact kick going through the iterating solver) at 0.70–1.58×. See BENCHMARKS.md.

use assert_cmd::Command;

const FLOOR: &str = "2";

#[test]
fn cpu_engine_keeps_its_lead_over_the_reference_loop() {
    for method in ["symplectic-euler-a", "verlet"] {
        let out = Command::cargo_bin("phaseflow")
            .unwrap()
            .env("RAYON_NUM_THREADS", "1")
            .args([
                "bench",
                "--no-gpu",
                "--method",
                method,
                "--points",
                "200000",
                "--steps",
                "100",
                "--rounds",
                "3",
                "--min-ratio",
                FLOOR,
            ])
            .output()
            .unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        println!("{text}");
        assert!(
            out.status.success(),
            "speed guard failed for {method}:\n{text}"
        );
        assert!(text.contains("speed guard: every cpu row"), "{text}");
    }
}
