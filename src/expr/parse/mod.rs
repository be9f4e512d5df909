//! Text → DAG: a tokenizer and a recursive-descent parser that builds the (simplifying,
//! hash-consed) DAG of H directly, so the formula's tree exists only as the parser's call
//! tree. Grammar, loosest binding first:
//!
//! ```text
//! sum     = product (("+" | "-") product)*
//! product = unary (("*" | "/") unary)*
//! unary   = "-" unary | "+" unary | power
//! power   = atom ("^" unary)?            (right-associative: a^b^c = a^(b^c); -a^2 = -(a^2))
//! atom    = number | "pi" | name | function "(" sum ")" | "(" sum ")"
//! ```
//!
//! Names: `q`, `p` (one degree of freedom) or `q1..qd`, `p1..pd` (d ≤ `MAX_DOF`); in a
//! Lagrangian (`Second::Velocity`) the second set is the velocities `v`, `v1..vd` (also
//! written `qdot`, `qdot1..`), which take the momenta's place (`Var::P`); any other
//! name is a parameter, replaced by its value (so parameters are folded into constants). An
//! exponent that is a constant integer (after folding, e.g. `2`, `-3`, `n` with `--param n=2`)
//! gives an exact integer power, later written as products by repeated squaring, up to
//! `MAX_POWER` in magnitude; any other exponent b gives `exp(b·log(a))`, defined for a > 0
//! only. Every error is an input error whose message shows the formula with a caret under the
//! offending column.
//!
//! The parser is the only recursive pass over the formula (the DAG's passes walk its nodes in
//! id order), so `MAX_DEPTH` bounds its recursion: a formula nested deeper is refused before
//! it can exhaust the stack.

use std::collections::BTreeMap;

mod compare;
mod token;

pub use compare::{parse_comparison, Compare};

use super::dag::{Dag, Func, Id, Var};
use super::{MAX_DEPTH, MAX_DOF, MAX_POWER};
use crate::error::{Error, Field, Result};
pub(crate) use token::error_at;
use token::{tokenize, Tok, Token};

/// A parsed formula: its DAG, the root H and the number of degrees of freedom.
#[derive(Debug, Clone)]
pub struct Parsed {
    pub dag: Dag,
    pub root: Id,
    pub dof: usize,
    /// The parameters the formula names (a given one it does not name is the caller's error).
    pub used_params: Vec<String>,
    /// Every number the formula writes and every parameter it names, in order: what a
    /// constant the kernels' precision cannot hold is blamed on.
    pub literals: Vec<Literal>,
}

/// A number written in the formula, or a parameter's value, and where it stands.
#[derive(Debug, Clone, PartialEq)]
pub struct Literal {
    pub value: f64,
    /// Byte offset in the formula.
    pub at: usize,
    /// The parameter's name; `None` for a number.
    pub param: Option<String>,
}

/// How a coordinate was written: `q` (plain) or `q3` (indexed, 0-based index 2).
#[derive(Debug, Clone, Copy)]
struct Use {
    indexed: bool,
    index: usize,
    at: usize,
}

/// What the formula's second set of variables is: the momenta p of a Hamiltonian, or the
/// velocities v = q̇ of a Lagrangian. Both are `Var::P` in the DAG, so a Lagrangian's ∂L/∂v
/// and its directional derivatives come out where a Hamiltonian's ∂H/∂p do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Second {
    Momentum,
    Velocity,
}

impl Second {
    /// The letter the formula writes (`p`, `v`).
    pub fn letter(self) -> &'static str {
        match self {
            Second::Momentum => "p",
            Second::Velocity => "v",
        }
    }

    /// The variable `name` stands for, as (head, digits), if it is written with this set's
    /// letters: `q3` and `p3` (or `v3`, `qdot3`).
    fn split(self, name: &str) -> Option<(bool, &str)> {
        let (first, digits) = if self == Second::Velocity && name.starts_with("qdot") {
            (false, &name[4..])
        } else {
            let (head, digits) = name.split_at(1);
            match head {
                "q" => (true, digits),
                h if h == self.letter() => (false, digits),
                _ => return None,
            }
        };
        digits
            .bytes()
            .all(|b| b.is_ascii_digit())
            .then_some((first, digits))
    }
}

