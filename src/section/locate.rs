//! Detecting and locating crossings on the CPU engine: the same operations in the same order
//! as `shaders/common/section.wgsl` (`section_check`, `section_record`, `section_hermite`).

use super::store::BlockRecords;
use super::{Direction, Section};
use crate::float::Real;
use crate::system::{HamiltonianSystem, System};

/// Newton iterations on the Hermite cubic, from the secant's root: the secant is within
/// O(h) of the root in s, and each iteration squares the error, so four reach rounding.
pub const NEWTON_ITERATIONS: usize = 4;

fn two<T: Real>() -> T {
    T::ONE + T::ONE
}

fn three<T: Real>() -> T {
    T::ONE + T::ONE + T::ONE
}

/// The cubic Hermite interpolant on s ∈ [0, 1] with y(0) = y0, y(1) = y1, y'(0) = m0,
/// y'(1) = m1 (m = h·ẏ): y0 + s(m0 + s(a2 + s a3)).
pub fn hermite<T: Real>(s: T, y0: T, y1: T, m0: T, m1: T) -> T {
    let a2 = three::<T>() * (y1 - y0) - (two::<T>() * m0 + m1);
    let a3 = two::<T>() * (y0 - y1) + (m0 + m1);
    y0 + s * (m0 + s * (a2 + s * a3))
}

/// dy/ds of `hermite`.
fn hermite_slope<T: Real>(s: T, y0: T, y1: T, m0: T, m1: T) -> T {
    let a2 = three::<T>() * (y1 - y0) - (two::<T>() * m0 + m1);
    let a3 = two::<T>() * (y0 - y1) + (m0 + m1);
    m0 + s * (two::<T>() * a2 + three::<T>() * s * a3)
}

/// Whether the distance to the plane going from `d0` to `d1` is a crossing in `direction`.
pub fn crosses<T: Real>(direction: Direction, d0: T, d1: T) -> bool {
    crossing(sides(direction), d0, d1)
}

/// Which ways of crossing count: (upward, downward).
fn sides(direction: Direction) -> (bool, bool) {
    match direction {
        Direction::Up => (true, false),
        Direction::Down => (false, true),
        Direction::Both => (true, true),
    }
}

/// `crosses` with the direction as its two sides, written without branches (`&`, `|` on
/// bools) so that a loop over a block's points vectorises.
#[inline(always)]
fn crossing<T: Real>((up, down): (bool, bool), d0: T, d1: T) -> bool {
    (up & (d0 < T::ZERO) & (d1 >= T::ZERO)) | (down & (d0 > T::ZERO) & (d1 <= T::ZERO))
}

/// The fraction s ∈ [0, 1] of the step at which the Hermite cubic of the distance (d0, d1,
/// slopes m0, m1) is zero.
pub fn locate<T: Real>(d0: T, d1: T, m0: T, m1: T) -> T {
    let mut s = d0 / (d0 - d1);
    for _ in 0..NEWTON_ITERATIONS {
        let g = hermite(s, d0, d1, m0, m1);
        let gp = hermite_slope(s, d0, d1, m0, m1);
        if gp != T::ZERO {
            let next = s - g / gp;
            s = if next < T::ZERO {
                T::ZERO
            } else if next > T::ONE {
                T::ONE
            } else {
                next
            };
        }
    }
    s
}

/// One point's two states (q0, p0 before the step, q1, p1 after; d values each).
pub struct Ends<'a, T> {
    pub q0: &'a [T],
    pub p0: &'a [T],
    pub q1: &'a [T],
    pub p1: &'a [T],
}

fn coordinate<T: Real>(q: &[T], p: &[T], (momentum, k): (bool, usize)) -> T {
    if momentum {
        p[k]
    } else {
        q[k]
    }
}

/// The crossing of the step from `e.q0, e.p0` to `e.q1, e.p1` (distances `d0`, `d1` of its
/// ends to the plane), located: the fraction s of the step and the other coordinates at s
/// (`Section::others` order) written into `out` (2d values); `g` holds the gradients (4d).
pub fn locate_crossing<T: Real>(
    sec: &Section,
    system: &HamiltonianSystem,
    h: T,
    e: &Ends<T>,
    (d0, d1): (T, T),
    g: &mut [T],
    out: &mut [T],
) {
    let d = sec.d;
    let (g0, g1) = g[..4 * d].split_at_mut(2 * d);
    let (gq0, gp0) = g0.split_at_mut(d);
    let (gq1, gp1) = g1.split_at_mut(d);
    system.grad_q(e.q0, e.p0, gq0);
    system.grad_p(e.q0, e.p0, gp0);
    system.grad_q(e.q1, e.p1, gq1);
    system.grad_p(e.q1, e.p1, gp1);
    // h times the vector field's component: h·∂H/∂p_k for q_k, −(h·∂H/∂q_k) for p_k.
    let slope = |gq: &[T], gp: &[T], (m, k): (bool, usize)| {
        if m {
            -(h * gq[k])
        } else {
            h * gp[k]
        }
    };
    let own = (sec.momentum, sec.index);
    let s = locate(d0, d1, slope(gq0, gp0, own), slope(gq1, gp1, own));
    out[0] = s;
    for (o, c) in out[1..].iter_mut().zip(sec.others()) {
        *o = hermite(
            s,
            coordinate(e.q0, e.p0, c),
            coordinate(e.q1, e.p1, c),
            slope(gq0, gp0, c),
            slope(gq1, gp1, c),
        );
    }
}

