//! What a user's output path may be. Files are written whole (a temporary file renamed over
//! the path), which would replace whatever the path is, so a path that is not a regular file
//! (a symbolic link, a named pipe, a device such as `/dev/full`, a folder) is refused before
//! anything is written. Folders are created with their missing parents, and a path that cannot
//! be one (under a file, a dangling or looping link) is an input error that says so.

use std::path::{Component, Path, PathBuf};

use crate::error::{Error, Field, Result};
use crate::{input_err, invalid};

/// An input error about the user's `path`, given for the option `field` (the output folder,
/// `--csv`), or for no option (a file inside an output folder): the path, then `rest`.
fn about(field: Option<&Field>, path: &Path, rest: String) -> Error {
    match field {
        Some(field) => invalid!(field.clone(); field.is(path.display()), rest),
        None => input_err!("{}{rest}", path.display()),
    }
}

/// What `meta` (of the path itself, links not followed) is, in words; `None` for a regular file.
fn special(meta: &std::fs::Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    Some(if t.is_file() {
        return None;
    } else if t.is_symlink() {
        "a symbolic link"
    } else if t.is_dir() {
        "a folder"
    } else {
        other_kind(&t)
    })
}

#[cfg(unix)]
fn other_kind(t: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_fifo() {
        "a named pipe (FIFO)"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a regular file"
    }
}

#[cfg(not(unix))]
fn other_kind(_: &std::fs::FileType) -> &'static str {
    "not a regular file"
}

/// Refuse to write the file `path` over anything but a regular file (or nothing). `field` names
/// the option it came from (`Field::Csv`), or is `None` for a file inside an output folder.
pub fn check_replaceable(path: &Path, field: Option<&Field>) -> Result<()> {
    match std::fs::symlink_metadata(path).ok().as_ref().and_then(special) {
        Some(what) => Err(about(field, path, format!(
            ": is {what}; phaseflow writes an output file whole (a new file renamed into place), which would replace it rather than write to it; name a new file or a regular one"
        ))),
        None => Ok(()),
    }
}

/// `check_replaceable` for a file path the user gave, which also needs a folder to be in.
pub fn check_file(path: &Path, field: Option<&Field>) -> Result<()> {
    check_replaceable(path, field)?;
    // A file under something that is not a folder (`notes.txt/out.csv`).
    match path.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(parent) => not_a_folder(parent, field, path).map_or(Ok(()), Err),
        None => Ok(()),
    }
}

/// Why the existing path nearest to `dir` (`dir` itself or an ancestor) keeps `dir` from being
/// a folder, as an input error about the user's `path` of `field`; `None` when nothing does.
fn not_a_folder(dir: &Path, field: Option<&Field>, path: &Path) -> Option<Error> {
    let existing = dir
        .ancestors()
        .filter(|p| !p.as_os_str().is_empty())
        .find(|p| std::fs::symlink_metadata(p).is_ok())?;
    let meta = std::fs::symlink_metadata(existing).ok()?;
    let followed = std::fs::metadata(existing);
    if followed.as_ref().is_ok_and(|m| m.is_dir()) {
        return None;
    }
    let what = match (meta.file_type().is_symlink(), followed) {
        (true, Err(_)) => {
            "a symbolic link to nothing (its target is missing, or the links form a loop)"
        }
        (true, Ok(_)) => "a symbolic link to a file",
        (false, _) => special(&meta).unwrap_or("a file"),
    };
    let which = if existing == path {
        String::new()
    } else {
        format!("{} ", existing.display())
    };
    Some(about(
        field,
        path,
        format!(
            ": {which}is {what}, not a folder; choose another path (missing folders are created)"
        ),
    ))
}

/// `path` made absolute with every existing component's symlinks resolved, and `.` and `..`
/// applied (those after a missing component as the folders, once created, will resolve them).
pub fn resolved(path: &Path) -> PathBuf {
    let abs = std::env::current_dir().unwrap_or_default().join(path);
    let mut at = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                at.pop();
            }
            Component::Normal(name) => {
                at.push(name);
                if let Ok(real) = at.canonicalize() {
                    at = real;
                }
            }
            other => at.push(other),
        }
    }
    at
}

/// Folders phaseflow created for an output (deepest first); those still empty are removed when
/// this is dropped, so a refusal or failure leaves no empty folder behind (one holding
/// anything, a finished or interrupted run, stays).
#[derive(Debug, Default)]
pub struct CreatedDirs(Vec<PathBuf>);

impl Drop for CreatedDirs {
    fn drop(&mut self) {
        for dir in &self.0 {
            // remove_dir removes only an empty folder.
            if std::fs::remove_dir(dir).is_err() {
                break;
            }
        }
    }
}

/// Create the folder `dir` of the option `field` and its missing parents. A path that cannot be a folder,
/// or one this user may not write into, is an input error naming the fix.
pub fn make_dir(dir: &Path, field: Option<&Field>) -> Result<CreatedDirs> {
    let missing: Vec<PathBuf> = dir
        .ancestors()
        .filter(|p| !p.as_os_str().is_empty())
        .take_while(|p| std::fs::symlink_metadata(p).is_err())
        .map(Path::to_path_buf)
        .collect();
    match std::fs::create_dir_all(dir) {
        Ok(()) => Ok(CreatedDirs(missing)),
        Err(source) => {
            // Remove what a partial create_dir_all made.
            drop(CreatedDirs(missing));
            Err(not_a_folder(dir, field, dir).unwrap_or_else(|| unwritable(dir, field, source)))
        }
    }
}

/// An error writing into the output folder `dir`: a permission refusal is the user's to fix
/// (another folder), anything else (a full disk) a failure.
pub fn unwritable(dir: &Path, field: Option<&Field>, source: std::io::Error) -> Error {
    use std::io::ErrorKind::{PermissionDenied, ReadOnlyFilesystem};
    match source.kind() {
        PermissionDenied | ReadOnlyFilesystem => about(
            field,
            dir,
            format!(": cannot write here ({source}); choose a folder you can write to"),
        ),
        _ => Error::Output {
            path: dir.to_path_buf(),
            source,
        },
    }
}
