//! Generated from the formulas in src/system/double_pendulum.rs by `expr::rust` (H = (DP_A*p1^2 + DP_B*p2^2 - 2*DP_C*p1*p2*cos(q1 - q2))/(2*(DP_M1 + DP_M2*sin(q1 - q2)^2)) - DP_G1*cos(q1) - DP_G2*cos(q2)); do not edit:
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
    let t12 = p[0] * c[2];
    let t14 = p[1] * t12;
    let t18 = q[0] - q[1];
    let t19 = f64::cos(t18);
    let t20 = t14 * t19;
    let t21 = 2.0_f64 * t20;
    let t25 = f64::sin(t18);
    let t32 = f64::cos(q[0]);
    let t33 = c[5] * t32;
    let t36 = f64::cos(q[1]);
    let t37 = c[6] * t36;
    let t90 = t25 * t25;
    let t198 = p[0] * p[0];
    let t199 = c[0] * t198;
    let t200 = p[1] * p[1];
    let t201 = c[1] * t200;
    let t202 = t199 + t201;
    let t203 = t202 - t21;
    let t204 = c[4] * t90;
    let t205 = c[3] + t204;
    let t206 = 2.0_f64 * t205;
    let t210 = 1.0_f64 / t206;
    let t211 = t203 * t210;
    let t212 = t211 - t33;
    let t213 = t212 - t37;
    t213
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
        let t12 = x_p0 * c[2];
        let t14 = x_p1 * t12;
        let t18 = x_q0 - x_q1;
        let t19 = crate::float::cos_poly(t18);
        let t20 = t14 * t19;
        let t21 = 2.0_f64 * t20;
        let t25 = crate::float::sin_poly(t18);
        let t32 = crate::float::cos_poly(x_q0);
        let t33 = c[5] * t32;
        let t36 = crate::float::cos_poly(x_q1);
        let t37 = c[6] * t36;
        let t90 = t25 * t25;
        let t198 = x_p0 * x_p0;
        let t199 = c[0] * t198;
        let t200 = x_p1 * x_p1;
        let t201 = c[1] * t200;
        let t202 = t199 + t201;
        let t203 = t202 - t21;
        let t204 = c[4] * t90;
        let t205 = c[3] + t204;
        let t206 = 2.0_f64 * t205;
        let t210 = 1.0_f64 / t206;
        let t211 = t203 * t210;
        let t212 = t211 - t33;
        let t213 = t212 - t37;
        far |= f64::abs(t18) > crate::float::SIN_POLY_F64_RANGE;
        far |= f64::abs(t18) > crate::float::SIN_POLY_F64_RANGE;
        far |= f64::abs(x_q0) > crate::float::SIN_POLY_F64_RANGE;
        far |= f64::abs(x_q1) > crate::float::SIN_POLY_F64_RANGE;
        out[i] = t213;
    }
    !far
}

