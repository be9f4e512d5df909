//! The GPU engine: the ensemble lives on the device in structure-of-arrays chunks; one dispatch
//! advances many steps per thread with the state in registers (shaders/common/driver.wgsl);
//! the host splits runs under a per-dispatch work cap and reads back only when asked.

use super::{Engine, Integrator};
use crate::error::{Error, Result};
use crate::gpu::energy::EnergyReducer;
use crate::gpu::{self, shader, GpuContext, RunParams};
use crate::measure::energy::EnergyAccumulator;
use crate::method::{Method, Solver};
use crate::state::State;
use crate::system::System;

/// Work per dispatch, in gradient evaluations × points (`Method::evals_per_step` per step):
/// about 8 ms on an H100 whatever the method (pendulum symplectic Euler, 2 evaluations per
/// step: 2³² point-steps at ~1e12/s; Kepler yoshida6, 28: 3·10⁸ at ~5e10/s). Long enough that
/// the launch cost (µs) vanishes, short enough for GPU watchdogs and a responsive display.
pub const DISPATCH_EVALS: u64 = 1 << 33;

/// Steps one dispatch of `n` points takes: `DISPATCH_EVALS` worth, within `steps_cap`.
pub fn steps_per_dispatch(n: usize, evals_per_step: u64, steps_cap: u64) -> u64 {
    (DISPATCH_EVALS / (n as u64 * evals_per_step.max(1)).max(1)).clamp(1, steps_cap.max(1))
}

/// Mesa's CPU driver (lavapipe / llvmpipe) stops every loop of a shader invocation once the
/// invocation has run 65 535 loop iterations in all, silently (gallivm's loop limiter): a
/// long dispatch would come back with fewer steps done than asked. On CPU adapters the
/// engine therefore keeps the loop iterations of one dispatch below this budget.
pub const CPU_DRIVER_LOOP_BUDGET: u64 = 60_000;

/// Steps per dispatch that keep a kernel within `CPU_DRIVER_LOOP_BUDGET` loop iterations
/// per thread: a generous bound of 8 loop iterations per component per gradient evaluation
/// (the evaluation's own loops, the tangent columns' loops, the update and convergence loops).
pub fn cpu_driver_steps_cap(system: &System, method: Method, comps: usize, solver: Solver) -> u64 {
    let per_step = method.evals_per_step(system, solver) * 8 * comps.max(1) as u64;
    (CPU_DRIVER_LOOP_BUDGET / per_step.max(1)).max(1)
}

/// Most dispatches recorded into one submission (a long advance on a CPU driver, with its
/// small steps cap, is submitted in several).
const DISPATCHES_PER_SUBMIT: usize = 256;

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

/// The 2-D workgroup grid for `n` points: as many workgroups in x as the device allows, then
/// rows of them in y.
fn dispatch_grid(n: usize, max_per_dim: u32) -> (u32, u32) {
    let groups = (n as u64).div_ceil(shader::WORKGROUP_SIZE as u64).max(1);
    let x = groups.min(max_per_dim.max(1) as u64);
    (x as u32, groups.div_ceil(x) as u32)
}

pub struct GpuEngine {
    ctx: &'static GpuContext,
    pipeline: wgpu::ComputePipeline,
    chunks: Vec<Chunk>,
    staging: wgpu::Buffer,
    state: State<f32>,
    /// False after `advance` until the next read-back.
    host_current: bool,
    h: f32,
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
    /// `reduce_energy`: `bench`, `validate` and refinement's engines never compile it.
    energy: Option<EnergyReducer>,
    /// The system, for building `energy`.
    system: System,
}

/// Largest number of points per chunk the device allows (binding size and workgroup count), for
/// `comps` components per point in q and in p.
pub fn max_chunk_points(limits: &wgpu::Limits, comps: usize) -> usize {
    let bytes_per_point = ((2 * comps + 1) * 4) as u64;
    let by_binding = limits.max_storage_buffer_binding_size / bytes_per_point;
    let by_buffer = limits.max_buffer_size / bytes_per_point;
    // A 2-D grid of workgroups; the point index (gid.y · grid_x + gid.x) stays within u32.
    let per_dim = limits.max_compute_workgroups_per_dimension as u64;
    let by_groups = (per_dim * per_dim * shader::WORKGROUP_SIZE as u64).min(u32::MAX as u64);
    by_binding.min(by_buffer).min(by_groups).max(1) as usize
}

/// Device bytes per point: the state chunk's 2·comps components and unconverged count (f32
/// each), and its f64 initial energy where the device has f64 (`gpu::energy`).
pub fn device_bytes_per_point(comps: usize, f64: bool) -> u64 {
    ((2 * comps + 1) * 4) as u64
        + if f64 {
            EnergyReducer::BYTES_PER_POINT as u64
        } else {
            0
        }
}

