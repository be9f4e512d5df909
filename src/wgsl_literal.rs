//! WGSL literals that parse back to exactly the value they were written from: f32 for the
//! integration kernels' constants and coefficients, f64 for the energy reduction's. A leaf
//! module, so that `method` (whose kernels generate WGSL) and `gpu` (which assembles shaders)
//! both use it without depending on each other.

/// An f32 WGSL literal that parses to exactly `x as f32`.
pub fn f32_literal(x: f64) -> String {
    let v = x as f32;
    let s = format!("{v:?}");
    if s.contains('.') || s.contains('e') || s.contains("inf") || s.contains("NaN") {
        format!("{s}f")
    } else {
        format!("{s}.0f")
    }
}

/// A literal of an f64 (`f64`) or f32 kernel that parses to exactly `x` rounded to it.
pub fn real_literal(f64: bool, x: f64) -> String {
    if f64 {
        f64_literal(x)
    } else {
        f32_literal(x)
    }
}

/// An f64 WGSL literal that parses to exactly `x`.
pub fn f64_literal(x: f64) -> String {
    let s = format!("{x:?}");
    if s.contains('.') || s.contains('e') {
        format!("{s}lf")
    } else {
        format!("{s}.0lf")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f32_literals_are_exact() {
        for x in [1.0, 0.1, 1e-5, 123456.789, -2.5, 3.0e20] {
            let lit = f32_literal(x);
            let back: f32 = lit.trim_end_matches('f').parse().unwrap();
            assert_eq!(back, x as f32, "{lit}");
        }
    }

    #[test]
    fn f64_literals_are_exact() {
        for x in [
            1.0,
            0.1,
            1e-12,
            2.9591220828559115e-4,
            -3.5,
            6755399441055744.0,
        ] {
            let lit = f64_literal(x);
            let back: f64 = lit.trim_end_matches("lf").parse().unwrap();
            assert_eq!(back, x, "{lit}");
        }
    }
}
