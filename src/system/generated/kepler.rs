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
    let t73 = p[0] * p[0];
    let t74 = p[1] * p[1];
    let t75 = t73 + t74;
    let t76 = 0.5_f64 * t75;
    let t77 = q[0] * q[0];
    let t78 = q[1] * q[1];
    let t79 = t77 + t78;
    let t80 = f64::sqrt(t79);
    let t81 = 1.0_f64 / t80;
    let t82 = t76 - t81;
    t82
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
        let t73 = x_p0 * x_p0;
        let t74 = x_p1 * x_p1;
        let t75 = t73 + t74;
        let t76 = 0.5_f64 * t75;
        let t77 = x_q0 * x_q0;
        let t78 = x_q1 * x_q1;
        let t79 = t77 + t78;
        let t80 = f64::sqrt(t79);
        let t81 = 1.0_f64 / t80;
        let t82 = t76 - t81;
        out[i] = t82;
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
        let t77 = q0[i] * q0[i];
        let t78 = q1[i] * q1[i];
        let t79 = t77 + t78;
        let t80 = t79.sqrt();
        let t83 = t80 * t80;
        let t84 = t80 * t83;
        let t87 = T::from_f64(1.0) / t84;
        let t88 = q0[i] * t87;
        let t89 = q1[i] * t87;
        o0[i] = t88;
        o1[i] = t89;
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
        let t77 = q0[i] * q0[i];
        let t78 = q1[i] * q1[i];
        let t79 = t77 + t78;
        let t80 = t79.sqrt();
        let t81 = T::from_f64(1.0) / t80;
        let t83 = t80 * t80;
        let t84 = t80 * t83;
        let t87 = T::from_f64(1.0) / t84;
        let t88 = q0[i] * t87;
        let t89 = q1[i] * t87;
        let t118 = q0[i] * t81;
        let t119 = q1[i] * t81;
        let t120 = t80 * t118;
        let t121 = t120 + t120;
        let t122 = t83 * t118;
        let t123 = t80 * t121;
        let t124 = t122 + t123;
        let t125 = t88 * t124;
        let t126 = T::from_f64(1.0) - t125;
        let t127 = t126 * t87;
        let t128 = vq0[i] * t127;
        let t129 = t80 * t119;
        let t130 = t129 + t129;
        let t131 = t83 * t119;
        let t132 = t80 * t130;
        let t133 = t131 + t132;
        let t134 = t88 * t133;
        let t135 = t134 * t87;
        let t136 = vq1[i] * t135;
        let t137 = t128 - t136;
        let t138 = t89 * t124;
        let t139 = t138 * t87;
        let t140 = vq0[i] * t139;
        let t141 = t89 * t133;
        let t142 = T::from_f64(1.0) - t141;
        let t143 = t142 * t87;
        let t144 = vq1[i] * t143;
        let t145 = t144 - t140;
        o0[i] = t137;
        o1[i] = t145;
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
    let mut k127 = [T::ZERO; RUN];
    let mut k135 = [T::ZERO; RUN];
    let mut k139 = [T::ZERO; RUN];
    let mut k143 = [T::ZERO; RUN];
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
            let t77 = q0[i] * q0[i];
            let t78 = q1[i] * q1[i];
            let t79 = t77 + t78;
            let t80 = t79.sqrt();
            let t81 = T::from_f64(1.0) / t80;
            let t83 = t80 * t80;
            let t84 = t80 * t83;
            let t87 = T::from_f64(1.0) / t84;
            let t88 = q0[i] * t87;
            let t89 = q1[i] * t87;
            let t118 = q0[i] * t81;
            let t119 = q1[i] * t81;
            let t120 = t80 * t118;
            let t121 = t120 + t120;
            let t122 = t83 * t118;
            let t123 = t80 * t121;
            let t124 = t122 + t123;
            let t125 = t88 * t124;
            let t126 = T::from_f64(1.0) - t125;
            let t127 = t126 * t87;
            let t129 = t80 * t119;
            let t130 = t129 + t129;
            let t131 = t83 * t119;
            let t132 = t80 * t130;
            let t133 = t131 + t132;
            let t134 = t88 * t133;
            let t135 = t134 * t87;
            let t138 = t89 * t124;
            let t139 = t138 * t87;
            let t141 = t89 * t133;
            let t142 = T::from_f64(1.0) - t141;
            let t143 = t142 * t87;
            o0[i] = t88;
            o1[i] = t89;
            k127[i] = t127;
            k135[i] = t135;
            k139[i] = t139;
            k143[i] = t143;
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
                let t127 = k127[i];
                let t135 = k135[i];
                let t139 = k139[i];
                let t143 = k143[i];
                let t128 = vq0[i] * t127;
                let t136 = vq1[i] * t135;
                let t137 = t128 - t136;
                let t140 = vq0[i] * t139;
                let t144 = vq1[i] * t143;
                let t145 = t144 - t140;
                o0[i] = t137;
                o1[i] = t145;
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
