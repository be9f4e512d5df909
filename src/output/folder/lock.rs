//! The lock of an output folder, `DIR/.phaseflow.lock`: created exclusively, holding the pid
//! and the host of the run writing into the folder, removed when that run ends. A lock whose
//! process is gone is taken over; any other is refused with what it is, who holds it and what
//! to do.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::input_err;
use crate::output::target::{self, CreatedDirs};

/// Lock file in an output folder while a run writes into it.
pub const LOCK: &str = ".phaseflow.lock";

/// The lock of an output folder; dropping it removes `DIR/.phaseflow.lock`, then the folders
/// taking it created, if they are still empty (a refusal or a failure before any file).
#[derive(Debug)]
pub struct OutLock {
    path: PathBuf,
    _created: CreatedDirs,
}

impl Drop for OutLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// This machine's name, as a lock records it (none where it cannot be read).
fn this_host() -> Option<String> {
    ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .find_map(|f| std::fs::read_to_string(f).ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
}

/// A process as `/proc` shows it.
enum Process {
    Gone,
    /// Running, under this command name (`/proc/<pid>/comm`).
    Named(String),
    /// Running, or it cannot be told (no `/proc`).
    Unknown,
}

fn process(pid: u32) -> Process {
    let proc_fs = Path::new("/proc");
    if !proc_fs.is_dir() {
        return Process::Unknown;
    }
    let dir = proc_fs.join(pid.to_string());
    if !dir.exists() {
        return Process::Gone;
    }
    match std::fs::read_to_string(dir.join("comm")) {
        Ok(name) => Process::Named(name.trim().to_string()),
        Err(_) => Process::Unknown,
    }
}

/// Why the lock file `lock` keeps a run out of `dir`; `None` when it is stale (its process is
/// gone, or it holds no pid and is over a minute old), so it may be taken over.
pub(super) fn held(dir: &Path, lock: &Path) -> Option<Error> {
    // Bounded: a lock replaced by a link to /dev/zero is read no further than a pid and a host.
    let text = super::read_small(lock, 4096).unwrap_or_default();
    let mut lines = text.lines();
    let pid = lines.next().unwrap_or("").trim();
    let host = lines.next().map(str::trim).filter(|h| !h.is_empty());
    let (dir_shown, shown) = (dir.display(), lock.display());
    let remove = format!(
        "if no phaseflow run is writing into this folder any more, remove {shown} and run again"
    );
    let Ok(pid) = pid.parse::<u32>() else {
        // Being written by a run that has just created it, unless it is old.
        let young = std::fs::metadata(lock)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age.as_secs() < 60);
        let start: String = text.chars().take(40).collect();
        return young.then(|| {
            input_err!(
                "--out {dir_shown}: the folder's lock file {shown} names no process (it reads {start:?}); a phaseflow run that has just started may be writing it: wait a moment and try again; {remove}"
            )
        });
    };
    let me = this_host();
    if let Some(h) = host.filter(|h| me.as_deref().is_some_and(|me| me != *h)) {
        return Some(input_err!(
            "--out {dir_shown}: another phaseflow run (pid {pid} on host {h}) holds this folder (its lock file is {shown}), which cannot be checked from here; wait for it to finish or choose another --out; {remove}"
        ));
    }
    let on = host.map(|h| format!(" on host {h}")).unwrap_or_default();
    let own_name = std::fs::read_to_string("/proc/self/comm").ok();
    match process(pid) {
        Process::Gone => None,
        Process::Named(name) if own_name.as_deref().map(str::trim) != Some(name.as_str()) => {
            Some(input_err!(
                "--out {dir_shown}: the folder's lock file {shown} names pid {pid}{on}, which is now `{name}`, not phaseflow: the run that took the lock most likely ended without removing it; {remove}"
            ))
        }
        Process::Named(_) | Process::Unknown => Some(input_err!(
            "--out {dir_shown}: another phaseflow run (pid {pid}{on}) is writing into this folder (its lock file is {shown}); wait for it to finish or choose another --out; {remove}"
        )),
    }
}

/// Take the lock of `dir` (created if missing): refused while a live process holds it; a lock
/// left by a process that is gone is taken over.
pub fn lock(dir: &Path) -> Result<OutLock> {
    let created = target::make_dir(dir, "--out ")?;
    let path = dir.join(LOCK);
    for _ in 0..3 {
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(mut f) => {
                use std::io::Write;
                let guard = OutLock {
                    path: path.clone(),
                    _created: created,
                };
                let host = this_host().unwrap_or_default();
                writeln!(f, "{}\n{host}", std::process::id()).map_err(|source| Error::Output {
                    path: path.clone(),
                    source,
                })?;
                return Ok(guard);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                if let Some(refusal) = held(dir, &path) {
                    return Err(refusal);
                }
                // Stale: its process is gone.
                let _ = std::fs::remove_file(&path);
            }
            Err(source) => return Err(target::unwritable(dir, "--out ", source)),
        }
    }
    Err(input_err!(
        "--out {}: its lock file {} keeps coming back: another phaseflow run is taking this folder; choose another --out",
        dir.display(),
        path.display()
    ))
}
