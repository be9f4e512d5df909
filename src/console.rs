//! What the library tells the person at the terminal, under the binary's control: `info!` lines
//! (which engine runs, what a study is doing, progress) are dropped when the binary has set
//! `--quiet`; `warn!` lines (results to distrust) and errors are always written. Both go to
//! stderr, never panic, and are dropped if stderr cannot be written (`2> /dev/full`).

use std::sync::atomic::{AtomicBool, Ordering};

static QUIET: AtomicBool = AtomicBool::new(false);

/// `--quiet`: drop the informational lines and the progress report from here on.
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// Whether informational output is off (`--quiet`).
pub fn quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// An informational line on stderr, unless `--quiet`.
#[macro_export]
macro_rules! info {
    ($($arg:tt)*) => {{
        if !$crate::console::quiet() {
            $crate::note!($($arg)*);
        }
    }};
}

/// A warning on stderr, written even with `--quiet`.
#[macro_export]
macro_rules! warn {
    ($($arg:tt)*) => {{
        $crate::note!($($arg)*);
    }};
}
