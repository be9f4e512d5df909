//! Pure geometry for figures: axis ranges, clipping, data → pixel mapping and tick labels.
//! Nothing here knows about plotters, so it is tested directly.
//!
//! Data is first put into *display space*: x as it is, y as it is or as log10(y) on a log
//! axis. Ranges, clipping and the pixel mapping all work in display space, where every axis is
//! linear.

use std::collections::HashSet;

/// Display coordinates are kept within ±this on a log axis (10^±300 is still a normal f64).
const LOG_LIMIT: f64 = 300.0;
/// Display coordinates are kept within ±this on a linear axis, so spans stay finite.
const LINEAR_LIMIT: f64 = f64::MAX / 4.0;
/// Extra room around automatic ranges, as a fraction of the data span.
const AUTO_MARGIN: f64 = 0.05;

/// One axis in display space: `lo..hi` is increasing, finite and not degenerate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Axis {
    pub lo: f64,
    pub hi: f64,
    pub log: bool,
}

impl Axis {
    /// The display coordinate of a data value, or None where it cannot be drawn: non-finite,
    /// or not positive on a log axis.
    pub fn display(log: bool, v: f64) -> Option<f64> {
        match (v.is_finite(), log) {
            (false, _) => None,
            (true, false) => Some(v),
            (true, true) => (v > 0.0).then(|| v.log10()),
        }
    }

    /// The axis for an explicit range, or else for the data extent `lo..hi` (display
    /// coordinates; None when there is no data) widened by a small margin.
    pub fn new(log: bool, explicit: Option<(f64, f64)>, extent: Option<(f64, f64)>) -> Axis {
        let (lo, hi) = explicit
            .and_then(|range| Self::explicit_display_range(log, range, extent))
            .or_else(|| {
                extent.map(|(lo, hi)| {
                    let pad = AUTO_MARGIN * (hi - lo);
                    (lo - pad, hi + pad)
                })
            })
            .unwrap_or((0.0, 1.0));
        let (lo, hi) = settle(log, lo, hi);
        Axis { lo, hi, log }
    }

    /// An explicit range in display coordinates, in increasing order. None if it is unusable
    /// (non-finite, or entirely ≤ 0 on a log axis). On a log axis a lower end ≤ 0 is replaced
    /// by the smallest data value, or by three decades below the upper end.
    fn explicit_display_range(
        log: bool,
        (a, b): (f64, f64),
        extent: Option<(f64, f64)>,
    ) -> Option<(f64, f64)> {
        if !(a.is_finite() && b.is_finite()) {
            return None;
        }
        let (lo, hi) = (a.min(b), a.max(b));
        let hi = Self::display(log, hi)?;
        let lo = Self::display(log, lo)
            .or_else(|| extent.map(|(data_lo, _)| data_lo).filter(|&d| d < hi))
            .unwrap_or(hi - 3.0);
        Some((lo, hi))
    }

    pub fn span(&self) -> f64 {
        self.hi - self.lo
    }

    /// The range in data units, which is what the plotters axis is built from.
    pub fn data_range(&self) -> (f64, f64) {
        if self.log {
            (10f64.powf(self.lo), 10f64.powf(self.hi))
        } else {
            (self.lo, self.hi)
        }
    }

    fn contains(&self, v: f64) -> bool {
        self.lo <= v && v <= self.hi
    }
}

/// Make `lo..hi` usable for drawing: finite, increasing, and wide enough that tick
/// positions are not lost in rounding (a constant data set gets a range around its value).
fn settle(log: bool, lo: f64, hi: f64) -> (f64, f64) {
    let limit = if log { LOG_LIMIT } else { LINEAR_LIMIT };
    let lo = lo.clamp(-limit, limit);
    let hi = hi.clamp(-limit, limit);
    let (lo, hi) = (lo.min(hi), lo.max(hi));
    let mid = 0.5 * lo + 0.5 * hi;
    if hi - lo > mid.abs() * 1e-9 {
        return (lo, hi);
    }
    let half = if log || mid == 0.0 {
        0.5
    } else {
        0.05 * mid.abs()
    };
    (mid - half, mid + half)
}

/// The smallest and largest of some values, or None for none.
pub(super) fn extent(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values.fold(None, |acc, v| match acc {
        None => Some((v, v)),
        Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
    })
}

/// Split a series into runs of consecutive drawable points, in display coordinates. A point
/// that cannot be drawn (NaN, ±inf, y ≤ 0 on a log axis) ends the current run, so a line is
/// broken there instead of joining across the gap.
pub(super) fn display_runs(
    points: &[(f64, f64)],
    log_x: bool,
    log_y: bool,
) -> Vec<Vec<(f64, f64)>> {
    let mut runs = Vec::new();
    let mut run = Vec::new();
    for &(x, y) in points {
        match (Axis::display(log_x, x), Axis::display(log_y, y)) {
            (Some(x), Some(y)) => run.push((x, y)),
            _ if !run.is_empty() => runs.push(std::mem::take(&mut run)),
            _ => {}
        }
    }
    if !run.is_empty() {
        runs.push(run);
    }
    runs
}

