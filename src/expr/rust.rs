//! Rust generation: a built-in system's CPU functions (H in f64, the block gradients and
//! their directional derivatives, the fused force + tangent columns) as straight-line Rust
//! from the same lowered DAG that `wgsl` writes the system's shaders from. The text is checked
//! in (`src/system/generated/<name>.rs`) and a test holds it equal to what this module writes
//! (`system::generated`), so the compiler sees plain loops: one `let` per operation inside a
//! loop over the block's points, which LLVM vectorises like a hand-written loop.
//!
//! The named constants (`Var::Named(k)`) are `c[k]`, computed in f64 from the parameters when
//! the system is built and converted to the kernel's float once per call, as the prelude
//! constants are on the GPU. sin and cos are the crate's `sin_poly` / `cos_poly` (the GPU's
//! polynomials) and sqrt is `Real::sqrt`; the other functions go through f64 and the
//! standard library, as `program` does.

use std::fmt::Write as _;

use super::dag::{Dag, Func, Id, Node, Var};
use super::diff::lower_powers;
use super::wgsl::{expression, f64_unsupported};

/// Points per run of the fused force + tangent functions: the per-point values every tangent
/// column reads are kept for a run (in arrays on the stack) while the columns are swept.
const RUN: usize = 64;

/// How the generated text spells things in one function.
#[derive(Clone, Copy, PartialEq)]
enum Flavour {
    /// `T: Real` block loops: inputs `q0[i]`, polynomials for sin and cos.
    Block,
    /// The f64 energy of one point: inputs `q[k]`, the standard library's functions.
    Point,
    /// The f64 energy of a block: inputs converted from `T`, the f64 polynomials.
    EnergyBlock,
}

/// What the module of a built-in system of `d` degrees of freedom is written from: `h` (H,
/// `energy` at one point in f64) and its derivatives in `dag` (`grad_q`, `grad_p`,
/// `grad_q_dir`, `grad_p_dir`, `grad_q_tangent`, `grad_p_tangent`, `GPU_F64_MISSING`), and
/// `energy` in `energy_dag`: the H the statistics evaluate (`energy_block`), H itself or H
/// rewritten without a cancellation.
pub struct Functions<'a> {
    pub dag: &'a Dag,
    pub d: usize,
    pub h: Id,
    pub grad_q: &'a [Id],
    pub grad_p: &'a [Id],
    pub grad_q_dir: &'a [Id],
    pub grad_p_dir: &'a [Id],
    pub energy_dag: &'a Dag,
    pub energy: Id,
}

/// The generated module (see `Functions`), headed by `header` (comment lines).
pub fn module(f: &Functions, header: &str) -> String {
    let mut dag = f.dag.clone();
    let mut energy_dag = f.energy_dag.clone();
    let kernel: Vec<Id> = [f.grad_q, f.grad_p, f.grad_q_dir, f.grad_p_dir].concat();
    let missing = match f64_unsupported(&dag, &kernel) {
        Some(name) => format!("Some({name:?})"),
        None => "None".to_string(),
    };
    let mut s = header.to_string();
    // Plain index loops over slices of one length (bounds checks elided, loops vectorised),
    // offsets written out even where they are 0, and the inputs each function is handed.
    s.push_str(
        "#![allow(clippy::needless_range_loop, clippy::identity_op, clippy::erasing_op)]\n\
         #![allow(clippy::too_many_lines, clippy::let_and_return, clippy::manual_memcpy, unused_variables)]\n\nuse crate::float::Real;\n",
    );
    let _ = writeln!(
        s,
        "\n/// Degrees of freedom.\npub const D: usize = {};\n\n/// The first function the \
         integration kernels call that Vulkan lacks in f64 (`None`: f64 GPU kernels compile).\n\
         pub const GPU_F64_MISSING: Option<&str> = {missing};",
        f.d
    );
    let h = lower_powers(&mut dag, &[f.h])[0];
    s.push_str(&point_energy(&dag, h));
    let energy = lower_powers(&mut energy_dag, &[f.energy])[0];
    s.push_str(&block_energy(&energy_dag, energy));
    for (name, outputs) in [("grad_q", f.grad_q), ("grad_p", f.grad_p)] {
        let outputs = lower_powers(&mut dag, outputs);
        s.push_str(&block_function(&dag, name, false, &outputs, f.d));
    }
    for (name, outputs) in [("grad_q_dir", f.grad_q_dir), ("grad_p_dir", f.grad_p_dir)] {
        let outputs = lower_powers(&mut dag, outputs);
        s.push_str(&block_function(&dag, name, true, &outputs, f.d));
    }
    for (name, own, dir) in [
        ("grad_q", f.grad_q, f.grad_q_dir),
        ("grad_p", f.grad_p, f.grad_p_dir),
    ] {
        let own = lower_powers(&mut dag, own);
        let dir = lower_powers(&mut dag, dir);
        s.push_str(&tangent_function(&dag, name, &own, &dir, f.d));
    }
    s
}

