//! docs/ARCHITECTURE.md against the code it describes: every path it names exists (outside its
//! code blocks, and but for the files a recipe tells you to create), and every registry count it
//! states is the registry's length, so the map cannot silently fall behind the code.

use std::path::{Path, PathBuf};

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

/// The method files shipped in `methods/` (embedded in the binary by build.rs).
fn shipped_method_files() -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("methods");
    std::fs::read_dir(dir)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "toml")
        })
        .count()
}

#[test]
fn the_architecture_counts_the_registries_right() {
    let counts = [
        (" built-in systems", phaseflow::system::CATALOGUE.len()),
        (" methods", phaseflow::method::ALL.len()),
        (" presets", phaseflow::study::PRESETS.len()),
        (" shipped method files", shipped_method_files()),
    ];
    for (what, len) in counts {
        let stated = stated(what);
        assert!(
            !stated.is_empty(),
            "docs/ARCHITECTURE.md states no count of{what}"
        );
        assert!(
            stated.iter().all(|&n| n == len),
            "docs/ARCHITECTURE.md counts {stated:?}{what}, the registry holds {len}: write \"{len}{what}\""
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

/// The folder map's tables: for each `### \`DIR/\`` heading under "## Folder map", the table
/// rows (`| … |` lines) below it.
fn folder_map_tables() -> Vec<(&'static str, Vec<&'static str>)> {
    let map = &DOC[DOC.find("## Folder map").expect("no folder map")..];
    let map = map[3..].find("\n## ").map_or(map, |end| &map[..end + 3]);
    let mut tables: Vec<(&str, Vec<&str>)> = Vec::new();
    for line in map.lines() {
        if let Some(heading) = line.strip_prefix("### `") {
            let dir = heading.split('`').next().unwrap();
            tables.push((dir.trim_end_matches('/'), Vec::new()));
        } else if line.starts_with("| `") {
            if let Some((_, rows)) = tables.last_mut() {
                rows.push(line);
            }
        }
    }
    tables
}

/// The backticked words of a text.
fn backticked(text: &str) -> impl Iterator<Item = &str> {
    text.split('`').skip(1).step_by(2)
}

/// The files (relative to `root`) one folder-map row names. Its first cell lists paths: a path
/// relative to the table's folder, or to the folder of a path before it (`measure/energy.rs`,
/// `area.rs`); a pattern `dir/<name>.rs` names the files whose stem is a word of the row; a
/// folder `dir/` names the files the row gives in backticks inside it.
fn named_by_row(root: &Path, row: &str) -> Vec<PathBuf> {
    let first_cell = row[1..].split(" | ").next().unwrap();
    let words: Vec<&str> = row
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .collect();
    let mut named: Vec<PathBuf> = Vec::new();
    for token in backticked(first_cell) {
        if let (Some(open), Some(close)) = (token.find('<'), token.find('>')) {
            let (dir, ext) = (&token[..open], &token[close + 1..]);
            named.extend(
                words
                    .iter()
                    .map(|w| PathBuf::from(format!("{dir}{w}{ext}"))),
            );
        } else if token.ends_with('/') {
            let inside = backticked(row).filter(|t| t.ends_with(".rs") || t.ends_with(".wgsl"));
            named.extend(inside.map(|t| Path::new(token).join(t)));
        } else {
            let bases = named
                .iter()
                .rev()
                .flat_map(|p| p.ancestors().skip(1))
                .chain([Path::new("")]);
            let found = bases
                .map(|base| base.join(token))
                .find(|path| root.join(path).is_file());
            named.push(found.unwrap_or_else(|| PathBuf::from(token)));
        }
    }
    named.retain(|path| root.join(path).is_file());
    named
}

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

#[test]
fn every_source_and_shader_file_has_a_line_in_the_folder_map() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tables = folder_map_tables();
    let mut unnamed = Vec::new();
    for folder in ["src", "shaders"] {
        let (_, rows) = tables
            .iter()
            .find(|(dir, _)| *dir == folder)
            .unwrap_or_else(|| panic!("the folder map has no table for {folder}/"));
        let base = root.join(folder);
        let named: std::collections::BTreeSet<PathBuf> = rows
            .iter()
            .flat_map(|row| named_by_row(&base, row))
            .collect();
        let mut files = Vec::new();
        files_under(&base, &mut files);
        files.sort();
        unnamed.extend(
            files
                .iter()
                .map(|f| f.strip_prefix(&base).unwrap())
                .filter(|f| !named.contains(*f))
                .map(|f| format!("{folder}/{}", f.display())),
        );
    }
    assert!(
        unnamed.is_empty(),
        "docs/ARCHITECTURE.md's folder map has no line for:\n{}",
        unnamed.join("\n")
    );
}

#[test]
fn folder_map_rows_resolve_relative_paths_patterns_and_folders() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    assert_eq!(
        named_by_row(
            &root,
            "| `measure/energy.rs` (`energy/columns.rs`), `area.rs` | x | — |"
        ),
        [
            "measure/energy.rs",
            "measure/energy/columns.rs",
            "measure/area.rs"
        ]
        .map(PathBuf::from)
    );
    assert_eq!(
        named_by_row(
            &root,
            "| `engine/<name>.rs` | the cpu and gpu engines | — |"
        ),
        ["engine/cpu.rs", "engine/gpu.rs"].map(PathBuf::from)
    );
    assert_eq!(
        named_by_row(
            &root,
            "| `method/file/` | `mod.rs`, `coef.rs`, `nothing.rs` | — |"
        ),
        ["method/file/mod.rs", "method/file/coef.rs"].map(PathBuf::from)
    );
}
