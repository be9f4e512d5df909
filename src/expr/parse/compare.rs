//! A comparison of two formulas (a stop condition, `--stop-when`): `A > B`, `A < B`, `A >= B`
//! or `A <= B`, one operator between two sums of the formula grammar (`super`), with `t` and
//! `H` bound to nodes of the same DAG.

use std::collections::BTreeMap;

use super::token::{tokenize, Tok, Token};
use super::{error_at, Parsed, Parser, Second};
use crate::error::Result;
use crate::expr::dag::{Dag, Var};

/// How a comparison compares its two sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compare {
    Greater,
    Less,
    GreaterEq,
    LessEq,
}

impl Compare {
    /// Its operator as written.
    pub fn text(self) -> &'static str {
        match self {
            Compare::Greater => ">",
            Compare::Less => "<",
            Compare::GreaterEq => ">=",
            Compare::LessEq => "<=",
        }
    }
}

/// A comparison `A > B`, `A < B`, `A >= B` or `A <= B` of two formulas of q1..qd, p1..pd (a
/// stop condition): parsed as `A - B` (`root`) and how it is compared with zero. Besides the
/// coordinates and the parameters, `t` is the variable q_{d+1} (`Var::Q(d)`) and `H`, where
/// `h` gives its formula and parameters, that formula. The comparison stands at the top only:
/// one operator between two sums.
pub fn parse_comparison(
    src: &str,
    params: &BTreeMap<String, f64>,
    dof: usize,
    h: Option<(&str, &BTreeMap<String, f64>)>,
) -> Result<(Parsed, Compare)> {
    let mut dag = Dag::new();
    let mut bound = vec![("t", dag.var(Var::Q(dof)))];
    if let Some((formula, h_params)) = h {
        let mut inner = Parser::over(formula, tokenize(formula)?, h_params, dag);
        let root = inner.sum()?;
        inner.check_dof(Some(dof))?;
        bound.push(("H", root));
        dag = inner.dag;
    }
    let mut parser = Parser::over(src, tokenize(src)?, params, dag);
    parser.bound = bound;
    if parser.peek() == &Tok::End {
        return Err(error_at(src, 0, "the condition is empty"));
    }
    let lhs = parser.sum()?;
    let compare = match parser.peek() {
        Tok::Op('>') => Compare::Greater,
        Tok::Op('<') => Compare::Less,
        _ => {
            return Err(parser.error(
                "expected a comparison here: >, <, >= or <= between two formulas (e.g. q1^2 + q2^2 > 100)",
            ))
        }
    };
    parser.next();
    let compare = match (compare, parser.peek()) {
        (Compare::Greater, Tok::Op('=')) => Compare::GreaterEq,
        (Compare::Less, Tok::Op('=')) => Compare::LessEq,
        (c, _) => c,
    };
    if matches!(compare, Compare::GreaterEq | Compare::LessEq) {
        parser.next();
    }
    let rhs = parser.sum()?;
    if parser.peek() != &Tok::End {
        return Err(parser.error(
            "expected the end of the condition here: one comparison between two formulas (give several conditions as several --stop-when)",
        ));
    }
    let root = parser.dag.sub(lhs, rhs);
    let dof = parser.check_dof(Some(dof))?;
    Ok((
        Parsed {
            dag: parser.dag,
            root,
            dof,
            used_params: parser.used_params.into_iter().collect(),
            literals: parser.literals,
        },
        compare,
    ))
}

impl<'a> Parser<'a> {
    /// A parser of momenta over `toks` of `src`, building into `dag`.
    fn over(src: &'a str, toks: Vec<Token>, params: &'a BTreeMap<String, f64>, dag: Dag) -> Self {
        Parser {
            src,
            second: Second::Momentum,
            toks,
            pos: 0,
            params,
            named: &[],
            dag,
            uses: Vec::new(),
            used_params: Default::default(),
            literals: Vec::new(),
            depth: 0,
            bound: Vec::new(),
        }
    }
}
