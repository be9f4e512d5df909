//! `validate --method-file`: a user's implicit tableau (the gauss2 text) and composition (the
//! triple jump) run on the GPU engine (lavapipe here) and agree with the CPU engine at f32 and
//! f64.

use predicates::prelude::*;
use tempfile::TempDir;

use crate::common::{argv, phaseflow};
use crate::method_files::{file, GAUSS2, TRIPLE_JUMP};

#[test]
fn validate_passes_with_method_files_at_f32_and_f64() {
    let tmp = TempDir::new().unwrap();
    // Under its own name, so it is the user's method rather than the shipped one.
    let gauss = file(
        tmp.path(),
        "my-gauss2.toml",
        &GAUSS2.replace("\"gauss2\"", "\"my-gauss2\""),
    );
    let jump = file(tmp.path(), "jump.toml", TRIPLE_JUMP);
    for method in [&gauss, &jump] {
        for (precision, tolerance) in [("f32", "tolerance=1e-3"), ("f64", "tolerance=1e-12")] {
            phaseflow()
                .args(argv(&format!(
                    "validate --system pendulum --ensemble disk --points 200 --dt 0.05 \
                     --steps 100 --precision {precision} --quiet --method-file"
                )))
                .arg(method)
                .assert()
                .code(0)
                .stdout(predicate::str::is_match(r"max_abs_dev=\S+ max_rel_dev=\S+").unwrap())
                .stdout(predicate::str::contains(format!("({precision})")))
                .stdout(predicate::str::contains(tolerance))
                .stdout(predicate::str::contains(" on gpu: "))
                .stdout(predicate::str::contains("PASS"));
        }
    }
}
