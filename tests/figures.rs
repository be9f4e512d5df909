//! Every preset study's figures, rendered at short settings and checked: each figure has data
//! drawn inside its plot box and no data pixel outside the box and legend
//! (`plot::check_figure`), report.md embeds exactly the figures written, and a study without
//! an area measurement writes no empty area figure.

use phaseflow::plot;
use phaseflow::study::{self, Study, PRESETS};

/// The preset shortened to at most 2000 steps per run (and t_end), with at most 300 points,
/// on the CPU.
fn short(name: &str) -> Study {
    let mut st = study::preset(name).unwrap();
    let min_dt = st.runs.iter().map(|r| r.dt).fold(f64::INFINITY, f64::min);
    let t_full = st
        .runs
        .iter()
        .map(|r| r.steps as f64 * r.dt)
        .fold(0.0, f64::max);
    let t_end = t_full.min(2000.0 * min_dt);
    for r in &mut st.runs {
        r.steps = ((t_end / r.dt).round() as u64).max(1);
    }
    let k = st.portrait_times.len().max(2) - 1;
    st.portrait_times = (0..=k).map(|i| t_end * i as f64 / k as f64).collect();
    if let Some(e) = st.base.ensemble.as_mut() {
        // A grid needs a perfect square: 17² = 289.
        let most = if e.kind.as_deref() == Some("grid") {
            289
        } else {
            300
        };
        e.points = e.points.map(|n| n.min(most));
    }
    st.base.backend = Some(phaseflow::config::Backend::Cpu);
    // As `Study::try_from(&StudyArgs)` does: the tangent map is on unless the preset turns it off.
    st.base.tangent = Some(st.base.tangent.unwrap_or(true));
    st
}

fn check_study(st: &Study) -> Vec<String> {
    phaseflow::console::set_quiet(true);
    let dir = tempfile::tempdir().unwrap();
    let outcome = study::run_study(st, dir.path(), false, "test").unwrap();
    assert!(!outcome.figures.is_empty(), "{}: no figures", st.name);
    let report = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
    // The study's own figures; a chaos study also embeds each run's map and section from the
    // run's folder (`<run>/map.png`).
    let embedded = (report.split("![").skip(1))
        .filter_map(|e| e.split("](").nth(1)?.split(')').next())
        .filter(|target| !target.contains('/'))
        .count();
    assert_eq!(embedded, outcome.figures.len(), "{}: {report}", st.name);
    let mut stems = Vec::new();
    for (stem, fig) in &outcome.figures {
        if let Err(e) = plot::check_figure(fig) {
            panic!("{} {stem}: {e}", st.name);
        }
        assert!(dir.path().join(format!("{stem}.png")).is_file());
        assert!(dir.path().join(format!("{stem}.svg")).is_file());
        assert!(
            report.contains(&format!("]({stem}.png)")),
            "{}: {stem}",
            st.name
        );
        stems.push(stem.clone());
    }
    stems
}

#[test]
fn every_preset_draws_its_figures_inside_the_frame() {
    for (name, summary) in PRESETS {
        let stems = check_study(&short(name));
        // Torrente's motions that keep their energy exactly (a disk spinning upright in place,
        // figures 13 and 16; a ball on a plane at rest, figure 19) have no error to draw on a
        // log axis.
        let exact = [
            "disk-vertical-spin",
            "euler-disk-upright",
            "ball-fixed-plane",
            "ball-fixed-plane-coarse",
        ]
        .contains(name);
        assert_eq!(
            stems.iter().any(|s| s == "energy_error"),
            !exact,
            "{name}: {stems:?}"
        );
        assert!(
            stems.iter().any(|s| s.starts_with("phase_")),
            "{name}: {stems:?}"
        );
        // Filled sets, loops and the tangent map give an area figure; the presets that turn
        // the tangent map off have none, so none is written or embedded: the chains, Torrente's
        // single states of variational systems (whose (q, v) is not a symplectic phase space),
        // the single orbits of the modified Hamiltonian presets, the constrained Lagrangian.
        let area = stems.iter().any(|s| s == "area_ratio");
        let variational_single_state = summary.starts_with("Torrente");
        // The chaos presets' deviation vector takes the place of the tangent map; the exit
        // basins and the frequency map run grids for each point's own answer, without it.
        let base = study::preset(name).unwrap().base;
        let chaos = base.chaos.is_some();
        let per_point = base.stop_when.is_some() || base.frequencies.is_some();
        let expected = base.tangent != Some(false) && !chaos && !per_point;
        assert_eq!(area, expected, "{name}: {stems:?}");
        if name.starts_with("spring-chain")
            || variational_single_state
            || name.starts_with("modified-hamiltonian")
        {
            assert!(!area, "{name}: {stems:?}");
        }
        // A study with a reference run draws every other run's distance from it; the runs
        // that follow a conserved momentum draw its change.
        assert_eq!(
            stems.iter().any(|s| s == "reference_distance"),
            *name == "lagrangian-pendulum",
            "{name}: {stems:?}"
        );
        if [
            "kepler",
            "lagrangian-kepler-noether",
            "spherical-pendulum-constrained",
        ]
        .contains(name)
        {
            assert!(
                stems.iter().any(|s| s == "momentum_error"),
                "{name}: {stems:?}"
            );
        }
        // A single state of a system with a configuration plane draws its path there (Kepler's
        // orbit, the pendulums' angles or bob, the rolling bodies' contact point), but a disk
        // spinning in place has none to draw.
        let st = study::preset(name).unwrap();
        // A formula of two or more degrees of freedom draws its first two coordinates.
        let plane = (st.base.system.as_deref())
            .and_then(|s| phaseflow::system::System::new(s, &Default::default()).ok())
            .is_some_and(|s| s.path().is_some())
            || st.base.dof.is_some_and(|d| d >= 2);
        let single = st.base.ensemble.as_ref().and_then(|e| e.kind.as_deref()) == Some("point");
        assert_eq!(
            stems.iter().any(|s| s == "path"),
            plane && single && *name != "disk-vertical-spin",
            "{name}: {stems:?}"
        );
    }
}

#[test]
fn without_the_tangent_map_a_filled_set_has_no_area_figure() {
    let mut st = short("pendulum-disks");
    st.base.tangent = Some(false);
    let stems = check_study(&st);
    assert!(!stems.iter().any(|s| s == "area_ratio"), "{stems:?}");
}
