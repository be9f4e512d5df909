//! The release binary is portable: under qemu's emulation of a Haswell processor (AVX2, no
//! AVX-512: the baseline the binary is built for) it runs, and writes the same stats.csv and
//! states, byte for byte, as the same runs natively, where on a processor with AVX-512 the
//! engine's loops take their AVX-512 copy. A binary built with `-C target-cpu=native` on an
//! AVX-512 machine dies there with SIGILL. Needs `qemu-x86_64` (Debian: qemu-user, which
//! scripts/test installs); without it the test fails.
#![cfg(target_arch = "x86_64")]

use std::path::Path;
use std::process::{Command, Output};

use tempfile::TempDir;

use crate::common::{argv, read};

/// The emulated processor: the x86-64-v3 baseline, no AVX-512.
const CPU: &str = "Haswell";

/// `run` of `args` into `out`, natively or under the emulator.
fn run(emulated: bool, args: &[String], out: &Path) -> Output {
    let bin = assert_cmd::cargo::cargo_bin("phaseflow");
    let mut c = if emulated {
        let mut c = Command::new("qemu-x86_64");
        c.args(["-cpu", CPU]).arg(&bin);
        c
    } else {
        Command::new(&bin)
    };
    c.arg("run").args(args).arg("--out").arg(out);
    c.output().unwrap_or_else(|e| match emulated {
        true => panic!(
            "qemu-x86_64 could not be started ({e}): install qemu-user (Debian), as scripts/test does"
        ),
        false => panic!("phaseflow could not be started: {e}"),
    })
}

#[test]
fn the_binary_runs_on_a_processor_without_avx512_and_agrees_bit_for_bit() {
    let tmp = TempDir::new().unwrap();
    let mut cases: Vec<Vec<String>> = [
        "--system pendulum --method verlet --precision f64",
        "--system pendulum --method symplectic-euler-a --precision f32",
        "--system kepler --method rk4 --precision f64 --compensated",
        "--system pendulum --method implicit-midpoint --precision f32",
    ]
    .iter()
    .map(|c| argv(c))
    .collect();
    // A formula (the bytecode's loops dispatch on their own).
    cases.push(
        ["--hamiltonian", "p^2/2 + 1 - cos(q)", "--method", "verlet"]
            .map(String::from)
            .to_vec(),
    );
    for (i, mut args) in cases.into_iter().enumerate() {
        args.extend(argv(
            "--ensemble disk --points 500 --dt 0.05 --steps 40 --backend cpu --quiet --save-states",
        ));
        let case = args.join(" ");
        let (native, emulated) = (
            tmp.path().join(format!("native-{i}")),
            tmp.path().join(format!("{CPU}-{i}")),
        );
        let done = run(false, &args, &native);
        assert!(
            done.status.success(),
            "{case}: {}",
            String::from_utf8_lossy(&done.stderr)
        );
        let done = run(true, &args, &emulated);
        assert!(
            done.status.success(),
            "{case} under `qemu-x86_64 -cpu {CPU}`: {:?}\n{}",
            done.status,
            String::from_utf8_lossy(&done.stderr)
        );
        for file in ["stats.csv", "states/step_40.npy"] {
            let (a, b) = (
                std::fs::read(native.join(file)).unwrap(),
                std::fs::read(emulated.join(file)).unwrap(),
            );
            assert!(a == b, "{case}: {file} differs under {CPU}");
        }
        assert!(read(&emulated.join("manifest.toml")).contains("complete = true"));
    }
}
