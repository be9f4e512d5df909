//! Energy statistics reduced on the device (issue 10): the GPU engine evaluates H of every point
//! in f64 where the state lives and reads back one accumulator per workgroup of `REDUCE_SIZE`
//! points, not the state. The host merges them in order, so the result does not depend on
//! timing. Kernel: shaders/energy/reduce.wgsl with the system's f64 `energy` from
//! shaders/energy/<system>.wgsl (WGSL has no f64 sin/cos: shaders/energy/math_f64.wgsl is the f64
//! `sin_poly` of src/float.rs). Host mirror: `measure::energy::{energies, snapshot_stats}`; the two
//! agree to rounding (the device's polynomial cosine against libm's, and a tree merge against
//! the host's chunked one), far below the 1e-8 energy errors studies resolve.
//!
//! Needs `wgpu::Features::SHADER_F64` (H100 and lavapipe have it); without it the engine says so
//! (`GpuEngine::reduce_energy` returns `None`) and the runner reads the state and reduces on the
//! host as before.
//!
//! Each workgroup holds one accumulator per thread in workgroup memory: 256 × 96 B = 24 KiB,
//! above the 16 KiB every WebGPU device guarantees (`wgpu::Limits::default()`). On a device that
//! allows less, the workgroup shrinks to the largest power of two that fits (128 threads in
//! 16 KiB), said once on stderr; below `MIN_REDUCE_SIZE` the statistics are reduced on the host.

use bytemuck::{Pod, Zeroable};

use super::GpuContext;
use crate::error::{Error, Result};
use crate::measure::energy::{EnergyAccumulator, ESCAPE_FACTOR, REL_ENERGY_FLOOR};
use crate::system::System;
pub use crate::wgsl_literal::f64_literal;

/// Points per workgroup of the reduction (and accumulators per workgroup: one) where the
/// device allows it; state chunks and shards start at multiples of it, so that they start at
/// multiples of any smaller power of two as well (`reduce_size`).
pub const REDUCE_SIZE: u32 = 256;

/// The smallest reduction workgroup used. Each workgroup writes one 96-byte accumulator, so
/// with 32 points or more the accumulators take at most 3 B per point, less than any state
/// chunk's own (12 B), and fit wherever the chunk fits; smaller workgroups would also make the
/// host's share of the merge grow. Below it the host reduces.
pub const MIN_REDUCE_SIZE: u32 = 32;

/// Points per reduction workgroup on a device with `limits`: the largest power of two up to
/// `REDUCE_SIZE` within its invocations per workgroup, workgroup width and workgroup memory
/// (one accumulator per point), or `None` below `MIN_REDUCE_SIZE` (the host reduces).
pub fn reduce_size(limits: &wgpu::Limits) -> Option<u32> {
    let accumulator = std::mem::size_of::<DeviceAccumulator>() as u32;
    let most = REDUCE_SIZE
        .min(limits.max_compute_invocations_per_workgroup)
        .min(limits.max_compute_workgroup_size_x)
        .min(limits.max_compute_workgroup_storage_size / accumulator);
    let size = if most == 0 {
        0
    } else {
        1 << (31 - most.leading_zeros())
    };
    (size >= MIN_REDUCE_SIZE).then_some(size)
}

/// What a run says on stderr where the device's limits change where the energy statistics are
/// reduced; `None` where it has room for the full `REDUCE_SIZE`.
pub fn reduction_note(limits: &wgpu::Limits) -> Option<String> {
    let memory = limits.max_compute_workgroup_storage_size;
    let accumulator = std::mem::size_of::<DeviceAccumulator>() as u32;
    let full = REDUCE_SIZE * accumulator;
    match reduce_size(limits) {
        Some(REDUCE_SIZE) => None,
        Some(size) => Some(format!(
            "phaseflow: the GPU allows {memory} B of workgroup memory and {} threads per workgroup (a {REDUCE_SIZE}-point reduction needs {full} B): the energy statistics are reduced on the device in workgroups of {size} points",
            limits.max_compute_invocations_per_workgroup
        )),
        None => Some(format!(
            "phaseflow: the GPU allows {memory} B of workgroup memory and {} threads per workgroup, too little for the device reduction ({MIN_REDUCE_SIZE} points need {} B): the energy statistics are reduced on the host, from the state read back at each snapshot",
            limits.max_compute_invocations_per_workgroup,
            MIN_REDUCE_SIZE * accumulator
        )),
    }
}

