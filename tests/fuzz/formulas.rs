//! Bounded fuzzing of the formula compiler with malicious Hamiltonians: nesting of every kind
//! around and far past the depth limit, huge and negative exponents, literals beyond f64 and
//! f32, long sums, more degrees of freedom than the cap, unicode, stray operators, and
//! mutations of valid formulas. Every case goes through the library (parse, derivatives,
//! bytecode, WGSL, the f32 check) and must be accepted or refused as an input error, never
//! panic or exhaust the stack, and promptly; a sample goes through the binary (show-kernel, a
//! tiny CPU run, a system file), which must exit 0 or 2 with a message and leave a refused
//! run's `--out` unwritten.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use phaseflow::expr::{ExprHamiltonian, MAX_DEPTH, MAX_DOF};

use crate::{mutate, Rng};

const VALID: &[&str] = &[
    "p^2/2 + 1 - cos(q)",
    "(p1^2 + p2^2)/2 - 1/sqrt(q1^2 + q2^2)",
    "p^2/2 + a*q^4/4 - q^2/2",
    "(p1 + q2)^3 * exp(-q1) + atan(p2) - log(1 + q1^2)",
];

const PIECES: &[&str] = &[
    "(", ")", "^", "*", "/", "-", "+", ",", "sin(", "q", "p", "q129", "p0", "1e309", "1e-400",
    "3.5e38", "1e-45", "a", "pi", "²", "·", "−", "é", "\u{feff}", "😀", "**", "^^", "()",
];

/// The kinds of nesting, `depth` levels of kind `kind` (0 to 4) around a small formula.
fn nest(kind: usize, depth: usize) -> String {
    let wrap = |open: &str, inner: &str, close: &str| {
        format!("{}{inner}{}", open.repeat(depth), close.repeat(depth))
    };
    match kind {
        0 => wrap("(", "q", ")") + "^2 + p^2",
        1 => wrap("sin(", "q", ")") + " + p^2",
        2 => wrap("-", "q*q", "") + " + p^2",
        3 => format!("q{} + p^2", "^q".repeat(depth)),
        _ => wrap("exp(-(", "p*q", "))"),
    }
}

/// A hostile formula of one of the fuzzing's kinds, sized by the generator.
fn hostile(rng: &mut Rng) -> String {
    let depth = [
        1,
        MAX_DEPTH - 2,
        MAX_DEPTH - 1,
        MAX_DEPTH,
        MAX_DEPTH + 1,
        5000,
        100_000,
    ];
    let exponent = rng.pick(&[
        "1025",
        "2000",
        "-1026",
        "1000000000",
        "1000000001",
        "-1000000000",
        "2147483648",
        "1e300",
        "0.5",
        "-0",
        "(2^40)",
        "(1e9 + 0.5)",
    ]);
    let literal = rng.pick(&[
        "1e308",
        "1e309",
        "1.8e308",
        "1e-320",
        "1e-400",
        "3.4e38",
        "3.5e38",
        "1e-45",
        "1e-39",
        "0e999",
        "0.0000",
        "123456789012345678901234567890",
        ".e5",
        "1e",
        "1..2",
    ]);
    match rng.below(12) {
        kind @ 0..5 => nest(kind, depth[rng.below(depth.len())]),
        5 => format!("q^{exponent} + p^2"),
        6 => format!("(q + p)^{exponent} + (-2)^{exponent}"),
        7 => format!("p^2 + {literal}*q^2 + {literal}"),
        8 => (0..1 + rng.below(4000))
            .map(|k| format!("{k}*q{}^2", 1 + k % (MAX_DOF + 2)))
            .collect::<Vec<_>>()
            .join(" + "),
        9 => format!(
            "p1^2 + q{}^2",
            [1, MAX_DOF, MAX_DOF + 1, 100_000][rng.below(4)]
        ),
        10 => (0..1 + rng.below(12)).map(|_| rng.pick(PIECES)).collect(),
        _ => {
            let base = rng.pick(VALID);
            let mut text = String::from_utf8_lossy(&mutate(rng, base.as_bytes())).into_owned();
            let at = rng.below(text.len() + 1);
            if text.is_char_boundary(at) {
                text.insert_str(at, rng.pick(PIECES));
            }
            text
        }
    }
}

/// Compile `text` through every stage; `Ok(true)` if accepted, `Ok(false)` if refused as an
/// input error, `Err` with the reason otherwise.
fn compile(text: &str, params: &BTreeMap<String, f64>, dof: Option<usize>) -> Result<bool, String> {
    match ExprHamiltonian::new(text, params, dof) {
        Ok(h) => {
            if h.dof > MAX_DOF {
                return Err(format!("accepted with d = {}", h.dof));
            }
            let _ = (h.wgsl(), h.energy_wgsl());
            if let Err(e) = h.check_f32() {
                if !e.is_input() || e.to_string().is_empty() {
                    return Err(format!("f32 check: {e:?}"));
                }
            }
            let z: Vec<f64> = (0..h.dof).map(|k| 0.3 - 0.1 * k as f64).collect();
            let mut out = vec![0.0; h.dof];
            let _ = h.energy(&z, &z);
            h.grad_q(&z, &z, &mut out);
            h.grad_p_dir(&z, &z, &z, &z, &mut out);
            Ok(true)
        }
        Err(e) if e.is_input() && !e.to_string().is_empty() => Ok(false),
        Err(e) => Err(format!("not an input error: {e:?}")),
    }
}

