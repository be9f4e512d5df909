//! Resolving an ensemble request: the kind's defaults for the system filled in and every value
//! checked, giving the typed `EnsembleSpec` whose `InitialSet` holds exactly what the kind
//! needs, so config.toml written from it is complete and reproduces the same set.

use std::path::PathBuf;

use super::plane::coordinate_name;
use super::{EnsembleKind, EnsembleSpec, GridPlane, InitialSet};
use crate::error::{num, Field, Result};
use crate::invalid;
use crate::state::State;
use crate::system::System;

/// An initial set as asked for (flags or a TOML file's `[ensemble]` table): the kind, and
/// whichever values were given. `resolve` turns it into an `EnsembleSpec`.
#[derive(Debug, Clone, PartialEq)]
pub struct EnsembleRequest {
    pub kind: EnsembleKind,
    /// Default 1000, or 1 for `point`; `file` takes its row count instead.
    pub points: Option<usize>,
    /// Default 0.
    pub seed: Option<u64>,
    pub center: Option<Vec<f64>>,
    pub radius: Option<f64>,
    pub lo: Option<Vec<f64>>,
    pub hi: Option<Vec<f64>>,
    pub energy: Option<f64>,
    pub sigma: Option<f64>,
    pub input: Option<PathBuf>,
    /// `file` only: the rows are the nodes of an ordered closed loop (`--loop`).
    pub closed_loop: bool,
    /// `--raw-start`: keep the initial velocities as given (systems that project them only).
    pub raw_start: bool,
    /// `grid` only: its two coordinates (`--grid-axes`, default q1,p1).
    pub grid_axes: Option<String>,
    /// `file` only: the rows in memory, taken instead of reading `input`.
    pub rows: Option<std::sync::Arc<State<f64>>>,
}

/// A value the kind needs, or an error naming the option that gives it (`field`, then `what`
/// it takes).
pub(super) fn need<T: Clone>(v: &Option<T>, field: Field, what: &str, kind: &str) -> Result<T> {
    v.clone().ok_or_else(
        || invalid!(field.clone(); Field::Ensemble.is(kind), " needs ", field, what.to_string()),
    )
}

/// A full state given on the command line: 2d finite values.
fn check_vec(v: &[f64], field: Field, d: usize, system: &str) -> Result<()> {
    if v.len() != 2 * d {
        return Err(invalid!(field.clone();
            field,
            format!(
                ": expected {} comma-separated values (q1..qd, p1..pd) for system '{system}' with d = {d}, got {}",
                2 * d,
                v.len()
            )
        ));
    }
    if let Some(x) = v.iter().find(|x| !x.is_finite()) {
        return Err(invalid!(field.clone();
            field,
            format!(": values must be finite numbers, got {}", num(*x))
        ));
    }
    Ok(())
}

/// `v` itself when it is a positive finite number.
fn positive(v: f64, field: Field) -> Result<f64> {
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(invalid!(field.clone();
            field,
            format!(" must be a positive finite number, got {}", num(v))
        ))
    }
}

impl EnsembleRequest {
    /// A request for `kind` with no value given: each resolves to the kind's default.
    pub fn new(kind: EnsembleKind) -> Self {
        EnsembleRequest {
            kind,
            points: None,
            seed: None,
            center: None,
            radius: None,
            lo: None,
            hi: None,
            energy: None,
            sigma: None,
            input: None,
            closed_loop: false,
            raw_start: false,
            grid_axes: None,
            rows: None,
        }
    }

    /// A seeded uniform disk of `radius` around the system's default centre.
    pub fn disk(points: usize, radius: f64, seed: u64) -> Self {
        EnsembleRequest {
            points: Some(points),
            seed: Some(seed),
            radius: Some(radius),
            ..EnsembleRequest::new(EnsembleKind::Disk)
        }
    }

