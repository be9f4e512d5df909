//! Bounded fuzzing of the command line's numbers, from fixed seeds: counts written in every
//! form (`1e5`, `2.5e1`, `-5`, `1.5e0`, 30 digits) read by `parse_count` against their value as
//! a real number; negative and exponent values after every numeric option of `run`, which must
//! reach the option (exit 0, or exit 2 naming it: never "unexpected argument", never a panic);
//! and sweeps whose part count passes 64 bits, refused by the 10 000-part cap (they aborted).

use phaseflow::cli::values::{parse_count, CountError};
use tempfile::TempDir;

use crate::common::{argv, phaseflow};
use crate::Rng;

const COUNT_PIECES: &[&str] = &[
    "0",
    "1",
    "2",
    "5",
    "9",
    "00",
    "e",
    "E",
    ".",
    "-",
    "+",
    "e-",
    "e+",
    "1e5",
    "2.5",
    "x",
    " ",
    "99999999999",
];

#[test]
fn counts_read_as_their_value() {
    let mut rng = Rng(0x5eed_c0de);
    let mut accepted = 0;
    for case in 0..20_000 {
        let text: String = (0..1 + rng.below(6))
            .map(|_| rng.pick(COUNT_PIECES))
            .collect();
        let max = [u64::MAX, u32::MAX as u64, 1000][rng.below(3)];
        let real = text.trim().parse::<f64>();
        match parse_count(&text, max) {
            Ok(n) => {
                accepted += 1;
                assert!(n <= max, "case {case}: {text:?} read as {n} > {max}");
                let x = real.unwrap_or_else(|_| panic!("case {case}: {text:?} is no number"));
                assert!(
                    (x - n as f64).abs() <= 1e-15 * x.abs(),
                    "case {case}: {text:?} read as {n}"
                );
            }
            Err(CountError::Negative) => assert!(text.trim().starts_with('-'), "{text:?}"),
            Err(CountError::NotWhole) => {
                let x = real.unwrap_or_else(|_| panic!("case {case}: {text:?} is no number"));
                // Whole-valued reals refused are exactly those whose text is not whole
                // (1.00000000000000001e5), which the f64 cannot tell.
                assert!(
                    x.fract() != 0.0 || !x.is_finite() || text.contains(['.', 'e', 'E']),
                    "case {case}: {text:?}"
                );
            }
            Err(CountError::TooLarge(m)) => {
                assert_eq!(m, max);
                let x = real.unwrap_or_else(|_| panic!("case {case}: {text:?} is no number"));
                assert!(x >= max as f64, "case {case}: {text:?} too large for {max}");
            }
            Err(CountError::NotANumber) => {}
        }
        if let Ok(n) = text.parse::<u64>() {
            assert_eq!(parse_count(&text, u64::MAX), Ok(n), "{text:?}");
        }
    }
    assert!(accepted > 100 && accepted < 20_000, "accepted {accepted}");
}

/// The numeric options of `run`, with the tokens tried after them.
const OPTIONS: &[(&str, &[&str])] = &[
    (
        "--dt",
        &[
            "-1e-5", "-1E-5", "-0.01", "-inf", "inf", "nan", "-", "-e5", "1e-400", "--steps",
            "-1e+1",
        ],
    ),
    (
        "--steps",
        &[
            "-5", "-0", "1e1", "2.5e1", "1.5e0", "1e30", "-1e3", "+3", "7E0", "x", "-inf",
        ],
    ),
    (
        "--points",
        &["-5", "1e1", "2.5e1", "1.5e0", "1e40", "-1e-5", "3.", "0"],
    ),
    (
        "--seed",
        &["-3", "1e3", "1.5", "18446744073709551616", "-0"],
    ),
    ("--radius", &["-0.1", "-1e-5", "2e-1", "-inf", "nan"]),
    ("--snapshot-every", &["-1", "1e0", "2e0", "0.5"]),
    ("--checkpoint-every", &["-2", "1e1", "1e20"]),
];

#[test]
fn numbers_after_every_option_reach_it() {
    let tmp = TempDir::new().unwrap();
    let mut rng = Rng(39);
    for case in 0..60 {
        let (flag, tokens) = OPTIONS[rng.below(OPTIONS.len())];
        let value = rng.pick(tokens);
        let out = tmp.path().join(format!("case{case}"));
        let mut args = argv(
            "run --system pendulum --method verlet --ensemble disk --points 4 --dt 0.1 --steps 3 --backend cpu --quiet",
        );
        match args.iter().position(|a| a == flag) {
            Some(at) => args[at + 1] = value.to_string(),
            None => args.extend([flag.to_string(), value.to_string()]),
        }
        args.extend(["--out".to_string(), out.display().to_string()]);
        let got = phaseflow().args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&got.stderr);
        let what = format!("case {case}: {flag} {value}: {err}");
        assert!(
            !err.contains("unexpected argument") && !err.contains("panicked"),
            "{what}"
        );
        match got.status.code() {
            Some(0) => assert!(out.join("config.toml").is_file(), "{what}"),
            Some(2) => {
                assert!(err.starts_with("Error: "), "{what}");
                assert!(err.contains(flag), "{what}");
                assert!(!out.exists(), "{what}");
            }
            other => panic!("{what}: exit {other:?}"),
        }
    }
}

#[test]
fn sweeps_past_the_part_cap_are_refused() {
    let tmp = TempDir::new().unwrap();
    let counts = [
        "4294967296",
        "4294967297",
        "18446744073709551615",
        "65536",
        "101",
        "1e2",
    ];
    let mut rng = Rng(2);
    for case in 0..12 {
        let (a, b) = (rng.pick(&counts), rng.pick(&counts));
        let out = tmp.path().join(format!("sweep{case}"));
        let got = phaseflow()
            .args(argv("run --system pendulum --method verlet --ensemble disk --points 4 --dt 0.1 --steps 2 --backend cpu --quiet"))
            .args(["--sweep", &format!("g=1:2:{a}"), "--sweep", &format!("l=0.5:1.5:{b}")])
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&got.stderr);
        assert_eq!(got.status.code(), Some(2), "case {case}: {a} × {b}: {err}");
        assert!(err.starts_with("Error: --sweep"), "case {case}: {err}");
        assert!(!out.exists(), "case {case}");
    }
}