#[inline(always)]
pub fn grad_q<T: Real>(c: &[f64], q: &[T], p: &[T], out: &mut [T]) {
    let n = out.len() / D;
    let q0 = &q[0 * n + 0..][..n];
    let q1 = &q[1 * n + 0..][..n];
    let p0 = &p[0 * n + 0..][..n];
    let p1 = &p[1 * n + 0..][..n];
    let c0 = T::from_f64(c[0]);
    let c1 = T::from_f64(c[1]);
    let c2 = T::from_f64(c[2]);
    let c3 = T::from_f64(c[3]);
    let c4 = T::from_f64(c[4]);
    let c5 = T::from_f64(c[5]);
    let c6 = T::from_f64(c[6]);
    let rest = &mut out[0..];
    let (o0, rest) = rest.split_at_mut(n);
    let o0 = &mut o0[0..][..n];
    let (o1, rest) = rest.split_at_mut(n);
    let o1 = &mut o1[0..][..n];
    for i in 0..n {
        let t12 = p0[i] * c2;
        let t14 = p1[i] * t12;
        let t18 = q0[i] - q1[i];
        let t19 = crate::float::cos_poly(t18);
        let t20 = t14 * t19;
        let t21 = T::from_f64(2.0) * t20;
        let t25 = crate::float::sin_poly(t18);
        let t44 = t14 * t25;
        let t46 = T::from_f64(2.0) * t44;
        let t49 = t19 * t25;
        let t51 = c4 * t49;
        let t59 = crate::float::sin_poly(q0[i]);
        let t61 = c5 * t59;
        let t64 = crate::float::sin_poly(q1[i]);
        let t74 = c6 * t64;
        let t90 = t25 * t25;
        let t198 = p0[i] * p0[i];
        let t199 = c0 * t198;
        let t200 = p1[i] * p1[i];
        let t201 = c1 * t200;
        let t202 = t199 + t201;
        let t203 = t202 - t21;
        let t204 = c4 * t90;
        let t205 = c3 + t204;
        let t206 = T::from_f64(2.0) * t205;
        let t210 = T::from_f64(1.0) / t206;
        let t211 = t203 * t210;
        let t222 = t51 * t211;
        let t223 = T::from_f64(4.0) * t222;
        let t224 = t46 - t223;
        let t225 = t224 * t210;
        let t226 = t61 + t225;
        let t227 = t223 - t46;
        let t228 = t227 * t210;
        let t229 = t74 + t228;
        o0[i] = t226;
        o1[i] = t229;
    }
}

#[inline(always)]
pub fn grad_p<T: Real>(c: &[f64], q: &[T], p: &[T], out: &mut [T]) {
    let n = out.len() / D;
    let q0 = &q[0 * n + 0..][..n];
    let q1 = &q[1 * n + 0..][..n];
    let p0 = &p[0 * n + 0..][..n];
    let p1 = &p[1 * n + 0..][..n];
    let c0 = T::from_f64(c[0]);
    let c1 = T::from_f64(c[1]);
    let c2 = T::from_f64(c[2]);
    let c3 = T::from_f64(c[3]);
    let c4 = T::from_f64(c[4]);
    let rest = &mut out[0..];
    let (o0, rest) = rest.split_at_mut(n);
    let o0 = &mut o0[0..][..n];
    let (o1, rest) = rest.split_at_mut(n);
    let o1 = &mut o1[0..][..n];
    for i in 0..n {
        let t12 = p0[i] * c2;
        let t18 = q0[i] - q1[i];
        let t19 = crate::float::cos_poly(t18);
        let t25 = crate::float::sin_poly(t18);
        let t77 = c0 * p0[i];
        let t78 = T::from_f64(2.0) * t77;
        let t79 = p1[i] * c2;
        let t80 = t19 * t79;
        let t81 = T::from_f64(2.0) * t80;
        let t82 = t78 - t81;
        let t84 = c1 * p1[i];
        let t85 = T::from_f64(2.0) * t84;
        let t86 = t12 * t19;
        let t87 = T::from_f64(2.0) * t86;
        let t88 = t85 - t87;
        let t90 = t25 * t25;
        let t204 = c4 * t90;
        let t205 = c3 + t204;
        let t206 = T::from_f64(2.0) * t205;
        let t210 = T::from_f64(1.0) / t206;
        let t232 = t82 * t210;
        let t233 = t88 * t210;
        o0[i] = t232;
        o1[i] = t233;
    }
}

