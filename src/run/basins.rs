//! Exits of a run with `--stop-when` (each condition one exit, e.g. the three channels of
//! Hénon–Heiles above the escape energy): the number and fraction of points that left by each
//! exit and of those that did not (`exits.csv`, and the lines `run` prints), and over a whole
//! grid ensemble the exit-basin map (`basins.png/svg`, each grid point in the colour of its
//! exit) and the escape-time map (`escape_time.png/svg`). Everything is read back from the
//! folder's files (config.toml's run, stops.npy and the last row of stats.csv), so `run`,
//! `merge` and `phaseflow plot DIR` give the same files.

use std::path::{Path, PathBuf};

use crate::config::{RunConfig, Store};
use crate::error::{Error, Result};
use crate::measure::energy::columns::FINITE;
use crate::measure::row::Row;
use crate::output::write_atomic;
use crate::plot::map::{write_category_map, write_map};
use crate::plot::palette_color;

use super::chaos_map::grid_frame;
use super::stops::{COLUMNS, STOPS_FILE};

/// The file's name in the run's folder.
pub const EXITS_FILE: &str = "exits.csv";

/// The colour of the grid points that left by no exit.
const UNESCAPED: (u8, u8, u8) = (20, 20, 20);

/// Where the points of a run went: per condition the points it stopped, the points still
/// running with a finite state (not escaped) and those without a finite value that no
/// condition stopped (off an energy surface from the start, or blown up). The fractions are
/// over the points with a value: the stopped ones and the ones not escaped.
#[derive(Debug, Clone, PartialEq)]
pub struct Exits {
    pub conditions: Vec<String>,
    pub stopped: Vec<u64>,
    pub unescaped: u64,
    pub without_value: u64,
    /// The run's end time.
    pub t_end: f64,
}

impl Exits {
    /// The points with a value: the fractions' denominator.
    pub fn counted(&self) -> u64 {
        self.stopped.iter().sum::<u64>() + self.unescaped
    }

    /// The fraction of the counted points that left by each exit, and that did not: together
    /// one (all zero without counted points).
    pub fn fractions(&self) -> (Vec<f64>, f64) {
        let n = self.counted().max(1) as f64;
        (
            self.stopped.iter().map(|&k| k as f64 / n).collect(),
            self.unescaped as f64 / n,
        )
    }

    /// `exits.csv`: exit (1, 2, …, then `none`), condition, points and fraction; a last row
    /// `no value` with its points and an empty fraction where some points had none.
    fn csv(&self) -> Result<Vec<u8>> {
        let mut w = csv::Writer::from_writer(Vec::new());
        let (fractions, none) = self.fractions();
        let mut rows = vec![[
            "exit".to_string(),
            "condition".into(),
            "points".into(),
            "fraction".into(),
        ]];
        for (j, (c, (&k, f))) in (self.conditions.iter())
            .zip(self.stopped.iter().zip(&fractions))
            .enumerate()
        {
            rows.push([(j + 1).to_string(), c.clone(), k.to_string(), f.to_string()]);
        }
        rows.push([
            "none".into(),
            String::new(),
            self.unescaped.to_string(),
            none.to_string(),
        ]);
        if self.without_value > 0 {
            rows.push([
                "no value".into(),
                String::new(),
                self.without_value.to_string(),
                String::new(),
            ]);
        }
        for r in &rows {
            w.write_record(r).map_err(|e| crate::input_err!("{e}"))?;
        }
        w.into_inner().map_err(|e| crate::input_err!("{e}"))
    }

    /// The lines `run` prints: each exit's fraction, then the points that left by none.
    pub fn lines(&self) -> Vec<String> {
        let (fractions, none) = self.fractions();
        let mut lines = vec![format!(
            "exits (fractions of the {} points with a value{}):",
            self.counted(),
            match self.without_value {
                0 => String::new(),
                k => format!("; {k} without one left out"),
            }
        )];
        for (j, (c, (&k, f))) in (self.conditions.iter())
            .zip(self.stopped.iter().zip(&fractions))
            .enumerate()
        {
            lines.push(format!("  exit {} ({c}): {k} points, {f:.4}", j + 1));
        }
        lines.push(format!(
            "  none by t = {}: {} points, {none:.4}",
            crate::error::num(self.t_end),
            self.unescaped
        ));
        lines
    }
}

/// `dir`/stops.npy decoded (point, step, t, condition per row), or with `--store zarr` the
/// store's `stops`.
fn read_stops(cfg: &RunConfig, dir: &Path) -> Result<crate::npy::Array2> {
    let path = dir.join(STOPS_FILE);
    let bad = |message: String| Error::InputFile {
        path: path.clone(),
        message,
    };
    let a = match cfg.store {
        Store::Zarr => super::store::read_table(dir, "stops")?.ok_or_else(|| Error::InputFile {
            path: dir.join(super::store::STORE_DIR),
            message: "no stops in the store; run it again to write it whole".into(),
        })?,
        Store::Npy => {
            let bytes = std::fs::read(&path).map_err(|e| bad(e.to_string()))?;
            crate::npy::decode_f64(&bytes).map_err(bad)?
        }
    };
    match a.cols == COLUMNS || a.rows == 0 {
        true => Ok(a),
        false => Err(bad(format!("{} columns, not {COLUMNS}", a.cols))),
    }
}

