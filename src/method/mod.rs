//! Integrators: one file per method, each with the CPU reference `step` over a block of points.
//! The WGSL mirror of each is `shaders/method/<name>.wgsl`, with the same statement order and
//! variable names, so the two can be read side by side. Every kernel here assumes a separable H
//! (all systems so far are); `Method::check_system` refuses combinations a kernel cannot serve.

pub mod euler;
pub mod position_verlet;
pub mod rk4;
pub mod symplectic_euler_a;
pub mod symplectic_euler_b;
pub mod verlet;

use crate::error::Result;
use crate::float::Real;
use crate::input_err;
use crate::system::System;

/// Static description of a method for `phaseflow list`.
#[derive(Debug, Clone, Copy)]
pub struct MethodInfo {
    pub name: &'static str,
    pub order: u32,
    pub symplectic: bool,
    pub summary: &'static str,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Euler,
    SymplecticEulerA,
    SymplecticEulerB,
    Verlet,
    PositionVerlet,
    Rk4,
}

pub const ALL: &[Method] = &[
    Method::Euler,
    Method::SymplecticEulerA,
    Method::SymplecticEulerB,
    Method::Verlet,
    Method::PositionVerlet,
    Method::Rk4,
];

/// Per-block working storage: the state and the scratch arrays the kernels need, all
/// component-major with `n` points (`q[k*n + i]`).
#[derive(Debug, Clone)]
pub struct Block<T> {
    pub n: usize,
    pub d: usize,
    pub q: Vec<T>,
    pub p: Vec<T>,
    /// Derivative scratch: ∂H/∂q (or q' for Runge–Kutta) …
    pub dq: Vec<T>,
    /// … and ∂H/∂p (or p').
    pub dp: Vec<T>,
    /// Runge–Kutta: the state at the start of the step and the stage accumulators.
    pub q0: Vec<T>,
    pub p0: Vec<T>,
    pub acc_q: Vec<T>,
    pub acc_p: Vec<T>,
}

impl<T: Real> Block<T> {
    pub fn new(n: usize, d: usize) -> Self {
        let z = vec![T::ZERO; n * d];
        Block {
            n,
            d,
            q: z.clone(),
            p: z.clone(),
            dq: z.clone(),
            dp: z.clone(),
            q0: z.clone(),
            p0: z.clone(),
            acc_q: z.clone(),
            acc_p: z,
        }
    }
}

/// y += a·x, elementwise (the WGSL kernels write the same loop inline).
#[inline(always)]
pub(crate) fn axpy<T: Real>(y: &mut [T], a: T, x: &[T]) {
    for (yi, &xi) in y.iter_mut().zip(x) {
        *yi += a * xi;
    }
}

impl Method {
    pub fn info(self) -> MethodInfo {
        match self {
            Method::Euler => euler::INFO,
            Method::SymplecticEulerA => symplectic_euler_a::INFO,
            Method::SymplecticEulerB => symplectic_euler_b::INFO,
            Method::Verlet => verlet::INFO,
            Method::PositionVerlet => position_verlet::INFO,
            Method::Rk4 => rk4::INFO,
        }
    }

    pub fn name(self) -> &'static str {
        self.info().name
    }

    pub fn from_name(name: &str) -> Result<Method> {
        ALL.iter()
            .copied()
            .find(|m| m.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = ALL.iter().map(|m| m.name()).collect();
                input_err!(
                    "--method {name}: unknown method (known: {})",
                    names.join(", ")
                )
            })
    }

    /// The kernels are written for separable H; refuse anything else with a clear message.
    pub fn check_system(self, system: &System) -> Result<()> {
        if !system.info().separable {
            return Err(input_err!(
                "--method {}: system '{}' is not separable and this method has no kernel for it yet",
                self.name(),
                system.name()
            ));
        }
        Ok(())
    }

    /// One step of size h for every point of the block.
    #[inline]
    pub fn step<T: Real>(self, system: &System, b: &mut Block<T>, h: T) {
        match self {
            Method::Euler => euler::step(system, b, h),
            Method::SymplecticEulerA => symplectic_euler_a::step(system, b, h),
            Method::SymplecticEulerB => symplectic_euler_b::step(system, b, h),
            Method::Verlet => verlet::step(system, b, h),
            Method::PositionVerlet => position_verlet::step(system, b, h),
            Method::Rk4 => rk4::step(system, b, h),
        }
    }

    /// The WGSL file defining `fn step(z: ptr<function, Phase>, h: f32)`.
    pub fn wgsl_source(self) -> &'static str {
        match self {
            Method::Euler => include_str!("../../shaders/method/euler.wgsl"),
            Method::SymplecticEulerA => {
                include_str!("../../shaders/method/symplectic_euler_a.wgsl")
            }
            Method::SymplecticEulerB => {
                include_str!("../../shaders/method/symplectic_euler_b.wgsl")
            }
            Method::Verlet => include_str!("../../shaders/method/verlet.wgsl"),
            Method::PositionVerlet => include_str!("../../shaders/method/position_verlet.wgsl"),
            Method::Rk4 => include_str!("../../shaders/method/rk4.wgsl"),
        }
    }
}
