//! Bounded fuzzing from fixed seeds, so every CI run tries the same cases: the input parsers
//! (`parsers`), the command line's numbers (`options`), and the areas a hostile but realistic
//! user reaches through the binary. One module an area; the generator and the mutator here
//! serve all of them.

#[path = "../common/mod.rs"]
mod common;

mod checkpoints;
mod formulas;
mod method_files;
mod options;
mod parsers;
mod paths;

/// xorshift64*: a small deterministic generator (no dependency, same cases on every machine).
pub struct Rng(pub u64);

impl Rng {
    // Not an Iterator: the stream never ends, and the modules call `next` directly.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// A mutation of `base`: bytes flipped, cut, inserted or a run duplicated, once to a few times.
pub fn mutate(rng: &mut Rng, base: &[u8]) -> Vec<u8> {
    let mut b = base.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(b.len() + 1);
        match rng.below(5) {
            0 if !b.is_empty() => {
                let i = at.min(b.len() - 1);
                b[i] ^= 1 << rng.below(8);
            }
            1 => b.truncate(at),
            2 => {
                let byte = rng.next() as u8;
                b.insert(at, byte);
            }
            3 if !b.is_empty() => {
                let i = at.min(b.len() - 1);
                b[i] = *b"0123456789(),: '-eE".get(rng.below(19)).unwrap_or(&b'0');
            }
            _ => {
                let end = (at + rng.below(16)).min(b.len());
                let run = b[at.min(end)..end].to_vec();
                b.splice(at.min(end)..at.min(end), run);
            }
        }
    }
    b
}
