//! The examples of each command: the EXAMPLES of its `--help` (`with_examples`) and of its
//! manual page (`man_page`), and the usage lines of the commands that need several flags. They are real commands, run one after another in one folder
//! (later ones read what earlier ones wrote: `plot results` draws the first run's figures),
//! which is how tests/cli/help.rs runs them.

use std::io::Write;

/// The usage lines name the flags a command needs, all of them (or a `--config` file that
/// gives them).
pub const RUN_USAGE: &str =
    "phaseflow run --system NAME --method NAME --ensemble KIND --dt H --steps N --out DIR [OPTIONS]
       phaseflow run --config FILE.toml [--out DIR] [OPTIONS]";
pub const VALIDATE_USAGE: &str =
    "phaseflow validate --system NAME --method NAME --ensemble KIND --dt H --steps N [OPTIONS]
       phaseflow validate --config FILE.toml [OPTIONS]";
pub const STUDY_USAGE: &str = "phaseflow study --preset NAME --out DIR [OPTIONS]
       phaseflow study --system NAME --methods M,M,.. --ensemble KIND --dt H (--steps N | --t-end T) --out DIR [OPTIONS]";

/// A command's examples: what each does, and its command line.
pub type Examples = &'static [(&'static str, &'static str)];

/// Every command's examples, in the order they run.
pub const EXAMPLES: &[(&str, Examples)] = &[
    ("run", &[
        ("A disk of 1000 pendulum states, Störmer–Verlet, 1000 steps of h = 0.01", "phaseflow run --system pendulum --method verlet --ensemble disk --points 1000 --dt 0.01 --steps 1000 --out results"),
        ("The same disk backwards in time (a negative step)", "phaseflow run --system pendulum --method verlet --ensemble disk --points 1000 --dt -0.01 --steps 1000 --out backwards"),
        ("Again from the first run's settings, 2e4 steps long", "phaseflow run --config results/config.toml --steps 2e4 --out longer"),
        ("One run per value of the parameter g: 0.5, 1, 1.5 and 2", "phaseflow run --system pendulum --method verlet --ensemble disk --points 1000 --dt 0.01 --steps 1000 --sweep g=0.5:2:4 --out sweep"),
    ]),
    ("validate", &[
        ("The GPU engine against the CPU engine on 4096 points", "phaseflow validate --system pendulum --method verlet --ensemble disk --points 4096 --dt 0.01 --steps 100"),
    ]),
    ("study", &[
        ("Explicit Euler against Störmer–Verlet on a circle of pendulum states: data, figures and report.md", "phaseflow study --system pendulum --methods euler,verlet --ensemble circle --dt 0.05 --steps 400 --out study"),
        ("A preset study, shortened to t = 2", "phaseflow study --preset pendulum-disks --t-end 2 --out disks"),
    ]),
    ("bench", &[
        ("The CPU engines and the reference loop on 100000 points, without the GPU", "phaseflow bench --system pendulum --method verlet --points 1e5 --steps 100 --no-gpu"),
    ]),
    ("plot", &[
        ("The first run's figures and report.md, into another folder", "phaseflow plot results --out figures"),
    ]),
    ("order", &[
        ("The order of Störmer–Verlet on the pendulum, from h = 0.1 to 0.1/2^4", "phaseflow order --system pendulum --method verlet --dt 0.1 --steps 50 --halvings 4 --out order"),
    ]),
    ("show-kernel", &[
        ("The WGSL kernel of Störmer–Verlet on the pendulum", "phaseflow show-kernel --system pendulum --method verlet"),
    ]),
    ("show-modified-hamiltonian", &[
        ("Störmer–Verlet's modified Hamiltonian of the pendulum, two correction terms", "phaseflow show-modified-hamiltonian --system pendulum --method verlet --order 2"),
    ]),
    ("list", &[("Every system, method and ensemble kind", "phaseflow list")]),
    ("method", &[
        ("The order, symplecticity and stability of Yoshida's composition", "phaseflow method check yoshida4"),
    ]),
    ("devices", &[("The GPUs phaseflow can use", "phaseflow devices")]),
    ("resume", &[
        ("Continue an interrupted run (a finished one is left as it is)", "phaseflow resume results"),
    ]),
    ("merge", &[
        ("The first half of a disk", "phaseflow run --system pendulum --method verlet --ensemble disk --points 8192 --dt 0.01 --steps 100 --shard 0/2 --out half0"),
        ("The second half", "phaseflow run --system pendulum --method verlet --ensemble disk --points 8192 --dt 0.01 --steps 100 --shard 1/2 --out half1"),
        ("The whole disk's run from the halves", "phaseflow merge half0 half1 --out whole"),
    ]),
    ("completions", &[
        ("Completions for bash", "phaseflow completions bash > phaseflow.bash"),
    ]),
    ("man", &[
        ("The manual page of `phaseflow run`", "phaseflow man run > phaseflow-run.1"),
    ]),
];

/// The examples of `command` (none for an unknown name).
pub fn of(command: &str) -> Examples {
    EXAMPLES
        .iter()
        .find(|(name, _)| *name == command)
        .map(|(_, e)| *e)
        .unwrap_or(&[])
}

/// The help's EXAMPLES text: each example's line under its description.
fn help_text(examples: Examples) -> String {
    let lines: Vec<String> = examples
        .iter()
        .map(|(what, line)| format!("  # {what}\n  {line}"))
        .collect();
    format!("Examples:\n{}", lines.join("\n"))
}

/// The command line with each command's examples after its help.
pub fn with_examples(mut cli: clap::Command) -> clap::Command {
    for (name, examples) in EXAMPLES {
        cli = cli.mut_subcommand(name, |c| c.after_help(help_text(examples)));
    }
    cli
}

/// Text as a roff line: a leading '.' or '\'' would be read as a request, and '\' starts an
/// escape.
fn roff(text: &str) -> String {
    let text = text.replace('\\', "\\e");
    if text.starts_with(['.', '\'']) {
        format!("\\&{text}")
    } else {
        text
    }
}

/// The manual page of `page` (phaseflow's, or a command's: `built` from `with_examples`): clap_mangen's
/// sections, with the examples as an EXAMPLES section where clap_mangen would put the help's
/// trailing text.
pub fn man_page(page: clap::Command) -> std::io::Result<Vec<u8>> {
    let examples = of(page.get_name().trim_start_matches("phaseflow-"));
    let has_subcommands = page.has_subcommands();
    let has_version = page.get_version().is_some();
    let man = clap_mangen::Man::new(page);
    let mut w = Vec::new();
    man.render_title(&mut w)?;
    man.render_name_section(&mut w)?;
    man.render_synopsis_section(&mut w)?;
    man.render_description_section(&mut w)?;
    man.render_options_section(&mut w)?;
    if has_subcommands {
        man.render_subcommands_section(&mut w)?;
    }
    if !examples.is_empty() {
        writeln!(w, ".SH EXAMPLES")?;
        for (what, line) in examples {
            writeln!(w, ".TP\n{}\n{}", roff(what), roff(line))?;
        }
    }
    if has_version {
        man.render_version_section(&mut w)?;
    }
    Ok(w)
}
