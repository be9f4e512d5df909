//! docs/ARCHITECTURE.md against the code it describes: every path it names exists (outside its
//! code blocks, and but for the files a recipe tells you to create), and every registry count it
//! states is the registry's length, so the map cannot silently fall behind the code.

use std::path::Path;

const DOC: &str = include_str!("../docs/ARCHITECTURE.md");

/// The document's lines outside fenced code blocks, with their 1-based numbers.
fn prose_lines() -> Vec<(usize, &'static str)> {
    let mut fenced = false;
    DOC.lines()
        .enumerate()
        .filter(|(_, line)| {
            if line.trim_start().starts_with("```") {
                fenced = !fenced;
                return false;
            }
            !fenced
        })
        .map(|(i, line)| (i + 1, line))
        .collect()
}

/// The repository paths a line names: words starting with `src/`, `shaders/`, `tests/` or
/// `methods/`, without patterns (`<name>`, `{a,b}`, `*`).
fn paths(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for prefix in ["src/", "shaders/", "tests/", "methods/"] {
        let mut rest = line;
        while let Some(at) = rest.find(prefix) {
            let before = rest[..at].chars().next_back();
            let word: &str = rest[at..]
                .split(|c: char| !(c.is_alphanumeric() || "_./-<>{},*".contains(c)))
                .next()
                .unwrap();
            rest = &rest[at + prefix.len()..];
            // `src/` inside a longer path (`docs/src/`) or a word is not a repository path.
            if before.is_some_and(|c| c.is_alphanumeric() || c == '/' || c == '_') {
                continue;
            }
            let word = word.trim_end_matches(['.', ',']);
            if !word.contains(['<', '{', '*', ',']) {
                out.push(word);
            }
        }
    }
    out
}

#[test]
fn every_path_the_architecture_names_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut named = 0;
    let missing: Vec<String> = prose_lines()
        .into_iter()
        .filter(|(_, line)| !line.contains("(new file)"))
        .flat_map(|(n, line)| paths(line).into_iter().map(move |p| (n, p)))
        .filter(|(_, path)| {
            named += 1;
            !root.join(path).exists()
        })
        .map(|(n, path)| format!("line {n}: {path}"))
        .collect();
    assert!(
        named >= 40,
        "only {named} paths found: is the extraction broken?"
    );
    assert!(
        missing.is_empty(),
        "docs/ARCHITECTURE.md names paths that do not exist:\n{}",
        missing.join("\n")
    );
}

/// The number written before `what` in the document (`15 built-in systems`), every time.
fn stated(what: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut rest = DOC;
    while let Some(at) = rest.find(what) {
        let number: String = rest[..at]
            .trim_end()
            .chars()
            .rev()
            .take_while(char::is_ascii_digit)
            .collect();
        if let Ok(n) = number.chars().rev().collect::<String>().parse() {
            out.push(n);
        }
        rest = &rest[at + what.len()..];
    }
    out
}

#[test]
fn the_architecture_counts_the_registries_right() {
    let counts = [
        (" built-in systems", phaseflow::system::CATALOGUE.len()),
        (" methods", phaseflow::method::ALL.len()),
        (" presets", phaseflow::study::PRESETS.len()),
    ];
    for (what, len) in counts {
        let stated = stated(what);
        assert!(
            !stated.is_empty(),
            "docs/ARCHITECTURE.md states no count of{what}"
        );
        assert!(
            stated.iter().all(|&n| n == len),
            "docs/ARCHITECTURE.md counts {stated:?}{what}, the registry holds {len}"
        );
    }
    let hamiltonian = phaseflow::system::CATALOGUE
        .iter()
        .filter(|s| !s.variational)
        .count();
    assert_eq!(stated(" Hamiltonian, "), [hamiltonian]);
    assert_eq!(
        stated(" variational)"),
        [phaseflow::system::CATALOGUE.len() - hamiltonian]
    );
}

#[test]
fn path_extraction_skips_patterns() {
    assert_eq!(
        paths("`src/run/tracker.rs` and `src/method/<name>.rs`, see docs/src/x and tests/cli/."),
        ["src/run/tracker.rs", "tests/cli/"]
    );
}
