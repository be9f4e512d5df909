//! A finished run read back from its files: the statistics rows of stats.csv, the single
//! point's path in trajectory.csv and a few of the states in states/step_<k>.npy, as the
//! `RunSummary` the run returned, so `plot` draws them with the study's figure code.

use std::path::{Path, PathBuf};

use crate::config::RunConfig;
use crate::error::{Error, Result};
use crate::measure::row::{read_rows, Row};
use crate::npy;
use crate::output::folder;
use crate::run::RunSummary;
use crate::state::State;

/// Portraits drawn from a run's saved states: as many as a study draws by default, evenly
/// spread over the snapshots (the first and the last always among them).
const PORTRAITS: usize = 5;

/// Largest file read back (stats.csv of a million snapshots is about 300 MB; a state file
/// of 10⁷ f64 points at d = 3 is 480 MB).
const MAX_FILE_BYTES: u64 = 1 << 31;

fn file_err(path: &Path, message: impl Into<String>) -> Error {
    Error::InputFile {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

fn read(path: &Path, what: &str) -> Result<Vec<u8>> {
    crate::ensemble::read_regular(path, MAX_FILE_BYTES, what).map_err(|m| file_err(path, m))
}

/// A CSV file as its header and rows of cells.
fn read_csv(path: &Path, what: &str) -> Result<(csv::StringRecord, Vec<csv::StringRecord>)> {
    let bytes = read(path, what)?;
    let mut reader = csv::Reader::from_reader(bytes.as_slice());
    let malformed = |e: csv::Error| file_err(path, format!("malformed {what}: {e}"));
    let header = reader.headers().map_err(malformed)?.clone();
    let rows = reader
        .records()
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(malformed)?;
    Ok((header, rows))
}

/// stats.csv's rows (at least the step-0 row), each read back into the `Row` that wrote it
/// (columns by name; an empty cell is a value that was not measured).
pub(super) fn read_stats(path: &Path) -> Result<Vec<Row>> {
    let bytes = read(path, "stats.csv")?;
    let rows = read_rows(&bytes).map_err(|e| file_err(path, e))?;
    if rows.is_empty() {
        return Err(file_err(path, "no statistics rows"));
    }
    Ok(rows)
}

/// trajectory.csv: (t, q1..qd p1..pd) per snapshot (its energy column is not needed).
pub(super) fn read_trajectory(path: &Path, d: usize) -> Result<Vec<(f64, Vec<f64>)>> {
    let (header, rows) = read_csv(path, "trajectory.csv")?;
    if header.len() != 2 + 2 * d {
        return Err(file_err(
            path,
            format!(
                "expected {} columns (t, q1..q{d}, p1..p{d}, energy), found {}",
                2 + 2 * d,
                header.len()
            ),
        ));
    }
    rows.iter()
        .enumerate()
        .map(|(i, row)| {
            let values = row
                .iter()
                .take(1 + 2 * d)
                .map(|cell| cell.parse::<f64>())
                .collect::<std::result::Result<Vec<f64>, _>>()
                .map_err(|e| file_err(path, format!("row {}: {e}", i + 1)))?;
            Ok((values[0], values[1..].to_vec()))
        })
        .collect()
}

/// `PORTRAITS` indices out of `len`, evenly spread, first and last included.
fn spread(len: usize) -> Vec<usize> {
    let k = len.min(PORTRAITS);
    let mut idx: Vec<usize> = (0..k)
        .map(|j| {
            if k == 1 {
                0
            } else {
                (j * (len - 1) + (k - 1) / 2) / (k - 1)
            }
        })
        .collect();
    idx.dedup();
    idx
}

/// The saved states (states/step_<k>.npy) as (step, file), in step order.
fn saved_states(dir: &Path) -> Result<Vec<(u64, PathBuf)>> {
    let states = dir.join("states");
    if !states.is_dir() {
        return Ok(Vec::new());
    }
    let entries = std::fs::read_dir(&states).map_err(|e| file_err(&states, e.to_string()))?;
    let mut found = Vec::new();
    for entry in entries {
        let path = entry.map_err(|e| file_err(&states, e.to_string()))?.path();
        let step = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_prefix("step_")?.strip_suffix(".npy")?.parse().ok());
        if let Some(step) = step {
            found.push((step, path));
        }
    }
    found.sort_unstable();
    Ok(found)
}

/// The phase portraits' states: up to `PORTRAITS` of the saved states, evenly spread; a run
/// without saved states but with a single point's path takes its points from the path.
/// Empty when neither is there.
pub(super) fn read_portraits(
    dir: &Path,
    d: usize,
    dt: f64,
    trajectory: &[(f64, Vec<f64>)],
) -> Result<Vec<(u64, State<f64>)>> {
    let saved = saved_states(dir)?;
    if saved.is_empty() {
        return Ok(spread(trajectory.len())
            .into_iter()
            .map(|i| {
                let (t, z) = &trajectory[i];
                (
                    (t / dt).round() as u64,
                    State::from_rows(std::slice::from_ref(z), d),
                )
            })
            .collect());
    }
    spread(saved.len())
        .into_iter()
        .map(|i| {
            let (step, path) = &saved[i];
            Ok((*step, read_state(path, d)?))
        })
        .collect()
}

/// A saved state, states/step_<k>.npy: N rows of q1..qd, p1..pd in f64.
fn read_state(path: &Path, d: usize) -> Result<State<f64>> {
    let array =
        npy::decode_f64(&read(path, "a saved state (.npy)")?).map_err(|m| file_err(path, m))?;
    if array.cols != 2 * d {
        return Err(file_err(
            path,
            format!(
                "expected {} columns (q1..qd, p1..pd), found {}",
                2 * d,
                array.cols
            ),
        ));
    }
    let rows: Vec<Vec<f64>> = array.data.chunks(array.cols).map(<[f64]>::to_vec).collect();
    Ok(State::from_rows(&rows, d))
}

/// What the run's manifest notes of its loop refinement: the steps where it hit the node cap
/// and where a gap could not be refined (none for runs written before the notes existed).
pub(super) fn refine_notes(dir: &Path) -> (Option<u64>, Option<u64>) {
    let notes = folder::manifest_notes(dir);
    let note = |key: &str| notes.iter().find(|(k, _)| k == key).map(|(_, v)| *v);
    (note("refine_capped_at_step"), note("refine_stuck_at_step"))
}

/// A finished run of a study read back as the `RunSummary` it returned (a resumed study does
/// not run it again): stats.csv's rows, trajectory.csv, the portraits at the study's portrait
/// steps from states/step_<k>.npy, the engine from config.toml, and the refinement notes of its
/// manifest. Every value is read back exactly (the files hold shortest round-trip decimals and
/// f64 arrays).
pub(super) fn run_summary(cfg: &RunConfig, dir: &Path) -> Result<RunSummary> {
    let d = cfg.system.dof();
    let trajectory_path = dir.join("trajectory.csv");
    let trajectory = if trajectory_path.is_file() {
        read_trajectory(&trajectory_path, d)?
    } else {
        Vec::new()
    };
    let snapshots = cfg.snapshot_steps();
    let portraits = snapshots
        .iter()
        .filter(|s| cfg.portrait_steps.contains(s))
        .map(|&step| {
            let path = dir.join("states").join(format!("step_{step}.npy"));
            Ok((step, read_state(&path, d)?))
        })
        .collect::<Result<Vec<_>>>()?;
    let (refine_capped_at, refine_stuck_at) = refine_notes(dir);
    let rows = read_stats(&dir.join("stats.csv"))?;
    let exits = match rows.last() {
        Some(last) => crate::run::basins::tally(cfg, dir, last)?,
        None => None,
    };
    Ok(RunSummary {
        accuracy: Vec::new(),
        engine: engine_used(&dir.join("config.toml"))?,
        method: cfg.method.name(),
        rows,
        out: dir.to_path_buf(),
        refine_capped_at,
        refine_stuck_at,
        portraits,
        trajectory,
        final_state: None,
        memory: None,
        exits,
    })
}

/// The engine a run's config.toml says it used (its `# engine used:` line).
pub(super) fn engine_used(config: &Path) -> Result<String> {
    let text = String::from_utf8(read(config, "config.toml")?)
        .map_err(|e| file_err(config, e.to_string()))?;
    Ok(text
        .lines()
        .find_map(|l| l.strip_prefix("# engine used: "))
        .unwrap_or("not recorded")
        .to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn portraits_spread_over_the_snapshots_with_both_ends() {
        assert_eq!(spread(0), Vec::<usize>::new());
        assert_eq!(spread(1), [0]);
        assert_eq!(spread(3), [0, 1, 2]);
        assert_eq!(spread(5), [0, 1, 2, 3, 4]);
        assert_eq!(spread(101), [0, 25, 50, 75, 100]);
        assert_eq!(spread(7), [0, 2, 3, 5, 6]);
    }
}
