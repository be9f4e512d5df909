//! `method check --plot DIR [--with METHOD …]`: the step's amplification on q'' = −ω²q drawn
//! for several methods, written whole, never over files already there.

use super::common::{argv, phaseflow};

#[test]
fn plot_writes_the_figure_once_and_refuses_to_replace_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("fig");
    let line = format!(
        "method check verlet --plot {} --with implicit-midpoint --with rk4",
        out.display()
    );
    let a = phaseflow().args(argv(&line)).assert().success();
    let text = String::from_utf8_lossy(&a.get_output().stdout).to_string();
    assert!(text.contains("linear stability interval"), "{text}");
    for ext in ["png", "svg"] {
        let file = out.join(format!("stability.{ext}"));
        assert!(
            text.contains(&format!("wrote {}", file.display())),
            "{text}"
        );
        assert!(std::fs::metadata(&file).unwrap().len() > 1000, "{ext}");
    }
    let svg = std::fs::read_to_string(out.join("stability.svg")).unwrap();
    for name in ["verlet", "implicit-midpoint", "rk4"] {
        assert!(svg.contains(name), "{name} not in the legend");
    }
    let before = std::fs::read(out.join("stability.png")).unwrap();
    let a = phaseflow().args(argv(&line)).assert().code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).to_string();
    assert!(
        err.contains("exists") && err.contains("another folder"),
        "{err}"
    );
    assert!(
        a.get_output().stdout.is_empty(),
        "verdicts printed before the error"
    );
    assert_eq!(std::fs::read(out.join("stability.png")).unwrap(), before);
}

#[test]
fn bad_plot_input_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    phaseflow()
        .args(argv("method check verlet --with rk4"))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--plot"));
    let line = format!(
        "method check verlet --plot {} --with variational",
        dir.path().join("v").display()
    );
    phaseflow()
        .args(argv(&line))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("no tableau"));
}
