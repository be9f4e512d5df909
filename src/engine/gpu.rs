//! The GPU engine: the ensemble lives on the device in structure-of-arrays chunks; one dispatch
//! advances many steps per thread with the state in registers (shaders/common/driver.wgsl);
//! the host splits runs under a per-dispatch work cap and reads back only when asked. f32 or
//! f64 (`GpuEngine<T>`: the kernel's `real`), plain or compensated; sizing and the checks made
//! before allocating are in `gpu_layout`.

use super::gpu_layout::{
    check_device_memory, check_f64_support, check_kernel_size, check_pairs_support,
    check_workgroup_size, cpu_driver_steps_cap, dispatch_grid, large_kernel, max_chunk_points,
    steps_per_dispatch, words_per_point, DISPATCHES_PER_SUBMIT,
};
use super::{Crossings, Engine, Integrator};
use crate::error::{Error, Field, Result};
use crate::float::Real;
use crate::gpu::energy::{EnergyReducer, StateLayout};
use crate::gpu::shader::KernelSpec;
use crate::gpu::{self, shader, GpuContext, RunParams};
use crate::measure::energy::columns::{energy_part, Energy};
use crate::measure::measurement::{Acceleration, Measurement, Part};
use crate::measure::registry::Unconverged;
use crate::observe::frequencies::FrequencyTable;
use crate::observe::{self, Placed};
use crate::state::State;
use crate::system::System;

mod words;

struct Chunk {
    /// First point of the chunk in the global state, and its point count.
    offset: usize,
    n: usize,
    /// Workgroups of the chunk's 2-D dispatch grid (x, y).
    grid: (u32, u32),
    buffer: wgpu::Buffer,
    /// One uniform buffer and bind group per kind of dispatch an advance makes: slot 0 for
    /// the full-length dispatches, slot 1 for the shorter last one. Each is written once per
    /// advance, before its dispatches are submitted, so successive dispatches never wait on a
    /// `write_buffer` to a uniform that an earlier dispatch is still reading.
    params: [wgpu::Buffer; 2],
    bind_groups: [wgpu::BindGroup; 2],
}

pub struct GpuEngine<T: Real> {
    ctx: &'static GpuContext,
    pipeline: wgpu::ComputePipeline,
    chunks: Vec<Chunk>,
    staging: wgpu::Buffer,
    state: State<T>,
    /// False after `advance` until the next read-back.
    host_current: bool,
    h: f64,
    /// The run's step as given (`h` changes sign on `reverse`): what a discrete map's energy
    /// is evaluated at (`EnergyReducer::new`), as on the host.
    dt: f64,
    /// The kernel carries compensated summation's errors (after the unconverged counts).
    compensated: bool,
    chunk_limit: usize,
    /// Most workgroups per row of the dispatch grid (the device's per-dimension limit, or
    /// less for tests: `limit_grid_width`).
    grid_width: u32,
    /// Tangent columns the kernel was compiled for.
    nt: usize,
    /// Most steps one dispatch may take (bounded on CPU drivers; see `cpu_driver_steps_cap`).
    steps_cap: u64,
    /// Gradient evaluations per step at most (sizes the dispatches: `steps_per_dispatch`).
    evals_per_step: u64,
    /// The device-side energy statistics (devices with f64), built on the first
    /// `Engine::acceleration`: `bench`, `validate` and refinement's engines never compile it.
    energy: Option<EnergyReducer>,
    /// The system, for building `energy`.
    system: System,
    /// The integrator's observers that run on this state (`observe::active`), their words
    /// after the state's in every chunk.
    observers: Vec<Placed>,
    /// The observers' carried words per point (`State::chaos`'s columns), uploaded and read
    /// back with the state …
    carried: usize,
    /// … and their kept words after them, read only when asked (`crossings`).
    kept: usize,
    /// Steps advanced since the kept words started.
    observed_steps: u64,
}

impl<T: Real> GpuEngine<T> {
    pub fn new(k: &Integrator, state: State<T>) -> Result<Self> {
        Self::with_chunk_limit(k, state, usize::MAX)
    }

