//! The `systems!` macro: from one line per system (`Variant => module::Type,`) it generates
//! everything that must list every system, so a list cannot fall out of step with another: the
//! system's `pub mod`, the `System` enum and its two kinds (`HamiltonianSystem`,
//! `DiscreteSystem`), the `each_system!`, `each_hamiltonian!` and `each_discrete!` dispatch,
//! `CATALOGUE`, the constructor table and the lookups of each system's description and WGSL
//! sources. Every piece comes from the system's `SystemDef` descriptor, so a system missing one
//! is a compile error.

/// Invoked once, in `system/mod.rs`, with the Hamiltonian systems and then the discrete maps
/// (variational systems, `DiscreteMap`). The second rule receives a `$` token as `$d` so that it
/// can write the nested dispatch macros' own metavariables.
macro_rules! systems {
    (
        hamiltonian { $($hvariant:ident => $hmod:ident::$hname:ident,)+ }
        discrete { $($mvariant:ident => $mmod:ident::$mname:ident,)+ }
    ) => {
        // Each system's module (`src/system/<module>.rs`), declared from its line. rustfmt does
        // not reach modules declared inside a macro: `scripts/test` checks their formatting by
        // name (`rustfmt --check src/system/*.rs`).
        $(pub mod $hmod;)+
        $(pub mod $mmod;)+
        systems!(@with_dollar ($) [$($hvariant => $hmod::$hname,)+] [$($mvariant => $mmod::$mname,)+]);
    };
    (@with_dollar ($d:tt) [$($hvariant:ident => $hty:ty,)+] [$($mvariant:ident => $mty:ty,)+]) => {
        /// Every system phaseflow knows, by kind: a Hamiltonian system (a vector field, which
        /// every method but `variational` integrates) or a discrete map (a variational
        /// system, advanced by its own map of step h). The order of the `systems!` lists is
        /// the order of `CATALOGUE` (to add a system, see the module documentation).
        #[derive(Debug, Clone)]
        pub enum System {
            Hamiltonian(HamiltonianSystem),
            DiscreteMap(DiscreteSystem),
        }

        /// The Hamiltonian systems (the `hamiltonian` list), and a Hamiltonian given as a
        /// formula (`Expr`, not in `CATALOGUE`: built from its description, see
        /// `expression.rs`): the systems with gradients.
        #[derive(Debug, Clone)]
        pub enum HamiltonianSystem {
            $($hvariant($hty),)+
            Expr(expression::ExprSystem),
        }

        /// The discrete maps (the `discrete` list), and a Lagrangian given as a formula
        /// (`Lagrangian`, not in `CATALOGUE`: built from its description, see
        /// `crate::system::lagrangian`).
        #[derive(Debug, Clone)]
        pub enum DiscreteSystem {
            $($mvariant($mty),)+
            Lagrangian(crate::system::lagrangian::LagrangianSystem),
        }

        /// `match` over the Hamiltonian systems, binding the inner system (`Hamiltonian`) as `$s`.
        macro_rules! each_hamiltonian {
            ($d self_:expr, $d s:ident => $d body:expr) => {
                match $d self_ {
                    $(HamiltonianSystem::$hvariant($d s) => $d body,)+
                    HamiltonianSystem::Expr($d s) => $d body,
                }
            };
        }

        /// `match` over the discrete maps, binding the inner map (`DiscreteMap`) as `$s`.
        macro_rules! each_discrete {
            ($d self_:expr, $d s:ident => $d body:expr) => {
                match $d self_ {
                    $(DiscreteSystem::$mvariant($d s) => $d body,)+
                    DiscreteSystem::Lagrangian($d s) => $d body,
                }
            };
        }

        /// `match` over every system, binding the inner system as `$s`: only what both kinds
        /// share (`SystemDescription`) can be called on it.
        macro_rules! each_system {
            ($d self_:expr, $d s:ident => $d body:expr) => {
                match $d self_ {
                    System::Hamiltonian(h) => each_hamiltonian!(h, $d s => $d body),
                    System::DiscreteMap(m) => each_discrete!(m, $d s => $d body),
                }
            };
        }

        // Each system's `SystemInfo::variational` is the list it is in, checked at compile time.
        const _: () = {
            $(assert!(!<$hty as SystemDef>::INFO.variational, "a Hamiltonian system marked variational");)+
            $(assert!(<$mty as SystemDef>::INFO.variational, "a discrete map not marked variational");)+
        };

        /// Every system's description, in the order of the `systems!` list.
        pub const CATALOGUE: &[SystemInfo] = &[
            $(<$hty as SystemDef>::INFO,)+
            $(<$mty as SystemDef>::INFO,)+
        ];

        /// Every system's constructor, in `CATALOGUE`'s order.
        const CONSTRUCTORS: &[fn(&BTreeMap<String, f64>) -> Result<System>] = &[
            $(|params| Ok(System::Hamiltonian(HamiltonianSystem::$hvariant(<$hty as SystemDef>::new(params)?))),)+
            $(|params| Ok(System::DiscreteMap(DiscreteSystem::$mvariant(<$mty as SystemDef>::new(params)?))),)+
        ];

        impl System {
            /// A built-in system's description (`None` for an expression or a Lagrangian).
            pub fn builtin_info(&self) -> Option<&'static SystemInfo> {
                match self {
                    $(System::Hamiltonian(HamiltonianSystem::$hvariant(_)) => Some(&<$hty as SystemDef>::INFO),)+
                    System::Hamiltonian(HamiltonianSystem::Expr(_)) => None,
                    $(System::DiscreteMap(DiscreteSystem::$mvariant(_)) => Some(&<$mty as SystemDef>::INFO),)+
                    System::DiscreteMap(DiscreteSystem::Lagrangian(_)) => None,
                }
            }

            /// The WGSL that defines this system's kernel functions: `grad_q`, `grad_p`,
            /// `grad_q_dir` and `grad_p_dir` of a Hamiltonian system, `discrete_step` of a
            /// discrete map (`SystemDef::WGSL`), or an expression's generated functions.
            pub fn wgsl_source(&self) -> &str {
                match self {
                    $(System::Hamiltonian(HamiltonianSystem::$hvariant(_)) => <$hty as SystemDef>::WGSL,)+
                    System::Hamiltonian(HamiltonianSystem::Expr(e)) => e.wgsl(),
                    $(System::DiscreteMap(DiscreteSystem::$mvariant(_)) => <$mty as SystemDef>::WGSL,)+
                    System::DiscreteMap(DiscreteSystem::Lagrangian(l)) => l.wgsl(),
                }
            }

            /// The WGSL that defines this system's f64 `energy` for the device reduction
            /// (`SystemDef::ENERGY_WGSL`; `None` for an expression whose H calls a function
            /// Vulkan lacks in f64, and for a Lagrangian, whose energy inverts the Legendre
            /// transform by Newton's method: their statistics are then computed on the host).
            pub fn energy_wgsl_source(&self) -> Option<&str> {
                match self {
                    $(System::Hamiltonian(HamiltonianSystem::$hvariant(_)) => Some(<$hty as SystemDef>::ENERGY_WGSL),)+
                    System::Hamiltonian(HamiltonianSystem::Expr(e)) => e.energy_wgsl(),
                    $(System::DiscreteMap(DiscreteSystem::$mvariant(_)) => Some(<$mty as SystemDef>::ENERGY_WGSL),)+
                    System::DiscreteMap(DiscreteSystem::Lagrangian(_)) => None,
                }
            }
        }
    };
}
