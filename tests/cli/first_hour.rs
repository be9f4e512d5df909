//! A new user's first commands: every missing flag named at once (and in the usage line), a
//! name's closest match offered, one `Error:` style for clap's errors and the program's own, an
//! option the ensemble does not use refused, a grid's box read in the coordinates it spans, a
//! section cap that does not fit named, and the engine said once per study.

use std::path::Path;

use tempfile::TempDir;

use crate::common::{argv, oscillator_study, pendulum_disk, phaseflow};

/// Exit 2; stderr, which starts with `Error: ` (clap's errors too), and nothing at `out`.
fn refused_at(args: &[String], out: &Path) -> String {
    let got = phaseflow().args(args).output().unwrap();
    let err = String::from_utf8_lossy(&got.stderr).to_string();
    assert_eq!(got.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.starts_with("Error: "), "{args:?}: {err}");
    assert!(
        !err.contains("error:") && !err.contains("panicked"),
        "{err}"
    );
    assert!(!out.exists(), "{args:?}: {} written", out.display());
    err
}

/// `refused_at` of a command line given as one string (no value holds a space), its `OUT` a
/// folder that must not be created.
fn refused(line: &str) -> String {
    let tmp = TempDir::new().unwrap();
    let out = tmp.path().join("out");
    let args: Vec<String> = argv(line)
        .into_iter()
        .map(|a| {
            if a == "OUT" {
                out.display().to_string()
            } else {
                a
            }
        })
        .collect();
    refused_at(&args, &out)
}

/// `phaseflow run` alone said "--out DIR is required", then, given that, the next flag, and so
/// on: six tries to learn six flags.
#[test]
fn every_missing_flag_is_named_at_once() {
    let err = refused("run");
    assert!(
        err.contains("missing --system NAME (or --hamiltonian EXPR, --lagrangian EXPR, --system-file FILE.toml), --method NAME (or --method-file FILE.toml), --ensemble KIND, --dt H, --steps N, --out DIR; e.g. phaseflow run --system pendulum"),
        "{err}"
    );
    let err = refused("run --system pendulum --dt 0.1");
    assert!(
        err.contains("missing --method NAME (or --method-file FILE.toml), --ensemble KIND, --steps N, --out DIR;"),
        "{err}"
    );
    let err = refused("validate --method verlet");
    assert!(
        err.contains("missing --system NAME (or --hamiltonian EXPR, --lagrangian EXPR, --system-file FILE.toml), --ensemble KIND, --dt H, --steps N; e.g. phaseflow validate"),
        "{err}"
    );
    let err = refused("study --system pendulum");
    assert!(
        err.contains("missing --methods M,M,.., --dt H, --steps N (or --t-end T), --ensemble KIND, --out DIR;"),
        "{err}"
    );
    // The usage line names them too.
    let err = refused("run --no-such-flag");
    assert!(
        err.starts_with("Error: unexpected argument '--no-such-flag' found"),
        "{err}"
    );
    assert!(
        err.contains("Usage: phaseflow run --system NAME --method NAME --ensemble KIND --dt H --steps N --out DIR [OPTIONS]"),
        "{err}"
    );
}

/// A flag of another command is answered with the commands that take it, not with the
/// nearest spelling among this command's flags (`bench --precision` is no typo of
/// `--discretization`); a misspelt flag still gets clap's nearest one.
#[test]
fn a_flag_of_another_command_names_the_commands_that_take_it() {
    let err = refused("bench --precision f64");
    assert!(
        err.starts_with("Error: `phaseflow bench` has no option --precision; it is an option of `phaseflow run`,"),
        "{err}"
    );
    assert!(!err.contains("--discretization"), "{err}");
    let err = refused("list --points=3");
    assert!(
        err.contains("has no option --points; it is an option of `phaseflow run`"),
        "{err}"
    );
    let err = refused("run --precison f64");
    assert!(
        err.contains("a similar argument exists: '--precision'"),
        "{err}"
    );
}

/// A misspelt name is answered with the closest known one.
#[test]
fn a_misspelt_name_gets_the_closest_one() {
    let run = |flag: &str, value: &str| {
        let mut args = [argv("run"), pendulum_disk(10, 0.1, 1)].concat();
        let at = args.iter().position(|a| a == flag).unwrap();
        args[at + 1] = value.to_string();
        let tmp = TempDir::new().unwrap();
        let out = tmp.path().join("out");
        args.extend(["--out".to_string(), out.display().to_string()]);
        refused_at(&args, &out)
    };
    let err = run("--system", "pendulm");
    assert!(
        err.contains("--system pendulm: unknown system; did you mean pendulum?"),
        "{err}"
    );
    let err = run("--method", "yoshida-4");
    assert!(
        err.contains("--method yoshida-4: unknown method; did you mean yoshida4?"),
        "{err}"
    );
    let err = run("--ensemble", "disc");
    assert!(
        err.contains("unknown ensemble kind; did you mean disk?"),
        "{err}"
    );
    let err = refused("study --preset pendulum-disk --out OUT");
    assert!(
        err.contains("--preset pendulum-disk: unknown study preset; did you mean pendulum-disks?"),
        "{err}"
    );
    // Nothing close: no guess.
    let err = run("--system", "blackhole");
    assert!(!err.contains("did you mean"), "{err}");
}

