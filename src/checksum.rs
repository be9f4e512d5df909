//! The seal on the files phaseflow writes and later reads back whole (a run's checkpoint, a
//! shard's parts): their last 4 bytes hold the CRC-32 (IEEE 802.3, the `crc32fast` crate) of
//! every byte before them, little-endian. A CRC-32 detects every change confined to 32
//! consecutive bits (so any one changed byte) and all other changes but one in 2^32, which
//! includes a cut file. A whole file swapped for another sealed one passes: the readers check
//! what the file says it belongs to (run, step, shard) themselves.

/// CRC-32 of `bytes` (also what a checkpoint records of stats.csv and a shard's parts of its
/// config.toml and saved states).
pub fn crc32(bytes: &[u8]) -> u32 {
    crc32fast::hash(bytes)
}

/// The length and CRC-32 of the file at `path`, read a piece at a time (a manifest records
/// them of every file of a run, saved states too, without holding one whole in memory).
pub fn crc32_file(path: &std::path::Path) -> std::io::Result<(u64, u32)> {
    use std::io::Read;
    let mut file = std::fs::File::open(path)?;
    let mut buf = vec![0; 1 << 20];
    let (mut len, mut hasher) = (0, crc32fast::Hasher::new());
    loop {
        match file.read(&mut buf) {
            Ok(0) => return Ok((len, hasher.finalize())),
            Ok(n) => {
                hasher.update(&buf[..n]);
                len += n as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// The CRC-32 of data given in pieces: a checkpoint's arrays, written without being copied
/// into one buffer, and stats.csv's rows as they are written (so a checkpoint records their
/// CRC-32 without reading the file back).
#[derive(Clone, Default)]
pub struct Sealer(crc32fast::Hasher);

impl Sealer {
    /// Going on from data of `len` bytes whose CRC-32 is `crc` (a file appended to).
    pub fn continuing(crc: u32, len: u64) -> Self {
        Sealer(crc32fast::Hasher::new_with_initial_len(crc, len))
    }

    pub fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    /// The CRC-32 of the data so far.
    pub fn crc(&self) -> u32 {
        self.0.clone().finalize()
    }

    /// The 4 bytes to write after the data.
    pub fn seal(self) -> [u8; 4] {
        self.0.finalize().to_le_bytes()
    }
}

/// `bytes` with the seal appended.
pub fn sealed(mut bytes: Vec<u8>) -> Vec<u8> {
    let seal = crc32(&bytes).to_le_bytes();
    bytes.extend(seal);
    bytes
}

/// The data of a sealed file, or `None` when its seal does not match (or it is too short to
/// hold one).
pub fn unseal(bytes: &[u8]) -> Option<&[u8]> {
    let split = bytes.len().checked_sub(4)?;
    let (data, seal) = bytes.split_at(split);
    (crc32(data).to_le_bytes() == seal).then_some(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_changed_byte_and_every_cut_breaks_the_seal() {
        let data: Vec<u8> = (0..300u32).map(|i| (i * 37 % 251) as u8).collect();
        let file = sealed(data.clone());
        let mut pieces = Sealer::default();
        pieces.update(&data[..100]);
        pieces.update(&data[100..]);
        assert_eq!(pieces.crc(), crc32(&data));
        let mut continued = Sealer::continuing(crc32(&data[..100]), 100);
        continued.update(&data[100..]);
        assert_eq!(continued.crc(), crc32(&data));
        assert_eq!(&file[data.len()..], &pieces.seal());
        assert_eq!(unseal(&file), Some(&data[..]));
        for at in 0..file.len() {
            for bit in 0..8 {
                let mut b = file.clone();
                b[at] ^= 1 << bit;
                assert!(unseal(&b).is_none(), "byte {at} bit {bit}");
            }
            assert!(unseal(&file[..at]).is_none(), "cut at {at}");
        }
    }
}
