//! Built-in Hamiltonian systems generated from their formulas. A system's `Formulas` (its H,
//! the named constants H is written with, and H rewritten for accurate statistics where the
//! formula loses digits) is the one description of its dynamics; `expr` turns it into the
//! system's CPU functions (`generated/<name>.rs`, straight-line Rust: `expr::rust`), its
//! kernel functions (`shaders/system/<name>.wgsl`) and its f64 energy
//! (`shaders/energy/<name>.wgsl`, `expr::wgsl`). Those files are checked in, so that the
//! compiler and the shader pipeline read plain source, and the test below holds each equal to
//! what the generator writes now: after changing a formula or the generator, run
//! `PHASEFLOW_REGENERATE=1 cargo test --release --lib system::generated` to rewrite them.
//!
//! Why checked in rather than written by build.rs: the generator is the crate's own `expr`
//! (parser, simplifier, differentiator), which reads the crate's errors and floats; a build
//! script cannot use the crate it builds, and splitting `expr` into a crate of its own would
//! move the formula front end that user formulas share. The test gives the same guarantee (no
//! file differs from its generator's output) and the generated code stays reviewable.

use std::collections::BTreeMap;

use crate::expr::ExprHamiltonian;

// Generated text: formatted by its generator, not by rustfmt.
#[rustfmt::skip]
pub mod oscillator;
#[rustfmt::skip]
pub mod henon_heiles;
#[rustfmt::skip]
pub mod pendulum;
#[rustfmt::skip]
pub mod double_pendulum;
#[rustfmt::skip]
pub mod elastic_pendulum;
#[rustfmt::skip]
pub mod elastic_pendulum_cartesian;
#[rustfmt::skip]
pub mod kepler;

/// A Hamiltonian system's dynamics, as formulas in `expr` syntax over q, p (q1.., p1.. for
/// several degrees of freedom) and the named constants.
#[derive(Debug, Clone, Copy)]
pub struct Formulas {
    /// The system's name (`SystemInfo::name`); with `-` as `_`, its source file's and its
    /// generated files' stem.
    pub name: &'static str,
    /// Degrees of freedom.
    pub dof: usize,
    /// The named constants, each with its formula in the system's parameters: evaluated in
    /// f64 when the system is built, read by the CPU functions and, as prelude constants of
    /// the same names, by the shaders (so both use the same coefficients).
    pub constants: &'static [(&'static str, &'static str)],
    /// H: what the gradients and their directional derivatives are derived from, and the
    /// energy of one point (`Hamiltonian::energy`).
    pub hamiltonian: &'static str,
    /// H written for the energy statistics (`energy_block`, the device reduction) where the
    /// `hamiltonian` form loses digits, e.g. 1 − cos q = 2 sin²(q/2) near q = 0; `None`: the
    /// `hamiltonian` form. A test holds the two equal.
    pub statistics: Option<&'static str>,
}