/// Maps display coordinates to backend pixels the way plotters maps its own axes: x runs
/// from the left to the right pixel column of the plot box, y from the bottom row up to the
/// top row.
#[derive(Debug, Clone, Copy)]
pub(super) struct PixelMap {
    pub x: Axis,
    pub y: Axis,
    pub left: f64,
    pub right: f64,
    pub top: f64,
    pub bottom: f64,
}

impl PixelMap {
    fn pixel(&self, (x, y): (f64, f64)) -> (i32, i32) {
        let fx = (x - self.x.lo) / self.x.span();
        let fy = (y - self.y.lo) / self.y.span();
        let px = self.left + fx * (self.right - self.left);
        let py = self.bottom + fy * (self.top - self.bottom);
        // Points are clipped to the plot box before this, so the casts cannot saturate.
        (px.round() as i32, py.round() as i32)
    }

    /// Marker positions: the points inside the plot box, in pixels, each pixel once (a
    /// dense cloud of 10⁵ points covers far fewer pixels, which keeps the SVG small).
    pub fn marker_pixels(&self, runs: &[Vec<(f64, f64)>]) -> Vec<(i32, i32)> {
        let mut seen = HashSet::new();
        runs.iter()
            .flatten()
            .filter(|&&(x, y)| self.x.contains(x) && self.y.contains(y))
            .map(|&p| self.pixel(p))
            .filter(|&p| seen.insert(p))
            .collect()
    }

    /// Polylines in pixels: each run clipped to the plot box (a segment leaving the box ends a
    /// polyline, one entering starts a new one), with repeated consecutive pixels dropped.
    pub fn polylines(&self, runs: &[Vec<(f64, f64)>]) -> Vec<Vec<(i32, i32)>> {
        let mut lines = Vec::new();
        for run in runs {
            let mut line: Vec<(i32, i32)> = Vec::new();
            for pair in run.windows(2) {
                let Some((a, b)) = self.clip(pair[0], pair[1]) else {
                    continue;
                };
                let (pa, pb) = (self.pixel(a), self.pixel(b));
                // The segment continues the current polyline unless its start was clipped
                // (it re-enters the box) or the polyline was ended by a segment outside.
                if line.last() != Some(&pa) || a != pair[0] {
                    finish_polyline(&mut lines, &mut line);
                    line.push(pa);
                }
                if line.last() != Some(&pb) {
                    line.push(pb);
                }
                if b != pair[1] {
                    finish_polyline(&mut lines, &mut line);
                }
            }
            finish_polyline(&mut lines, &mut line);
        }
        lines
    }

    /// The part of the segment a→b inside the plot box, or None (Cohen–Sutherland: an end
    /// outside is moved onto the edge it is beyond, until both ends are inside). Ends that are
    /// inside are returned unchanged; `polylines` relies on that.
    fn clip(&self, mut a: (f64, f64), mut b: (f64, f64)) -> Option<((f64, f64), (f64, f64))> {
        // Four moves suffice in exact arithmetic; the cap only guards against rounding.
        for _ in 0..8 {
            let (code_a, code_b) = (self.outcode(a), self.outcode(b));
            if code_a | code_b == 0 {
                return Some((a, b));
            }
            if code_a & code_b != 0 {
                return None; // both beyond the same edge
            }
            if code_a != 0 {
                a = self.onto_edge(a, b, code_a);
            } else {
                b = self.onto_edge(b, a, code_b);
            }
        }
        None
    }

    /// Which edges of the box `p` is beyond, one bit each.
    fn outcode(&self, (x, y): (f64, f64)) -> u8 {
        u8::from(x < self.x.lo)
            | u8::from(x > self.x.hi) << 1
            | u8::from(y < self.y.lo) << 2
            | u8::from(y > self.y.hi) << 3
    }

    /// The point where the line from `p` (outside) to `q` crosses one edge that `p` is beyond.
    /// The edge coordinate is set exactly; the other one is interpolated. Differences are
    /// taken in halves so that nothing overflows for ends near ±f64::MAX.
    fn onto_edge(&self, p: (f64, f64), q: (f64, f64), code: u8) -> (f64, f64) {
        // Fraction of the way from p to q at which `along(p) + fraction·Δ` reaches `edge`.
        let fraction = |edge: f64, p: f64, q: f64| (0.5 * edge - 0.5 * p) / (0.5 * q - 0.5 * p);
        let step = |f: f64, p: f64, q: f64| {
            let half = f * (0.5 * q - 0.5 * p);
            p + half + half
        };
        if code & 0b0011 != 0 {
            let edge = if code & 0b0001 != 0 {
                self.x.lo
            } else {
                self.x.hi
            };
            (edge, step(fraction(edge, p.0, q.0), p.1, q.1))
        } else {
            let edge = if code & 0b0100 != 0 {
                self.y.lo
            } else {
                self.y.hi
            };
            (step(fraction(edge, p.1, q.1), p.0, q.0), edge)
        }
    }
}

