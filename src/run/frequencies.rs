//! A finished run's frequency analysis (`--frequencies`): frequencies.npy (per point and
//! signal: the frequency over the whole run, over each half, and the diffusion index), the
//! frequency map (the first two signals' frequencies against each other, coloured by the
//! diffusion index: frequency-map.png/svg) and, over a grid ensemble, the diffusion map over
//! the initial grid (diffusion-map.png/svg). Frequencies are angular, in radians per unit of
//! time: the engines' radians per sample divided by the sample spacing `stride·dt`.

use std::path::{Path, PathBuf};

use crate::config::RunConfig;
use crate::engine::FrequencyTable;
use crate::error::Result;
use crate::observe::frequencies::FrequencySpec;
use crate::output::write_atomic;
use crate::plot::map::{write_map, Map, MISSING};
use crate::plot::{time_color, write_figure, Figure, Series, Style};

/// frequencies.npy's file name in a run's folder.
pub const FREQUENCIES_FILE: &str = "frequencies.npy";

/// Values per signal in frequencies.npy.
pub const PER_SIGNAL: usize = 4;

/// Colour bands of the frequency map.
const BANDS: usize = 8;

/// frequencies.npy's columns: per signal its frequency over the run, over the first and the
/// second half, and the diffusion index.
pub fn columns(spec: &FrequencySpec) -> Vec<String> {
    spec.signals
        .iter()
        .flat_map(|s| {
            let t = &s.text;
            [
                format!("nu_{t}"),
                format!("nu_{t}_first"),
                format!("nu_{t}_second"),
                format!("diffusion_{t}"),
            ]
        })
        .collect()
}

/// frequencies.npy's values, row-major (points × 4·signals), from the engine's `table`.
pub fn rows(cfg: &RunConfig, spec: &FrequencySpec, table: &FrequencyTable) -> Vec<f64> {
    let per_time = 1.0 / (spec.stride as f64 * cfg.dt);
    let mut out = Vec::with_capacity(table.values.len() * PER_SIGNAL);
    for v in &table.values {
        let nu = |k: usize| v[k].map_or(f64::NAN, |x| x * per_time);
        let (whole, first, second) = (nu(0), nu(1), nu(2));
        out.extend([whole, first, second, (first - second).abs().log10()]);
    }
    out
}

/// Each point's diffusion index over all signals: log10 of the length of the change of its
/// frequency vector between the halves (NaN where a signal has no value).
fn diffusion(spec: &FrequencySpec, data: &[f64]) -> Vec<f64> {
    let w = PER_SIGNAL * spec.signals.len();
    data.chunks_exact(w)
        .map(|row| {
            let sq: f64 = row
                .chunks_exact(PER_SIGNAL)
                .map(|s| (s[1] - s[2]) * (s[1] - s[2]))
                .sum();
            sq.sqrt().log10()
        })
        .collect()
}

/// The run's `table` with no value for the points a `--stop-when` condition stopped (their
/// samples after the stop would repeat the stopped state; NaN in frequencies.npy), from the
/// stop words of the engine's final state `state`.
pub(super) fn without_stopped<T: crate::float::Real>(
    cfg: &RunConfig,
    table: Option<FrequencyTable>,
    state: &crate::state::State<T>,
) -> Option<FrequencyTable> {
    let (mut table, column) = (table?, cfg.stop_column());
    for stop in column.map_or(Vec::new(), |c| crate::observe::stop::stops_of(state, c)) {
        let at = stop.point * table.signals;
        table.values[at..at + table.signals].fill([None; 3]);
    }
    Some(table)
}

/// Write frequencies.npy and the figures into `out`; returns the points without a value.
pub(super) fn write(cfg: &RunConfig, out: &Path, table: &FrequencyTable) -> Result<usize> {
    let Some(spec) = &cfg.frequencies else {
        return Ok(0);
    };
    let data = rows(cfg, spec, table);
    let w = PER_SIGNAL * spec.signals.len();
    let npy = crate::npy::encode(data.len() / w.max(1), w, &data);
    write_atomic(&out.join(FREQUENCIES_FILE), &npy)?;
    draw(cfg, spec, &data, out)?;
    let missing = data
        .chunks_exact(w)
        .filter(|r| r.iter().step_by(PER_SIGNAL).any(|v| !v.is_finite()))
        .count();
    let nyquist = std::f64::consts::PI / (spec.stride as f64 * cfg.dt);
    let near = data
        .chunks_exact(w)
        .filter(|r| {
            r.iter()
                .step_by(PER_SIGNAL)
                .any(|v| v.abs() > 0.9 * nyquist)
        })
        .count();
    if near > 0 {
        crate::note!(
            "phaseflow: {near} of {} points have a frequency within 10 % of the highest the samples resolve, π/(K·dt) = {} rad per time unit (K = {}): it may be a higher one folded back (aliasing); use a smaller --frequency-stride",
            table.points,
            crate::error::num(nyquist),
            spec.stride
        );
    }
    if missing > 0 {
        crate::note!(
            "phaseflow: {missing} of {} points have no frequency (a sample not finite: blown up, or not on the energy surface; or stopped by --stop-when); frequencies.npy holds NaN for them",
            table.points
        );
    }
    Ok(missing)
}

