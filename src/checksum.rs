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

/// The seal of data given in pieces (a checkpoint's arrays are written without being copied
/// into one buffer).
#[derive(Default)]
pub struct Sealer(crc32fast::Hasher);

impl Sealer {
    pub fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
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
