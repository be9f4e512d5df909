//! What a finished run writes into its folder after its snapshots (`write_run_files`):
//! trajectory.csv, the portraits, the section, the frequencies, the chaos map, the exits and
//! their maps, the store's completion, and last the manifest that marks the folder complete.

use std::path::Path;

use crate::config::RunConfig;
use crate::engine::FrequencyTable;
use crate::error::{Error, Result};
use crate::float::Real;
use crate::output::{folder, npy, write_atomic};
use crate::section::Crossings;
use crate::system::System;

use super::checkpoint;
use super::tracker::Tracker;

/// What a finished run writes after its snapshots: trajectory.csv, portraits, the section, the
/// chaos map, the exits and their maps (with the last row `last`), and the manifest that
/// marks the folder complete (its checkpoint removed first); the exits.
pub(super) fn write_run_files<T: Real>(
    cfg: &RunConfig,
    out: &Path,
    tracker: &Tracker<T>,
    (crossings, frequencies): (Option<&Crossings>, Option<&FrequencyTable>),
    last: Option<&crate::measure::row::Row>,
) -> Result<Option<super::basins::Exits>> {
    if !tracker.trajectory.is_empty() {
        write_trajectory(
            &out.join("trajectory.csv"),
            &cfg.system,
            cfg.dt,
            &tracker.trajectory,
        )?;
    }
    // Phase portraits (studies) belong to the run's folder, before its manifest.
    for (step, st) in &tracker.portraits {
        let path = out.join("states").join(format!("step_{step}.npy"));
        write_atomic(&path, &npy::encode_state(st))?;
    }
    // The run is complete: its checkpoint is not needed any more.
    let ckpt_dir = out.join(checkpoint::DIR);
    if ckpt_dir.exists() {
        std::fs::remove_dir_all(&ckpt_dir).map_err(|source| Error::Output {
            path: ckpt_dir,
            source,
        })?;
    }
    let over_cap = match crossings {
        Some(c) => Some(super::section::write(cfg, out, c)?),
        None => None,
    };
    super::chaos_map::write(cfg, out, out)?;
    if let Some(f) = frequencies {
        super::frequencies::write(cfg, out, f)?;
    }
    let exits = match last {
        Some(last) => super::basins::write_exits(cfg, out, last)?,
        None => None,
    };
    super::basins::write_maps(cfg, out, out)?;
    super::store::finish(cfg, out)?;
    let notes: Vec<(&str, u64)> = [
        ("refine_capped_at_step", tracker.capped_at),
        ("refine_stuck_at_step", tracker.stuck_at),
        ("section_crossings_over_cap", over_cap),
    ]
    .into_iter()
    .filter_map(|(k, v)| v.map(|v| (k, v)))
    .collect();
    folder::write_manifest_noting(out, &notes)?;
    Ok(exits)
}

/// trajectory.csv: t, then q1..qd, p1..pd of the single point, then H (f64), per snapshot.
fn write_trajectory(path: &Path, system: &System, dt: f64, traj: &[(f64, Vec<f64>)]) -> Result<()> {
    let d = system.dof();
    let mut header = vec!["t".to_string()];
    header.extend((1..=d).map(|k| format!("q{k}")));
    header.extend((1..=d).map(|k| format!("p{k}")));
    header.push("energy".into());
    let mut w = csv::Writer::from_writer(Vec::new());
    let io = |e: csv::Error| Error::Output {
        path: path.to_path_buf(),
        source: std::io::Error::other(e),
    };
    w.write_record(&header).map_err(io)?;
    for (t, z) in traj {
        let mut rec = vec![format!("{t}")];
        rec.extend(z.iter().map(|x| format!("{x}")));
        rec.push(format!("{}", system.energy(dt, &z[..d], &z[d..])));
        w.write_record(&rec).map_err(io)?;
    }
    let bytes = w.into_inner().map_err(|e| io(e.into_error().into()))?;
    write_atomic(path, &bytes)
}
