//! `bench`'s report as the text table `phaseflow bench` prints: the heading, one row per timed
//! engine, then how far the engines' final states lie apart.

use crate::config::BenchConfig;
use crate::error::Error;

use super::{BenchReport, BenchRow};

/// A ratio with two decimals, `-` where there is none.
fn ratio(x: Option<f64>) -> String {
    x.map(|x| format!("{x:.2}")).unwrap_or_else(|| "-".into())
}

impl BenchReport {
    /// The lines `phaseflow bench` prints for this report of `config`'s run (without the CSV
    /// and speed-guard lines, which follow from what the binary does with them); `message`
    /// writes an error (the command line's names its flags).
    pub fn table(&self, config: &BenchConfig, message: &dyn Fn(&Error) -> String) -> Vec<String> {
        let mut lines = vec![heading(config)];
        // With --against, the rows of both systems, each formula row's speed relative to the
        // built-in system's row of the same engine; with --against-method, of both methods.
        let by_method = config.against_method.is_some();
        let against = config.against.is_some() || by_method;
        let first_col = |r: Option<&BenchRow>| match (r, config.against.is_some(), by_method) {
            (None, true, _) => format!("{:<14} ", "system"),
            (None, _, true) => format!("{:<20} ", "method"),
            (Some(r), true, _) => format!("{:<14} ", r.system),
            (Some(r), _, true) => format!("{:<20} ", r.method),
            _ => String::new(),
        };
        lines.push(format!(
            "{}{:<10} {:<10} {:<48} {:>10} {:>16} {:>12}{}{}",
            first_col(None),
            "backend",
            "precision",
            "device",
            "seconds",
            "point-steps/s",
            "x reference",
            if against { "    x against" } else { "" },
            if config.peers { "     x C peer" } else { "" }
        ));
        lines.extend(
            self.rows
                .iter()
                .map(|r| row(r, &first_col(Some(r)), against, config.peers)),
        );
        lines.push(match &self.reference_vs_cpu {
            None if !config.use_cpu => "not timed (--gpu-only): the reference loop and the CPU engine".into(),
            Some((label, d)) => format!(
                "{}reference f64 vs cpu f64: max_abs_dev={:.3e} max_rel_dev={:.3e} (libm sin vs sin_poly: rounding only)",
                label.as_ref().map(|l| format!("{l}: ")).unwrap_or_default(),
                d.max_abs, d.max_rel
            ),
            None => "reference: none for this system/method (it covers pendulum and oscillator with the kick-drift methods, compositions and rk4)".into(),
        });
        for (label, d) in &self.gpu_vs_cpu {
            lines.push(format!(
                "{label}: max_abs_dev={:.3e} max_rel_dev={:.3e}",
                d.max_abs, d.max_rel
            ));
        }
        lines.extend(
            self.gpu_error
                .iter()
                .map(|(label, e)| format!("gpu: not run ({label}: {})", message(e))),
        );
        if !config.use_gpu {
            lines.push("gpu: skipped (--no-gpu)".into());
        }
        lines
    }
}

/// What was timed: the system (and `--against`), method (and `--against-method`), size and
/// rounds.
fn heading(config: &BenchConfig) -> String {
    let against = config
        .against
        .as_ref()
        .map(|a| format!(" against {}", a.name()))
        .unwrap_or_default();
    let against_method = config
        .against_method
        .map(|m| format!(" against {}", m.name()))
        .unwrap_or_default();
    format!(
        "bench: system {}{against}, method {}{against_method}, {} points × {} steps, dt {}, best of {} round(s) (timed: all steps + final read-back)",
        config.system.name(),
        config.method.name(),
        config.points,
        config.steps,
        config.dt,
        config.rounds
    )
}

/// One timed engine: `first` is the system or method column's text (empty without `--against`
/// or `--against-method`); `peers`: with the column of the ratio to the C peer.
fn row(r: &BenchRow, first: &str, against: bool, peers: bool) -> String {
    let precision = format!(
        "{}{}",
        r.precision,
        if r.compensated { " comp" } else { "" }
    );
    let vs = if against {
        format!(" {:>12}", ratio(r.ratio_to_against))
    } else {
        String::new()
    };
    let peer = match peers {
        true => format!(" {:>12}", ratio(r.ratio_to_peer)),
        false => String::new(),
    };
    format!(
        "{first}{:<10} {:<10} {:<48} {:>10.4} {:>16.3e} {:>12}{vs}{peer}",
        r.backend,
        precision,
        r.device,
        r.seconds,
        r.point_steps_per_s,
        ratio(r.ratio_to_reference)
    )
}
