//! Bounded fuzzing of the input parsers: thousands of mutated `.npy` files, CSV
//! texts and TOML settings, generated from a fixed seed so every CI run tries the same cases.
//! Each parser must return a value or an input error, never panic; what it accepts must be
//! consistent (shape × width = values, every value finite); and the binary must answer a sample
//! of the bad files with exit 2 and a message, not a crash.

use std::path::Path;

use assert_cmd::Command;
use predicates::prelude::*;
use tempfile::TempDir;

use phaseflow::config::load_toml;
use phaseflow::ensemble::read_states;
use phaseflow::npy;

use crate::{mutate, Rng};

#[test]
fn npy_reader_never_panics_and_accepts_only_consistent_arrays() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let f64_base = npy::encode(3, 2, &[0.1f64, 0.2, 0.3, 0.4, 0.5, 0.6]);
    let f32_base = npy::encode(2, 2, &[0.1f32, 0.2, 0.3, 0.4]);
    let mut accepted = 0;
    for case in 0..4000 {
        let base = if case % 2 == 0 { &f64_base } else { &f32_base };
        let bytes = mutate(&mut rng, base);
        if let Ok(a) = npy::decode_f64(&bytes) {
            accepted += 1;
            assert_eq!(
                a.rows.checked_mul(a.cols),
                Some(a.data.len()),
                "case {case}: shape ({}, {}) with {} values",
                a.rows,
                a.cols,
                a.data.len()
            );
        }
    }
    // Some mutations only touch the data bytes: those files are still valid.
    assert!(
        accepted > 0 && accepted < 4000,
        "accepted {accepted} of 4000"
    );
}

const CSV_TOKENS: &[&str] = &[
    "0.1", "-2", "3e5", "1e309", "nan", "inf", "-inf", ",", ",", ",", "\n", "\n", "\r\n", "#", " ",
    "q1", "p1", "\"", "e", ".", "-", "+", "0x10", "1,2", "\t", "é", "\u{feff}",
];

#[test]
fn csv_reader_never_panics_and_accepts_only_finite_rows() {
    let dir = TempDir::new().unwrap();
    let path = dir.path().join("in.csv");
    let mut rng = Rng(42);
    for case in 0..1500 {
        let mut text = String::new();
        for _ in 0..rng.below(40) {
            text.push_str(rng.pick(CSV_TOKENS));
        }
        let mut bytes = text.into_bytes();
        if case % 10 == 0 {
            bytes = mutate(&mut rng, &bytes); // invalid UTF-8 too
        }
        std::fs::write(&path, &bytes).unwrap();
        match read_states(&path, 1) {
            Ok(s) => {
                assert!(s.n >= 1, "case {case}: an empty ensemble was accepted");
                assert!(
                    s.q.iter().chain(&s.p).all(|x| x.is_finite()),
                    "case {case}: a non-finite value was accepted from {:?}",
                    String::from_utf8_lossy(&bytes)
                );
            }
            Err(e) => assert!(e.is_input(), "case {case}: {e}"),
        }
    }
}

const CONFIG: &str = r#"system = "pendulum"
method = "verlet"
dt = 0.05
steps = 100
snapshot_every = 10
backend = "cpu"
precision = "f32"
tangent = false

[params]
m = 1.0

[ensemble]
kind = "disk"
points = 10
radius = 0.3
seed = 0
"#;

#[test]
fn toml_settings_never_panic() {
    let dir = TempDir::new().unwrap();
    let path = dir.path().join("config.toml");
    let mut rng = Rng(7);
    for case in 0..1500 {
        std::fs::write(&path, mutate(&mut rng, CONFIG.as_bytes())).unwrap();
        if let Err(e) = load_toml(&path) {
            assert!(e.is_input(), "case {case}: {e}");
        }
    }
}