    /// Like `new`, with chunks no larger than `chunk_limit` points (tests use this to exercise
    /// chunking). The solver's settings are compiled into the kernel.
    pub fn with_chunk_limit(k: &Integrator, state: State<T>, chunk_limit: usize) -> Result<Self> {
        Self::build(gpu::context()?, k, state, chunk_limit)
    }

    /// Like `new`, on the device of `ctx` (`gpu::context_at`: `--devices`, MPI ranks).
    pub fn on(ctx: &'static GpuContext, k: &Integrator, state: State<T>) -> Result<Self> {
        Self::build(ctx, k, state, usize::MAX)
    }

    fn build(
        ctx: &'static GpuContext,
        k: &Integrator,
        state: State<T>,
        chunk_limit: usize,
    ) -> Result<Self> {
        let (system, method, h, solver) = (&k.system, k.method, k.h, k.solver);
        check_kernel_supported::<T>(ctx, system, state.nt)?;
        let f64 = T::NAME == "f64";
        if crate::method::variational::map_in_f64(k.compensated, f64, system) {
            check_pairs_support(ctx.f64, &ctx.info.name, system)?;
        }
        let words = words_per_point(state.comps(), k.compensated);
        let carried = state.chaos_width();
        let observers = observe::active(&k.observers, carried);
        let kept = observers
            .iter()
            .map(|o| o.observer.kept_words())
            .sum::<usize>();
        let all_words = words + carried + kept;
        check_device_memory(ctx, Field::Points, state.n, all_words, size_of::<T>())?;
        check_kernel_size(ctx, k, state.comps())?;
        check_workgroup_size(&ctx.limits, &ctx.info.name)?;
        let device = &ctx.device;
        let spec = KernelSpec {
            nt: state.nt,
            solver,
            f64,
            compensated: k.compensated,
        };
        let source = shader::compose_observed(system, method, &spec, &observers, words);
        if large_kernel(system.dof(), state.comps()) {
            crate::info!(
                "phaseflow: building the GPU kernel of {} / {} ({} components per point); a kernel this large can take a while to compile",
                system.name(),
                method.name(),
                state.comps()
            );
        }
        // SAFETY: the module is generated by `shader::compose_kernel` from the project's own WGSL
        // (a user's formula reaches it only as `expr::wgsl`'s arithmetic on the function-local
        // arrays q, p, vq, vp with constant indices below D: no storage access, no loop) and
        // passes naga's full validation first. Its only storage
        // accesses are `state[c·n + i]` for c < `words_per_point` after the `i < n` guard, inside
        // the chunk's buffer of `words_per_point`·n values, and its array indices are loop counters below
        // the array lengths; its loops are bounded by `params.steps` and constant counts. So the
        // runtime bounds checks and loop-bounding counters of the checked path can never fire
        // and only cost instructions in the innermost loop.
        let pipeline = unsafe {
            shader::compute_pipeline(
                ctx,
                &format!("{} / {}", system.name(), method.name()),
                &source,
                wgpu::ShaderRuntimeChecks::unchecked(),
            )?
        };
        let staging = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("read-back staging (placeholder until set_state)"),
            size: 4,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut engine = GpuEngine {
            ctx,
            pipeline,
            chunks: Vec::new(),
            staging,
            state: State::zeros(0, state.d),
            host_current: true,
            h,
            dt: h,
            compensated: k.compensated,
            chunk_limit,
            grid_width: ctx.limits.max_compute_workgroups_per_dimension,
            nt: state.nt,
            steps_cap: if ctx.info.device_type == wgpu::DeviceType::Cpu {
                cpu_driver_steps_cap(system, method, state.comps(), solver)
            } else {
                u32::MAX as u64
            },
            evals_per_step: method.evals_per_step(system, solver),
            energy: None,
            system: system.clone(),
            observers,
            carried,
            kept,
            observed_steps: 0,
        };
        engine.set_state(state)?;
        Ok(engine)
    }

    /// At most `groups` workgroups per row of the 2-D dispatch grid (at least 1), so that even a
    /// small ensemble spans several rows: tests check the grid's indexing with this.
    pub fn limit_grid_width(&mut self, groups: u32) -> Result<()> {
        self.grid_width = groups.clamp(1, self.ctx.limits.max_compute_workgroups_per_dimension);
        let state = self.state()?.clone();
        self.build_chunks(state)
    }