/// Draw frequency-map.png/svg and diffusion-map.png/svg into `target` again from the
/// frequencies.npy of the finished run `cfg` in `dir` (`phaseflow plot`); returns the files
/// written (none for a run without --frequencies). A frequencies.npy that is not the run's
/// (other columns, other points) is refused (exit 2).
pub fn redraw(cfg: &RunConfig, dir: &Path, target: &Path) -> Result<Vec<PathBuf>> {
    let Some(spec) = &cfg.frequencies else {
        return Ok(Vec::new());
    };
    let path = dir.join(FREQUENCIES_FILE);
    let bad = |message: String| crate::error::Error::InputFile {
        path: path.clone(),
        message,
    };
    let bytes = std::fs::read(&path).map_err(|e| bad(e.to_string()))?;
    let a = crate::npy::decode_f64(&bytes).map_err(bad)?;
    let cols = columns(spec);
    let n = cfg.ensemble.points;
    let points = cfg
        .shard
        .or(cfg.rank)
        .and_then(|s| s.range(n).ok())
        .map_or(n, |r| r.len());
    if a.cols != cols.len() || a.rows != points {
        return Err(bad(format!(
            "{} rows of {} columns, where the run writes {} rows (its points) of {} ({}); run it again to write it whole",
            a.rows,
            a.cols,
            points,
            cols.len(),
            cols.join(", ")
        )));
    }
    draw(cfg, spec, &a.data, target)
}

/// The figures of the frequencies `data` (frequencies.npy's values) into `target`.
pub fn draw(
    cfg: &RunConfig,
    spec: &FrequencySpec,
    data: &[f64],
    target: &Path,
) -> Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    let index = diffusion(spec, data);
    let finite: Vec<f64> = index.iter().copied().filter(|v| v.is_finite()).collect();
    let lo = finite.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = finite.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let range = if lo <= hi { (lo, hi) } else { (-16.0, 0.0) };
    if spec.signals.len() >= 2 {
        let fig = frequency_map(cfg, spec, data, &index, range);
        written.extend(write_figure(&fig, &target.join("frequency-map"))?);
    }
    if let Some(map) = diffusion_map(cfg, spec, index, range) {
        written.extend(write_map(&map, &target.join("diffusion-map"))?);
    }
    Ok(written)
}

/// The diffusion index's name in the pictures.
fn index_name(spec: &FrequencySpec) -> &'static str {
    match spec.signals.len() {
        1 => "diffusion index log10|ν₁ − ν₂| (halves)",
        _ => "diffusion index log10‖Δν‖ (halves)",
    }
}

/// The first two signals' frequencies against each other, coloured by `index` in bands.
fn frequency_map(
    cfg: &RunConfig,
    spec: &FrequencySpec,
    data: &[f64],
    index: &[f64],
    range: (f64, f64),
) -> Figure {
    let w = PER_SIGNAL * spec.signals.len();
    let (a, b) = (&spec.signals[0].text, &spec.signals[1].text);
    let mut fig = Figure::new(
        format!(
            "{}: frequency map at t = {}, coloured by log10‖Δν‖ (halves)",
            cfg.system.name(),
            crate::error::num(cfg.steps as f64 * cfg.dt)
        ),
        format!("ν of {a} (rad per time unit)"),
        format!("ν of {b} (rad per time unit)"),
    );
    let mut bands = vec![Vec::new(); BANDS + 1];
    for (row, &d) in data.chunks_exact(w).zip(index) {
        let (x, y) = (row[0], row[PER_SIGNAL]);
        if x.is_finite() && y.is_finite() {
            bands[band(d, range)].push((x, y));
        }
    }
    fig.series = bands
        .into_iter()
        .enumerate()
        .rev()
        .filter(|(_, p)| !p.is_empty())
        .map(|(k, points)| {
            let (label, color) = match k == BANDS {
                true => ("halves agree to the last bit".to_string(), MISSING),
                false => (
                    band_label(k, range),
                    time_color(k as f64 / (BANDS - 1) as f64),
                ),
            };
            Series {
                color: Some(color),
                ..Series::new(label, points, Style::Markers)
            }
        })
        .collect();
    fig
}

/// The diffusion index over the initial grid (a whole grid ensemble only).
fn diffusion_map(
    cfg: &RunConfig,
    spec: &FrequencySpec,
    index: Vec<f64>,
    range: (f64, f64),
) -> Option<Map> {
    let frame = super::chaos_map::grid_frame(cfg)?;
    let name = index_name(spec);
    let what = format!(
        "{name} at t = {}",
        crate::error::num(cfg.steps as f64 * cfg.dt)
    );
    Some(
        frame.map(
            cfg.system.name(),
            &what,
            index,
            range,
            name.into(),
            "no value: blown up, no point on the energy surface, or halves equal to the last bit"
                .into(),
        ),
    )
}

/// A diffusion index's colour band on `range` (`BANDS` for a non-finite one).
fn band(v: f64, (lo, hi): (f64, f64)) -> usize {
    if !v.is_finite() {
        return BANDS;
    }
    if hi <= lo {
        return 0;
    }
    (((v - lo) / (hi - lo)) * BANDS as f64).clamp(0.0, (BANDS - 1) as f64) as usize
}

fn band_label(k: usize, (lo, hi): (f64, f64)) -> String {
    let at = |j: usize| lo + (hi - lo) * j as f64 / BANDS as f64;
    format!("{:.1} to {:.1}", at(k), at(k + 1))
}
