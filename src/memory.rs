//! Host memory: how much this process may still take (MemAvailable, the cgroup's limit and
//! `ulimit -v`), and the checks that refuse an ensemble that would not fit before anything is
//! allocated. A leaf module: the ensemble reader, the run pipeline, `validate` and `bench` all
//! use it.

use crate::error::{Field, Result};
use crate::invalid;

/// Refuse, before anything is allocated, an ensemble of `points` needing `per_point` host
/// bytes each that would not fit in 90 % of the memory available (MemAvailable, and the
/// cgroup's limit where there is one). `field` sets the count (`Points`, or `MaxNodes` for a
/// refined loop, which grows up to it).
pub fn check_host_memory(field: Field, points: usize, per_point: u64) -> Result<()> {
    let need = points as u128 * per_point as u128;
    let avail = available_memory().unwrap_or(u64::MAX) as u128;
    if need > avail * 9 / 10 {
        let gib = |b: u128| b as f64 / (1u64 << 30) as f64;
        let fix = if field == Field::Points {
            "fewer "
        } else {
            "a lower "
        };
        return Err(invalid!(field.clone();
            field.is(points),
            format!(
                ": the ensemble needs about {:.1} GiB of memory ({per_point} bytes per point) but only {:.1} GiB is available; use {fix}",
                gib(need),
                gib(avail)
            ),
            field,
            format!(" (at most about {})", avail * 9 / 10 / per_point.max(1) as u128)
        ));
    }
    Ok(())
}

/// `validate` and `bench`: refuse ensembles whose f64 initial set and engine states (`d`
/// components of `bytes_per_component` each in q and p, two engines) would not fit in memory.
pub fn check_memory(points: usize, d: usize, bytes_per_component: usize) -> Result<()> {
    check_host_memory(
        Field::Points,
        points,
        (2 * d * (8 + 2 * bytes_per_component) + 16) as u64,
    )
}

/// Memory this process may still take: MemAvailable, capped by the cgroup (v2) limit and by
/// the address-space limit (`ulimit -v`) less what the process has already mapped.
pub fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kb: u64 = field_kb(&text, "MemAvailable:")?;
    let mut avail = kb * 1024;
    if let Some(c) = cgroup_room() {
        avail = avail.min(c);
    }
    if let Some(r) = address_space_room() {
        avail = avail.min(r);
    }
    Some(avail)
}

/// The value of a `Name:   1234 kB` line of a /proc file.
fn field_kb(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with(name))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The cgroup (v2) limit less its current use, where a limit is set.
fn cgroup_room() -> Option<u64> {
    let read = |f: &str| std::fs::read_to_string(format!("/sys/fs/cgroup/{f}")).ok();
    let max: u64 = read("memory.max")?.trim().parse().ok()?;
    let current: u64 = read("memory.current")?.trim().parse().ok()?;
    Some(max.saturating_sub(current))
}

/// `ulimit -v` (RLIMIT_AS, the soft limit in /proc/self/limits) less the process's mapped
/// size (VmSize), where a limit is set.
fn address_space_room() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max address space"))?;
    let soft: u64 = line.split_whitespace().nth(3)?.parse().ok()?; // "unlimited" → None
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let mapped = field_kb(&status, "VmSize:")? * 1024;
    Some(soft.saturating_sub(mapped))
}
