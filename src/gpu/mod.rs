//! wgpu set-up: one cached context (adapter chosen by `WGPU_ADAPTER_NAME` or the best
//! available), the uniform struct shared with WGSL, and device-error capture so that GPU
//! failures become `Error::Gpu` instead of panics.

pub mod energy;
mod probe;
pub mod shader;

use std::sync::{Arc, Mutex, OnceLock};

use crate::error::{Error, Result};

/// Uniforms of every kernel. Keep in sync with `struct RunParams` in shaders/common/state.wgsl
/// (a test compares the size with naga's layout).
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub struct RunParams {
    pub n_points: u32,
    pub steps: u32,
    /// The step size as h_hi + h_mid + h_lo, three f32 parts (`split_step`), so that an f64
    /// kernel gets the f64 step exactly (WGSL uniforms have no portable f64); an f32 kernel
    /// gets h as f32 and zeros.
    pub h_hi: f32,
    /// Threads per row of the 2-D dispatch grid (workgroups in x × `WORKGROUP_SIZE`): the
    /// kernel's point index is gid.y · grid_x + gid.x.
    pub grid_x: u32,
    /// Always 0. `sin_poly` (shaders/common/math.wgsl) XORs it into its magic-constant
    /// rounding and `opaque` (shaders/common/state.wgsl) selects on it: values no shader
    /// compiler can see through, so neither (x + M) − M nor a compensated sum is folded away.
    pub zero_bits: u32,
    pub h_mid: f32,
    pub h_lo: f32,
    pub _pad: u32,
}

/// h as three f32 parts whose sum, in f64, is h exactly (each part holds the next 24 bits of h's
/// 53; assumes h is a normal f32 number, as every step size is).
pub fn split_step(h: f64) -> [f32; 3] {
    let hi = h as f32;
    let mid = (h - hi as f64) as f32;
    let lo = (h - hi as f64 - mid as f64) as f32;
    [hi, mid, lo]
}

impl RunParams {
    /// The uniforms of a dispatch of `steps` steps of size h over `n_points` points, for a kernel
    /// at f64 (`f64`: h in three parts) or f32 (h rounded to f32).
    pub fn new(n_points: u32, steps: u32, h: f64, f64: bool, grid_x: u32) -> Self {
        let [h_hi, h_mid, h_lo] = if f64 {
            split_step(h)
        } else {
            [h as f32, 0.0, 0.0]
        };
        RunParams {
            n_points,
            steps,
            h_hi,
            grid_x,
            zero_bits: 0,
            h_mid,
            h_lo,
            _pad: 0,
        }
    }
}

/// What `phaseflow devices` prints about an adapter.
#[derive(Debug, Clone)]
pub struct AdapterSummary {
    pub name: String,
    pub backend: String,
    pub device_type: String,
    pub driver: String,
    pub hardware: bool,
}

pub struct GpuContext {
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub info: wgpu::AdapterInfo,
    pub limits: wgpu::Limits,
    /// The device was opened with `SHADER_F64` (f64 in shaders).
    pub f64: bool,
    /// Bytes in the adapter's largest device-local memory heap (Vulkan adapters; `None`
    /// where the backend does not say).
    pub device_memory: Option<u64>,
    /// Errors reported by wgpu outside an error scope (lost device, validation), drained by `check`.
    errors: Arc<Mutex<Vec<String>>>,
}

fn is_hardware(info: &wgpu::AdapterInfo) -> bool {
    matches!(
        info.device_type,
        wgpu::DeviceType::DiscreteGpu | wgpu::DeviceType::IntegratedGpu
    )
}

fn summary(info: &wgpu::AdapterInfo) -> AdapterSummary {
    AdapterSummary {
        name: info.name.clone(),
        backend: format!("{:?}", info.backend),
        device_type: format!("{:?}", info.device_type),
        driver: format!("{} {}", info.driver, info.driver_info)
            .trim()
            .to_string(),
        hardware: is_hardware(info),
    }
}

fn rank(info: &wgpu::AdapterInfo) -> u32 {
    let t = match info.device_type {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Cpu => 3,
        wgpu::DeviceType::Other => 4,
    };
    // Prefer Vulkan over GL for the same device.
    t * 2 + u32::from(info.backend != wgpu::Backend::Vulkan)
}

/// Every adapter wgpu finds.
pub fn adapters() -> Vec<AdapterSummary> {
    probe::adapters()
        .iter()
        .map(|a| summary(&a.get_info()))
        .collect()
}

/// True when a hardware GPU (discrete or integrated) is present: what `--backend auto` asks.
pub fn hardware_gpu_available() -> bool {
    adapters().iter().any(|a| a.hardware)
}

