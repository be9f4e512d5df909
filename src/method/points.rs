//! The points of a block or of a fused group between two steps (`Points`): what the CPU
//! engine's per-step observers read and change (`observe::BlockObserver`), whichever path
//! advances them. Both lay the points out as a `Block` does, component-major with `n` points
//! per component (`q[k*n + i]`), a short block or group padded with copies of its first point.

use super::Block;
use crate::simd::Level;

/// Mutable views of the vectors an observer may read or change, with their shape.
pub struct Points<'a, T> {
    /// Points per component (a block's `n`; a fused group's 64).
    pub n: usize,
    /// Degrees of freedom and tangent columns: d·(1 + nt) components per vector.
    pub d: usize,
    pub nt: usize,
    /// The vector instructions of the engine's loops (`simd`).
    pub level: Level,
    pub q: &'a mut [T],
    pub p: &'a mut [T],
    /// The derivative vectors a method carries from one step to the next (`Vector::Dq`,
    /// `Vector::Dp`).
    pub dq: &'a mut [T],
    pub dp: &'a mut [T],
    /// The carried rounding errors of a compensated run (empty when off).
    pub eq: &'a mut [T],
    pub ep: &'a mut [T],
}

impl<T> Block<T> {
    /// The block's points (`Points`) and its per-point count of unconverged solves.
    pub fn points(&mut self) -> (Points<'_, T>, &mut [u32]) {
        let points = Points {
            n: self.n,
            d: self.d,
            nt: self.nt,
            level: self.level,
            q: &mut self.q,
            p: &mut self.p,
            dq: &mut self.dq,
            dp: &mut self.dp,
            eq: &mut self.eq,
            ep: &mut self.ep,
        };
        (points, &mut self.unconverged)
    }
}
