//! A finished run's Poincaré section: section.npy (`Crossings::rows`), section.png/svg
//! (`plot::section`; with --chaos coloured by each point's final indicator), and the crossings
//! past `--section-max` said on stderr. The figure is drawn from section.npy's rows, by the run
//! and by `phaseflow plot` (`redraw`) alike, so both write the same bytes.

use std::ops::Range;
use std::path::{Path, PathBuf};

use crate::config::{RunConfig, Store};
use crate::error::{Error, Result};
use crate::output::write_atomic;
use crate::plot::section::{section_figure, Colour};
use crate::section::{Crossings, Section};

/// section.npy's file name in a run's folder.
pub const SECTION_FILE: &str = "section.npy";

/// Write the section of the run `cfg` into `out`; returns the crossings past the cap.
pub(super) fn write(cfg: &RunConfig, out: &Path, c: &Crossings) -> Result<u64> {
    let first = points(cfg).start;
    let (rows, data) = c.rows(cfg.dt, first);
    match cfg.store {
        Store::Npy => {
            let npy = crate::npy::encode(rows, c.section.columns().len(), &data);
            write_atomic(&out.join(SECTION_FILE), &npy)?;
        }
        Store::Zarr => {
            let columns = column_names(cfg, &c.section);
            super::store::write_table(cfg, out, "section", &columns, &data)?;
        }
    }
    draw(cfg, &c.section, first..first + c.n, &data, out, out)?;
    let (over, points) = c.over_cap();
    if over > 0 {
        crate::note!(
            "phaseflow: warning: {over} crossings of {points} points past --section-max {} were counted but not kept; raise --section-max to keep them",
            c.section.max
        );
    }
    Ok(over)
}

/// Draw section.png/svg into `target` again from the section.npy (and, with --chaos, the
/// final indicators) of the finished run `cfg` in `dir`; returns the files written (none for
/// a run without --section). A section.npy that is not the run's is refused (exit 2).
pub fn redraw(cfg: &RunConfig, dir: &Path, target: &Path) -> Result<Vec<PathBuf>> {
    let Some(sec) = &cfg.section else {
        return Ok(Vec::new());
    };
    let path = dir.join(SECTION_FILE);
    let bad = |message: String| Error::InputFile {
        path: path.clone(),
        message,
    };
    let a = match cfg.store {
        Store::Zarr => super::store::read_table(dir, "section")?
            .ok_or_else(|| bad("no section in the run's store; run it again".into()))?,
        Store::Npy => {
            let bytes = std::fs::read(&path).map_err(|e| bad(e.to_string()))?;
            crate::npy::decode_f64(&bytes).map_err(bad)?
        }
    };
    let cols = sec.columns();
    if a.cols != cols.len() {
        return Err(bad(format!(
            "{} columns, where the section {} writes {} ({}); run it again to write it whole",
            a.cols,
            sec.text(),
            cols.len(),
            cols.join(", ")
        )));
    }
    let range = points(cfg);
    let stray = a.data.chunks_exact(a.cols).position(|row| {
        let p = row[0];
        !(p.fract() == 0.0 && p >= range.start as f64 && p < range.end as f64)
    });
    if let Some(r) = stray {
        return Err(bad(format!(
            "row {r}: point index {} is not one of the run's points {}..{}; run it again to write it whole",
            a.data[r * a.cols],
            range.start,
            range.end.saturating_sub(1)
        )));
    }
    draw(cfg, sec, range, &a.data, dir, target)
}

/// The names of the section's columns as the store's `column` holds them: `point`,
/// `crossing`, `t`, then the other components by the system's names (`Section::others`).
fn column_names(cfg: &RunConfig, sec: &Section) -> Vec<String> {
    let names = cfg.system.component_names();
    let mut c: Vec<String> = ["point", "crossing", "t"].map(String::from).into();
    c.extend(
        sec.others()
            .into_iter()
            .map(|(m, k)| names[usize::from(m) * sec.d + k].clone()),
    );
    c
}

/// The ensemble's points the run's section covers (a shard's keep their indices in the
/// whole ensemble).
fn points(cfg: &RunConfig) -> Range<usize> {
    let n = cfg.ensemble.points;
    cfg.shard
        .or(cfg.rank)
        .and_then(|s| s.range(n).ok())
        .unwrap_or(0..n)
}

/// section.png/svg into `target` of the crossings `rows` (section.npy's) of the points
/// `points`, coloured by the final indicator in `dir` with --chaos, else by point index.
fn draw(
    cfg: &RunConfig,
    sec: &Section,
    points: Range<usize>,
    rows: &[f64],
    dir: &Path,
    target: &Path,
) -> Result<Vec<PathBuf>> {
    // With --chaos the crossings take their point's final MEGNO (or λ), on the map's scale.
    let chaos = super::chaos_map::final_indicator(cfg, dir)?;
    let colour = match &chaos {
        Some((which, values)) => {
            if values.len() != points.len() {
                return Err(Error::InputFile {
                    path: super::chaos_map::final_path(cfg, dir),
                    message: format!(
                        "{} rows, where the run has {} points",
                        values.len(),
                        points.len()
                    ),
                });
            }
            let (name, range) = super::chaos_map::scale(*which, values);
            Colour::Value {
                name,
                values,
                range,
            }
        }
        None => Colour::Point,
    };
    let fig = section_figure(sec, points, rows, colour);
    Ok(crate::plot::write_figure(&fig, &target.join("section"))?.to_vec())
}
