//! Newton iteration for the implicit variational systems (the double pendulum's, Euler's disk's
//! and the ball's discrete maps), over a block of points in column sweeps: every sweep applies
//! one iteration to each point still iterating and leaves converged points as they are, so each
//! point gets exactly the iterates of the GPU thread's per-point loop while the sweep over the
//! block stays a vectorisable loop.

use crate::float::Real;

/// A variational system's Newton iteration limits (`--implicit-tol`, `--implicit-max-iter`,
/// from the run's `method::Solver`): stop when the largest increment is at most `tol` times
/// the largest unknown, or after `max_iter` iterations (then the point is counted unconverged).
#[derive(Debug, Clone, Copy)]
pub struct Newton {
    pub tol: f64,
    pub max_iter: u32,
}

impl Newton {
    /// Iterate every point of a block: `x` holds the K unknowns as columns (the starting
    /// iterate on entry, the solution on return), `iterate(i, x_i)` returns point i's next
    /// iterate and whether to go on (false once converged, and for a non-finite iterate, which
    /// is counted as escaped rather than unconverged). A point still going on after `max_iter`
    /// iterations adds 1 to its `unconverged` count.
    pub fn solve<T: Real, const K: usize>(
        self,
        x: [&mut [T]; K],
        unconverged: &mut [u32],
        iterate: impl Fn(usize, [T; K]) -> ([T; K], bool),
    ) {
        let mut active = vec![true; unconverged.len()];
        for _ in 0..self.max_iter {
            for (i, on) in active.iter_mut().enumerate() {
                let z: [T; K] = std::array::from_fn(|k| x[k][i]);
                let (next, more) = iterate(i, z);
                for k in 0..K {
                    x[k][i] = if *on { next[k] } else { z[k] };
                }
                *on = *on && more;
            }
            if !active.contains(&true) {
                break;
            }
        }
        for (u, &on) in unconverged.iter_mut().zip(&active) {
            *u += u32::from(on);
        }
    }
}
