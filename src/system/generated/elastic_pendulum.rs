//! Generated from the formulas in src/system/elastic_pendulum.rs by `expr::rust` (H = (p1^2 + p2^2*q1^(-2))/2 + (q1 - 1)^2/2 - G_HAT*q1*cos(q2)); do not edit:
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
    let t13 = q[0] - 1.0_f64;
    let t18 = q[0] * c[0];
    let t20 = f64::cos(q[1]);
    let t21 = t18 * t20;
    let t71 = p[0] * p[0];
    let t72 = p[1] * p[1];
    let t73 = q[0] * q[0];
    let t75 = t72 * (1.0_f64 / t73);
    let t76 = t71 + t75;
    let t77 = 0.5_f64 * t76;
    let t78 = t13 * t13;
    let t79 = 0.5_f64 * t78;
    let t80 = t77 + t79;
    let t81 = t80 - t21;
    t81
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
    let mut far = false;
    for i in 0..len {
        let x_q0 = q0[i].to_f64();
        let x_q1 = q1[i].to_f64();
        let x_p0 = p0[i].to_f64();
        let x_p1 = p1[i].to_f64();
        let t13 = x_q0 - 1.0_f64;
        let t18 = x_q0 * c[0];
        let t20 = crate::float::cos_poly(x_q1);
        let t21 = t18 * t20;
        let t71 = x_p0 * x_p0;
        let t72 = x_p1 * x_p1;
        let t73 = x_q0 * x_q0;
        let t75 = t72 * (1.0_f64 / t73);
        let t76 = t71 + t75;
        let t77 = 0.5_f64 * t76;
        let t78 = t13 * t13;
        let t79 = 0.5_f64 * t78;
        let t80 = t77 + t79;
        let t81 = t80 - t21;
        far |= f64::abs(x_q1) > crate::float::SIN_POLY_F64_RANGE;
        out[i] = t81;
    }
    !far
}

#[inline(always)]
pub fn grad_q<T: Real>(c: &[f64], q: &[T], p: &[T], out: &mut [T]) {
    let n = out.len() / D;
    let q0 = &q[0 * n + 0..][..n];
    let q1 = &q[1 * n + 0..][..n];
    let p1 = &p[1 * n + 0..][..n];
    let c0 = T::from_f64(c[0]);
    let rest = &mut out[0..];
    let (o0, rest) = rest.split_at_mut(n);
    let o0 = &mut o0[0..][..n];
    let (o1, rest) = rest.split_at_mut(n);
    let o1 = &mut o1[0..][..n];
    for i in 0..n {
        let t13 = q0[i] - T::from_f64(1.0);
        let t18 = q0[i] * c0;
        let t20 = crate::float::cos_poly(q1[i]);
        let t34 = crate::float::sin_poly(q1[i]);
        let t36 = c0 * t20;
        let t38 = t18 * t34;
        let t72 = p1[i] * p1[i];
        let t73 = q0[i] * q0[i];
        let t82 = q0[i] * t73;
        let t84 = t72 * (T::ONE / t82);
        let t85 = t13 - t84;
        let t86 = t85 - t36;
        o0[i] = t86;
        o1[i] = t38;
    }
}

#[inline(always)]
pub fn grad_p<T: Real>(c: &[f64], q: &[T], p: &[T], out: &mut [T]) {
    let n = out.len() / D;
    let q0 = &q[0 * n + 0..][..n];
    let p0 = &p[0 * n + 0..][..n];
    let p1 = &p[1 * n + 0..][..n];
    let rest = &mut out[0..];
    let (o0, rest) = rest.split_at_mut(n);
    let o0 = &mut o0[0..][..n];
    let (o1, rest) = rest.split_at_mut(n);
    let o1 = &mut o1[0..][..n];
    for i in 0..n {
        let t73 = q0[i] * q0[i];
        let t87 = p1[i] * (T::ONE / t73);
        o0[i] = p0[i];
        o1[i] = t87;
    }
}

