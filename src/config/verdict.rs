//! A method's verdicts from the analysis of its coefficients (`method::analysis`), as the
//! command line shows them: `phaseflow method check` (text or `--json`), the columns of
//! `phaseflow list`, the comment block of config.toml and the reports' line.

use serde::Serialize;

use crate::error::{num, Result};
use crate::method::analysis::{analyse, builtin, StabilityInterval, Verdicts};
use crate::method::Method;

/// The verdicts on `method`; `None` for the variational method, a discrete Lagrangian map
/// rather than a method of the coefficient families.
pub fn verdicts(method: Method) -> Result<Option<Verdicts>> {
    builtin::family_of(method)
        .map(|f| analyse(&f, &builtin::family))
        .transpose()
}

/// The stability interval in a few characters: `hω ≤ 2.828427`, `hω < ∞`, `none`.
fn short_interval(s: StabilityInterval) -> String {
    match s {
        StabilityInterval::Empty => "none".into(),
        StabilityInterval::UpTo(e) => format!("hω ≤ {e:.6}"),
        StabilityInterval::Unbounded => "hω < ∞".into(),
    }
}

/// The order as the verdicts give it: `6`, or `≥ 6` when the next condition is not decided.
fn order_text(v: &Verdicts) -> String {
    if v.order_at_least {
        format!("≥ {}", v.order)
    } else {
        v.order.to_string()
    }
}

/// `phaseflow list`'s verdict columns for a method: order, symplectic, symmetric, stability.
pub fn list_columns(method: Method) -> String {
    match verdicts(method) {
        Ok(Some(v)) => format!(
            "order {}  {:<14} {:<13} {:<16}",
            order_text(&v),
            if v.symplectic {
                "symplectic"
            } else {
                "not symplectic"
            },
            if v.symmetric {
                "symmetric"
            } else {
                "not symmetric"
            },
            short_interval(v.stability_interval)
        ),
        // The variational method: its order and symplecticity as each system documents.
        _ => {
            let i = method.info();
            format!(
                "order {}  {:<14} {:<13} {:<16}",
                i.order,
                if i.symplectic {
                    "symplectic"
                } else {
                    "not symplectic"
                },
                "",
                "(no tableau)"
            )
        }
    }
}

/// One sentence: what the conditions say of the method (config.toml's comment, the reports).
pub fn sentence(method: Method) -> String {
    match verdicts(method) {
        Ok(Some(v)) => format!(
            "{} ({}): {}; order {} from the order conditions{}; {} (largest residual of the symplecticity conditions {}); {}; linear stability interval {}",
            method.name(),
            v.family,
            explicitness(&v),
            order_text(&v),
            v.first_failure
                .as_ref()
                .map(|c| format!(
                    " ({}, of order {}: {}, residual {})",
                    if v.order_at_least {
                        "the first not decided"
                    } else {
                        "the first that fails"
                    },
                    c.order,
                    c.condition,
                    num(c.residual)
                ))
                .unwrap_or_default(),
            if v.symplectic {
                "symplectic"
            } else {
                "not symplectic"
            },
            num(v.symplectic_residual),
            if v.symmetric {
                "symmetric"
            } else {
                "not symmetric"
            },
            v.stability_interval
        ),
        _ => format!(
            "{}: not a tableau method (a discrete Lagrangian map; order and symplecticity as each variational system documents)",
            method.name()
        ),
    }
}

fn explicitness(v: &Verdicts) -> &'static str {
    match (v.explicit, v.explicit_if_separable) {
        (true, _) => "explicit",
        (false, true) => "implicit (explicit on separable H = T(p) + V(q))",
        (false, false) => "implicit",
    }
}

/// `phaseflow method check --json`: exactly these keys. Every value but `name` is null for the
/// variational method; `stability_interval` is `[0, end]`, `end` null when unbounded.
#[derive(Serialize)]
struct CheckJson<'a> {
    name: &'a str,
    family: Option<&'static str>,
    explicit: Option<bool>,
    order: Option<u32>,
    order_at_least: Option<bool>,
    symplectic: Option<bool>,
    symplectic_residual: Option<f64>,
    symmetric: Option<bool>,
    stability_interval: Option<StabilityInterval>,
}

