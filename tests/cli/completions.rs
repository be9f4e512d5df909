//! Shell completions, the man page and the help lists come from the registries and the clap
//! definitions: every system, method (built-in and shipped), ensemble kind and preset
//! completes by name, the man page names every command, and names clap does not know still
//! reach the configuration's own message (exit 2).

use clap::CommandFactory;

use crate::common::phaseflow;

fn stdout_of(args: &[&str]) -> String {
    let out = phaseflow().args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// Every name a registry holds.
fn registry_names() -> Vec<&'static str> {
    let systems = phaseflow::system::CATALOGUE.iter().map(|s| s.name);
    let methods = phaseflow::method::all().iter().map(|m| m.name());
    let kinds = phaseflow::ensemble::KINDS.iter().map(|k| k.1);
    let presets = phaseflow::study::PRESETS.iter().map(|p| p.0);
    systems.chain(methods).chain(kinds).chain(presets).collect()
}

#[test]
fn completion_scripts_complete_every_registered_name() {
    let names = registry_names();
    assert!(names.contains(&"rk4-tableau"), "a shipped method file");
    for shell in ["bash", "zsh", "fish"] {
        let script = stdout_of(&["completions", shell]);
        for name in &names {
            assert!(script.contains(name), "{shell}: {name} does not complete");
        }
        for flag in ["--system", "--method", "--ensemble", "--preset"] {
            assert!(
                script.contains(flag.trim_start_matches('-')),
                "{shell}: {flag}"
            );
        }
    }
    // bash: the values of --system are offered after --system.
    let bash = stdout_of(&["completions", "bash"]);
    assert!(bash.contains("--system)"), "{bash}");
}

#[test]
fn the_man_page_names_every_command_and_each_command_page_its_flags() {
    let page = stdout_of(&["man"]);
    assert!(page.contains(".TH phaseflow 1"), "not roff: {page}");
    let cli = phaseflow::cli::Cli::command();
    for sub in cli.get_subcommands() {
        let name = sub.get_name();
        // roff writes a hyphen as `\-`.
        assert!(
            page.contains(&format!("phaseflow\\-{}", name.replace('-', "\\-"))),
            "the man page lacks {name}"
        );
        let sub_page = stdout_of(&["man", name]);
        assert!(
            sub_page.contains(&format!(".TH phaseflow-{name} 1")),
            "{name}: {sub_page}"
        );
        for arg in sub.get_arguments() {
            if let Some(long) = arg.get_long() {
                let flag = format!("\\-\\-{}", long.replace('-', "\\-"));
                assert!(sub_page.contains(&flag), "man {name} lacks --{long}");
            }
        }
    }
    // Every system and method is on the run page, with its summary.
    let run = stdout_of(&["man", "run"]);
    for s in phaseflow::system::CATALOGUE {
        assert!(run.contains(&s.name.replace('-', "\\-")), "{}", s.name);
    }
}

#[test]
fn help_lists_are_the_registries() {
    let long = stdout_of(&["run", "--help"]);
    for s in phaseflow::system::CATALOGUE {
        assert!(long.contains(&format!("- {}:", s.name)), "{}", s.name);
    }
    for m in phaseflow::method::all() {
        assert!(long.contains(&format!("- {}:", m.name())), "{}", m.name());
    }
    for (_, name, what) in phaseflow::ensemble::KINDS {
        assert!(long.contains(&format!("- {name}:")), "{name}");
        assert!(long.contains(what), "{name}: {what}");
    }
    // The short help names them all on one line per flag.
    let short = stdout_of(&["run", "-h"]);
    let methods: Vec<&str> = phaseflow::method::all().iter().map(|m| m.name()).collect();
    assert!(
        short.contains(&format!("[possible values: {}]", methods.join(", "))),
        "{short}"
    );
}

/// Bad input exits 2: clap's own usage errors and the configuration's refusals of names it
/// does not know (whose message lists the known ones and keeps its flag).
#[test]
fn unknown_names_and_usage_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let run = |system: &str, method: &str| -> Vec<String> {
        let line = format!(
            "run --system {system} --method {method} --ensemble point --dt 0.1 --steps 1 --out {}",
            out.display()
        );
        line.split(' ').map(String::from).collect()
    };
    let words = |line: &str| -> Vec<String> { line.split(' ').map(String::from).collect() };
    let cases = [
        (words("completions tcsh"), "invalid value 'tcsh'"),
        (words("man nope"), "phaseflow man nope: no such command"),
        (
            words("run --no-such-flag"),
            "unexpected argument '--no-such-flag'",
        ),
        (
            run("nope", "verlet"),
            "Error: --system nope: unknown system (known: oscillator, pendulum,",
        ),
        (
            run("pendulum", "nope"),
            "Error: --method nope: unknown method (known: euler,",
        ),
    ];
    for (args, message) in cases {
        let result = phaseflow().args(&args).output().unwrap();
        assert_eq!(result.status.code(), Some(2), "{args:?}: {result:?}");
        let stderr = String::from_utf8_lossy(&result.stderr);
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
    assert!(!out.exists(), "a refused run created --out");
}
