//! A state as bytes and back: what MPI ranks exchange.

use super::State;
use crate::float::Real;

impl<T: Real> State<T> {
    /// The state as bytes (sizes, then q, p, eq, ep and the unconverged counts as they are
    /// stored): what MPI ranks exchange.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let head = [self.n, self.d, self.nt, usize::from(self.compensated())];
        for x in head.into_iter().chain([self.chaos_width()]) {
            out.extend((x as u64).to_le_bytes());
        }
        for v in self.vectors() {
            out.extend_from_slice(bytemuck::cast_slice(v));
        }
        out.extend_from_slice(bytemuck::cast_slice(&self.unconverged));
        out.extend_from_slice(bytemuck::cast_slice(&self.chaos));
        out
    }

    /// The state `to_bytes` wrote (`None` when the bytes are not one).
    pub fn from_bytes(bytes: &[u8]) -> Option<State<T>> {
        let word = |i: usize| -> Option<usize> {
            Some(u64::from_le_bytes(bytes.get(8 * i..8 * i + 8)?.try_into().ok()?) as usize)
        };
        let (n, d, nt, comp, width) = (word(0)?, word(1)?, word(2)?, word(3)? != 0, word(4)?);
        let mut s = State {
            n,
            d,
            nt,
            q: Vec::new(),
            p: Vec::new(),
            unconverged: Vec::new(),
            eq: Vec::new(),
            ep: Vec::new(),
            chaos: Vec::new(),
        };
        let len = n.checked_mul(s.comps())?;
        let width_bytes = std::mem::size_of::<T>();
        let mut at = 40;
        let mut take = |count: usize, size: usize| -> Option<&[u8]> {
            let b = bytes.get(at..at + count * size)?;
            at += count * size;
            Some(b)
        };
        let vector = |b: &[u8]| -> Vec<T> {
            b.chunks_exact(width_bytes)
                .map(|c| bytemuck::pod_read_unaligned(c))
                .collect()
        };
        s.q = vector(take(len, width_bytes)?);
        s.p = vector(take(len, width_bytes)?);
        if comp {
            s.eq = vector(take(len, width_bytes)?);
            s.ep = vector(take(len, width_bytes)?);
        }
        s.unconverged = take(n, 4)?
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        s.chaos = vector(take(n.checked_mul(width)?, width_bytes)?);
        (at == bytes.len()).then_some(s)
    }
}