/// `phaseflow method check`'s output for `method`: text lines, or one JSON object.
pub fn check_output(method: Method, json: bool) -> Result<String> {
    let v = verdicts(method)?;
    if json {
        let j = CheckJson {
            name: method.name(),
            family: v.as_ref().map(|v| v.family),
            explicit: v.as_ref().map(|v| v.explicit),
            order: v.as_ref().map(|v| v.order),
            order_at_least: v.as_ref().map(|v| v.order_at_least),
            symplectic: v.as_ref().map(|v| v.symplectic),
            symplectic_residual: v.as_ref().map(|v| v.symplectic_residual),
            symmetric: v.as_ref().map(|v| v.symmetric),
            stability_interval: v.as_ref().map(|v| v.stability_interval),
        };
        return Ok(serde_json::to_string(&j).unwrap_or_default());
    }
    let Some(v) = v else {
        return Ok(sentence(method));
    };
    let yes = |b: bool| if b { "yes" } else { "no" };
    let mut lines = vec![
        format!("{} ({})", method.name(), v.family),
        format!("  {}", explicitness(&v)),
        format!("  order: {}", order_text(&v)),
    ];
    match &v.first_failure {
        Some(c) if v.order_at_least => lines.push(format!(
            "    first condition not decided (order {}): {}  residual {} (beyond the rounding of exact coefficients, within what coefficients given to 11 digits can leave)",
            c.order,
            c.condition,
            num(c.residual)
        )),
        Some(c) => lines.push(format!(
            "    first failing condition (order {}): {}  residual {}",
            c.order,
            c.condition,
            num(c.residual)
        )),
        None => lines.push(format!(
            "    every condition up to order {} holds",
            crate::method::analysis::MAX_ORDER
        )),
    }
    if v.order_nystrom > v.order {
        lines.push(format!(
            "    order {} on H = ½pᵀM⁻¹p + V(q)",
            v.order_nystrom
        ));
    }
    lines.push(format!(
        "  symplectic: {}  (largest residual {})",
        yes(v.symplectic),
        num(v.symplectic_residual)
    ));
    lines.push(format!("  symmetric: {}", yes(v.symmetric)));
    lines.push(format!(
        "  linear stability interval (hω on q'' = −ω²q): {}",
        v.stability_interval
    ));
    Ok(lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The JSON has exactly the documented keys; Gauss 2 is order 4, symplectic, symmetric and
    /// stable at every hω; RK4 is not symplectic and stable up to 2√2.
    #[test]
    fn check_json_has_the_documented_keys_and_values() {
        let g = Method::from_name("gauss2").unwrap();
        let j: serde_json::Value = serde_json::from_str(&check_output(g, true).unwrap()).unwrap();
        let keys: Vec<&str> = j.as_object().unwrap().keys().map(|k| k.as_str()).collect();
        let mut want = vec![
            "name",
            "family",
            "explicit",
            "order",
            "order_at_least",
            "symplectic",
            "symplectic_residual",
            "symmetric",
            "stability_interval",
        ];
        want.sort_unstable();
        let mut got = keys.clone();
        got.sort_unstable();
        assert_eq!(got, want);
        assert_eq!(j["order"], 4);
        assert_eq!(j["symplectic"], true);
        assert_eq!(j["explicit"], false);
        assert_eq!(j["stability_interval"], serde_json::json!([0.0, null]));
        let rk4: serde_json::Value =
            serde_json::from_str(&check_output(Method::Rk4, true).unwrap()).unwrap();
        assert_eq!(rk4["symplectic"], false);
        let end = rk4["stability_interval"][1].as_f64().unwrap();
        assert!((end - 8f64.sqrt()).abs() < 2e-3, "{end}");
        let var: serde_json::Value =
            serde_json::from_str(&check_output(Method::Variational, true).unwrap()).unwrap();
        assert!(var["order"].is_null() && var["name"] == "variational");
    }
}