/// How node `id` is read in `flavour`.
fn operand(dag: &Dag, id: Id, flavour: Flavour) -> String {
    match dag.node(id) {
        Node::Const(bits) => {
            let x = f64::from_bits(bits);
            match flavour {
                Flavour::Block => format!("T::from_f64({x:?})"),
                Flavour::Point | Flavour::EnergyBlock => format!("{x:?}_f64"),
            }
        }
        Node::Var(v) => match (v, flavour) {
            (Var::Named(k), Flavour::Block) => format!("c{k}"),
            (Var::Named(k), _) => format!("c[{k}]"),
            (Var::Q(k), Flavour::Point) => format!("q[{k}]"),
            (Var::P(k), Flavour::Point) => format!("p[{k}]"),
            (Var::Q(k), Flavour::EnergyBlock) => format!("x_q{k}"),
            (Var::P(k), Flavour::EnergyBlock) => format!("x_p{k}"),
            (Var::Q(k), _) => format!("q{k}[i]"),
            (Var::P(k), _) => format!("p{k}[i]"),
            (Var::Vq(k), _) => format!("vq{k}[i]"),
            (Var::Vp(k), _) => format!("vp{k}[i]"),
        },
        _ => format!("t{id}"),
    }
}

/// The right-hand side of operation `id` in `flavour`, or `None` for a leaf.
fn operation(dag: &Dag, id: Id, flavour: Flavour) -> Option<String> {
    expression(
        dag.node(id),
        |a| operand(dag, a, flavour),
        |f, x| call(f, &x, flavour),
        match flavour {
            Flavour::Block => "T::ONE",
            Flavour::Point | Flavour::EnergyBlock => "1.0_f64",
        },
    )
}

/// A call of `f` on `x` in `flavour`.
fn call(f: Func, x: &str, flavour: Flavour) -> String {
    let std_name = match f {
        Func::Log => "ln",
        other => other.name(),
    };
    match (f, flavour) {
        (_, Flavour::Point) => format!("f64::{std_name}({x})"),
        (Func::Sin, _) => format!("crate::float::sin_poly({x})"),
        (Func::Cos, _) => format!("crate::float::cos_poly({x})"),
        (Func::Sqrt, Flavour::Block) => format!("{x}.sqrt()"),
        (Func::Sqrt, _) => format!("f64::sqrt({x})"),
        (_, Flavour::Block) => format!("T::from_f64(f64::{std_name}({x}.to_f64()))"),
        (_, Flavour::EnergyBlock) => format!("f64::{std_name}({x})"),
    }
}

/// One `let` per operation of `nodes`, indented by `indent`.
fn lets(dag: &Dag, nodes: &[Id], flavour: Flavour, indent: &str) -> String {
    let mut s = String::new();
    for &id in nodes {
        if let Some(value) = operation(dag, id, flavour) {
            let _ = writeln!(s, "{indent}let t{id} = {value};");
        }
    }
    s
}

/// The inputs (and named constants) that `nodes` read.
fn inputs(dag: &Dag, nodes: &[Id]) -> Vec<Var> {
    let mut vars: Vec<Var> = nodes
        .iter()
        .filter_map(|&id| match dag.node(id) {
            Node::Var(v) => Some(v),
            _ => None,
        })
        .collect();
    vars.sort();
    vars.dedup();
    vars
}

/// `pub fn energy(c: &[f64], q: &[f64], p: &[f64]) -> f64`: H at one point with the
/// standard library's functions (the reference the block's polynomials are held to).
fn point_energy(dag: &Dag, h: Id) -> String {
    let order = dag.reachable(&[h]);
    let mut s = "\n/// H at one point, in f64 (the standard library's functions).\n\
                 pub fn energy(c: &[f64], q: &[f64], p: &[f64]) -> f64 {\n"
        .to_string();
    s.push_str(&lets(dag, &order, Flavour::Point, "    "));
    let _ = writeln!(s, "    {}\n}}", operand(dag, h, Flavour::Point));
    s
}