    /// Lay out device buffers for `state` (chunked under the device limits) and upload it.
    fn build_chunks(&mut self, state: State<T>) -> Result<()> {
        let state = state.with_compensation(self.compensated);
        let device = &self.ctx.device;
        let (n, comps) = (state.n, state.comps());
        let words = words_per_point(comps, self.compensated) + self.carried + self.kept;
        let value = size_of::<T>();
        let per_chunk = max_chunk_points(&self.ctx.limits, (words * value) as u64)
            .min(self.chunk_limit)
            .max(1);
        let layout = self.pipeline.get_bind_group_layout(0);
        let oom = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let mut chunks = Vec::new();
        let mut offset = 0;
        while offset < n {
            let cn = per_chunk.min(n - offset);
            let buffer = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(&format!("state chunk at {offset}")),
                size: (words * cn * value) as u64,
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            let params = [0, 1].map(|slot| {
                device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(&format!("run params slot {slot}, chunk at {offset}")),
                    size: std::mem::size_of::<RunParams>() as u64,
                    usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                })
            });
            let bind_groups = [0, 1].map(|slot| {
                device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some(&format!("state bind group slot {slot}, chunk at {offset}")),
                    layout: &layout,
                    entries: &[
                        wgpu::BindGroupEntry {
                            binding: 0,
                            resource: params[slot].as_entire_binding(),
                        },
                        wgpu::BindGroupEntry {
                            binding: 1,
                            resource: buffer.as_entire_binding(),
                        },
                    ],
                })
            });
            chunks.push(Chunk {
                offset,
                n: cn,
                grid: dispatch_grid(cn, self.grid_width),
                buffer,
                params,
                bind_groups,
            });
            offset += cn;
        }
        let staging = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("read-back staging"),
            size: (words * per_chunk.min(n).max(1) * value) as u64,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        if let Some(e) = pollster::block_on(oom.pop()) {
            return Err(Error::Gpu(format!(
                "cannot allocate {} MiB of GPU memory for {n} points: {e}; use fewer points",
                (words * n * value) >> 20
            )));
        }
        self.chunks = chunks;
        self.staging = staging;
        if let Some(r) = &mut self.energy {
            r.bind(&Self::chunk_buffers(&self.chunks))?;
        }
        self.state = state;
        self.host_current = true;
        self.upload();
        self.ctx.check()
    }

    /// The device reduction of the energy statistics, built on first use; `None` without
    /// f64 on the device or an f64 WGSL of H.
    fn reducer(&mut self) -> Result<Option<&EnergyReducer>> {
        if self.energy.is_none() {
            let layout = StateLayout {
                comps: self.state.comps(),
                f64: T::NAME == "f64",
                compensated: self.compensated,
            };
            let Some(mut r) = EnergyReducer::new(self.ctx, &self.system, self.dt, layout)? else {
                return Ok(None); // no f64 on this device, or no f64 WGSL of H
            };
            r.bind(&Self::chunk_buffers(&self.chunks))?;
            self.energy = Some(r);
        }
        Ok(self.energy.as_ref())
    }

    /// The reducer `Engine::acceleration` found (an error where the device has none).
    fn built_reducer(&mut self) -> Result<&EnergyReducer> {
        self.reducer()?.ok_or_else(|| {
            Error::Gpu("energy statistics are not reduced on this device (no f64)".into())
        })
    }

    fn upload(&self) {
        let (n, d) = (self.state.n, self.state.comps());
        let st = &self.state;
        for c in &self.chunks {
            // Chunk layout: q components then p components, each a run of c.n points, then
            // the unconverged counts (as T), then (compensated) eq and ep like q and p.
            let range = |k: usize| k * n + c.offset..k * n + c.offset + c.n;
            let mut data = Vec::with_capacity(words_per_point(d, self.compensated) * c.n);
            for k in 0..d {
                data.extend_from_slice(&st.q[range(k)]);
            }
            for k in 0..d {
                data.extend_from_slice(&st.p[range(k)]);
            }
            data.extend(
                st.unconverged[c.offset..c.offset + c.n]
                    .iter()
                    .map(|&u| T::from_f64(u as f64)),
            );
            for e in [&st.eq, &st.ep].into_iter().filter(|e| !e.is_empty()) {
                for k in 0..d {
                    data.extend_from_slice(&e[range(k)]);
                }
            }
            for k in 0..self.carried {
                data.extend_from_slice(&st.chaos[range(k)]);
            }
            self.ctx
                .queue
                .write_buffer(&c.buffer, 0, bytemuck::cast_slice(&data));
        }
    }

    /// Every chunk's state buffer and point count (what the energy reduction binds).
    fn chunk_buffers(chunks: &[Chunk]) -> Vec<(&wgpu::Buffer, usize)> {
        chunks.iter().map(|c| (&c.buffer, c.n)).collect()
    }

    fn read_back(&mut self) -> Result<()> {
        let (n, d) = (self.state.n, self.state.comps());
        let words = words_per_point(d, self.compensated);
        let carried = self.carried;
        for c in &self.chunks {
            let bytes = ((words + carried) * c.n * size_of::<T>()) as u64;
            let mut enc = self
                .ctx
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("read-back"),
                });
            enc.copy_buffer_to_buffer(&c.buffer, 0, &self.staging, 0, bytes);
            self.ctx.queue.submit([enc.finish()]);
            let state = &mut self.state;
            self.ctx
                .read_staging(&self.staging, bytes, "read-back", |raw| {
                    let data: &[T] = bytemuck::cast_slice(raw);
                    // the chunk's runs of c.n values, in the order `upload` wrote them
                    let run = |r: usize| &data[r * c.n..(r + 1) * c.n];
                    let range = |k: usize| k * n + c.offset..k * n + c.offset + c.n;
                    for k in 0..d {
                        state.q[range(k)].copy_from_slice(run(k));
                        state.p[range(k)].copy_from_slice(run(d + k));
                        if !state.eq.is_empty() {
                            state.eq[range(k)].copy_from_slice(run(2 * d + 1 + k));
                            state.ep[range(k)].copy_from_slice(run(3 * d + 1 + k));
                        }
                    }
                    for k in 0..carried {
                        state.chaos[range(k)].copy_from_slice(run(words + k));
                    }
                    for (u, &x) in state.unconverged[c.offset..c.offset + c.n]
                        .iter_mut()
                        .zip(run(2 * d))
                    {
                        *u = x.to_f64() as u32;
                    }
                })?;
        }
        self.host_current = true;
        Ok(())
    }
}

