//! Studies across energies or parameter values (`StudyRun::vary`) with `--chaos`: each run's
//! own settings, the figures against the varied quantity (largest energy error, chaotic
//! fraction) and report.md's chaos section (the final indicators per run, with each run's
//! map and Poincaré section embedded).

use std::fmt::Write as _;

use super::figures::{PlottedRun, StudyFigure};
use super::format::fmt_g;
use super::Variation;
use crate::chaos::{Indicator, ALIGNED_BELOW, FLI_FACTOR};
use crate::config::{RunConfig, RunFile};
use crate::measure::alignment::{
    FLI_CHAOTIC, FLI_MEAN, GALI_CHAOTIC, GALI_MEAN, SALI_CHAOTIC, SALI_MEAN,
};
use crate::measure::chaos::{CHAOS_UNDEFINED, CHAOTIC_FRACTION, LYAPUNOV_MAX, MEGNO_MEAN};
use crate::measure::energy::columns::ABS_ERR_MAX;
use crate::measure::measurement::Column;
use crate::plot::{palette_color, Figure, Series, Style};
use crate::run::basins::Exits;

/// The run's energy surface and parameters laid over the study's.
pub(super) fn apply_variation(f: &mut RunFile, v: &Variation) {
    if let Some(e) = v.energy {
        f.ensemble.get_or_insert_with(Default::default).energy = Some(e);
    }
    if !v.params.is_empty() {
        let params = f.params.get_or_insert_with(Default::default);
        params.extend(v.params.iter().map(|(k, x)| (k.clone(), *x)));
    }
}

/// The quantity the runs vary, as (axis label, value per run), when every run varies the same
/// one (its energy, or one parameter) and there are at least two runs.
fn varied(runs: &[PlottedRun]) -> Option<(String, Vec<f64>)> {
    let vary: Vec<&Variation> = runs
        .iter()
        .map(|r| r.run.vary.as_ref())
        .collect::<Option<_>>()?;
    if vary.len() < 2 {
        return None;
    }
    if let Some(e) = vary.iter().map(|v| v.energy).collect::<Option<Vec<f64>>>() {
        return Some(("energy E".into(), e));
    }
    let name = vary[0].params.keys().next()?.clone();
    let values = vary
        .iter()
        .map(|v| {
            (v.params.len() == 1)
                .then(|| v.params.get(&name).copied())
                .flatten()
        })
        .collect::<Option<Vec<f64>>>()?;
    Some((name, values))
}

/// Against the varied quantity: the largest |H − H(z0)| over the run (log axis) and, with
/// --chaos, the final chaotic fraction.
pub(super) fn parameter_figures(runs: &[PlottedRun]) -> Vec<StudyFigure> {
    let Some((name, x)) = varied(runs) else {
        return Vec::new();
    };
    let last = |r: &PlottedRun, column| r.result.rows.last().and_then(|row| row.real(column));
    let largest = |r: &PlottedRun| {
        (r.result.rows.iter())
            .filter_map(|row| row.real(&ABS_ERR_MAX))
            .filter(|e| e.is_finite())
            .reduce(f64::max)
    };
    let points = |y: &dyn Fn(&PlottedRun) -> Option<f64>| {
        runs.iter()
            .zip(&x)
            .filter_map(|(r, &x)| y(r).map(|y| (x, y)))
            .collect::<Vec<_>>()
    };
    let figure = |title: String, y_label: &str, pts: Vec<(f64, f64)>, log_y: bool| Figure {
        log_y,
        series: [Style::Line, Style::Markers]
            .map(|style| Series {
                color: Some(palette_color(0)),
                ..Series::new("", pts.clone(), style)
            })
            .to_vec(),
        ..Figure::new(title, name.clone(), y_label)
    };
    let mut out = vec![StudyFigure {
        stem: "energy_error_against_parameter".into(),
        title: format!("Largest energy error against {name}"),
        figure: figure(
            format!("Largest |H − H(z0)| over each run against {name}"),
            "max |H − H(z0)|",
            points(&largest),
            true,
        ),
    }];
    out.push(StudyFigure {
        stem: "chaotic_fraction".into(),
        title: format!("Chaotic fraction against {name}"),
        figure: Figure {
            y_range: Some((0.0, 1.0)),
            ..figure(
                format!("Fraction of points with MEGNO ⟨Y⟩ > 4 at the end, against {name}"),
                "chaotic fraction",
                points(&|r| last(r, &CHAOTIC_FRACTION)),
                false,
            )
        },
    });
    out
}

