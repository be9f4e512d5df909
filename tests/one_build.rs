//! The release library compiles once for every step of `scripts/test`: `cargo test`, `cargo
//! build` and the Python package's build resolve the same features for every crate they share
//! (see the comment above `bitflags` in Cargo.toml). A dependency added to the tests or to the
//! Python package that turns on another feature of a shared crate would make each build
//! compile wgpu and the library again, silently; this test names the crate and its features.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

/// Each package of `cargo tree ARGS` ("name vX.Y.Z") with the features it is built with.
fn features(args: &[&str]) -> BTreeMap<String, BTreeSet<String>> {
    let out = Command::new(env!("CARGO"))
        .args(["tree", "--prefix", "none", "--no-dedupe"])
        .args(["-f", "{p} [{f}]"])
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut map: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let Some((package, rest)) = line.split_once(" [") else {
            continue;
        };
        let Some((list, _)) = rest.split_once(']') else {
            continue;
        };
        // "name vX.Y.Z", without a path package's "(/path)".
        let key: String = package
            .split_whitespace()
            .take(2)
            .collect::<Vec<_>>()
            .join(" ");
        let set = map.entry(key).or_default();
        set.extend(list.split(',').filter(|f| !f.is_empty()).map(String::from));
    }
    map
}

#[test]
fn the_tests_cargo_build_and_the_python_package_share_one_feature_set() {
    let tests = features(&["-p", "phaseflow", "-e", "normal,dev,build"]);
    let python = features(&["-p", "phaseflow-python", "-e", "normal"]);
    let build = features(&["-p", "phaseflow", "-e", "normal"]);
    let mut differ = Vec::new();
    for (other_name, other) in [("the Python package", &python), ("cargo build", &build)] {
        for (package, wanted) in other {
            if package.starts_with("phaseflow ") || package.starts_with("phaseflow-python ") {
                continue;
            }
            if let Some(have) = tests.get(package) {
                if have != wanted {
                    differ.push(format!(
                        "{package}: the tests build it with {have:?}, {other_name} with {wanted:?}"
                    ));
                }
            }
        }
    }
    assert!(
        differ.is_empty(),
        "crates built with other features than the tests' (ask for the union in Cargo.toml):\n{}",
        differ.join("\n")
    );
}
