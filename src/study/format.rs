//! Number formatting for a study's text: report.md, legends, folder names and progress notes.

/// A number in six decimals without trailing zeros, or in scientific notation when it is very
/// small or very large.
pub(super) fn fmt_g(x: f64) -> String {
    if x != 0.0 && (x.abs() < 1e-3 || x.abs() >= 1e5) {
        format!("{x:.3e}")
    } else {
        format!("{:.6}", x)
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    }
}

/// A time for a legend: four significant digits, without trailing zeros (500, 3.142).
pub(super) fn fmt_t(t: f64) -> String {
    if t == 0.0 {
        "0".into()
    } else {
        let digits = (3 - t.abs().log10().floor() as i32).max(0) as usize;
        let s = format!("{t:.digits$}");
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    }
}

/// A count with its noun, singular for one: "1 point", "400 points".
pub(super) fn count(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// An optional number, with a dash for none.
pub(super) fn opt(x: Option<f64>) -> String {
    x.map(fmt_g).unwrap_or_else(|| "–".into())
}

/// A ratio near 1 as "1 + 2.3e-8" so small changes stay visible.
pub(super) fn fmt_ratio(r: f64) -> String {
    let dev = r - 1.0;
    if dev == 0.0 {
        "1 (exactly)".into()
    } else if dev.abs() < 1e-3 {
        format!("1 {} {:.1e}", if dev > 0.0 { "+" } else { "−" }, dev.abs())
    } else {
        fmt_g(r)
    }
}

/// A system's parameters for a report's sentence: " (parameters g = 9.81, l = 1)", nothing
/// for a system without any.
pub(super) fn parameters(p: &std::collections::BTreeMap<String, f64>) -> String {
    if p.is_empty() {
        return String::new();
    }
    let items: Vec<String> = p
        .iter()
        .map(|(name, &x)| format!("{name} = {}", crate::error::num(x)))
        .collect();
    format!(" (parameters {})", items.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_read_as_assignments_and_none_as_nothing() {
        let mut p = std::collections::BTreeMap::new();
        assert_eq!(parameters(&p), "");
        p.insert("l".to_string(), 1.0);
        p.insert("g".to_string(), 9.81);
        assert_eq!(parameters(&p), " (parameters g = 9.81, l = 1)");
    }

    #[test]
    fn legend_times_have_no_trailing_zeros() {
        assert_eq!(fmt_t(0.0), "0");
        assert_eq!(fmt_t(500.0), "500");
        assert_eq!(fmt_t(1000.0), "1000");
        assert_eq!(fmt_t(std::f64::consts::PI), "3.142");
        assert_eq!(fmt_t(2.5), "2.5");
    }
}
