//! The step of a run: `--dt` and `--steps` (required, in range, representable in the run's
//! precision) and `--snapshot-every`.

use crate::error::{num, Error, Field, Message, Piece, Result};
use crate::invalid;
use crate::options::Precision;

/// The largest `--steps`: a GPU dispatch counts steps in u32, in pieces of at most 1024.
/// The most steps a run takes.
pub const MAX_STEPS: u64 = u32::MAX as u64 * 1024;

/// `--dt` and `--steps`: required, non-zero (a negative step runs the flow backwards,
/// `accuracy::check_direction`), within range.
pub(super) fn resolve_step(dt: Option<f64>, steps: Option<u64>) -> Result<(f64, u64)> {
    let dt = dt.ok_or_else(|| {
        invalid!(Field::Dt;
            Field::Dt, " is required (the step size h, e.g. ", Field::Dt.is("0.01"), ")")
    })?;
    crate::engine::check_dt(dt)?;
    let steps = steps.ok_or_else(
        || invalid!(Field::Steps; Field::Steps, " is required (the number of steps)"),
    )?;
    if steps == 0 {
        return Err(invalid!(Field::Steps; Field::Steps, " must be at least 1, got 0"));
    }
    if steps > MAX_STEPS {
        return Err(invalid!(Field::Steps;
            Field::Steps.is(steps),
            format!(" is too large (at most {MAX_STEPS})")
        ));
    }
    Ok((dt, steps))
}

/// `--dt` as the run's arithmetic holds it: the engines step in the run's precision, where a
/// tiny h rounds to 0 (nothing moves while t advances) or to a subnormal that has lost its
/// digits, and a huge one to infinity; and the run's end time `steps · h` must be finite.
pub(super) fn check_dt_at_precision(dt: f64, steps: u64, precision: Precision) -> Result<()> {
    let (held, smallest, largest) = match precision {
        Precision::F32 => (
            f64::from(dt.abs() as f32),
            f64::from(f32::MIN_POSITIVE),
            f64::from(f32::MAX),
        ),
        Precision::F64 => (dt.abs(), f64::MIN_POSITIVE, f64::MAX),
    };
    let (name, dt_text) = (precision.name(), num(dt));
    if !held.is_finite() {
        return Err(invalid!(Field::Dt;
            Field::Dt.is(dt_text),
            format!(" overflows to infinity at {name} (its largest number is {largest:.3e}); give a smaller step")
        ));
    }
    if held < smallest {
        let mut message = vec![
            Field::Dt.is(dt_text),
            Piece::Text(format!(
                " is below the smallest normal {name} number ({smallest:.3e}): at {name} the step rounds to {} and the points would not move; give a larger step",
                num(held)
            )),
        ];
        if precision == Precision::F32 {
            message.extend([Piece::from(" or "), Field::Precision.is("f64")]);
        }
        return Err(Error::Invalid {
            field: Field::Dt,
            message: Message(message),
        });
    }
    if !(steps as f64 * dt).is_finite() {
        return Err(invalid!(Field::Dt;
            Field::Dt.is(dt_text),
            " × ",
            Field::Steps.is(steps),
            ": the end time overflows to infinity; give a smaller step or fewer steps"
        ));
    }
    Ok(())
}

/// `--snapshot-every` (default: 100 snapshots), at most a million snapshots.
pub(super) fn resolve_snapshot_every(every: Option<u64>, steps: u64) -> Result<u64> {
    let every = every.unwrap_or_else(|| steps.div_ceil(100).max(1));
    if every == 0 {
        return Err(invalid!(Field::SnapshotEvery;
            Field::SnapshotEvery,
            " must be at least 1 (a snapshot every K steps), got 0"
        ));
    }
    if steps / every > 1_000_000 {
        return Err(invalid!(Field::SnapshotEvery;
            Field::SnapshotEvery.is(every),
            format!(
                ": {} snapshots is too many (at most 1000000); take a larger ",
                steps / every
            ),
            Field::SnapshotEvery
        ));
    }
    Ok(every)
}