impl<T: Real> Engine<T> for GpuEngine<T> {
    fn describe(&self) -> String {
        format!("gpu: {}", self.ctx.describe())
    }

    /// Submits the dispatches and returns: the device is synchronised only when the state is
    /// read (`state`), so a run's progress report (one advance per piece) never stalls the queue.
    fn advance(&mut self, steps: u64) -> Result<()> {
        if steps == 0 {
            return Ok(());
        }
        // Per chunk: the number of full-length dispatches and the length of the last one.
        let mut plan = Vec::with_capacity(self.chunks.len());
        for c in &self.chunks {
            let per_dispatch = steps_per_dispatch(c.n, self.evals_per_step, self.steps_cap);
            let (full, rest) = (steps / per_dispatch, steps % per_dispatch);
            for (slot, s) in [per_dispatch, rest].into_iter().enumerate() {
                let params = RunParams::new(
                    c.n as u32,
                    s as u32,
                    self.h,
                    T::NAME == "f64",
                    c.grid.0 * shader::WORKGROUP_SIZE,
                );
                self.ctx
                    .queue
                    .write_buffer(&c.params[slot], 0, bytemuck::bytes_of(&params));
            }
            plan.push((c, full, rest));
        }
        let mut dispatches = plan.into_iter().flat_map(|(c, full, rest)| {
            std::iter::repeat_n((c, 0), full as usize).chain((rest > 0).then_some((c, 1)))
        });
        loop {
            let batch: Vec<(&Chunk, usize)> =
                dispatches.by_ref().take(DISPATCHES_PER_SUBMIT).collect();
            if batch.is_empty() {
                break;
            }
            let mut enc = self
                .ctx
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("advance"),
                });
            {
                let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("steps"),
                    timestamp_writes: None,
                });
                pass.set_pipeline(&self.pipeline);
                for &(c, slot) in &batch {
                    pass.set_bind_group(0, &c.bind_groups[slot], &[]);
                    pass.dispatch_workgroups(c.grid.0, c.grid.1, 1);
                }
            }
            self.ctx.queue.submit([enc.finish()]);
        }
        self.host_current = false;
        self.observed_steps += steps;
        // Reclaim finished submissions without blocking; errors surface here or at read-back.
        let _ = self.ctx.device.poll(wgpu::PollType::Poll);
        self.ctx.check()
    }

    fn state(&mut self) -> Result<&State<T>> {
        if !self.host_current {
            self.read_back()?;
        }
        Ok(&self.state)
    }

    fn points(&self) -> usize {
        self.state.n
    }

    // The step goes to the kernels with every dispatch's parameters (`RunParams`).
    fn reverse(&mut self) {
        self.h = -self.h;
    }

    fn acceleration(&mut self) -> Result<Option<&mut dyn Acceleration>> {
        Ok(match self.reducer()? {
            Some(_) => Some(self),
            None => None,
        })
    }

    fn set_state(&mut self, state: State<T>) -> Result<()> {
        if state.nt != self.nt || state.chaos_width() != self.carried {
            return Err(Error::Gpu(
                "set_state: the kernel was compiled for a different number of tangent columns or chaos accumulators"
                    .into(),
            ));
        }
        // Renormalised tangent columns keep the points and so the observers' kept words; a
        // new set of points starts its own (new buffers are zeroed).
        let first = words_per_point(self.state.comps(), self.compensated) + self.carried;
        let kept = match self.kept > 0 && state.n == self.state.n {
            true => Some(self.read_words(first, self.kept)?),
            false => None,
        };
        self.build_chunks(state)?;
        match kept {
            Some(raw) => {
                self.write_words(first, &raw);
                self.ctx.check()
            }
            None => {
                self.observed_steps = 0;
                Ok(())
            }
        }
    }

    fn crossings(&mut self) -> Result<Option<Crossings>> {
        let steps = self.observed_steps;
        self.read_out(false, |o, chunks| o.crossings_from_words(chunks, steps))
    }

    fn frequencies(&mut self) -> Result<Option<FrequencyTable>> {
        let on_device = self.finish_pass()?;
        self.read_out(!on_device, |o, chunks| o.frequencies_from_words(chunks))
    }
}

