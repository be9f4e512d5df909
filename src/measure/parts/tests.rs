//! Tests of the parts: shards' parts appended are the whole ensemble's, bit for bit, and the
//! bytes (`RowParts::encode`, parts files) round-trip exactly and refuse any change.

use super::*;
use crate::measure::energy::columns::{energy_part, ACCUMULATOR_WORDS};
use crate::measure::energy::EnergyAccumulator;
use crate::measure::measurement::{Part, RunSetup, Shape};
use crate::measure::registry::MEASUREMENTS;
use crate::system::System;

/// The parts of `chunks` chunks of 37 points, for every registered measurement by its shape:
/// a count, a largest value, or per-chunk words (`Derived` has none). Counts add up and maxima
/// grow with the chunks, so shards' parts appended equal the whole's.
fn parts(seed: u64, chunks: std::ops::Range<usize>) -> RowParts {
    let mut p = RowParts::default();
    p.points = 37 * chunks.len() as u64;
    for m in MEASUREMENTS {
        let part = match m.shape() {
            Shape::Derived => continue,
            Shape::Sum => Part::Sum(seed * chunks.len() as u64),
            Shape::Max => Part::Max(Some((seed + chunks.end as u64) as f64 * 1e-12)),
            Shape::Chunks(width) => chunk_words(seed, chunks.clone(), width),
        };
        p.set(m.name(), part);
    }
    p
}

/// Per-chunk words of `width`: energy accumulators for their width (their counts and floats
/// must stay consistent for the row to be finite), else a count of 37 and then floats.
fn chunk_words(seed: u64, chunks: std::ops::Range<usize>, width: usize) -> Part {
    if width == ACCUMULATOR_WORDS {
        let energy: Vec<EnergyAccumulator> = chunks
            .map(|c| {
                let h: Vec<f64> = (0..37)
                    .map(|i| 1.0 + ((seed * 131 + c as u64 * 17 + i) as f64 * 0.37).sin())
                    .collect();
                EnergyAccumulator::from_chunk(&h, &vec![1.0; h.len()])
            })
            .collect();
        return energy_part(&energy);
    }
    let words = chunks.flat_map(|c| {
        let value = move |k: usize| 1.0 + 0.1 * k as f64 + 1e-7 * (seed + c as u64) as f64;
        std::iter::once(37).chain((1..width).map(move |k| value(k).to_bits()))
    });
    Part::Chunks(words.collect())
}

fn setup(system: &System) -> RunSetup<'_> {
    RunSetup {
        system,
        tangent: true,
        loop_area: None,
        filled_area: Some(2.0),
        reference: false,
        reverse: None,
        modified: None,
        chaos: None,
        stops: None,
        dt: 0.1,
        step_error: crate::measure::floor::StepError::new(f64::EPSILON / 2.0, false, 0.1, None),
    }
}

/// Appending shards' parts and folding gives the whole ensemble's row bit for bit, and
/// the bytes round-trip exactly.
#[test]
fn appended_parts_are_the_whole_and_round_trip() {
    let system = System::new("kepler", &Default::default()).unwrap();
    let run = setup(&system);
    let mut split = parts(4, 0..4);
    split.append(parts(4, 4..9));
    let whole = parts(4, 0..9);
    assert_eq!(split, whole);
    assert_eq!(split.row(&run, 3, 1.5, None), whole.row(&run, 3, 1.5, None));
    let back = RowParts::decode(&whole.encode(), "x").unwrap();
    assert_eq!(back, whole);
    assert_eq!(back.encode(), whole.encode());
    let bytes = whole.encode();
    for cut in [0, 7, 8, 20, bytes.len() - 1] {
        assert!(RowParts::decode(&bytes[..cut], "x").is_err(), "cut {cut}");
    }
}

/// A parts file gives back its fields and parts; a changed byte anywhere or a cut is
/// refused.
#[test]
fn parts_files_round_trip_and_refuse_any_change() {
    let parts = parts(3, 0..2);
    let file = PartsFile {
        step: 40,
        shard: (1, 3),
        config_crc: 0xdead_beef,
        states_crc: Some(7),
    };
    let bytes = file.encode(&parts);
    // The largest file: one chunk of each kind more than there are points.
    let mut fullest = parts.clone();
    fullest.points = 1;
    for m in MEASUREMENTS {
        if let Shape::Chunks(width) = m.shape() {
            fullest.set(m.name(), Part::Chunks((1..=2 * width as u64).collect()));
        }
    }
    assert_eq!(
        file.encode(&fullest).len() as u64,
        PartsFile::max_len(fullest.points as usize)
    );
    let (back, got) = PartsFile::decode(&bytes, "x").unwrap();
    assert_eq!(back, file);
    assert_eq!(got.encode(), parts.encode());
    for at in 0..bytes.len() {
        let mut b = bytes.clone();
        b[at] ^= 0x10;
        assert!(PartsFile::decode(&b, "x").is_err(), "byte {at}");
        assert!(PartsFile::decode(&bytes[..at], "x").is_err(), "cut {at}");
    }
}