/// Refuse, before anything is allocated, `points` (given by `flag`) whose device buffers would
/// not fit in 90 % of the device's largest device-local memory heap (where the backend reports
/// one): an input error (exit 2) naming the figure and the fix.
pub fn check_device_memory(
    ctx: &GpuContext,
    flag: &str,
    points: usize,
    comps: usize,
) -> Result<()> {
    let Some(memory) = ctx.device_memory else {
        return Ok(());
    };
    let per_point = device_bytes_per_point(comps, ctx.f64);
    device_memory_fits(flag, points, per_point, memory)
}

fn device_memory_fits(flag: &str, points: usize, per_point: u64, memory: u64) -> Result<()> {
    let need = points as u128 * per_point as u128;
    let room = memory as u128 * 9 / 10;
    if need > room {
        let gib = |b: u128| b as f64 / (1u64 << 30) as f64;
        return Err(crate::input_err!(
            "{flag} {points}: the ensemble needs about {:.1} GiB of GPU memory ({per_point} bytes per point) but the device has {:.1} GiB; use fewer points (at most about {}) or --backend cpu",
            gib(need),
            gib(memory as u128),
            room / per_point.max(1) as u128
        ));
    }
    Ok(())
}

/// Kernels above this many components per point (the point and its tangent columns) are
/// announced on stderr before they are built, and refused on CPU drivers: lavapipe took 132 s
/// to build the solar system's 666-component tangent kernel and then ran slower than the CPU
/// engine, and crashed building the 64-mass chain's 32 896; the 4-mass chain's 136 (the GPU
/// tests) builds in seconds.
pub const LARGE_KERNEL_COMPONENTS: usize = 256;

/// Refuse (exit 2, naming the fix) a kernel too large for a CPU driver to build and run.
pub fn check_kernel_size(ctx: &GpuContext, k: &Integrator, comps: usize) -> Result<()> {
    if ctx.info.device_type == wgpu::DeviceType::Cpu && comps > LARGE_KERNEL_COMPONENTS {
        return Err(crate::input_err!(
            "--backend gpu: the {} / {} kernel carries {comps} components per point (the point and its tangent map's columns), and {} is a CPU driver, which takes minutes to build a kernel that large (or fails) and then runs it slower than the CPU engine; use --backend cpu, or drop --tangent",
            k.system.name(),
            k.method.name(),
            ctx.info.name
        ));
    }
    Ok(())
}

impl GpuEngine {
    pub fn new(k: &Integrator, state: State<f32>) -> Result<Self> {
        Self::with_chunk_limit(k, state, usize::MAX)
    }

