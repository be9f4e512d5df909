//! A shard's parts files: each snapshot's parts (`row::RowParts`) in a file (`PartsFile`,
//! format `PFPARTS7`) that also says which snapshot and shard it holds, carries the CRC-32
//! of the shard's config.toml and of its saved states of that snapshot, and is sealed
//! (`crate::checksum`): `merge` refuses a changed, cut, renamed or foreign file instead of
//! merging it into wrong statistics.

use crate::checksum;
use crate::error::{Error, Result};
use crate::measure::row::RowParts;

/// The first bytes of a shard's parts file.
const FILE_MAGIC: &[u8; 8] = b"PFPARTS7";

/// What a shard's parts file says of itself besides the parts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PartsFile {
    /// The snapshot's step.
    pub step: u64,
    /// The shard: index (from 0) and count.
    pub shard: (u64, u64),
    /// CRC-32 of the shard's config.toml (parts of another run do not match it).
    pub config_crc: u32,
    /// CRC-32 of the shard's saved states of the snapshot (`--save-states`), else `None`.
    pub states_crc: Option<u32>,
}

/// Bytes of a parts file besides the `RowParts` in it: its magic, the six words of its
/// fields, the seal.
const FILE_OVERHEAD: usize = FILE_MAGIC.len() + 6 * 8 + 4;

impl PartsFile {
    /// The largest file `encode` writes for the parts of `points` points
    /// (`RowParts::max_len`): how much a reader may read.
    pub fn max_len(points: usize) -> u64 {
        FILE_OVERHEAD as u64 + RowParts::max_len(points)
    }

    /// The file's bytes: the magic, these fields as little-endian words, the parts
    /// (`RowParts::encode`), the seal.
    pub fn encode(&self, parts: &RowParts) -> Vec<u8> {
        let mut out = FILE_MAGIC.to_vec();
        for w in [
            self.step,
            self.shard.0,
            self.shard.1,
            u64::from(self.config_crc),
            u64::from(self.states_crc.is_some()),
            u64::from(self.states_crc.unwrap_or(0)),
        ] {
            out.extend(w.to_le_bytes());
        }
        out.extend(parts.encode());
        checksum::sealed(out)
    }

    /// The fields and parts `encode` wrote; `what` names the file in errors.
    pub fn decode(bytes: &[u8], what: &str) -> Result<(Self, RowParts)> {
        let bad = |why: &str| {
            Error::Input(format!(
                "{what}: {why}; the parts files are written by `run --shard K/N`, rerun that shard"
            ))
        };
        // Earlier parts files were a bare `RowParts` (PFPARTS2, then PFPARTS3), then other
        // measurements' parts (PFPARTS4 to PFPARTS6).
        if bytes.starts_with(b"PFPARTS") && !bytes.starts_with(FILE_MAGIC) {
            return Err(bad(
                "written by an earlier version of phaseflow, in a format this one does not merge",
            ));
        }
        if !bytes.starts_with(FILE_MAGIC) {
            return Err(bad("not a phaseflow parts file (no header)"));
        }
        let body = checksum::unseal(bytes)
            .and_then(|data| data.strip_prefix(FILE_MAGIC))
            .ok_or_else(|| {
                bad("damaged: its CRC-32 does not match its contents (changed or cut since it was written)")
            })?;
        if body.len() < 48 {
            return Err(bad("truncated"));
        }
        let w = |i: usize| u64::from_le_bytes(body[8 * i..8 * i + 8].try_into().unwrap());
        let crc = |x: u64| u32::try_from(x).map_err(|_| bad("a checksum out of range"));
        let file = PartsFile {
            step: w(0),
            shard: (w(1), w(2)),
            config_crc: crc(w(3))?,
            states_crc: match w(4) {
                0 => None,
                _ => Some(crc(w(5))?),
            },
        };
        Ok((file, RowParts::decode(&body[48..], what)?))
    }
}

#[cfg(test)]
mod tests;
