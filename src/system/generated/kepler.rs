//! Generated from the formulas in src/system/kepler.rs by `expr::rust` (H = (p1^2 + p2^2)/2 - 1/sqrt(q1^2 + q2^2)); do not edit:
//! `PHASEFLOW_REGENERATE=1 cargo test --release --lib system::generated` rewrites it.
#![allow(clippy::needless_range_loop, clippy::identity_op, clippy::erasing_op)]
#![allow(clippy::too_many_lines, clippy::let_and_return, clippy::manual_memcpy, unused_variables)]

use crate::float::Real;

/// Degrees of freedom.
pub const D: usize = 2;

/// The first function the integration kernels call that Vulkan lacks in f64 (`None`: f64 GPU kernels compile).
pub const GPU_F64_MISSING: Option<&str> = None;

/// H at one point, in f64 (the standard library's functions).
pub fn energy(c: &[f64], q: &[f64], p: &[f64]) -> f64 {
    let t67 = p[0] * p[0];
    let t68 = p[1] * p[1];
    let t69 = t67 + t68;
    let t70 = 0.5_f64 * t69;
    let t71 = q[0] * q[0];
    let t72 = q[1] * q[1];
    let t73 = t71 + t72;
    let t74 = f64::sqrt(t73);
    let t75 = 1.0_f64 * (1.0_f64 / t74);
    let t76 = t70 - t75;
    t76
}

/// H in f64 of the points `first..first + out.len()` of a component-major block of `n` points
/// (components k ≥ D are not read), vectorised; false where a sine or cosine argument left the
/// polynomials' accurate range.
#[inline(always)]
pub fn energy_block<T: Real>(c: &[f64], q: &[T], p: &[T], n: usize, first: usize, out: &mut [f64]) -> bool {
    let len = out.len();
    let q0 = &q[0 * n + first..][..len];
    let q1 = &q[1 * n + first..][..len];
    let p0 = &p[0 * n + first..][..len];
    let p1 = &p[1 * n + first..][..len];
    for i in 0..len {
        let x_q0 = q0[i].to_f64();
        let x_q1 = q1[i].to_f64();
        let x_p0 = p0[i].to_f64();
        let x_p1 = p1[i].to_f64();
        let t67 = x_p0 * x_p0;
        let t68 = x_p1 * x_p1;
        let t69 = t67 + t68;
        let t70 = 0.5_f64 * t69;
        let t71 = x_q0 * x_q0;
        let t72 = x_q1 * x_q1;
        let t73 = t71 + t72;
        let t74 = f64::sqrt(t73);
        let t75 = 1.0_f64 * (1.0_f64 / t74);
        let t76 = t70 - t75;
        out[i] = t76;
    }
    true
}

#[inline(always)]
pub fn grad_q<T: Real>(c: &[f64], q: &[T], p: &[T], out: &mut [T]) {
    let n = out.len() / D;
    let q0 = &q[0 * n + 0..][..n];
    let q1 = &q[1 * n + 0..][..n];
    let rest = &mut out[0..];
    let (o0, rest) = rest.split_at_mut(n);
    let o0 = &mut o0[0..][..n];
    let (o1, rest) = rest.split_at_mut(n);
    let o1 = &mut o1[0..][..n];
    for i in 0..n {
        let t71 = q0[i] * q0[i];
        let t72 = q1[i] * q1[i];
        let t73 = t71 + t72;
        let t74 = t73.sqrt();
        let t77 = t73 * t74;
        let t78 = q0[i] * (T::ONE / t77);
        let t79 = q1[i] * (T::ONE / t77);
        o0[i] = t78;
        o1[i] = t79;
    }
}