struct Parser<'a> {
    src: &'a str,
    /// Momenta or velocities.
    second: Second,
    toks: Vec<Token>,
    pos: usize,
    params: &'a BTreeMap<String, f64>,
    /// A built-in system's named constants (`Var::Named`, by their index).
    named: &'a [&'a str],
    dag: Dag,
    uses: Vec<Use>,
    used_params: std::collections::BTreeSet<String>,
    literals: Vec<Literal>,
    /// How many `unary` calls are open: the recursion's depth, at most `MAX_DEPTH`.
    depth: usize,
    /// Names bound to nodes of the DAG (a stop condition's `t` and `H`), read before
    /// parameters.
    bound: Vec<(&'a str, Id)>,
}

/// Parse `src` into a DAG. `dof`: the number of degrees of freedom if given (an index above
/// it is an error), else the largest index used (1 for `q`, `p`).
pub fn parse(src: &str, params: &BTreeMap<String, f64>, dof: Option<usize>) -> Result<Parsed> {
    parse_named(src, params, &[], dof)
}

/// `parse`, with the names in `named` read as a built-in system's named constants
/// (`Var::Named(k)` for `named[k]`): symbols whose values the system computes from its
/// parameters when it is built.
pub fn parse_named(
    src: &str,
    params: &BTreeMap<String, f64>,
    named: &[&str],
    dof: Option<usize>,
) -> Result<Parsed> {
    parse_with(src, params, named, dof, Second::Momentum)
}

/// `parse_named` with the second set of variables `second` (a Lagrangian's velocities).
pub fn parse_with(
    src: &str,
    params: &BTreeMap<String, f64>,
    named: &[&str],
    dof: Option<usize>,
    second: Second,
) -> Result<Parsed> {
    let toks = tokenize(src)?;
    let mut parser = Parser {
        src,
        second,
        toks,
        pos: 0,
        params,
        named,
        dag: Dag::new(),
        uses: Vec::new(),
        used_params: Default::default(),
        literals: Vec::new(),
        depth: 0,
        bound: Vec::new(),
    };
    if parser.peek() == &Tok::End {
        return Err(error_at(src, 0, "the formula is empty"));
    }
    let root = parser.sum()?;
    if parser.peek() != &Tok::End {
        let msg = match parser.peek() {
            Tok::Op(')') => "unbalanced ')': no '(' to close".to_string(),
            Tok::Op('(') => "'(' after a value (write '*' for a product)".to_string(),
            _ => "expected an operator (+ - * / ^) here; write '*' for a product".to_string(),
        };
        return Err(parser.error(&msg));
    }
    let dof = parser.check_dof(dof)?;
    Ok(Parsed {
        dag: parser.dag,
        root,
        dof,
        used_params: parser.used_params.into_iter().collect(),
        literals: parser.literals,
    })
}

