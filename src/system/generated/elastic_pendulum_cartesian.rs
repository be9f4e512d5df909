//! Generated from the formulas in src/system/elastic_pendulum_cartesian.rs by `expr::rust` (H = (p1^2 + p2^2)/2 + (sqrt(q1^2 + q2^2) - 1)^2/2 - G_HAT*q2); do not edit:
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
    let t20 = q[1] * c[0];
    let t65 = p[0] * p[0];
    let t66 = p[1] * p[1];
    let t67 = t65 + t66;
    let t68 = 0.5_f64 * t67;
    let t69 = q[0] * q[0];
    let t70 = q[1] * q[1];
    let t71 = t69 + t70;
    let t72 = f64::sqrt(t71);
    let t73 = t72 - 1.0_f64;
    let t74 = t73 * t73;
    let t75 = 0.5_f64 * t74;
    let t76 = t68 + t75;
    let t77 = t76 - t20;
    t77
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
        let t20 = x_q1 * c[0];
        let t65 = x_p0 * x_p0;
        let t66 = x_p1 * x_p1;
        let t67 = t65 + t66;
        let t68 = 0.5_f64 * t67;
        let t69 = x_q0 * x_q0;
        let t70 = x_q1 * x_q1;
        let t71 = t69 + t70;
        let t72 = f64::sqrt(t71);
        let t73 = t72 - 1.0_f64;
        let t74 = t73 * t73;
        let t75 = 0.5_f64 * t74;
        let t76 = t68 + t75;
        let t77 = t76 - t20;
        out[i] = t77;
    }
    true
}

#[inline(always)]
pub fn grad_q<T: Real>(c: &[f64], q: &[T], p: &[T], out: &mut [T]) {
    let n = out.len() / D;
    let q0 = &q[0 * n + 0..][..n];
    let q1 = &q[1 * n + 0..][..n];
    let c0 = T::from_f64(c[0]);
    let rest = &mut out[0..];
    let (o0, rest) = rest.split_at_mut(n);
    let o0 = &mut o0[0..][..n];
    let (o1, rest) = rest.split_at_mut(n);
    let o1 = &mut o1[0..][..n];
    for i in 0..n {
        let t69 = q0[i] * q0[i];
        let t70 = q1[i] * q1[i];
        let t71 = t69 + t70;
        let t72 = t71.sqrt();
        let t73 = t72 - T::from_f64(1.0);
        let t78 = q0[i] * (T::ONE / t72);
        let t79 = t73 * t78;
        let t80 = q1[i] * (T::ONE / t72);
        let t81 = t73 * t80;
        let t82 = t81 - c0;
        o0[i] = t79;
        o1[i] = t82;
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
        let t69 = q0[i] * q0[i];
        let t70 = q1[i] * q1[i];
        let t71 = t69 + t70;
        let t72 = t71.sqrt();
        let t73 = t72 - T::from_f64(1.0);
        let t78 = q0[i] * (T::ONE / t72);
        let t80 = q1[i] * (T::ONE / t72);
        let t83 = t78 * t78;
        let t84 = T::from_f64(1.0) - t83;
        let t85 = t84 * (T::ONE / t72);
        let t86 = t73 * t85;
        let t87 = t83 + t86;
        let t88 = vq0[i] * t87;
        let t89 = t78 * t80;
        let t90 = t89 * (T::ONE / t72);
        let t91 = t73 * t90;
        let t92 = t89 - t91;
        let t93 = vq1[i] * t92;
        let t94 = t88 + t93;
        let t95 = vq0[i] * t92;
        let t96 = t80 * t80;
        let t97 = T::from_f64(1.0) - t96;
        let t98 = t97 * (T::ONE / t72);
        let t99 = t73 * t98;
        let t100 = t96 + t99;
        let t101 = vq1[i] * t100;
        let t102 = t95 + t101;
        o0[i] = t94;
        o1[i] = t102;
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
    let c0 = T::from_f64(c[0]);
    let mut k87 = [T::ZERO; RUN];
    let mut k92 = [T::ZERO; RUN];
    let mut k100 = [T::ZERO; RUN];
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
            let t69 = q0[i] * q0[i];
            let t70 = q1[i] * q1[i];
            let t71 = t69 + t70;
            let t72 = t71.sqrt();
            let t73 = t72 - T::from_f64(1.0);
            let t78 = q0[i] * (T::ONE / t72);
            let t79 = t73 * t78;
            let t80 = q1[i] * (T::ONE / t72);
            let t81 = t73 * t80;
            let t82 = t81 - c0;
            let t83 = t78 * t78;
            let t84 = T::from_f64(1.0) - t83;
            let t85 = t84 * (T::ONE / t72);
            let t86 = t73 * t85;
            let t87 = t83 + t86;
            let t89 = t78 * t80;
            let t90 = t89 * (T::ONE / t72);
            let t91 = t73 * t90;
            let t92 = t89 - t91;
            let t96 = t80 * t80;
            let t97 = T::from_f64(1.0) - t96;
            let t98 = t97 * (T::ONE / t72);
            let t99 = t73 * t98;
            let t100 = t96 + t99;
            o0[i] = t79;
            o1[i] = t82;
            k87[i] = t87;
            k92[i] = t92;
            k100[i] = t100;
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
                let t87 = k87[i];
                let t92 = k92[i];
                let t100 = k100[i];
                let t88 = vq0[i] * t87;
                let t93 = vq1[i] * t92;
                let t94 = t88 + t93;
                let t95 = vq0[i] * t92;
                let t101 = vq1[i] * t100;
                let t102 = t95 + t101;
                o0[i] = t94;
                o1[i] = t102;
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
