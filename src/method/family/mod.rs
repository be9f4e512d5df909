//! Methods given as data (`Method::Data`): a shipped `methods/*.toml` or a user's method file,
//! in one of the coefficient families. Each family is one file here implementing `Kind`: how a
//! method file writes it, what the analysis reads (its normal form), and its step, written once
//! over `Ops` (so on both engines). `families!` below lists them: a new family is one file and
//! one line there. This module also loads method files (parsed, checked, leaked once per
//! process so that `Method` stays `Copy`) and describes them (`MethodInfo` from the analysis
//! of their coefficients).

use std::path::Path;
use std::sync::Mutex;

mod scaled;
mod stages;

use super::analysis::normal::Normal;
use super::analysis::stability::Step;
use super::analysis::{analyse, builtin};
use super::file::read::Doc;
use super::file::{parse, shipped_by_name};
use super::ops::Ops;
use super::tableau::MethodDef;
use super::{Method, MethodInfo};
use crate::error::{Error, Field, Result};
use crate::input_err;
use crate::system::System;

/// Finds a composition's base method's coefficients by name (`analysis::builtin::family` for
/// the registry; the analysis tests pass their own).
pub type Bases<'a> = &'a dyn Fn(&str) -> Option<Family>;

/// One family of methods given as data: its coefficients (the implementing type), how a method
/// file writes them, what the analysis reads, and the step. Conventions in `method::tableau`.
pub(crate) trait Kind: Sized {
    /// `family = "…"` in a method file.
    const NAME: &'static str;
    /// The family's fields besides the common ones (`name`, `family`, `summary`, `reference`);
    /// any other field is refused before `read`.
    const FIELDS: &'static [&'static str];
    /// The coefficients from a method file (`name`: the method's name); errors name the field
    /// and the fix (`Doc::err`).
    fn read(doc: &Doc, name: &str) -> Result<Self>;
    /// The one-line summary of a file that gives none.
    fn summary(&self) -> String;
    /// The normal form the analysis reads, with the shape and finiteness checks the reader
    /// cannot make for coefficients built in code; `depth` counts the compositions around it.
    fn normal(&self, bases: Bases, depth: usize) -> Result<Normal>;
    /// The step on the harmonic oscillator the stability analysis takes (by default the
    /// normal form's).
    fn oscillator(&self, _bases: Bases, normal: Normal) -> Result<Step> {
        Ok(Step::Normal(normal))
    }
    /// The method this one is built on, by name (a composition's base).
    fn base(&self) -> Option<&str> {
        None
    }
    /// Whether the method serves only separable H = T(p) + V(q).
    fn needs_separable(&self) -> bool {
        false
    }
    /// Whether the method, called `method`, can serve `system`, beyond the checks common to
    /// every method (`Method::check_system`).
    fn check_system(&self, _method: &str, _system: &System) -> Result<()> {
        Ok(())
    }
    /// Statements before a run of steps (a force carried into the first step).
    fn prologue<O: Ops>(&self, _o: &mut O) {}
    /// One step of size `o.h()`.
    fn step<O: Ops>(&self, o: &mut O);
}

/// The families: `Variant(Type) in module`, each module a file of this folder whose `Type`
/// implements `Kind`. Generates `Family` (a method's coefficients, by family) and its
/// dispatch.
macro_rules! families {
    ($($variant:ident($kind:ty) in $module:ident),* $(,)?) => {
        $(pub mod $module;)*

        /// A method's coefficients, by family (conventions in `method::tableau`). Families
        /// are added (`families!`), so code outside the crate matches with a wildcard arm.
        #[derive(Debug, Clone, PartialEq)]
        #[non_exhaustive]
        pub enum Family {
            $($variant($kind),)*
        }

        impl Family {
            /// The families' names, as method files write them.
            pub const NAMES: &'static [&'static str] = &[$(<$kind as Kind>::NAME),*];

            /// The family's name as a method file writes it (`family = "rk"`).
            pub fn name(&self) -> &'static str {
                match self { $(Family::$variant(_) => <$kind as Kind>::NAME,)* }
            }

            /// The coefficients of family `family` (one of `NAMES`) from a method file.
            pub(crate) fn read(family: &str, doc: &Doc, name: &str) -> Result<Family> {
                $(if family == <$kind as Kind>::NAME {
                    doc.allow(family, <$kind as Kind>::FIELDS)?;
                    return Ok(Family::$variant(<$kind as Kind>::read(doc, name)?));
                })*
                unreachable!("Doc::family returns one of {:?}, not {family}", Family::NAMES)
            }

            pub fn summary(&self) -> String {
                match self { $(Family::$variant(k) => k.summary(),)* }
            }

            pub(crate) fn normal(&self, bases: Bases, depth: usize) -> Result<Normal> {
                match self { $(Family::$variant(k) => k.normal(bases, depth),)* }
            }

            pub(crate) fn oscillator(&self, bases: Bases, normal: Normal) -> Result<Step> {
                match self { $(Family::$variant(k) => k.oscillator(bases, normal),)* }
            }

            pub fn base(&self) -> Option<&str> {
                match self { $(Family::$variant(k) => k.base(),)* }
            }

            pub fn needs_separable(&self) -> bool {
                match self { $(Family::$variant(k) => k.needs_separable(),)* }
            }

            pub fn check_system(&self, method: &str, system: &System) -> Result<()> {
                match self { $(Family::$variant(k) => k.check_system(method, system),)* }
            }

            #[inline]
            pub fn prologue<O: Ops>(&self, o: &mut O) {
                match self { $(Family::$variant(k) => k.prologue(o),)* }
            }

            #[inline]
            pub fn step<O: Ops>(&self, o: &mut O) {
                match self { $(Family::$variant(k) => k.step(o),)* }
            }
        }
    };
}