/// A block's states before and after one step: component-major slices of `b` points.
pub struct BlockStep<'a, T> {
    pub b: usize,
    pub q0: &'a [T],
    pub p0: &'a [T],
    pub q1: &'a [T],
    pub p1: &'a [T],
}

/// Room for one crossing's work, allocated once per block rather than per crossing: the
/// point's two states, the gradients at them and the record's values.
pub struct Scratch<T> {
    ends: Vec<T>,
    g: Vec<T>,
    values: Vec<T>,
}

/// Empty until a crossing needs it (`Scratch::ready`): a block observer is made per block and
/// advance, and most blocks of most advances cross nothing.
impl<T> Default for Scratch<T> {
    fn default() -> Self {
        Scratch {
            ends: Vec::new(),
            g: Vec::new(),
            values: Vec::new(),
        }
    }
}

impl<T: Real> Scratch<T> {
    fn ready(&mut self, sec: &Section) {
        if self.ends.is_empty() {
            self.ends = vec![T::ZERO; 4 * sec.d];
            self.g = vec![T::ZERO; 4 * sec.d];
            self.values = vec![T::ZERO; sec.record_values()];
        }
    }
}

/// Count and record the crossings of the step from index `k` of the block's first `m` points
/// (the rest is padding).
pub fn check_block<T: Real>(
    sec: &Section,
    system: &System,
    h: T,
    (k, m): (u64, usize),
    st: &BlockStep<T>,
    rec: &mut BlockRecords<T>,
    scratch: &mut Scratch<T>,
) {
    let (b, d, max) = (st.b, sec.d, sec.max as usize);
    // `Section::parse` refuses discrete maps (their p slots hold velocities): a run with a
    // section is a Hamiltonian system's.
    let Some(system) = system.hamiltonian() else {
        unreachable!("a discrete map has no section")
    };
    let value = T::from_f64(sec.value);
    let (x0, x1) = match sec.momentum {
        true => (st.p0, st.p1),
        false => (st.q0, st.q1),
    };
    let at = sec.index * b;
    let (xs0, xs1) = (&x0[at..at + m], &x1[at..at + m]);
    let sides = sides(sec.direction);
    // A branch-free pass first, which vectorises: in most steps most blocks cross nothing.
    let any = xs0.iter().zip(xs1).fold(false, |any, (&a, &b)| {
        any | crossing(sides, a - value, b - value)
    });
    if !any {
        return;
    }
    scratch.ready(sec);
    for i in 0..m {
        let (d0, d1) = (xs0[i] - value, xs1[i] - value);
        if !crossing(sides, d0, d1) {
            continue;
        }
        if (rec.seen[i] as usize) < max {
            for (v, whole) in [st.q0, st.p0, st.q1, st.p1].into_iter().enumerate() {
                for c in 0..d {
                    scratch.ends[v * d + c] = whole[c * b + i];
                }
            }
            let (before, after) = scratch.ends.split_at(2 * d);
            let e = Ends {
                q0: &before[..d],
                p0: &before[d..],
                q1: &after[..d],
                p1: &after[d..],
            };
            locate_crossing(
                sec,
                system,
                h,
                &e,
                (d0, d1),
                &mut scratch.g,
                &mut scratch.values,
            );
        }
        rec.push(i, max, k, &scratch.values);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hermite_cubic_interpolates_a_cubic_exactly_and_locates_its_root() {
        // y(s) = (s − 0.3)(1 + s²): y0 = −0.3, y1 = 1.4, y'(s) = 1 + 3s² − 0.6s.
        let (y0, y1, m0, m1) = (-0.3f64, 1.4, 1.0, 3.4);
        for s in [0.0, 0.25, 0.5, 0.9, 1.0] {
            let exact = (s - 0.3) * (1.0 + s * s);
            assert!((hermite(s, y0, y1, m0, m1) - exact).abs() < 1e-15, "{s}");
        }
        assert!((locate(y0, y1, m0, m1) - 0.3).abs() < 1e-15);
    }

    #[test]
    fn directions_count_the_sign_changes_they_name() {
        assert!(crosses(Direction::Up, -1.0, 0.0) && !crosses(Direction::Up, 1.0, -1.0));
        assert!(crosses(Direction::Down, 1.0, -1.0) && !crosses(Direction::Down, -1.0, 1.0));
        assert!(crosses(Direction::Both, 1.0, -1.0) && crosses(Direction::Both, -1.0, 1.0));
        // A point that lands exactly on the plane is counted once, not again as it leaves.
        assert!(!crosses(Direction::Up, 0.0, 1.0) && !crosses(Direction::Both, 0.0, -1.0));
    }
}