    /// Fill unset values with sensible defaults for the system and check everything, so that
    /// the spec written into config.toml is complete and reproduces the same set.
    pub fn resolve(self, system: &System) -> Result<EnsembleSpec> {
        let kind = self.kind;
        let mut points = self
            .points
            .unwrap_or(if kind == EnsembleKind::Point { 1 } else { 1000 });
        if kind != EnsembleKind::File && points == 0 {
            return Err(invalid!(Field::Points; Field::Points, " must be at least 1, got 0"));
        }
        self.refuse_unused()?;
        let set = match kind {
            EnsembleKind::Level => self.level(system)?,
            EnsembleKind::Circle => InitialSet::Circle {
                center: self.center(system, system.default_center())?,
                radius: self.radius()?,
            },
            EnsembleKind::Disk => InitialSet::Disk {
                center: self.center(system, system.default_center())?,
                radius: self.radius()?,
            },
            EnsembleKind::Point => InitialSet::Point {
                center: self.center(system, system.default_state())?,
            },
            EnsembleKind::Gaussian => InitialSet::Gaussian {
                center: self.center(system, system.default_center())?,
                sigma: positive(self.sigma.unwrap_or(0.1), Field::Sigma)?,
            },
            EnsembleKind::Rect => {
                let (lo, hi) = self.corners(system, [0, system.dof()], None)?;
                check_rect_points(points)?;
                InitialSet::Rect { lo, hi }
            }
            EnsembleKind::Grid => {
                let d = system.dof();
                let plane = GridPlane::resolve(self.grid_axes.as_deref(), self.energy, d)?;
                let (lo, hi) = self.corners(system, plane.axes, Some(&plane))?;
                check_grid_points(points)?;
                InitialSet::Grid { lo, hi, plane }
            }
            EnsembleKind::File => {
                let (set, rows) = self.file(system)?;
                points = rows;
                set
            }
        };
        if self.raw_start && !system.projects_start() {
            return Err(invalid!(Field::RawStart;
                Field::RawStart,
                format!(
                    ": system '{}' has no discrete constraint that its initial velocities could violate (only vertical-disk and euler-disk put them on one); drop ",
                    system.name()
                ),
                Field::RawStart
            ));
        }
        super::start::check_velocities(system, kind, self.energy.is_some())?;
        Ok(EnsembleSpec {
            points,
            seed: self.seed.unwrap_or(0),
            set,
            raw_start: self.raw_start,
            rows: self.rows,
        })
    }

    /// Refuse a value the kind does not use (`--energy` with a disk was dropped without a
    /// word): each option with the kinds that read it.
    fn refuse_unused(&self) -> Result<()> {
        use EnsembleKind::*;
        let given: [(bool, Field, &[EnsembleKind]); 9] = [
            (
                self.center.is_some(),
                Field::Center,
                &[Circle, Disk, Gaussian, Point],
            ),
            (self.radius.is_some(), Field::Radius, &[Circle, Disk]),
            (self.lo.is_some(), Field::Lo, &[Rect, Grid]),
            (self.hi.is_some(), Field::Hi, &[Rect, Grid]),
            (self.energy.is_some(), Field::Energy, &[Level, Grid]),
            (self.sigma.is_some(), Field::Sigma, &[Gaussian]),
            (self.input.is_some(), Field::Input, &[File]),
            (self.closed_loop, Field::Loop, &[File]),
            (self.grid_axes.is_some(), Field::GridAxes, &[Grid]),
        ];
        let Some((_, field, kinds)) = given
            .into_iter()
            .find(|(set, _, kinds)| *set && !kinds.contains(&self.kind))
        else {
            return Ok(());
        };
        let names: Vec<&str> = kinds.iter().map(|k| k.name()).collect();
        Err(invalid!(field.clone();
            field.clone(),
            " applies to ",
            Field::Ensemble.is(names.join(", ")),
            format!(" only, not to {}; drop ", self.kind.name()),
            field
        ))
    }

    /// `level`: a 1-DOF system and a finite `--energy` (above the minimum of H: checked where
    /// the level is drawn, `level::level_point`).
    fn level(&self, system: &System) -> Result<InitialSet> {
        let d = system.dof();
        if d != 1 {
            return Err(invalid!(Field::Ensemble;
                Field::Ensemble.is("level"),
                format!(
                    " needs a system with one degree of freedom; '{}' has {d}",
                    system.name()
                )
            ));
        }
        let energy = need(
            &self.energy,
            Field::Energy,
            " E (the energy level)",
            "level",
        )?;
        if !energy.is_finite() {
            return Err(invalid!(Field::Energy;
                Field::Energy,
                format!(
                    " must be a finite number above the minimum of H, got {}",
                    num(energy)
                )
            ));
        }
        Ok(InitialSet::Level { energy })
    }

