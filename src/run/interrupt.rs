//! SIGINT and SIGTERM during a run: the first sets a flag that the snapshot loop reads between
//! pieces of work (it then writes a checkpoint and stops with exit code 130, see
//! `Error::Interrupted`); a second one ends the process at once (exit 130).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

fn flag() -> &'static Arc<AtomicBool> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    FLAG.get_or_init(|| {
        let flag = Arc::new(AtomicBool::new(false));
        for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
            // A second signal while the flag is set ends the process at once; the first sets it.
            // Registration fails only for forbidden signals, which these are not.
            let _ = signal_hook::flag::register_conditional_shutdown(signal, 130, flag.clone());
            let _ = signal_hook::flag::register(signal, flag.clone());
        }
        flag
    })
}

/// Catch SIGINT and SIGTERM from now on (idempotent): called when a run starts writing.
pub fn install() {
    flag();
}

/// Act as if SIGINT had arrived (the test hook below).
pub fn request() {
    flag().store(true, Ordering::SeqCst);
}

/// Test hook: with `PHASEFLOW_STOP_AFTER_CHECKPOINTS=N` in the environment, the process
/// behaves as if interrupted right after writing its N-th checkpoint (counted over all the
/// runs of a study), so the tests stop runs at a chosen point without racing a signal.
pub fn checkpoint_written() {
    static WRITTEN: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let count = WRITTEN.fetch_add(1, Ordering::SeqCst) + 1;
    let stop = std::env::var("PHASEFLOW_STOP_AFTER_CHECKPOINTS")
        .ok()
        .and_then(|v| v.parse::<u32>().ok());
    if stop == Some(count) {
        request();
    }
}

/// Whether SIGINT or SIGTERM arrived since `install`.
pub fn requested() -> bool {
    flag().load(Ordering::SeqCst)
}
