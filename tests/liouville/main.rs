//! Liouville-area measurements end to end through the CLI: loop area with refinement, the
//! tangent map's det and defect, CPU vs GPU agreement, the study command and its bad input.

#[path = "../common/mod.rs"]
mod common;

mod escapes;
mod refinement;
mod study;
mod tangent;

use std::path::Path;

use common::phaseflow;

/// `phaseflow run ARGS --quiet --out OUT`, which must succeed.
fn run(out: &Path, args: &[&str]) {
    phaseflow()
        .arg("run")
        .args(args)
        .args(["--quiet", "--out"])
        .arg(out)
        .assert()
        .success();
}
