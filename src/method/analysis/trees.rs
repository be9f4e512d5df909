//! Rooted trees for the order conditions, generated once per kind up to `MAX_ORDER` in
//! canonical form: a tree is its root's colour and the sorted multiset of its children's ids,
//! and every tree is stored as its `prefix` (the same tree without its last child) and that
//! `last` child, so that an elementary weight is one product per tree (`order.rs`).
//!
//! Colours follow the partitioned system q' = ∂H/∂p (black), p' = −∂H/∂q (white) (GNI III.2):
//! a black vertex is a term of the q equation, a white one of the p equation.

use std::collections::HashMap;
use std::sync::OnceLock;

/// The highest order the conditions are generated for (an order-8 composition ships).
pub const MAX_ORDER: u32 = 8;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Colour {
    /// A term of the q equation (∂H/∂p), weighted by the q tableau.
    Black,
    /// A term of the p equation (−∂H/∂q), weighted by the p tableau.
    White,
}

/// Which trees a family's conditions run over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Rooted trees (one colour): Runge–Kutta methods on any y' = f(y).
    Mono,
    /// Bicoloured trees: partitioned methods on any H.
    Bicoloured,
    /// Bicoloured trees whose edges join different colours: separable H = T(p) + V(q), where
    /// ∂H/∂p does not depend on q nor ∂H/∂q on p.
    Alternating,
    /// Alternating trees whose black vertices have at most one child: T quadratic, so ∂H/∂p is
    /// linear in p (the special Nyström trees of q'' = g(q), black = meagre, white = fat).
    Nystrom,
}

impl Kind {
    fn roots(self) -> &'static [Colour] {
        match self {
            Kind::Mono => &[Colour::Black],
            _ => &[Colour::Black, Colour::White],
        }
    }

    fn child_allowed(self, parent: Colour, child: Colour) -> bool {
        match self {
            Kind::Mono | Kind::Bicoloured => true,
            Kind::Alternating | Kind::Nystrom => parent != child,
        }
    }

    fn max_children(self, colour: Colour) -> usize {
        match (self, colour) {
            (Kind::Nystrom, Colour::Black) => 1,
            _ => usize::MAX,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Tree {
    pub colour: Colour,
    /// Number of vertices: the power of h the condition governs.
    pub order: u32,
    /// The children's ids, sorted.
    pub children: Vec<u32>,
    /// This tree without its last child (`None` for a single vertex).
    pub prefix: Option<u32>,
    /// The density γ(t): the exact solution's weight is 1/γ(t).
    pub gamma: f64,
}

impl Tree {
    pub fn last(&self) -> Option<u32> {
        self.children.last().copied()
    }
}

/// Every tree of one kind up to `MAX_ORDER`, ordered by order (so a tree's prefix and
/// children come before it).
pub struct Forest {
    pub trees: Vec<Tree>,
}

impl Forest {
    /// The forest of a kind, generated on first use.
    pub fn get(kind: Kind) -> &'static Forest {
        static MONO: OnceLock<Forest> = OnceLock::new();
        static BI: OnceLock<Forest> = OnceLock::new();
        static ALT: OnceLock<Forest> = OnceLock::new();
        static NY: OnceLock<Forest> = OnceLock::new();
        let cell = match kind {
            Kind::Mono => &MONO,
            Kind::Bicoloured => &BI,
            Kind::Alternating => &ALT,
            Kind::Nystrom => &NY,
        };
        cell.get_or_init(|| Forest::generate(kind, MAX_ORDER))
    }

    fn generate(kind: Kind, max_order: u32) -> Forest {
        let mut trees: Vec<Tree> = Vec::new();
        let mut ids: HashMap<(Colour, Vec<u32>), u32> = HashMap::new();
        for order in 1..=max_order {
            let before = trees.len();
            for &colour in kind.roots() {
                let mut sets = Vec::new();
                multisets(
                    &trees[..before],
                    order - 1,
                    0,
                    kind.max_children(colour),
                    &mut |t| kind.child_allowed(colour, t.colour),
                    &mut Vec::new(),
                    &mut sets,
                );
                for children in sets {
                    let prefix = children
                        .split_last()
                        .map(|(_, rest)| ids[&(colour, rest.to_vec())]);
                    let gamma = order as f64
                        * children
                            .iter()
                            .map(|&c| trees[c as usize].gamma)
                            .product::<f64>();
                    ids.insert((colour, children.clone()), trees.len() as u32);
                    trees.push(Tree {
                        colour,
                        order,
                        children,
                        prefix,
                        gamma,
                    });
                }
            }
        }
        Forest { trees }
    }

    /// The tree in bracket notation: a black vertex `•`, a white one `∘`, children in
    /// brackets after their parent (`•[•,∘[•]]`).
    pub fn bracket(&self, id: u32) -> String {
        let t = &self.trees[id as usize];
        let mut s = String::from(match t.colour {
            Colour::Black => "•",
            Colour::White => "∘",
        });
        if !t.children.is_empty() {
            let inner: Vec<String> = t.children.iter().map(|&c| self.bracket(c)).collect();
            s.push('[');
            s.push_str(&inner.join(","));
            s.push(']');
        }
        s
    }
}

/// Every sorted multiset of trees (ids from `from` on) whose orders sum to `remaining`, with
/// at most `room` members, each allowed by `allowed`, appended to `out`.
fn multisets(
    trees: &[Tree],
    remaining: u32,
    from: usize,
    room: usize,
    allowed: &mut dyn FnMut(&Tree) -> bool,
    current: &mut Vec<u32>,
    out: &mut Vec<Vec<u32>>,
) {
    if remaining == 0 {
        out.push(current.clone());
        return;
    }
    if room == 0 {
        return;
    }
    for id in from..trees.len() {
        let t = &trees[id];
        if t.order > remaining {
            break; // trees are ordered by order
        }
        if allowed(t) {
            current.push(id as u32);
            multisets(
                trees,
                remaining - t.order,
                id,
                room - 1,
                allowed,
                current,
                out,
            );
            current.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count_by_order(kind: Kind) -> Vec<usize> {
        let f = Forest::get(kind);
        (1..=MAX_ORDER)
            .map(|n| f.trees.iter().filter(|t| t.order == n).count())
            .collect()
    }

    /// The numbers of trees per order are the known sequences (OEIS A000081 for rooted
    /// trees, twice A000151 for bicoloured ones), so the generation misses and repeats none.
    #[test]
    fn tree_counts_are_the_known_sequences() {
        assert_eq!(count_by_order(Kind::Mono), [1, 1, 2, 4, 9, 20, 48, 115]);
        assert_eq!(
            count_by_order(Kind::Bicoloured),
            [2, 4, 14, 52, 214, 916, 4116, 18996]
        );
        // alternating trees: a rooted tree and a root colour
        assert_eq!(
            count_by_order(Kind::Alternating),
            [2, 2, 4, 8, 18, 40, 96, 230]
        );
    }

    #[test]
    fn densities_and_brackets() {
        let f = Forest::get(Kind::Mono);
        let find = |s: &str| {
            f.trees
                .iter()
                .enumerate()
                .find(|(i, _)| f.bracket(*i as u32) == s)
                .map(|(_, t)| t.gamma)
        };
        assert_eq!(find("•[•,•]"), Some(3.0));
        assert_eq!(find("•[•[•]]"), Some(6.0));
        assert_eq!(find("•[•,•[•]]"), Some(8.0));
        assert_eq!(find("•[•[•[•[•[•[•[•]]]]]]]"), Some(40320.0));
    }
}