impl Formulas {
    fn names(&self) -> Vec<&'static str> {
        self.constants.iter().map(|&(n, _)| n).collect()
    }

    /// H compiled with its named constants.
    pub fn hamiltonian(&self) -> ExprHamiltonian {
        self.compile(self.hamiltonian)
    }

    /// The statistics' H compiled with its named constants.
    pub fn statistics(&self) -> ExprHamiltonian {
        self.compile(self.statistics.unwrap_or(self.hamiltonian))
    }

    fn compile(&self, formula: &str) -> ExprHamiltonian {
        ExprHamiltonian::with_named(formula, &BTreeMap::new(), &self.names(), Some(self.dof))
            .unwrap_or_else(|e| panic!("system {}: its formula {formula}: {e}", self.name))
    }

    /// The named constants' values for the resolved parameters `params`, in order.
    pub fn constant_values(&self, params: &BTreeMap<String, f64>) -> Vec<f64> {
        self.constants
            .iter()
            .map(|&(name, formula)| {
                let parsed = crate::expr::parse::parse(formula, params, Some(1))
                    .unwrap_or_else(|e| panic!("system {}: constant {name}: {e}", self.name));
                parsed.dag.value(parsed.root).unwrap_or_else(|| {
                    panic!(
                        "system {}: constant {name} is not a formula of the parameters",
                        self.name
                    )
                })
            })
            .collect()
    }

    /// The named constants with their values (`SystemDescription::constants`).
    pub fn named_constants(&self, values: &[f64]) -> Vec<(&'static str, f64)> {
        self.names()
            .into_iter()
            .zip(values.iter().copied())
            .collect()
    }

    /// H with the constants' `values` written in as numbers (`Hamiltonian::formula`): each
    /// name (a maximal run of letters, digits and `_`) replaced by its literal.
    pub fn formula_with(&self, values: &[f64]) -> String {
        let text = self.hamiltonian;
        let mut out = String::new();
        let mut rest = text;
        while let Some(start) = rest.find(|c: char| c.is_ascii_alphanumeric() || c == '_') {
            out.push_str(&rest[..start]);
            rest = &rest[start..];
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            let word = &rest[..end];
            match self.constants.iter().position(|&(n, _)| n == word) {
                Some(k) => out.push_str(&super::hamiltonian::literal(values[k])),
                None => out.push_str(word),
            }
            rest = &rest[end..];
        }
        out.push_str(rest);
        out
    }

    /// The generated files: (path from the crate's root, text).
    pub fn generated(&self) -> [(String, String); 3] {
        let (h, statistics) = (self.hamiltonian(), self.statistics());
        // A module's name: `henon-heiles` is written in henon_heiles.rs.
        let stem = self.name.replace('-', "_");
        let source = format!("src/system/{stem}.rs");
        let rust_header = format!(
            "//! Generated from the formulas in {source} by `expr::rust` (H = {}); do not edit:\n\
             //! `PHASEFLOW_REGENERATE=1 cargo test --release --lib system::generated` rewrites it.\n",
            self.hamiltonian
        );
        let wgsl_header = format!(
            "// Generated from the formulas in {source} by `expr::wgsl`; do not edit (see\n\
             // src/system/generated/mod.rs).\n"
        );
        let energy = statistics
            .energy_wgsl()
            .expect("a built-in system's H has its functions in f64 on the GPU");
        [
            (
                format!("src/system/generated/{stem}.rs"),
                h.rust(&statistics, &rust_header),
            ),
            (
                format!("shaders/system/{stem}.wgsl"),
                format!("{wgsl_header}{}", h.wgsl()),
            ),
            (
                format!("shaders/energy/{stem}.wgsl"),
                format!("{wgsl_header}{energy}"),
            ),
        ]
    }
}

/// Every generated system's formulas (the registry line of each is in `system/mod.rs`).
pub const GENERATED: &[Formulas] = &[
    super::oscillator::FORMULAS,
    super::pendulum::FORMULAS,
    super::henon_heiles::FORMULAS,
    super::double_pendulum::FORMULAS,
    super::elastic_pendulum::FORMULAS,
    super::elastic_pendulum_cartesian::FORMULAS,
    super::kepler::FORMULAS,
];

