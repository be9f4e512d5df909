//! The GPU engine's share of a Poincaré section: each chunk's buffer holds, after the state's
//! words, the section words of `section::wgsl` (the kernel appends the crossings there), read
//! back into a `SectionStore` only when the crossings are asked for.

use crate::error::Result;
use crate::float::Real;
use crate::gpu::GpuContext;
use crate::section::{wgsl, Section, SectionStore};

/// A chunk's buffer and its point count.
pub type ChunkBuffer<'a> = (&'a wgpu::Buffer, usize);

#[derive(Debug, Clone, Copy)]
pub struct GpuSection {
    pub section: Section,
    /// Words per point of the state before the section's.
    pub state_words: usize,
    /// Steps advanced since t = 0.
    pub steps: u64,
}

impl GpuSection {
    pub fn new(section: Section, state_words: usize) -> Self {
        GpuSection {
            section,
            state_words,
            steps: 0,
        }
    }

    /// The section's words per point.
    pub fn words(&self) -> usize {
        wgsl::words(&self.section)
    }

    /// Every chunk's section words as the device holds them (chunk layout: word j of point i
    /// at `j·n + i`), through `staging`.
    pub fn read_raw<T: Real>(
        &self,
        ctx: &GpuContext,
        staging: &wgpu::Buffer,
        chunks: &[ChunkBuffer],
    ) -> Result<Vec<Vec<T>>> {
        let size = size_of::<T>() as u64;
        let mut all = Vec::with_capacity(chunks.len());
        for &(buffer, n) in chunks {
            let (offset, bytes) = (
                (self.state_words * n) as u64 * size,
                (self.words() * n) as u64 * size,
            );
            let mut enc = ctx
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("section read-back"),
                });
            enc.copy_buffer_to_buffer(buffer, offset, staging, 0, bytes);
            ctx.queue.submit([enc.finish()]);
            let raw = ctx.read_staging(staging, bytes, "section read-back", |raw| {
                bytemuck::cast_slice::<u8, T>(raw).to_vec()
            })?;
            all.push(raw);
        }
        Ok(all)
    }

    /// Write back what `read_raw` read (after the chunks were rebuilt with as many points).
    pub fn write_raw<T: Real>(&self, ctx: &GpuContext, chunks: &[ChunkBuffer], raw: &[Vec<T>]) {
        for (&(buffer, n), words) in chunks.iter().zip(raw) {
            let offset = (self.state_words * n * size_of::<T>()) as u64;
            ctx.queue
                .write_buffer(buffer, offset, bytemuck::cast_slice(words));
        }
    }

    /// The crossings of every chunk, in point order.
    pub fn read<T: Real>(
        &self,
        ctx: &GpuContext,
        staging: &wgpu::Buffer,
        chunks: &[ChunkBuffer],
    ) -> Result<SectionStore<T>> {
        let raw = self.read_raw::<T>(ctx, staging, chunks)?;
        let parts = chunks
            .iter()
            .zip(&raw)
            .map(|(&(_, n), words)| self.decode(words, n))
            .collect();
        Ok(SectionStore::concat(parts).unwrap_or_else(|| SectionStore::new(self.section, 0)))
    }

    /// One chunk's crossings from its section words (`shaders/common/section.wgsl`'s layout).
    fn decode<T: Real>(&self, raw: &[T], n: usize) -> SectionStore<T> {
        let mut st = SectionStore::new(self.section, n);
        st.steps = self.steps;
        let (max, rv) = (st.max(), self.section.record_values());
        let word = |j: usize, i: usize| raw[j * n + i].to_f64();
        for i in 0..n {
            st.seen[i] = word(0, i) as u64;
            for r in 0..(st.seen[i] as usize).min(max) {
                let at = 3 + r * (2 + rv);
                let at_rec = i * max + r;
                st.ks[at_rec] = word(at + 1, i) as u64 * 65536 + word(at, i) as u64;
                for c in 0..rv {
                    st.vals[at_rec * rv + c] = raw[(at + 2 + c) * n + i];
                }
            }
        }
        st
    }
}
