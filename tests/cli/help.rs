//! Help and listings generated from the registries: `study --help` names every preset of the
//! preset table (it once named 9 of 24), and `list` every system, method and ensemble kind.

use crate::common::phaseflow;

fn stdout_of(args: &[&str]) -> String {
    let out = phaseflow().args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn study_help_names_every_preset() {
    let long = stdout_of(&["study", "--help"]);
    let short = stdout_of(&["study", "-h"]);
    for (name, summary) in phaseflow::study::PRESETS {
        assert!(
            long.contains(&format!("{name}: {summary}")),
            "--help: {name}"
        );
        assert!(short.contains(name), "-h: {name}");
    }
}

#[test]
fn list_names_every_registry_entry() {
    let list = stdout_of(&["list"]);
    for system in phaseflow::system::CATALOGUE {
        assert!(
            list.contains(&format!("  {:<12} {}", system.name, system.summary)),
            "{}",
            system.name
        );
    }
    // Every method, built-in and shipped, with its verdict columns after the padded name.
    let methods = phaseflow::method::all();
    let width = methods.iter().map(|m| m.name().len()).max().unwrap();
    for method in methods {
        assert!(
            list.contains(&format!("  {:<width$} order", method.name())),
            "{}",
            method.name()
        );
    }
    for (_, name, what) in phaseflow::ensemble::KINDS {
        assert!(list.contains(&format!("  {name:<10} {what}")), "{name}");
    }
}
