//! The figure of a Poincaré section (section.png/svg): the crossings in the plane of the
//! first degree of freedom the section does not fix, (q_j, p_j), coloured per point by a
//! value the caller chooses (`Colour`). It is drawn from section.npy's rows, which the run
//! writes and `phaseflow plot` reads back, so both draw the same bytes.

use std::ops::Range;

use super::map::MISSING;
use super::{time_color, Figure, Series, Style};
use crate::section::Section;

/// Colour bands of the figure: points are grouped into this many series by their colour value.
const BANDS: usize = 16;
/// Bands of a value on a fixed scale (`Colour::Value`), each a legend entry, so that the
/// legend reads as the map's colour bar in steps.
const VALUE_BANDS: usize = 8;

/// What colours a point's crossings.
#[derive(Debug, Clone)]
pub enum Colour<'a> {
    /// Its index in the ensemble.
    Point,
    /// A value per point (e.g. a chaos indicator) on the colour scale `range` (values beyond
    /// it take its end colours), named for the title; non-finite values are drawn in
    /// `map::MISSING` and listed as "no value".
    Value {
        name: String,
        values: &'a [f64],
        range: (f64, f64),
    },
}

/// The figure of the crossings `rows` of `sec` (section.npy's rows, `sec.columns()` values
/// each: point index, crossing, t, the other coordinates) of the ensemble's points `points`.
/// Every row's point index lies in `points`, and a `Colour::Value` has one value per point.
pub fn section_figure(sec: &Section, points: Range<usize>, rows: &[f64], colour: Colour) -> Figure {
    let (first, n) = (points.start, points.len());
    let j = (0..sec.d).find(|&j| j != sec.index).unwrap_or(0);
    let others = sec.others();
    // A row holds point, crossing and t, then the others: `Section::others`' k-th at 3 + k.
    let col = |m: bool| 3 + others.iter().position(|&o| o == (m, j)).unwrap_or(0);
    let (xc, yc) = (col(false), col(true));
    let (by, bands) = match &colour {
        Colour::Point => {
            let index: Vec<f64> = points.clone().map(|i| i as f64).collect();
            let lo = first as f64;
            let hi = (first + n.max(1) - 1) as f64;
            ("point index".to_string(), banded(&index, (lo, hi), BANDS))
        }
        Colour::Value {
            name,
            values,
            range,
        } => (name.clone(), banded(values, *range, VALUE_BANDS)),
    };
    let mut drawn = vec![Vec::new(); bands.count + 1];
    for row in rows.chunks_exact(sec.columns().len()) {
        let b = bands.of[row[0] as usize - first];
        drawn[b].push((row[xc], row[yc]));
    }
    let direction = sec.direction.name();
    let own = if sec.momentum { 'p' } else { 'q' };
    let mut fig = Figure::new(
        format!(
            "Poincaré section {own}{} = {} ({direction}), coloured by {by}",
            sec.index + 1,
            sec.value
        ),
        format!("q{}", j + 1),
        format!("p{}", j + 1),
    );
    let labelled = matches!(colour, Colour::Value { .. });
    // Highest band first, so a value legend reads from top to bottom as a colour bar does.
    fig.series = drawn
        .into_iter()
        .enumerate()
        .rev()
        .filter(|(_, pts)| !pts.is_empty())
        .map(|(b, points)| {
            let (label, color) = match b == bands.count {
                true => ("no value".to_string(), MISSING),
                false => (
                    bands.label(b),
                    time_color(b as f64 / (bands.count - 1) as f64),
                ),
            };
            Series {
                color: Some(color),
                ..Series::new(
                    if labelled { label } else { String::new() },
                    points,
                    Style::Markers,
                )
            }
        })
        .collect();
    fig
}

/// Each point's band (`count` for a non-finite value) on the scale `range` cut in `count`.
struct Bands {
    of: Vec<usize>,
    count: usize,
    range: (f64, f64),
}

fn banded(values: &[f64], range: (f64, f64), count: usize) -> Bands {
    let (lo, hi) = range;
    let of = values
        .iter()
        .map(|&v| match (v.is_finite(), hi > lo) {
            (false, _) => count,
            (true, true) => {
                ((v - lo) / (hi - lo) * count as f64).clamp(0.0, (count - 1) as f64) as usize
            }
            (true, false) => 0,
        })
        .collect();
    Bands { of, count, range }
}

impl Bands {
    /// A band's legend label: its interval, the end bands open beyond the scale.
    fn label(&self, b: usize) -> String {
        let (lo, hi) = self.range;
        let at = |k: usize| short(lo + (hi - lo) * k as f64 / self.count as f64);
        if b == 0 {
            format!("< {}", at(1))
        } else if b + 1 == self.count {
            format!("≥ {}", at(b))
        } else {
            format!("{}–{}", at(b), at(b + 1))
        }
    }
}

/// A band edge with three significant digits at most.
fn short(x: f64) -> String {
    let s = format!("{:.3}", x);
    let s = if x != 0.0 && x.abs() < 0.01 {
        format!("{x:.2e}")
    } else {
        s
    };
    match s.contains('.') && !s.contains('e') {
        true => s.trim_end_matches('0').trim_end_matches('.').to_string(),
        false => s,
    }
}