#[inline(always)]
pub fn grad_q_dir<T: Real>(c: &[f64], q: &[T], p: &[T], vq: &[T], vp: &[T], out: &mut [T]) {
    let n = out.len() / D;
    let q0 = &q[0 * n + 0..][..n];
    let q1 = &q[1 * n + 0..][..n];
    let p1 = &p[1 * n + 0..][..n];
    let vq0 = &vq[0 * n + 0..][..n];
    let vq1 = &vq[1 * n + 0..][..n];
    let vp1 = &vp[1 * n + 0..][..n];
    let c0 = T::from_f64(c[0]);
    let rest = &mut out[0..];
    let (o0, rest) = rest.split_at_mut(n);
    let o0 = &mut o0[0..][..n];
    let (o1, rest) = rest.split_at_mut(n);
    let o1 = &mut o1[0..][..n];
    for i in 0..n {
        let t18 = q0[i] * c0;
        let t20 = crate::float::cos_poly(q1[i]);
        let t21 = t18 * t20;
        let t34 = crate::float::sin_poly(q1[i]);
        let t49 = c0 * t34;
        let t52 = t49 * vq1[i];
        let t62 = vq0[i] * t49;
        let t63 = t21 * vq1[i];
        let t64 = t62 + t63;
        let t72 = p1[i] * p1[i];
        let t73 = q0[i] * q0[i];
        let t82 = q0[i] * t73;
        let t88 = t73 * t73;
        let t91 = t72 * (T::ONE / t88);
        let t92 = T::from_f64(-3.0) * t91;
        let t93 = T::from_f64(1.0) - t92;
        let t94 = vq0[i] * t93;
        let t95 = t52 + t94;
        let t96 = p1[i] * (T::ONE / t82);
        let t97 = vp1[i] * t96;
        let t98 = T::from_f64(2.0) * t97;
        let t99 = t95 - t98;
        o0[i] = t99;
        o1[i] = t64;
    }
}