/// Says `reduction_note` once per process (every engine of a study or of several devices
/// would otherwise repeat it).
fn say_reduction_note(limits: &wgpu::Limits) {
    static SAID: std::sync::Once = std::sync::Once::new();
    if let Some(note) = reduction_note(limits) {
        SAID.call_once(|| crate::info!("{note}"));
    }
}

/// Keep in sync with `EnergyParams` in shaders/energy/reduce.wgsl.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct EnergyParams {
    n_points: u32,
    record_h0: u32,
    _pad: [u32; 2],
}

/// Keep in sync with `Acc` in shaders/energy/reduce.wgsl.
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct DeviceAccumulator {
    finite: f64,
    mean: f64,
    m2: f64,
    abs_sum: f64,
    abs_max: f64,
    rel_count: f64,
    rel_sum: f64,
    rel_max: f64,
    unconverged: f64,
    escaped: f64,
    stayed_abs_max: f64,
    stayed_rel_max: f64,
}

impl DeviceAccumulator {
    fn to_host(self) -> EnergyAccumulator {
        EnergyAccumulator::from_parts(
            self.finite as u64,
            self.mean,
            self.m2,
            [self.abs_sum, self.abs_max],
            self.rel_count as u64,
            [self.rel_sum, self.rel_max],
        )
        .with_escaped(
            self.escaped as u64,
            [self.stayed_abs_max, self.stayed_rel_max],
        )
    }
}

/// The layout of the engine's state chunks the reduction reads (shaders/common/state.wgsl).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateLayout {
    /// Components per point in q and in p: d, or d·(1 + 2d) with tangent columns (only the
    /// first d are read).
    pub comps: usize,
    /// The state's values are f64 (else f32).
    pub f64: bool,
    /// The chunk carries compensated summation's errors, which H is evaluated with.
    pub compensated: bool,
}

/// The reduction kernel for `system` over state chunks laid out as `layout` says, in
/// workgroups of `size` points (a power of two: `reduce_size`), or `None` for an expression
/// whose H Vulkan cannot evaluate in f64 (see `System::energy_wgsl_source`).
pub fn compose(system: &System, dt: f64, layout: StateLayout, size: u32) -> Option<String> {
    let energy = system.energy_wgsl_source()?;
    let mut src = format!(
        "// phaseflow energy reduction: system {}\nalias real = {};\nconst D: u32 = {}u;\nconst DT: u32 = {}u;\nconst COMPENSATED: bool = {};\nconst REDUCE_SIZE: u32 = {size}u;\nconst REL_ENERGY_FLOOR: f64 = {};\nconst ESCAPE_FACTOR: f64 = {};\n",
        system.name(),
        if layout.f64 { "f64" } else { "f32" },
        system.dof(),
        layout.comps,
        layout.compensated,
        f64_literal(REL_ENERGY_FLOOR),
        f64_literal(ESCAPE_FACTOR)
    );
    for (name, value) in system.energy_constants(dt) {
        src.push_str(&format!("const {name}: f64 = {};\n", f64_literal(value)));
    }
    for (name, values) in system.wgsl_arrays() {
        let items: Vec<String> = values.iter().map(|&v| f64_literal(v)).collect();
        src.push_str(&format!(
            "const {name} = array<f64, {}>({});\n",
            values.len(),
            items.join(", ")
        ));
    }
    // `keep_f64` as math_f64.wgsl asks its includer for it: here the value itself.
    src.push_str("\nfn keep_f64(x: f64) -> f64 {\n    return x;\n}\n");
    for part in [
        include_str!("../../shaders/energy/math_f64.wgsl"),
        energy,
        include_str!("../../shaders/energy/reduce.wgsl"),
    ] {
        src.push('\n');
        src.push_str(part);
    }
    Some(src)
}