/// Split polylines at turns sharper than 120°, so that a wide line has no miter joins there.
/// plotters' bitmap backend joins the segments of a wide polyline with unlimited miters: at a
/// near reversal (a spike of a noisy series) the miter reaches far beyond both segments, out of
/// the plot box and over the labels. At the turns kept the miter is at most the line width.
pub(super) fn split_sharp_turns(lines: Vec<Vec<(i32, i32)>>) -> Vec<Vec<(i32, i32)>> {
    let mut out = Vec::with_capacity(lines.len());
    for line in lines {
        let mut current = Vec::with_capacity(line.len());
        for (i, &p) in line.iter().enumerate() {
            current.push(p);
            let (Some(&a), Some(&c)) =
                (i.checked_sub(1).and_then(|j| line.get(j)), line.get(i + 1))
            else {
                continue;
            };
            let d1 = (f64::from(p.0 - a.0), f64::from(p.1 - a.1));
            let d2 = (f64::from(c.0 - p.0), f64::from(c.1 - p.1));
            let dot = d1.0 * d2.0 + d1.1 * d2.1;
            let norms = d1.0.hypot(d1.1) * d2.0.hypot(d2.1);
            // cos(turn) < −1/2: the direction turns by more than 120°.
            if dot < -0.5 * norms {
                out.push(std::mem::replace(&mut current, vec![p]));
            }
        }
        if current.len() >= 2 {
            out.push(current);
        }
    }
    out
}

