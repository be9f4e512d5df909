//! Resolving an ensemble spec: defaults for the system filled in and every value checked, so
//! the spec written into config.toml is complete and reproduces the same set.

use super::loops::check_file_loop;
use super::{read_states, EnsembleKind, EnsembleSpec};
use crate::error::Result;
use crate::input_err;
use crate::system::System;

/// A value the kind needs, or an error naming the flag that gives it.
fn need<T: Clone>(v: &Option<T>, flag: &str, kind: &str) -> Result<T> {
    v.clone()
        .ok_or_else(|| input_err!("--ensemble {kind} needs {flag}"))
}

/// A full state given on the command line: 2d finite values.
fn check_vec(v: &[f64], flag: &str, d: usize, system: &str) -> Result<()> {
    if v.len() != 2 * d {
        return Err(input_err!(
            "{flag}: expected {} comma-separated values (q1..qd, p1..pd) for system '{system}' with d = {d}, got {}",
            2 * d,
            v.len()
        ));
    }
    if let Some(x) = v.iter().find(|x| !x.is_finite()) {
        return Err(input_err!("{flag}: values must be finite numbers, got {x}"));
    }
    Ok(())
}

/// `v` itself when it is a positive finite number.
fn positive(v: f64, flag: &str) -> Result<f64> {
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(input_err!(
            "{flag} must be a positive finite number, got {v}"
        ))
    }
}

impl EnsembleSpec {
    /// Fill unset values with sensible defaults for the system and check the rest, so that
    /// the spec written into config.toml is complete and reproduces the same set.
    pub fn resolve(mut self, system: &System) -> Result<Self> {
        let d = system.dof();
        let name = system.name();
        let kind = self.kind.name();
        if self.kind != EnsembleKind::File && self.points == 0 {
            return Err(input_err!("--points must be at least 1, got 0"));
        }
        match self.kind {
            EnsembleKind::Level => {
                if d != 1 {
                    return Err(input_err!("--ensemble level needs a system with one degree of freedom; '{name}' has {d}"));
                }
                let e = need(&self.energy, "--energy E (the energy level)", kind)?;
                positive(e, "--energy")?;
            }
            EnsembleKind::Circle | EnsembleKind::Disk => {
                self.resolve_center(system, system.default_center())?;
                self.radius = Some(positive(self.radius.unwrap_or(0.3), "--radius")?);
            }
            EnsembleKind::Point => self.resolve_center(system, system.default_state())?,
            EnsembleKind::Gaussian => {
                self.resolve_center(system, system.default_center())?;
                self.sigma = Some(positive(self.sigma.unwrap_or(0.1), "--sigma")?);
            }
            EnsembleKind::Rect | EnsembleKind::Grid => self.resolve_box(system)?,
            EnsembleKind::File => {
                let path = need(&self.input, "--input FILE (CSV or .npy)", kind)?;
                // The file decides the point count; reading it here also reports a bad file early.
                let nodes = read_states(&path, d)?;
                if self.closed_loop {
                    check_file_loop(&nodes, &path)?;
                }
                self.points = nodes.n;
            }
        }
        if self.closed_loop && self.kind != EnsembleKind::File {
            return Err(input_err!(
                "--loop applies to --ensemble file only ({kind} is already a loop or a filled set)"
            ));
        }
        Ok(self)
    }

    /// `--center`, or `default` where it is unset, checked against the system's d.
    fn resolve_center(&mut self, system: &System, default: Vec<f64>) -> Result<()> {
        let c = self.center.clone().unwrap_or(default);
        check_vec(&c, "--center", system.dof(), system.name())?;
        self.center = Some(c);
        Ok(())
    }

    /// The box of `rect` and `grid`: `--lo`/`--hi` (default ±0.25 around the system's centre),
    /// which must be proper in (q1, p1), and the point count each kind needs.
    fn resolve_box(&mut self, system: &System) -> Result<()> {
        let (d, name) = (system.dof(), system.name());
        let c = system.default_center();
        let lo = self
            .lo
            .clone()
            .unwrap_or_else(|| c.iter().map(|x| x - 0.25).collect());
        let hi = self
            .hi
            .clone()
            .unwrap_or_else(|| c.iter().map(|x| x + 0.25).collect());
        check_vec(&lo, "--lo", d, name)?;
        check_vec(&hi, "--hi", d, name)?;
        if !(hi[0] > lo[0] && hi[d] > lo[d]) {
            return Err(input_err!(
                "--lo/--hi: the box must have hi > lo in q1 and p1 (got q1 {}..{}, p1 {}..{})",
                lo[0],
                hi[0],
                lo[d],
                hi[d]
            ));
        }
        if self.kind == EnsembleKind::Grid {
            let m = (self.points as f64).sqrt().floor() as usize;
            if m * m != self.points {
                return Err(input_err!(
                    "--points {}: a grid needs a perfect square number of points (try {} or {})",
                    self.points,
                    m * m,
                    (m + 1) * (m + 1)
                ));
            }
        }
        if self.kind == EnsembleKind::Rect && self.points < 4 {
            return Err(input_err!(
                "--points must be at least 4 for a rect loop, got {}",
                self.points
            ));
        }
        self.lo = Some(lo);
        self.hi = Some(hi);
        Ok(())
    }
}
