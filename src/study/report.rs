//! report.md: what the study reproduces and how to rerun it, one sentence per method, the
//! summary table and the embedded figures.

use std::fmt::Write as _;

use super::figures::StudyFigure;
use super::format::{count, fmt_g, fmt_ratio, opt, parameters};
use super::summary::{verdict, SummaryRow};
use super::Study;
use crate::config::RunConfig;
use crate::measure::modified::MOD_ABS_ERR_MAX;
use crate::method::Method;
use crate::system::System;

/// The whole report; `cfg` is the first run's configuration (the shared settings).
pub(super) fn report_md(
    study: &Study,
    cfg: &RunConfig,
    summary: &[SummaryRow],
    figures: &[StudyFigure],
    command_line: &str,
) -> String {
    let mut s = String::new();
    write_header(&mut s, study, cfg, summary, command_line);
    write_verdicts(&mut s, summary);
    write_modified(&mut s, cfg, summary);
    write_table(&mut s, summary);
    let _ = writeln!(s, "\n## Plots\n");
    for fig in figures {
        let (title, file) = (&fig.title, format!("{}.png", fig.stem));
        let _ = writeln!(s, "### {title}\n\n![{title}]({file})\n");
    }
    let _ = writeln!(
        s,
        "Each method's folder holds its stats.csv (columns described in phaseflow's docs/output-files.md), config.toml (reproduces that run) and states/step_<k>.npy (the points at the portrait times). Plots are also written as SVG."
    );
    s
}

/// Title, description, the shared settings and the command that reproduces the study.
fn write_header(
    s: &mut String,
    study: &Study,
    cfg: &RunConfig,
    summary: &[SummaryRow],
    command_line: &str,
) {
    let _ = writeln!(s, "# phaseflow study: {}\n", study.name);
    let _ = writeln!(s, "{}\n", study.description);
    let _ = writeln!(
        s,
        "System {}{}, ensemble `{}` ({}), precision {}{}, engine {}. Tangent map: {}. Loop refinement: {}.\n",
        cfg.system.describe(),
        parameters(&cfg.system.params()),
        cfg.ensemble.kind().name(),
        count(cfg.ensemble.points as u64, "initial point"),
        cfg.arithmetic(),
        precision_source(study, cfg),
        summary.first().map(|r| r.engine.as_str()).unwrap_or("?"),
        if cfg.tangent { "on" } else { "off" },
        match cfg.refine {
            Some(r) => format!("tolerance {} of the initial loop's size, at most {} nodes", r.tol, r.max_nodes),
            None => "off".into(),
        }
    );
    if let Some(start) = start_sentence(cfg) {
        let _ = writeln!(s, "{start}\n");
    }
    let _ = writeln!(s, "Reproduce: `{command_line}`\n");
}

/// Where a preset's precision came from: " (the preset's)" or " (as given)"; a custom
/// study's description says why it runs in its precision (`args::custom_precision`).
fn precision_source(study: &Study, cfg: &RunConfig) -> &'static str {
    match super::presets::preset(&study.name) {
        Ok(p) if p.base.precision.unwrap_or_default() == cfg.precision => " (the preset's)",
        Ok(_) => " (as given)",
        Err(_) => "",
    }
}

/// How a nonholonomic variational system's points started (None for other systems): put on
/// the discrete rolling constraint, with what that changed (`EnsembleSpec::start_note`), or
/// as given (`--raw-start`); or a constrained Lagrangian's, put on its constraints.
pub(super) fn start_sentence(cfg: &RunConfig) -> Option<String> {
    let constrained = cfg
        .system
        .lagrangian()
        .is_some_and(|l| l.holonomic.is_some());
    if !cfg.system.projects_start() && !constrained {
        return None;
    }
    if constrained && cfg.ensemble.is_loop() {
        return Some("Initial state: every node of the loop, and every node refinement adds, is put on the constraints g(q) = 0 before it runs (the position to the nearest point on them, the momentum tangent to them); the area is that loop's.".into());
    }
    if cfg.ensemble.raw_start {
        return Some("Initial state: the velocities as given (`--raw-start`); one off the discrete rolling constraint is projected by the first step, and the energy errors include that one change.".into());
    }
    let note = cfg.ensemble.start_note(&cfg.system, cfg.dt).ok()??;
    Some(format!(
        "Initial state: {}.",
        note.describe(cfg.system.name())
    ))
}

