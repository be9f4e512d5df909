//! How methods are registered: the `Scheme` trait every method's descriptor implements (a
//! unit struct in the method's own file, or a data const such as a `Composition` or a
//! `Splitting`), and the `methods!` macro that, from one line per method, generates the
//! `Method` enum, `ALL` and the dispatch of `info`, `step`, `wgsl`, the evaluation count and
//! the separability requirement, so that no list of methods can fall out of step with another.

use super::wgsl::Kernel;
use super::{Block, MethodInfo, Solver};
use crate::float::Real;
use crate::system::System;

/// One integrator: its description, its CPU step and, beside it, the step's WGSL mirror.
pub trait Scheme {
    /// Name, order, symplecticity and summary (`phaseflow list`, `--method`).
    fn info(&self) -> MethodInfo;
    /// One step of size h for every point of the block (the CPU reference).
    fn step<T: Real>(&self, system: &System, b: &mut Block<T>, h: T);
    /// Write one step of size `h` (a WGSL expression naming the step size) into the kernel:
    /// the same calls as `step`, in the same order.
    fn wgsl(&self, k: &mut Kernel, h: &str);
    /// Gradient evaluations (∂H/∂q or ∂H/∂p) one step takes at most, when a solved implicit
    /// stage takes at most `sweeps` of them (the system's exact count, or the solver's cap).
    fn evals_per_step(&self, sweeps: u64, solver: Solver) -> u64;
    /// Whether the method serves only separable H = T(p) + V(q) (`Method::check_system`).
    fn needs_separable(&self) -> bool {
        false
    }
}

/// Invoked once, in `method/mod.rs`, with one `Variant => descriptor,` line per method (the
/// descriptor an expression whose type implements `Scheme`). The order of the lines is the
/// order of `ALL` and of `phaseflow list`.
macro_rules! methods {
    ($($variant:ident => $scheme:expr,)+) => {
        /// Every integrator phaseflow knows, in the order of the `methods!` list (to add one,
        /// see the module documentation).
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Method {
            $($variant,)+
        }

        /// Every method, in the order of the `methods!` list.
        pub const ALL: &[Method] = &[$(Method::$variant,)+];

        impl Method {
            pub fn info(self) -> MethodInfo {
                match self {
                    $(Method::$variant => $scheme.info(),)+
                }
            }

            /// One step of size h for every point of the block.
            #[inline]
            pub fn step<T: Real>(self, system: &System, b: &mut Block<T>, h: T) {
                match self {
                    $(Method::$variant => $scheme.step(system, b, h),)+
                }
            }

            /// Write one step of size `h` (a WGSL expression naming the step size) into the
            /// kernel: the mirror of `step` (`Scheme::wgsl`).
            pub fn wgsl(self, k: &mut wgsl::Kernel, h: &str) {
                match self {
                    $(Method::$variant => $scheme.wgsl(k, h),)+
                }
            }

            /// `Scheme::evals_per_step` of the method's descriptor.
            fn scheme_evals_per_step(self, sweeps: u64, solver: Solver) -> u64 {
                match self {
                    $(Method::$variant => $scheme.evals_per_step(sweeps, solver),)+
                }
            }

            /// `Scheme::needs_separable` of the method's descriptor.
            fn needs_separable(self) -> bool {
                match self {
                    $(Method::$variant => $scheme.needs_separable(),)+
                }
            }
        }
    };
}