#[inline(always)]
pub fn grad_q_dir<T: Real>(c: &[f64], q: &[T], p: &[T], vq: &[T], vp: &[T], out: &mut [T]) {
    let n = out.len() / D;
    let q0 = &q[0 * n + 0..][..n];
    let q1 = &q[1 * n + 0..][..n];
    let p0 = &p[0 * n + 0..][..n];
    let p1 = &p[1 * n + 0..][..n];
    let vq0 = &vq[0 * n + 0..][..n];
    let vq1 = &vq[1 * n + 0..][..n];
    let vp0 = &vp[0 * n + 0..][..n];
    let vp1 = &vp[1 * n + 0..][..n];
    let c0 = T::from_f64(c[0]);
    let c1 = T::from_f64(c[1]);
    let c2 = T::from_f64(c[2]);
    let c3 = T::from_f64(c[3]);
    let c4 = T::from_f64(c[4]);
    let c5 = T::from_f64(c[5]);
    let c6 = T::from_f64(c[6]);
    let rest = &mut out[0..];
    let (o0, rest) = rest.split_at_mut(n);
    let o0 = &mut o0[0..][..n];
    let (o1, rest) = rest.split_at_mut(n);
    let o1 = &mut o1[0..][..n];
    for i in 0..n {
        let t12 = p0[i] * c2;
        let t14 = p1[i] * t12;
        let t18 = q0[i] - q1[i];
        let t19 = crate::float::cos_poly(t18);
        let t20 = t14 * t19;
        let t21 = T::from_f64(2.0) * t20;
        let t25 = crate::float::sin_poly(t18);
        let t32 = crate::float::cos_poly(q0[i]);
        let t33 = c5 * t32;
        let t36 = crate::float::cos_poly(q1[i]);
        let t37 = c6 * t36;
        let t44 = t14 * t25;
        let t46 = T::from_f64(2.0) * t44;
        let t49 = t19 * t25;
        let t51 = c4 * t49;
        let t77 = c0 * p0[i];
        let t78 = T::from_f64(2.0) * t77;
        let t79 = p1[i] * c2;
        let t80 = t19 * t79;
        let t81 = T::from_f64(2.0) * t80;
        let t82 = t78 - t81;
        let t84 = c1 * p1[i];
        let t85 = T::from_f64(2.0) * t84;
        let t86 = t12 * t19;
        let t87 = T::from_f64(2.0) * t86;
        let t88 = t85 - t87;
        let t90 = t25 * t25;
        let t92 = t19 * t19;
        let t93 = t92 - t90;
        let t94 = c4 * t93;
        let t106 = t25 * t79;
        let t107 = T::from_f64(2.0) * t106;
        let t116 = -t21;
        let t118 = t90 - t92;
        let t119 = c4 * t118;
        let t131 = t12 * t25;
        let t132 = T::from_f64(2.0) * t131;
        let t198 = p0[i] * p0[i];
        let t199 = c0 * t198;
        let t200 = p1[i] * p1[i];
        let t201 = c1 * t200;
        let t202 = t199 + t201;
        let t203 = t202 - t21;
        let t204 = c4 * t90;
        let t205 = c3 + t204;
        let t206 = T::from_f64(2.0) * t205;
        let t210 = T::from_f64(1.0) / t206;
        let t211 = t203 * t210;
        let t222 = t51 * t211;
        let t223 = T::from_f64(4.0) * t222;
        let t224 = t46 - t223;
        let t225 = t224 * t210;
        let t227 = t223 - t46;
        let t228 = t227 * t210;
        let t232 = t82 * t210;
        let t233 = t88 * t210;
        let t284 = t51 * t225;
        let t285 = t94 * t211;
        let t286 = t284 + t285;
        let t287 = T::from_f64(4.0) * t286;
        let t288 = t21 - t287;
        let t289 = T::from_f64(4.0) * t284;
        let t290 = t288 - t289;
        let t291 = t290 * t210;
        let t292 = t33 + t291;
        let t293 = vq0[i] * t292;
        let t294 = t51 * t232;
        let t295 = T::from_f64(4.0) * t294;
        let t296 = t107 - t295;
        let t297 = t296 * t210;
        let t298 = vp0[i] * t297;
        let t299 = t293 + t298;
        let t300 = t51 * t228;
        let t301 = t119 * t211;
        let t302 = t300 + t301;
        let t303 = T::from_f64(4.0) * t302;
        let t304 = t116 - t303;
        let t305 = t289 + t304;
        let t306 = t305 * t210;
        let t307 = vq1[i] * t306;
        let t308 = t299 + t307;
        let t309 = t51 * t233;
        let t310 = T::from_f64(4.0) * t309;
        let t311 = t132 - t310;
        let t312 = t311 * t210;
        let t313 = vp1[i] * t312;
        let t314 = t308 + t313;
        let t315 = t287 - t21;
        let t316 = T::from_f64(4.0) * t300;
        let t317 = t315 - t316;
        let t318 = t317 * t210;
        let t319 = vq0[i] * t318;
        let t320 = t295 - t107;
        let t321 = t320 * t210;
        let t322 = vp0[i] * t321;
        let t323 = t319 + t322;
        let t324 = t21 + t303;
        let t325 = t316 + t324;
        let t326 = t325 * t210;
        let t327 = t37 + t326;
        let t328 = vq1[i] * t327;
        let t329 = t323 + t328;
        let t330 = t310 - t132;
        let t331 = t330 * t210;
        let t332 = vp1[i] * t331;
        let t333 = t329 + t332;
        o0[i] = t314;
        o1[i] = t333;
    }
}

