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

/// Whether SIGINT or SIGTERM arrived since `install`.
pub fn requested() -> bool {
    flag().load(Ordering::SeqCst)
}
