//! Tests of the parts: shards' parts appended are the whole ensemble's, bit for bit, and the
//! bytes (`RowParts::encode`, parts files) round-trip exactly and refuse any change.

use super::*;
use crate::measure::energy::columns::energy_part;
use crate::measure::energy::EnergyAccumulator;
use crate::measure::measurement::{Part, RunSetup};
use crate::system::System;

/// The parts of `n` chunks of 37 points (energy and tangent chunks, the counts and maxima).
fn parts(seed: u64, chunks: std::ops::Range<usize>) -> RowParts {
    let energy: Vec<EnergyAccumulator> = chunks
        .clone()
        .map(|c| {
            let h: Vec<f64> = (0..37)
                .map(|i| 1.0 + ((seed * 131 + c as u64 * 17 + i) as f64 * 0.37).sin())
                .collect();
            EnergyAccumulator::from_chunk(&h, &vec![1.0; h.len()])
        })
        .collect();
    let tangent: Vec<u64> = chunks
        .clone()
        .flat_map(|c| {
            [
                37,
                2.9f64.to_bits(),
                0.9f64.to_bits(),
                1.1f64.to_bits(),
                (1e-7 * c as f64).to_bits(),
                (2.0 + c as f64).to_bits(),
            ]
        })
        .collect();
    let mut p = RowParts::default();
    p.points = 37 * chunks.len() as u64;
    p.set("energy", energy_part(&energy));
    // The modified Hamiltonian's accumulators have the energy's shape.
    p.set("modified", energy_part(&energy));
    p.set("tangent", Part::Chunks(tangent));
    p.set("unconverged", Part::Sum(seed + chunks.start as u64));
    p.set(
        "angular_momentum",
        Part::Max((chunks.start == 0).then_some(seed as f64 * 1e-9)),
    );
    p.set(
        "constraint",
        Part::Max(Some((seed + chunks.end as u64) as f64 * 1e-12)),
    );
    p
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
    let mut whole = parts(4, 0..9);
    // the whole's counts and maxima are those of the shards merged
    whole.set("unconverged", Part::Sum(4 + 8));
    whole.set("constraint", Part::Max(Some(13.0 * 1e-12)));
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
    fullest.set("area", Part::Chunks(vec![1, 2, 3, 4, 5, 6]));
    for distance in ["global_error", "return_error"] {
        fullest.set(distance, Part::Chunks(vec![1, 2, 3, 4, 5, 6]));
    }
    fullest.set("chaos", Part::Chunks((1..=12).collect()));
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
