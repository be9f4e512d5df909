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
    let t197 = p[0] * p[0];
    let t198 = c[0] * t197;
    let t199 = p[1] * p[1];
    let t200 = c[1] * t199;
    let t201 = t198 + t200;
    let t202 = t201 - t21;
    let t203 = t25 * t25;
    let t204 = c[4] * t203;
    let t205 = c[3] + t204;
    let t206 = 2.0_f64 * t205;
    let t207 = t202 * (1.0_f64 / t206);
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
        let t197 = x_p0 * x_p0;
        let t198 = c[0] * t197;
        let t199 = x_p1 * x_p1;
        let t200 = c[1] * t199;
        let t201 = t198 + t200;
        let t202 = t201 - t21;
        let t203 = t25 * t25;
        let t204 = c[4] * t203;
        let t205 = c[3] + t204;
        let t206 = 2.0_f64 * t205;
        let t207 = t202 * (1.0_f64 / t206);
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
        let t197 = p0[i] * p0[i];
        let t198 = c0 * t197;
        let t199 = p1[i] * p1[i];
        let t200 = c1 * t199;
        let t201 = t198 + t200;
        let t202 = t201 - t21;
        let t203 = t25 * t25;
        let t204 = c4 * t203;
        let t205 = c3 + t204;
        let t206 = T::from_f64(2.0) * t205;
        let t207 = t202 * (T::ONE / t206);
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
        let t203 = t25 * t25;
        let t204 = c4 * t203;
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
        let t105 = t25 * t79;
        let t106 = T::from_f64(2.0) * t105;
        let t115 = -t21;
        let t130 = t12 * t25;
        let t131 = T::from_f64(2.0) * t130;
        let t197 = p0[i] * p0[i];
        let t198 = c0 * t197;
        let t199 = p1[i] * p1[i];
        let t200 = c1 * t199;
        let t201 = t198 + t200;
        let t202 = t201 - t21;
        let t203 = t25 * t25;
        let t204 = c4 * t203;
        let t205 = c3 + t204;
        let t206 = T::from_f64(2.0) * t205;
        let t207 = t202 * (T::ONE / t206);
        let t210 = t51 * t207;
        let t211 = T::from_f64(4.0) * t210;
        let t212 = t46 - t211;
        let t213 = t212 * (T::ONE / t206);
        let t215 = t211 - t46;
        let t216 = t215 * (T::ONE / t206);
        let t218 = t82 * (T::ONE / t206);
        let t219 = t88 * (T::ONE / t206);
        let t220 = t19 * t19;
        let t221 = t220 - t203;
        let t222 = c4 * t221;
        let t223 = t51 * t213;
        let t224 = t207 * t222;
        let t225 = t223 + t224;
        let t226 = T::from_f64(4.0) * t225;
        let t227 = t21 - t226;
        let t228 = T::from_f64(4.0) * t223;
        let t229 = t227 - t228;
        let t230 = t229 * (T::ONE / t206);
        let t231 = t33 + t230;
        let t232 = vq0[i] * t231;
        let t233 = t51 * t218;
        let t234 = T::from_f64(4.0) * t233;
        let t235 = t106 - t234;
        let t236 = t235 * (T::ONE / t206);
        let t237 = vp0[i] * t236;
        let t238 = t232 + t237;
        let t239 = t203 - t220;
        let t240 = c4 * t239;
        let t241 = t51 * t216;
        let t242 = t207 * t240;
        let t243 = t241 + t242;
        let t244 = T::from_f64(4.0) * t243;
        let t245 = t115 - t244;
        let t246 = t228 + t245;
        let t247 = t246 * (T::ONE / t206);
        let t248 = vq1[i] * t247;
        let t249 = t238 + t248;
        let t250 = t51 * t219;
        let t251 = T::from_f64(4.0) * t250;
        let t252 = t131 - t251;
        let t253 = t252 * (T::ONE / t206);
        let t254 = vp1[i] * t253;
        let t255 = t249 + t254;
        let t256 = t226 - t21;
        let t257 = T::from_f64(4.0) * t241;
        let t258 = t256 - t257;
        let t259 = t258 * (T::ONE / t206);
        let t260 = vq0[i] * t259;
        let t261 = t234 - t106;
        let t262 = t261 * (T::ONE / t206);
        let t263 = vp0[i] * t262;
        let t264 = t260 + t263;
        let t265 = t21 + t244;
        let t266 = t257 + t265;
        let t267 = t266 * (T::ONE / t206);
        let t268 = t37 + t267;
        let t269 = vq1[i] * t268;
        let t270 = t264 + t269;
        let t271 = t251 - t131;
        let t272 = t271 * (T::ONE / t206);
        let t273 = vp1[i] * t272;
        let t274 = t270 + t273;
        o0[i] = t255;
        o1[i] = t274;
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
        let t105 = t25 * t79;
        let t106 = T::from_f64(2.0) * t105;
        let t130 = t12 * t25;
        let t131 = T::from_f64(2.0) * t130;
        let t171 = c2 * t19;
        let t203 = t25 * t25;
        let t204 = c4 * t203;
        let t205 = c3 + t204;
        let t206 = T::from_f64(2.0) * t205;
        let t218 = t82 * (T::ONE / t206);
        let t219 = t88 * (T::ONE / t206);
        let t233 = t51 * t218;
        let t234 = T::from_f64(4.0) * t233;
        let t235 = t106 - t234;
        let t236 = t235 * (T::ONE / t206);
        let t250 = t51 * t219;
        let t251 = T::from_f64(4.0) * t250;
        let t252 = t131 - t251;
        let t253 = t252 * (T::ONE / t206);
        let t261 = t234 - t106;
        let t262 = t261 * (T::ONE / t206);
        let t271 = t251 - t131;
        let t272 = t271 * (T::ONE / t206);
        let t275 = vq0[i] * t236;
        let t276 = c0 * (T::ONE / t206);
        let t277 = vp0[i] * t276;
        let t278 = T::from_f64(2.0) * t277;
        let t279 = t275 + t278;
        let t280 = vq1[i] * t262;
        let t281 = t279 + t280;
        let t282 = t171 * (T::ONE / t206);
        let t283 = vp1[i] * t282;
        let t284 = T::from_f64(2.0) * t283;
        let t285 = t281 - t284;
        let t286 = vq0[i] * t253;
        let t287 = vp0[i] * t282;
        let t288 = T::from_f64(2.0) * t287;
        let t289 = t286 - t288;
        let t290 = vq1[i] * t272;
        let t291 = t289 + t290;
        let t292 = c1 * (T::ONE / t206);
        let t293 = vp1[i] * t292;
        let t294 = T::from_f64(2.0) * t293;
        let t295 = t291 + t294;
        o0[i] = t285;
        o1[i] = t295;
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
    let mut k231 = [T::ZERO; RUN];
    let mut k236 = [T::ZERO; RUN];
    let mut k247 = [T::ZERO; RUN];
    let mut k253 = [T::ZERO; RUN];
    let mut k259 = [T::ZERO; RUN];
    let mut k262 = [T::ZERO; RUN];
    let mut k268 = [T::ZERO; RUN];
    let mut k272 = [T::ZERO; RUN];
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
            let t105 = t25 * t79;
            let t106 = T::from_f64(2.0) * t105;
            let t115 = -t21;
            let t130 = t12 * t25;
            let t131 = T::from_f64(2.0) * t130;
            let t197 = p0[i] * p0[i];
            let t198 = c0 * t197;
            let t199 = p1[i] * p1[i];
            let t200 = c1 * t199;
            let t201 = t198 + t200;
            let t202 = t201 - t21;
            let t203 = t25 * t25;
            let t204 = c4 * t203;
            let t205 = c3 + t204;
            let t206 = T::from_f64(2.0) * t205;
            let t207 = t202 * (T::ONE / t206);
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
            let t220 = t19 * t19;
            let t221 = t220 - t203;
            let t222 = c4 * t221;
            let t223 = t51 * t213;
            let t224 = t207 * t222;
            let t225 = t223 + t224;
            let t226 = T::from_f64(4.0) * t225;
            let t227 = t21 - t226;
            let t228 = T::from_f64(4.0) * t223;
            let t229 = t227 - t228;
            let t230 = t229 * (T::ONE / t206);
            let t231 = t33 + t230;
            let t233 = t51 * t218;
            let t234 = T::from_f64(4.0) * t233;
            let t235 = t106 - t234;
            let t236 = t235 * (T::ONE / t206);
            let t239 = t203 - t220;
            let t240 = c4 * t239;
            let t241 = t51 * t216;
            let t242 = t207 * t240;
            let t243 = t241 + t242;
            let t244 = T::from_f64(4.0) * t243;
            let t245 = t115 - t244;
            let t246 = t228 + t245;
            let t247 = t246 * (T::ONE / t206);
            let t250 = t51 * t219;
            let t251 = T::from_f64(4.0) * t250;
            let t252 = t131 - t251;
            let t253 = t252 * (T::ONE / t206);
            let t256 = t226 - t21;
            let t257 = T::from_f64(4.0) * t241;
            let t258 = t256 - t257;
            let t259 = t258 * (T::ONE / t206);
            let t261 = t234 - t106;
            let t262 = t261 * (T::ONE / t206);
            let t265 = t21 + t244;
            let t266 = t257 + t265;
            let t267 = t266 * (T::ONE / t206);
            let t268 = t37 + t267;
            let t271 = t251 - t131;
            let t272 = t271 * (T::ONE / t206);
            o0[i] = t214;
            o1[i] = t217;
            k231[i] = t231;
            k236[i] = t236;
            k247[i] = t247;
            k253[i] = t253;
            k259[i] = t259;
            k262[i] = t262;
            k268[i] = t268;
            k272[i] = t272;
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
                let t231 = k231[i];
                let t236 = k236[i];
                let t247 = k247[i];
                let t253 = k253[i];
                let t259 = k259[i];
                let t262 = k262[i];
                let t268 = k268[i];
                let t272 = k272[i];
                let t232 = vq0[i] * t231;
                let t237 = vp0[i] * t236;
                let t238 = t232 + t237;
                let t248 = vq1[i] * t247;
                let t249 = t238 + t248;
                let t254 = vp1[i] * t253;
                let t255 = t249 + t254;
                let t260 = vq0[i] * t259;
                let t263 = vp0[i] * t262;
                let t264 = t260 + t263;
                let t269 = vq1[i] * t268;
                let t270 = t264 + t269;
                let t273 = vp1[i] * t272;
                let t274 = t270 + t273;
                o0[i] = t255;
                o1[i] = t274;
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
    let mut k236 = [T::ZERO; RUN];
    let mut k253 = [T::ZERO; RUN];
    let mut k262 = [T::ZERO; RUN];
    let mut k272 = [T::ZERO; RUN];
    let mut k276 = [T::ZERO; RUN];
    let mut k282 = [T::ZERO; RUN];
    let mut k292 = [T::ZERO; RUN];
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
            let t105 = t25 * t79;
            let t106 = T::from_f64(2.0) * t105;
            let t130 = t12 * t25;
            let t131 = T::from_f64(2.0) * t130;
            let t171 = c2 * t19;
            let t203 = t25 * t25;
            let t204 = c4 * t203;
            let t205 = c3 + t204;
            let t206 = T::from_f64(2.0) * t205;
            let t218 = t82 * (T::ONE / t206);
            let t219 = t88 * (T::ONE / t206);
            let t233 = t51 * t218;
            let t234 = T::from_f64(4.0) * t233;
            let t235 = t106 - t234;
            let t236 = t235 * (T::ONE / t206);
            let t250 = t51 * t219;
            let t251 = T::from_f64(4.0) * t250;
            let t252 = t131 - t251;
            let t253 = t252 * (T::ONE / t206);
            let t261 = t234 - t106;
            let t262 = t261 * (T::ONE / t206);
            let t271 = t251 - t131;
            let t272 = t271 * (T::ONE / t206);
            let t276 = c0 * (T::ONE / t206);
            let t282 = t171 * (T::ONE / t206);
            let t292 = c1 * (T::ONE / t206);
            o0[i] = t218;
            o1[i] = t219;
            k236[i] = t236;
            k253[i] = t253;
            k262[i] = t262;
            k272[i] = t272;
            k276[i] = t276;
            k282[i] = t282;
            k292[i] = t292;
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
                let t236 = k236[i];
                let t253 = k253[i];
                let t262 = k262[i];
                let t272 = k272[i];
                let t276 = k276[i];
                let t282 = k282[i];
                let t292 = k292[i];
                let t275 = vq0[i] * t236;
                let t277 = vp0[i] * t276;
                let t278 = T::from_f64(2.0) * t277;
                let t279 = t275 + t278;
                let t280 = vq1[i] * t262;
                let t281 = t279 + t280;
                let t283 = vp1[i] * t282;
                let t284 = T::from_f64(2.0) * t283;
                let t285 = t281 - t284;
                let t286 = vq0[i] * t253;
                let t287 = vp0[i] * t282;
                let t288 = T::from_f64(2.0) * t287;
                let t289 = t286 - t288;
                let t290 = vq1[i] * t272;
                let t291 = t289 + t290;
                let t293 = vp1[i] * t292;
                let t294 = T::from_f64(2.0) * t293;
                let t295 = t291 + t294;
                o0[i] = t285;
                o1[i] = t295;
            }
        }
    }
}
