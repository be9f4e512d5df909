//! A snapshot's statistics before they are reduced (`RowParts`): the energy accumulators of
//! each chunk (host: `energy::CHUNK` points; device: one workgroup) and of each tangent chunk,
//! in point order, with the counts and maxima that merge exactly. A run reduces its own parts
//! into its stats.csv row; shards of one ensemble (`run --shard K/N`, MPI ranks, several GPUs)
//! hand theirs on, and the parts of shards that start at chunk boundaries, appended in shard
//! order, are exactly the whole ensemble's parts: the merged row is the same bit for bit.
//!
//! A shard writes each snapshot's parts to a file (`PartsFile`, format `PFPARTS4`) that also
//! says which snapshot and shard it holds, carries the CRC-32 of the shard's config.toml and
//! of its saved states of that snapshot, and is sealed (`crate::checksum`): `merge` refuses a
//! changed, cut, renamed or foreign file instead of merging it into wrong statistics.

use crate::checksum;
use crate::error::{Error, Result};
use crate::measure::energy::{fold_in_order, row_from, EnergyAccumulator, EnergyRow};
use crate::measure::tangent::{TangentAcc, TangentStats};

/// Words of `EnergyAccumulator::to_words`.
pub const ACCUMULATOR_WORDS: usize = 12;

impl EnergyAccumulator {
    /// The accumulator as words (counts as they are, floats as their IEEE bits): exact, for a
    /// shard's parts files and MPI messages (`measure::parts`).
    pub fn to_words(&self) -> [u64; ACCUMULATOR_WORDS] {
        [
            self.finite,
            self.escaped,
            u64::from(self.counts_escaped),
            self.mean.to_bits(),
            self.m2.to_bits(),
            self.abs_err_sum.to_bits(),
            self.abs_err_max.to_bits(),
            self.rel_count,
            self.rel_err_sum.to_bits(),
            self.rel_err_max.to_bits(),
            self.stayed_abs_err_max.to_bits(),
            self.stayed_rel_err_max.to_bits(),
        ]
    }

    /// The accumulator `to_words` wrote.
    pub fn from_words(w: &[u64; ACCUMULATOR_WORDS]) -> Self {
        EnergyAccumulator {
            finite: w[0],
            escaped: w[1],
            counts_escaped: w[2] != 0,
            mean: f64::from_bits(w[3]),
            m2: f64::from_bits(w[4]),
            abs_err_sum: f64::from_bits(w[5]),
            abs_err_max: f64::from_bits(w[6]),
            rel_count: w[7],
            rel_err_sum: f64::from_bits(w[8]),
            rel_err_max: f64::from_bits(w[9]),
            stayed_abs_err_max: f64::from_bits(w[10]),
            stayed_rel_err_max: f64::from_bits(w[11]),
        }
    }
}

/// What a snapshot's row is reduced from (see the module doc).
#[derive(Debug, Clone, Default)]
pub struct RowParts {
    /// Points measured.
    pub points: u64,
    /// Energy accumulators per chunk, in point order.
    pub energy: Vec<EnergyAccumulator>,
    /// Points whose implicit solves hit the cap at least once.
    pub unconverged: u64,
    /// Largest |L − L0| over the finite points (systems with angular momentum).
    pub ang_mom_err_max: Option<f64>,
    /// `--tangent`: accumulators per chunk, in point order (else empty).
    pub tangent: Vec<TangentAcc>,
    /// Largest constraint violation over the finite points (nonholonomic systems).
    pub constraint_err_max: Option<f64>,
}