/// Per state chunk: its initial energies, the workgroups' accumulators and the bind group.
struct ChunkReduce {
    n: usize,
    /// The chunk's initial energies (f64 per point).
    h0: wgpu::Buffer,
    params: wgpu::Buffer,
    groups: wgpu::Buffer,
    /// Workgroups in x and y of the dispatch grid.
    grid: (u32, u32),
    bind_group: wgpu::BindGroup,
}

/// The reduction pipeline of one engine, and its per-chunk buffers.
pub struct EnergyReducer {
    ctx: &'static GpuContext,
    /// Points per workgroup (`reduce_size`).
    size: u32,
    pipeline: wgpu::ComputePipeline,
    chunks: Vec<ChunkReduce>,
    staging: Option<wgpu::Buffer>,
}

/// Workgroups in x and y covering `groups` workgroups under the per-dimension limit.
fn grid(groups: u32, max_per_dim: u32) -> (u32, u32) {
    let x = groups.clamp(1, max_per_dim.max(1));
    (x, groups.div_ceil(x).max(1))
}

impl EnergyReducer {
    /// The reducer for `system`, or `None` when the device has no f64, too little workgroup
    /// memory (said on stderr: `reduction_note`) or the system's H has no f64 WGSL.
    pub fn new(
        ctx: &'static GpuContext,
        system: &System,
        dt: f64,
        layout: StateLayout,
    ) -> Result<Option<Self>> {
        if !ctx.f64 {
            return Ok(None);
        }
        say_reduction_note(&ctx.limits);
        let Some(size) = reduce_size(&ctx.limits) else {
            return Ok(None);
        };
        let Some(source) = compose(system, dt, layout, size) else {
            return Ok(None);
        };
        let label = format!("{} energy reduction", system.name());
        // SAFETY: wgpu's runtime checks stay on.
        let pipeline = unsafe {
            super::shader::compute_pipeline(
                ctx,
                &label,
                &source,
                wgpu::ShaderRuntimeChecks::checked(),
            )?
        };
        Ok(Some(EnergyReducer {
            ctx,
            size,
            pipeline,
            chunks: Vec::new(),
            staging: None,
        }))
    }

    /// Bytes of device memory per point besides the state: its f64 initial energy.
    pub const BYTES_PER_POINT: usize = 8;

