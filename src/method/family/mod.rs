//! Methods given as data (`Method::Data`): a shipped `methods/*.toml` or a user's method file,
//! in one of the coefficient families of `method::tableau`. Here they are loaded (parsed,
//! checked, leaked once per process so that `Method` stays `Copy`) and described
//! (`MethodInfo` from the analysis of their coefficients), and run (`step`: every family
//! written once over `Ops`, so on both engines).

use std::path::Path;
use std::sync::Mutex;

mod scaled;
mod step;

use super::analysis::{analyse, builtin};
use super::composition::Composition;
use super::file::{parse, shipped_by_name};
use super::ops::Ops;
use super::splitting::Splitting;
use super::tableau::{Family, MethodDef};
use super::{verlet, Method, MethodInfo, Scheme};
use crate::error::{Error, Result};
use crate::input_err;
use crate::system::System;
use scaled::Scaled;

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

/// The composition or splitting built-in code runs for a method given as data: a splitting
/// as the built-in splittings' `Splitting`, a composition over Verlet as the built-in
/// compositions' `Composition`, so that a file restating a built-in runs its code (only the
/// coefficients are read from the descriptor; `info` is the file's).
enum Builtin {
    Splitting(Splitting),
    Verlet(Composition),
}

fn builtin(d: &'static MethodDef) -> Option<Builtin> {
    let info = MethodInfo {
        name: &d.name,
        order: 0,
        symplectic: true,
        summary: &d.summary,
    };
    match &d.family {
        Family::Splitting(substeps) => Some(Builtin::Splitting(Splitting { info, substeps })),
        Family::Composition { base, weights } if base == verlet::INFO.name => {
            Some(Builtin::Verlet(Composition { info, weights }))
        }
        _ => None,
    }
}

/// A composition's base method (checked when the file was loaded).
fn base(name: &str) -> Method {
    Method::from_name(name).unwrap_or_else(|e| unreachable!("a loaded composition's base: {e}"))
}

/// Statements before a run of steps: the built-in code's, or a composition's base's.
pub fn prologue<O: Ops>(d: &'static MethodDef, o: &mut O) {
    match builtin(d) {
        Some(Builtin::Splitting(s)) => s.prologue(o),
        Some(Builtin::Verlet(c)) => c.prologue(o),
        None => {
            if let Family::Composition { base: name, .. } = &d.family {
                base(name).prologue(o);
            }
        }
    }
}

/// One step of a method given as data.
pub fn step<O: Ops>(d: &'static MethodDef, o: &mut O) {
    match builtin(d) {
        Some(Builtin::Splitting(s)) => return s.step(o),
        Some(Builtin::Verlet(c)) => return c.step(o),
        None => {}
    }
    let h = o.h();
    match &d.family {
        Family::Rk(t) => step::prk(o, t, t, h),
        Family::Prk { q, p } => step::prk(o, q, p, h),
        Family::Rkn { a, b_bar, b, c } => step::rkn(o, a, b_bar, b, c, h),
        Family::Composition {
            base: name,
            weights,
        } => {
            let m = base(name);
            for &w in weights {
                let w = o.lit(w);
                let h = o.mul(w, h);
                m.step(&mut Scaled { o, h });
            }
        }
        Family::Splitting(_) => unreachable!("splittings run as the built-in code"),
    }
}

/// Whether the method serves only separable H: splittings and Nyström methods, and
/// compositions over them.
pub fn needs_separable(d: &MethodDef) -> bool {
    match &d.family {
        Family::Splitting(_) | Family::Rkn { .. } => true,
        Family::Composition { base: name, .. } => base(name).needs_separable(),
        _ => false,
    }
}

/// Whether the method can serve `system` (after `Method::check_system`'s checks common to every
/// method): a splitting needs H = T(p) + V(q); a Nyström method also T quadratic, which is
/// tested as ∂H/∂p linear in p at the system's default state (exact for T = ½pᵀM⁻¹p, the
/// built-in separable systems' kinetic energy, and for `--hamiltonian` systems written so);
/// an implicit Nyström tableau is not run (`family = "prk"` runs any tableau pair).
pub fn check_system(d: &'static MethodDef, system: &System) -> Result<()> {
    let name = &d.name;
    match &d.family {
        Family::Splitting(_) if !system.separable() => Err(input_err!(
            "--method {name}: system '{}' is not separable (H ≠ T(p) + V(q)), and a splitting's kicks and drifts need separable H; use a composition or a prk method (e.g. gauss2, lobatto-iiia-iiib-3)",
            system.name()
        )),
        Family::Rkn { a, .. } => {
            let explicit = a.iter().enumerate().all(|(i, row)| row.iter().skip(i).all(|&x| x == 0.0));
            if !explicit {
                return Err(input_err!(
                    "--method {name}: an implicit Runge-Kutta-Nystrom tableau (a nonzero on or above the diagonal of a) is not run; write the method as family prk"
                ));
            }
            if !system.separable() || !kinetic_quadratic(system) {
                return Err(input_err!(
                    "--method {name}: a Runge-Kutta-Nystrom method needs H = T(p) + V(q) with T quadratic in p (∂H/∂p linear in p, e.g. T = p²/2m), which system '{}' is not; use family prk",
                    system.name()
                ));
            }
            Ok(())
        }
        Family::Composition { base: b, .. } => base(b).check_system(system),
        _ => Ok(()),
    }
}

/// Whether ∂H/∂p is linear in p at the system's default q: ∂H/∂p(q, 0) = 0 and
/// ∂H/∂p(q, x + 2y) = ∂H/∂p(q, x) + 2 ∂H/∂p(q, y), to rounding.
fn kinetic_quadratic(system: &System) -> bool {
    let d = system.dof();
    let q: Vec<f64> = system.default_state()[..d].to_vec();
    let x: Vec<f64> = (0..d).map(|k| 0.7 + 0.3 * k as f64).collect();
    let y: Vec<f64> = (0..d).map(|k| -0.4 + 0.2 * k as f64).collect();
    let xy: Vec<f64> = x.iter().zip(&y).map(|(a, b)| a + 2.0 * b).collect();
    let grad = |p: &[f64]| {
        let mut out = vec![0.0; d];
        system.grad_p(&q, p, &mut out);
        out
    };
    let (g0, gx, gy, gxy) = (grad(&vec![0.0; d]), grad(&x), grad(&y), grad(&xy));
    (0..d).all(|k| {
        let scale = gx[k].abs() + 2.0 * gy[k].abs() + 1.0;
        g0[k].abs() <= 1e-12 * scale && (gxy[k] - gx[k] - 2.0 * gy[k]).abs() <= 1e-12 * scale
    })
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
        let file_err = |message: String| Error::InputFile {
            path: path.to_path_buf(),
            message: format!("--method-file: {message}"),
        };
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
