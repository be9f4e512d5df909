//! Poincaré sections (`--section q1=0[,up|down|both]`, `--section-max N`): every crossing of
//! every point through the plane "coordinate = value", located between the two steps that
//! straddle it and collected where the state lives, per point, in the engine's own buffers
//! (CPU: `SectionStore` beside the state; GPU: words after the state in the chunk buffer,
//! written by `shaders/common/section.wgsl`). Both engines detect and locate with the same
//! operations in the same order (`locate`, and its WGSL mirror).
//!
//! Location: the cubic Hermite interpolant between the states z_k and z_{k+1} with the
//! vector field f = (∂H/∂p, −∂H/∂q) at both ends. Its error is O(h⁴) per step, below the
//! global error O(h^p) of every method up to order 4 and independent of the method, and it
//! costs two gradient evaluations per crossing only (never per step). Hénon's trick (one step
//! with the crossing coordinate as the independent variable) would be exact to the method's
//! order but needs a second integrator per method on both engines.

pub mod locate;
pub mod store;

use crate::error::Result;
use crate::input_err;
use crate::system::System;

pub use store::{Crossings, SectionStore};

/// Crossings kept per point unless `--section-max` says otherwise.
pub const DEFAULT_MAX: u32 = 100;

/// Which sign changes count as crossings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// The coordinate goes from below the value to at or above it.
    Up,
    /// From above to at or below.
    Down,
    Both,
}

impl Direction {
    pub fn name(self) -> &'static str {
        match self {
            Direction::Up => "up",
            Direction::Down => "down",
            Direction::Both => "both",
        }
    }
}

/// A resolved section: the coordinate (`momentum`: a p, else a q; `index` from 0), its value,
/// the direction and the cap on recorded crossings per point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Section {
    pub momentum: bool,
    pub index: usize,
    pub value: f64,
    pub direction: Direction,
    pub max: u32,
    /// Degrees of freedom of the system.
    pub d: usize,
}