    /// Lay out the per-chunk buffers for the engine's state chunks (buffer, points).
    pub fn bind(&mut self, chunks: &[(&wgpu::Buffer, usize)]) -> Result<()> {
        let device = &self.ctx.device;
        let layout = self.pipeline.get_bind_group_layout(0);
        let max_dim = self.ctx.limits.max_compute_workgroups_per_dimension;
        let oom = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let mut out = Vec::new();
        let mut most = 0;
        for &(state, n) in chunks {
            let groups = (n as u32).div_ceil(self.size);
            let grid = grid(groups, max_dim);
            let slots = (grid.0 * grid.1) as u64;
            let h0 = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("initial energies"),
                size: (n.max(1) * 8) as u64,
                usage: wgpu::BufferUsages::STORAGE
                    | wgpu::BufferUsages::COPY_SRC
                    | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            let group_bytes = slots * std::mem::size_of::<DeviceAccumulator>() as u64;
            most = most.max(group_bytes);
            let groups_buf = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("energy accumulators per workgroup"),
                size: group_bytes,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            });
            let params = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("energy reduction params"),
                size: std::mem::size_of::<EnergyParams>() as u64,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("energy reduction bind group"),
                layout: &layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: params.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: state.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: h0.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 3,
                        resource: groups_buf.as_entire_binding(),
                    },
                ],
            });
            out.push(ChunkReduce {
                n,
                h0,
                params,
                groups: groups_buf,
                grid,
                bind_group,
            });
        }
        let staging = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("energy accumulators read-back"),
            size: most.max(8),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        if let Some(e) = pollster::block_on(oom.pop()) {
            return Err(Error::Gpu(format!(
                "cannot allocate GPU memory for the initial energies ({} B per point): {e}; use fewer points",
                Self::BYTES_PER_POINT
            )));
        }
        self.chunks = out;
        self.staging = Some(staging);
        self.ctx.check()
    }

    /// The initial energies recorded on the device, read back in point order (a checkpoint).
    pub fn read_h0(&self) -> Result<Vec<f64>> {
        let mut out = Vec::new();
        for c in &self.chunks {
            let bytes = (c.n * 8) as u64;
            if bytes == 0 {
                continue;
            }
            let staging = self.ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("initial energies read-back"),
                size: bytes,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            let mut enc = self
                .ctx
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("initial energies read-back"),
                });
            enc.copy_buffer_to_buffer(&c.h0, 0, &staging, 0, bytes);
            self.ctx.queue.submit([enc.finish()]);
            let part =
                self.ctx
                    .read_staging(&staging, bytes, "initial energies read-back", |raw| {
                        bytemuck::pod_collect_to_vec::<u8, f64>(raw)
                    })?;
            out.extend(part);
        }
        Ok(out)
    }

    /// Store `h0` (point order) as the initial energies on the device (a resumed run).
    pub fn write_h0(&self, h0: &[f64]) -> Result<()> {
        let total: usize = self.chunks.iter().map(|c| c.n).sum();
        if h0.len() != total {
            return Err(Error::Gpu(format!(
                "initial energies: {} values for {total} points",
                h0.len()
            )));
        }
        let mut at = 0;
        for c in &self.chunks {
            self.ctx
                .queue
                .write_buffer(&c.h0, 0, bytemuck::cast_slice(&h0[at..at + c.n]));
            at += c.n;
        }
        self.ctx.check()
    }

    /// Reduce every chunk (after recording H as the initial energies when `record_h0`): the
    /// workgroups' accumulators in point order (the caller folds them in that order:
    /// `energy::fold_in_order`), and the number of points with a non-zero unconverged count.
    pub fn reduce(&self, record_h0: bool) -> Result<(Vec<EnergyAccumulator>, u64)> {
        let staging = self
            .staging
            .as_ref()
            .ok_or_else(|| Error::Gpu("energy reduction used before bind".into()))?;
        let mut groups = Vec::new();
        let mut unconverged = 0u64;
        for c in &self.chunks {
            let params = EnergyParams {
                n_points: c.n as u32,
                record_h0: record_h0 as u32,
                _pad: [0; 2],
            };
            self.ctx
                .queue
                .write_buffer(&c.params, 0, bytemuck::bytes_of(&params));
            let bytes =
                (c.grid.0 * c.grid.1) as u64 * std::mem::size_of::<DeviceAccumulator>() as u64;
            let mut enc = self
                .ctx
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("energy reduction"),
                });
            {
                let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("energy reduction"),
                    timestamp_writes: None,
                });
                pass.set_pipeline(&self.pipeline);
                pass.set_bind_group(0, &c.bind_group, &[]);
                pass.dispatch_workgroups(c.grid.0, c.grid.1, 1);
            }
            enc.copy_buffer_to_buffer(&c.groups, 0, staging, 0, bytes);
            self.ctx.queue.submit([enc.finish()]);
            unconverged += self
                .ctx
                .read_staging(staging, bytes, "energy read-back", |raw| {
                    let accs: &[DeviceAccumulator] = bytemuck::cast_slice(raw);
                    groups.extend(accs.iter().map(|a| a.to_host()));
                    accs.iter().map(|a| a.unconverged as u64).sum::<u64>()
                })?;
        }
        Ok((groups, unconverged))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::shader::validate;
    use crate::system::CATALOGUE;
    use std::collections::BTreeMap;

    #[test]
    fn every_energy_kernel_validates_with_naga() {
        for info in CATALOGUE {
            let system = System::new(info.name, &BTreeMap::new()).unwrap();
            for comps in [system.dof(), system.dof() * (1 + 2 * system.dof())] {
                for (f64, compensated) in
                    [(false, false), (true, false), (false, true), (true, true)]
                {
                    let layout = StateLayout {
                        comps,
                        f64,
                        compensated,
                    };
                    if let Err(e) = validate(&compose(&system, 0.01, layout, REDUCE_SIZE).unwrap())
                    {
                        panic!("{} {layout:?}: {e}", info.name);
                    }
                }
            }
        }
    }

    #[test]
    fn accumulator_layout_matches_wgsl() {
        let layout = StateLayout {
            comps: 1,
            f64: false,
            compensated: false,
        };
        let src = compose(
            &System::new("pendulum", &BTreeMap::new()).unwrap(),
            0.01,
            layout,
            REDUCE_SIZE,
        )
        .unwrap();
        let (module, _) = validate(&src).unwrap();
        let size_of = |name: &str| {
            module
                .types
                .iter()
                .find(|(_, t)| t.name.as_deref() == Some(name))
                .map(|(_, t)| t.inner.size(module.to_ctx()))
                .unwrap()
        };
        assert_eq!(
            size_of("Acc") as usize,
            std::mem::size_of::<DeviceAccumulator>()
        );
        assert_eq!(
            size_of("EnergyParams") as usize,
            std::mem::size_of::<EnergyParams>()
        );
    }

    /// 256 accumulators take 24 KiB: at WebGPU's default 16 KiB the workgroup halves, and
    /// the run says so; a device with room for 256 says nothing; one with room for fewer than
    /// 32 leaves the statistics to the host, and says that.
    #[test]
    fn the_reduction_fits_the_device_or_goes_to_the_host() {
        let webgpu = wgpu::Limits::default();
        assert_eq!(webgpu.max_compute_workgroup_storage_size, 16384);
        assert_eq!(reduce_size(&webgpu), Some(128));
        let note = reduction_note(&webgpu).unwrap();
        assert!(
            note.contains("16384 B") && note.contains("in workgroups of 128 points"),
            "{note}"
        );
        // wgpu's downlevel limits: 16352 B, still 128
        assert_eq!(reduce_size(&wgpu::Limits::downlevel_defaults()), Some(128));
        let roomy = wgpu::Limits {
            max_compute_workgroup_storage_size: 32768,
            ..wgpu::Limits::default()
        };
        assert_eq!(reduce_size(&roomy), Some(REDUCE_SIZE));
        assert_eq!(reduction_note(&roomy), None);
        // fewer threads per workgroup than memory allows
        let narrow = wgpu::Limits {
            max_compute_invocations_per_workgroup: 100,
            ..roomy.clone()
        };
        assert_eq!(reduce_size(&narrow), Some(64));
        let tiny = wgpu::Limits {
            max_compute_workgroup_storage_size: 3000,
            ..roomy
        };
        assert_eq!(reduce_size(&tiny), None);
        let note = reduction_note(&tiny).unwrap();
        assert!(note.contains("reduced on the host"), "{note}");
        let none = wgpu::Limits {
            max_compute_workgroup_storage_size: 0,
            ..wgpu::Limits::default()
        };
        assert_eq!(reduce_size(&none), None);
    }

    /// A smaller workgroup is still a valid kernel whose shared array shrinks with it.
    #[test]
    fn smaller_reductions_validate() {
        let system = System::new("kepler", &BTreeMap::new()).unwrap();
        let layout = StateLayout {
            comps: 2,
            f64: true,
            compensated: true,
        };
        for size in [MIN_REDUCE_SIZE, 64, 128] {
            let src = compose(&system, 0.01, layout, size).unwrap();
            assert!(src.contains(&format!("const REDUCE_SIZE: u32 = {size}u;")));
            validate(&src).unwrap();
        }
    }

    #[test]
    fn grid_covers_every_group() {
        assert_eq!(grid(1, 65535), (1, 1));
        assert_eq!(grid(65535, 65535), (65535, 1));
        assert_eq!(grid(65536, 65535), (65535, 2));
        assert_eq!(grid(0, 65535), (1, 1));
    }
}