/// The energy statistics and unconverged counts, reduced on the device (`gpu::energy`); the
/// engine offers it only once its reducer is built (`Engine::acceleration`).
impl<T: Real> Acceleration for GpuEngine<T> {
    fn start(&mut self) -> Result<()> {
        self.built_reducer()?.reduce(true).map(|_| ())
    }

    fn parts(&mut self) -> Result<Vec<(&'static str, Part)>> {
        let (energy, unconverged) = self.built_reducer()?.reduce(false)?;
        Ok(vec![
            (Energy.name(), energy_part(&energy)),
            (Unconverged.name(), Part::Sum(unconverged)),
        ])
    }

    fn initial(&mut self) -> Result<Vec<f64>> {
        self.built_reducer()?.read_h0()
    }

    fn restore(&mut self, initial: &[f64]) -> Result<()> {
        self.built_reducer()?.write_h0(initial)
    }
}

/// What the GPU kernels cannot run, refused before anything is built: tangent columns of a
/// discrete map, and f64 on an adapter without it.
fn check_kernel_supported<T: Real>(ctx: &GpuContext, system: &System, nt: usize) -> Result<()> {
    if nt > 0 && system.variational() {
        return Err(crate::invalid!(Field::Tangent;
            Field::Tangent,
            format!(": the GPU kernels of the discrete maps carry no tangent columns; run system '{}' with ", system.name()),
            Field::Backend.is("cpu")
        ));
    }
    if T::NAME == "f64" {
        check_f64_support(ctx.f64, &ctx.info.name, system)?;
    }
    Ok(())
}
