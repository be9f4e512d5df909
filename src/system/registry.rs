//! The `systems!` macro: from one line per system (`Variant => path::Type,`) it generates
//! everything that must list every system, so a list cannot fall out of step with another:
//! the `System` enum, the `each_system!` dispatch, `CATALOGUE`, the constructor table and the
//! lookups of each system's description and WGSL sources. Every piece comes from the
//! system's `SystemDef` descriptor, so a system missing one is a compile error.

/// Invoked once, in `system/mod.rs`, with the Hamiltonian systems and then the discrete maps
/// (variational systems, `DiscreteMap`). The second rule receives a `$` token as `$d` so that it
/// can write the nested `each_system!` and `each_discrete!` macros' own metavariables.
macro_rules! systems {
    (
        hamiltonian { $($hvariant:ident => $hty:ty,)+ }
        discrete { $($mvariant:ident => $mty:ty,)+ }
    ) => {
        systems!(@with_dollar ($) [$($mvariant)+] $($hvariant => $hty,)+ $($mvariant => $mty,)+);
    };
    (@with_dollar ($d:tt) [$($map:ident)+] $($variant:ident => $ty:ty,)+) => {
        /// Every system phaseflow knows, in the order of the `systems!` list (to add one, see
        /// the module documentation), and a Hamiltonian given as a formula (`Expr`, not in
        /// `CATALOGUE`: built from its description, see `expression.rs`).
        #[derive(Debug, Clone)]
        pub enum System {
            $($variant($ty),)+
            Expr(expression::ExprSystem),
        }

        /// `match` over every variant, binding the inner system as `$s`.
        macro_rules! each_system {
            ($d self_:expr, $d s:ident => $d body:expr) => {
                match $d self_ {
                    $(System::$variant($d s) => $d body,)+
                    System::Expr($d s) => $d body,
                }
            };
        }

        /// `match` over the discrete maps (the `discrete` list), binding the inner map
        /// (`DiscreteMap`) as `$s`; every other system gives `$other`.
        macro_rules! each_discrete {
            ($d self_:expr, $d s:ident => $d body:expr, else $d other:expr) => {
                match $d self_ {
                    $(System::$map($d s) => $d body,)+
                    _ => $d other,
                }
            };
        }

        /// Every system's description, in the order of the `systems!` list.
        pub const CATALOGUE: &[SystemInfo] = &[$(<$ty as SystemDef>::INFO,)+];

        /// Every system's constructor, in `CATALOGUE`'s order.
        const CONSTRUCTORS: &[fn(&BTreeMap<String, f64>) -> Result<System>] =
            &[$(|params| Ok(System::$variant(<$ty as SystemDef>::new(params)?)),)+];

        impl System {
            /// A built-in system's description (`None` for an expression).
            pub fn builtin_info(&self) -> Option<&'static SystemInfo> {
                match self {
                    $(System::$variant(_) => Some(&<$ty as SystemDef>::INFO),)+
                    System::Expr(_) => None,
                }
            }

            /// The WGSL that defines `grad_q`, `grad_p`, `grad_q_dir` and `grad_p_dir` for this
            /// system: its file (`SystemDef::WGSL`), or an expression's generated functions.
            pub fn wgsl_source(&self) -> &str {
                match self {
                    $(System::$variant(_) => <$ty as SystemDef>::WGSL,)+
                    System::Expr(e) => e.wgsl(),
                }
            }

            /// The WGSL that defines this system's f64 `energy` for the device reduction
            /// (`SystemDef::ENERGY_WGSL`; `None` for an expression whose H calls a function
            /// Vulkan lacks in f64: its statistics are then computed on the host).
            pub fn energy_wgsl_source(&self) -> Option<&str> {
                match self {
                    $(System::$variant(_) => Some(<$ty as SystemDef>::ENERGY_WGSL),)+
                    System::Expr(e) => e.energy_wgsl(),
                }
            }
        }
    };
}
