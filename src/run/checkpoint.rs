//! Checkpoints: everything a run needs to continue from step k as if it had never stopped, in
//! one file, `DIR/checkpoint/run.ckpt`, written whole (temporary file and rename), so a kill at
//! any moment leaves either the previous checkpoint or the new one.
//!
//! The file: a first line `phaseflow checkpoint 2`, a line with the header's length in bytes,
//! the header (TOML: step, engine, sizes, bookkeeping, the run's config.toml as it was written,
//! and the name, type and length of each array), then the arrays as raw native-endian values in
//! the header's order: the engine's state at its precision (q, p, compensated summation's eq and
//! ep, unconverged counts), the per-point H0, L0, loop parameters and tangent scales, the
//! initial energies the GPU keeps for its own statistics, a single point's trajectory and the
//! portraits taken so far; last the seal, a CRC-32 of all before it (`crate::checksum`).
//! stats.csv is not copied: the header records its length and CRC-32 at the checkpoint, and
//! `resume` checks that prefix, cuts the file back to it and appends.
//!
//! Reading one back checks, before anything is used: that it is a regular file of a size the
//! memory can hold (a symlink to /dev/zero is refused, not read), its seal (a changed, cut or
//! swapped byte: "damaged"), then, in `resume`, that it belongs to this folder's run.
//! Format 1 (no seal, a hash of config.toml) is refused: such a run is run again from step 0.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::checksum::{self, crc32, Sealer};
use crate::error::{Error, Result};
use crate::float::Real;
use crate::measure::row::{read_rows, Row};
use crate::output::write_atomic_parts;
use crate::state::State;

/// The checkpoint folder in a run's folder, and its one file.
pub const DIR: &str = "checkpoint";
const FILE: &str = "run.ckpt";
const MAGIC: &str = "phaseflow checkpoint 2";
/// The first line of the format before the seal (refused).
const MAGIC_1: &str = "phaseflow checkpoint 1";

/// Without `--checkpoint-every`, a checkpoint after every this many seconds of work.
pub const DEFAULT_SECONDS: u64 = 600;

/// The path of a run folder's checkpoint file.
pub fn path(run_dir: &Path) -> PathBuf {
    run_dir.join(DIR).join(FILE)
}

/// What a run needs besides its configuration to continue from `step`.
#[derive(Debug, Clone)]
pub struct Checkpoint<T> {
    pub step: u64,
    /// "cpu" or "gpu": the engine kind that ran (resume uses the same one).
    pub engine: String,
    pub state: State<T>,
    pub h0: Vec<f64>,
    pub l0: Vec<[f64; 3]>,
    pub s: Vec<f64>,
    pub log2_scale: Vec<f64>,
    /// H̃(z0) per point (`--modified-hamiltonian`; else empty).
    pub mod_h0: Vec<f64>,
    /// The GPU's own initial energies (runs whose statistics the device reduces).
    pub device_h0: Option<Vec<f64>>,
    pub capped_at: Option<u64>,
    pub stuck_at: Option<u64>,
    /// Loop refinement's absolute distance (from the initial set's size).
    pub refine_dist: Option<f64>,
    pub trajectory: Vec<(f64, Vec<f64>)>,
    pub portraits: Vec<(u64, State<f64>)>,
    /// stats.csv's length in bytes at `step` (the rows of the snapshots up to it).
    pub stats_bytes: u64,
    /// The CRC-32 of those bytes: resume refuses a stats.csv changed before them.
    pub stats_crc: u32,
    /// config.toml as the run wrote it: resume refuses a changed configuration, or another
    /// run's checkpoint.
    pub config: String,
}

/// A checkpoint to write, borrowing the run's data (no copy of the state is made).
pub struct CheckpointRef<'a, T> {
    pub step: u64,
    pub engine: &'a str,
    pub state: &'a State<T>,
    pub h0: &'a [f64],
    pub l0: &'a [[f64; 3]],
    pub s: &'a [f64],
    pub log2_scale: &'a [f64],
    pub mod_h0: &'a [f64],
    pub device_h0: Option<&'a [f64]>,
    pub capped_at: Option<u64>,
    pub stuck_at: Option<u64>,
    pub refine_dist: Option<f64>,
    pub trajectory: &'a [(f64, Vec<f64>)],
    pub portraits: &'a [(u64, State<f64>)],
    pub stats_bytes: u64,
    pub stats_crc: u32,
    pub config: &'a str,
}