    /// `--radius` of `circle` and `disk` (default 0.3).
    fn radius(&self) -> Result<f64> {
        positive(self.radius.unwrap_or(0.3), Field::Radius)
    }

    /// `--center`, or `default` where it is unset, checked against the system's d.
    fn center(&self, system: &System, default: Vec<f64>) -> Result<Vec<f64>> {
        let c = self.center.clone().unwrap_or(default);
        check_vec(&c, Field::Center, system.dof(), system.name())?;
        Ok(c)
    }

    /// The box of `rect` and `grid`: `--lo`/`--hi` (default ±0.25 around the system's centre
    /// in the plane's two coordinates `[a, b]`, (q1, p1) for `rect`), which must be proper in
    /// them. A grid holds its other coordinates at one value (the middle of lo and hi): they
    /// default to the centre, and given, must have lo = hi (a range there would be dropped).
    fn corners(
        &self,
        system: &System,
        [a, b]: [usize; 2],
        grid: Option<&GridPlane>,
    ) -> Result<(Vec<f64>, Vec<f64>)> {
        let (d, system_name) = (system.dof(), system.name());
        let c = system.default_center();
        let spans = |i: usize| grid.is_none() || i == a || i == b;
        let corner = |sign: f64| -> Vec<f64> {
            let half = |i: usize| if spans(i) { sign * 0.25 } else { 0.0 };
            c.iter().enumerate().map(|(i, x)| x + half(i)).collect()
        };
        let lo = self.lo.clone().unwrap_or_else(|| corner(-1.0));
        let hi = self.hi.clone().unwrap_or_else(|| corner(1.0));
        check_vec(&lo, Field::Lo, d, system_name)?;
        check_vec(&hi, Field::Hi, d, system_name)?;
        let name = |i: usize| coordinate_name(i, d);
        let range = |i: usize| format!("{} {}..{}", name(i), num(lo[i]), num(hi[i]));
        if !(hi[a] > lo[a] && hi[b] > lo[b]) {
            // A box spanning two other coordinates was meant for them: name --grid-axes.
            let others: Vec<String> = (0..2 * d)
                .filter(|&i| i != a && i != b && hi[i] > lo[i])
                .map(name)
                .collect();
            let hint = match (&others[..], grid.is_some()) {
                ([x, y], true) => format!("; to span {x} and {y} instead, add --grid-axes {x},{y}"),
                _ => String::new(),
            };
            return Err(invalid!(Field::Lo;
                Field::Lo,
                "/",
                Field::Hi,
                format!(
                    ": the box must have hi > lo in {} and {} (got {}, {}){hint}",
                    name(a), name(b), range(a), range(b)
                )
            ));
        }
        if let Some(plane) = grid {
            // With an energy surface p1 is solved, whatever lo and hi say.
            let solved = |i: usize| plane.energy.is_some() && i == d;
            let dropped: Vec<String> = (0..2 * d)
                .filter(|&i| !spans(i) && !solved(i) && lo[i] != hi[i])
                .map(range)
                .collect();
            if !dropped.is_empty() {
                return Err(invalid!(Field::Lo;
                    Field::Lo,
                    "/",
                    Field::Hi,
                    format!(
                        ": the grid spans {} and {} and holds the other coordinates at one value, but {} give a range; give lo = hi there (the value to hold), or span two other coordinates with ",
                        name(a), name(b), dropped.join(", ")
                    ),
                    Field::GridAxes
                ));
            }
        }
        Ok((lo, hi))
    }
}

/// A rect loop needs at least its four corners' worth of points.
fn check_rect_points(points: usize) -> Result<()> {
    if points < 4 {
        return Err(invalid!(Field::Points;
            Field::Points,
            format!(" must be at least 4 for a rect loop, got {points}")
        ));
    }
    Ok(())
}

/// A grid is a √N × √N lattice: N must be a perfect square.
fn check_grid_points(points: usize) -> Result<()> {
    let m = (points as f64).sqrt().floor() as usize;
    if m * m != points {
        return Err(invalid!(Field::Points;
            Field::Points.is(points),
            format!(
                ": a grid needs a perfect square number of points (try {} or {})",
                m * m,
                (m + 1) * (m + 1)
            )
        ));
    }
    Ok(())
}