fn pick_adapter() -> Result<wgpu::Adapter> {
    let mut list = probe::adapters().to_vec();
    if list.is_empty() {
        return Err(Error::Gpu(
            "no wgpu adapter found: install a Vulkan driver (on Debian: apt-get install mesa-vulkan-drivers) \
             or use --backend cpu"
                .into(),
        ));
    }
    if let Ok(want) = std::env::var("WGPU_ADAPTER_NAME") {
        let want = want.to_lowercase();
        let pos = list
            .iter()
            .position(|a| a.get_info().name.to_lowercase().contains(&want));
        return match pos {
            Some(i) => Ok(list.swap_remove(i)),
            None => Err(Error::Gpu(format!(
                "WGPU_ADAPTER_NAME={want}: no adapter matches (found: {})",
                list.iter()
                    .map(|a| a.get_info().name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))),
        };
    }
    list.sort_by_key(|a| rank(&a.get_info()));
    Ok(list.swap_remove(0))
}

/// `PHASEFLOW_GPU_LIMITS`: the limits the device is opened with. `adapter` (the default): all
/// the adapter allows; `webgpu`: WebGPU's defaults (`wgpu::Limits::default()`), what every
/// WebGPU device guarantees, to check that a run works on the smallest device it may meet.
pub const LIMITS_VAR: &str = "PHASEFLOW_GPU_LIMITS";

/// The limits `PHASEFLOW_GPU_LIMITS` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitsChoice {
    Adapter,
    WebGpu,
}

impl LimitsChoice {
    /// Read from `PHASEFLOW_GPU_LIMITS` (unset: `Adapter`); any other value is an input error
    /// naming the two.
    pub fn from_env() -> Result<Self> {
        Self::parse(std::env::var(LIMITS_VAR).ok().as_deref())
    }

    fn parse(value: Option<&str>) -> Result<Self> {
        match value {
            None | Some("adapter") => Ok(LimitsChoice::Adapter),
            Some("webgpu") => Ok(LimitsChoice::WebGpu),
            Some(other) => Err(crate::input_err!(
                "{LIMITS_VAR}={other}: expected `adapter` (the adapter's own limits, the default) or `webgpu` (WebGPU's default limits)"
            )),
        }
    }

    fn limits(self, adapter: &wgpu::Adapter) -> wgpu::Limits {
        match self {
            LimitsChoice::Adapter => adapter.limits(),
            LimitsChoice::WebGpu => {
                crate::info!(
                    "phaseflow: {LIMITS_VAR}=webgpu: the GPU is opened with WebGPU's default limits"
                );
                // lowered to the adapter's where it allows less, so the device still opens
                wgpu::Limits::default().or_worse_values_from(&adapter.limits())
            }
        }
    }
}

static CONTEXT: OnceLock<std::result::Result<GpuContext, String>> = OnceLock::new();

/// The adapters a run spreads over (`--devices`, MPI ranks on a node): those of the kind the
/// default pick is (every discrete GPU when there is one, …; Vulkan before GL), in wgpu's
/// order.
fn device_adapters() -> Vec<wgpu::Adapter> {
    let list = probe::adapters().to_vec();
    let best = list.iter().map(|a| rank(&a.get_info())).min();
    list.into_iter()
        .filter(|a| Some(rank(&a.get_info())) == best)
        .collect()
}

/// How many adapters `device_adapters` finds (what `--devices all` uses).
pub fn device_count() -> usize {
    device_adapters().len()
}

/// Contexts of `context_at`, opened on first use and kept for the process.
static CONTEXTS: Mutex<Vec<(usize, &'static GpuContext)>> = Mutex::new(Vec::new());

/// The GPU context of adapter `index` of `device_adapters` (`--devices`, an MPI rank's
/// local rank): opened on first use, then shared.
pub fn context_at(index: usize) -> Result<&'static GpuContext> {
    let mut open = CONTEXTS.lock().unwrap();
    if let Some((_, c)) = open.iter().find(|(i, _)| *i == index) {
        return Ok(c);
    }
    let mut list = device_adapters();
    if index >= list.len() {
        use crate::error::Field;
        return Err(crate::invalid!(Field::Devices;
            Field::Devices,
            format!(": there is no GPU {index}: this machine has {} (see `phaseflow devices`; they are counted from 0)", list.len()),
        ));
    }
    let ctx: &'static GpuContext = Box::leak(Box::new(GpuContext::create(
        list.swap_remove(index),
        LimitsChoice::from_env()?,
    )?));
    open.push((index, ctx));
    Ok(ctx)
}

