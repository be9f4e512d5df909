//! How the points of a filled set start: as generated, or, for the nonholonomic variational
//! systems, with each initial velocity put on the system's discrete constraint before the run
//! (`System::project_start`; `EnsembleSpec::raw_start` keeps it as given), and what that
//! changed, for stderr and the study report.

use super::EnsembleKind;
use crate::error::{Field, Result};
use crate::invalid;
use crate::system::System;

/// A Lagrangian's initial velocities (`--velocities`) are converted point by point, so a set
/// made in (q, p) is refused with them: a loop (refinement makes new nodes in (q, p)), an
/// energy level, a grid on an energy surface (`on_energy`: both solve p from the energy).
pub(super) fn check_velocities(system: &System, kind: EnsembleKind, on_energy: bool) -> Result<()> {
    if !system.lagrangian().is_some_and(|l| l.spec.velocities) {
        return Ok(());
    }
    let made_in_qp = match kind {
        EnsembleKind::Level | EnsembleKind::Circle | EnsembleKind::Rect => true,
        EnsembleKind::Grid => on_energy,
        _ => false,
    };
    if made_in_qp {
        return Err(invalid!(Field::Velocities;
            Field::Velocities,
            format!(" applies to sets of points given by their velocities (disk, gaussian, point, grid without an energy, file); the {} set is made in (q, p): drop ", kind.name()),
            Field::Velocities,
            ", or give a set of points"
        ));
    }
    Ok(())
}

/// Where a set's points start, and what putting them on the discrete constraint changed.
pub(super) struct Start<'a> {
    /// The system that projects the points; None: they start as generated.
    system: Option<&'a System>,
    /// The run's step: a discrete map's constraint and energy depend on it.
    dt: f64,
    note: Option<StartNote>,
}

/// What putting a set's initial velocities on the discrete constraint changed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StartNote {
    /// The points projected.
    pub points: usize,
    /// The point whose energy changed most (relative to its given energy; absolute where that
    /// is 0): its index in the set, its energy as given and as projected.
    pub largest: (usize, f64, f64),
    /// Put on a Lagrangian's holonomic constraints (positions and momenta), not on a
    /// nonholonomic system's discrete rolling constraint (velocities).
    pub holonomic: bool,
}

impl<'a> Start<'a> {
    /// The points of `system` run at step `dt` start projected unless `raw` (or the system
    /// has no projection).
    pub(super) fn new(system: &'a System, dt: f64, raw: bool) -> Self {
        Start {
            system: (!raw && system.projects_start()).then_some(system),
            dt,
            note: None,
        }
    }

    /// The run's step.
    pub(super) fn dt(&self) -> f64 {
        self.dt
    }

    /// Whether the points are put on a constraint (else they start as generated).
    pub(super) fn projects(&self) -> bool {
        self.system.is_some()
    }

    /// Point `at` of the set (q1..qd, v1..vd), put on the constraint where it starts so.
    pub(super) fn apply(&mut self, at: usize, row: &mut [f64]) {
        let Some(system) = self.system else {
            return;
        };
        let d = system.dof();
        let before = system.energy(self.dt, &row[..d], &row[d..]);
        system.project_start(self.dt, row);
        let after = system.energy(self.dt, &row[..d], &row[d..]);
        let change = relative_change;
        let note = self.note.get_or_insert(StartNote {
            points: 0,
            largest: (at, before, after),
            holonomic: false,
        });
        note.points += 1;
        let (_, a, b) = note.largest;
        if change(before, after) > change(a, b) {
            note.largest = (at, before, after);
        }
    }

    pub(super) fn note(self) -> Option<StartNote> {
        self.note
    }
}

impl StartNote {
    /// One point `at` put on a Lagrangian's holonomic constraints, its energy before and after.
    pub(super) fn holonomic(at: usize, before: f64, after: f64) -> StartNote {
        StartNote {
            points: 1,
            largest: (at, before, after),
            holonomic: true,
        }
    }

    /// The note of two parts of a set (`b`'s points after `a`'s, its indices already the
    /// set's): the points of both, the largest change of either.
    pub(super) fn merged(a: Option<StartNote>, b: Option<StartNote>) -> Option<StartNote> {
        let change = |n: &StartNote| relative_change(n.largest.1, n.largest.2);
        match (a, b) {
            (Some(a), Some(b)) => Some(StartNote {
                holonomic: a.holonomic,
                points: a.points + b.points,
                largest: if change(&b) > change(&a) {
                    b.largest
                } else {
                    a.largest
                },
            }),
            (a, b) => a.or(b),
        }
    }

    /// One sentence for stderr and the study report: what was projected, the energy change,
    /// and how to start from the given velocities instead.
    pub fn describe(&self, system: &str) -> String {
        let (at, before, after) = self.largest;
        let change = if before == after {
            "the energy unchanged: already on it".to_string()
        } else if self.points == 1 {
            format!(
                "the energy from {} to {}, the value the energy errors are measured from",
                short(before),
                short(after)
            )
        } else {
            format!(
                "the largest energy change at point {}, from {} to {}",
                at + 1,
                short(before),
                short(after)
            )
        };
        if self.holonomic {
            let what = match self.points {
                1 => "the initial state was".to_string(),
                n => format!("the initial states of {n} points were"),
            };
            return format!(
                "{what} put on the constraints of {system} before the run (the positions on g(q) = 0, the momenta tangent to it; {change})"
            );
        }
        let what = match self.points {
            1 => "the initial velocity was".to_string(),
            n => format!("the initial velocities of the {n} points were"),
        };
        format!(
            "{what} put on the discrete rolling constraint of {system} before the run ({change}); --raw-start starts from the velocities as given, off the constraint, which the first step then projects"
        )
    }
}

/// How much an energy changed from `a` to `b`: relative to `a`, absolute where `a` is 0.
fn relative_change(a: f64, b: f64) -> f64 {
    if a == 0.0 {
        (b - a).abs()
    } else {
        ((b - a) / a).abs()
    }
}

/// Seven significant digits, in scientific notation when very small or very large.
fn short(x: f64) -> String {
    if x != 0.0 && (x.abs() < 1e-4 || x.abs() >= 1e9) {
        format!("{x:.6e}")
    } else {
        let rounded: f64 = format!("{x:.6e}").parse().unwrap_or(x);
        format!("{rounded}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_read_in_the_singular_and_plural() {
        let one = StartNote {
            points: 1,
            largest: (0, 31.5, 1.244_531_234),
            holonomic: false,
        };
        assert_eq!(
            one.describe("vertical-disk"),
            "the initial velocity was put on the discrete rolling constraint of vertical-disk before the run (the energy from 31.5 to 1.244531, the value the energy errors are measured from); --raw-start starts from the velocities as given, off the constraint, which the first step then projects"
        );
        let many = StartNote {
            points: 400,
            largest: (16, 2.5e-300, 3.0),
            holonomic: false,
        };
        let text = many.describe("euler-disk");
        assert!(
            text.contains("velocities of the 400 points were put on")
                && text.contains("at point 17, from 2.500000e-300 to 3"),
            "{text}"
        );
        let kept = StartNote {
            points: 1,
            largest: (0, 0.125, 0.125),
            holonomic: false,
        };
        assert!(kept
            .describe("x")
            .contains("(the energy unchanged: already on it)"));
    }
}
