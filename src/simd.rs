//! The vector instructions of the CPU engine's loops, chosen when the program runs. The binary
//! is built for a baseline every x86-64 processor of the last decade has (`x86-64-v3`: AVX2,
//! set in `.cargo/config.toml`), so it runs on every node of a cluster; the loops over a
//! block's points (`dispatch`) are compiled a second time for AVX-512 and take that copy on a
//! processor that has it. Both copies do the same operations in the same order, without fused
//! multiply-adds (Rust never contracts a·b + c), so they round alike: results are the same bit
//! for bit on every processor.

use std::sync::atomic::{AtomicU8, Ordering};

/// A set of vector instructions the loops are compiled for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// The build's target (the baseline).
    Baseline,
    /// AVX-512 (F, BW, CD, DQ, VL: `x86-64-v4`), on x86-64 processors that have it.
    Avx512,
}

impl Level {
    /// Every level this processor can run, the baseline first.
    pub fn available() -> Vec<Level> {
        let mut all = vec![Level::Baseline];
        if avx512_detected() {
            all.push(Level::Avx512);
        }
        all
    }

    /// The fastest level this processor runs (detected once, then cached).
    #[inline(always)]
    pub fn detected() -> Level {
        // 0: not detected yet, 1: baseline, 2: AVX-512.
        static LEVEL: AtomicU8 = AtomicU8::new(0);
        match LEVEL.load(Ordering::Relaxed) {
            1 => Level::Baseline,
            2 => Level::Avx512,
            _ => {
                let level = *Level::available().last().unwrap_or(&Level::Baseline);
                LEVEL.store(level as u8 + 1, Ordering::Relaxed);
                level
            }
        }
    }

    /// `f` compiled for this level, or for the baseline where the processor lacks it (the
    /// closure marked `#[inline(always)]`, as for `dispatch`).
    #[inline(always)]
    pub fn run<R>(self, f: impl FnOnce() -> R) -> R {
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the processor has the features (`detected` found them).
            Level::Avx512 if Level::detected() == Level::Avx512 => unsafe { avx512(f) },
            _ => f(),
        }
    }
}

/// Run `f`, a loop over a block's points, compiled for the fastest level this processor runs.
/// Callers mark the closure `#[inline(always)]`: it is then compiled into each level's copy
/// (a closure is otherwise one function, compiled once for the baseline), with what it inlines
/// in turn; a call it makes that is not inlined runs at the baseline.
#[inline(always)]
pub fn dispatch<R>(f: impl FnOnce() -> R) -> R {
    Level::detected().run(f)
}

fn avx512_detected() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512cd")
            && std::arch::is_x86_feature_detected!("avx512dq")
            && std::arch::is_x86_feature_detected!("avx512vl")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// `f` with AVX-512 enabled (on top of the baseline's features).
///
/// # Safety
/// The processor has AVX-512 F, BW, CD, DQ and VL.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512cd,avx512dq,avx512vl")]
unsafe fn avx512<R>(f: impl FnOnce() -> R) -> R {
    f()
}