#[derive(Debug, Serialize, Deserialize)]
struct Header {
    step: u64,
    engine: String,
    precision: String,
    n: usize,
    d: usize,
    nt: usize,
    compensated: bool,
    capped_at: Option<u64>,
    stuck_at: Option<u64>,
    refine_dist: Option<f64>,
    stats_bytes: u64,
    stats_crc: u32,
    config: String,
    trajectory_len: usize,
    portrait_steps: Vec<u64>,
    portrait_points: Vec<usize>,
    device_h0: bool,
    /// (name, bytes per value, values), in the order the arrays follow the header.
    arrays: Vec<(String, usize, usize)>,
}

/// What to do when a run's checkpoint cannot be used: without one, `resume` runs the run again
/// from step 0.
pub fn restart_hint(run_dir: &Path) -> String {
    format!(
        "delete {} and `phaseflow resume {}` runs it again from step 0",
        run_dir.join(DIR).display(),
        run_dir.display()
    )
}

impl<T: Real> CheckpointRef<'_, T> {
    /// Write `run_dir/checkpoint/run.ckpt` whole.
    pub fn write(&self, run_dir: &Path) -> Result<()> {
        let st = self.state;
        let traj: Vec<f64> = self
            .trajectory
            .iter()
            .flat_map(|(t, z)| std::iter::once(*t).chain(z.iter().copied()))
            .collect();
        let portraits: Vec<f64> = self
            .portraits
            .iter()
            .flat_map(|(_, s)| s.q.iter().chain(&s.p).copied())
            .collect();
        let device_h0 = self.device_h0.unwrap_or(&[]);
        let parts: Vec<(&str, usize, &[u8])> = vec![
            ("q", size_of::<T>(), bytemuck::cast_slice(&st.q)),
            ("p", size_of::<T>(), bytemuck::cast_slice(&st.p)),
            ("eq", size_of::<T>(), bytemuck::cast_slice(&st.eq)),
            ("ep", size_of::<T>(), bytemuck::cast_slice(&st.ep)),
            ("unconverged", 4, bytemuck::cast_slice(&st.unconverged)),
            ("h0", 8, bytemuck::cast_slice(self.h0)),
            ("l0", 24, bytemuck::cast_slice(self.l0)),
            ("s", 8, bytemuck::cast_slice(self.s)),
            ("log2_scale", 8, bytemuck::cast_slice(self.log2_scale)),
            ("device_h0", 8, bytemuck::cast_slice(device_h0)),
            ("trajectory", 8, bytemuck::cast_slice(&traj)),
            ("portraits", 8, bytemuck::cast_slice(&portraits)),
            ("mod_h0", 8, bytemuck::cast_slice(self.mod_h0)),
            ("chaos", size_of::<T>(), bytemuck::cast_slice(&st.chaos)),
        ];
        let header = Header {
            step: self.step,
            engine: self.engine.to_string(),
            precision: T::NAME.into(),
            n: st.n,
            d: st.d,
            nt: st.nt,
            compensated: st.compensated(),
            capped_at: self.capped_at,
            stuck_at: self.stuck_at,
            refine_dist: self.refine_dist,
            stats_bytes: self.stats_bytes,
            stats_crc: self.stats_crc,
            config: self.config.to_string(),
            trajectory_len: self.trajectory.len(),
            portrait_steps: self.portraits.iter().map(|p| p.0).collect(),
            portrait_points: self.portraits.iter().map(|p| p.1.n).collect(),
            device_h0: self.device_h0.is_some(),
            arrays: parts
                .iter()
                .map(|(name, size, bytes)| (name.to_string(), *size, bytes.len() / size))
                .collect(),
        };
        let text = toml::to_string(&header).map_err(|e| Error::Output {
            path: path(run_dir),
            source: std::io::Error::other(e),
        })?;
        let head = format!("{MAGIC}\n{}\n{text}", text.len());
        let mut all: Vec<&[u8]> = vec![head.as_bytes()];
        all.extend(parts.iter().map(|p| p.2));
        let mut sealer = Sealer::default();
        all.iter().for_each(|bytes| sealer.update(bytes));
        let seal = sealer.seal();
        all.push(&seal);
        write_atomic_parts(&path(run_dir), &all)
    }
}

