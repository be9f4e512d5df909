//! `bench --peers`: the C peer timed in the same run as phaseflow's engines.
//!
//! The peer (`benches/pendulum_c_peer.c`, kept as its author wrote it) is what a
//! performance-minded user writes in twenty lines of C: symplectic Euler A on the pendulum
//! (m = g = l = 1, h = 0.01), OpenMP over blocks of 4 096 points, `#pragma omp simd` inside,
//! built with `-O3 -march=native -ffast-math -fopenmp` (glibc's vector sine). Its points start
//! on q ∈ [−1, 1], p = 0 rather than on phaseflow's disk: the work per step is the same (one
//! sine, two multiply–adds per point). It times its own loop (`omp_get_wtime`, allocation
//! and initialisation excluded) and prints `seconds=… point_steps_per_s=…`, which this module
//! reads. The source is compiled into phaseflow, written to a temporary folder and built there
//! with the C compiler `$CC` (default `cc`) on first use.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::{Error, Field, Result};
use crate::invalid;

/// The peer's source, as shipped in `benches/`.
const SOURCE: &str = include_str!("../../../benches/pendulum_c_peer.c");

/// The peer's build flags (its header's build line), then the precision's macros.
const FLAGS: &[&str] = &["-O3", "-march=native", "-ffast-math", "-fopenmp"];

/// The C peer built for both precisions, in a temporary folder removed on drop.
pub struct CPeer {
    folder: PathBuf,
    compiler: String,
}

impl Drop for CPeer {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.folder);
    }
}

/// A new folder of this process under the system's temporary folder (never one that exists).
fn new_folder() -> Result<PathBuf> {
    let base = std::env::temp_dir();
    let mut last = None;
    for k in 0..100 {
        let folder = base.join(format!("phaseflow-c-peer-{}-{k}", std::process::id()));
        match std::fs::create_dir(&folder) {
            Ok(()) => return Ok(folder),
            Err(e) => last = Some(e),
        }
    }
    Err(Error::Output {
        path: base,
        source: last.expect("tried at least once"),
    })
}

impl CPeer {
    /// Write the source and build it for f32 and f64; an input error (exit 2) naming the fix
    /// when there is no C compiler or it cannot build OpenMP code.
    pub fn build() -> Result<CPeer> {
        let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".into());
        // Owned at once, so that the folder is removed whatever fails next.
        let peer = CPeer {
            folder: new_folder()?,
            compiler,
        };
        let source = peer.folder.join("pendulum_c_peer.c");
        std::fs::write(&source, SOURCE).map_err(|e| Error::Output {
            path: source.clone(),
            source: e,
        })?;
        for (name, real, sin) in [("peer_f32", "float", "sinf"), ("peer_f64", "double", "sin")] {
            peer.compile(&source, name, real, sin)?;
        }
        Ok(peer)
    }

    fn compile(&self, source: &Path, name: &str, real: &str, sin: &str) -> Result<()> {
        let out = Command::new(&self.compiler)
            .args(FLAGS)
            .arg(format!("-DREAL={real}"))
            .arg(format!("-DSIN={sin}"))
            .arg(source)
            .arg("-o")
            .arg(self.binary(name))
            .arg("-lm")
            .output()
            .map_err(|e| {
                invalid!(Field::Peers; Field::Peers, format!(
                    " needs a C compiler with OpenMP to build the C peer, and '{}' could not run ({e}); install one (Debian: apt install gcc) or name it with CC=…",
                    self.compiler
                ))
            })?;
        if !out.status.success() {
            return Err(invalid!(Field::Peers; Field::Peers, format!(
                ": '{} {} …' could not build the C peer (does it support -fopenmp and -march=native?): {}",
                self.compiler,
                FLAGS.join(" "),
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        Ok(())
    }

    fn binary(&self, name: &str) -> PathBuf {
        self.folder.join(name)
    }

    /// What the rows' device column says: the compiler, its flags and OpenMP's threads.
    pub fn describe(&self) -> String {
        let threads = std::env::var("OMP_NUM_THREADS")
            .ok()
            .and_then(|t| t.parse::<usize>().ok())
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        format!(
            "C peer: {} -O3 -ffast-math ({threads} threads)",
            self.compiler
        )
    }

    /// One timed run at precision `f64` (else f32): the seconds of `steps` steps of `points`
    /// points, from the rate the peer prints (its `seconds=` has only milliseconds).
    pub fn time(&self, f64: bool, points: usize, steps: u64) -> Result<f64> {
        let name = if f64 { "peer_f64" } else { "peer_f32" };
        let out = Command::new(self.binary(name))
            .arg(points.to_string())
            .arg(steps.to_string())
            .output()
            .map_err(|e| self.failed(name, e.to_string()))?;
        let text = String::from_utf8_lossy(&out.stdout);
        let rate = text
            .split_whitespace()
            .find_map(|w| w.strip_prefix("point_steps_per_s="))
            .and_then(|s| s.parse::<f64>().ok())
            .filter(|r| r.is_finite() && *r > 0.0);
        match (out.status.success(), rate) {
            (true, Some(r)) => Ok(points as f64 * steps as f64 / r),
            _ => Err(self.failed(
                name,
                format!(
                    "printed no time ({}): {} {}",
                    out.status,
                    text.trim(),
                    String::from_utf8_lossy(&out.stderr).trim()
                ),
            )),
        }
    }

    /// The peer built as `name` did not run or printed no rate.
    fn failed(&self, name: &str, why: String) -> Error {
        Error::InputFile {
            path: self.binary(name),
            message: format!("the C peer of --peers {why}"),
        }
    }
}
