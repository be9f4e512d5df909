//! The GPU engine's observer words: read back and written per chunk (`read_words`,
//! `write_words`), and an observer's read-out from its result words (`read_out`: a section's
//! crossings, the frequencies).

use super::super::gpu_layout::words_per_point;
use super::GpuEngine;
use crate::error::Result;
use crate::float::Real;
use crate::observe;

impl<T: Real> GpuEngine<T> {
    /// Every chunk's words `first..first + count` per point as the device holds them (chunk
    /// layout: word j of point i at `j·n + i`), through the staging buffer.
    pub(super) fn read_words(&self, first: usize, count: usize) -> Result<Vec<Vec<T>>> {
        let size = size_of::<T>() as u64;
        let mut all = Vec::with_capacity(self.chunks.len());
        for c in &self.chunks {
            let (offset, bytes) = ((first * c.n) as u64 * size, (count * c.n) as u64 * size);
            let mut enc = self
                .ctx
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("observer words read-back"),
                });
            enc.copy_buffer_to_buffer(&c.buffer, offset, &self.staging, 0, bytes);
            self.ctx.queue.submit([enc.finish()]);
            let raw =
                self.ctx
                    .read_staging(&self.staging, bytes, "observer words read-back", |raw| {
                        bytemuck::cast_slice::<u8, T>(raw).to_vec()
                    })?;
            all.push(raw);
        }
        Ok(all)
    }

    /// Write back what `read_words(first, ..)` read (after the chunks were rebuilt with as
    /// many points).
    pub(super) fn write_words(&self, first: usize, raw: &[Vec<T>]) {
        for (c, words) in self.chunks.iter().zip(raw) {
            let offset = (first * c.n * size_of::<T>()) as u64;
            self.ctx
                .queue
                .write_buffer(&c.buffer, offset, bytemuck::cast_slice(words));
        }
    }

    /// The first observer's read-out `f` gives, from its result words read back per chunk.
    pub(super) fn read_out<R>(
        &mut self,
        f: impl Fn(&dyn observe::Observer, &[(Vec<f64>, usize)]) -> Option<R>,
    ) -> Result<Option<R>> {
        let words = words_per_point(self.state.comps(), self.compensated);
        for o in self.observers.clone().iter().filter(|o| o.observer.kept_words() > 0) {
            let range = o.observer.result_words();
            let raw = self.read_words(words + o.word + range.start, range.len())?;
            let chunks: Vec<(Vec<f64>, usize)> = raw
                .into_iter()
                .zip(&self.chunks)
                .map(|(w, c)| (w.iter().map(|x| x.to_f64()).collect(), c.n))
                .collect();
            if let Some(r) = f(&*o.observer, &chunks) {
                return Ok(Some(r));
            }
        }
        Ok(None)
    }
}
