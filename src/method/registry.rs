//! How methods are registered: the `Scheme` trait every method's descriptor implements (a
//! unit struct in the method's own file, or a data const such as a `Composition` or a
//! `Splitting`), and the `methods!` macro that, from one line per method, generates the
//! `Method` enum, `ALL` and the dispatch of `info`, the step, its prologue and the
//! separability requirement, so that no list of methods can fall out of step with another.

use super::ops::Ops;
use super::MethodInfo;

/// One integrator: its description and its step, written once over the operations interface
/// (`method::ops`) that the CPU engine runs on a block and the WGSL generator lowers to the
/// kernel.
pub trait Scheme {
    /// Name, order, symplecticity and summary (`phaseflow list`, `--method`).
    fn info(&self) -> MethodInfo;
    /// Statements run once before a run of steps (a GPU dispatch, a CPU block's steps), for
    /// what a step takes over from the previous one (the last force of a kick–drift method).
    fn prologue<O: Ops>(&self, _o: &mut O) {}
    /// One step of size `o.h()`.
    fn step<O: Ops>(&self, o: &mut O);
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
        /// Every integrator phaseflow knows: the built-ins, in the order of the `methods!` list
        /// (to add one, see the module documentation), and methods given as data (a shipped
        /// `methods/*.toml` or a user's method file, `Method::from_file`).
        #[derive(Debug, Clone, Copy, PartialEq)]
        pub enum Method {
            $($variant,)+
            /// A method given as data (`method::family` runs it), parsed once per process.
            Data(&'static $crate::method::tableau::MethodDef),
        }

        /// The built-in methods, in the order of the `methods!` list (`all()` adds the shipped
        /// method files).
        pub const ALL: &[Method] = &[$(Method::$variant,)+];

        impl Method {
            pub fn info(self) -> MethodInfo {
                match self {
                    $(Method::$variant => $scheme.info(),)+
                    Method::Data(d) => $crate::method::family::info(d),
                }
            }

            /// `Scheme::prologue` of the method's descriptor.
            #[inline(always)]
            pub fn prologue<O: Ops>(self, o: &mut O) {
                match self {
                    $(Method::$variant => $scheme.prologue(o),)+
                    Method::Data(d) => $crate::method::family::prologue(d, o),
                }
            }

            /// One step (`Scheme::step`) on any engine's operations. Inlined, so that the CPU
            /// engine's copy of its block loop for each vector level (`simd`) holds the step.
            #[inline(always)]
            pub fn step<O: Ops>(self, o: &mut O) {
                match self {
                    $(Method::$variant => $scheme.step(o),)+
                    Method::Data(d) => $crate::method::family::step(d, o),
                }
            }

            /// `Scheme::needs_separable` of the method's descriptor.
            fn needs_separable(self) -> bool {
                match self {
                    $(Method::$variant => $scheme.needs_separable(),)+
                    Method::Data(d) => $crate::method::family::needs_separable(d),
                }
            }
        }
    };
}