/// The further indicators' columns of the chaos table where a run computed them (FLI, SALI,
/// GALI_k of the smallest k asked): header, stats.csv column; and the sentence that says how
/// each classifies a point.
fn more_columns(configs: &[RunConfig]) -> (Vec<(String, Column)>, String) {
    let (mut columns, mut said) = (Vec::new(), String::new());
    let any = |i: Indicator| {
        configs
            .iter()
            .any(|c| c.chaos.as_ref().is_some_and(|x| x.has(i)))
    };
    if any(Indicator::Fli) {
        columns.extend([
            ("FLI chaotic fraction".into(), FLI_CHAOTIC),
            ("mean FLI".into(), FLI_MEAN),
        ]);
        said.push_str(&format!(" FLI (the fast Lyapunov indicator of Froeschlé, Lega & Gonczi 1997, \"Fast Lyapunov indicators. Application to asteroidal motion\") counts a point as chaotic above {FLI_FACTOR} ln(1 + t)."));
    }
    if any(Indicator::Sali) {
        columns.extend([
            ("SALI chaotic fraction".into(), SALI_CHAOTIC),
            ("mean SALI".into(), SALI_MEAN),
        ]);
        said.push_str(&format!(" SALI (Skokos 2001, \"Alignment indices: a new, simple method for determining the ordered or chaotic nature of orbits\") counts a point as chaotic once it falls below {ALIGNED_BELOW:e}."));
    }
    let gali = configs
        .iter()
        .filter_map(|c| c.chaos.as_ref()?.gali().first().copied())
        .min();
    if let Some(k) = gali {
        columns.extend([
            (format!("GALI_{k} chaotic fraction"), GALI_CHAOTIC),
            (format!("mean GALI_{k}"), GALI_MEAN),
        ]);
        said.push_str(&format!(" GALI_{k} (Skokos, Bountis & Antonopoulos 2007, \"Geometrical properties of local dynamics in Hamiltonian systems: the Generalized Alignment Index (GALI) method\") counts a point as chaotic once it falls below {ALIGNED_BELOW:e}."));
    }
    (columns, said)
}

/// report.md's chaos section (empty without --chaos): per run its final chaotic fraction,
/// mean ⟨Y⟩, largest λ and points without indicators, and where they ran the fraction each of
/// FLI, SALI and GALI_k classifies as chaotic and their means, then each run's map and section.
pub(super) fn report_section(runs: &[PlottedRun], configs: &[RunConfig]) -> String {
    if configs.iter().all(|c| c.chaos.is_none()) {
        return String::new();
    }
    let (more, said) = more_columns(configs);
    let head: String = more.iter().map(|(h, _)| format!(" {h} |")).collect();
    let rule = "---|".repeat(more.len());
    let mut s = format!(
        "\n## Chaos indicators\n\nAt the end of each run, over the points with indicators (MEGNO ⟨Y⟩ after Cincotta & Simó 2000, \"Simple tools to study global dynamics in non-axisymmetric galactic potentials\"; a point counts as chaotic when ⟨Y⟩ > 4, as regular orbits approach 2 and chaotic ones grow like λt/2).{said}\n\n| run | chaotic fraction | mean ⟨Y⟩ | largest λ | points without indicators |{head}\n|---|---|---|---|---|{rule}\n",
    );
    let cell = |x: Option<f64>| x.map_or("–".to_string(), fmt_g);
    for r in runs {
        let Some(last) = r.result.rows.last() else {
            continue;
        };
        let label = r.run.vary.as_ref().map_or(r.name, |v| v.label.as_str());
        let cells: String = more
            .iter()
            .map(|(_, c)| format!(" {} |", cell(last.real(c))))
            .collect();
        let _ = writeln!(
            s,
            "| {label} | {} | {} | {} | {} |{cells}",
            cell(last.real(&CHAOTIC_FRACTION)),
            cell(last.real(&MEGNO_MEAN)),
            cell(last.real(&LYAPUNOV_MAX)),
            last.count(&CHAOS_UNDEFINED)
                .map_or("–".to_string(), |n| n.to_string()),
        );
    }
    for r in runs {
        for (file, what) in [
            ("map", "map of the indicator"),
            ("section", "Poincaré section"),
        ] {
            if r.result.out.join(format!("{file}.png")).is_file() {
                let _ = writeln!(
                    s,
                    "\n### {}: {what}\n\n![{what}]({}/{file}.png)",
                    r.name, r.name
                );
            }
        }
    }
    s
}

/// report.md's exits section (empty without --stop-when): the conditions as exits, per run the
/// fraction of its points with a value that left by each and by none (together one), then each
/// run's exit-basin and escape-time maps.
pub(super) fn exits_section(runs: &[PlottedRun]) -> String {
    let with: Vec<(&PlottedRun, &Exits)> = runs
        .iter()
        .filter_map(|r| Some((r, r.result.exits.as_ref()?)))
        .collect();
    let Some((_, first)) = with.first() else {
        return String::new();
    };
    let mut s = String::from(
        "\n## Exits\n\nEach stop condition is one exit; a point leaves by the first it meets.\n\n",
    );
    for (j, c) in first.conditions.iter().enumerate() {
        let _ = writeln!(s, "- exit {}: `{c}`", j + 1);
    }
    let k = first.conditions.len();
    let heads: String = (1..=k).map(|j| format!(" exit {j} |")).collect();
    let _ = write!(
        s,
        "\nAt the end of each run, the fraction of the points with a value that left by each exit and by none (together one):\n\n| run |{heads} none | points with a value | points without one |\n|---|{}---|---|---|\n",
        "---|".repeat(k)
    );
    for (r, e) in &with {
        let label = r.run.vary.as_ref().map_or(r.name, |v| v.label.as_str());
        let (fractions, none) = e.fractions();
        let cells: String = fractions.iter().map(|f| format!(" {f:.4} |")).collect();
        let _ = writeln!(
            s,
            "| {label} |{cells} {none:.4} | {} | {} |",
            e.counted(),
            e.without_value
        );
    }
    for (r, _) in &with {
        for (file, what) in [("basins", "exit basins"), ("escape_time", "escape time")] {
            if r.result.out.join(format!("{file}.png")).is_file() {
                let _ = writeln!(
                    s,
                    "\n### {}: {what}\n\n![{what}]({}/{file}.png)",
                    r.name, r.name
                );
            }
        }
    }
    s
}