/// `impl Hamiltonian for $ty` by the generated module `$module` (`generated/<name>.rs`): the
/// system's struct holds its named constants' values in `self.c` and its formulas in `FORMULAS`.
macro_rules! generated_hamiltonian {
    ($ty:ty, $module:ident) => {
        impl $crate::system::Hamiltonian for $ty {
            fn energy(&self, q: &[f64], p: &[f64]) -> f64 {
                $crate::system::generated::$module::energy(&self.c, q, p)
            }
            #[inline(always)]
            fn energy_block<T: $crate::float::Real>(
                &self,
                q: &[T],
                p: &[T],
                n: usize,
                first: usize,
                out: &mut [f64],
            ) {
                let accurate = $crate::simd::dispatch(
                    #[inline(always)]
                    || {
                        $crate::system::generated::$module::energy_block(
                            &self.c, q, p, n, first, out,
                        )
                    },
                );
                if !accurate {
                    let energy = |q: &[f64], p: &[f64]| self.energy(q, p);
                    let d = $crate::system::generated::$module::D;
                    $crate::system::energy_per_point(d, energy, q, p, n, first, out);
                }
            }
            fn gpu_f64_missing(&self) -> Option<&'static str> {
                $crate::system::generated::$module::GPU_F64_MISSING
            }
            fn formula(&self) -> Option<String> {
                Some(FORMULAS.formula_with(&self.c))
            }
            #[inline(always)]
            fn grad_q<T: $crate::float::Real>(&self, q: &[T], p: &[T], out: &mut [T]) {
                $crate::system::generated::$module::grad_q(&self.c, q, p, out)
            }
            #[inline(always)]
            fn grad_p<T: $crate::float::Real>(&self, q: &[T], p: &[T], out: &mut [T]) {
                $crate::system::generated::$module::grad_p(&self.c, q, p, out)
            }
            #[inline(always)]
            fn grad_q_dir<T: $crate::float::Real>(
                &self,
                q: &[T],
                p: &[T],
                vq: &[T],
                vp: &[T],
                out: &mut [T],
            ) {
                $crate::system::generated::$module::grad_q_dir(&self.c, q, p, vq, vp, out)
            }
            #[inline(always)]
            fn grad_p_dir<T: $crate::float::Real>(
                &self,
                q: &[T],
                p: &[T],
                vq: &[T],
                vp: &[T],
                out: &mut [T],
            ) {
                $crate::system::generated::$module::grad_p_dir(&self.c, q, p, vq, vp, out)
            }
            #[inline(always)]
            fn grad_q_tangent<T: $crate::float::Real>(
                &self,
                nd: usize,
                q: &[T],
                p: &[T],
                out: &mut [T],
            ) {
                $crate::system::generated::$module::grad_q_tangent(&self.c, nd, q, p, out)
            }
            #[inline(always)]
            fn grad_p_tangent<T: $crate::float::Real>(
                &self,
                nd: usize,
                q: &[T],
                p: &[T],
                out: &mut [T],
            ) {
                $crate::system::generated::$module::grad_p_tangent(&self.c, nd, q, p, out)
            }
        }
    };
}
pub(crate) use generated_hamiltonian;

#[cfg(test)]
mod tests {
    use super::*;

    /// Every generated file equals what the generator writes from its system's formulas
    /// (`PHASEFLOW_REGENERATE=1` rewrites the files that differ instead).
    #[test]
    fn generated_files_are_what_the_generator_writes() {
        let root = env!("CARGO_MANIFEST_DIR");
        let rewrite = std::env::var_os("PHASEFLOW_REGENERATE").is_some();
        let mut stale = Vec::new();
        for formulas in GENERATED {
            for (path, text) in formulas.generated() {
                let full = std::path::Path::new(root).join(&path);
                if std::fs::read_to_string(&full).ok().as_deref() == Some(text.as_str()) {
                    continue;
                }
                if rewrite {
                    std::fs::write(&full, &text).unwrap();
                } else {
                    stale.push(path);
                }
            }
        }
        assert!(
            stale.is_empty(),
            "{stale:?} differ from the generator's output: run \
             PHASEFLOW_REGENERATE=1 cargo test --release --lib system::generated"
        );
    }

    /// A formula calling a function Vulkan lacks in f64 (a Morse potential's exp) generates a
    /// module that names it, which `System::check_gpu_f64` refuses as it refuses the formula
    /// given by the user; sin, cos and sqrt (the kernels' own polynomials and sqrt) do not.
    #[test]
    fn a_generated_module_names_the_function_vulkan_lacks_in_f64() {
        let module = |hamiltonian: &'static str| {
            let formulas = Formulas {
                name: "trial",
                dof: 1,
                constants: &[("DEPTH", "d"), ("WIDTH", "a")],
                hamiltonian,
                statistics: None,
            };
            formulas.hamiltonian().rust(&formulas.statistics(), "")
        };
        let morse = module("p^2/2 + DEPTH*(1 - exp(-WIDTH*q))^2");
        assert!(morse.contains("pub const GPU_F64_MISSING: Option<&str> = Some(\"exp\");"));
        let pendulum = module("p^2/2 + DEPTH*(1 - cos(WIDTH*q)) + sqrt(1 + q^2)");
        assert!(pendulum.contains("pub const GPU_F64_MISSING: Option<&str> = None;"));
    }

    /// Each system's declared separability (`SystemInfo::separable`) is its formula's (the
    /// statistics form equals H: `system::tests::energy_block_matches_energy`).
    #[test]
    fn each_systems_separability_is_its_formulas() {
        for formulas in GENERATED {
            let info = crate::system::System::info_by_name(formulas.name).unwrap();
            assert_eq!(
                formulas.hamiltonian().separable,
                info.separable,
                "{}",
                formulas.name
            );
        }
    }
}
