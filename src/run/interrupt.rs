//! SIGINT and SIGTERM during a run: the first sets a flag that the snapshot loop reads between
//! pieces of work (it then writes a checkpoint and stops with exit code 130, see
//! `Error::Interrupted`); a second one ends the process at once (exit 130).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Once, OnceLock};

fn flag() -> &'static Arc<AtomicBool> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    FLAG.get_or_init(|| Arc::new(AtomicBool::new(false)))
}

/// Set when a host process owns SIGINT (the Python module: Python's own handler raises
/// `KeyboardInterrupt`, and the module calls `request` for it), so `install` leaves the
/// process's handlers alone and a second Ctrl-C cannot end the interpreter.
static HOST: AtomicBool = AtomicBool::new(false);

/// Catch SIGINT and SIGTERM from now on (idempotent): called when a run starts writing.
pub fn install() {
    if HOST.load(Ordering::SeqCst) {
        return;
    }
    static REGISTER: Once = Once::new();
    REGISTER.call_once(|| {
        let flag = flag();
        for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
            // A second signal while the flag is set ends the process at once; the first sets it.
            // Registration fails only for forbidden signals, which these are not.
            let _ = signal_hook::flag::register_conditional_shutdown(signal, 130, flag.clone());
            let _ = signal_hook::flag::register(signal, flag.clone());
        }
    });
}

/// The host process handles SIGINT and SIGTERM itself and calls `request` (the Python module):
/// `install` registers no handlers from now on.
pub fn host_handles_signals() {
    HOST.store(true, Ordering::SeqCst);
}

/// The process is the command line's after all (`python -m phaseflow`, in a process of its
/// own): `install` registers the handlers as the binary does.
pub fn process_handles_signals() {
    HOST.store(false, Ordering::SeqCst);
}

/// Forget an earlier request: a host process that ran an interrupted run goes on to the next.
pub fn clear() {
    flag().store(false, Ordering::SeqCst);
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
