//! The axes' values, the grid's order and the sweep figure.

use super::runner::{chaos_figure, figure, PartLine};
use super::{Axis, Sweep};
use crate::config::RunFile;
use crate::plot::Style;

fn pendulum(specs: &[&str]) -> Sweep {
    let base = RunFile {
        system: Some("pendulum".into()),
        method: Some("verlet".into()),
        dt: Some(0.1),
        steps: Some(10),
        ensemble: Some(crate::config::EnsembleFile {
            kind: Some("disk".into()),
            ..Default::default()
        }),
        ..RunFile::default()
    };
    let specs: Vec<String> = specs.iter().map(|s| s.to_string()).collect();
    Sweep::new(base.into(), Axis::parse_all(&specs).unwrap()).unwrap()
}

#[test]
fn values_are_evenly_spaced_and_end_exactly_at_hi() {
    let a = Axis::parse("g=0.01:0.5:50").unwrap();
    let v = a.values();
    assert_eq!(v.len(), 50);
    assert_eq!((v[0], v[49]), (0.01, 0.5));
    assert!(v.windows(2).all(|w| w[1] > w[0]));
    assert!((v[1] - v[0] - 0.49 / 49.0).abs() < 1e-15);
    // decimal steps read as decimals
    assert_eq!((v[1], v[6], v[34]), (0.02, 0.07, 0.35));
    assert_eq!(Axis::parse(" m = 2:2:1").unwrap().values(), [2.0]);
    // the record's form reads back as the same axis
    assert_eq!(Axis::parse(&a.spec()).unwrap(), a);
}

#[test]
fn the_grid_runs_the_first_axis_slowest() {
    let s = pendulum(&["g=1:2:2", "l=1:3:3"]);
    assert_eq!(
        s.grid(),
        [
            [1.0, 1.0],
            [1.0, 2.0],
            [1.0, 3.0],
            [2.0, 1.0],
            [2.0, 2.0],
            [2.0, 3.0]
        ]
    );
    let parts = s.parts().unwrap();
    assert_eq!(parts[4].config.system.params()["g"], 2.0);
    assert_eq!(parts[4].config.system.params()["l"], 2.0);
    assert_eq!(s.label(&parts[4].values), "g=2, l=2");
}

/// Made-up errors for `sweep`'s parts: part i has largest error 10^-(i+1), final half that.
fn lines(s: &Sweep) -> (Vec<super::Part>, Vec<PartLine>) {
    let parts = s.parts().unwrap();
    let lines = parts
        .iter()
        .map(|p| {
            let e = 10f64.powi(-(p.index as i32) - 1);
            PartLine {
                sweep_index: p.index,
                label: s.label(&p.values),
                dir: format!("part_{}", p.index),
                final_rel_energy_err_max: e / 2.0,
                max_rel_energy_err_max: e,
                final_abs_energy_err_max: e / 2.0,
                max_abs_energy_err_max: e,
                chaos: vec![
                    ("chaotic_fraction", p.index as f64 / 10.0),
                    ("megno_mean", 2.0),
                ],
            }
        })
        .collect();
    (parts, lines)
}

#[test]
fn one_axis_draws_the_final_and_largest_error_against_the_parameter() {
    let s = pendulum(&["g=1:2:5"]);
    let (parts, lines) = lines(&s);
    let fig = figure(&s, &parts, &lines);
    // Each line with a marker at every part.
    let styles: Vec<Style> = fig.series.iter().map(|x| x.style).collect();
    assert_eq!(
        styles,
        [Style::Line, Style::Markers, Style::Line, Style::Markers]
    );
    assert_eq!(fig.series[2].points[4], (2.0, 1e-5));
    assert_eq!(fig.series[0].points[0], (1.0, 0.05));
    assert_eq!(fig.series[1].points, fig.series[0].points);
    // Each marker in its line's colour, the two lines in two.
    assert_eq!(fig.series[0].color, fig.series[1].color);
    assert_eq!(fig.series[2].color, fig.series[3].color);
    assert_ne!(fig.series[0].color, fig.series[2].color);
    crate::plot::check_figure(&fig).unwrap();
}

#[test]
fn the_chaos_figure_draws_the_chaotic_fraction_against_the_parameter() {
    let s = pendulum(&["g=1:2:5"]);
    let (parts, mut lines) = lines(&s);
    let fig = chaos_figure(&s, &parts, &lines);
    assert!(fig.title.starts_with("chaotic fraction"), "{}", fig.title);
    assert_eq!(fig.series[0].points[3], (1.75, 0.3));
    assert_eq!(fig.y_range, Some((-0.02, 1.02)));
    crate::plot::check_figure(&fig).unwrap();
    // Without --chaos: nothing to draw, and no file written for it.
    for l in &mut lines {
        l.chaos.clear();
    }
    assert!(!chaos_figure(&s, &parts, &lines).has_data());
}

#[test]
fn two_axes_draw_one_line_per_value_of_the_second() {
    let s = pendulum(&["g=1:2:3", "l=1:2:2"]);
    let (parts, lines) = lines(&s);
    let fig = figure(&s, &parts, &lines);
    let labels: Vec<&str> = fig.series.iter().map(|x| x.label.as_str()).collect();
    assert_eq!(labels, ["largest, l=1", "", "largest, l=2", ""]);
    // l = 2 is parts 1, 3, 5
    assert_eq!(
        fig.series[2].points,
        [(1.0, 1e-2), (1.5, 1e-4), (2.0, 1e-6)]
    );
    crate::plot::check_figure(&fig).unwrap();
}

/// Two axes of 2^32 values each make 2^64 parts, which a 64-bit product wraps to 0: the cap
/// must still refuse them (they were allocated, and the process aborted).
#[test]
fn a_part_count_past_64_bits_is_refused() {
    let base = crate::config::RunBuilder::from(pendulum(&["g=1:2:2"]).base);
    let specs = ["g=1:2:4294967296", "l=0.5:1.5:4294967296"].map(String::from);
    let e = Sweep::new(base.clone(), Axis::parse_all(&specs).unwrap())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("4294967296 × 4294967296 parts, more than 10000"),
        "{e}"
    );
    let specs = ["g=1:2:100", "l=0.5:1.5:101"].map(String::from);
    let e = Sweep::new(base, Axis::parse_all(&specs).unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.contains("100 × 101 parts, more than 10000"), "{e}");
}
