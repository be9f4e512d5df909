//! The lock of an output folder, `DIR/.phaseflow.lock`: an advisory file lock (`flock`) that
//! the run holds for its lifetime, so the operating system (or, on a shared file system, the
//! file server) frees it the moment the run ends, however it ends: a lock that nobody holds is
//! stale, and taken. The file records the pid and host of its holder only for the message that
//! refuses a second run; nothing is read from `/proc`, so a run on another node of a cluster,
//! or a pid reused since, cannot make a live lock look stale.

use std::fs::{File, TryLockError};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, Field, Result};
use crate::{input_err, invalid};

/// An input error about the output folder `dir`: the option set to it, then `rest`.
fn about(dir: &Path, rest: String) -> Error {
    invalid!(Field::Out; Field::Out.is(dir.display()), rest)
}
use crate::output::target::{self, CreatedDirs};

/// Lock file in an output folder while a run writes into it.
pub const LOCK: &str = ".phaseflow.lock";

/// The lock of an output folder, held while this value lives; dropping it removes
/// `DIR/.phaseflow.lock` (still locked, so no other run can take the file being removed), then
/// closes it, which releases the lock, then removes the folders taking it created if they are
/// still empty (a refusal or a failure before any file).
#[derive(Debug)]
pub struct OutLock {
    path: PathBuf,
    file: File,
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

/// What a lock file records: its holder's pid and host (lines 1 and 2).
fn record() -> String {
    format!(
        "{}\n{}\n",
        std::process::id(),
        this_host().unwrap_or_default()
    )
}

/// Opened lock file `lock`, refused when it is not a regular file (a link would make phaseflow
/// lock and write whatever it points to). `create`: make it when missing; otherwise a missing
/// file is `None`.
fn open(dir: &Path, lock: &Path, create: bool) -> Result<Option<File>> {
    match std::fs::symlink_metadata(lock) {
        Ok(meta) if !meta.is_file() => {
            return Err(about(
                dir,
                format!(
                    ": the folder's lock file {} is not a regular file; remove it and run again",
                    lock.display()
                ),
            ))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !create => return Ok(None),
        _ => {}
    }
    // Read and write: a lock on a network file system is a write lock, which needs both.
    match std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(create)
        .truncate(false)
        .open(lock)
    {
        Ok(f) => Ok(Some(f)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !create => Ok(None),
        Err(source) => Err(target::unwritable(dir, Some(&Field::Out), source)),
    }
}

/// Take `file`'s lock without waiting for `purpose`: `Ok(true)` when taken, `Ok(false)` when
/// another process holds it, an error when the file system keeps no locks.
fn try_lock(dir: &Path, file: &File, lock: &Path, purpose: LockFor) -> Result<bool> {
    match file.try_lock() {
        Ok(()) => Ok(true),
        Err(TryLockError::WouldBlock) => Ok(false),
        Err(TryLockError::Error(source)) => Err(no_locks(dir, lock, &source, purpose)),
    }
}

/// File systems with locks, as the refusals below name them.
const WITH_LOCKS: &str = "a local disk, or a network file system mounted with locking: NFS with its lock service, Lustre with `-o flock`";

/// The refusal of `dir`, whose file system keeps no locks (`lock` could not be taken:
/// `source`): a new run can choose another --out; a resumed one has only its folder, which
/// can be copied to a file system with locks and resumed there.
fn no_locks(dir: &Path, lock: &Path, source: &std::io::Error, purpose: LockFor) -> Error {
    let why = format!(
        "cannot lock {} ({source}): the folder's file system keeps no file locks, so phaseflow cannot keep two runs from writing into it at once",
        lock.display()
    );
    match purpose {
        LockFor::NewRun => invalid!(Field::Out;
            Field::Out.is(dir.display()),
            format!(": {why}; choose "),
            Field::Out,
            format!(" on a file system with locks ({WITH_LOCKS})"),
        ),
        LockFor::Resume => input_err!(
            "{}: {why}; copy the folder to a file system with locks ({WITH_LOCKS}) and resume the copy there",
            dir.display()
        ),
    }
}

/// The refusal of a run into `dir` (for `purpose`), whose lock `file` (at `lock`) another
/// process holds: who, as its file records it.
fn refusal(dir: &Path, purpose: LockFor, lock: &Path, file: &mut File) -> Error {
    // Bounded: the file holds a pid and a host name.
    let mut text = String::new();
    let _ = file.take(4096).read_to_string(&mut text);
    let mut lines = text.lines().map(str::trim);
    let pid = lines.next().and_then(|p| p.parse::<u32>().ok());
    let host = lines.next().filter(|h| !h.is_empty());
    let who = match (pid, host) {
        (Some(pid), Some(host)) => format!(" (pid {pid} on host {host})"),
        (Some(pid), None) => format!(" (pid {pid})"),
        // Taken this instant, its holder not yet written.
        _ => String::new(),
    };
    refused(
        dir,
        purpose,
        format!(
            "another phaseflow run{who} is writing into this folder and holds its lock {}",
            lock.display()
        ),
    )
}

/// What a run takes a folder's lock for, which says what to do when another holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockFor {
    /// A new run, study or sweep writing into its --out folder: another folder will do.
    NewRun,
    /// `resume` continuing the run, study or sweep in its own folder: only that folder will.
    Resume,
}

/// The refusal of a run into `dir`, which another run keeps (`why`), with what to do instead.
fn refused(dir: &Path, purpose: LockFor, why: String) -> Error {
    match purpose {
        LockFor::NewRun => invalid!(Field::Out;
            Field::Out.is(dir.display()),
            format!(": {why}; wait for it to finish or choose another "),
            Field::Out,
        ),
        LockFor::Resume => input_err!(
            "{}: {why}; wait for it to finish, then resume",
            dir.display()
        ),
    }
}

/// Why the lock file `lock` keeps a new run out of `dir` (another process holds it); `None`
/// when nobody holds it (or there is none), so a run may take it.
pub(super) fn held(dir: &Path, lock: &Path) -> Option<Error> {
    let mut file = match open(dir, lock, false) {
        Ok(Some(f)) => f,
        Ok(None) => return None,
        Err(e) => return Some(e),
    };
    // Taken for the instant of the check, and released when `file` closes.
    match try_lock(dir, &file, lock, LockFor::NewRun) {
        Ok(true) => None,
        Ok(false) => Some(refusal(dir, LockFor::NewRun, lock, &mut file)),
        Err(e) => Some(e),
    }
}

/// Whether `file` is still the one at `path`: a run that ends removes its lock file before it
/// releases it, so a file locked after that is no longer the folder's lock.
fn still_at(file: &File, path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (file.metadata(), std::fs::symlink_metadata(path)) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        // No inode to compare: the file's presence is what can be checked.
        let _ = file;
        path.exists()
    }
}

/// Take the lock of `dir` (created if missing) for `purpose`: refused while another process
/// holds it.
pub fn lock(dir: &Path, purpose: LockFor) -> Result<OutLock> {
    let created = target::make_dir(dir, Some(&Field::Out))?;
    let path = dir.join(LOCK);
    for _ in 0..3 {
        let Some(mut file) = open(dir, &path, true)? else {
            continue;
        };
        if !try_lock(dir, &file, &path, purpose)? {
            return Err(refusal(dir, purpose, &path, &mut file));
        }
        if !still_at(&file, &path) {
            // Removed by the run that held it as it ended: take the folder's new lock file.
            continue;
        }
        // Held from here: a failure to write the record removes the file and the folders.
        let mut guard = OutLock {
            path,
            file,
            _created: created,
        };
        let written = guard
            .file
            .set_len(0)
            .and_then(|()| guard.file.write_all(record().as_bytes()));
        return match written {
            Ok(()) => Ok(guard),
            Err(source) => Err(Error::Output {
                path: guard.path.clone(),
                source,
            }),
        };
    }
    Err(refused(
        dir,
        purpose,
        format!(
            "its lock file {} keeps being replaced: another phaseflow run is taking this folder",
            path.display()
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two locks of one folder in one process are two open files, which `flock` keeps apart
    /// as it keeps two processes apart: the second is refused, naming the first's pid and
    /// host; once the first is dropped the folder is free at once.
    #[test]
    fn a_held_lock_refuses_another_and_is_free_when_dropped() {
        let tmp = tempfile::TempDir::new().unwrap();
        let dir = tmp.path().join("o");
        let first = lock(&dir, LockFor::NewRun).unwrap();
        let text = std::fs::read_to_string(dir.join(LOCK)).unwrap();
        assert_eq!(text, record());
        let refused = lock(&dir, LockFor::NewRun).unwrap_err().to_string();
        let pid = std::process::id();
        assert!(refused.contains(&format!("pid {pid}")), "{refused}");
        if let Some(host) = this_host() {
            assert!(refused.contains(&format!("on host {host}")), "{refused}");
        }
        assert!(held(&dir, &dir.join(LOCK)).is_some());
        drop(first);
        assert!(
            !dir.exists(),
            "the folder the lock created, left empty, is removed"
        );
        let second = lock(&dir, LockFor::NewRun).unwrap();
        assert!(held(&dir, &dir.join(LOCK)).is_some());
        drop(second);
    }

    /// Where the file system keeps no locks, a new run is told to choose another --out; a
    /// resume, which cannot take --out, to copy its folder to a file system with locks.
    #[test]
    fn no_locks_advises_what_each_purpose_can_do() {
        let dir = Path::new("/mnt/shared/run");
        let source = std::io::Error::from_raw_os_error(37); // ENOLCK on Linux
        let new = no_locks(dir, &dir.join(LOCK), &source, LockFor::NewRun).to_string();
        assert!(
            new.contains("; choose out on a file system with locks"),
            "{new}"
        );
        let resume = no_locks(dir, &dir.join(LOCK), &source, LockFor::Resume).to_string();
        assert!(
            !resume.contains("choose") && !resume.contains("out on"),
            "{resume}"
        );
        assert!(resume.contains("resume the copy there"), "{resume}");
        assert!(resume.contains("keeps no file locks"), "{resume}");
    }

    /// A lock file that nobody holds is stale whatever it says: a pid that is running here
    /// (this process), a host that is not this one, or nothing readable.
    #[test]
    fn a_lock_file_nobody_holds_is_taken() {
        let tmp = tempfile::TempDir::new().unwrap();
        let dir = tmp.path();
        let path = dir.join(LOCK);
        for text in [
            format!(
                "{}\n{}\n",
                std::process::id(),
                this_host().unwrap_or_default()
            ),
            "12345\nanother-node\n".to_string(),
            "garbage".to_string(),
        ] {
            std::fs::write(&path, text).unwrap();
            assert!(held(dir, &path).is_none());
            let l = lock(dir, LockFor::NewRun).unwrap();
            assert_eq!(std::fs::read_to_string(&path).unwrap(), record());
            drop(l);
            assert!(!path.exists());
        }
    }
}