    /// Like `new`, with chunks no larger than `chunk_limit` points (tests use this to exercise
    /// chunking). The solver's settings are compiled into the kernel.
    pub fn with_chunk_limit(k: &Integrator, state: State<f32>, chunk_limit: usize) -> Result<Self> {
        let (system, method, h, solver) = (&k.system, k.method, k.h, k.solver);
        let ctx = gpu::context()?;
        check_device_memory(ctx, "--points", state.n, state.comps())?;
        check_kernel_size(ctx, k, state.comps())?;
        let device = &ctx.device;
        let source = shader::compose_with(system, method, state.nt, solver);
        if state.comps() > LARGE_KERNEL_COMPONENTS {
            crate::info!(
                "phaseflow: building the GPU kernel of {} / {} ({} components per point); a kernel this large can take a while to compile",
                system.name(),
                method.name(),
                state.comps()
            );
        }
        // SAFETY: the module is generated by `shader::compose_with` from the project's own WGSL
        // (never from user input) and passes naga's full validation first. Its only storage
        // accesses are `state[c·n + i]` for c < 2·DT + 1 after the `i < n` guard, inside the
        // chunk's buffer of (2·DT + 1)·n words, and its array indices are loop counters below
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
            h: h as f32,
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
    fn build_chunks(&mut self, state: State<f32>) -> Result<()> {
        let device = &self.ctx.device;
        let (n, comps) = (state.n, state.comps());
        let per_chunk = max_chunk_points(&self.ctx.limits, comps)
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
                size: ((2 * comps + 1) * cn * 4) as u64,
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
            size: ((2 * comps + 1) * per_chunk.min(n).max(1) * 4) as u64,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        if let Some(e) = pollster::block_on(oom.pop()) {
            return Err(Error::Gpu(format!(
                "cannot allocate {} MiB of GPU memory for {n} points: {e}; use fewer --points",
                ((2 * comps + 1) * n * 4) >> 20
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

    fn upload(&self) {
        let (n, d) = (self.state.n, self.state.comps());
        for c in &self.chunks {
            // Chunk layout: q components then p components, each a run of c.n points, then
            // the unconverged counts (as f32).
            let mut data = Vec::with_capacity((2 * d + 1) * c.n);
            for k in 0..d {
                data.extend_from_slice(&self.state.q[k * n + c.offset..k * n + c.offset + c.n]);
            }
            for k in 0..d {
                data.extend_from_slice(&self.state.p[k * n + c.offset..k * n + c.offset + c.n]);
            }
            data.extend(
                self.state.unconverged[c.offset..c.offset + c.n]
                    .iter()
                    .map(|&u| u as f32),
            );
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
        for c in &self.chunks {
            let bytes = ((2 * d + 1) * c.n * 4) as u64;
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
                    let data: &[f32] = bytemuck::cast_slice(raw);
                    for k in 0..d {
                        state.q[k * n + c.offset..k * n + c.offset + c.n]
                            .copy_from_slice(&data[k * c.n..(k + 1) * c.n]);
                        state.p[k * n + c.offset..k * n + c.offset + c.n]
                            .copy_from_slice(&data[(d + k) * c.n..(d + k + 1) * c.n]);
                    }
                    for (u, &x) in state.unconverged[c.offset..c.offset + c.n]
                        .iter_mut()
                        .zip(&data[2 * d * c.n..(2 * d + 1) * c.n])
                    {
                        *u = x as u32;
                    }
                })?;
        }
        self.host_current = true;
        Ok(())
    }
}

impl Engine<f32> for GpuEngine {
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
        // Reclaim finished submissions without blocking; errors surface here or at read-back.
        let _ = self.ctx.device.poll(wgpu::PollType::Poll);
        self.ctx.check()
    }

    fn state(&mut self) -> Result<&State<f32>> {
        if !self.host_current {
            self.read_back()?;
        }
        Ok(&self.state)
    }

    fn points(&self) -> usize {
        self.state.n
    }

    fn reduce_energy(&mut self, record_h0: bool) -> Result<Option<(EnergyAccumulator, u64)>> {
        if self.energy.is_none() {
            let Some(mut r) = EnergyReducer::new(self.ctx, &self.system, self.state.comps())?
            else {
                return Ok(None); // no f64 on this device
            };
            r.bind(&Self::chunk_buffers(&self.chunks))?;
            self.energy = Some(r);
        }
        let r = self.energy.as_ref().expect("built above");
        r.reduce(record_h0).map(Some)
    }

    fn set_state(&mut self, state: State<f32>) -> Result<()> {
        if state.nt != self.nt {
            return Err(Error::Gpu(
                "set_state: the kernel was compiled for a different number of tangent columns"
                    .into(),
            ));
        }
        self.build_chunks(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dispatches_carry_the_same_work_whatever_the_method() {
        // pendulum symplectic Euler (2 evaluations per step) at 1e7 points: 429 steps
        assert_eq!(steps_per_dispatch(10_000_000, 2, u32::MAX as u64), 429);
        // a 14 times costlier step gets 14 times fewer steps
        assert_eq!(steps_per_dispatch(10_000_000, 28, u32::MAX as u64), 30);
        // at least one step; never beyond the cap (lavapipe's loop budget)
        assert_eq!(steps_per_dispatch(usize::MAX / 2, 28, 100), 1);
        assert_eq!(steps_per_dispatch(10, 2, 937), 937);
    }

    #[test]
    fn device_memory_check_refuses_what_does_not_fit() {
        // d = 1 f32 without --tangent, with the f64 H0: 20 bytes per point
        assert_eq!(device_bytes_per_point(1, true), 20);
        assert_eq!(device_bytes_per_point(1, false), 12);
        let gib = 1u64 << 30;
        assert!(device_memory_fits("--points", 1_000_000_000, 20, 80 * gib).is_ok());
        let e = device_memory_fits("--points", 4_000_000_000, 20, 80 * gib).unwrap_err();
        assert!(e.is_input(), "{e}");
        let msg = e.to_string();
        assert!(
            msg.contains("74.5 GiB") && msg.contains("--backend cpu"),
            "{msg}"
        );
        assert!(msg.contains("at most about 3865470566"), "{msg}");
    }

    #[test]
    fn dispatch_grid_covers_every_point_in_rows() {
        // 1e7 points: one row of 39 063 workgroups of 256, a single dispatch
        assert_eq!(dispatch_grid(10_000_000, 65_535), (39_063, 1));
        // 1e8 points: 390 625 workgroups in rows of 65 535
        assert_eq!(dispatch_grid(100_000_000, 65_535), (65_535, 6));
        assert_eq!(dispatch_grid(1, 65_535), (1, 1));
        assert_eq!(dispatch_grid(1000, 1), (1, 4));
        for n in [1usize, 255, 256, 257, 1000, 70_000] {
            for w in [1u32, 3, 65_535] {
                let (x, y) = dispatch_grid(n, w);
                let threads = x as u64 * y as u64 * shader::WORKGROUP_SIZE as u64;
                // enough threads, and less than one row of waste
                assert!(
                    threads >= n as u64 && threads - (n as u64) < x as u64 * 256,
                    "{n} {w}"
                );
                assert!(x <= w);
            }
        }
    }
}