#[inline(always)]
pub fn grad_p_dir<T: Real>(c: &[f64], q: &[T], p: &[T], vq: &[T], vp: &[T], out: &mut [T]) {
    let n = out.len() / D;
    let q0 = &q[0 * n + 0..][..n];
    let q1 = &q[1 * n + 0..][..n];
    let p0 = &p[0 * n + 0..][..n];
    let p1 = &p[1 * n + 0..][..n];
    let vq0 = &vq[0 * n + 0..][..n];
    let vq1 = &vq[1 * n + 0..][..n];
    let vp0 = &vp[0 * n + 0..][..n];
    let vp1 = &vp[1 * n + 0..][..n];
    let c0 = T::from_f64(c[0]);
    let c1 = T::from_f64(c[1]);
    let c2 = T::from_f64(c[2]);
    let c3 = T::from_f64(c[3]);
    let c4 = T::from_f64(c[4]);
    let rest = &mut out[0..];
    let (o0, rest) = rest.split_at_mut(n);
    let o0 = &mut o0[0..][..n];
    let (o1, rest) = rest.split_at_mut(n);
    let o1 = &mut o1[0..][..n];
    for i in 0..n {
        let t12 = p0[i] * c2;
        let t18 = q0[i] - q1[i];
        let t19 = crate::float::cos_poly(t18);
        let t25 = crate::float::sin_poly(t18);
        let t49 = t19 * t25;
        let t51 = c4 * t49;
        let t77 = c0 * p0[i];
        let t78 = T::from_f64(2.0) * t77;
        let t79 = p1[i] * c2;
        let t80 = t19 * t79;
        let t81 = T::from_f64(2.0) * t80;
        let t82 = t78 - t81;
        let t84 = c1 * p1[i];
        let t85 = T::from_f64(2.0) * t84;
        let t86 = t12 * t19;
        let t87 = T::from_f64(2.0) * t86;
        let t88 = t85 - t87;
        let t90 = t25 * t25;
        let t106 = t25 * t79;
        let t107 = T::from_f64(2.0) * t106;
        let t131 = t12 * t25;
        let t132 = T::from_f64(2.0) * t131;
        let t172 = c2 * t19;
        let t204 = c4 * t90;
        let t205 = c3 + t204;
        let t206 = T::from_f64(2.0) * t205;
        let t210 = T::from_f64(1.0) / t206;
        let t232 = t82 * t210;
        let t233 = t88 * t210;
        let t294 = t51 * t232;
        let t295 = T::from_f64(4.0) * t294;
        let t296 = t107 - t295;
        let t297 = t296 * t210;
        let t309 = t51 * t233;
        let t310 = T::from_f64(4.0) * t309;
        let t311 = t132 - t310;
        let t312 = t311 * t210;
        let t320 = t295 - t107;
        let t321 = t320 * t210;
        let t330 = t310 - t132;
        let t331 = t330 * t210;
        let t355 = vq0[i] * t297;
        let t356 = c0 * t210;
        let t357 = vp0[i] * t356;
        let t358 = T::from_f64(2.0) * t357;
        let t359 = t355 + t358;
        let t360 = vq1[i] * t321;
        let t361 = t359 + t360;
        let t362 = t172 * t210;
        let t363 = vp1[i] * t362;
        let t364 = T::from_f64(2.0) * t363;
        let t365 = t361 - t364;
        let t366 = vq0[i] * t312;
        let t367 = vp0[i] * t362;
        let t368 = T::from_f64(2.0) * t367;
        let t369 = t366 - t368;
        let t370 = vq1[i] * t331;
        let t371 = t369 + t370;
        let t372 = c1 * t210;
        let t373 = vp1[i] * t372;
        let t374 = T::from_f64(2.0) * t373;
        let t375 = t371 + t374;
        o0[i] = t365;
        o1[i] = t375;
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
    let c1 = T::from_f64(c[1]);
    let c2 = T::from_f64(c[2]);
    let c3 = T::from_f64(c[3]);
    let c4 = T::from_f64(c[4]);
    let c5 = T::from_f64(c[5]);
    let c6 = T::from_f64(c[6]);
    let mut k292 = [T::ZERO; RUN];
    let mut k297 = [T::ZERO; RUN];
    let mut k306 = [T::ZERO; RUN];
    let mut k312 = [T::ZERO; RUN];
    let mut k318 = [T::ZERO; RUN];
    let mut k321 = [T::ZERO; RUN];
    let mut k327 = [T::ZERO; RUN];
    let mut k331 = [T::ZERO; RUN];
    for start in (0..n).step_by(RUN) {
        let len = (n - start).min(RUN);
        let q0 = &q[0 * n + start..][..len];
        let q1 = &q[1 * n + start..][..len];
        let p0 = &p[0 * n + start..][..len];
        let p1 = &p[1 * n + start..][..len];
        let rest = &mut out[0..];
        let (o0, rest) = rest.split_at_mut(n);
        let o0 = &mut o0[start..][..len];
        let (o1, rest) = rest.split_at_mut(n);
        let o1 = &mut o1[start..][..len];
        for i in 0..len {
            let t12 = p0[i] * c2;
            let t14 = p1[i] * t12;
            let t18 = q0[i] - q1[i];
            let t19 = crate::float::cos_poly(t18);
            let t20 = t14 * t19;
            let t21 = T::from_f64(2.0) * t20;
            let t25 = crate::float::sin_poly(t18);
            let t32 = crate::float::cos_poly(q0[i]);
            let t33 = c5 * t32;
            let t36 = crate::float::cos_poly(q1[i]);
            let t37 = c6 * t36;
            let t44 = t14 * t25;
            let t46 = T::from_f64(2.0) * t44;
            let t49 = t19 * t25;
            let t51 = c4 * t49;
            let t59 = crate::float::sin_poly(q0[i]);
            let t61 = c5 * t59;
            let t64 = crate::float::sin_poly(q1[i]);
            let t74 = c6 * t64;
            let t77 = c0 * p0[i];
            let t78 = T::from_f64(2.0) * t77;
            let t79 = p1[i] * c2;
            let t80 = t19 * t79;
            let t81 = T::from_f64(2.0) * t80;
            let t82 = t78 - t81;
            let t84 = c1 * p1[i];
            let t85 = T::from_f64(2.0) * t84;
            let t86 = t12 * t19;
            let t87 = T::from_f64(2.0) * t86;
            let t88 = t85 - t87;
            let t90 = t25 * t25;
            let t92 = t19 * t19;
            let t93 = t92 - t90;
            let t94 = c4 * t93;
            let t106 = t25 * t79;
            let t107 = T::from_f64(2.0) * t106;
            let t116 = -t21;
            let t118 = t90 - t92;
            let t119 = c4 * t118;
            let t131 = t12 * t25;
            let t132 = T::from_f64(2.0) * t131;
            let t198 = p0[i] * p0[i];
            let t199 = c0 * t198;
            let t200 = p1[i] * p1[i];
            let t201 = c1 * t200;
            let t202 = t199 + t201;
            let t203 = t202 - t21;
            let t204 = c4 * t90;
            let t205 = c3 + t204;
            let t206 = T::from_f64(2.0) * t205;
            let t210 = T::from_f64(1.0) / t206;
            let t211 = t203 * t210;
            let t222 = t51 * t211;
            let t223 = T::from_f64(4.0) * t222;
            let t224 = t46 - t223;
            let t225 = t224 * t210;
            let t226 = t61 + t225;
            let t227 = t223 - t46;
            let t228 = t227 * t210;
            let t229 = t74 + t228;
            let t232 = t82 * t210;
            let t233 = t88 * t210;
            let t284 = t51 * t225;
            let t285 = t94 * t211;
            let t286 = t284 + t285;
            let t287 = T::from_f64(4.0) * t286;
            let t288 = t21 - t287;
            let t289 = T::from_f64(4.0) * t284;
            let t290 = t288 - t289;
            let t291 = t290 * t210;
            let t292 = t33 + t291;
            let t294 = t51 * t232;
            let t295 = T::from_f64(4.0) * t294;
            let t296 = t107 - t295;
            let t297 = t296 * t210;
            let t300 = t51 * t228;
            let t301 = t119 * t211;
            let t302 = t300 + t301;
            let t303 = T::from_f64(4.0) * t302;
            let t304 = t116 - t303;
            let t305 = t289 + t304;
            let t306 = t305 * t210;
            let t309 = t51 * t233;
            let t310 = T::from_f64(4.0) * t309;
            let t311 = t132 - t310;
            let t312 = t311 * t210;
            let t315 = t287 - t21;
            let t316 = T::from_f64(4.0) * t300;
            let t317 = t315 - t316;
            let t318 = t317 * t210;
            let t320 = t295 - t107;
            let t321 = t320 * t210;
            let t324 = t21 + t303;
            let t325 = t316 + t324;
            let t326 = t325 * t210;
            let t327 = t37 + t326;
            let t330 = t310 - t132;
            let t331 = t330 * t210;
            o0[i] = t226;
            o1[i] = t229;
            k292[i] = t292;
            k297[i] = t297;
            k306[i] = t306;
            k312[i] = t312;
            k318[i] = t318;
            k321[i] = t321;
            k327[i] = t327;
            k331[i] = t331;
        }
        for j in 1..q.len() / nd {
            let vq0 = &q[j * nd + 0 * n + start..][..len];
            let vq1 = &q[j * nd + 1 * n + start..][..len];
            let vp0 = &p[j * nd + 0 * n + start..][..len];
            let vp1 = &p[j * nd + 1 * n + start..][..len];
            let rest = &mut out[j * nd..];
            let (o0, rest) = rest.split_at_mut(n);
            let o0 = &mut o0[start..][..len];
            let (o1, rest) = rest.split_at_mut(n);
            let o1 = &mut o1[start..][..len];
            for i in 0..len {
                let t292 = k292[i];
                let t297 = k297[i];
                let t306 = k306[i];
                let t312 = k312[i];
                let t318 = k318[i];
                let t321 = k321[i];
                let t327 = k327[i];
                let t331 = k331[i];
                let t293 = vq0[i] * t292;
                let t298 = vp0[i] * t297;
                let t299 = t293 + t298;
                let t307 = vq1[i] * t306;
                let t308 = t299 + t307;
                let t313 = vp1[i] * t312;
                let t314 = t308 + t313;
                let t319 = vq0[i] * t318;
                let t322 = vp0[i] * t321;
                let t323 = t319 + t322;
                let t328 = vq1[i] * t327;
                let t329 = t323 + t328;
                let t332 = vp1[i] * t331;
                let t333 = t329 + t332;
                o0[i] = t314;
                o1[i] = t333;
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
    let c0 = T::from_f64(c[0]);
    let c1 = T::from_f64(c[1]);
    let c2 = T::from_f64(c[2]);
    let c3 = T::from_f64(c[3]);
    let c4 = T::from_f64(c[4]);
    let mut k297 = [T::ZERO; RUN];
    let mut k312 = [T::ZERO; RUN];
    let mut k321 = [T::ZERO; RUN];
    let mut k331 = [T::ZERO; RUN];
    let mut k356 = [T::ZERO; RUN];
    let mut k362 = [T::ZERO; RUN];
    let mut k372 = [T::ZERO; RUN];
    for start in (0..n).step_by(RUN) {
        let len = (n - start).min(RUN);
        let q0 = &q[0 * n + start..][..len];
        let q1 = &q[1 * n + start..][..len];
        let p0 = &p[0 * n + start..][..len];
        let p1 = &p[1 * n + start..][..len];
        let rest = &mut out[0..];
        let (o0, rest) = rest.split_at_mut(n);
        let o0 = &mut o0[start..][..len];
        let (o1, rest) = rest.split_at_mut(n);
        let o1 = &mut o1[start..][..len];
        for i in 0..len {
            let t12 = p0[i] * c2;
            let t18 = q0[i] - q1[i];
            let t19 = crate::float::cos_poly(t18);
            let t25 = crate::float::sin_poly(t18);
            let t49 = t19 * t25;
            let t51 = c4 * t49;
            let t77 = c0 * p0[i];
            let t78 = T::from_f64(2.0) * t77;
            let t79 = p1[i] * c2;
            let t80 = t19 * t79;
            let t81 = T::from_f64(2.0) * t80;
            let t82 = t78 - t81;
            let t84 = c1 * p1[i];
            let t85 = T::from_f64(2.0) * t84;
            let t86 = t12 * t19;
            let t87 = T::from_f64(2.0) * t86;
            let t88 = t85 - t87;
            let t90 = t25 * t25;
            let t106 = t25 * t79;
            let t107 = T::from_f64(2.0) * t106;
            let t131 = t12 * t25;
            let t132 = T::from_f64(2.0) * t131;
            let t172 = c2 * t19;
            let t204 = c4 * t90;
            let t205 = c3 + t204;
            let t206 = T::from_f64(2.0) * t205;
            let t210 = T::from_f64(1.0) / t206;
            let t232 = t82 * t210;
            let t233 = t88 * t210;
            let t294 = t51 * t232;
            let t295 = T::from_f64(4.0) * t294;
            let t296 = t107 - t295;
            let t297 = t296 * t210;
            let t309 = t51 * t233;
            let t310 = T::from_f64(4.0) * t309;
            let t311 = t132 - t310;
            let t312 = t311 * t210;
            let t320 = t295 - t107;
            let t321 = t320 * t210;
            let t330 = t310 - t132;
            let t331 = t330 * t210;
            let t356 = c0 * t210;
            let t362 = t172 * t210;
            let t372 = c1 * t210;
            o0[i] = t232;
            o1[i] = t233;
            k297[i] = t297;
            k312[i] = t312;
            k321[i] = t321;
            k331[i] = t331;
            k356[i] = t356;
            k362[i] = t362;
            k372[i] = t372;
        }
        for j in 1..q.len() / nd {
            let vq0 = &q[j * nd + 0 * n + start..][..len];
            let vq1 = &q[j * nd + 1 * n + start..][..len];
            let vp0 = &p[j * nd + 0 * n + start..][..len];
            let vp1 = &p[j * nd + 1 * n + start..][..len];
            let rest = &mut out[j * nd..];
            let (o0, rest) = rest.split_at_mut(n);
            let o0 = &mut o0[start..][..len];
            let (o1, rest) = rest.split_at_mut(n);
            let o1 = &mut o1[start..][..len];
            for i in 0..len {
                let t297 = k297[i];
                let t312 = k312[i];
                let t321 = k321[i];
                let t331 = k331[i];
                let t356 = k356[i];
                let t362 = k362[i];
                let t372 = k372[i];
                let t355 = vq0[i] * t297;
                let t357 = vp0[i] * t356;
                let t358 = T::from_f64(2.0) * t357;
                let t359 = t355 + t358;
                let t360 = vq1[i] * t321;
                let t361 = t359 + t360;
                let t363 = vp1[i] * t362;
                let t364 = T::from_f64(2.0) * t363;
                let t365 = t361 - t364;
                let t366 = vq0[i] * t312;
                let t367 = vp0[i] * t362;
                let t368 = T::from_f64(2.0) * t367;
                let t369 = t366 - t368;
                let t370 = vq1[i] * t331;
                let t371 = t369 + t370;
                let t373 = vp1[i] * t372;
                let t374 = T::from_f64(2.0) * t373;
                let t375 = t371 + t374;
                o0[i] = t365;
                o1[i] = t375;
            }
        }
    }
}
