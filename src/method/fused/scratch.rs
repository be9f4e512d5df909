//! The memory the fused path reuses from block to block on one worker (`Scratch`).

use std::any::Any;

use super::{Lanes, Temps, LIN_NODES, POINTS};
use crate::float::Real;

/// A worker's groups and temporaries, kept between the blocks it advances (rayon's
/// `for_each_init` makes one per task it splits off). Made per block, they cost more than the
/// block's own points: a block of 128 f64 pendulum points holds 2 KiB of state, its two groups
/// and temporaries 44 KiB, which were allocated and zeroed for every block (measured on 10⁶
/// points, one step per advance: 3.0 ms an advance with them made per block, 2.0 ms without).
///
/// What a block finds in them is what the last block left. A group's points are loaded
/// into it before its first statement, and every other vector of a step is written before it
/// is read (tested on a scratch that is all NaN: `Scratch::poisoned`, in
/// `engine::fused_tests`).
#[derive(Default)]
pub struct Scratch {
    held: Option<Box<dyn Any + Send>>,
    /// Tests: every value set to NaN before each block, so that a value one block leaves and
    /// another reads shows in its points.
    #[cfg(test)]
    poisoned: bool,
}

/// What `Scratch` holds for one group size `N` and precision `T`.
pub(super) struct Held<T, const N: usize> {
    pub groups: Vec<Lanes<T, N>>,
    pub tmp: Temps<T, N>,
}

impl Scratch {
    /// The held memory for `N` and `T`, with at least `groups` groups (made anew where the
    /// last block was of another size or precision). Given back with `put`.
    pub(super) fn take<T: Real, const N: usize>(&mut self, groups: usize) -> Box<Held<T, N>> {
        let mut held = match self.held.take().map(|h| h.downcast::<Held<T, N>>()) {
            Some(Ok(held)) => held,
            _ => Held::boxed(),
        };
        if held.groups.len() < groups {
            held.grow(groups);
        }
        #[cfg(test)]
        if self.poisoned {
            let nan = T::from_f64(f64::NAN);
            for g in &mut held.groups {
                g.v.iter_mut().flatten().for_each(|v| *v = nan);
                g.eq.fill(nan);
                g.ep.fill(nan);
            }
            held.tmp.0.iter_mut().flatten().for_each(|v| *v = nan);
        }
        held
    }

    /// Keep `held` for the next block.
    pub(super) fn put<T: Real, const N: usize>(&mut self, held: Box<Held<T, N>>) {
        self.held = Some(held);
    }

    /// A scratch that is all NaN at every block (`poisoned`).
    #[cfg(test)]
    pub(crate) fn poisoned() -> Scratch {
        Scratch {
            held: None,
            poisoned: true,
        }
    }
}

impl<T: Real, const N: usize> Held<T, N> {
    /// New held memory, made apart from the caller (as `grow`): what is built on the stack
    /// before it moves to the heap would otherwise enlarge the frame of every block's call
    /// (184 KiB over the group widths, each page of it touched at each call by the stack
    /// probe).
    #[inline(never)]
    fn boxed() -> Box<Self> {
        Box::new(Held {
            groups: Vec::new(),
            tmp: Temps([[T::ZERO; N]; LIN_NODES]),
        })
    }

    /// At least `groups` groups (`boxed` says why apart).
    #[inline(never)]
    fn grow(&mut self, groups: usize) {
        self.groups.resize(groups, Lanes::new());
    }

    /// The `m` points of a block (`parts`: per-component slices, `c` components per point) into
    /// its groups of `w` points; a short last group padded with copies of its first point.
    pub(super) fn load(&mut self, parts: &[&mut [T]], c: usize, w: usize, m: usize) {
        for (i, g) in self.groups[..m.div_ceil(w)].iter_mut().enumerate() {
            let (start, len) = (i * w, w.min(m - i * w));
            let [q, p, ..] = &mut g.v;
            let mut vectors = [q, p, &mut g.eq, &mut g.ep];
            for (v, comps) in vectors.iter_mut().zip(parts.chunks(c)) {
                for (k, comp) in comps.iter().enumerate() {
                    let dst = &mut v[k * w..(k + 1) * w];
                    if len == POINTS {
                        copy_group(dst, &comp[start..start + len]);
                        continue;
                    }
                    dst[..len].copy_from_slice(&comp[start..start + len]);
                    dst[len..].fill(comp[start]);
                }
            }
        }
    }

    /// The groups' points back into the block (`load`'s inverse, the padding left out).
    pub(super) fn store(&self, parts: &mut [&mut [T]], c: usize, w: usize, m: usize) {
        for (i, g) in self.groups[..m.div_ceil(w)].iter().enumerate() {
            let (start, len) = (i * w, w.min(m - i * w));
            let vectors = [&g.v[0], &g.v[1], &g.eq, &g.ep];
            for (v, comps) in vectors.iter().zip(parts.chunks_mut(c)) {
                for (k, comp) in comps.iter_mut().enumerate() {
                    if len == POINTS {
                        copy_group(&mut comp[start..start + len], &v[k * w..k * w + len]);
                        continue;
                    }
                    comp[start..start + len].copy_from_slice(&v[k * w..k * w + len]);
                }
            }
        }
    }
}

/// One component of a whole group copied (`POINTS` values) in pieces of a fixed size, which
/// the compiler writes as a few vector moves in place: a copy of a length known only at run
/// time is a call to `memcpy`, whose cost at this size (a group of 64 f64 is 512 bytes) was
/// most of what a short advance pays for taking its points in and out of the groups.
#[inline(always)]
fn copy_group<T: Copy>(dst: &mut [T], src: &[T]) {
    const PIECE: usize = 16;
    let (dst, src): (&mut [T; POINTS], &[T; POINTS]) = match (dst.try_into(), src.try_into()) {
        (Ok(d), Ok(s)) => (d, s),
        _ => unreachable!("a whole group has POINTS values"),
    };
    for (d, s) in dst.chunks_exact_mut(PIECE).zip(src.chunks_exact(PIECE)) {
        let d: &mut [T; PIECE] = d.try_into().expect("exact chunks");
        *d = *<&[T; PIECE]>::try_from(s).expect("exact chunks");
    }
}
