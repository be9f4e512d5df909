//! `phaseflow method check --plot DIR`: the amplification of one step on the harmonic
//! oscillator q'' = −ω²q, the spectral radius of the step's matrix M(hω) (Hairer, Lubich and
//! Wanner, Geometric Numerical Integration, I.5 and XIII.2), against hω for one or more
//! methods, as DIR/stability.png and DIR/stability.svg. A radius of 1 is the stable band; the
//! stability interval `method check` prints ends where the curve leaves it.

use std::path::{Path, PathBuf};

use crate::error::Result;
use crate::input_err;
use crate::method::analysis::stability::{interval, spectral_radius, Step};
use crate::method::analysis::{builtin, normalise};
use crate::method::Method;
use crate::plot::{write_figure, Figure, Series, Style};

/// The file stem written in the folder.
pub const STEM: &str = "stability";

/// Samples per curve.
const SAMPLES: usize = 801;

/// The x axis ends at 1.25 × the longest finite stability interval among the methods, within
/// these bounds (A-stable methods alone: `MAX_X`).
const MIN_X: f64 = 1.0;
const MAX_X: f64 = 6.0;

/// The oscillator step of `method`; an input error for a method with no coefficients.
fn step_of(method: Method) -> Result<Step> {
    let family = builtin::family_of(method).ok_or_else(|| {
        input_err!(
            "--plot: method {} has no tableau (a discrete Lagrangian map) and no stability matrix; plot methods of the coefficient families",
            method.name()
        )
    })?;
    let normal = normalise(&family, &builtin::family)?;
    family.oscillator(&builtin::family, normal)
}

/// The figure of |R(hω)| for `methods` (the curves, labelled by name, and the line |R| = 1).
pub fn figure(methods: &[Method]) -> Result<Figure> {
    let steps: Vec<Step> = methods.iter().map(|&m| step_of(m)).collect::<Result<_>>()?;
    let longest = steps
        .iter()
        .filter_map(|s| interval(s).end())
        .fold(0.0, f64::max);
    let x_max = if longest > 0.0 {
        (1.25 * longest).clamp(MIN_X, MAX_X)
    } else {
        MAX_X
    };
    let xs: Vec<f64> = (0..SAMPLES)
        .map(|i| x_max * i as f64 / (SAMPLES - 1) as f64)
        .collect();
    let mut fig = Figure::new(
        "Amplification of one step on q'' = -ω²q",
        "hω",
        "spectral radius of the step matrix |R(hω)|",
    );
    fig.series.push(Series::new(
        "|R| = 1",
        vec![(0.0, 1.0), (x_max, 1.0)],
        Style::ThinLine,
    ));
    for (m, step) in methods.iter().zip(&steps) {
        let points = xs
            .iter()
            .filter_map(|&x| spectral_radius(step, x).map(|r| (x, r)))
            .collect();
        fig.series.push(Series::new(m.name(), points, Style::Line));
    }
    let top = fig
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .filter(|y| y.is_finite())
        .fold(1.0, f64::max);
    fig.x_range = Some((0.0, x_max));
    fig.y_range = Some((0.0, top.min(3.0) * 1.05));
    Ok(fig)
}

/// Write the figure of `methods` into `dir` (created if missing), refusing to replace files
/// already there; the two paths written.
pub fn write(methods: &[Method], dir: &Path) -> Result<[PathBuf; 2]> {
    let fig = figure(methods)?;
    let stem = dir.join(STEM);
    for ext in ["png", "svg"] {
        let path = dir.join(format!("{STEM}.{ext}"));
        if path.symlink_metadata().is_ok() {
            return Err(input_err!(
                "--plot {}: {} exists; remove it or give another folder",
                dir.display(),
                path.display()
            ));
        }
    }
    std::fs::create_dir_all(dir).map_err(|e| {
        input_err!(
            "--plot {}: cannot create the folder ({e}); give a writable folder",
            dir.display()
        )
    })?;
    write_figure(&fig, &stem)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn curve<'a>(fig: &'a Figure, name: &str) -> &'a [(f64, f64)] {
        &fig.series.iter().find(|s| s.label == name).unwrap().points
    }

    /// Verlet's radius is 1 up to hω = 2 and grows beyond, the implicit midpoint rule's is 1
    /// everywhere, explicit Euler's √(1 + (hω)²) > 1 at once; the x axis ends at 1.25 × 2.
    #[test]
    fn curves_are_the_known_amplifications() {
        let methods: Vec<Method> = ["verlet", "implicit-midpoint", "euler"]
            .iter()
            .map(|n| Method::from_name(n).unwrap())
            .collect();
        let fig = figure(&methods).unwrap();
        let (lo, hi) = fig.x_range.unwrap();
        assert!(lo == 0.0 && (hi - 2.5).abs() < 1e-9, "{hi}");
        for &(x, r) in curve(&fig, "verlet") {
            if x <= 1.999 {
                assert!((r - 1.0).abs() < 1e-9, "verlet at {x}: {r}");
            } else if x >= 2.001 {
                assert!(r > 1.0, "verlet at {x}: {r}");
            }
        }
        for &(x, r) in curve(&fig, "implicit-midpoint") {
            assert!((r - 1.0).abs() < 1e-9, "midpoint at {x}: {r}");
        }
        for &(x, r) in curve(&fig, "euler") {
            assert!(
                (r - (1.0 + x * x).sqrt()).abs() < 1e-12,
                "euler at {x}: {r}"
            );
        }
        crate::plot::check_figure(&fig).unwrap();
    }
}