/// The exits of the run in `dir` (None without --stop-when, or for one shard's slice of a
/// run; under MPI rank 0 has every rank's stops and statistics), from its stops.npy and the
/// last statistics row `last`.
pub fn tally(cfg: &RunConfig, dir: &Path, last: &Row) -> Result<Option<Exits>> {
    let Some(stops) = &cfg.stops else {
        return Ok(None);
    };
    if cfg.shard.is_some() {
        return Ok(None);
    }
    let a = read_stops(cfg, dir)?;
    let conditions = stops.texts();
    let mut stopped = vec![0u64; conditions.len()];
    for r in 0..a.rows {
        let c = a.data[r * COLUMNS + 3] as usize;
        if let Some(k) = stopped.get_mut(c) {
            *k += 1;
        }
    }
    let unescaped = last.count(&FINITE).unwrap_or(0);
    let total: u64 = stopped.iter().sum::<u64>() + unescaped;
    Ok(Some(Exits {
        conditions,
        stopped,
        unescaped,
        without_value: last.points.saturating_sub(total),
        t_end: cfg.steps as f64 * cfg.dt.abs(),
    }))
}

/// Write `out`/exits.csv for the run there (nothing without --stop-when or for a shard); the
/// exits written.
pub fn write_exits(cfg: &RunConfig, out: &Path, last: &Row) -> Result<Option<Exits>> {
    let Some(exits) = tally(cfg, out, last)? else {
        return Ok(None);
    };
    write_atomic(&out.join(EXITS_FILE), &exits.csv()?)?;
    Ok(Some(exits))
}

/// Over a whole grid ensemble with --stop-when: basins.png/svg (each grid point in its exit's
/// colour, black where it left by none, grey without a value) and escape_time.png/svg (the
/// time each point stopped at, the colours from 0 to the latest), from `dir`'s stops.npy, into `target`; the files written.
pub fn write_maps(cfg: &RunConfig, dir: &Path, target: &Path) -> Result<Vec<PathBuf>> {
    let (Some(stops), Some(frame)) = (&cfg.stops, grid_frame(cfg)) else {
        return Ok(Vec::new());
    };
    let a = read_stops(cfg, dir)?;
    let n = cfg.ensemble.points;
    // The grid's own points: those without a value (off the energy surface) are NaN.
    let start = cfg.ensemble.generate(&cfg.system, cfg.dt)?;
    let k = stops.conditions.len();
    let mut exit: Vec<f64> = (0..n)
        .map(|i| match start.q[i].is_finite() {
            true => k as f64,
            false => f64::NAN,
        })
        .collect();
    let mut time = vec![f64::NAN; n];
    for r in 0..a.rows {
        let row = &a.data[r * COLUMNS..(r + 1) * COLUMNS];
        let i = row[0] as usize;
        if i < n {
            exit[i] = row[3];
            time[i] = row[2];
        }
    }
    let t_end = cfg.steps as f64 * cfg.dt.abs();
    // The colours span the escape times taken (most points leave long before the end).
    let latest = time
        .iter()
        .copied()
        .filter(|t| t.is_finite())
        .fold(0.0, f64::max);
    let mut legend: Vec<((u8, u8, u8), String)> = (0..k)
        .map(|j| (palette_color(j), format!("exit {}", j + 1)))
        .collect();
    legend.push((UNESCAPED, "none".into()));
    let base = |title: &str, values: Vec<f64>, missing: &str| {
        let bar = "escape time t".to_string();
        frame.map(
            cfg.system.name(),
            title,
            values,
            (0.0, latest),
            bar,
            missing.into(),
        )
    };
    let no_value = match frame.on_surface {
        true => "no value: no real p1 ≥ 0 on the energy surface",
        false => "no value",
    };
    let t = crate::error::num(t_end);
    let basins = base(&format!("exit basins to t = {t}"), exit, no_value);
    let mut files = write_category_map(&basins, &legend, &target.join("basins"))?.to_vec();
    let escape = base(
        "escape time",
        time,
        &format!("no escape by t = {t}, or {no_value}"),
    );
    files.extend(write_map(&escape, &target.join("escape_time"))?);
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fractions_of_the_exits_and_the_unescaped_sum_to_one() {
        let e = Exits {
            conditions: vec!["q2 > 2".into(), "q1 > 2".into()],
            stopped: vec![3, 5],
            unescaped: 2,
            without_value: 7,
            t_end: 10.0,
        };
        let (f, none) = e.fractions();
        assert_eq!((f.clone(), none), (vec![0.3, 0.5], 0.2));
        assert!((f.iter().sum::<f64>() + none - 1.0).abs() < 1e-15);
        let text = String::from_utf8(e.csv().unwrap()).unwrap();
        assert_eq!(
            text,
            "exit,condition,points,fraction\n1,q2 > 2,3,0.3\n2,q1 > 2,5,0.5\nnone,,2,0.2\nno value,,7,\n"
        );
        assert!(e.lines()[0].contains("10 points with a value; 7 without one"));
    }
}