families! {
    Rk(rk::Rk) in rk,
    Prk(prk::Prk) in prk,
    Rkn(rkn::Rkn) in rkn,
    Splitting(splitting::Splitting) in splitting,
    Composition(composition::Composition) in composition,
}

/// The largest method file read: far above any tableau `method::file` accepts.
pub const MAX_FILE_BYTES: u64 = 1 << 20;

/// What `info` reports for a method given as data: its order and symplecticity, from the
/// analysis of its coefficients (`method::analysis`), worked out once per method.
#[derive(Clone, Copy)]
struct Verdict {
    def: &'static MethodDef,
    order: u32,
    symplectic: bool,
}

/// The methods given as data this process has loaded (shipped ones on first use), with their
/// verdicts. Methods are few, so a list searched by address serves.
static LOADED: Mutex<Vec<Verdict>> = Mutex::new(Vec::new());

fn loaded() -> std::sync::MutexGuard<'static, Vec<Verdict>> {
    // A panic while holding the lock leaves the list consistent (pushes are whole).
    LOADED.lock().unwrap_or_else(|e| e.into_inner())
}

/// The verdict on `d`, from the analysis (refusing, as an input error, coefficients the
/// analysis cannot read, e.g. a composition over an unknown base).
fn verdict(d: &'static MethodDef) -> Result<Verdict> {
    if let Some(v) = loaded().iter().find(|v| std::ptr::eq(v.def, d)) {
        return Ok(*v);
    }
    let v = analyse(&d.family, &builtin::family)?;
    let v = Verdict {
        def: d,
        order: v.order,
        symplectic: v.symplectic,
    };
    loaded().push(v);
    Ok(v)
}

/// A method file loaded by this process (`Method::from_file`, `from_source`) called `name`.
pub(super) fn loaded_by_name(name: &str) -> Option<Method> {
    loaded()
        .iter()
        .find(|v| v.def.name == name)
        .map(|v| Method::Data(v.def))
}

/// `Method::info` of a method given as data.
pub fn info(d: &'static MethodDef) -> MethodInfo {
    // Every method given as data was checked by `load` (or is a shipped file, which the tests
    // analyse), so the analysis succeeds; order 0 and "not symplectic" would be the safe
    // reading otherwise.
    let (order, symplectic) = verdict(d)
        .map(|v| (v.order, v.symplectic))
        .unwrap_or((0, false));
    MethodInfo {
        name: &d.name,
        order,
        symplectic,
        summary: &d.summary,
    }
}

/// Statements before a run of steps of a method given as data.
#[inline]
pub fn prologue<O: Ops>(d: &'static MethodDef, o: &mut O) {
    d.family.prologue(o);
}

/// One step of a method given as data.
#[inline]
pub fn step<O: Ops>(d: &'static MethodDef, o: &mut O) {
    d.family.step(o);
}

/// Whether the method serves only separable H (splittings, Nyström methods, compositions over
/// them).
pub fn needs_separable(d: &MethodDef) -> bool {
    d.family.needs_separable()
}

/// Whether the method can serve `system` (after `Method::check_system`'s checks common to every
/// method).
pub fn check_system(d: &'static MethodDef, system: &System) -> Result<()> {
    d.family.check_system(&d.name, system)
}

