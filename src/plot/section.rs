//! The figure of a Poincaré section (section.png/svg): the crossings in the plane of the
//! first degree of freedom the section does not fix, (q_j, p_j), coloured per point by a
//! value the caller chooses (`Colour`).

use super::{time_color, Figure, Series, Style};
use crate::section::Crossings;

/// Colour bands of the figure: points are grouped into this many series by their colour value.
const BANDS: usize = 16;

/// What colours a point's crossings.
#[derive(Debug, Clone, Copy)]
pub enum Colour<'a> {
    /// Its index in the ensemble.
    Point,
    /// A value per point (e.g. a chaos indicator), named for the title; non-finite values
    /// take the lowest colour.
    Value { name: &'a str, values: &'a [f64] },
}

/// The figure of `c` (first point's index `first` in the ensemble).
pub fn section_figure(c: &Crossings, first: usize, colour: Colour) -> Figure {
    let sec = &c.section;
    let j = (0..sec.d).find(|&j| j != sec.index).unwrap_or(0);
    let others = sec.others();
    let col = |m: bool| 1 + others.iter().position(|&o| o == (m, j)).unwrap_or(0);
    let (xc, yc) = (col(false), col(true));
    let (by, value): (&str, Box<dyn Fn(usize) -> f64>) = match colour {
        Colour::Point => ("point index", Box::new(|i| (first + i) as f64)),
        Colour::Value { name, values } => (name, Box::new(move |i| values[i])),
    };
    let finite: Vec<f64> = (0..c.n).map(&value).filter(|v| v.is_finite()).collect();
    let lo = finite.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = finite.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let band = |v: f64| match v.is_finite() && hi > lo {
        true => (((v - lo) / (hi - lo) * BANDS as f64) as usize).min(BANDS - 1),
        false => 0,
    };
    let mut bands = vec![Vec::new(); BANDS];
    let (max, w) = (c.max(), sec.record_values());
    for i in 0..c.n {
        let b = band(value(i));
        for r in 0..(c.seen[i] as usize).min(max) {
            let v = &c.vals[(i * max + r) * w..(i * max + r + 1) * w];
            bands[b].push((v[xc], v[yc]));
        }
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
    fig.series = bands
        .into_iter()
        .enumerate()
        .filter(|(_, pts)| !pts.is_empty())
        .map(|(b, points)| Series {
            color: Some(time_color(b as f64 / (BANDS - 1) as f64)),
            ..Series::new("", points, Style::Markers)
        })
        .collect();
    fig
}