/// `pub fn energy_block`: H in f64 of the points `first..first + out.len()` of a
/// component-major block of `n` points, one vectorisable loop with the f64 polynomials; false
/// where a sine or cosine argument left the polynomials' accurate range (the caller then
/// evaluates the block point by point through `energy`).
fn block_energy(dag: &Dag, h: Id) -> String {
    let order = dag.reachable(&[h]);
    let mut s = "\n/// H in f64 of the points `first..first + out.len()` of a component-major block of \
                 `n` points\n/// (components k ≥ D are not read), vectorised; false where a sine or cosine argument left the\n\
                 /// polynomials' accurate range.\n\
                 #[inline(always)]\n\
                 pub fn energy_block<T: Real>(c: &[f64], q: &[T], p: &[T], n: usize, first: usize, out: &mut [f64]) -> bool {\n\
                 \x20   let len = out.len();\n"
        .to_string();
    let points: Vec<(&str, usize)> = inputs(dag, &order)
        .into_iter()
        .filter_map(|v| match v {
            Var::Q(k) => Some(("q", k)),
            Var::P(k) => Some(("p", k)),
            _ => None,
        })
        .collect();
    for &(array, k) in &points {
        let _ = writeln!(
            s,
            "    let {array}{k} = &{array}[{k} * n + first..][..len];"
        );
    }
    let trig: Vec<Id> = order
        .iter()
        .filter_map(|&id| match dag.node(id) {
            Node::Call(Func::Sin | Func::Cos, a) => Some(a),
            _ => None,
        })
        .collect();
    if !trig.is_empty() {
        s.push_str("    let mut far = false;\n");
    }
    s.push_str("    for i in 0..len {\n");
    for &(array, k) in &points {
        let _ = writeln!(s, "        let x_{array}{k} = {array}{k}[i].to_f64();");
    }
    s.push_str(&lets(dag, &order, Flavour::EnergyBlock, "        "));
    for a in trig {
        let x = operand(dag, a, Flavour::EnergyBlock);
        let _ = writeln!(
            s,
            "        far |= f64::abs({x}) > crate::float::SIN_POLY_F64_RANGE;"
        );
    }
    let _ = writeln!(
        s,
        "        out[i] = {};\n    }}",
        operand(dag, h, Flavour::EnergyBlock)
    );
    s.push_str(if s.contains("let mut far") {
        "    !far\n}\n"
    } else {
        "    true\n}\n"
    });
    s
}

/// The `let` lines that convert the named constants `vars` reads to `T`, and slice the inputs
/// `n` points apart from offset `offset` (the block's or a run's).
fn prologue(vars: &[Var], offset: &str, len: &str, column: bool) -> String {
    let mut s = String::new();
    for &v in vars {
        let line = match v {
            Var::Named(k) => format!("let c{k} = T::from_f64(c[{k}]);"),
            Var::Q(k) => format!("let q{k} = &q[{k} * n + {offset}..][..{len}];"),
            Var::P(k) => format!("let p{k} = &p[{k} * n + {offset}..][..{len}];"),
            Var::Vq(k) if column => {
                format!("let vq{k} = &q[j * nd + {k} * n + {offset}..][..{len}];")
            }
            Var::Vp(k) if column => {
                format!("let vp{k} = &p[j * nd + {k} * n + {offset}..][..{len}];")
            }
            Var::Vq(k) => format!("let vq{k} = &vq[{k} * n + {offset}..][..{len}];"),
            Var::Vp(k) => format!("let vp{k} = &vp[{k} * n + {offset}..][..{len}];"),
        };
        let _ = writeln!(s, "    {line}");
    }
    s
}

/// The output slices `o0..o{d-1}`: of the `d` components `n` apart from `base` in `out`,
/// each from `offset`, `len` long (split off one another: they are borrowed together).
fn outputs(d: usize, base: &str, offset: &str, len: &str) -> String {
    let mut s = format!("    let rest = &mut out[{base}..];\n");
    for k in 0..d {
        let _ = writeln!(
            s,
            "    let (o{k}, rest) = rest.split_at_mut(n);\n    let o{k} = &mut o{k}[{offset}..][..{len}];"
        );
    }
    s
}

/// `pub fn {name}<T: Real>(c, q, p[, vq, vp], out)`: one loop over the block's points.
fn block_function(dag: &Dag, name: &str, directional: bool, outs: &[Id], d: usize) -> String {
    let order = dag.reachable(outs);
    let extra = if directional {
        ", vq: &[T], vp: &[T]"
    } else {
        ""
    };
    let mut s = format!(
        "\n#[inline(always)]\n\
         pub fn {name}<T: Real>(c: &[f64], q: &[T], p: &[T]{extra}, out: &mut [T]) {{\n\
         \x20   let n = out.len() / D;\n"
    );
    s.push_str(&prologue(&inputs(dag, &order), "0", "n", false));
    s.push_str(&outputs(d, "0", "0", "n"));
    s.push_str("    for i in 0..n {\n");
    s.push_str(&lets(dag, &order, Flavour::Block, "        "));
    for (k, &o) in outs.iter().enumerate() {
        let _ = writeln!(s, "        o{k}[i] = {};", operand(dag, o, Flavour::Block));
    }
    s.push_str("    }\n}\n");
    s
}

