//! Progress of a long run on stderr, and advancing an engine in pieces small enough to keep
//! that report moving.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};

use crate::engine::Engine;
use crate::error::Result;
use crate::float::Real;

/// Work between progress updates, in gradient evaluations × points (`Method::evals_per_step`
/// per step): one GPU dispatch (`engine::gpu::DISPATCH_EVALS`), about 1.6 s of symplectic
/// Euler on 1e6 pendulum points on the 2-core machine's CPU engine.
const PROGRESS_EVALS: u64 = crate::engine::gpu_layout::DISPATCH_EVALS;

/// Progress of a long run: a bar on a terminal, and plain lines (about every 30 s) when stderr
/// is a log file or a pipe, so batch jobs show progress too. Hidden with `--quiet`.
pub(super) struct Progress {
    bar: ProgressBar,
    /// Plain-line reporting (stderr is not a terminal): total steps, start, last line.
    plain: Option<(u64, Instant, Instant)>,
    done: u64,
    /// Steps done before this report started (`ProgressScope`): not part of its pace.
    base: u64,
    /// Whether `inc` counts towards `steps` (a run's report; not the hidden ones of refinement).
    counts: bool,
}

/// The steps of the latest reported run, done and in all, for a host that draws its own
/// progress bar (the Python module polls `steps` while the run holds no lock of its).
static STEPS_DONE: AtomicU64 = AtomicU64::new(0);
static STEPS_TOTAL: AtomicU64 = AtomicU64::new(0);

/// (steps done, steps in all) of the run in progress, or of the last one; hidden reports too.
pub fn steps() -> (u64, u64) {
    (
        STEPS_DONE.load(Ordering::Relaxed),
        STEPS_TOTAL.load(Ordering::Relaxed),
    )
}

/// Forget the last run's steps: a host calls it before starting the next.
pub fn clear_steps() {
    STEPS_DONE.store(0, Ordering::Relaxed);
    STEPS_TOTAL.store(0, Ordering::Relaxed);
}

/// Seconds between plain progress lines.
const PLAIN_PROGRESS_SECS: u64 = 30;

/// The stretch of a longer job (a sweep's parts, run one after another) that the runs made
/// now belong to: steps done before them and the job's total, so that one report covers the
/// whole job instead of restarting with each run.
static SCOPE: std::sync::Mutex<Option<(u64, u64)>> = std::sync::Mutex::new(None);

/// While alive, every progress report counts `before` steps done of `total` (see `SCOPE`).
pub struct ProgressScope(());

impl ProgressScope {
    pub fn new(before: u64, total: u64) -> ProgressScope {
        *SCOPE.lock().unwrap_or_else(|e| e.into_inner()) = Some((before, total));
        ProgressScope(())
    }
}

impl Drop for ProgressScope {
    fn drop(&mut self) {
        *SCOPE.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}

impl Progress {
    /// A report of `total` steps; hidden with `--quiet` (`console::quiet`).
    pub(super) fn new(total: u64) -> Self {
        let scope = *SCOPE.lock().unwrap_or_else(|e| e.into_inner());
        let Some((before, total)) = scope.map(|(b, t)| (b, t.max(b + total))) else {
            return Self::of(total);
        };
        let mut pb = Self::of(total);
        pb.bar.set_position(before);
        (pb.done, pb.base) = (before, before);
        STEPS_DONE.store(before, Ordering::Relaxed);
        pb
    }

    fn of(total: u64) -> Self {
        use std::io::IsTerminal;
        STEPS_DONE.store(0, Ordering::Relaxed);
        STEPS_TOTAL.store(total, Ordering::Relaxed);
        if crate::console::quiet() {
            return Progress {
                counts: true,
                ..Self::hidden()
            };
        }
        if !std::io::stderr().is_terminal() {
            let now = Instant::now();
            return Progress {
                bar: ProgressBar::hidden(),
                plain: Some((total, now, now)),
                done: 0,
                base: 0,
                counts: true,
            };
        }
        let bar = ProgressBar::new(total);
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} steps (eta {eta})",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        Progress {
            bar,
            plain: None,
            done: 0,
            base: 0,
            counts: true,
        }
    }

    pub(super) fn hidden() -> Self {
        Progress {
            bar: ProgressBar::hidden(),
            plain: None,
            done: 0,
            base: 0,
            counts: false,
        }
    }

    pub(super) fn inc(&mut self, steps: u64) {
        self.bar.inc(steps);
        if self.counts {
            STEPS_DONE.fetch_add(steps, Ordering::Relaxed);
        }
        self.done += steps;
        if let Some((total, start, last)) = &mut self.plain {
            if last.elapsed().as_secs() >= PLAIN_PROGRESS_SECS {
                *last = Instant::now();
                let secs = start.elapsed().as_secs_f64();
                let frac = self.done as f64 / (*total).max(1) as f64;
                let own = (self.done - self.base) as f64 / (*total - self.base).max(1) as f64;
                let eta = if own > 0.0 {
                    format!("{:.0} s", secs * (1.0 - own) / own)
                } else {
                    "?".into()
                };
                crate::info!(
                    "phaseflow: step {}/{} ({:.0} %), {secs:.0} s elapsed, eta {eta}",
                    self.done,
                    total,
                    100.0 * frac
                );
            }
        }
    }

    pub(super) fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// Advance by up to `steps`, in pieces small enough to keep the progress report moving
/// (`PROGRESS_EVALS` of work each, for `evals` gradient evaluations per step); after each
/// piece `stop()` may end it early (an interrupt, a checkpoint due). Returns the steps done.
pub(super) fn advance_with_progress<T: Real>(
    engine: &mut dyn Engine<T>,
    steps: u64,
    n: usize,
    evals: u64,
    pb: &mut Progress,
    stop: &mut dyn FnMut() -> bool,
) -> Result<u64> {
    let piece = (PROGRESS_EVALS / (n.max(1) as u64 * evals.max(1))).max(1);
    let mut left = steps;
    while left > 0 {
        let s = left.min(piece);
        engine.advance(s)?;
        pb.inc(s);
        left -= s;
        if left > 0 && stop() {
            break;
        }
    }
    Ok(steps - left)
}
