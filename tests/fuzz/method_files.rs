//! Bounded fuzzing of method files: mutated shipped files, and tableaus whose coefficients
//! are strings of hostile tokens, through `method::file::parse`. Each must be accepted as a
//! method with finite coefficients or refused as an input error (exit 2), never panic, and
//! the whole run stays well under 10 s.

use std::time::{Duration, Instant};

use phaseflow::method::analysis::{builtin, normalise, Normal};
use phaseflow::method::file::{parse, shipped};
use phaseflow::method::tableau::{Composition, Family, MethodDef, Prk, Rkn, Substep};

use crate::{mutate, Rng};

/// Every coefficient of an accepted method.
fn coefficients(def: &MethodDef) -> Vec<f64> {
    let tableau = |t: &phaseflow::method::tableau::Tableau| {
        t.a.iter()
            .flatten()
            .chain(&t.b)
            .chain(&t.c)
            .copied()
            .collect::<Vec<f64>>()
    };
    match &def.family {
        Family::Rk(t) => tableau(t),
        Family::Prk(Prk { q, p }) => [tableau(q), tableau(p)].concat(),
        Family::Rkn(Rkn { a, b_bar, b, c }) => a
            .iter()
            .flatten()
            .chain(b_bar)
            .chain(b)
            .chain(c)
            .copied()
            .collect(),
        Family::Splitting(steps) => steps
            .iter()
            .map(|s| match *s {
                Substep::Kick(c) | Substep::Drift(c) => c,
            })
            .collect(),
        Family::Composition(Composition { weights, .. }) => weights.clone(),
        // A family added later: the coefficients of the normal form the analysis reads.
        other => match normalise(other, &builtin::family) {
            Ok(Normal::Rk(t)) => tableau(&t),
            Ok(Normal::Prk { q, p } | Normal::Splitting { q, p, .. }) => {
                [tableau(&q), tableau(&p)].concat()
            }
            Ok(Normal::Rkn { a, b_bar, b, c }) => [a.concat(), b_bar, b, c].concat(),
            Err(e) => panic!("an accepted method the analysis cannot read: {e}"),
        },
    }
}

/// Parse `text`: an accepted method has finite coefficients, a refusal is an input error.
fn check(text: &str, case: usize) -> bool {
    match parse(text, "fuzz.toml") {
        Ok(def) => {
            let c = coefficients(&def);
            assert!(
                !c.is_empty() && c.iter().all(|x| x.is_finite()),
                "case {case}: accepted non-finite coefficients {c:?} from\n{text}"
            );
            true
        }
        Err(e) => {
            assert!(e.is_input(), "case {case}: {e}\n{text}");
            false
        }
    }
}

#[test]
fn mutated_shipped_files_are_accepted_or_refused_as_input_errors() {
    let start = Instant::now();
    let mut rng = Rng(0x6d65_7468_6f64_7321);
    let files = shipped();
    let (mut accepted, cases) = (0, 20_000);
    for case in 0..cases {
        let def = &files[case % files.len()];
        // A new name, so that the shipped names' check does not refuse every case.
        let text = def
            .source
            .replacen(&format!("name = \"{}\"", def.name), "name = \"fuzzed\"", 1);
        let bytes = mutate(&mut rng, text.as_bytes());
        accepted += usize::from(check(&String::from_utf8_lossy(&bytes), case));
    }
    // Mutations in comments or in digits that matter little still parse.
    assert!(
        accepted > 0 && accepted < cases,
        "accepted {accepted} of {cases}"
    );
    let took = start.elapsed();
    println!("{cases} mutated method files, {accepted} accepted, in {took:?}");
    assert!(took < Duration::from_secs(10), "{took:?}");
}

const PIECES: &[&str] = &[
    "(", ")", "^", "*", "/", "-", "+", " ", "1", "2", "0", "0.5", "1e308", "1e-400", "1e309",
    "sqrt(", "cbrt(", "pi", "e", ".", "x", "sqrt", "^-", "^0.5", "(-1)", "-2^(1/3)", "**", "²",
    "·", "−", "é", "\u{feff}", "😀", "\\\"", "nan", "inf",
];

#[test]
fn hostile_coefficients_are_accepted_or_refused_as_input_errors() {
    let start = Instant::now();
    let mut rng = Rng(0x636f_6566_6669_6369);
    let mut accepted = 0;
    for case in 0..20_000 {
        let mut coef = String::new();
        for _ in 0..rng.below(24) {
            coef.push_str(rng.pick(PIECES));
        }
        if case % 50 == 0 {
            let depth = rng.pick(&["63", "64", "65", "5000"]).parse().unwrap();
            coef = format!("{}{coef}1{}", "(".repeat(depth), ")".repeat(depth));
        }
        let text = format!(
            "name = \"h\"\nfamily = \"rk\"\na = [[\"{coef}\", 0], [0, \"1/2\"]]\nb = [\"1/2\", \"{coef}\"]\n"
        );
        accepted += usize::from(check(&text, case));
    }
    assert!(
        accepted > 0,
        "no hostile coefficient evaluated to a consistent tableau"
    );
    let took = start.elapsed();
    println!("20000 hostile coefficients, {accepted} accepted, in {took:?}");
    assert!(took < Duration::from_secs(10), "{took:?}");
}