/// The size of the adapter's largest device-local memory heap, read from Vulkan (wgpu reports
/// no memory size of its own); `None` on other backends.
fn device_local_memory(adapter: &wgpu::Adapter) -> Option<u64> {
    use ash::vk;
    // SAFETY: the guard borrows the live adapter only for these two read-only queries, and the
    // physical device belongs to the instance that wgpu keeps alive with the adapter.
    let hal = unsafe { adapter.as_hal::<wgpu::hal::api::Vulkan>() }?;
    let instance = hal.shared_instance().raw_instance();
    let props =
        unsafe { instance.get_physical_device_memory_properties(hal.raw_physical_device()) };
    props.memory_heaps[..props.memory_heap_count as usize]
        .iter()
        .filter(|h| h.flags.contains(vk::MemoryHeapFlags::DEVICE_LOCAL))
        .map(|h| h.size)
        .max()
}

/// The process-wide GPU context, created on first use.
pub fn context() -> Result<&'static GpuContext> {
    let choice = LimitsChoice::from_env()?;
    CONTEXT
        .get_or_init(|| {
            pick_adapter()
                .and_then(|adapter| GpuContext::create(adapter, choice))
                .map_err(|e| e.to_string())
        })
        .as_ref()
        .map_err(|e| Error::Gpu(e.clone()))
}

impl GpuContext {
    fn create(adapter: wgpu::Adapter, choice: LimitsChoice) -> Result<GpuContext> {
        let info = adapter.get_info();
        let limits = choice.limits(&adapter);
        // f64 in shaders where the adapter has it: the energy statistics are reduced on the
        // device in f64 (gpu::energy).
        let f64 = adapter.features().contains(wgpu::Features::SHADER_F64);
        let device_memory = device_local_memory(&adapter);
        let features = if f64 {
            wgpu::Features::SHADER_F64
        } else {
            wgpu::Features::empty()
        };
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("phaseflow device"),
            required_features: features,
            required_limits: limits.clone(),
            ..Default::default()
        }))
        .map_err(|e| {
            Error::Gpu(format!(
                "cannot open device on adapter '{}': {e}",
                info.name
            ))
        })?;
        let errors = Arc::new(Mutex::new(Vec::new()));
        let sink = errors.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            sink.lock().unwrap().push(e.to_string());
        }));
        Ok(GpuContext {
            device,
            queue,
            info,
            limits,
            f64,
            device_memory,
            errors,
        })
    }

    pub fn describe(&self) -> String {
        format!(
            "{} ({:?}, {:?})",
            self.info.name, self.info.backend, self.info.device_type
        )
    }

    /// Turn any error wgpu reported since the last check into `Error::Gpu`.
    pub fn check(&self) -> Result<()> {
        let mut errs = self.errors.lock().unwrap();
        if errs.is_empty() {
            Ok(())
        } else {
            let msg = errs.join("; ");
            errs.clear();
            Err(Error::Gpu(msg))
        }
    }

    /// Map the first `bytes` of `staging` (a `MAP_READ` buffer whose copy has been submitted),
    /// wait for the device, hand the mapped bytes to `read`, and unmap. `what` names the
    /// read-back in errors.
    pub fn read_staging<R>(
        &self,
        staging: &wgpu::Buffer,
        bytes: u64,
        what: &str,
        read: impl FnOnce(&[u8]) -> R,
    ) -> Result<R> {
        let slice = staging.slice(..bytes);
        let (tx, rx) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        self.wait()?;
        rx.recv()
            .map_err(|_| Error::Gpu(format!("{what}: the mapping callback never ran")))?
            .map_err(|e| Error::Gpu(format!("{what}: mapping the staging buffer: {e}")))?;
        let out = {
            let view = slice
                .get_mapped_range()
                .map_err(|e| Error::Gpu(format!("{what}: {e:?}")))?;
            read(&view)
        };
        staging.unmap();
        Ok(out)
    }

    /// Block until the queue is idle.
    pub fn wait(&self) -> Result<()> {
        self.device
            .poll(wgpu::PollType::Wait {
                submission_index: None,
                timeout: None,
            })
            .map_err(|e| Error::Gpu(format!("waiting for the GPU: {e}")))?;
        self.check()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_the_adapters_unless_webgpu_is_asked() {
        assert_eq!(LimitsChoice::parse(None).unwrap(), LimitsChoice::Adapter);
        assert_eq!(
            LimitsChoice::parse(Some("adapter")).unwrap(),
            LimitsChoice::Adapter
        );
        assert_eq!(
            LimitsChoice::parse(Some("webgpu")).unwrap(),
            LimitsChoice::WebGpu
        );
        let e = LimitsChoice::parse(Some("small")).unwrap_err();
        assert!(e.is_input(), "{e}");
        assert!(e.to_string().contains("`webgpu`"), "{e}");
    }
}