impl<T: Real> Checkpoint<T> {
    /// Read `run_dir/checkpoint/run.ckpt` (`None` when there is none), checking that it is a
    /// regular file the memory can hold, that its seal matches, and that it was written at
    /// precision T and is whole.
    pub fn read(run_dir: &Path) -> Result<Option<Self>> {
        let Some(bytes) = read_sealed(run_dir)? else {
            return Ok(None);
        };
        let file = path(run_dir);
        let bad = |m: String| Error::InputFile {
            path: file.clone(),
            message: format!("not a usable checkpoint: {m}"),
        };
        let (h, data) = split_header(&bytes).map_err(bad)?;
        if h.precision != T::NAME {
            return Err(bad(format!("written at {}, not {}", h.precision, T::NAME)));
        }
        let mut arrays = Arrays {
            header: &h,
            data,
            file: &file,
        };
        let (q, p, eq, ep) = (
            arrays.take::<T>("q")?,
            arrays.take::<T>("p")?,
            arrays.take::<T>("eq")?,
            arrays.take::<T>("ep")?,
        );
        let unconverged: Vec<u32> = arrays.take("unconverged")?;
        let h0: Vec<f64> = arrays.take("h0")?;
        let l0: Vec<[f64; 3]> = arrays.take("l0")?;
        let s: Vec<f64> = arrays.take("s")?;
        let log2_scale: Vec<f64> = arrays.take("log2_scale")?;
        let device_h0: Vec<f64> = arrays.take("device_h0")?;
        let traj: Vec<f64> = arrays.take("trajectory")?;
        let portraits: Vec<f64> = arrays.take("portraits")?;
        // Checkpoints written before the modified Hamiltonian's columns have no such array.
        let mod_h0: Vec<f64> = arrays.take_if_any("mod_h0")?;
        let chaos: Vec<T> = arrays.take_if_any("chaos")?;
        let comps = h.d * (1 + h.nt) * h.n;
        let sizes_ok = q.len() == comps
            && p.len() == comps
            && unconverged.len() == h.n
            && (!h.compensated || (eq.len() == comps && ep.len() == comps))
            && (!h.device_h0 || device_h0.len() == h.n)
            && (mod_h0.is_empty() || mod_h0.len() == h.n)
            && chaos.len().is_multiple_of(h.n.max(1))
            && traj.len() == h.trajectory_len * (1 + 2 * h.d)
            && portraits.len() == 2 * h.d * h.portrait_points.iter().sum::<usize>();
        if !sizes_ok {
            return Err(bad("its arrays do not match its header".into()));
        }
        let state = State {
            n: h.n,
            d: h.d,
            nt: h.nt,
            q,
            p,
            unconverged,
            eq,
            ep,
            chaos,
        };
        let portrait_states = split_portraits(&h, &portraits);
        Ok(Some(Checkpoint {
            step: h.step,
            engine: h.engine,
            state,
            h0,
            l0,
            s,
            log2_scale,
            mod_h0,
            device_h0: h.device_h0.then_some(device_h0),
            capped_at: h.capped_at,
            stuck_at: h.stuck_at,
            refine_dist: h.refine_dist,
            trajectory: traj
                .chunks(1 + 2 * h.d)
                .map(|c| (c[0], c[1..].to_vec()))
                .collect(),
            portraits: portrait_states,
            stats_bytes: h.stats_bytes,
            stats_crc: h.stats_crc,
            config: h.config,
        }))
    }
}

