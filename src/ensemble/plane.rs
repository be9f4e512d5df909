//! The plane a `grid` spans (`--grid-axes`, default q1,p1) and, with `--energy E`, the
//! energy surface it lies on: the first momentum p1 is solved from H = E (p1 ≥ 0), as for a
//! Poincaré section q1 = const of a two-degree-of-freedom system (Hénon–Heiles at q1 = 0).
//! Grid points where H = E has no real p1 ≥ 0 are marked: all their components NaN, so they
//! take part in no statistic and the chaos maps leave them blank.

use crate::error::{Field, Result};
use crate::invalid;
use crate::system::System;

/// The grid's two coordinates (indices into (q1..qd, p1..pd), the first varying fastest) and
/// the energy surface, if any.
#[derive(Debug, Clone, PartialEq)]
pub struct GridPlane {
    pub axes: [usize; 2],
    pub energy: Option<f64>,
}

impl GridPlane {
    /// The (q1, p1) plane without an energy surface (the grid's default).
    pub fn q1_p1(d: usize) -> GridPlane {
        GridPlane {
            axes: [0, d],
            energy: None,
        }
    }

    /// `--grid-axes A,B` (coordinate names q1..qd, p1..pd; two different ones) and `--energy`.
    pub fn resolve(text: Option<&str>, energy: Option<f64>, d: usize) -> Result<GridPlane> {
        let axes = match text {
            None => [0, d],
            Some(text) => parse_axes(text, d)?,
        };
        if let Some(e) = energy {
            if !e.is_finite() {
                return Err(invalid!(Field::Energy;
                    Field::Energy.is(e),
                    ": the grid's energy surface needs a finite E"
                ));
            }
            if axes.contains(&d) {
                return Err(invalid!(Field::GridAxes;
                    Field::GridAxes.is(axes_text(axes, d)),
                    ": with an energy surface p1 is solved from H = E, so it cannot be an axis; choose two other coordinates (e.g. q2,p2)"
                ));
            }
        }
        Ok(GridPlane { axes, energy })
    }

    /// How config.toml records the axes.
    pub fn axes_text(&self, d: usize) -> String {
        axes_text(self.axes, d)
    }
}

/// The name of state component `i` of a system with `d` degrees of freedom: q1..qd, p1..pd.
pub(super) fn coordinate_name(i: usize, d: usize) -> String {
    if i < d {
        format!("q{}", i + 1)
    } else {
        format!("p{}", i - d + 1)
    }
}

fn axes_text(axes: [usize; 2], d: usize) -> String {
    format!(
        "{},{}",
        coordinate_name(axes[0], d),
        coordinate_name(axes[1], d)
    )
}

fn parse_axes(text: &str, d: usize) -> Result<[usize; 2]> {
    let names: Vec<String> = (0..2 * d).map(|i| coordinate_name(i, d)).collect();
    let bad = |why: String| {
        invalid!(Field::GridAxes;
            Field::GridAxes.is(text),
            format!("{why}; name two different coordinates of {}, separated by a comma (e.g. q1,p1)", names.join(", "))
        )
    };
    let words: Vec<&str> = text.split(',').map(str::trim).collect();
    if words.len() != 2 {
        return Err(bad(format!(
            ": expected two coordinates, got {}",
            words.len()
        )));
    }
    let mut axes = [0; 2];
    for (slot, word) in axes.iter_mut().zip(&words) {
        *slot = names
            .iter()
            .position(|n| n == word)
            .ok_or_else(|| bad(format!(": the system has no coordinate '{word}' (d = {d})")))?;
    }
    if axes[0] == axes[1] {
        return Err(bad(": the two coordinates are the same".into()));
    }
    Ok(axes)
}

/// p1 ≥ 0 with H(row) = E, the other components as `row` holds them (None where there is
/// none: H already above E at p1 = 0, or no p1 up to 1e6 reaches E). H grows with p1 ≥ 0 for
/// the kinetic energies of the built-in systems; bisection to the last bit keeps the point
/// on the surface to rounding.
pub fn solve_p1(system: &System, dt: f64, row: &mut [f64], energy: f64) -> Option<f64> {
    let d = row.len() / 2;
    let mut h_at = |p1: f64| {
        row[d] = p1;
        let (q, p) = row.split_at(d);
        system.energy(dt, q, p) - energy
    };
    if h_at(0.0).partial_cmp(&0.0)? == std::cmp::Ordering::Greater {
        return None;
    }
    let (mut lo, mut hi) = (0.0, 1.0);
    while h_at(hi).partial_cmp(&0.0)? != std::cmp::Ordering::Greater {
        lo = hi;
        hi *= 2.0;
        if hi > 1e6 {
            return None;
        }
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if h_at(mid) > 0.0 {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    row[d] = lo;
    Some(lo)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_parse_and_bad_ones_name_the_coordinates() {
        assert_eq!(
            GridPlane::resolve(Some("q2, p2"), None, 2).unwrap().axes,
            [1, 3]
        );
        assert_eq!(GridPlane::resolve(None, None, 2).unwrap().axes, [0, 2]);
        let e = GridPlane::resolve(Some("q3,p1"), None, 2)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("no coordinate 'q3'") && e.contains("q1, q2, p1, p2"),
            "{e}"
        );
        assert!(GridPlane::resolve(Some("q1,q1"), None, 2).is_err());
        assert!(GridPlane::resolve(Some("q1"), None, 2).is_err());
        let e = GridPlane::resolve(Some("q2,p1"), Some(0.1), 2)
            .unwrap_err()
            .to_string();
        assert!(e.contains("p1 is solved"), "{e}");
    }

    /// Hénon–Heiles at q1 = 0: p1 puts the point on H = E to rounding, and a point whose
    /// potential and p2 already exceed E has none.
    #[test]
    fn p1_is_solved_on_the_energy_surface() {
        let system = System::new("henon-heiles", &Default::default()).unwrap();
        let mut row = vec![0.0, 0.1, 0.0, 0.2];
        let p1 = solve_p1(&system, 0.01, &mut row, 0.125).unwrap();
        assert!(p1 > 0.0);
        assert!((system.energy(0.01, &row[..2], &row[2..]) - 0.125).abs() < 1e-15);
        let mut off = vec![0.0, 0.1, 0.0, 0.6];
        assert_eq!(solve_p1(&system, 0.01, &mut off, 0.125), None);
    }
}
