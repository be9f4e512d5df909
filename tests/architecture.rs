//! The architecture's rules, checked on the source (docs/ARCHITECTURE.md): no file in src/ over
//! 600 lines, and no import cycle between the library's top-level modules, so the layers stay
//! layers (`cli` → `config` → `run`/`study` → engines and measurements → `system`/`method`/
//! `state`). Function length (at most 80 lines) is clippy's `too_many_lines`, set in clippy.toml
//! and checked by the README's test command.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const MAX_FILE_LINES: usize = 600;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The top-level module a file of src/ belongs to (`src/run/tracker.rs` → `run`); `None` for
/// the crate roots.
fn top_module(path: &Path) -> Option<String> {
    let rel = path.strip_prefix(src()).unwrap();
    let first = rel.components().next()?.as_os_str().to_str()?.to_string();
    let name = first.trim_end_matches(".rs").to_string();
    (name != "lib" && name != "main").then_some(name)
}

/// The top-level modules a file's non-test code names through `crate::` (paths and `use`
/// lists, `crate::{a, b::c}` included; `$crate::` in macro bodies is the caller's business).
fn crate_references(text: &str) -> BTreeSet<String> {
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    let mut out = BTreeSet::new();
    let bytes = code.as_bytes();
    let mut i = 0;
    while let Some(pos) = code[i..].find("crate::") {
        let at = i + pos;
        i = at + "crate::".len();
        if at > 0 && (bytes[at - 1] == b'$' || bytes[at - 1].is_ascii_alphanumeric()) {
            continue;
        }
        if code[i..].starts_with('{') {
            // A use list: the first identifier of each item at brace depth 1.
            let mut depth = 0;
            let mut item_start = true;
            for (j, c) in code[i..].char_indices() {
                match c {
                    '{' => {
                        depth += 1;
                        item_start = depth == 1;
                    }
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    ',' if depth == 1 => item_start = true,
                    c if item_start && (c.is_alphanumeric() || c == '_') => {
                        let ident: String = code[i + j..]
                            .chars()
                            .take_while(|c| c.is_alphanumeric() || *c == '_')
                            .collect();
                        out.insert(ident);
                        item_start = false;
                    }
                    _ => {}
                }
            }
        } else {
            let ident: String = code[i..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            out.insert(ident);
        }
    }
    out
}

#[test]
fn no_source_file_is_over_600_lines() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            // A system's functions generated from its formula (src/system/generated/) are one
            // thing however long: the generator writes them, nobody reads them to edit them.
            let generated = f.parent().is_some_and(|d| d.ends_with("system/generated"))
                && text.starts_with("//! Generated from the formulas in ");
            let n = text.lines().count();
            (n > MAX_FILE_LINES && !generated).then(|| format!("{} ({n} lines)", f.display()))
        })
        .collect();
    assert!(
        long.is_empty(),
        "split these files (each about one thing): {long:?}"
    );
}

#[test]
fn top_level_modules_import_each_other_without_cycles() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut deps: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in &files {
        let Some(module) = top_module(f) else {
            continue;
        };
        let text = std::fs::read_to_string(f).unwrap();
        let entry = deps.entry(module.clone()).or_default();
        for r in crate_references(&text) {
            if r != module {
                entry.insert(r);
            }
        }
    }
    let modules: BTreeSet<String> = deps.keys().cloned().collect();
    for d in deps.values_mut() {
        d.retain(|m| modules.contains(m));
    }
    // Depth-first search for a back edge; report the cycle's path.
    fn visit(
        m: &str,
        deps: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(k) = path.iter().position(|x| x == m) {
            let mut cycle = path[k..].to_vec();
            cycle.push(m.to_string());
            return Some(cycle);
        }
        if done.contains(m) {
            return None;
        }
        path.push(m.to_string());
        for d in &deps[m] {
            if let Some(c) = visit(d, deps, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(m.to_string());
        None
    }
    let mut done = BTreeSet::new();
    for m in deps.keys() {
        if let Some(cycle) = visit(m, &deps, &mut Vec::new(), &mut done) {
            panic!("import cycle between modules: {}", cycle.join(" → "));
        }
    }
}

#[test]
fn the_reference_parser_reads_use_lists() {
    let refs = crate_references(
        "use crate::a::B;\nuse crate::{c, d::{E, F}, g};\nfn f() { crate::h::i(); $crate::j; }\n#[cfg(test)]\nuse crate::k;",
    );
    let want: BTreeSet<String> = ["a", "c", "d", "g", "h"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(refs, want);
}

/// The names in a text that are a source document's file name (`seed` and a number, as the
/// documents behind the project are filed), with their line numbers.
fn document_file_names(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let lower = line.to_ascii_lowercase();
        for word in lower.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
            let digits = word.strip_prefix("seed").map(|w| w.trim_start_matches('_'));
            if digits.is_some_and(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit())) {
                out.push((n + 1, word.to_string()));
            }
        }
    }
    out
}

/// Source names say what a thing is: a file, module, function or variable is not named after
/// the file name of the document it comes from (cite the document by author and title).
#[test]
fn no_source_name_is_a_document_file_name() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["src", "tests", "benches", "examples"] {
        rust_files(&root.join(dir), &mut files);
    }
    let found: Vec<String> = files
        .iter()
        .flat_map(|path| {
            let rel = path.strip_prefix(root).unwrap().display().to_string();
            let mut names = document_file_names(&rel.replace(['/', '.'], " "));
            names.extend(document_file_names(&std::fs::read_to_string(path).unwrap()));
            names
                .into_iter()
                .map(move |(n, name)| format!("{rel}:{n}: {name}"))
        })
        .collect();
    assert!(
        found.is_empty(),
        "named after a document's file:\n{}",
        found.join("\n")
    );
}

#[test]
fn document_file_names_are_told_from_other_seeds() {
    // Built from pieces so that this file holds no such name itself.
    let text = [
        "mod seed",
        "003;\nlet seed = 7; // seed 0, Seed",
        "_012\nfn seeded() {}",
    ]
    .concat();
    assert_eq!(
        document_file_names(&text),
        [
            (1, ["seed", "003"].concat()),
            (2, ["seed", "_012"].concat())
        ]
    );
}

/// The engines only advance and call the integrator's per-step observers (`observe`): what
/// those measure (the chaos indicators, a section's crossings) is no module the engines name.
#[test]
fn the_engines_name_no_module_an_observer_measures_with() {
    for file in ["engine/cpu.rs", "engine/gpu.rs"] {
        let text = std::fs::read_to_string(src().join(file)).unwrap();
        let named = crate_references(&text);
        assert!(
            named.contains("observe"),
            "{file} calls no observer: {named:?}"
        );
        for module in ["chaos", "section"] {
            assert!(!named.contains(module), "{file} names crate::{module}");
        }
    }
}
