//! A finished run's Poincaré section: section.npy (`Crossings::encode`), section.png/svg
//! (`plot::section`; with --chaos coloured by each point's final indicator), and the crossings past `--section-max` said on stderr.

use std::path::Path;

use crate::config::RunConfig;
use crate::error::Result;
use crate::output::write_atomic;
use crate::plot::section::{section_figure, Colour};
use crate::section::Crossings;

/// Write the section of the run `cfg` into `out`; returns the crossings past the cap.
pub(super) fn write(cfg: &RunConfig, out: &Path, c: &Crossings) -> Result<u64> {
    // A shard's points keep their indices in the whole ensemble.
    let first = cfg
        .shard
        .or(cfg.rank)
        .and_then(|s| s.range(cfg.ensemble.points).ok())
        .map_or(0, |r| r.start);
    write_atomic(&out.join("section.npy"), &c.encode(cfg.dt, first))?;
    // With --chaos the crossings take their point's final MEGNO (or λ), on the map's scale.
    let chaos = super::chaos_map::final_indicator(cfg, out)?;
    let colour = match &chaos {
        Some((which, values)) => {
            let (name, range) = super::chaos_map::scale(*which, values);
            Colour::Value {
                name,
                values,
                range,
            }
        }
        None => Colour::Point,
    };
    crate::plot::write_figure(&section_figure(c, first, colour), &out.join("section"))?;
    let (over, points) = c.over_cap();
    if over > 0 {
        crate::note!(
            "phaseflow: warning: {over} crossings of {points} points past --section-max {} were counted but not kept; raise --section-max to keep them",
            c.section.max
        );
    }
    Ok(over)
}