impl Parser<'_> {
    fn peek(&self) -> &Tok {
        &self.toks[self.pos].tok
    }

    fn at(&self) -> usize {
        self.toks[self.pos].at
    }

    fn error(&self, message: &str) -> Error {
        error_at(self.src, self.at(), message)
    }

    fn next(&mut self) -> Token {
        let t = self.toks[self.pos].clone();
        if t.tok != Tok::End {
            self.pos += 1;
        }
        t
    }

    /// Refuse a node that folded to a non-finite constant (e.g. `log(0)`), blaming `at`.
    fn finite(&self, id: Id, at: usize, what: &str) -> Result<Id> {
        match self.dag.value(id) {
            Some(x) if !x.is_finite() => Err(error_at(
                self.src,
                at,
                &format!("{what} of constants is {x}, not a finite number"),
            )),
            _ => Ok(id),
        }
    }

    fn sum(&mut self) -> Result<Id> {
        let mut acc = self.product()?;
        while let Tok::Op(c @ ('+' | '-')) = *self.peek() {
            let at = self.next().at;
            let rhs = self.product()?;
            acc = if c == '+' {
                self.dag.add(acc, rhs)
            } else {
                self.dag.sub(acc, rhs)
            };
            acc = self.finite(acc, at, "this sum")?;
        }
        Ok(acc)
    }

    fn product(&mut self) -> Result<Id> {
        let mut acc = self.unary()?;
        while let Tok::Op(c @ ('*' | '/')) = *self.peek() {
            let at = self.next().at;
            if self.peek() == &Tok::Op('*') {
                return Err(self.error("'**' is not an operator: write '^' for a power"));
            }
            let rhs = self.unary()?;
            if c == '/' && self.dag.is(rhs, 0.0) {
                return Err(error_at(self.src, at, "division by a constant zero"));
            }
            acc = if c == '*' {
                self.dag.mul(acc, rhs)
            } else {
                self.dag.div(acc, rhs)
            };
            acc = self.finite(acc, at, "this product")?;
        }
        Ok(acc)
    }

    /// Every nested construct (a parenthesis, a call's argument, a sign, an exponent) recurses
    /// through here, so its depth is the formula's nesting depth.
    fn unary(&mut self) -> Result<Id> {
        if self.depth == MAX_DEPTH {
            return Err(self.error(&format!(
                "the formula nests deeper than {MAX_DEPTH} levels here (parentheses, function calls, signs and powers inside one another); write it with less nesting"
            )));
        }
        self.depth += 1;
        let id = self.signed();
        self.depth -= 1;
        id
    }

    fn signed(&mut self) -> Result<Id> {
        match self.peek() {
            Tok::Op('-') => {
                self.next();
                let a = self.unary()?;
                Ok(self.dag.neg(a))
            }
            Tok::Op('+') => {
                self.next();
                self.unary()
            }
            _ => self.power(),
        }
    }

    fn power(&mut self) -> Result<Id> {
        let base = self.atom()?;
        if self.peek() != &Tok::Op('^') {
            return Ok(base);
        }
        let at = self.next().at;
        let exponent = self.unary()?;
        let id = match (self.dag.value(base), self.dag.value(exponent)) {
            (_, Some(n)) if n.fract() == 0.0 && n.abs() <= f64::from(MAX_POWER) => {
                if n < 0.0 && self.dag.is(base, 0.0) {
                    return Err(error_at(
                        self.src,
                        at,
                        "a negative power of a constant zero",
                    ));
                }
                self.dag.powi(base, n as i32)
            }
            // A constant to a larger integer power: powf is exact in sign for a negative base.
            (Some(a), Some(n)) if n.fract() == 0.0 => self.dag.constant(a.powf(n)),
            (None, Some(n)) if n.fract() == 0.0 => {
                return Err(error_at(
                    self.src,
                    at,
                    &format!("the exponent {n} is too large: integer powers go up to ±{MAX_POWER}"),
                ))
            }
            _ => {
                let log = self.dag.call(Func::Log, base);
                let product = self.dag.mul(exponent, log);
                self.dag.call(Func::Exp, product)
            }
        };
        self.finite(id, at, "this power")
    }

    fn atom(&mut self) -> Result<Id> {
        let token = self.next();
        match token.tok {
            Tok::Num(x) => {
                self.literals.push(Literal {
                    value: x,
                    at: token.at,
                    param: None,
                });
                Ok(self.dag.constant(x))
            }
            Tok::Name(name) => self.name(&name, token.at),
            Tok::Op('(') => {
                let inner = self.sum()?;
                self.close(token.at)?;
                Ok(inner)
            }
            Tok::End => {
                self.pos = self.toks.len() - 1;
                Err(self.error("the formula ends where a value is expected (a trailing operator?)"))
            }
            Tok::Op(c) => {
                self.pos -= 1;
                Err(self.error(&format!("'{c}' where a value is expected")))
            }
        }
    }

    /// Expect the ')' closing the '(' at `open`.
    fn close(&mut self, open: usize) -> Result<()> {
        match self.peek() {
            Tok::Op(')') => {
                self.next();
                Ok(())
            }
            Tok::End => Err(error_at(
                self.src,
                open,
                "unbalanced '(': it is never closed",
            )),
            _ => Err(self.error("expected ')' or an operator here")),
        }
    }

    /// A name: a function call, `pi`, a coordinate or a parameter.
    fn name(&mut self, name: &str, at: usize) -> Result<Id> {
        if self.peek() == &Tok::Op('(') {
            return self.call(name, at);
        }
        if let Some(v) = self.coordinate(name, at)? {
            return Ok(self.dag.var(v));
        }
        if name == "pi" {
            return Ok(self.dag.constant(std::f64::consts::PI));
        }
        if let Some(k) = self.named.iter().position(|&n| n == name) {
            return Ok(self.dag.var(Var::Named(k)));
        }
        if let Some(&(_, id)) = self.bound.iter().find(|(n, _)| *n == name) {
            return Ok(id);
        }
        if Func::from_name(name).is_some() {
            return Err(error_at(
                self.src,
                at,
                &format!("'{name}' is a function: write {name}(...)"),
            ));
        }
        match self.params.get(name) {
            Some(&x) => {
                self.used_params.insert(name.to_string());
                self.literals.push(Literal {
                    value: x,
                    at,
                    param: Some(name.to_string()),
                });
                Ok(self.dag.constant(x))
            }
            None => {
                let l = self.second.letter();
                Err(error_at(
                    self.src,
                    at,
                    &format!(
                        "unknown name '{name}': neither a coordinate (q, {l} or q1.., {l}1..) \
                         nor a parameter; give it with --param {name}=VALUE"
                    ),
                ))
            }
        }
    }

    /// `f(argument)` with the name at `at` and the '(' next.
    fn call(&mut self, name: &str, at: usize) -> Result<Id> {
        let Some(f) = Func::from_name(name) else {
            let known: Vec<&str> = Func::ALL.iter().map(|f| f.name()).collect();
            return Err(error_at(
                self.src,
                at,
                &format!(
                    "unknown function '{name}' (the functions: {})",
                    known.join(" ")
                ),
            ));
        };
        let open = self.next().at;
        if self.peek() == &Tok::Op(')') {
            return Err(self.error(&format!("{name} takes one argument")));
        }
        let arg = self.sum()?;
        if self.peek() == &Tok::Op(',') {
            return Err(self.error(&format!("{name} takes one argument")));
        }
        self.close(open)?;
        let id = self.dag.call(f, arg);
        self.finite(id, at, name)
    }

    /// The variable `name` stands for, if it is a coordinate (`q`, `p`, `q3`, `p12`; in a
    /// Lagrangian `v`, `v3`, `qdot3` for the velocities).
    fn coordinate(&mut self, name: &str, at: usize) -> Result<Option<Var>> {
        let Some((first, digits)) = self.second.split(name) else {
            return Ok(None);
        };
        let (indexed, index) = if digits.is_empty() {
            (false, 0)
        } else {
            match digits.parse::<usize>() {
                Ok(k) if (1..=MAX_DOF).contains(&k) => (true, k - 1),
                // All digits: a parse error is an index too large for usize.
                Err(_) | Ok(_) if digits.bytes().any(|b| b != b'0') => {
                    return Err(error_at(
                        self.src,
                        at,
                        &format!("'{name}': {}", dof_cap_text()),
                    ));
                }
                _ => {
                    return Err(error_at(
                        self.src,
                        at,
                        &format!("'{name}': indices start at 1"),
                    ));
                }
            }
        };
        self.uses.push(Use { indexed, index, at });
        Ok(Some(if first { Var::Q(index) } else { Var::P(index) }))
    }

    /// The number of degrees of freedom, checking how the coordinates were written.
    fn check_dof(&self, dof: Option<usize>) -> Result<usize> {
        if let (Some(a), Some(b)) = (
            self.uses.iter().find(|u| u.indexed),
            self.uses.iter().find(|u| !u.indexed),
        ) {
            let later = if a.at > b.at { a.at } else { b.at };
            let l = self.second.letter();
            return Err(error_at(
                self.src,
                later,
                &format!(
                    "'q'/'{l}' mixed with indexed 'q1', '{l}1'..: write all of them with an index"
                ),
            ));
        }
        let largest = self.uses.iter().map(|u| u.index + 1).max().unwrap_or(1);
        match dof {
            Some(0) => Err(crate::invalid!(Field::Dof;
                Field::Dof.is(0),
                ": the number of degrees of freedom must be at least 1"
            )),
            Some(d) if d > MAX_DOF => Err(crate::invalid!(Field::Dof;
                format!("{d} degrees of freedom ("),
                Field::Dof,
                format!(", or a system file's dof): {}", dof_cap_text())
            )),
            Some(d) => {
                if let Some(u) = self.uses.iter().find(|u| u.index >= d) {
                    return Err(error_at(
                        self.src,
                        u.at,
                        &format!(
                            "index {} is above the {d} degrees of freedom given",
                            u.index + 1
                        ),
                    ));
                }
                if d > 1 {
                    if let Some(u) = self.uses.iter().find(|u| !u.indexed) {
                        return Err(error_at(
                            self.src,
                            u.at,
                            &format!(
                                "with {d} degrees of freedom, write q1..q{d}, {l}1..{l}{d}",
                                l = self.second.letter()
                            ),
                        ));
                    }
                }
                Ok(d)
            }
            None => Ok(largest),
        }
    }
}

