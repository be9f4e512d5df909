//! Method files (`method::file`): every shipped file in `methods/` parses, is embedded, and is a
//! consistent method of its family with the coefficients its source gives; the files that
//! restate a built-in method carry the built-in's coefficients; exact expressions evaluate as
//! written; and each kind of bad input is an input error (exit 2) naming the file, the field
//! and the fix.

use std::path::Path;

use phaseflow::error::Error;
use phaseflow::method::file::{parse, shipped, shipped_by_name, MAX_STAGES};
use phaseflow::method::tableau::{Composition, Family, MethodDef, Prk, Rkn, Substep, Tableau};
use phaseflow::method::{composition, splitting, Method};

fn methods_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("methods")
}

fn get(name: &str) -> &'static MethodDef {
    shipped_by_name(name).unwrap_or_else(|| panic!("no shipped method {name}"))
}

fn rk(name: &str) -> &'static Tableau {
    match &get(name).family {
        Family::Rk(t) => t,
        f => panic!("{name}: family {}, expected rk", f.name()),
    }
}

fn prk(name: &str) -> (&'static Tableau, &'static Tableau) {
    match &get(name).family {
        Family::Prk(Prk { q, p }) => (q, p),
        f => panic!("{name}: family {}, expected prk", f.name()),
    }
}

fn steps(name: &str) -> &'static [Substep] {
    match &get(name).family {
        Family::Splitting(s) => s,
        f => panic!("{name}: family {}, expected splitting", f.name()),
    }
}

fn assert_close(got: &[f64], want: &[f64], tol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: {got:?} vs {want:?}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!((g - w).abs() <= tol, "{what}[{i}]: {g:e} vs {w:e}");
    }
}

fn assert_tableau(t: &Tableau, a: &[&[f64]], b: &[f64], what: &str) {
    assert_eq!(t.a.len(), a.len(), "{what}: stages");
    for (i, (row, want)) in t.a.iter().zip(a).enumerate() {
        assert_close(row, want, 1e-15, &format!("{what}: a row {}", i + 1));
    }
    assert_close(&t.b, b, 1e-15, &format!("{what}: b"));
}