/// The larger of two optional maxima.
fn max_of(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

/// Words of a `TangentAcc` in `RowParts::encode`.
const TANGENT_WORDS: usize = 5;

/// Words before the accumulators: points, unconverged, the angular momentum maximum (flag,
/// bits), the two counts, the constraint maximum (flag, bits).
const HEADER: usize = 8;

/// The first bytes of an encoded `RowParts`.
const MAGIC: &[u8; 8] = b"PFPARTS3";

impl RowParts {
    /// Append the parts of the points that follow these (the next shard's).
    pub fn append(&mut self, next: RowParts) {
        self.points += next.points;
        self.energy.extend(next.energy);
        self.unconverged += next.unconverged;
        self.ang_mom_err_max = max_of(self.ang_mom_err_max, next.ang_mom_err_max);
        self.tangent.extend(next.tangent);
        self.constraint_err_max = max_of(self.constraint_err_max, next.constraint_err_max);
    }

    /// The stats.csv row at `step` (t = step · dt): energies folded in order, then the
    /// columns besides (`filled_area`: |A0| of a filled d = 1 set, for area_from_det). A
    /// loop's area is measured on the whole loop by the caller.
    pub fn row(&self, step: u64, dt: f64, tangent: bool, filled_area: Option<f64>) -> EnergyRow {
        let mut row = row_from(
            &fold_in_order(&self.energy),
            self.points,
            step,
            step as f64 * dt,
        );
        row.unconverged = self.unconverged;
        row.ang_mom_err_max = self.ang_mom_err_max;
        row.constraint_err_max = self.constraint_err_max;
        if tangent {
            let t = TangentStats::from_chunks(&self.tangent);
            row.det_mean = t.det_mean;
            row.det_min = t.det_min;
            row.det_max = t.det_max;
            row.defect_max = t.defect_max;
            row.area_from_det = filled_area.zip(t.det_mean).map(|(a, m)| a * m);
        }
        row
    }

    /// The parts as bytes (little-endian words; floats as their bits, so nothing is rounded).
    pub fn encode(&self) -> Vec<u8> {
        let mut w: Vec<u64> = vec![
            self.points,
            self.unconverged,
            u64::from(self.ang_mom_err_max.is_some()),
            self.ang_mom_err_max.unwrap_or(0.0).to_bits(),
            self.energy.len() as u64,
            self.tangent.len() as u64,
            u64::from(self.constraint_err_max.is_some()),
            self.constraint_err_max.unwrap_or(0.0).to_bits(),
        ];
        for a in &self.energy {
            w.extend(a.to_words());
        }
        for t in &self.tangent {
            w.extend([
                t.0,
                t.1.to_bits(),
                t.2.to_bits(),
                t.3.to_bits(),
                t.4.to_bits(),
            ]);
        }
        let mut out = MAGIC.to_vec();
        for x in w {
            out.extend(x.to_le_bytes());
        }
        out
    }

    /// The parts `encode` wrote; `what` names the source in errors (a file's path).
    pub fn decode(bytes: &[u8], what: &str) -> Result<Self> {
        let bad = |why: &str| {
            Error::Input(format!(
                "{what}: not a phaseflow parts file ({why}); it is written by `run --shard K/N`, rerun that shard"
            ))
        };
        let body = bytes.strip_prefix(MAGIC).ok_or_else(|| bad("no header"))?;
        if body.len() % 8 != 0 {
            return Err(bad("truncated"));
        }
        let words: Vec<u64> = body
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        if words.len() < HEADER {
            return Err(bad("truncated"));
        }
        let (ne, nt) = (words[4] as usize, words[5] as usize);
        let need = ne
            .checked_mul(ACCUMULATOR_WORDS)
            .and_then(|e| nt.checked_mul(TANGENT_WORDS).and_then(|t| t.checked_add(e)))
            .and_then(|x| x.checked_add(HEADER));
        if need != Some(words.len()) {
            return Err(bad("its length does not match its counts"));
        }
        let energy = words[HEADER..HEADER + ne * ACCUMULATOR_WORDS]
            .chunks_exact(ACCUMULATOR_WORDS)
            .map(|c| EnergyAccumulator::from_words(c.try_into().unwrap()))
            .collect();
        let tangent = words[HEADER + ne * ACCUMULATOR_WORDS..]
            .chunks_exact(TANGENT_WORDS)
            .map(|c| {
                let f = f64::from_bits;
                (c[0], f(c[1]), f(c[2]), f(c[3]), f(c[4]))
            })
            .collect();
        Ok(RowParts {
            points: words[0],
            unconverged: words[1],
            ang_mom_err_max: (words[2] != 0).then(|| f64::from_bits(words[3])),
            energy,
            tangent,
            constraint_err_max: (words[6] != 0).then(|| f64::from_bits(words[7])),
        })
    }
}

/// The first bytes of a shard's parts file.
const FILE_MAGIC: &[u8; 8] = b"PFPARTS4";

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
    /// The largest file `encode` writes for the parts of `points` points (at most one energy
    /// and one tangent chunk per point, and one more of each): how much a reader may read.
    pub fn max_len(points: usize) -> u64 {
        let chunks = points as u64 + 1;
        let words = HEADER as u64 + chunks * (ACCUMULATOR_WORDS + TANGENT_WORDS) as u64;
        (FILE_OVERHEAD + MAGIC.len()) as u64 + 8 * words
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
        // Earlier parts files were a bare `RowParts` (PFPARTS2, then PFPARTS3).
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
mod tests {
    use super::*;

    fn parts(seed: u64, n: usize) -> RowParts {
        let energy = (0..n)
            .map(|c| {
                let h: Vec<f64> = (0..37)
                    .map(|i| 1.0 + ((seed * 131 + c as u64 * 17 + i) as f64 * 0.37).sin())
                    .collect();
                EnergyAccumulator::from_chunk(&h, &vec![1.0; h.len()])
            })
            .collect();
        RowParts {
            points: 37 * n as u64,
            energy,
            unconverged: seed,
            ang_mom_err_max: seed.is_multiple_of(2).then_some(seed as f64 * 1e-9),
            tangent: vec![(3, 2.9, 0.9, 1.1, 1e-7 * seed as f64); n],
            constraint_err_max: Some(seed as f64 * 1e-12),
        }
    }

    /// Appending shards' parts and folding gives the whole ensemble's row bit for bit, and
    /// the bytes round-trip exactly.
    #[test]
    fn appended_parts_are_the_whole_and_round_trip() {
        let whole = parts(4, 9);
        let mut split = RowParts {
            energy: whole.energy[..4].to_vec(),
            tangent: whole.tangent[..4].to_vec(),
            points: 4 * 37,
            unconverged: 1,
            ang_mom_err_max: None,
            constraint_err_max: None,
        };
        split.append(RowParts {
            energy: whole.energy[4..].to_vec(),
            tangent: whole.tangent[4..].to_vec(),
            points: 5 * 37,
            unconverged: 3,
            ang_mom_err_max: whole.ang_mom_err_max,
            constraint_err_max: whole.constraint_err_max,
        });
        assert_eq!(
            split.row(3, 0.5, true, Some(2.0)),
            whole.row(3, 0.5, true, Some(2.0))
        );
        let back = RowParts::decode(&whole.encode(), "x").unwrap();
        assert_eq!(back.row(3, 0.5, true, None), whole.row(3, 0.5, true, None));
        assert_eq!(back.encode(), whole.encode());
        let bytes = whole.encode();
        for cut in [0, 7, 8, 20, bytes.len() - 1] {
            assert!(RowParts::decode(&bytes[..cut], "x").is_err(), "cut {cut}");
        }
    }

    /// A parts file gives back its fields and parts; a changed byte anywhere or a cut is
    /// refused.
    #[test]
    fn parts_files_round_trip_and_refuse_any_change() {
        let parts = parts(3, 2);
        let file = PartsFile {
            step: 40,
            shard: (1, 3),
            config_crc: 0xdead_beef,
            states_crc: Some(7),
        };
        let bytes = file.encode(&parts);
        // The largest file: one chunk of each kind more than there are points.
        let mut fullest = parts.clone();
        fullest.points = fullest.energy.len() as u64 - 1;
        assert_eq!(
            file.encode(&fullest).len() as u64,
            PartsFile::max_len(fullest.points as usize)
        );
        let (back, got) = PartsFile::decode(&bytes, "x").unwrap();
        assert_eq!(back, file);
        assert_eq!(got.encode(), parts.encode());
        for at in 0..bytes.len() {
            let mut b = bytes.clone();
            b[at] ^= 0x10;
            assert!(PartsFile::decode(&b, "x").is_err(), "byte {at}");
            assert!(PartsFile::decode(&bytes[..at], "x").is_err(), "cut {at}");
        }
    }
}
