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

/// Every command's examples are in its `--help` and its manual page's EXAMPLES, and they work:
/// run one after another in one folder (later ones read what earlier ones wrote), each exits 0.
/// `validate` needs a GPU: on a machine without one it must fail for that reason alone.
#[test]
fn every_example_is_shown_and_runs() {
    let tmp = tempfile::TempDir::new().unwrap();
    let bin = std::path::PathBuf::from(env!("CARGO_BIN_EXE_phaseflow"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let names: Vec<&str> = phaseflow::cli::examples::EXAMPLES
        .iter()
        .map(|(name, _)| *name)
        .collect();
    for sub in <phaseflow::cli::Cli as clap::CommandFactory>::command().get_subcommands() {
        assert!(
            names.contains(&sub.get_name()),
            "{}: no examples",
            sub.get_name()
        );
    }
    for (name, examples) in phaseflow::cli::examples::EXAMPLES {
        let help = stdout_of(&[name, "--help"]);
        let man = stdout_of(&["man", name]);
        assert!(help.contains("Examples:"), "{name} --help: {help}");
        assert!(man.contains("\n.SH EXAMPLES\n"), "man {name}: {man}");
        for (what, line) in *examples {
            assert!(
                help.contains(&format!("  # {what}\n  {line}")),
                "{name} --help: {line}"
            );
            assert!(
                man.contains(&format!("{what}\n{line}\n")),
                "man {name}: {line}"
            );
            let got = std::process::Command::new("sh")
                .args(["-c", line])
                .current_dir(tmp.path())
                .env("PATH", &path)
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&got.stderr);
            let no_gpu = *name == "validate"
                && got.status.code() == Some(1)
                && err.contains("no wgpu adapter found");
            assert!(got.status.success() || no_gpu, "{line}: {got:?}");
        }
    }
}
