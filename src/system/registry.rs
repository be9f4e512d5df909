//! The `systems!` macro: from one line per system (`Variant => path::Type,`) it generates
//! everything that must list every system, so a list cannot fall out of step with another:
//! the `System` enum, the `each_system!` dispatch, `CATALOGUE`, the constructor table and the
//! lookups of each system's description and WGSL sources. Every piece comes from the
//! system's `SystemDef` descriptor, so a system missing one is a compile error.

/// Invoked once, in `system/mod.rs`. The second rule receives a `$` token as `$d` so that it
/// can write the nested `each_system!` macro's own metavariables.
macro_rules! systems {
    ($($variant:ident => $ty:ty,)+) => {
        systems!(@with_dollar ($) $($variant => $ty,)+);
    };
    (@with_dollar ($d:tt) $($variant:ident => $ty:ty,)+) => {
        /// Every system phaseflow knows, in the order of the `systems!` list (to add one, see
        /// the module documentation).
        #[derive(Debug, Clone)]
        pub enum System {
            $($variant($ty),)+
        }

        /// `match` over every variant, binding the inner system as `$s`.
        macro_rules! each_system {
            ($d self_:expr, $d s:ident => $d body:expr) => {
                match $d self_ {
                    $(System::$variant($d s) => $d body,)+
                }
            };
        }

        /// Every system's description, in the order of the `systems!` list.
        pub const CATALOGUE: &[SystemInfo] = &[$(<$ty as SystemDef>::INFO,)+];

        /// Every system's constructor, in `CATALOGUE`'s order.
        const CONSTRUCTORS: &[fn(&BTreeMap<String, f64>) -> Result<System>] =
            &[$(|params| Ok(System::$variant(<$ty as SystemDef>::new(params)?)),)+];

        impl System {
            pub fn info(&self) -> &'static SystemInfo {
                match self {
                    $(System::$variant(_) => &<$ty as SystemDef>::INFO,)+
                }
            }

            /// The WGSL file that defines `grad_q`, `grad_p`, `grad_q_dir` and `grad_p_dir`
            /// for this system (`SystemDef::WGSL`).
            pub fn wgsl_source(&self) -> &'static str {
                match self {
                    $(System::$variant(_) => <$ty as SystemDef>::WGSL,)+
                }
            }

            /// The WGSL file that defines this system's f64 `energy` for the device reduction
            /// (`SystemDef::ENERGY_WGSL`).
            pub fn energy_wgsl_source(&self) -> &'static str {
                match self {
                    $(System::$variant(_) => <$ty as SystemDef>::ENERGY_WGSL,)+
                }
            }
        }
    };
}