/// "What happened": each method's verdict, with notes where loop refinement gave up.
fn write_verdicts(s: &mut String, summary: &[SummaryRow]) {
    let _ = writeln!(s, "## What happened\n");
    for row in summary {
        // A nonholonomic system's discrete Lagrange–d'Alembert map is not symplectic.
        let constrained =
            System::new(&row.system, &Default::default()).is_ok_and(|s| s.constrained());
        let method = Method::from_name(&row.method).ok();
        let symplectic = method.is_some_and(|m| m.info().symplectic) && !constrained;
        let _ = writeln!(s, "- {}", verdict(row, symplectic));
        if let Some(m) = method {
            let _ = writeln!(s, "  - {}", conditions_line(m));
        }
        if let Some(step) = row.refine_capped_at_step {
            let _ = writeln!(
                s,
                "  - Loop refinement hit its node cap at step {step}: the loop area after that is under-resolved."
            );
        }
        if let Some(step) = row.refine_stuck_at_step {
            let _ = writeln!(
                s,
                "  - From step {step} a loop gap could not be refined at this precision (neighbouring nodes had merged): the loop area after that is under-resolved; run with `--precision f64`."
            );
        }
    }
}

/// With `--modified-hamiltonian K`: per method, how many times better the numerical solution
/// keeps the modified Hamiltonian H̃ than H (the largest |H − H(z0)| over the largest
/// |H̃ − H̃(z0)|, both over every snapshot and point).
fn write_modified(s: &mut String, cfg: &RunConfig, summary: &[SummaryRow]) {
    let Some(m) = &cfg.modified else { return };
    let _ = writeln!(
        s,
        "\n## Modified Hamiltonian\n\nH̃ with {} (`--modified-hamiltonian {}`), at each method's step; the factor is the largest |H − H(z0)| over the largest |H̃ − H̃(z0)|.\n",
        count(m.terms as u64, "correction term"),
        m.terms
    );
    for r in summary {
        let name = if summary.iter().any(|o| o.dt != r.dt) {
            format!("{}, h = {}", r.method, fmt_g(r.dt))
        } else {
            r.method.clone()
        };
        match (r.max_abs_energy_err, modified_error(r)) {
            (Some(h), Some(mh)) if mh > 0.0 => {
                let _ = writeln!(
                    s,
                    "- {name}: the numerical solution conserves the modified Hamiltonian {}× better than H (max |H − H(z0)| {}, max |H̃ − H̃(z0)| {}).",
                    fmt_factor(h / mh),
                    fmt_g(h),
                    fmt_g(mh)
                );
            }
            (_, Some(0.0)) => {
                let _ = writeln!(s, "- {name}: H̃ kept exactly (max |H̃ − H̃(z0)| = 0).");
            }
            _ => {
                let _ = writeln!(s, "- {name}: no finite error of H or H̃ to compare.");
            }
        }
    }
}

/// The largest |H̃ − H̃(z0)| of a run (summary.csv's `mod_abs_energy_err_max`).
pub(super) fn modified_error(r: &SummaryRow) -> Option<f64> {
    r.measured(&MOD_ABS_ERR_MAX)
}

/// A factor: whole from 100 on ("2346"), else as `fmt_g` writes numbers.
fn fmt_factor(f: f64) -> String {
    if f >= 100.0 {
        format!("{f:.0}")
    } else {
        fmt_g(f)
    }
}

/// Which of the order and symplecticity conditions the method's coefficients satisfy (what
/// `phaseflow method check` says), as a line of a report.
pub(super) fn conditions_line(method: Method) -> String {
    format!("Conditions: {}.", crate::config::verdict::sentence(method))
}

/// The summary table (the same numbers as summary.csv).
fn write_table(s: &mut String, summary: &[SummaryRow]) {
    let _ = writeln!(s, "\n## Summary (summary.csv)\n");
    let _ = writeln!(
        s,
        "| system | method | h | steps | t_end | points | finite | escaped | final area ratio | max abs(det − 1) | max rel. energy error | max abs. energy error | mean abs. energy error | energy drift slope |"
    );
    let _ = writeln!(
        s,
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    );
    for r in summary {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.system,
            r.method,
            fmt_g(r.dt),
            r.steps,
            fmt_g(r.t_end),
            r.points,
            r.finite,
            r.escaped.map_or_else(|| "–".into(), |e| e.to_string()),
            r.final_area_ratio
                .map(fmt_ratio)
                .unwrap_or_else(|| "–".into()),
            opt(r.max_abs_det_minus_1),
            opt(r.max_rel_energy_err),
            opt(r.max_abs_energy_err),
            opt(r.mean_abs_energy_err),
            opt(r.energy_drift_slope)
        );
    }
}
