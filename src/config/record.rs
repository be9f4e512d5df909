//! Sealed records: a TOML file whose first line is a fixed text and the CRC-32 of the TOML
//! after it (study.toml, sweep.toml), so that `resume` refuses a record changed since it was
//! written instead of mixing the runs of two settings.

use std::path::Path;

use serde::Serialize;

use crate::error::{Error, Result};

/// The record's text: `first` and the CRC-32 of `value`'s TOML on one line, then the TOML.
/// `path` is where it goes, for the error.
pub fn seal(first: &str, value: &impl Serialize, path: &Path) -> Result<String> {
    let body = toml::to_string(value).map_err(|e| Error::Output {
        path: path.to_path_buf(),
        source: std::io::Error::other(e),
    })?;
    let crc = crate::checksum::crc32(body.as_bytes());
    Ok(format!("{first}{crc:08x}\n{body}"))
}

/// What a sealed record says, for its refusals: what the file is (for `read_regular`), the
/// message when the first line is missing, and the one when the checksum does not match.
pub struct Expect<'a> {
    pub what: &'a str,
    pub no_line: String,
    pub changed: String,
}

/// The TOML of the record at `path` whose first line starts with `first`, refused (an input
/// error about the file) when it is not one or changed since it was written.
pub fn open(path: &Path, first: &str, expect: Expect) -> Result<String> {
    let bad = |m: String| Error::InputFile {
        path: path.to_path_buf(),
        message: m,
    };
    let bytes =
        crate::ensemble::read_regular(path, super::MAX_CONFIG_BYTES, expect.what).map_err(bad)?;
    let text = String::from_utf8_lossy(&bytes);
    let Some((crc, body)) = text
        .strip_prefix(first)
        .and_then(|rest| rest.split_once('\n'))
    else {
        return Err(bad(expect.no_line));
    };
    if u32::from_str_radix(crc, 16).ok() != Some(crate::checksum::crc32(body.as_bytes())) {
        return Err(bad(expect.changed));
    }
    Ok(body.to_string())
}
