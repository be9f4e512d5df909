//! The process's one adapter probe: the wgpu instance and the adapters it found, made on first
//! use and shared by `phaseflow devices`, `--backend auto`, `--devices` and the contexts.
//!
//! Each probe of a Vulkan instance is a round of driver start-up, and on Linux some of it talks
//! to the desktop: Mesa's device-selection layer, which the loader puts in front of every
//! driver, asks the Wayland compositor for the default GPU whenever the application enabled
//! `VK_KHR_wayland_surface`, and libwayland-client prints `error: XDG_RUNTIME_DIR is invalid or
//! not set in the environment.` where there is no session (a server, a container, ssh). wgpu
//! enables every window-system surface extension the loader offers; phaseflow never draws to a
//! window, so on Linux its Vulkan instance is created without them, and the question is never
//! asked. Nothing in the environment is changed, so programs that phaseflow starts (mpirun, a
//! user's plotting command) see the user's environment as it was.

use std::sync::OnceLock;

struct Probe {
    /// Kept for the adapters' lifetime (wgpu holds its own reference too).
    _instance: wgpu::Instance,
    adapters: Vec<wgpu::Adapter>,
}

static PROBE: OnceLock<Probe> = OnceLock::new();

/// Every adapter the process's instance finds (`WGPU_BACKEND` chooses the backends; Vulkan,
/// Metal and DX12 by default), in wgpu's order, probed once per process.
pub(super) fn adapters() -> &'static [wgpu::Adapter] {
    &PROBE
        .get_or_init(|| {
            let instance = instance();
            let adapters = pollster::block_on(instance.enumerate_adapters(backends()));
            Probe {
                _instance: instance,
                adapters,
            }
        })
        .adapters
}

fn backends() -> wgpu::Backends {
    wgpu::Backends::from_env().unwrap_or(wgpu::Backends::PRIMARY)
}

fn instance() -> wgpu::Instance {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    desc.backends = backends();
    // Where Vulkan is the only backend asked for (Linux's default), the instance is made
    // without the window-system extensions; with GL as well, wgpu makes both as usual.
    if cfg!(all(
        unix,
        not(target_vendor = "apple"),
        not(target_os = "android")
    )) && desc.backends.contains(wgpu::Backends::VULKAN)
        && !desc.backends.contains(wgpu::Backends::GL)
    {
        if let Some(instance) = vulkan_without_window_system(&desc) {
            return instance;
        }
    }
    wgpu::Instance::new(desc)
}

/// The surface extensions of the X11 and Wayland window systems.
fn window_system_extension(name: &std::ffi::CStr) -> bool {
    use ash::khr;
    [
        khr::xlib_surface::NAME,
        khr::xcb_surface::NAME,
        khr::wayland_surface::NAME,
    ]
    .contains(&name)
}

/// A Vulkan-only instance with wgpu's usual extensions less the window-system surfaces;
/// `None` where Vulkan cannot be loaded (wgpu's own instance then reports no adapter).
fn vulkan_without_window_system(desc: &wgpu::InstanceDescriptor) -> Option<wgpu::Instance> {
    use wgpu::hal::vulkan;
    let hal_desc = wgpu::hal::InstanceDescriptor {
        name: "phaseflow",
        flags: desc.flags,
        memory_budget_thresholds: desc.memory_budget_thresholds,
        backend_options: desc.backend_options.clone(),
        telemetry: None,
        display: None,
    };
    let drop_window_systems: Box<vulkan::CreateInstanceCallback> =
        Box::new(|args: vulkan::CreateInstanceCallbackArgs| {
            args.extensions.retain(|&e| !window_system_extension(e));
        });
    // SAFETY: wgpu-hal asks callbacks not to remove extensions because the instance may assume
    // what it asked for is enabled; it uses these three only in `create_surface_from_{xlib,
    // xcb,wayland}`, each of which first checks that its extension was enabled and otherwise
    // returns an error. phaseflow creates no surface, so nothing relies on them.
    let hal = unsafe { vulkan::Instance::init_with_callback(&hal_desc, Some(drop_window_systems)) };
    match hal {
        // SAFETY: a valid Vulkan instance just created by wgpu-hal, handed over whole.
        Ok(hal) => Some(unsafe { wgpu::Instance::from_hal::<wgpu::hal::api::Vulkan>(hal) }),
        Err(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_window_system_surfaces_are_dropped() {
        use ash::{ext, khr};
        assert!(window_system_extension(khr::wayland_surface::NAME));
        assert!(window_system_extension(khr::xcb_surface::NAME));
        assert!(window_system_extension(khr::xlib_surface::NAME));
        for kept in [
            khr::surface::NAME,
            khr::get_physical_device_properties2::NAME,
            ext::debug_utils::NAME,
        ] {
            assert!(!window_system_extension(kept), "{kept:?}");
        }
    }
}