/// Whether each node of `order` reads a tangent input (vq, vp), directly or through operands.
fn tangent_dependent(dag: &Dag, order: &[Id]) -> Vec<bool> {
    let mut dependent = vec![false; dag.len()];
    for &id in order {
        dependent[id] = match dag.node(id) {
            Node::Var(Var::Vq(_) | Var::Vp(_)) => true,
            node => node.operands().iter().any(|&a| dependent[a]),
        };
    }
    dependent
}

/// `pub fn {name}_tangent<T: Real>(c, nd, q, p, out)`: `{name}` of a block's `nd` point
/// components, then for each tangent column stored after them its directional derivative
/// (`Hamiltonian::grad_q_tangent`). The directional derivatives' operations that do not read
/// the column (the Hessian's entries: the pendulum's cosine) are computed once per point, in
/// runs of `RUN` points, and each column only multiplies and adds: the same operations as
/// `{name}` and `{name}_dir`, so the same results.
fn tangent_function(dag: &Dag, name: &str, own: &[Id], dir: &[Id], d: usize) -> String {
    let dir_order = dag.reachable(dir);
    let dependent = tangent_dependent(dag, &dir_order);
    // the column-independent operations the column's operations read
    let mut kept: Vec<Id> = dir_order
        .iter()
        .filter(|&&id| dependent[id])
        .flat_map(|&id| dag.node(id).operands())
        .filter(|&a| !dependent[a] && operation(dag, a, Flavour::Block).is_some())
        .collect();
    kept.sort_unstable();
    kept.dedup();
    let per_point: Vec<Id> = {
        let mut roots = own.to_vec();
        roots.extend(&kept);
        dag.reachable(&roots)
    };
    let per_column: Vec<Id> = dir_order
        .iter()
        .copied()
        .filter(|&id| dependent[id])
        .collect();
    let mut s = format!(
        "\n/// `{name}` of the block's `nd` point components, then `{name}_dir` of each tangent \
         column after them,\n/// the column-independent values computed once per point.\n\
         #[inline(always)]\n\
         pub fn {name}_tangent<T: Real>(c: &[f64], nd: usize, q: &[T], p: &[T], out: &mut [T]) {{\n\
         \x20   if q.len() == nd {{\n        return {name}(c, q, p, out);\n    }}\n\
         \x20   const RUN: usize = {RUN};\n    let n = nd / D;\n"
    );
    let named: Vec<Var> = inputs(dag, &dag.reachable(&[own, dir].concat()))
        .into_iter()
        .filter(|v| matches!(v, Var::Named(_)))
        .collect();
    s.push_str(&prologue(&named, "0", "n", false));
    for &id in &kept {
        let _ = writeln!(s, "    let mut k{id} = [T::ZERO; RUN];");
    }
    s.push_str("    for start in (0..n).step_by(RUN) {\n        let len = (n - start).min(RUN);\n");
    let indent = |text: String| -> String { text.lines().map(|l| format!("    {l}\n")).collect() };
    let point_inputs: Vec<Var> = inputs(dag, &per_point)
        .into_iter()
        .filter(|v| !matches!(v, Var::Named(_)))
        .collect();
    s.push_str(&indent(prologue(&point_inputs, "start", "len", false)));
    s.push_str(&indent(outputs(d, "0", "start", "len")));
    s.push_str("        for i in 0..len {\n");
    s.push_str(&lets(dag, &per_point, Flavour::Block, "            "));
    for (k, &o) in own.iter().enumerate() {
        let _ = writeln!(
            s,
            "            o{k}[i] = {};",
            operand(dag, o, Flavour::Block)
        );
    }
    for &id in &kept {
        let _ = writeln!(s, "            k{id}[i] = t{id};");
    }
    s.push_str("        }\n        for j in 1..q.len() / nd {\n");
    let column_inputs: Vec<Var> = inputs(dag, &per_column)
        .into_iter()
        .filter(|v| !matches!(v, Var::Named(_)))
        .collect();
    let column = prologue(&column_inputs, "start", "len", true);
    s.push_str(&indent(indent(column)));
    s.push_str(&indent(indent(outputs(d, "j * nd", "start", "len"))));
    s.push_str("            for i in 0..len {\n");
    for &id in &kept {
        let _ = writeln!(s, "                let t{id} = k{id}[i];");
    }
    s.push_str(&lets(dag, &per_column, Flavour::Block, "                "));
    for (k, &o) in dir.iter().enumerate() {
        let _ = writeln!(
            s,
            "                o{k}[i] = {};",
            operand(dag, o, Flavour::Block)
        );
    }
    s.push_str("            }\n        }\n    }\n}\n");
    s
}