/// The Hamiltonian expression parser (issue 13): mutated formulas (bytes flipped, cut,
/// inserted, runs duplicated; operators and functions spliced in) never panic; each is either
/// accepted, and then its H, gradients and directional derivatives evaluate without panicking,
/// or refused as an input error (exit 2) whose message points at the formula.
#[test]
fn expression_parser_never_panics() {
    use phaseflow::expr::ExprHamiltonian;
    use std::collections::BTreeMap;
    let bases = [
        "p^2/2 + 1 - cos(q)",
        "(p1^2 + p2^2)/2 - 1/sqrt(q1^2 + q2^2)",
        "((p1 + b*q2/2)^2 + (p2 - b*q1/2)^2)/2 + exp(-q1) * tanh(q2) + atan(p1) - log(1 + q1^2)",
        "p^2/2 + q^4/4 - q^2/2 + sinh(q)^-2 + q^1.5",
    ];
    let pieces = [
        "(", ")", "^", "*", "/", "-", "+", "sin", "log(", "q3", "1e999", ".", "pi", "b", "2**",
    ];
    let params: BTreeMap<String, f64> = [("b".to_string(), 0.7)].into();
    let mut rng = Rng(13);
    let mut accepted = 0;
    for case in 0..3000 {
        let base = bases[rng.below(bases.len())];
        let mut text = String::from_utf8_lossy(&mutate(&mut rng, base.as_bytes())).into_owned();
        if rng.below(2) == 0 {
            let at = rng.below(text.len() + 1);
            if text.is_char_boundary(at) {
                text.insert_str(at, rng.pick(&pieces));
            }
        }
        let dof = [None, Some(1), Some(2), Some(3)][rng.below(4)];
        match ExprHamiltonian::new(&text, &params, dof) {
            Ok(h) => {
                accepted += 1;
                let d = h.dof;
                let z: Vec<f64> = (0..d).map(|k| 0.3 + 0.1 * k as f64).collect();
                let mut out = vec![0.0; d];
                let _ = h.energy(&z, &z);
                h.grad_q(&z, &z, &mut out);
                h.grad_p(&z, &z, &mut out);
                h.grad_q_dir(&z, &z, &z, &z, &mut out);
                h.grad_p_dir(&z, &z, &z, &z, &mut out);
            }
            Err(e) => assert!(e.is_input(), "case {case} {text:?}: {e}"),
        }
    }
    // the mutations exercise both paths
    assert!(
        (50..2950).contains(&accepted),
        "{accepted} of 3000 accepted"
    );
}

/// The binary answers generated bad inputs with exit 2 and a message: a sample of mutated
/// `.npy` and CSV files as `--input`, and mutated TOML as `--config`.
#[test]
fn the_binary_refuses_bad_inputs_with_exit_2() {
    let dir = TempDir::new().unwrap();
    let mut rng = Rng(2024);
    let base = npy::encode(3, 2, &[0.1f64, 0.2, 0.3, 0.4, 0.5, 0.6]);
    let mut refused = 0;
    for case in 0..60 {
        let (name, bytes) = match case % 3 {
            0 => ("in.npy", mutate(&mut rng, &base)),
            1 => ("in.csv", mutate(&mut rng, b"q,p\n0.1,0.2\n0.3,0.4\n")),
            _ => ("config.toml", mutate(&mut rng, CONFIG.as_bytes())),
        };
        let file = dir.path().join(format!("{case}-{name}"));
        std::fs::write(&file, &bytes).unwrap();
        let out = dir.path().join(format!("out{case}"));
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_phaseflow"));
        if name == "config.toml" {
            // The flags bound the work whatever the mutation did to steps and points.
            cmd.arg("run").arg("--config").arg(&file);
            cmd.args(["--steps", "2", "--points", "10"]);
        } else {
            cmd.args([
                "run", "--system", "pendulum", "--method", "verlet", "--dt", "0.1",
            ])
            .args([
                "--steps",
                "2",
                "--backend",
                "cpu",
                "--ensemble",
                "file",
                "--input",
            ])
            .arg(&file);
        }
        let output = cmd.arg("--quiet").arg("--out").arg(&out).output().unwrap();
        let code = output.status.code();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            code == Some(0) || code == Some(2),
            "case {case} ({name}): exit {code:?}\n{stderr}"
        );
        assert!(!stderr.contains("panicked"), "case {case}: {stderr}");
        if code == Some(2) {
            refused += 1;
            assert!(
                predicate::str::contains("Error:").eval(&stderr),
                "case {case}: {stderr}"
            );
            assert!(!Path::new(&out).exists(), "case {case}: --out written");
        }
    }
    assert!(refused > 20, "only {refused} of 60 refused");
}