/// A fixed pseudo-random rank of marker pixel `px` of series `series` (SplitMix64's
/// finaliser of the three numbers): sorting markers by it mixes the series pixel by pixel,
/// the same way every time.
pub(super) fn mixing_rank(px: (i32, i32), series: usize) -> u64 {
    let mut z = (px.0 as u32 as u64) << 32 | px.1 as u32 as u64;
    z = z.wrapping_add((series as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A pixel polyline with the vertices dropped that lie within `tolerance` pixels of the
/// straight line between the vertices kept (Douglas–Peucker). plotters draws a 1 px line
/// anti-aliased, full colour at its ends and blended between them, so a dense path of
/// segments a pixel or two long looks dotted; merged into longer segments it looks like
/// the line it is.
pub(super) fn simplified(line: &[(i32, i32)], tolerance: f64) -> Vec<(i32, i32)> {
    if line.len() < 3 {
        return line.to_vec();
    }
    let mut keep = vec![false; line.len()];
    (keep[0], keep[line.len() - 1]) = (true, true);
    let mut pending = vec![(0, line.len() - 1)];
    while let Some((a, b)) = pending.pop() {
        let (pa, pb) = (line[a], line[b]);
        let (dx, dy) = (f64::from(pb.0 - pa.0), f64::from(pb.1 - pa.1));
        let length = dx.hypot(dy);
        let distance = |p: (i32, i32)| {
            let (px, py) = (f64::from(p.0 - pa.0), f64::from(p.1 - pa.1));
            if length == 0.0 {
                px.hypot(py)
            } else {
                (px * dy - py * dx).abs() / length
            }
        };
        let farthest = (a + 1..b)
            .map(|i| (i, distance(line[i])))
            .max_by(|x, y| x.1.total_cmp(&y.1));
        if let Some((i, _)) = farthest.filter(|&(_, d)| d > tolerance) {
            keep[i] = true;
            pending.extend([(a, i), (i, b)]);
        }
    }
    (line.iter().zip(keep))
        .filter_map(|(&p, k)| k.then_some(p))
        .collect()
}

/// Move a polyline with at least two pixels into `lines`; drop a shorter one.
fn finish_polyline(lines: &mut Vec<Vec<(i32, i32)>>, line: &mut Vec<(i32, i32)>) {
    if line.len() >= 2 {
        lines.push(std::mem::take(line));
    } else {
        line.clear();
    }
}

/// The plot box size that gives x and y the same scale (display units per pixel), inside an
/// available `width × height`: one side is kept, the other shrunk. At least 1 px each.
pub(super) fn equal_aspect_box(x: &Axis, y: &Axis, width: u32, height: u32) -> (u32, u32) {
    let (w, h) = (f64::from(width.max(1)), f64::from(height.max(1)));
    let data_ratio = x.span() / y.span(); // wanted width / height
    if !data_ratio.is_finite() || data_ratio <= 0.0 {
        return (width, height);
    }
    if data_ratio > w / h {
        (width, (w / data_ratio).round().max(1.0) as u32)
    } else {
        ((h * data_ratio).round().max(1.0) as u32, height)
    }
}

/// A tick label for `v` on a linear axis spanning `span`: as many decimals as the span needs,
/// trailing zeros dropped, so float noise such as 0.30000000000000004 never shows.
/// Scientific notation below 10⁻³ and from 10⁵ on.
pub(super) fn tick_label(v: f64, span: f64) -> String {
    if v.abs() <= span.abs() * 1e-9 {
        return "0".to_string();
    }
    // Digits down to a hundredth of the span's order of magnitude.
    let last_digit = span.abs().log10().floor() as i32 - 2;
    let magnitude = v.abs();
    let label = if (1e-3..1e5).contains(&magnitude) {
        let decimals = (-last_digit).clamp(0, 15) as usize;
        trim_zeros(&format!("{v:.decimals$}"))
    } else {
        let first_digit = magnitude.log10().floor() as i32;
        let decimals = (first_digit - last_digit).clamp(0, 15) as usize;
        let text = format!("{v:.decimals$e}");
        match text.split_once('e') {
            Some((mantissa, exponent)) => format!("{}e{exponent}", trim_zeros(mantissa)),
            None => text,
        }
    };
    if label == "-0" {
        "0".to_string()
    } else {
        label
    }
}

/// The most decade labels a log axis gets; over more decades it labels every k-th one.
const MAX_TICKS: usize = 10;
/// A log axis spanning fewer decades than this also labels 2·10^k and 5·10^k: with decade
/// labels alone a reader could not read values off it.
const ONE_TWO_FIVE_BELOW: f64 = 2.5;
/// The fewest labels a log axis gets before it takes finer mantissas (1 to 9), and then
/// evenly spaced values, as a linear axis would.
const MIN_LOG_TICKS: usize = 3;

/// Where a log axis puts its ticks (data values, increasing) and how they are labelled.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct LogTicks {
    pub values: Vec<f64>,
    /// The ticks are evenly spaced (an axis spanning a small fraction of a decade): labelled
    /// as on a linear axis, with the digits the spacing needs.
    pub linear: bool,
}

impl Axis {
    /// The ticks of a log axis: decades (every k-th where there are more than `MAX_TICKS`);
    /// over fewer than `ONE_TWO_FIVE_BELOW` decades also 2·10^k and 5·10^k; where that still
    /// gives fewer than `MIN_LOG_TICKS`, every mantissa 1 to 9; and inside a small fraction of
    /// a decade evenly spaced round values.
    pub fn log_ticks(&self) -> LogTicks {
        let (lo, hi) = (self.lo, self.hi);
        let span = hi - lo;
        let inside = |v: f64| {
            let d = v.log10();
            d >= lo - 1e-9 * span && d <= hi + 1e-9 * span
        };
        let decades = (lo.floor() as i32)..=(hi.ceil() as i32);
        let with = |mantissas: &[f64]| -> Vec<f64> {
            decades
                .clone()
                .flat_map(|k| mantissas.iter().map(move |m| m * 10f64.powi(k)))
                .filter(|&v| inside(v))
                .collect()
        };
        if span >= ONE_TWO_FIVE_BELOW {
            let all = with(&[1.0]);
            let every = all.len().div_ceil(MAX_TICKS).max(1) as i32;
            let values = all
                .into_iter()
                .filter(|v| (v.log10().round() as i32).rem_euclid(every) == 0)
                .collect();
            return LogTicks {
                values,
                linear: false,
            };
        }
        for mantissas in [
            &[1.0, 2.0, 5.0][..],
            &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
        ] {
            let values = with(mantissas);
            if values.len() >= MIN_LOG_TICKS {
                return LogTicks {
                    values,
                    linear: false,
                };
            }
        }
        let (a, b) = self.data_range();
        LogTicks {
            values: linear_ticks(a, b),
            linear: true,
        }
    }

    /// The label of the tick at data value `v`.
    pub fn tick_label(&self, v: f64) -> String {
        let (a, b) = self.data_range();
        if !self.log || self.log_ticks().linear {
            tick_label(v, b - a)
        } else {
            // Enough digits for `v` itself: 2e-6, 0.05, 300.
            tick_label(v, v)
        }
    }
}

/// Round values (1, 2 or 5 times a power of ten apart) from `lo` to `hi`, about five of them.
fn linear_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let rough = (hi - lo) / 5.0;
    let power = 10f64.powf(rough.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * power)
        .find(|&s| s >= rough)
        .unwrap_or(10.0 * power);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|k| k as f64 * step).collect()
}

/// "1.500" → "1.5", "2.000" → "2", "300" → "300".
fn trim_zeros(text: &str) -> String {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests;