#[inline(always)]
pub fn grad_p_dir<T: Real>(c: &[f64], q: &[T], p: &[T], vq: &[T], vp: &[T], out: &mut [T]) {
    let n = out.len() / D;
    let q0 = &q[0 * n + 0..][..n];
    let p1 = &p[1 * n + 0..][..n];
    let vq0 = &vq[0 * n + 0..][..n];
    let vp0 = &vp[0 * n + 0..][..n];
    let vp1 = &vp[1 * n + 0..][..n];
    let rest = &mut out[0..];
    let (o0, rest) = rest.split_at_mut(n);
    let o0 = &mut o0[0..][..n];
    let (o1, rest) = rest.split_at_mut(n);
    let o1 = &mut o1[0..][..n];
    for i in 0..n {
        let t73 = q0[i] * q0[i];
        let t82 = q0[i] * t73;
        let t96 = p1[i] * (T::ONE / t82);
        let t100 = vq0[i] * t96;
        let t101 = T::from_f64(-2.0) * t100;
        let t102 = vp1[i] * (T::ONE / t73);
        let t103 = t101 + t102;
        o0[i] = vp0[i];
        o1[i] = t103;
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
    let mut k21 = [T::ZERO; RUN];
    let mut k49 = [T::ZERO; RUN];
    let mut k93 = [T::ZERO; RUN];
    let mut k96 = [T::ZERO; RUN];
    for start in (0..n).step_by(RUN) {
        let len = (n - start).min(RUN);
        let q0 = &q[0 * n + start..][..len];
        let q1 = &q[1 * n + start..][..len];
        let p1 = &p[1 * n + start..][..len];
        let rest = &mut out[0..];
        let (o0, rest) = rest.split_at_mut(n);
        let o0 = &mut o0[start..][..len];
        let (o1, rest) = rest.split_at_mut(n);
        let o1 = &mut o1[start..][..len];
        for i in 0..len {
            let t13 = q0[i] - T::from_f64(1.0);
            let t18 = q0[i] * c0;
            let t20 = crate::float::cos_poly(q1[i]);
            let t21 = t18 * t20;
            let t34 = crate::float::sin_poly(q1[i]);
            let t36 = c0 * t20;
            let t38 = t18 * t34;
            let t49 = c0 * t34;
            let t72 = p1[i] * p1[i];
            let t73 = q0[i] * q0[i];
            let t82 = q0[i] * t73;
            let t84 = t72 * (T::ONE / t82);
            let t85 = t13 - t84;
            let t86 = t85 - t36;
            let t88 = t73 * t73;
            let t91 = t72 * (T::ONE / t88);
            let t92 = T::from_f64(-3.0) * t91;
            let t93 = T::from_f64(1.0) - t92;
            let t96 = p1[i] * (T::ONE / t82);
            o0[i] = t86;
            o1[i] = t38;
            k21[i] = t21;
            k49[i] = t49;
            k93[i] = t93;
            k96[i] = t96;
        }
        for j in 1..q.len() / nd {
            let vq0 = &q[j * nd + 0 * n + start..][..len];
            let vq1 = &q[j * nd + 1 * n + start..][..len];
            let vp1 = &p[j * nd + 1 * n + start..][..len];
            let rest = &mut out[j * nd..];
            let (o0, rest) = rest.split_at_mut(n);
            let o0 = &mut o0[start..][..len];
            let (o1, rest) = rest.split_at_mut(n);
            let o1 = &mut o1[start..][..len];
            for i in 0..len {
                let t21 = k21[i];
                let t49 = k49[i];
                let t93 = k93[i];
                let t96 = k96[i];
                let t52 = t49 * vq1[i];
                let t62 = vq0[i] * t49;
                let t63 = t21 * vq1[i];
                let t64 = t62 + t63;
                let t94 = vq0[i] * t93;
                let t95 = t52 + t94;
                let t97 = vp1[i] * t96;
                let t98 = T::from_f64(2.0) * t97;
                let t99 = t95 - t98;
                o0[i] = t99;
                o1[i] = t64;
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
    let mut k73 = [T::ZERO; RUN];
    let mut k96 = [T::ZERO; RUN];
    for start in (0..n).step_by(RUN) {
        let len = (n - start).min(RUN);
        let q0 = &q[0 * n + start..][..len];
        let p0 = &p[0 * n + start..][..len];
        let p1 = &p[1 * n + start..][..len];
        let rest = &mut out[0..];
        let (o0, rest) = rest.split_at_mut(n);
        let o0 = &mut o0[start..][..len];
        let (o1, rest) = rest.split_at_mut(n);
        let o1 = &mut o1[start..][..len];
        for i in 0..len {
            let t73 = q0[i] * q0[i];
            let t82 = q0[i] * t73;
            let t87 = p1[i] * (T::ONE / t73);
            let t96 = p1[i] * (T::ONE / t82);
            o0[i] = p0[i];
            o1[i] = t87;
            k73[i] = t73;
            k96[i] = t96;
        }
        for j in 1..q.len() / nd {
            let vq0 = &q[j * nd + 0 * n + start..][..len];
            let vp0 = &p[j * nd + 0 * n + start..][..len];
            let vp1 = &p[j * nd + 1 * n + start..][..len];
            let rest = &mut out[j * nd..];
            let (o0, rest) = rest.split_at_mut(n);
            let o0 = &mut o0[start..][..len];
            let (o1, rest) = rest.split_at_mut(n);
            let o1 = &mut o1[start..][..len];
            for i in 0..len {
                let t73 = k73[i];
                let t96 = k96[i];
                let t100 = vq0[i] * t96;
                let t101 = T::from_f64(-2.0) * t100;
                let t102 = vp1[i] * (T::ONE / t73);
                let t103 = t101 + t102;
                o0[i] = vp0[i];
                o1[i] = t103;
            }
        }
    }
}
