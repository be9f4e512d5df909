//! What the library tells the person at the terminal, under the binary's control: `info!` lines
//! (which engine runs, what a study is doing, progress) are dropped when the binary has set
//! `--quiet`; `warn!` lines (results to distrust) and errors are always written. Both go to
//! stderr, never panic, and are dropped if stderr cannot be written (`2> /dev/full`).
//! `info_once!` lines (the engine a run uses) are said once while a study runs its methods,
//! which share them.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, RwLock};

use crate::error::{Field, Message};

static QUIET: AtomicBool = AtomicBool::new(false);

/// How a note names an option (`Field`): its name and, where the note gives one, its value.
pub type Naming = fn(&Field, Option<&str>) -> String;

/// The front end's naming of options in notes (`set_naming`); `None`: the library's names.
static NAMING: RwLock<Option<Naming>> = RwLock::new(None);

/// Name options in notes as the front end sets them: the command line writes flags
/// (`--backend auto`), the Python module keyword arguments (`backend="auto"`).
pub fn set_naming(naming: Naming) {
    *NAMING.write().unwrap_or_else(|e| e.into_inner()) = Some(naming);
}

/// A note's text, its options named as the front end set (`set_naming`), else as the library
/// names them (`backend = auto`).
pub fn render(message: &Message) -> String {
    match *NAMING.read().unwrap_or_else(|e| e.into_inner()) {
        Some(naming) => message.render(&naming),
        None => message.to_string(),
    }
}

/// The `info_once!` lines said so far, while repeats are dropped (`Repeats::dropped`).
static SAID: Mutex<Option<BTreeSet<String>>> = Mutex::new(None);

/// While it lives, an `info_once!` line already said is not said again (a study's methods
/// run on the same engine); dropped, every line is said again.
pub struct Repeats(());

impl Repeats {
    pub fn dropped() -> Repeats {
        *SAID.lock().unwrap_or_else(|e| e.into_inner()) = Some(BTreeSet::new());
        Repeats(())
    }
}

impl Drop for Repeats {
    fn drop(&mut self) {
        *SAID.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }
}

/// Whether `line` is to be said: always, unless repeats are dropped and it was said already.
pub fn first_time(line: &str) -> bool {
    match SAID.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
        Some(said) => said.insert(line.to_string()),
        None => true,
    }
}

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

/// An informational line on stderr, unless `--quiet` or said already while repeats are
/// dropped (`Repeats`).
#[macro_export]
macro_rules! info_once {
    ($($arg:tt)*) => {{
        if !$crate::console::quiet() {
            let line = format!($($arg)*);
            if $crate::console::first_time(&line) {
                $crate::note!("{line}");
            }
        }
    }};
}