/// Round 3, row 13: `--energy` with a disk was dropped without a word (while `--grid-axes` with
/// a disk was refused); every ensemble option is now refused where its kind does not use it.
#[test]
fn an_option_the_ensemble_does_not_use_is_refused() {
    for (kind, extra, needle) in [
        (
            "disk",
            "--energy 0.1",
            "--energy applies to --ensemble level, grid only, not to disk; drop --energy",
        ),
        (
            "gaussian",
            "--radius 0.2",
            "--radius applies to --ensemble circle, disk only, not to gaussian",
        ),
        (
            "circle",
            "--sigma 0.2",
            "--sigma applies to --ensemble gaussian only, not to circle",
        ),
        (
            "disk",
            "--lo 0,0",
            "--lo applies to --ensemble rect, grid only, not to disk",
        ),
        (
            "rect",
            "--center 0,0",
            "--center applies to --ensemble circle, disk, gaussian, point only, not to rect",
        ),
        (
            "level",
            "--input x.csv --energy 0.5",
            "--input applies to --ensemble file only, not to level",
        ),
    ] {
        let err = refused(&format!(
            "run --system pendulum --method verlet --ensemble {kind} {extra} --dt 0.1 --steps 1 --out OUT"
        ));
        assert!(err.contains(needle), "{kind} {extra}: {err}");
    }
}

/// A grid's box that spans two coordinates other than its axes was refused without naming
/// `--grid-axes`; a range in a coordinate the grid holds fixed was dropped without a word.
#[test]
fn a_grid_box_is_read_in_the_coordinates_it_spans() {
    let grid = "run --system henon-heiles --method verlet --ensemble grid --points 16 --dt 0.1 --steps 1 --out OUT";
    let err = refused(&format!("{grid} --lo 0,-0.5,0,-0.5 --hi 0,0.5,0,0.5"));
    assert!(
        err.contains("--lo/--hi: the box must have hi > lo in q1 and p1 (got q1 0..0, p1 0..0); to span q2 and p2 instead, add --grid-axes q2,p2"),
        "{err}"
    );
    let err = refused(&format!(
        "{grid} --grid-axes q2,p2 --lo -0.1,-0.5,0,-0.5 --hi 0.1,0.5,0.2,0.5"
    ));
    assert!(
        err.contains("the grid spans q2 and p2 and holds the other coordinates at one value, but q1 -0.1..0.1, p1 0..0.2 give a range; give lo = hi there (the value to hold), or span two other coordinates with --grid-axes"),
        "{err}"
    );
}

/// Round 3, row 12: a section cap whose crossings cannot fit in memory said "use fewer
/// --points (at most about 0)"; it names --section-max and the cap that fits.
#[test]
fn a_section_cap_that_does_not_fit_is_named() {
    let err = refused(
        "run --system henon-heiles --method verlet --ensemble disk --points 8 --dt 0.1 --steps 5 --section q1=0,both --section-max 1000000000 --backend cpu --out OUT",
    );
    assert!(err.contains("Error: --section-max 1000000000: keeping that many crossings of each of the 8 points needs about"), "{err}");
    assert!(
        err.contains("use a lower --section-max (at most about "),
        "{err}"
    );
    assert!(!err.contains("--points"), "{err}");
}

/// A study said which engine runs once per method; it says it once.
#[test]
fn a_study_says_its_engine_once() {
    let tmp = TempDir::new().unwrap();
    let args: Vec<String> = oscillator_study("euler,verlet,rk4")
        .into_iter()
        .filter(|a| a != "--quiet")
        .collect();
    let got = phaseflow()
        .args(&args)
        .arg("--out")
        .arg(tmp.path().join("s"))
        .output()
        .unwrap();
    assert!(got.status.success(), "{got:?}");
    let err = String::from_utf8_lossy(&got.stderr);
    let engine_lines = err
        .lines()
        .filter(|l| l.starts_with("phaseflow: engine "))
        .count();
    assert_eq!(engine_lines, 1, "{err}");
    assert_eq!(err.matches("phaseflow: study custom [").count(), 3, "{err}");
}