/// The method a parsed file describes: the shipped method of that name when the file restates
/// it (same family and coefficients), else the file's own method, leaked once per process
/// (a second file of the same text gives the same method; another text under a name already
/// loaded is refused, since outputs are named by method).
fn load(def: MethodDef, origin: &str) -> Result<Method> {
    if let Some(shipped) = shipped_by_name(&def.name) {
        // `parse` accepts a shipped method's name only with its coefficients.
        debug_assert_eq!(shipped.family, def.family);
        return Ok(Method::Data(shipped));
    }
    if let Some(base) = def.base_name() {
        match Method::from_name(base) {
            Ok(Method::Variational) => {
                return Err(input_err!(
                    "{origin}: base = {base:?}: the variational method is not a one-step method of H that can be composed; use a symplectic base, e.g. base = \"verlet\""
                ))
            }
            Ok(_) => {}
            Err(_) => {
                return Err(input_err!(
                    "{origin}: base = {base:?}: unknown method; a composition is over a built-in or shipped method (`phaseflow list`), e.g. base = \"verlet\""
                ))
            }
        }
    }
    if let Some(v) = loaded().iter().find(|v| v.def.name == def.name) {
        if v.def.family == def.family {
            return Ok(Method::Data(v.def));
        }
        return Err(input_err!(
            "{origin}: name = {:?}: another method file with other coefficients is loaded under this name; give this one another name",
            def.name
        ));
    }
    let analysed = analyse(&def.family, &builtin::family)
        .map_err(|e| input_err!("{origin}: {}", e.to_string()))?;
    let def: &'static MethodDef = Box::leak(Box::new(def));
    loaded().push(Verdict {
        def,
        order: analysed.order,
        symplectic: analysed.symplectic,
    });
    Ok(Method::Data(def))
}

impl Method {
    /// The method a method file's text describes (`origin` names it in messages: its path, or
    /// the config.toml that recorded it). Errors are input errors (exit 2).
    pub fn from_source(text: &str, origin: &str) -> Result<Method> {
        load(parse(text, origin)?, origin)
    }

    /// The method in the method file at `path` (a regular file of at most `MAX_FILE_BYTES`,
    /// UTF-8 TOML: the format of `method::file`).
    pub fn from_file(path: &Path) -> Result<Method> {
        let file_err =
            |message: String| Error::in_file(Field::MethodFile, path, format!(": {message}"));
        let bytes = crate::ensemble::read_regular(path, MAX_FILE_BYTES, "a TOML method file")
            .map_err(file_err)?;
        let text = String::from_utf8(bytes)
            .map_err(|e| file_err(format!("malformed TOML: not UTF-8 text ({e})")))?;
        Method::from_source(&text, &path.display().to_string())
    }

    /// The method file's definition, for a method given as data.
    pub fn def(self) -> Option<&'static MethodDef> {
        match self {
            Method::Data(d) => Some(d),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GAUSS2: &str = "name = \"gauss2\"\nfamily = \"rk\"\na = [[\"1/4\", \"1/4 - sqrt(3)/6\"], [\"1/4 + sqrt(3)/6\", \"1/4\"]]\nb = [\"1/2\", \"1/2\"]\n";

    /// A file restating a shipped method under its name is that method (the same value as
    /// `--method gauss2`); other coefficients under the name are refused.
    #[test]
    fn a_file_restating_a_shipped_method_is_that_method() {
        let m = Method::from_source(GAUSS2, "my.toml").unwrap();
        assert_eq!(m, Method::from_name("gauss2").unwrap());
        assert!(std::ptr::eq(
            m.def().unwrap(),
            shipped_by_name("gauss2").unwrap()
        ));
        assert_eq!((m.info().order, m.info().symplectic), (4, true));
        let other = GAUSS2.replace("b = [\"1/2\", \"1/2\"]", "b = [\"1/3\", \"2/3\"]");
        let e = Method::from_source(&other, "my.toml").unwrap_err();
        assert!(
            e.is_input()
                && e.to_string()
                    .contains("a shipped method is called \"gauss2\""),
            "{e}"
        );
    }

    /// A user's file is loaded once: the same text again gives the same method, usable by
    /// name; other coefficients under its name, and a composition over an unknown base, are
    /// input errors naming the fix.
    #[test]
    fn user_files_load_once_and_bad_bases_are_refused() {
        let text = "name = \"test-triple-jump\"\nfamily = \"composition\"\nbase = \"verlet\"\nweights = [\"1/(2 - 2^(1/3))\", \"-2^(1/3)/(2 - 2^(1/3))\", \"1/(2 - 2^(1/3))\"]\n";
        let a = Method::from_source(text, "a.toml").unwrap();
        let b = Method::from_source(text, "b.toml").unwrap();
        assert!(std::ptr::eq(a.def().unwrap(), b.def().unwrap()));
        assert_eq!(Method::from_name("test-triple-jump").unwrap(), a);
        assert_eq!((a.info().order, a.info().symplectic), (4, true));
        let other = text.replace("base = \"verlet\"", "base = \"position-verlet\"");
        let e = Method::from_source(&other, "c.toml").unwrap_err();
        assert!(e.to_string().contains("another name"), "{e}");
        let unknown = text
            .replace("test-triple-jump", "test-bad-base")
            .replace("\"verlet\"", "\"no-such-method\"");
        let e = Method::from_source(&unknown, "d.toml").unwrap_err();
        assert!(
            e.is_input()
                && e.to_string()
                    .contains("d.toml: base = \"no-such-method\": unknown method"),
            "{e}"
        );
        let e = Method::from_file(Path::new("/dev/zero")).unwrap_err();
        assert!(
            e.is_input() && e.to_string().contains("not a regular file"),
            "{e}"
        );
    }
}
