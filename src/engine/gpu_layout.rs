//! How the GPU engine sizes its work: steps per dispatch (and the loop budget of CPU drivers),
//! the 2-D dispatch grid, the state chunks' layout and size, and the checks made before any
//! device memory is allocated (device memory, kernel size, f64 support).

use super::Integrator;
use crate::error::{Field, Result};
use crate::gpu::energy::EnergyReducer;
use crate::gpu::{shader, GpuContext};
use crate::invalid;
use crate::method::{Method, Solver};
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
pub const DISPATCHES_PER_SUBMIT: usize = 256;

/// The 2-D workgroup grid for `n` points: as many workgroups in x as the device allows, then
/// rows of them in y.
pub fn dispatch_grid(n: usize, max_per_dim: u32) -> (u32, u32) {
    let groups = (n as u64).div_ceil(shader::WORKGROUP_SIZE as u64).max(1);
    let x = groups.min(max_per_dim.max(1) as u64);
    (x as u32, groups.div_ceil(x) as u32)
}

/// Values per point in a state chunk: q and p (`comps` each), the unconverged count and, when
/// compensated, the carried errors eq and ep (`comps` each; shaders/common/state.wgsl).
pub fn words_per_point(comps: usize, compensated: bool) -> usize {
    2 * comps + 1 + if compensated { 2 * comps } else { 0 }
}

/// Largest number of points per chunk the device allows (binding size and workgroup count), for
/// `bytes_per_point` bytes of state per point.
pub fn max_chunk_points(limits: &wgpu::Limits, bytes_per_point: u64) -> usize {
    let bytes_per_point = bytes_per_point.max(1);
    let by_binding = limits.max_storage_buffer_binding_size / bytes_per_point;
    let by_buffer = limits.max_buffer_size / bytes_per_point;
    // A 2-D grid of workgroups; the point index (gid.y · grid_x + gid.x) stays within u32.
    let per_dim = limits.max_compute_workgroups_per_dimension as u64;
    let by_groups = (per_dim * per_dim * shader::WORKGROUP_SIZE as u64).min(u32::MAX as u64);
    let most = by_binding.min(by_buffer).min(by_groups).max(1);
    // Whole reduction workgroups: every chunk then starts at a multiple of REDUCE_SIZE, so
    // the device's workgroups are the same whatever the chunking (and a shard starting at a
    // multiple of `energy::CHUNK` has exactly the whole ensemble's workgroups).
    let group = crate::gpu::energy::REDUCE_SIZE as u64;
    (if most >= group {
        most - most % group
    } else {
        most
    }) as usize
}

/// Device bytes per point: the state chunk (`words_per_point` values of `value_bytes` each: 4
/// for f32, 8 for f64), and its f64 initial energy where the device has f64 (`gpu::energy`).
pub fn device_bytes_per_point(words: usize, value_bytes: usize, f64: bool) -> u64 {
    (words * value_bytes) as u64
        + if f64 {
            EnergyReducer::BYTES_PER_POINT as u64
        } else {
            0
        }
}

/// Refuse, before anything is allocated, `points` (set by `field`) whose device buffers would
/// not fit in 90 % of the device's largest device-local memory heap (where the backend reports
/// one): an input error (exit 2) naming the figure and the fix.
pub fn check_device_memory(
    ctx: &GpuContext,
    field: Field,
    points: usize,
    words: usize,
    value_bytes: usize,
) -> Result<()> {
    let Some(memory) = ctx.device_memory else {
        return Ok(());
    };
    let per_point = device_bytes_per_point(words, value_bytes, ctx.f64);
    device_memory_fits(field, points, per_point, memory)
}

