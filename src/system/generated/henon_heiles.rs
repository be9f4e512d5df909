//! Generated from the formulas in src/system/henon_heiles.rs by `expr::rust` (H = (p1^2 + p2^2)/2 + ((q1^2 + q2^2)/2 + q1^2*q2 - q2^3/3)); do not edit:
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
    let t47 = p[0] * p[0];
    let t48 = p[1] * p[1];
    let t49 = t47 + t48;
    let t50 = 0.5_f64 * t49;
    let t51 = q[0] * q[0];
    let t52 = q[1] * q[1];
    let t53 = t51 + t52;
    let t54 = 0.5_f64 * t53;
    let t55 = q[1] * t51;
    let t56 = t54 + t55;
    let t57 = q[1] * t52;
    let t58 = t57 * (1.0_f64 / 3.0_f64);
    let t59 = t56 - t58;
    let t60 = t50 + t59;
    t60
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
        let t47 = x_p0 * x_p0;
        let t48 = x_p1 * x_p1;
        let t49 = t47 + t48;
        let t50 = 0.5_f64 * t49;
        let t51 = x_q0 * x_q0;
        let t52 = x_q1 * x_q1;
        let t53 = t51 + t52;
        let t54 = 0.5_f64 * t53;
        let t55 = x_q1 * t51;
        let t56 = t54 + t55;
        let t57 = x_q1 * t52;
        let t58 = t57 * (1.0_f64 / 3.0_f64);
        let t59 = t56 - t58;
        let t60 = t50 + t59;
        out[i] = t60;
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
        let t27 = q0[i] * q1[i];
        let t28 = T::from_f64(2.0) * t27;
        let t29 = q0[i] + t28;
        let t51 = q0[i] * q0[i];
        let t52 = q1[i] * q1[i];
        let t61 = q1[i] + t51;
        let t62 = t61 - t52;
        o0[i] = t29;
        o1[i] = t62;
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
        let t26 = T::from_f64(2.0) * q1[i];
        let t33 = T::from_f64(1.0) + t26;
        let t35 = t33 * vq0[i];
        let t37 = q0[i] * vq1[i];
        let t38 = T::from_f64(2.0) * t37;
        let t39 = t35 + t38;
        let t40 = q0[i] * vq0[i];
        let t41 = T::from_f64(2.0) * t40;
        let t42 = T::from_f64(1.0) - t26;
        let t43 = vq1[i] * t42;
        let t44 = t41 + t43;
        o0[i] = t39;
        o1[i] = t44;
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
    let mut k33 = [T::ZERO; RUN];
    let mut k42 = [T::ZERO; RUN];
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
            let t26 = T::from_f64(2.0) * q1[i];
            let t27 = q0[i] * q1[i];
            let t28 = T::from_f64(2.0) * t27;
            let t29 = q0[i] + t28;
            let t33 = T::from_f64(1.0) + t26;
            let t42 = T::from_f64(1.0) - t26;
            let t51 = q0[i] * q0[i];
            let t52 = q1[i] * q1[i];
            let t61 = q1[i] + t51;
            let t62 = t61 - t52;
            o0[i] = t29;
            o1[i] = t62;
            k33[i] = t33;
            k42[i] = t42;
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
                let t33 = k33[i];
                let t42 = k42[i];
                let t35 = t33 * vq0[i];
                let t37 = q0[i] * vq1[i];
                let t38 = T::from_f64(2.0) * t37;
                let t39 = t35 + t38;
                let t40 = q0[i] * vq0[i];
                let t41 = T::from_f64(2.0) * t40;
                let t43 = vq1[i] * t42;
                let t44 = t41 + t43;
                o0[i] = t39;
                o1[i] = t44;
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