impl EnsembleSpec {
    /// The request that resolves to this spec again: its kind, point count and seed, and the
    /// values its kind uses (config.toml's `[ensemble]` table is written from it). The inverse
    /// of `EnsembleRequest::resolve`, beside it so that a new kind adds its arm to both here.
    pub fn request(&self) -> EnsembleRequest {
        let mut r = EnsembleRequest {
            points: Some(self.points),
            seed: Some(self.seed),
            raw_start: self.raw_start,
            ..EnsembleRequest::new(self.kind())
        };
        match &self.set {
            InitialSet::Level { energy } => r.energy = Some(*energy),
            InitialSet::Circle { center, radius } | InitialSet::Disk { center, radius } => {
                r.center = Some(center.clone());
                r.radius = Some(*radius);
            }
            InitialSet::Rect { lo, hi } => {
                r.lo = Some(lo.clone());
                r.hi = Some(hi.clone());
            }
            InitialSet::Grid { lo, hi, plane } => {
                r.lo = Some(lo.clone());
                r.hi = Some(hi.clone());
                r.grid_axes = Some(plane.axes_text(lo.len() / 2));
                r.energy = plane.energy;
            }
            InitialSet::Gaussian { center, sigma } => {
                r.center = Some(center.clone());
                r.sigma = Some(*sigma);
            }
            InitialSet::Point { center } => r.center = Some(center.clone()),
            InitialSet::File { input, closed_loop } => {
                // Rows in memory have no file to name.
                r.input = self.rows.is_none().then(|| input.clone());
                r.rows = self.rows.clone();
                r.closed_loop = *closed_loop;
            }
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn request(kind: EnsembleKind) -> EnsembleRequest {
        EnsembleRequest::new(kind)
    }

    /// Resolution fills each kind's defaults into its own variant, which holds only the values
    /// the kind uses (config.toml is written from the resolved set).
    #[test]
    fn resolution_fills_the_kinds_defaults_and_keeps_only_what_the_kind_uses() {
        let pend = System::new("pendulum", &BTreeMap::new()).unwrap();
        let c = pend.default_center();
        let resolve = |r: EnsembleRequest| r.resolve(&pend).unwrap();
        let disk = resolve(request(EnsembleKind::Disk));
        assert_eq!((disk.points, disk.seed), (1000, 0));
        let radius = 0.3;
        assert_eq!(
            disk.set,
            InitialSet::Disk {
                center: c.clone(),
                radius
            }
        );
        let point = resolve(request(EnsembleKind::Point));
        assert_eq!(point.points, 1);
        assert_eq!(
            point.set,
            InitialSet::Point {
                center: pend.default_state()
            }
        );
        let grid = resolve(EnsembleRequest {
            points: Some(49),
            ..request(EnsembleKind::Grid)
        });
        let lo = c.iter().map(|x| x - 0.25).collect();
        let hi = c.iter().map(|x| x + 0.25).collect();
        assert_eq!(
            grid.set,
            InitialSet::Grid {
                lo,
                hi,
                plane: GridPlane::q1_p1(1)
            }
        );
        let gaussian = resolve(request(EnsembleKind::Gaussian));
        assert_eq!(
            gaussian.set,
            InitialSet::Gaussian {
                center: c,
                sigma: 0.1
            }
        );
        let level = resolve(EnsembleRequest {
            energy: Some(0.5),
            ..request(EnsembleKind::Level)
        });
        assert_eq!(level.set, InitialSet::Level { energy: 0.5 });
        assert!(level.is_loop() && !disk.is_loop());
    }

    /// A value the kind does not use is refused, naming the kinds that use it (`--energy`
    /// with a disk was dropped without a word).
    #[test]
    fn a_value_the_kind_does_not_use_is_refused() {
        let pend = System::new("pendulum", &BTreeMap::new()).unwrap();
        let refused = |r: EnsembleRequest| r.resolve(&pend).unwrap_err().to_string();
        let e = refused(EnsembleRequest {
            energy: Some(0.1),
            ..request(EnsembleKind::Disk)
        });
        assert_eq!(
            e,
            "energy applies to ensemble = level, grid only, not to disk; drop energy"
        );
        let e = refused(EnsembleRequest {
            radius: Some(0.1),
            ..request(EnsembleKind::Gaussian)
        });
        assert!(
            e.starts_with("radius applies to ensemble = circle, disk only"),
            "{e}"
        );
        let e = refused(EnsembleRequest {
            sigma: Some(0.1),
            ..request(EnsembleKind::Grid)
        });
        assert!(
            e.starts_with("sigma applies to ensemble = gaussian only"),
            "{e}"
        );
        let e = refused(EnsembleRequest {
            center: Some(vec![0.0, 0.0]),
            ..request(EnsembleKind::Rect)
        });
        assert!(e.starts_with("center applies to"), "{e}");
    }

    /// A grid's `lo`/`hi` give a range only in the two coordinates it spans (the others are
    /// held at one value); a box that spans two other coordinates names `grid_axes`.
    #[test]
    fn a_grid_box_ranges_only_its_axes() {
        let hh = System::new("henon-heiles", &BTreeMap::new()).unwrap();
        let grid = |lo: [f64; 4], hi: [f64; 4], axes: Option<&str>| {
            EnsembleRequest {
                points: Some(16),
                lo: Some(lo.to_vec()),
                hi: Some(hi.to_vec()),
                grid_axes: axes.map(String::from),
                ..request(EnsembleKind::Grid)
            }
            .resolve(&hh)
        };
        let e = grid([0.0, -0.5, 0.0, -0.5], [0.0, 0.5, 0.0, 0.5], None)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("to span q2 and p2 instead, add --grid-axes q2,p2"),
            "{e}"
        );
        let e = grid([-0.1, -0.5, 0.0, -0.5], [0.1, 0.5, 0.0, 0.5], Some("q2,p2"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("the grid spans q2 and p2 and holds the other coordinates at one value, but q1 -0.1..0.1 give a range"),
            "{e}"
        );
        assert!(grid([0.1, -0.5, 0.0, -0.5], [0.1, 0.5, 0.0, 0.5], Some("q2,p2")).is_ok());
        // By default the other coordinates are held at the centre.
        let Ok(EnsembleSpec {
            set: InitialSet::Grid { lo, hi, .. },
            ..
        }) = EnsembleRequest {
            points: Some(16),
            grid_axes: Some("q2,p2".into()),
            ..request(EnsembleKind::Grid)
        }
        .resolve(&hh)
        else {
            panic!("default grid refused")
        };
        let c = hh.default_center();
        assert_eq!((lo[0], hi[0], lo[2], hi[2]), (c[0], c[0], c[2], c[2]));
        assert_eq!((lo[1], hi[1]), (c[1] - 0.25, c[1] + 0.25));
        assert_eq!((lo[3], hi[3]), (c[3] - 0.25, c[3] + 0.25));
    }

    /// `EnsembleSpec::request` is the inverse of `resolve` for every kind but `file` (whose
    /// rows need a file): the request it gives resolves to the same spec, which is what makes
    /// config.toml reproduce the set.
    #[test]
    fn the_request_of_a_spec_resolves_to_the_same_spec() {
        let hh = System::new("henon-heiles", &BTreeMap::new()).unwrap();
        let pend = System::new("pendulum", &BTreeMap::new()).unwrap();
        for &(kind, name, _) in super::super::KINDS {
            let system = if kind == EnsembleKind::Level {
                &pend
            } else {
                &hh
            };
            let given = match kind {
                EnsembleKind::File => continue,
                EnsembleKind::Level => EnsembleRequest {
                    energy: Some(0.5),
                    ..request(kind)
                },
                EnsembleKind::Grid => EnsembleRequest {
                    points: Some(16),
                    grid_axes: Some("q2,p2".into()),
                    energy: Some(0.125),
                    ..request(kind)
                },
                EnsembleKind::Rect => EnsembleRequest {
                    points: Some(40),
                    ..request(kind)
                },
                _ => EnsembleRequest {
                    points: Some(7),
                    seed: Some(3),
                    ..request(kind)
                },
            };
            let spec = given.resolve(system).unwrap();
            assert_eq!(spec.request().resolve(system).unwrap(), spec, "{name}");
        }
    }
}