/// Refuse a device whose workgroups cannot hold the kernels' `WORKGROUP_SIZE` threads. WebGPU
/// guarantees 256 invocations per workgroup and 256 in x (`wgpu::Limits::default()`), so only
/// a device below WebGPU's minimum (some GL drivers) meets this; the integration kernels use
/// no workgroup memory, and the energy reduction adapts to the device on its own
/// (`gpu::energy::reduce_size`).
pub fn check_workgroup_size(limits: &wgpu::Limits, adapter: &str) -> Result<()> {
    let most = limits
        .max_compute_invocations_per_workgroup
        .min(limits.max_compute_workgroup_size_x);
    if most < shader::WORKGROUP_SIZE {
        return Err(crate::error::Error::GpuUnfit(crate::error::Message(vec![
            format!(
                "the adapter {adapter} allows {most} threads per workgroup, below the {} of WebGPU's minimum that the GPU kernels use; use ",
                shader::WORKGROUP_SIZE
            )
            .into(),
            Field::Backend.is("cpu"),
        ])));
    }
    Ok(())
}

/// Refuse (exit 2, naming the precision) an f64 kernel on an adapter without f64 in shaders,
/// or of a formula whose derivatives call a function shaders lack in f64
/// (`System::check_gpu_f64`).
pub fn check_f64_support(has_f64: bool, adapter: &str, system: &System) -> Result<()> {
    if !has_f64 {
        return Err(invalid!(Field::Precision;
            Field::Precision.is("f64"),
            " ",
            Field::Backend.is("gpu"),
            format!(": the adapter {adapter} has no f64 in shaders (wgpu SHADER_F64); use "),
            Field::Precision.is("f32"),
            ", or ",
            Field::Backend.is("cpu"),
            " for f64"
        ));
    }
    system.check_gpu_f64()
}

/// Refuse (exit 2, naming `--backend cpu`) a compensated f32 run of a discrete map that drifts
/// on an adapter without f64 in shaders: its kernel takes the map's steps in f64 from the
/// state's pairs, as the CPU engine does (`KernelSpec::pairs`), and an f32 map instead would
/// give another, far less accurate run (the vertical disk's energy 10⁸ times further off).
pub fn check_pairs_support(has_f64: bool, adapter: &str, system: &System) -> Result<()> {
    if has_f64 {
        return Ok(());
    }
    Err(invalid!(Field::Compensated;
        Field::Compensated,
        " ",
        Field::Precision.is("f32"),
        format!(
            ": the GPU kernel of system '{}' takes its compensated steps in f64, and the adapter {adapter} has no f64 in shaders (wgpu SHADER_F64); use ",
            system.name()
        ),
        Field::Backend.is("cpu")
    ))
}