/// The contents of `run_dir`'s checkpoint before its seal (`None` when there is none), once it
/// is found to be a regular file the memory can hold, in this format, with a matching seal.
fn read_sealed(run_dir: &Path) -> Result<Option<Vec<u8>>> {
    let file = path(run_dir);
    // Anything at the path (a dangling symlink too) is read, and refused if unreadable.
    if let Err(e) = std::fs::symlink_metadata(&file) {
        if e.kind() == std::io::ErrorKind::NotFound {
            return Ok(None);
        }
    }
    let bad = |m: String| Error::InputFile {
        path: file.clone(),
        message: format!("not a usable checkpoint: {m}"),
    };
    // The resumed run holds the state again besides the file's bytes.
    let limit = crate::memory::available_memory().map_or(u64::MAX, |m| m / 2);
    let what = format!(
        "the checkpoint phaseflow wrote, or {}",
        restart_hint(run_dir)
    );
    let mut bytes = crate::ensemble::read_regular(&file, limit, &what).map_err(bad)?;
    if bytes.starts_with(format!("{MAGIC_1}\n").as_bytes()) {
        return Err(bad(format!(
            "written by an earlier version of phaseflow, in a format this one does not read; {}",
            restart_hint(run_dir)
        )));
    }
    let data = checksum::unseal(&bytes).ok_or_else(|| Error::InputFile {
        path: file.clone(),
        message: format!(
            "the checkpoint is damaged: its CRC-32 does not match its contents (changed or cut since it was written); {}",
            restart_hint(run_dir)
        ),
    })?;
    bytes.truncate(data.len());
    Ok(Some(bytes))
}

/// A checkpoint file's header and the bytes of its arrays after it.
fn split_header(bytes: &[u8]) -> std::result::Result<(Header, &[u8]), String> {
    let mut lines = bytes.splitn(3, |&b| b == b'\n');
    if lines.next() != Some(MAGIC.as_bytes()) {
        return Err("it does not start with the checkpoint line".into());
    }
    let len: usize = lines
        .next()
        .and_then(|l| std::str::from_utf8(l).ok())
        .and_then(|l| l.parse().ok())
        .ok_or("no header length")?;
    let rest = lines.next().unwrap_or(&[]);
    if rest.len() < len {
        return Err("truncated header".into());
    }
    let text = std::str::from_utf8(&rest[..len]).map_err(|e| e.to_string())?;
    let h: Header = toml::from_str(text).map_err(|e| e.to_string())?;
    Ok((h, &rest[len..]))
}

/// The arrays after a checkpoint's header, taken in the header's order.
struct Arrays<'a> {
    header: &'a Header,
    data: &'a [u8],
    file: &'a Path,
}

impl Arrays<'_> {
    /// Array `name` where the header lists it (the next array), else none.
    fn take_if_any<V: bytemuck::Pod>(&mut self, name: &str) -> Result<Vec<V>> {
        if self.header.arrays.iter().any(|a| a.0 == name) {
            self.take(name)
        } else {
            Ok(Vec::new())
        }
    }

    fn take<V: bytemuck::Pod>(&mut self, name: &str) -> Result<Vec<V>> {
        let bad = |m: String| Error::InputFile {
            path: self.file.to_path_buf(),
            message: format!("not a usable checkpoint: {m}"),
        };
        let (_, size, count) = self
            .header
            .arrays
            .iter()
            .find(|a| a.0 == name)
            .ok_or_else(|| bad(format!("no array {name}")))?;
        if *size != size_of::<V>() {
            return Err(bad(format!("array {name} has {size}-byte values")));
        }
        let n = size * count;
        if self.data.len() < n {
            return Err(bad(format!("truncated at array {name}")));
        }
        let (head, tail) = self.data.split_at(n);
        self.data = tail;
        Ok(bytemuck::pod_collect_to_vec(head))
    }
}

/// The portraits' states from their concatenated q and p values.
fn split_portraits(h: &Header, values: &[f64]) -> Vec<(u64, State<f64>)> {
    let mut at = 0;
    h.portrait_steps
        .iter()
        .zip(&h.portrait_points)
        .map(|(&step, &n)| {
            let m = n * h.d;
            let mut st = State::zeros(n, h.d);
            st.q = values[at..at + m].to_vec();
            st.p = values[at + m..at + 2 * m].to_vec();
            at += 2 * m;
            (step, st)
        })
        .collect()
}