#[inline(always)]
pub fn grad_p<T: Real>(c: &[f64], q: &[T], p: &[T], out: &mut [T]) {
    let n = out.len() / D;
    let p0 = &p[0 * n + 0..][..n];
    let p1 = &p[1 * n + 0..][..n];
    let rest = &mut out[0..];
    let (o0, rest) = rest.split_at_mut(n);
    let o0 = &mut o0[0..][..n];
    let (o1, rest) = rest.split_at_mut(n);
    let o1 = &mut o1[0..][..n];
    for i in 0..n {
        o0[i] = p0[i];
        o1[i] = p1[i];
    }
}

#[inline(always)]
pub fn grad_q_dir<T: Real>(c: &[f64], q: &[T], p: &[T], vq: &[T], vp: &[T], out: &mut [T]) {
    let n = out.len() / D;
    let q0 = &q[0 * n + 0..][..n];
    let q1 = &q[1 * n + 0..][..n];
    let vq0 = &vq[0 * n + 0..][..n];
    let vq1 = &vq[1 * n + 0..][..n];
    let rest = &mut out[0..];
    let (o0, rest) = rest.split_at_mut(n);
    let o0 = &mut o0[0..][..n];
    let (o1, rest) = rest.split_at_mut(n);
    let o1 = &mut o1[0..][..n];
    for i in 0..n {
        let t71 = q0[i] * q0[i];
        let t72 = q1[i] * q1[i];
        let t73 = t71 + t72;
        let t74 = t73.sqrt();
        let t77 = t73 * t74;
        let t78 = q0[i] * (T::ONE / t77);
        let t79 = q1[i] * (T::ONE / t77);
        let t80 = q0[i] * (T::ONE / t74);
        let t81 = q1[i] * (T::ONE / t74);
        let t82 = T::from_f64(3.0) * t73;
        let t83 = t80 * t82;
        let t84 = t78 * t83;
        let t85 = T::from_f64(1.0) - t84;
        let t86 = t85 * (T::ONE / t77);
        let t87 = vq0[i] * t86;
        let t88 = t81 * t82;
        let t89 = t78 * t88;
        let t90 = t89 * (T::ONE / t77);
        let t91 = vq1[i] * t90;
        let t92 = t87 - t91;
        let t93 = t79 * t83;
        let t94 = t93 * (T::ONE / t77);
        let t95 = vq0[i] * t94;
        let t96 = t79 * t88;
        let t97 = T::from_f64(1.0) - t96;
        let t98 = t97 * (T::ONE / t77);
        let t99 = vq1[i] * t98;
        let t100 = t99 - t95;
        o0[i] = t92;
        o1[i] = t100;
    }
}

#[inline(always)]
pub fn grad_p_dir<T: Real>(c: &[f64], q: &[T], p: &[T], vq: &[T], vp: &[T], out: &mut [T]) {
    let n = out.len() / D;
    let vp0 = &vp[0 * n + 0..][..n];
    let vp1 = &vp[1 * n + 0..][..n];
    let rest = &mut out[0..];
    let (o0, rest) = rest.split_at_mut(n);
    let o0 = &mut o0[0..][..n];
    let (o1, rest) = rest.split_at_mut(n);
    let o1 = &mut o1[0..][..n];
    for i in 0..n {
        o0[i] = vp0[i];
        o1[i] = vp1[i];
    }
}

