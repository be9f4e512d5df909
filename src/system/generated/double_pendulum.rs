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
    let t207 = t203 * (1.0_f64 / t206);
    let t208 = t207 - t33;
    let t209 = t208 - t37;
    t209
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
        let t207 = t203 * (1.0_f64 / t206);
        let t208 = t207 - t33;
        let t209 = t208 - t37;
        far |= f64::abs(t18) > crate::float::SIN_POLY_F64_RANGE;
        far |= f64::abs(t18) > crate::float::SIN_POLY_F64_RANGE;
        far |= f64::abs(x_q0) > crate::float::SIN_POLY_F64_RANGE;
        far |= f64::abs(x_q1) > crate::float::SIN_POLY_F64_RANGE;
        out[i] = t209;
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
        let t207 = t203 * (T::ONE / t206);
        let t210 = t51 * t207;
        let t211 = T::from_f64(4.0) * t210;
        let t212 = t46 - t211;
        let t213 = t212 * (T::ONE / t206);
        let t214 = t61 + t213;
        let t215 = t211 - t46;
        let t216 = t215 * (T::ONE / t206);
        let t217 = t74 + t216;
        o0[i] = t214;
        o1[i] = t217;
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
        let t218 = t82 * (T::ONE / t206);
        let t219 = t88 * (T::ONE / t206);
        o0[i] = t218;
        o1[i] = t219;
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
        let t207 = t203 * (T::ONE / t206);
        let t210 = t51 * t207;
        let t211 = T::from_f64(4.0) * t210;
        let t212 = t46 - t211;
        let t213 = t212 * (T::ONE / t206);
        let t215 = t211 - t46;
        let t216 = t215 * (T::ONE / t206);
        let t218 = t82 * (T::ONE / t206);
        let t219 = t88 * (T::ONE / t206);
        let t220 = t51 * t213;
        let t221 = t94 * t207;
        let t222 = t220 + t221;
        let t223 = T::from_f64(4.0) * t222;
        let t224 = t21 - t223;
        let t225 = T::from_f64(4.0) * t220;
        let t226 = t224 - t225;
        let t227 = t226 * (T::ONE / t206);
        let t228 = t33 + t227;
        let t229 = vq0[i] * t228;
        let t230 = t51 * t218;
        let t231 = T::from_f64(4.0) * t230;
        let t232 = t107 - t231;
        let t233 = t232 * (T::ONE / t206);
        let t234 = vp0[i] * t233;
        let t235 = t229 + t234;
        let t236 = t51 * t216;
        let t237 = t119 * t207;
        let t238 = t236 + t237;
        let t239 = T::from_f64(4.0) * t238;
        let t240 = t116 - t239;
        let t241 = t225 + t240;
        let t242 = t241 * (T::ONE / t206);
        let t243 = vq1[i] * t242;
        let t244 = t235 + t243;
        let t245 = t51 * t219;
        let t246 = T::from_f64(4.0) * t245;
        let t247 = t132 - t246;
        let t248 = t247 * (T::ONE / t206);
        let t249 = vp1[i] * t248;
        let t250 = t244 + t249;
        let t251 = t223 - t21;
        let t252 = T::from_f64(4.0) * t236;
        let t253 = t251 - t252;
        let t254 = t253 * (T::ONE / t206);
        let t255 = vq0[i] * t254;
        let t256 = t231 - t107;
        let t257 = t256 * (T::ONE / t206);
        let t258 = vp0[i] * t257;
        let t259 = t255 + t258;
        let t260 = t21 + t239;
        let t261 = t252 + t260;
        let t262 = t261 * (T::ONE / t206);
        let t263 = t37 + t262;
        let t264 = vq1[i] * t263;
        let t265 = t259 + t264;
        let t266 = t246 - t132;
        let t267 = t266 * (T::ONE / t206);
        let t268 = vp1[i] * t267;
        let t269 = t265 + t268;
        o0[i] = t250;
        o1[i] = t269;
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
        let t218 = t82 * (T::ONE / t206);
        let t219 = t88 * (T::ONE / t206);
        let t230 = t51 * t218;
        let t231 = T::from_f64(4.0) * t230;
        let t232 = t107 - t231;
        let t233 = t232 * (T::ONE / t206);
        let t245 = t51 * t219;
        let t246 = T::from_f64(4.0) * t245;
        let t247 = t132 - t246;
        let t248 = t247 * (T::ONE / t206);
        let t256 = t231 - t107;
        let t257 = t256 * (T::ONE / t206);
        let t266 = t246 - t132;
        let t267 = t266 * (T::ONE / t206);
        let t270 = vq0[i] * t233;
        let t271 = c0 * (T::ONE / t206);
        let t272 = vp0[i] * t271;
        let t273 = T::from_f64(2.0) * t272;
        let t274 = t270 + t273;
        let t275 = vq1[i] * t257;
        let t276 = t274 + t275;
        let t277 = t172 * (T::ONE / t206);
        let t278 = vp1[i] * t277;
        let t279 = T::from_f64(2.0) * t278;
        let t280 = t276 - t279;
        let t281 = vq0[i] * t248;
        let t282 = vp0[i] * t277;
        let t283 = T::from_f64(2.0) * t282;
        let t284 = t281 - t283;
        let t285 = vq1[i] * t267;
        let t286 = t284 + t285;
        let t287 = c1 * (T::ONE / t206);
        let t288 = vp1[i] * t287;
        let t289 = T::from_f64(2.0) * t288;
        let t290 = t286 + t289;
        o0[i] = t280;
        o1[i] = t290;
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
    let mut k228 = [T::ZERO; RUN];
    let mut k233 = [T::ZERO; RUN];
    let mut k242 = [T::ZERO; RUN];
    let mut k248 = [T::ZERO; RUN];
    let mut k254 = [T::ZERO; RUN];
    let mut k257 = [T::ZERO; RUN];
    let mut k263 = [T::ZERO; RUN];
    let mut k267 = [T::ZERO; RUN];
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
            let t207 = t203 * (T::ONE / t206);
            let t210 = t51 * t207;
            let t211 = T::from_f64(4.0) * t210;
            let t212 = t46 - t211;
            let t213 = t212 * (T::ONE / t206);
            let t214 = t61 + t213;
            let t215 = t211 - t46;
            let t216 = t215 * (T::ONE / t206);
            let t217 = t74 + t216;
            let t218 = t82 * (T::ONE / t206);
            let t219 = t88 * (T::ONE / t206);
            let t220 = t51 * t213;
            let t221 = t94 * t207;
            let t222 = t220 + t221;
            let t223 = T::from_f64(4.0) * t222;
            let t224 = t21 - t223;
            let t225 = T::from_f64(4.0) * t220;
            let t226 = t224 - t225;
            let t227 = t226 * (T::ONE / t206);
            let t228 = t33 + t227;
            let t230 = t51 * t218;
            let t231 = T::from_f64(4.0) * t230;
            let t232 = t107 - t231;
            let t233 = t232 * (T::ONE / t206);
            let t236 = t51 * t216;
            let t237 = t119 * t207;
            let t238 = t236 + t237;
            let t239 = T::from_f64(4.0) * t238;
            let t240 = t116 - t239;
            let t241 = t225 + t240;
            let t242 = t241 * (T::ONE / t206);
            let t245 = t51 * t219;
            let t246 = T::from_f64(4.0) * t245;
            let t247 = t132 - t246;
            let t248 = t247 * (T::ONE / t206);
            let t251 = t223 - t21;
            let t252 = T::from_f64(4.0) * t236;
            let t253 = t251 - t252;
            let t254 = t253 * (T::ONE / t206);
            let t256 = t231 - t107;
            let t257 = t256 * (T::ONE / t206);
            let t260 = t21 + t239;
            let t261 = t252 + t260;
            let t262 = t261 * (T::ONE / t206);
            let t263 = t37 + t262;
            let t266 = t246 - t132;
            let t267 = t266 * (T::ONE / t206);
            o0[i] = t214;
            o1[i] = t217;
            k228[i] = t228;
            k233[i] = t233;
            k242[i] = t242;
            k248[i] = t248;
            k254[i] = t254;
            k257[i] = t257;
            k263[i] = t263;
            k267[i] = t267;
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
                let t228 = k228[i];
                let t233 = k233[i];
                let t242 = k242[i];
                let t248 = k248[i];
                let t254 = k254[i];
                let t257 = k257[i];
                let t263 = k263[i];
                let t267 = k267[i];
                let t229 = vq0[i] * t228;
                let t234 = vp0[i] * t233;
                let t235 = t229 + t234;
                let t243 = vq1[i] * t242;
                let t244 = t235 + t243;
                let t249 = vp1[i] * t248;
                let t250 = t244 + t249;
                let t255 = vq0[i] * t254;
                let t258 = vp0[i] * t257;
                let t259 = t255 + t258;
                let t264 = vq1[i] * t263;
                let t265 = t259 + t264;
                let t268 = vp1[i] * t267;
                let t269 = t265 + t268;
                o0[i] = t250;
                o1[i] = t269;
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
    let mut k233 = [T::ZERO; RUN];
    let mut k248 = [T::ZERO; RUN];
    let mut k257 = [T::ZERO; RUN];
    let mut k267 = [T::ZERO; RUN];
    let mut k271 = [T::ZERO; RUN];
    let mut k277 = [T::ZERO; RUN];
    let mut k287 = [T::ZERO; RUN];
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
            let t218 = t82 * (T::ONE / t206);
            let t219 = t88 * (T::ONE / t206);
            let t230 = t51 * t218;
            let t231 = T::from_f64(4.0) * t230;
            let t232 = t107 - t231;
            let t233 = t232 * (T::ONE / t206);
            let t245 = t51 * t219;
            let t246 = T::from_f64(4.0) * t245;
            let t247 = t132 - t246;
            let t248 = t247 * (T::ONE / t206);
            let t256 = t231 - t107;
            let t257 = t256 * (T::ONE / t206);
            let t266 = t246 - t132;
            let t267 = t266 * (T::ONE / t206);
            let t271 = c0 * (T::ONE / t206);
            let t277 = t172 * (T::ONE / t206);
            let t287 = c1 * (T::ONE / t206);
            o0[i] = t218;
            o1[i] = t219;
            k233[i] = t233;
            k248[i] = t248;
            k257[i] = t257;
            k267[i] = t267;
            k271[i] = t271;
            k277[i] = t277;
            k287[i] = t287;
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
                let t233 = k233[i];
                let t248 = k248[i];
                let t257 = k257[i];
                let t267 = k267[i];
                let t271 = k271[i];
                let t277 = k277[i];
                let t287 = k287[i];
                let t270 = vq0[i] * t233;
                let t272 = vp0[i] * t271;
                let t273 = T::from_f64(2.0) * t272;
                let t274 = t270 + t273;
                let t275 = vq1[i] * t257;
                let t276 = t274 + t275;
                let t278 = vp1[i] * t277;
                let t279 = T::from_f64(2.0) * t278;
                let t280 = t276 - t279;
                let t281 = vq0[i] * t248;
                let t282 = vp0[i] * t277;
                let t283 = T::from_f64(2.0) * t282;
                let t284 = t281 - t283;
                let t285 = vq1[i] * t267;
                let t286 = t284 + t285;
                let t288 = vp1[i] * t287;
                let t289 = T::from_f64(2.0) * t288;
                let t290 = t286 + t289;
                o0[i] = t280;
                o1[i] = t290;
            }
        }
    }
}