/// Hundreds of hostile formulas through the library, on a thread with half the default
/// stack of a spawned thread: accepted or refused, each within a second.
#[test]
fn hostile_formulas_compile_or_are_refused() {
    let worker = std::thread::Builder::new().stack_size(1 << 20);
    let handle = worker
        .spawn(|| {
            let params: BTreeMap<String, f64> = [("a".to_string(), 0.25)].into();
            let mut rng = Rng(0x5eed_f0e3);
            let (mut accepted, mut refused) = (0, 0);
            for case in 0..600 {
                let text = hostile(&mut rng);
                let dof = [None, None, Some(2), Some(MAX_DOF + 1)][rng.below(4)];
                // `a` is this formula's parameter only where it names it.
                let given = if text.contains('a') {
                    params.clone()
                } else {
                    BTreeMap::new()
                };
                let start = Instant::now();
                match compile(&text, &given, dof) {
                    Ok(true) => accepted += 1,
                    Ok(false) => refused += 1,
                    Err(why) => panic!("case {case} {:?}: {why}", short(&text)),
                }
                assert!(
                    start.elapsed() < Duration::from_secs(2),
                    "case {case} {:?}: {:?}",
                    short(&text),
                    start.elapsed()
                );
            }
            (accepted, refused)
        })
        .unwrap();
    let (accepted, refused) = handle.join().expect("no case panics");
    assert!(
        accepted > 50 && refused > 200,
        "{accepted} accepted, {refused} refused"
    );
}

/// A formula cut to its first 60 characters, for messages.
fn short(text: &str) -> String {
    text.chars().take(60).collect()
}

/// A sample of hostile formulas through the binary: `show-kernel --hamiltonian`, a system
/// file, and a 2-step CPU run of one point. Exit 0 or 2 with an `Error:` line, never a crash;
/// a refused run leaves its `--out` unwritten and an accepted one writes stats.csv.
#[test]
fn the_binary_answers_hostile_formulas_with_exit_0_or_2() {
    let dir = tempfile::TempDir::new().unwrap();
    let mut rng = Rng(0xbad_f00d);
    let mut refused = 0;
    let mut case = 0;
    while case < 30 {
        // The first five: each kind of nesting as deep as one argument holds (128 KiB), far
        // past the limit (all but `^q` overflowed the stack before).
        let text = if case < 5 {
            let per_level = nest(case, 2).len() - nest(case, 1).len();
            nest(case, 120_000 / per_level)
        } else {
            hostile(&mut rng)
        };
        if text.contains('\0') || text.contains('a') || text.len() > 120_010 {
            continue;
        }
        case += 1;
        let file = dir.path().join(format!("{case}.toml"));
        let quoted = toml::Value::String(text.clone()).to_string();
        std::fs::write(&file, format!("name = \"fuzz\"\nhamiltonian = {quoted}\n")).unwrap();
        let out = dir.path().join(format!("out{case}"));
        let runs: [Vec<&str>; 3] = [
            vec!["show-kernel", "--hamiltonian", &text],
            vec!["show-kernel", "--system-file", file.to_str().unwrap()],
            [
                vec!["run", "--hamiltonian", &text],
                "--method verlet --ensemble point --dt 0.01 --steps 2 --backend cpu --quiet --out"
                    .split_whitespace()
                    .collect(),
                vec![out.to_str().unwrap()],
            ]
            .concat(),
        ];
        for args in runs {
            let start = Instant::now();
            let output = Command::new(env!("CARGO_BIN_EXE_phaseflow"))
                .args(&args)
                .output()
                .unwrap();
            let code = output.status.code();
            let stderr = String::from_utf8_lossy(&output.stderr);
            let what = format!("case {case} {} {:?}", args[0], short(&text));
            assert!(
                code == Some(0) || code == Some(2),
                "{what}: exit {code:?}\n{stderr}"
            );
            assert!(!stderr.contains("panicked"), "{what}: {stderr}");
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "{what}: {:?}",
                start.elapsed()
            );
            if code == Some(2) {
                refused += 1;
                assert!(stderr.starts_with("Error:"), "{what}: {stderr}");
            }
            if args[0] == "run" {
                let wrote = Path::new(&out).join("stats.csv").exists();
                assert_eq!(
                    wrote,
                    code == Some(0),
                    "{what}: exit {code:?}, stats.csv {wrote}"
                );
                assert!(
                    code == Some(0) || !out.exists(),
                    "{what}: a refused run wrote --out"
                );
            }
        }
    }
    assert!(refused > 20, "only {refused} of 90 refused");
}
