//! `phaseflow show-modified-hamiltonian`: the correction terms of a method's modified
//! Hamiltonian (`method::modified`) as formulas.

use crate::cli::ShowModifiedArgs;
use crate::error::Result;
use crate::input_err;
use crate::method::modified::ModifiedHamiltonian;

use super::{resolve_method, resolve_system, RunFile};

/// Terms written out larger than this many nodes are printed with their shared
/// subexpressions named instead.
const INLINE_NODES: u64 = 2000;

/// The listing: H̃'s shape, H and each H_n as formulas, and with --dt the powers h^{n−1}.
pub fn show_modified(a: &ShowModifiedArgs) -> Result<String> {
    let mut file = RunFile::default();
    file.lay_system(&a.system)?;
    file.lay_method(&a.method, &a.method_file);
    let system = resolve_system(&file)?;
    let method = resolve_method(&file)?;
    if let Some(h) = a.dt.filter(|h| !(h.is_finite() && *h > 0.0)) {
        return Err(input_err!(
            "--dt must be a positive finite step size, got {h}"
        ));
    }
    let m = ModifiedHamiltonian::of_system(&system, method, a.order, "--order")?;
    let shape: String = m
        .terms()
        .iter()
        .map(|t| format!(" + h^{} {}", t.power, t.name()))
        .collect();
    let mut out = format!(
        "# modified Hamiltonian of {} for {}, {} correction term{}\nH~ = H{shape}\nH = {}\n",
        method.name(),
        system.describe(),
        a.order,
        if a.order == 1 { "" } else { "s" },
        m.h_text()
    );
    if m.printable(INLINE_NODES) {
        for (i, t) in m.terms().iter().enumerate() {
            out.push_str(&format!("{} = {}\n", t.name(), m.term_text(i)));
        }
    } else {
        // Written out, the terms would repeat their shared subexpressions exponentially often.
        let (texts, definitions) = m.shared_texts();
        for (t, text) in m.terms().iter().zip(texts) {
            out.push_str(&format!("{} = {text}\n", t.name()));
        }
        out.push_str("where, each subexpression the terms share written once:\n");
        for (n, body) in definitions {
            out.push_str(&format!("{n} = {body}\n"));
        }
    }
    for note in m.terms().iter().filter_map(|t| t.undecided_note()) {
        out.push_str(&format!("# {note}\n"));
    }
    if let Some(h) = a.dt {
        let at: String = m
            .terms()
            .iter()
            .map(|t| format!(" + {:e} {}", h.powi(t.power as i32), t.name()))
            .collect();
        out.push_str(&format!("at h = {h}: H~ = H{at}\n"));
    }
    Ok(out.trim_end().to_string())
}
