//! Generated from the formulas in src/system/pendulum.rs by `expr::rust` (H = INV_M_L2*p^2/2 + M_G_L*(1 - cos(q))); do not edit:
//! `PHASEFLOW_REGENERATE=1 cargo test --release --lib system::generated` rewrites it.
#![allow(clippy::needless_range_loop, clippy::identity_op, clippy::erasing_op)]
#![allow(clippy::too_many_lines, clippy::let_and_return, clippy::manual_memcpy, unused_variables)]

use crate::float::Real;

/// Degrees of freedom.
pub const D: usize = 1;

/// The first function the integration kernels call that Vulkan lacks in f64 (`None`: f64 GPU kernels compile).
pub const GPU_F64_MISSING: Option<&str> = None;

/// H at one point, in f64 (the standard library's functions).
pub fn energy(c: &[f64], q: &[f64], p: &[f64]) -> f64 {
    let t10 = f64::cos(q[0]);
    let t11 = 1.0_f64 - t10;
    let t12 = c[0] * t11;
    let t26 = p[0] * p[0];
    let t27 = c[1] * t26;
    let t28 = 0.5_f64 * t27;
    let t29 = t12 + t28;
    t29
}

/// H in f64 of the points `first..first + out.len()` of a component-major block of `n` points
/// (components k ≥ D are not read), vectorised; false where a sine or cosine argument left the
/// polynomials' accurate range.
#[inline(always)]
pub fn energy_block<T: Real>(c: &[f64], q: &[T], p: &[T], n: usize, first: usize, out: &mut [f64]) -> bool {
    let len = out.len();
    let q0 = &q[0 * n + first..][..len];
    let p0 = &p[0 * n + first..][..len];
    let mut far = false;
    for i in 0..len {
        let x_q0 = q0[i].to_f64();
        let x_p0 = p0[i].to_f64();
        let t10 = 0.5_f64 * x_q0;
        let t11 = crate::float::sin_poly(t10);
        let t43 = x_p0 * x_p0;
        let t44 = c[1] * t43;
        let t45 = 0.5_f64 * t44;
        let t46 = t11 * t11;
        let t47 = c[0] * t46;
        let t48 = 2.0_f64 * t47;
        let t49 = t45 + t48;
        far |= f64::abs(t10) > crate::float::SIN_POLY_F64_RANGE;
        out[i] = t49;
    }
    !far
}

#[inline(always)]
pub fn grad_q<T: Real>(c: &[f64], q: &[T], p: &[T], out: &mut [T]) {
    let n = out.len() / D;
    let q0 = &q[0 * n + 0..][..n];
    let c0 = T::from_f64(c[0]);
    let rest = &mut out[0..];
    let (o0, rest) = rest.split_at_mut(n);
    let o0 = &mut o0[0..][..n];
    for i in 0..n {
        let t16 = crate::float::sin_poly(q0[i]);
        let t18 = c0 * t16;
        o0[i] = t18;
    }
}

#[inline(always)]
pub fn grad_p<T: Real>(c: &[f64], q: &[T], p: &[T], out: &mut [T]) {
    let n = out.len() / D;
    let p0 = &p[0 * n + 0..][..n];
    let c1 = T::from_f64(c[1]);
    let rest = &mut out[0..];
    let (o0, rest) = rest.split_at_mut(n);
    let o0 = &mut o0[0..][..n];
    for i in 0..n {
        let t19 = c1 * p0[i];
        o0[i] = t19;
    }
}

#[inline(always)]
pub fn grad_q_dir<T: Real>(c: &[f64], q: &[T], p: &[T], vq: &[T], vp: &[T], out: &mut [T]) {
    let n = out.len() / D;
    let q0 = &q[0 * n + 0..][..n];
    let vq0 = &vq[0 * n + 0..][..n];
    let c0 = T::from_f64(c[0]);
    let rest = &mut out[0..];
    let (o0, rest) = rest.split_at_mut(n);
    let o0 = &mut o0[0..][..n];
    for i in 0..n {
        let t10 = crate::float::cos_poly(q0[i]);
        let t21 = c0 * t10;
        let t23 = t21 * vq0[i];
        o0[i] = t23;
    }
}

#[inline(always)]
pub fn grad_p_dir<T: Real>(c: &[f64], q: &[T], p: &[T], vq: &[T], vp: &[T], out: &mut [T]) {
    let n = out.len() / D;
    let vp0 = &vp[0 * n + 0..][..n];
    let c1 = T::from_f64(c[1]);
    let rest = &mut out[0..];
    let (o0, rest) = rest.split_at_mut(n);
    let o0 = &mut o0[0..][..n];
    for i in 0..n {
        let t25 = c1 * vp0[i];
        o0[i] = t25;
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
    for start in (0..n).step_by(RUN) {
        let len = (n - start).min(RUN);
        let q0 = &q[0 * n + start..][..len];
        let rest = &mut out[0..];
        let (o0, rest) = rest.split_at_mut(n);
        let o0 = &mut o0[start..][..len];
        for i in 0..len {
            let t10 = crate::float::cos_poly(q0[i]);
            let t16 = crate::float::sin_poly(q0[i]);
            let t18 = c0 * t16;
            let t21 = c0 * t10;
            o0[i] = t18;
            k21[i] = t21;
        }
        for j in 1..q.len() / nd {
            let vq0 = &q[j * nd + 0 * n + start..][..len];
            let rest = &mut out[j * nd..];
            let (o0, rest) = rest.split_at_mut(n);
            let o0 = &mut o0[start..][..len];
            for i in 0..len {
                let t21 = k21[i];
                let t23 = t21 * vq0[i];
                o0[i] = t23;
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
    let c1 = T::from_f64(c[1]);
    for start in (0..n).step_by(RUN) {
        let len = (n - start).min(RUN);
        let p0 = &p[0 * n + start..][..len];
        let rest = &mut out[0..];
        let (o0, rest) = rest.split_at_mut(n);
        let o0 = &mut o0[start..][..len];
        for i in 0..len {
            let t19 = c1 * p0[i];
            o0[i] = t19;
        }
        for j in 1..q.len() / nd {
            let vp0 = &p[j * nd + 0 * n + start..][..len];
            let rest = &mut out[j * nd..];
            let (o0, rest) = rest.split_at_mut(n);
            let o0 = &mut o0[start..][..len];
            for i in 0..len {
                let t25 = c1 * vp0[i];
                o0[i] = t25;
            }
        }
    }
}
