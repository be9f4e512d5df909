//! `bench`'s report as the text table `phaseflow bench` prints: the heading, one row per timed
//! engine, then how far the engines' final states lie apart.

use crate::config::BenchConfig;

use super::{BenchReport, BenchRow};

/// A ratio with two decimals, `-` where there is none.
fn ratio(x: Option<f64>) -> String {
    x.map(|x| format!("{x:.2}")).unwrap_or_else(|| "-".into())
}

impl BenchReport {
    /// The lines `phaseflow bench` prints for this report of `config`'s run (without the CSV
    /// and speed-guard lines, which follow from what the binary does with them).
    pub fn table(&self, config: &BenchConfig) -> Vec<String> {
        let mut lines = vec![heading(config)];
        // With --against, the rows of both systems, each formula row's speed relative to the
        // built-in system's row of the same engine.
        let against = config.against.is_some();
        let system_col = |name: &str| {
            if against {
                format!("{name:<14} ")
            } else {
                String::new()
            }
        };
        lines.push(format!(
            "{}{:<10} {:<10} {:<48} {:>10} {:>16} {:>12}{}",
            system_col("system"),
            "backend",
            "precision",
            "device",
            "seconds",
            "point-steps/s",
            "x reference",
            if against { "    x against" } else { "" }
        ));
        lines.extend(
            self.rows
                .iter()
                .map(|r| row(r, &system_col(&r.system), against)),
        );
        lines.push(match &self.reference_vs_cpu {
            Some(d) => format!(
                "reference f64 vs cpu f64: max_abs_dev={:.3e} max_rel_dev={:.3e} (libm sin vs sin_poly: rounding only)",
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
        lines.extend(self.gpu_error.iter().map(|e| format!("gpu: not run ({e})")));
        if !config.use_gpu {
            lines.push("gpu: skipped (--no-gpu)".into());
        }
        lines
    }
}

/// What was timed: the system (and `--against`), method, size and rounds.
fn heading(config: &BenchConfig) -> String {
    let against = config
        .against
        .as_ref()
        .map(|a| format!(" against {}", a.name()))
        .unwrap_or_default();
    format!(
        "bench: system {}{against}, method {}, {} points × {} steps, dt {}, best of {} round(s) (timed: all steps + final read-back)",
        config.system.name(),
        config.method.name(),
        config.points,
        config.steps,
        config.dt,
        config.rounds
    )
}

/// One timed engine: `system` is the system column's text (empty without `--against`).
fn row(r: &BenchRow, system: &str, against: bool) -> String {
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
    format!(
        "{system}{:<10} {:<10} {:<48} {:>10.4} {:>16.3e} {:>12}{vs}",
        r.backend,
        precision,
        r.device,
        r.seconds,
        r.point_steps_per_s,
        ratio(r.ratio_to_reference)
    )
}
