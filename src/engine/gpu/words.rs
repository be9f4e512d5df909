//! The GPU engine's observer words: read back and written per chunk (`read_words`,
//! `write_words`), and an observer's read-out from its result words (`read_out`: a section's
//! crossings, the frequencies).

use super::super::gpu_layout::{words_per_point, CPU_DRIVER_LOOP_BUDGET};
use super::GpuEngine;
use crate::error::Result;
use crate::float::Real;
use crate::gpu::{shader, RunParams};
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

    /// The first observer's read-out `f` gives, from its result words (`all`: every kept
    /// word) read back per chunk.
    pub(super) fn read_out<R>(
        &mut self,
        all: bool,
        f: impl Fn(&dyn observe::Observer, &[(Vec<f64>, usize)]) -> Option<R>,
    ) -> Result<Option<R>> {
        let words = words_per_point(self.state.comps(), self.compensated);
        for o in self
            .observers
            .clone()
            .iter()
            .filter(|o| o.observer.kept_words() > 0)
        {
            let range = match all {
                true => 0..o.observer.kept_words(),
                false => o.observer.result_words(),
            };
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

    /// The observers' passes after the steps (`Observer::finish_loops`), as one dispatch of no
    /// steps per chunk; whether they ran (not on a CPU driver whose loop limiter would cut a
    /// pass short: then the observers read every kept word instead).
    pub(super) fn finish_pass(&mut self) -> Result<bool> {
        let loops = self
            .observers
            .iter()
            .filter_map(|o| o.observer.finish_loops());
        let cpu = self.ctx.info.device_type == wgpu::DeviceType::Cpu;
        if loops.clone().count() == 0 || (cpu && loops.sum::<u64>() > CPU_DRIVER_LOOP_BUDGET) {
            return Ok(false);
        }
        let mut enc = self
            .ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("observers' pass"),
            });
        for c in &self.chunks {
            let params = RunParams::new(
                c.n as u32,
                0,
                self.h,
                T::NAME == "f64",
                c.grid.0 * shader::WORKGROUP_SIZE,
            );
            self.ctx
                .queue
                .write_buffer(&c.params[1], 0, bytemuck::bytes_of(&params));
        }
        {
            let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("observers' pass"),
                timestamp_writes: None,
            });
            pass.set_pipeline(&self.pipeline);
            for c in &self.chunks {
                pass.set_bind_group(0, &c.bind_groups[1], &[]);
                pass.dispatch_workgroups(c.grid.0, c.grid.1, 1);
            }
        }
        self.ctx.queue.submit([enc.finish()]);
        self.ctx.check()?;
        Ok(true)
    }
}