fn device_memory_fits(field: Field, points: usize, per_point: u64, memory: u64) -> Result<()> {
    let need = points as u128 * per_point as u128;
    let room = memory as u128 * 9 / 10;
    if need > room {
        let gib = |b: u128| b as f64 / (1u64 << 30) as f64;
        return Err(invalid!(field.clone();
            field.is(points),
            format!(
                ": the ensemble needs about {:.1} GiB of GPU memory ({per_point} bytes per point) but the device has {:.1} GiB; use fewer points (at most about {}) or ",
                gib(need),
                gib(memory as u128),
                room / per_point.max(1) as u128
            ),
            Field::Backend.is("cpu")
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

/// Systems of more degrees of freedom than this are announced and refused on CPU drivers as
/// well, whatever their component count: their own functions run over arrays of d components
/// past the register kernels' limit, and lavapipe spent about 180 s building the 64-mass
/// chain's kernel (d = 128, no tangent columns) before its first step.
pub const LARGE_KERNEL_DOF: usize = crate::method::wgsl::UNROLL_MAX_COMPONENTS;

/// Whether a kernel of `d` degrees of freedom and `comps` components per point is large:
/// announced before it is built, refused on a CPU driver (`cpu_driver_refusal`).
pub fn large_kernel(d: usize, comps: usize) -> bool {
    comps > LARGE_KERNEL_COMPONENTS || d > LARGE_KERNEL_DOF
}

/// Why a CPU driver (`driver`, e.g. lavapipe) is not given the kernel of `k` with `comps`
/// components per point, or None when it is small enough to build in seconds.
pub fn cpu_driver_refusal(
    k: &Integrator,
    comps: usize,
    driver: &str,
) -> Option<crate::error::Error> {
    use crate::error::Field;
    let (system, method, d) = (k.system.name(), k.method.name(), k.system.dof());
    let gpu = Field::Backend.is("gpu");
    let cpu = Field::Backend.is("cpu");
    if comps > LARGE_KERNEL_COMPONENTS {
        Some(crate::invalid!(Field::Backend;
            gpu,
            format!(": the {system} / {method} kernel carries {comps} components per point (the point and its tangent map's columns), and {driver} is a CPU driver, which takes minutes to build a kernel that large (or fails) and then runs it slower than the CPU engine; use "),
            cpu,
            ", or drop ",
            Field::Tangent,
        ))
    } else if d > LARGE_KERNEL_DOF {
        Some(crate::invalid!(Field::Backend;
            gpu,
            format!(": system '{system}' has {d} degrees of freedom, and {driver} is a CPU driver, which takes minutes to build the {method} kernel of a system above {LARGE_KERNEL_DOF} degrees of freedom (about 3 minutes for the 64-mass spring chain) before the first step; use "),
            cpu,
        ))
    } else {
        None
    }
}

/// Refuse (exit 2, naming the fix) a kernel too large for a CPU driver to build and run.
pub fn check_kernel_size(ctx: &GpuContext, k: &Integrator, comps: usize) -> Result<()> {
    if ctx.info.device_type != wgpu::DeviceType::Cpu {
        return Ok(());
    }
    match cpu_driver_refusal(k, comps, &ctx.info.name) {
        Some(refusal) => Err(refusal),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    /// A CPU driver is refused the kernels it takes minutes to build: many tangent columns
    /// (the solar system's 666 components), and many degrees of freedom even without them (the
    /// 64-mass spring chain, d = 128, about 180 s on lavapipe before step 1, which the
    /// component count alone let through); the 4-mass chain with its tangent columns (136) and
    /// the default 8-mass chain still run there.
    #[test]
    fn cpu_drivers_are_refused_kernels_that_take_minutes_to_build() {
        let verlet = |name: &str, n: Option<f64>| {
            let params = n.map(|n| ("n".to_string(), n)).into_iter().collect();
            Integrator::with_default_solver::<f32>(
                System::new(name, &params).unwrap(),
                Method::Verlet,
                0.01,
            )
            .unwrap()
        };
        let comps = |k: &Integrator, tangent: bool| {
            let d = k.system.dof();
            if tangent {
                d * (1 + 2 * d)
            } else {
                d
            }
        };
        let chain64 = verlet("spring-chain", Some(64.0));
        let refusal = cpu_driver_refusal(&chain64, comps(&chain64, false), "llvmpipe").unwrap();
        let why = crate::cli::flags::message(&refusal);
        assert!(
            why.starts_with("--backend gpu: ")
                && why.contains("128 degrees of freedom")
                && why.contains("--backend cpu"),
            "{why}"
        );
        // The library names the option, not the flag.
        assert!(
            refusal.to_string().starts_with("backend = gpu: "),
            "{refusal}"
        );
        let solar = verlet("outer-solar-system", None);
        let why = crate::cli::flags::message(
            &cpu_driver_refusal(&solar, comps(&solar, true), "llvmpipe").unwrap(),
        );
        assert!(why.contains("drop --tangent"), "{why}");
        assert!(large_kernel(128, 128) && large_kernel(18, 666));
        for (k, tangent) in [
            (verlet("spring-chain", Some(4.0)), true),
            (verlet("spring-chain", None), false),
            (solar, false),
        ] {
            let c = comps(&k, tangent);
            assert!(cpu_driver_refusal(&k, c, "llvmpipe").is_none(), "{c}");
            assert!(!large_kernel(k.system.dof(), c));
        }
    }

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
        assert_eq!(
            device_bytes_per_point(words_per_point(1, false), 4, true),
            20
        );
        assert_eq!(
            device_bytes_per_point(words_per_point(1, false), 4, false),
            12
        );
        // f64: 8 bytes a value; compensated: eq and ep beside q and p
        assert_eq!(
            device_bytes_per_point(words_per_point(1, false), 8, true),
            32
        );
        assert_eq!(
            device_bytes_per_point(words_per_point(1, true), 8, true),
            48
        );
        // d = 2 with --tangent (comps 10), compensated f32: 41 values
        assert_eq!(words_per_point(10, true), 41);
        let gib = 1u64 << 30;
        assert!(device_memory_fits(Field::Points, 1_000_000_000, 20, 80 * gib).is_ok());
        let e = device_memory_fits(Field::Points, 4_000_000_000, 20, 80 * gib).unwrap_err();
        assert!(
            matches!(
                &e,
                Error::Invalid {
                    field: Field::Points,
                    ..
                }
            ),
            "{e:?}"
        );
        // The library names its options; the command line reads the same error with flags.
        let msg = e.to_string();
        assert!(
            msg.starts_with("points = 4000000000: ")
                && msg.contains("74.5 GiB")
                && msg.ends_with("or backend = cpu")
                && !msg.contains("--"),
            "{msg}"
        );
        assert!(msg.contains("at most about 3865470566"), "{msg}");
        let cli = crate::cli::flags::message(&e);
        assert!(
            cli.starts_with("--points 4000000000: ") && cli.ends_with("or --backend cpu"),
            "{cli}"
        );
    }

    #[test]
    fn kernels_need_webgpus_minimum_workgroup() {
        assert!(check_workgroup_size(&wgpu::Limits::default(), "any").is_ok());
        assert!(check_workgroup_size(&wgpu::Limits::downlevel_defaults(), "gl").is_ok());
        let small = wgpu::Limits {
            max_compute_invocations_per_workgroup: 128,
            ..wgpu::Limits::default()
        };
        let e = check_workgroup_size(&small, "Old GL").unwrap_err();
        // The library names the option; the command line reads the same error with its flag.
        let text = e.to_string();
        assert!(
            text.contains("allows 128 threads") && text.ends_with("; use backend = cpu"),
            "{text}"
        );
        let cli = crate::cli::flags::message(&e);
        assert!(
            cli.starts_with("GPU: the adapter Old GL") && cli.ends_with("; use --backend cpu"),
            "{cli}"
        );
    }

    #[test]
    fn adapters_without_f64_are_refused_naming_the_flag() {
        let pendulum = System::new("pendulum", &Default::default()).unwrap();
        assert!(check_f64_support(true, "lavapipe", &pendulum).is_ok());
        let e = check_f64_support(false, "Some GPU", &pendulum).unwrap_err();
        assert!(e.is_input(), "{e}");
        assert!(e.to_string().contains("use precision = f32"), "{e}");
        assert!(
            crate::cli::flags::message(&e).starts_with("--precision f64 --backend gpu: ")
                && crate::cli::flags::message(&e).contains("use --precision f32, or --backend cpu"),
            "{e}"
        );
    }

    /// A compensated f32 run of a discrete map needs f64 in shaders: refused without it,
    /// naming `--backend cpu` (exit 2), never run with the f32 map.
    #[test]
    fn compensated_f32_maps_without_gpu_f64_are_refused_naming_the_cpu_backend() {
        let disk = System::new("vertical-disk", &Default::default()).unwrap();
        assert!(check_pairs_support(true, "lavapipe", &disk).is_ok());
        let e = check_pairs_support(false, "Some GPU", &disk).unwrap_err();
        assert!(e.is_input(), "{e}");
        let m = crate::cli::flags::message(&e);
        assert!(
            m.starts_with("--compensated --precision f32: the GPU kernel of system 'vertical-disk' takes its compensated steps in f64")
                && m.contains("Some GPU has no f64 in shaders")
                && m.ends_with("use --backend cpu"),
            "{m}"
        );
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