/// `grad_q` of the block's `nd` point components, then `grad_q_dir` of each tangent column after them,
/// the column-independent values computed once per point.
#[inline(always)]
pub fn grad_q_tangent<T: Real>(c: &[f64], nd: usize, q: &[T], p: &[T], out: &mut [T]) {
    if q.len() == nd {
        return grad_q(c, q, p, out);
    }
    const RUN: usize = 64;
    let n = nd / D;
    let mut k86 = [T::ZERO; RUN];
    let mut k90 = [T::ZERO; RUN];
    let mut k94 = [T::ZERO; RUN];
    let mut k98 = [T::ZERO; RUN];
    for start in (0..n).step_by(RUN) {
        let len = (n - start).min(RUN);
        let q0 = &q[0 * n + start..][..len];
        let q1 = &q[1 * n + start..][..len];
        let rest = &mut out[0..];
        let (o0, rest) = rest.split_at_mut(n);
        let o0 = &mut o0[start..][..len];
        let (o1, rest) = rest.split_at_mut(n);
        let o1 = &mut o1[start..][..len];
        for i in 0..len {
            let t71 = q0[i] * q0[i];
            let t72 = q1[i] * q1[i];
            let t73 = t71 + t72;
            let t74 = t73.sqrt();
            let t77 = t73 * t74;
            let t78 = q0[i] * (T::ONE / t77);
            let t79 = q1[i] * (T::ONE / t77);
            let t80 = q0[i] * (T::ONE / t74);
            let t81 = q1[i] * (T::ONE / t74);
            let t82 = T::from_f64(3.0) * t73;
            let t83 = t80 * t82;
            let t84 = t78 * t83;
            let t85 = T::from_f64(1.0) - t84;
            let t86 = t85 * (T::ONE / t77);
            let t88 = t81 * t82;
            let t89 = t78 * t88;
            let t90 = t89 * (T::ONE / t77);
            let t93 = t79 * t83;
            let t94 = t93 * (T::ONE / t77);
            let t96 = t79 * t88;
            let t97 = T::from_f64(1.0) - t96;
            let t98 = t97 * (T::ONE / t77);
            o0[i] = t78;
            o1[i] = t79;
            k86[i] = t86;
            k90[i] = t90;
            k94[i] = t94;
            k98[i] = t98;
        }
        for j in 1..q.len() / nd {
            let vq0 = &q[j * nd + 0 * n + start..][..len];
            let vq1 = &q[j * nd + 1 * n + start..][..len];
            let rest = &mut out[j * nd..];
            let (o0, rest) = rest.split_at_mut(n);
            let o0 = &mut o0[start..][..len];
            let (o1, rest) = rest.split_at_mut(n);
            let o1 = &mut o1[start..][..len];
            for i in 0..len {
                let t86 = k86[i];
                let t90 = k90[i];
                let t94 = k94[i];
                let t98 = k98[i];
                let t87 = vq0[i] * t86;
                let t91 = vq1[i] * t90;
                let t92 = t87 - t91;
                let t95 = vq0[i] * t94;
                let t99 = vq1[i] * t98;
                let t100 = t99 - t95;
                o0[i] = t92;
                o1[i] = t100;
            }
        }
    }
}

/// `grad_p` of the block's `nd` point components, then `grad_p_dir` of each tangent column after them,
/// the column-independent values computed once per point.
#[inline(always)]
pub fn grad_p_tangent<T: Real>(c: &[f64], nd: usize, q: &[T], p: &[T], out: &mut [T]) {
    if q.len() == nd {
        return grad_p(c, q, p, out);
    }
    const RUN: usize = 64;
    let n = nd / D;
    for start in (0..n).step_by(RUN) {
        let len = (n - start).min(RUN);
        let p0 = &p[0 * n + start..][..len];
        let p1 = &p[1 * n + start..][..len];
        let rest = &mut out[0..];
        let (o0, rest) = rest.split_at_mut(n);
        let o0 = &mut o0[start..][..len];
        let (o1, rest) = rest.split_at_mut(n);
        let o1 = &mut o1[start..][..len];
        for i in 0..len {
            o0[i] = p0[i];
            o1[i] = p1[i];
        }
        for j in 1..q.len() / nd {
            let vp0 = &p[j * nd + 0 * n + start..][..len];
            let vp1 = &p[j * nd + 1 * n + start..][..len];
            let rest = &mut out[j * nd..];
            let (o0, rest) = rest.split_at_mut(n);
            let o0 = &mut o0[start..][..len];
            let (o1, rest) = rest.split_at_mut(n);
            let o1 = &mut o1[start..][..len];
            for i in 0..len {
                o0[i] = vp0[i];
                o1[i] = vp1[i];
            }
        }
    }
}