/// `run_dir/stats.csv`'s first `bytes` bytes and their CRC-32; an input error saying what
/// changed when the file is missing, not a regular file or shorter.
fn stats_prefix(run_dir: &Path, bytes: u64) -> Result<(Vec<u8>, u32)> {
    use std::io::Read;
    let stats = run_dir.join("stats.csv");
    let changed = |what: &str| {
        crate::input_err!(
            "{} {what}; restore it, or {}",
            stats.display(),
            restart_hint(run_dir)
        )
    };
    let io = |source| Error::Output {
        path: stats.clone(),
        source,
    };
    // Not followed: resume appends to stats.csv, and a link put in its place would have it
    // write into whatever the link points to.
    let meta = match std::fs::symlink_metadata(&stats) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(changed(
                "is missing (deleted since the checkpoint was written)",
            ))
        }
        other => other.map_err(io)?,
    };
    if !meta.is_file() {
        return Err(changed(
            "is not a regular file (a link, a named pipe or a device put in its place since the checkpoint was written)",
        ));
    }
    let mut prefix = Vec::new();
    std::fs::File::open(&stats)
        .and_then(|f| f.take(bytes).read_to_end(&mut prefix))
        .map_err(io)?;
    if (prefix.len() as u64) < bytes {
        return Err(changed(&format!(
            "changed since the checkpoint was written (it is shorter than the {bytes} bytes the checkpoint records)"
        )));
    }
    let crc = crc32(&prefix);
    Ok((prefix, crc))
}

/// stats.csv cut back to its first `bytes` bytes (the rows up to the checkpoint), once their
/// CRC-32 is found to be the checkpoint's `crc`, and those rows read back (`read_rows`:
/// exact, the file holds shortest round-trip decimals).
pub fn rewind_stats(run_dir: &Path, bytes: u64, crc: u32) -> Result<Vec<Row>> {
    let stats = run_dir.join("stats.csv");
    let (prefix, found) = stats_prefix(run_dir, bytes)?;
    if found != crc {
        return Err(crate::input_err!(
            "{} changed since the checkpoint was written (its first {bytes} bytes, the rows up to the checkpoint, differ); restore it, or {}",
            stats.display(),
            restart_hint(run_dir)
        ));
    }
    // Checked: only now is the file cut back.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&stats)
        .and_then(|f| f.set_len(bytes))
        .map_err(|source| Error::Output {
            path: stats.clone(),
            source,
        })?;
    read_rows(&prefix).map_err(|e| Error::InputFile {
        path: stats,
        message: format!("malformed row before the checkpoint: {e}"),
    })
}

/// Where and when a run writes its checkpoints, and what they record besides the tracker.
pub(super) struct Checkpoints {
    /// The run's folder.
    pub(super) dir: PathBuf,
    /// "cpu" or "gpu".
    pub(super) engine: &'static str,
    /// The run's config.toml as written (checkpoints record it) and its CRC-32 (shard parts
    /// record that).
    pub(super) config: String,
    pub(super) config_crc: u32,
    /// `--checkpoint-every K` steps; `None`: every `checkpoint::DEFAULT_SECONDS` of work.
    every: Option<u64>,
    last: Instant,
}

impl Checkpoints {
    pub(super) fn new(
        dir: &Path,
        engine: &'static str,
        config: String,
        every: Option<u64>,
    ) -> Self {
        Checkpoints {
            dir: dir.to_path_buf(),
            engine,
            config_crc: crc32(config.as_bytes()),
            config,
            every,
            last: Instant::now(),
        }
    }

    /// Where the advance from `at` towards `target` stops for a checkpoint: the next multiple
    /// of K (or `target`).
    pub(super) fn next_stop(&self, at: u64, target: u64) -> u64 {
        self.every
            .map_or(target, |k| (at / k + 1).saturating_mul(k).min(target))
    }

    pub(super) fn time_due(&self) -> bool {
        self.every.is_none() && self.last.elapsed() >= Duration::from_secs(DEFAULT_SECONDS)
    }

    /// A checkpoint was just written: the time to the next one counts from now.
    pub(super) fn restart_clock(&mut self) {
        self.last = Instant::now();
    }

    /// A checkpoint is due at step `at`.
    pub(super) fn due(&self, at: u64) -> bool {
        match self.every {
            Some(k) => at.is_multiple_of(k),
            None => self.time_due(),
        }
    }
}