#[test]
fn every_file_in_the_folder_is_shipped_and_parses() {
    let mut on_disk: Vec<(String, String)> = std::fs::read_dir(methods_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .map(|p| {
            let stem = p.file_stem().unwrap().to_str().unwrap().to_string();
            (stem, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    on_disk.sort();
    let names: Vec<&str> = shipped().iter().map(|m| m.name.as_str()).collect();
    let stems: Vec<&str> = on_disk.iter().map(|(s, _)| s.as_str()).collect();
    assert_eq!(
        names, stems,
        "the embedded list is the folder, named by file"
    );
    for ((stem, text), m) in on_disk.iter().zip(shipped()) {
        assert_eq!(
            &m.source, text,
            "{stem}: embedded text differs from the file"
        );
        assert!(!m.summary.is_empty(), "{stem}: no summary");
        let reference = m.reference.as_deref().unwrap_or("");
        // author, title, year
        assert!(
            reference.len() > 30 && reference.chars().any(|c| c.is_ascii_digit()),
            "{stem}: reference {reference:?}"
        );
        assert!(
            text.lines().take_while(|l| l.starts_with('#')).count() >= 2,
            "{stem}: a few comment lines first say what the method is"
        );
        assert!(
            !phaseflow::method::ALL.iter().any(|b| b.name() == m.name),
            "{stem}: clashes with a built-in"
        );
    }
    println!("{} shipped method files: {}", names.len(), names.join(", "));
}

#[test]
fn expressions_evaluate_as_written_in_f64() {
    let s3 = 3f64.sqrt();
    let g2 = rk("gauss2");
    assert_eq!(g2.a[0][1].to_bits(), (0.25 - s3 / 6.0).to_bits());
    assert_eq!(g2.a[1][0].to_bits(), (0.25 + s3 / 6.0).to_bits());
    // c left out: the row sums, as f64 sums of the row
    assert_eq!(g2.c[0].to_bits(), (0.25 + (0.25 - s3 / 6.0)).to_bits());
    let s15 = 15f64.sqrt();
    let g3 = rk("gauss3");
    assert_eq!(g3.a[0][2].to_bits(), (5.0 / 36.0 - s15 / 30.0).to_bits());
    // c given: kept as written
    assert_eq!(g3.c[2].to_bits(), (0.5 + s15 / 10.0).to_bits());
    let s6 = 6f64.sqrt();
    assert_eq!(
        rk("radau-iia-3").a[0][1].to_bits(),
        ((296.0 - 169.0 * s6) / 1800.0).to_bits()
    );
    let cr = 2f64.powf(1.0 / 3.0);
    let Family::Composition(Composition { weights, .. }) = &get("yoshida4-composition").family
    else {
        panic!("yoshida4-composition is a composition");
    };
    assert_eq!(weights[0].to_bits(), (1.0 / (2.0 - cr)).to_bits());
    assert_eq!(weights[1].to_bits(), (-cr / (2.0 - cr)).to_bits());
    let x = (2.0 * 326f64.sqrt() + 36.0).powf(1.0 / 3.0);
    let lambda = 0.5 - x / 12.0 + 1.0 / (6.0 * x);
    assert_eq!(steps("omelyan2")[0], Substep::Kick(lambda));
    assert!((lambda - 0.1931833275037836).abs() < 1e-16, "{lambda}");
}

/// Sums to 1 within 1e-14 (a shipped file's coefficients are exact to rounding).
fn sums_to_one(xs: &[f64], what: &str) {
    let s: f64 = xs.iter().sum();
    assert!((s - 1.0).abs() < 1e-14, "{what}: sum {s:e}");
}

fn check_tableau(t: &Tableau, what: &str) {
    let s = t.b.len();
    assert!((1..=MAX_STAGES).contains(&s), "{what}: {s} stages");
    assert_eq!(t.c.len(), s, "{what}: c");
    for (i, row) in t.a.iter().enumerate() {
        assert_eq!(row.len(), s, "{what}: a row {}", i + 1);
        let sum: f64 = row.iter().sum();
        assert!(
            (sum - t.c[i]).abs() < 1e-15,
            "{what}: c{} vs row sum",
            i + 1
        );
    }
    sums_to_one(&t.b, &format!("{what}: b"));
}

#[test]
fn every_shipped_method_is_consistent() {
    for m in shipped() {
        let name = &m.name;
        match &m.family {
            Family::Rk(t) => check_tableau(t, name),
            Family::Prk(Prk { q, p }) => {
                check_tableau(q, &format!("{name}: q"));
                check_tableau(p, &format!("{name}: p"));
                assert_eq!(q.b.len(), p.b.len(), "{name}: stages");
            }
            Family::Rkn(Rkn { a, b_bar, b, c }) => {
                sums_to_one(b, &format!("{name}: b"));
                // order 2 in q: Σ b̄ = 1/2
                assert!((b_bar.iter().sum::<f64>() - 0.5).abs() < 1e-15, "{name}");
                assert!(a.len() == b.len() && c.len() == b.len(), "{name}");
            }
            Family::Splitting(s) => {
                let kicks: Vec<f64> = s
                    .iter()
                    .filter_map(|x| match x {
                        Substep::Kick(c) => Some(*c),
                        Substep::Drift(_) => None,
                    })
                    .collect();
                let drifts: Vec<f64> = s
                    .iter()
                    .filter_map(|x| match x {
                        Substep::Drift(c) => Some(*c),
                        Substep::Kick(_) => None,
                    })
                    .collect();
                sums_to_one(&kicks, &format!("{name}: kicks"));
                sums_to_one(&drifts, &format!("{name}: drifts"));
            }
            Family::Composition(Composition { base, weights, .. }) => {
                sums_to_one(weights, &format!("{name}: weights"));
                assert!(
                    Method::from_name(base).is_ok() || shipped_by_name(base).is_some(),
                    "{name}: base {base} unknown"
                );
                assert_eq!(m.base_name(), Some(base.as_str()));
            }
            // A family added later: its files are checked through its normal form by the
            // analysis (order, symplecticity) and the convergence tests.
            _ => {}
        }
    }
}

/// The collocation methods satisfy the simplifying assumptions B(p) (Σ b_i c_i^(k−1) = 1/k,
/// k ≤ p) and C(η) (Σ_j a_ij c_j^(k−1) = c_i^k / k, k ≤ η) with the p and η of their kind:
/// a check of every coefficient as transcribed, independent of the order analysis.
#[test]
fn collocation_tableaus_satisfy_their_simplifying_assumptions() {
    let table: &[(&str, &str, usize, usize)] = &[
        ("gauss1", "", 2, 1),
        ("gauss2", "", 4, 2),
        ("gauss3", "", 6, 3),
        ("radau-iia-2", "", 3, 2),
        ("radau-iia-3", "", 5, 3),
        ("backward-euler", "", 1, 1),
        ("lobatto-iiia-iiib-2", "q", 2, 2),
        ("lobatto-iiia-iiib-3", "q", 4, 3),
        ("lobatto-iiia-iiib-2", "p", 2, 0),
        ("lobatto-iiia-iiib-3", "p", 4, 0),
    ];
    for &(name, part, p, eta) in table {
        let t = match part {
            "" => rk(name),
            "q" => prk(name).0,
            _ => prk(name).1,
        };
        for k in 1..=p {
            let sum: f64 =
                t.b.iter()
                    .zip(&t.c)
                    .map(|(b, c)| b * c.powi(k as i32 - 1))
                    .sum();
            assert!(
                (sum - 1.0 / k as f64).abs() < 1e-15,
                "{name} {part}: B({k}) {sum}"
            );
        }
        for k in 1..=eta {
            for (i, row) in t.a.iter().enumerate() {
                let sum: f64 = row
                    .iter()
                    .zip(&t.c)
                    .map(|(a, c)| a * c.powi(k as i32 - 1))
                    .sum();
                let want = t.c[i].powi(k as i32) / k as f64;
                assert!((sum - want).abs() < 1e-15, "{name} {part}: C({k}) row {i}");
            }
        }
    }
    // Lobatto IIIB satisfies D(s) instead: Σ_i b_i c_i^(k−1) a_ij = b_j (1 − c_j^k)/k.
    let (_, p) = prk("lobatto-iiia-iiib-3");
    for k in 1..=3 {
        for j in 0..3 {
            let sum: f64 = (0..3)
                .map(|i| p.b[i] * p.c[i].powi(k - 1) * p.a[i][j])
                .sum();
            let want = p.b[j] * (1.0 - p.c[j].powi(k)) / k as f64;
            assert!((sum - want).abs() < 1e-15, "IIIB D({k}) column {j}");
        }
    }
}

#[test]
fn files_restating_a_built_in_have_its_coefficients() {
    let pairs = [
        ("gauss1", "implicit-midpoint"),
        ("lobatto-iiia-iiib-2", "verlet"),
        ("verlet-rkn", "verlet"),
        ("rk4-tableau", "rk4"),
        ("rk3-tableau", "rk3"),
        ("symplectic-euler-a-prk", "symplectic-euler-a"),
        ("yoshida4-composition", "yoshida4"),
        ("blanes-moan4-splitting", "blanes-moan4"),
    ];
    for (file, builtin) in pairs {
        Method::from_name(builtin).unwrap();
        let summary = &get(file).summary;
        assert!(
            summary.contains(&format!("equals the built-in {builtin}")),
            "{file}: {summary}"
        );
    }
    // The Runge–Kutta built-ins' steps (rk4.rs, rk3.rs, implicit_midpoint.rs) as tableaus.
    let sixth = 1.0 / 6.0;
    assert_tableau(
        rk("rk4-tableau"),
        &[
            &[0.0; 4],
            &[0.5, 0.0, 0.0, 0.0],
            &[0.0, 0.5, 0.0, 0.0],
            &[0.0, 0.0, 1.0, 0.0],
        ],
        &[sixth, 2.0 * sixth, 2.0 * sixth, sixth],
        "rk4-tableau",
    );
    assert_tableau(
        rk("rk3-tableau"),
        &[&[0.0; 3], &[0.5, 0.0, 0.0], &[-1.0, 2.0, 0.0]],
        &[sixth, 4.0 * sixth, sixth],
        "rk3-tableau",
    );
    assert_tableau(rk("gauss1"), &[&[0.5]], &[1.0], "gauss1");
    // Verlet: half kick, drift, half kick (verlet.rs); symplectic Euler A: kick with the new
    // p, drift with the old q (symplectic_euler_a.rs).
    let (q, p) = prk("lobatto-iiia-iiib-2");
    assert_tableau(q, &[&[0.0, 0.0], &[0.5, 0.5]], &[0.5, 0.5], "lobatto-2 q");
    assert_tableau(p, &[&[0.5, 0.0], &[0.5, 0.0]], &[0.5, 0.5], "lobatto-2 p");
    let (q, p) = prk("symplectic-euler-a-prk");
    assert_tableau(q, &[&[0.0]], &[1.0], "symplectic-euler-a-prk q");
    assert_tableau(p, &[&[1.0]], &[1.0], "symplectic-euler-a-prk p");
    let Family::Rkn(Rkn { a, b_bar, b, c }) = &get("verlet-rkn").family else {
        panic!("verlet-rkn is rkn");
    };
    assert_eq!(
        (a, b_bar, b, c),
        (
            &vec![vec![0.0, 0.0], vec![0.5, 0.0]],
            &vec![0.5, 0.0],
            &vec![0.5, 0.5],
            &vec![0.0, 1.0]
        )
    );
    // The data built-ins, compared with their constants.
    let Family::Composition(Composition { base, weights, .. }) =
        &get("yoshida4-composition").family
    else {
        panic!("yoshida4-composition is a composition");
    };
    assert_eq!(base, "verlet");
    assert_close(weights, composition::YOSHIDA4.weights, 1e-15, "yoshida4");
    let got = steps("blanes-moan4-splitting");
    let want = splitting::BLANES_MOAN4.substeps;
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let (g, w) = match (g, w) {
            (Substep::Kick(g), Substep::Kick(w)) => (g, w),
            (Substep::Drift(g), Substep::Drift(w)) => (g, w),
            _ => panic!("blanes-moan4 step {i}: {g:?} vs {w:?}"),
        };
        assert!(
            (g - w).abs() <= 1e-15,
            "blanes-moan4 step {i}: {g:e} vs {w:e}"
        );
    }
}

#[test]
fn defaults_and_the_base_check() {
    let def = parse(
        "name = \"heun\"\nfamily = \"rk\"\na = [[0, 0], [1, 0]]\nb = [0.5, 0.5]\n",
        "heun.toml",
    )
    .unwrap();
    assert_eq!(def.summary, "2-stage explicit Runge-Kutta method");
    assert_eq!(def.reference, None);
    assert_eq!(def.base_name(), None);
    let Family::Rk(t) = &def.family else { panic!() };
    assert_eq!(t.c, vec![0.0, 1.0]);
    let def = parse(
        "name = \"jump\"\nfamily = \"composition\"\nbase = \"kahan-li8\"\nweights = [\"1/2\", 0.5]\n",
        "jump.toml",
    )
    .unwrap();
    assert_eq!(def.base_name(), Some("kahan-li8"));
    assert_eq!(def.summary, "2-stage composition of kahan-li8");
    assert!(def.source.contains("kahan-li8"));
}

/// The format's documentation (the module docs of `method::file`) shows one example per
/// family: each is a valid file.
#[test]
fn the_documented_examples_parse() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/method/file/mod.rs");
    let docs: String = std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("//!"))
        .map(|l| format!("{}\n", l.strip_prefix(' ').unwrap_or(l)))
        .collect();
    let blocks: Vec<&str> = docs
        .split("```toml\n")
        .skip(1)
        .map(|b| b.split("```").next().unwrap())
        .collect();
    let mut families: Vec<&str> = Vec::new();
    for block in &blocks {
        let def = parse(block, "example.toml").unwrap_or_else(|e| panic!("{e}\n{block}"));
        families.push(def.family.name());
    }
    assert_eq!(families, ["rk", "prk", "rkn", "splitting", "composition"]);
}

/// A minimal valid file of each family, which the bad-input cases vary.
const RK: &str = "name = \"m\"\nfamily = \"rk\"\na = [[\"1/2\"]]\nb = [1]\n";

/// (what, file text, what the message must name besides the file)
const BAD: &[(&str, &str, &[&str])] = &[
    ("malformed TOML", "name = \"m\"\nfamily = \"rk\"\na = [[1/2]]\n", &["malformed TOML", "line 3"]),
    ("missing family", "name = \"m\"\na = [[1]]\nb = [1]\n", &["family: missing", "rk, prk, rkn, splitting, composition"]),
    ("unknown family", "name = \"m\"\nfamily = \"rkk\"\n", &["family = \"rkk\"", "unknown family", "the families"]),
    ("unknown field", "name = \"m\"\nfamily = \"rk\"\na = [[1]]\nb = [1]\nd = [1]\n", &["d: unknown field for family rk", "a, b, c", "remove it"]),
    ("unknown field in [q]", "name = \"m\"\nfamily = \"prk\"\n[q]\na = [[1]]\nb = [1]\nx = 1\n[p]\na = [[1]]\nb = [1]\n", &["q.x: unknown field", "remove it"]),
    ("missing a", "name = \"m\"\nfamily = \"rk\"\nb = [1]\n", &["a: missing", "s rows of s coefficients"]),
    ("missing b", "name = \"m\"\nfamily = \"rk\"\na = [[1]]\n", &["b: missing", "one coefficient per stage"]),
    ("missing [p]", "name = \"m\"\nfamily = \"prk\"\n[q]\na = [[1]]\nb = [1]\n", &["p: missing", "table [p]"]),
    ("rkn without c", "name = \"m\"\nfamily = \"rkn\"\na = [[0]]\nb_bar = [0.5]\nb = [1]\n", &["c: missing", "stage times"]),
    ("non-square a", "name = \"m\"\nfamily = \"rk\"\na = [[0, 0], [1, 0], [1, 1]]\nb = [0.5, 0.5]\n", &["a, row 1: 2 entries, but a has 3 rows", "must be square"]),
    ("ragged a", "name = \"m\"\nfamily = \"rk\"\na = [[0, 0], [1]]\nb = [0.5, 0.5]\n", &["a, row 2: 1 entry, but a has 2 rows", "must be square"]),
    ("a row not an array", "name = \"m\"\nfamily = \"rk\"\na = [1, 2]\nb = [0.5, 0.5]\n", &["a, row 1: expected an array"]),
    ("empty a", "name = \"m\"\nfamily = \"rk\"\na = []\nb = []\n", &["a: empty"]),
    ("too many stages", "TOO_MANY", &["a: 65 stages; at most 64"]),
    ("b length", "name = \"m\"\nfamily = \"rk\"\na = [[0, 0], [1, 0]]\nb = [1]\n", &["b: 1 entry, but a has 2 stages", "one per stage"]),
    ("c length", "name = \"m\"\nfamily = \"rk\"\na = [[0, 0], [1, 0]]\nb = [0.5, 0.5]\nc = [0]\n", &["c: 1 entry, but a has 2 stages"]),
    ("q and p stages", "name = \"m\"\nfamily = \"prk\"\n[q]\na = [[1]]\nb = [1]\n[p]\na = [[0, 0], [1, 0]]\nb = [0.5, 0.5]\n", &["p.a: 2 stages, but q.a has 1 stage", "same number of stages"]),
    ("rkn b_bar length", "name = \"m\"\nfamily = \"rkn\"\na = [[0]]\nb_bar = [0.5, 0]\nb = [1]\nc = [0]\n", &["b_bar: 2 entries, but a has 1 stage"]),
    ("weights empty", "name = \"m\"\nfamily = \"composition\"\nbase = \"verlet\"\nweights = []\n", &["weights: empty", "sum to 1"]),
    ("unparsable coefficient", "name = \"m\"\nfamily = \"rk\"\na = [[\"1/4 - sqr(3)/6\"]]\nb = [1]\n", &["a, row 1, column 1", "unknown name 'sqr'", "\"1/4 - sqr(3)/6\", character 7: unknown name", "\n        ^"]),
    ("negative base to a fractional power", "name = \"m\"\nfamily = \"rk\"\na = [[\"(-8)^(1/3)\"]]\nb = [1]\n", &["a, row 1, column 1", "negative base", "cbrt", "character 5: a negative base"]),
    ("division by zero", "name = \"m\"\nfamily = \"rk\"\na = [[0]]\nb = [\"1/0\"]\n", &["b, entry 1", "division by zero"]),
    ("non-finite number", "name = \"m\"\nfamily = \"rk\"\na = [[nan]]\nb = [1]\n", &["a, row 1, column 1", "not a finite number"]),
    ("infinite number", "name = \"m\"\nfamily = \"composition\"\nbase = \"verlet\"\nweights = [inf]\n", &["weights, entry 1", "not a finite number"]),
    ("coefficient of the wrong type", "name = \"m\"\nfamily = \"rk\"\na = [[true]]\nb = [1]\n", &["a, row 1, column 1", "expected a number or a string"]),
    ("c differs from the row sums", "name = \"m\"\nfamily = \"rk\"\na = [[0, 0], [1, 0]]\nb = [0.5, 0.5]\nc = [0, 0.9]\n", &["c, entry 2", "differs from the sum of row 2", "leave c out"]),
    ("b not summing to 1", "name = \"m\"\nfamily = \"rk\"\na = [[0, 0], [1, 0]]\nb = [0.5, 0.4]\n", &["b: the entries sum to 0.9, not 1", "inconsistent: order 0; the b must sum to 1"]),
    ("prk p.b not summing to 1", "name = \"m\"\nfamily = \"prk\"\n[q]\na = [[1]]\nb = [1]\n[p]\na = [[1]]\nb = [2]\n", &["p.b: the entries sum to 2, not 1", "order 0"]),
    ("rkn b not summing to 1", "name = \"m\"\nfamily = \"rkn\"\na = [[0]]\nb_bar = [0.5]\nb = [0.5]\nc = [0]\n", &["b: the entries sum", "order 0"]),
    ("weights not summing to 1", "name = \"m\"\nfamily = \"composition\"\nbase = \"verlet\"\nweights = [0.5, 0.25]\n", &["weights: the entries sum to 0.75", "the weights must sum to 1"]),
    ("kicks not summing to 1", "name = \"m\"\nfamily = \"splitting\"\nsteps = [{ kick = 0.5 }, { drift = 1 }]\n", &["steps (the kicks)", "the kicks' coefficients must sum to 1"]),
    ("drifts not summing to 1", "name = \"m\"\nfamily = \"splitting\"\nsteps = [{ kick = 1 }, { drift = \"1/3\" }]\n", &["steps (the drifts)", "the drifts' coefficients must sum to 1"]),
    ("a step neither kick nor drift", "name = \"m\"\nfamily = \"splitting\"\nsteps = [{ kick = 1 }, { drift = 1 }, { push = 0 }]\n", &["steps, entry 3", "{ kick = c } or { drift = c }", "push"]),
    ("a step with two keys", "name = \"m\"\nfamily = \"splitting\"\nsteps = [{ kick = 1, drift = 1 }]\n", &["steps, entry 1", "{ kick = c } or { drift = c }"]),
    ("empty steps", "name = \"m\"\nfamily = \"splitting\"\nsteps = []\n", &["steps: empty"]),
    ("missing name", "family = \"rk\"\na = [[1]]\nb = [1]\n", &["name: missing"]),
    ("empty name", "name = \"\"\nfamily = \"rk\"\na = [[1]]\nb = [1]\n", &["name: empty", "letters, digits"]),
    ("unsafe name", "name = \"../x\"\nfamily = \"rk\"\na = [[1]]\nb = [1]\n", &["name = \"../x\"", "starts with '.'"]),
    ("unsafe character in the name", "name = \"my method/2\"\nfamily = \"rk\"\na = [[1]]\nb = [1]\n", &["name = \"my method/2\"", "' ' cannot be in a method name", "output file names"]),
    ("name not a string", "name = 3\nfamily = \"rk\"\na = [[1]]\nb = [1]\n", &["name: expected a string, found integer"]),
    ("a built-in's name", "name = \"Verlet\"\nfamily = \"rk\"\na = [[1]]\nb = [1]\n", &["name = \"Verlet\"", "a built-in method is called \"verlet\"", "another name"]),
    ("a shipped method's name", "name = \"gauss2\"\nfamily = \"rk\"\na = [[1]]\nb = [1]\n", &["name = \"gauss2\"", "a shipped method is called \"gauss2\"", "method = gauss2"]),
    ("composition over itself", "name = \"loop\"\nfamily = \"composition\"\nbase = \"loop\"\nweights = [1]\n", &["base: \"loop\" is this method itself", "base = \"verlet\""]),
    ("composition without base", "name = \"m\"\nfamily = \"composition\"\nweights = [1]\n", &["base: missing"]),
    ("summary of two lines", "name = \"m\"\nfamily = \"rk\"\nsummary = \"a\\nb\"\na = [[1]]\nb = [1]\n", &["summary: one line"]),
];

#[test]
fn each_bad_input_is_an_input_error_naming_the_field_and_the_fix() {
    let too_many = {
        let row = format!("[{}]", vec!["0"; 65].join(", "));
        format!(
            "name = \"m\"\nfamily = \"rk\"\na = [{}]\nb = [{}]\n",
            vec![row; 65].join(", "),
            vec!["0"; 65].join(", ")
        )
    };
    parse(RK, "ok.toml").expect("the base case is valid");
    for &(what, text, needles) in BAD {
        let text = if text == "TOO_MANY" {
            too_many.as_str()
        } else {
            text
        };
        let err = match parse(text, "dir/mine.toml") {
            Ok(def) => panic!("{what}: accepted as {def:?}"),
            Err(e) => e,
        };
        assert!(err.is_input(), "{what}: not an input error: {err}");
        // A library error's text (an `Invalid` one names options as config.toml keys).
        let msg = &err.to_string();
        assert!(
            matches!(err, Error::Input(_) | Error::Invalid { .. }),
            "{what}: {err:?}"
        );
        assert!(msg.starts_with("dir/mine.toml: "), "{what}: {msg}");
        for needle in needles {
            assert!(msg.contains(needle), "{what}: {needle:?} not in:\n{msg}");
        }
        println!("{what}:\n  {msg}");
    }
}