/// Why d is capped, for the messages that refuse a larger one.
fn dof_cap_text() -> String {
    format!(
        "a formula has at most {MAX_DOF} degrees of freedom (q1..q{MAX_DOF}), the size of the largest built-in system (spring-chain with 64 masses) that the CPU and GPU kernels are built for"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_dof(src: &str) -> Result<usize> {
        parse(src, &BTreeMap::new(), None).map(|p| p.dof)
    }

    #[test]
    fn numbers_and_dof() {
        assert_eq!(parse_dof("1e-3*q^2 + .5*p^2 + 2").unwrap(), 1);
        assert_eq!(parse_dof("q3 + p1").unwrap(), 3);
        assert_eq!(parse_dof("1.5E+2").unwrap(), 1);
    }

    #[test]
    fn precedence_and_associativity() {
        let params = BTreeMap::new();
        let value = |src: &str| {
            let parsed = parse(src, &params, None).unwrap();
            parsed.dag.value(parsed.root).unwrap()
        };
        assert_eq!(value("2^3^2"), 512.0);
        assert_eq!(value("-2^2"), -4.0);
        assert_eq!(value("2^-1"), 0.5);
        assert_eq!(value("1 - 2 - 3"), -4.0);
        assert_eq!(value("8 / 4 / 2"), 1.0);
        assert_eq!(value("2 * (3 + 4)"), 14.0);
        assert_eq!(value("pi"), std::f64::consts::PI);
    }

    #[test]
    fn caret_under_the_column() {
        let e = parse_dof("p^2 + foo(q)").unwrap_err().to_string();
        assert!(e.contains("unknown function 'foo'"), "{e}");
        assert!(e.contains("\n  p^2 + foo(q)\n        ^"), "{e}");
    }
}
