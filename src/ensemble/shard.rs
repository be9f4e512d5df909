//! Shards of an ensemble: `run --shard K/N`, MPI ranks and several GPUs each advance one
//! contiguous range of the points. Every range starts at a multiple of `SHARD_ALIGN`, a whole
//! number of the statistics' chunks (`measure::energy::CHUNK`) and of the GPU reduction's
//! workgroups (`gpu::energy::REDUCE_SIZE`), so the shards' chunk accumulators, appended in
//! shard order, are exactly the whole ensemble's (`measure::parts`).

use std::ops::Range;

use crate::error::{Field, Result};
use crate::invalid;

/// Shard boundaries fall on multiples of this many points.
pub const SHARD_ALIGN: usize = 4096;

/// Shard `index` (0-based) of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    /// `K/N` as the command line gives it (K from 0 to N − 1).
    pub fn parse(text: &str) -> Result<Shard> {
        let bad = || {
            invalid!(Field::Shard;
                Field::Shard.is(text),
                ": expected K/N with 0 <= K < N (the K-th of N shards, counted from 0), e.g. ",
                Field::Shard.is("0/4")
            )
        };
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let (index, count) = (
            k.trim().parse::<usize>().map_err(|_| bad())?,
            n.trim().parse::<usize>().map_err(|_| bad())?,
        );
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// How config.toml records it.
    pub fn text(&self) -> String {
        format!("{}/{}", self.index, self.count)
    }

    /// The points of an ensemble of `n` this shard advances.
    pub fn range(&self, n: usize) -> Result<Range<usize>> {
        let ranges = split(n, self.count)?;
        Ok(ranges[self.index].clone())
    }
}

/// `n` points cut into `count` contiguous ranges as equal as whole `SHARD_ALIGN` blocks
/// allow, in order; an error when some range would be empty.
pub fn split(n: usize, count: usize) -> Result<Vec<Range<usize>>> {
    let blocks = n.div_ceil(SHARD_ALIGN);
    if count == 0 || count > blocks {
        return Err(invalid!(Field::Shard;
            format!("{n} points cannot be split into {count} shards: shards start at multiples of {SHARD_ALIGN} points (so that their statistics merge bit for bit), which gives at most {blocks}; use more "),
            Field::Points,
            " or fewer shards"
        ));
    }
    let start = |k: usize| (k * blocks / count * SHARD_ALIGN).min(n);
    Ok((0..count).map(|k| start(k)..start(k + 1)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_cover_the_ensemble_at_aligned_boundaries() {
        for (n, count) in [
            (4096, 1),
            (8192, 2),
            (10_000, 3),
            (1_000_000, 7),
            (12_289, 4),
        ] {
            let r = split(n, count).unwrap();
            assert_eq!(r.len(), count);
            assert_eq!((r[0].start, r[count - 1].end), (0, n));
            for w in r.windows(2) {
                assert_eq!(w[0].end, w[1].start);
                assert!(w[0].end % SHARD_ALIGN == 0 && !w[0].is_empty());
            }
        }
        assert!(split(8192, 3).is_err());
        assert!(split(100, 2).is_err());
        assert_eq!(split(100, 1).unwrap(), vec![0..100]);
    }

    #[test]
    fn alignment_is_whole_chunks_and_workgroups() {
        assert_eq!(SHARD_ALIGN % crate::measure::energy::CHUNK, 0);
        assert_eq!(SHARD_ALIGN % crate::gpu::energy::REDUCE_SIZE as usize, 0);
    }

    #[test]
    fn parse_accepts_k_of_n_only() {
        assert_eq!(Shard::parse("1/3").unwrap(), Shard { index: 1, count: 3 });
        for bad in ["3/3", "1", "a/2", "0/0", "-1/2", ""] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
    }
}
