//! A finished `--chaos` run's pictures of its indicators: over a grid ensemble, map.png/svg
//! (the indicator per grid point over the grid's two coordinates, `plot::map`), and the final
//! MEGNO per point that colours the Poincaré section. Both read the indicators back from
//! `chaos/step_<last>.npy`, so `phaseflow plot DIR` draws the same map from the files alone.

use std::path::{Path, PathBuf};

use crate::chaos::Indicator;
use crate::config::RunConfig;
use crate::ensemble::InitialSet;
use crate::error::Result;
use crate::plot::map::{write_map, Map};

use super::tracker::CHAOS_DIR;

/// MEGNO's colour scale: regular orbits approach 2 and chaotic ones grow without bound, so
/// the colours stop at 8 (twice the chaotic threshold), where every chaotic orbit looks alike.
pub const MEGNO_SCALE: (f64, f64) = (0.0, 8.0);

/// The indicator the pictures show (MEGNO where the run has it, else λ) and its values per
/// point at the last snapshot, read from `dir`/chaos/step_<last>.npy; None without --chaos.
pub fn final_indicator(cfg: &RunConfig, dir: &Path) -> Result<Option<(Indicator, Vec<f64>)>> {
    let Some(chaos) = &cfg.chaos else {
        return Ok(None);
    };
    // The first asked for, in the order megno, lyapunov, fli, sali, gali2..gali4.
    let which = chaos
        .indicators
        .first()
        .copied()
        .unwrap_or(Indicator::Megno);
    if cfg.store == crate::config::Store::Zarr {
        return super::store::final_indicator(cfg, dir, which.columns()[0])
            .map(|v| Some((which, v)));
    }
    let path = final_path(cfg, dir);
    let bad = |message: String| crate::error::Error::InputFile {
        path: path.clone(),
        message,
    };
    let bytes = std::fs::read(&path).map_err(|e| bad(e.to_string()))?;
    let a = crate::npy::decode_f64(&bytes).map_err(bad)?;
    let columns = chaos.columns();
    let col = columns.iter().position(|&c| c == which.columns()[0]);
    match col {
        Some(c) if a.cols == columns.len() => Ok(Some((
            which,
            (0..a.rows).map(|r| a.data[r * a.cols + c]).collect(),
        ))),
        _ => Err(bad(format!(
            "{} columns, where --chaos {} writes {}",
            a.cols,
            chaos.text(),
            columns.len()
        ))),
    }
}

/// The run's last chaos file, chaos/step_<last>.npy in `dir`.
pub fn final_path(cfg: &RunConfig, dir: &Path) -> PathBuf {
    let last = cfg.snapshot_steps().last().copied().unwrap_or(0);
    dir.join(CHAOS_DIR).join(format!("step_{last}.npy"))
}

/// The colour-bar label and colour range of an indicator's `values`: MEGNO on `MEGNO_SCALE`,
/// the others from 0 to their largest finite value.
pub fn scale(which: Indicator, values: &[f64]) -> (String, (f64, f64)) {
    match which {
        Indicator::Megno => (
            format!(
                "MEGNO ⟨Y⟩ (colours clipped to {}–{})",
                MEGNO_SCALE.0, MEGNO_SCALE.1
            ),
            MEGNO_SCALE,
        ),
        _ => {
            let hi = values
                .iter()
                .copied()
                .filter(|v| v.is_finite())
                .fold(0.0, f64::max);
            (title(which).into(), (0.0, hi))
        }
    }
}

/// The indicator's name in a picture.
pub fn title(which: Indicator) -> &'static str {
    match which {
        Indicator::Megno => "MEGNO ⟨Y⟩",
        Indicator::Lyapunov => "Lyapunov exponent λ",
        Indicator::Fli => "fast Lyapunov indicator (FLI)",
        Indicator::Sali => "SALI",
        Indicator::Gali(2) => "GALI₂",
        Indicator::Gali(3) => "GALI₃",
        Indicator::Gali(_) => "GALI₄",
    }
}

/// A whole grid ensemble's frame for its maps: axis names, the centres of the first and last
/// column and row, the grid's side and the energy surface's words (" on H = E", or empty).
pub struct GridFrame {
    pub x_label: String,
    pub y_label: String,
    pub x: (f64, f64),
    pub y: (f64, f64),
    pub side: usize,
    pub surface: String,
    /// Whether the grid lies on an energy surface (its points without a real p1 have no value).
    pub on_surface: bool,
}

impl GridFrame {
    /// A map of `values` over the grid, titled "SYSTEM: WHAT" and the energy surface's words;
    /// the colour scale, its bar's label and the caption of the cells without a value as given.
    pub fn map(
        &self,
        system: &str,
        what: &str,
        values: Vec<f64>,
        scale: (f64, f64),
        bar_label: String,
        missing_label: String,
    ) -> Map {
        Map {
            title: format!("{system}: {what}{}", self.surface),
            x_label: self.x_label.clone(),
            y_label: self.y_label.clone(),
            x: self.x,
            y: self.y,
            columns: self.side,
            rows: self.side,
            values,
            scale,
            bar_label,
            missing_label,
        }
    }
}

/// The frame of the run's grid, None unless the run has a grid ensemble and is whole: not one
/// shard's slice of it. Under MPI only rank 0 writes the run's files, from the ranks' states,
/// indicators and stops gathered there, the whole grid's.
pub fn grid_frame(cfg: &RunConfig) -> Option<GridFrame> {
    let InitialSet::Grid { lo, hi, plane } = &cfg.ensemble.set else {
        return None;
    };
    if cfg.shard.is_some() {
        return None;
    }
    let d = cfg.system.dof();
    let axes = plane.axes_text(d);
    let (x_name, y_name) = axes.split_once(',').unwrap_or((&axes, ""));
    let m = (cfg.ensemble.points as f64).sqrt().round() as usize;
    let [a, b] = plane.axes;
    // A 1 × 1 grid's point sits at the box's middle (`ensemble::generate`).
    let span = |i: usize| match m {
        1 => (0.5 * (lo[i] + hi[i]), 0.5 * (lo[i] + hi[i])),
        _ => (lo[i], hi[i]),
    };
    Some(GridFrame {
        x_label: x_name.into(),
        y_label: y_name.into(),
        x: span(a),
        y: span(b),
        side: m,
        surface: match plane.energy {
            Some(e) => format!(" on H = {}", crate::error::num(e)),
            None => String::new(),
        },
        on_surface: plane.energy.is_some(),
    })
}

/// Write map.png/svg into `target` when the run in `dir` has --chaos and a whole grid
/// ensemble (not one shard's slice of it); returns the files written.
pub fn write(cfg: &RunConfig, dir: &Path, target: &Path) -> Result<Vec<PathBuf>> {
    let Some(frame) = grid_frame(cfg) else {
        return Ok(Vec::new());
    };
    let Some((which, values)) = final_indicator(cfg, dir)? else {
        return Ok(Vec::new());
    };
    let (bar_label, range) = scale(which, &values);
    let t = cfg.steps as f64 * cfg.dt.abs();
    let missing = match frame.on_surface {
        true => "no value: no real p1 ≥ 0 on the energy surface, or blown up",
        false => "no value: blown up",
    };
    let what = format!("{} at t = {}", title(which), crate::error::num(t));
    let map = frame.map(
        cfg.system.name(),
        &what,
        values,
        range,
        bar_label,
        missing.into(),
    );
    Ok(write_map(&map, &target.join("map"))?.to_vec())
}