impl Section {
    /// Parse `--section COORD=VALUE[,up|down|both]` for `system` with `--section-max` `max`.
    pub fn parse(text: &str, max: Option<u32>, system: &System) -> Result<Section> {
        let d = system.dof();
        let form = "expected COORD=VALUE[,up|down|both], e.g. --section q1=0,up";
        if system.variational() {
            return Err(input_err!(
                "--section: system {} is a discrete map whose p slots hold velocities, with no vector field to locate crossings with; use a Hamiltonian system",
                system.name()
            ));
        }
        if d < 2 {
            return Err(input_err!(
                "--section: system {} has {d} degree of freedom, and a section of a one-degree-of-freedom system is a set of points, not a curve; use a system with at least 2 degrees of freedom",
                system.name()
            ));
        }
        let (plane, direction) = match text.split_once(',') {
            Some((plane, dir)) => (plane, dir.trim()),
            None => (text, "up"),
        };
        let direction = match direction {
            "up" => Direction::Up,
            "down" => Direction::Down,
            "both" => Direction::Both,
            other => {
                return Err(input_err!(
                    "--section {text}: unknown direction `{other}`; use up, down or both"
                ))
            }
        };
        let (coord, value) = plane
            .split_once('=')
            .ok_or_else(|| input_err!("--section {text}: {form}"))?;
        let coord = coord.trim();
        let momentum = match coord.chars().next() {
            Some('q') => false,
            Some('p') => true,
            _ => {
                return Err(input_err!(
                    "--section {text}: unknown coordinate `{coord}`; use q1..q{d} or p1..p{d}"
                ))
            }
        };
        let index = coord[1..]
            .parse::<usize>()
            .ok()
            .filter(|&k| (1..=d).contains(&k))
            .ok_or_else(|| {
                input_err!(
                    "--section {text}: system {} has no coordinate `{coord}`; use q1..q{d} or p1..p{d}",
                    system.name()
                )
            })?;
        let value = value
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| {
                input_err!("--section {text}: the value must be a finite number; {form}")
            })?;
        let max = match max {
            Some(0) => {
                return Err(input_err!(
                    "--section-max must be at least 1 (crossings kept per point), got 0"
                ))
            }
            Some(m) => m,
            None => DEFAULT_MAX,
        };
        Ok(Section {
            momentum,
            index: index - 1,
            value,
            direction,
            max,
            d,
        })
    }

    /// The text `parse` reads back (config.toml records it).
    pub fn text(&self) -> String {
        format!(
            "{}={},{}",
            self.coord_name(self.momentum, self.index),
            self.value,
            self.direction.name()
        )
    }

    fn coord_name(&self, momentum: bool, k: usize) -> String {
        format!("{}{}", if momentum { 'p' } else { 'q' }, k + 1)
    }

    /// The 2d − 1 coordinates a crossing records besides the section's own, in the order
    /// q1..qd, p1..pd: (momentum, index) pairs.
    pub fn others(&self) -> Vec<(bool, usize)> {
        [false, true]
            .into_iter()
            .flat_map(|m| (0..self.d).map(move |k| (m, k)))
            .filter(|&(m, k)| (m, k) != (self.momentum, self.index))
            .collect()
    }

    /// Names of the columns of section.npy.
    pub fn columns(&self) -> Vec<String> {
        let mut c: Vec<String> = ["point", "crossing", "t"].map(String::from).into();
        c.extend(
            self.others()
                .into_iter()
                .map(|(m, k)| self.coord_name(m, k)),
        );
        c
    }

    /// Values a recorded crossing keeps: the fraction s of its step and the 2d − 1 others.
    pub fn record_values(&self) -> usize {
        2 * self.d
    }

    /// Bytes per point the engine keeps for the section at `value_bytes` per value (the
    /// memory estimate): the count and, per kept crossing, its step and values.
    pub fn bytes_per_point(&self, value_bytes: usize) -> usize {
        8 + self.max as usize * (8 + self.record_values() * value_bytes)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    fn hh() -> System {
        System::new("henon-heiles", &BTreeMap::new()).unwrap()
    }

    #[test]
    fn parses_coordinates_values_and_directions() {
        let s = Section::parse("q1=0", None, &hh()).unwrap();
        assert_eq!((s.momentum, s.index, s.value), (false, 0, 0.0));
        assert_eq!((s.direction, s.max), (Direction::Up, DEFAULT_MAX));
        let s = Section::parse("p2=-0.25,both", Some(7), &hh()).unwrap();
        assert_eq!((s.momentum, s.index, s.value), (true, 1, -0.25));
        assert_eq!((s.direction, s.max), (Direction::Both, 7));
        assert_eq!(s.text(), "p2=-0.25,both");
        assert_eq!(Section::parse(&s.text(), Some(7), &hh()).unwrap(), s);
        assert_eq!(s.columns(), ["point", "crossing", "t", "q1", "q2", "p1"]);
    }

    #[test]
    fn refuses_bad_sections_naming_the_fix() {
        let pendulum = System::new("pendulum", &BTreeMap::new()).unwrap();
        for (text, max, system, says) in [
            ("q3=0", None, hh(), "no coordinate `q3`"),
            ("x1=0", None, hh(), "unknown coordinate"),
            ("q1=abc", None, hh(), "finite number"),
            ("q1=nan", None, hh(), "finite number"),
            ("q1", None, hh(), "COORD=VALUE"),
            ("q1=0,sideways", None, hh(), "up, down or both"),
            ("q1=0", Some(0), hh(), "at least 1"),
            ("q1=0", None, pendulum, "at least 2 degrees of freedom"),
        ] {
            let e = Section::parse(text, max, &system).unwrap_err();
            assert!(e.is_input() && e.to_string().contains(says), "{text}: {e}");
        }
    }
}
