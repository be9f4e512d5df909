//! Drawing a figure on a plotters backend, the same way for the PNG and the SVG.
//!
//! plotters draws the frame: title, axes, ticks, grid, axis labels and the legend. The data
//! are drawn here, in pixels: `geom` clips them to the plot box and drops points that land on
//! an already used pixel, because plotters itself neither clips nor thins.

use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::geom::{self, Axis, PixelMap};
use super::{Figure, Series, Style};

/// Image size in pixels.
pub(super) const WIDTH: u32 = 900;
pub(super) const HEIGHT: u32 = 700;

/// The font family the embedded font is registered under (see `super::register_font`). SVG
/// files name it, so a viewer falls back to its own sans-serif font.
pub(super) const FONT: &str = "sans-serif";
const TITLE_SIZE: f64 = 26.0;
const AXIS_LABEL_SIZE: f64 = 20.0;
const TICK_LABEL_SIZE: f64 = 17.0;
const LEGEND_SIZE: f64 = 17.0;

/// Space around the chart, and for the tick labels plus axis label below and left of it.
const MARGIN: u32 = 20;
const X_LABEL_AREA: u32 = 60;
const Y_LABEL_AREA: u32 = 90;

/// Marker radius in pixels: 2 for a sparse series (at most `SPARSE_MARKERS` pixels in use),
/// 1 for a dense cloud, where bigger dots would merge.
const SPARSE_MARKER_RADIUS: u32 = 2;
const DENSE_MARKER_RADIUS: u32 = 1;
const SPARSE_MARKERS: usize = 2000;
const LINE_WIDTH: u32 = 2;

pub(super) const BACKGROUND: RGBColor = WHITE;
const THIN_LINE_COLOR: RGBColor = RGBColor(185, 185, 185);
const NOTE_COLOR: RGBColor = RGBColor(110, 110, 110);

/// Series colours: the Okabe–Ito palette, which stays distinguishable with colour-blindness.
/// Thin reference lines are grey and take no colour from it.
const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),   // blue
    RGBColor(213, 94, 0),    // vermillion
    RGBColor(0, 158, 115),   // bluish green
    RGBColor(204, 121, 167), // reddish purple
    RGBColor(230, 159, 0),   // orange
    RGBColor(86, 180, 233),  // sky blue
    RGBColor(0, 0, 0),       // black
    RGBColor(240, 228, 66),  // yellow
];

/// A series made ready to draw: its runs of drawable points in display coordinates.
struct Prepared<'a> {
    series: &'a Series,
    runs: Vec<Vec<(f64, f64)>>,
    color: RGBColor,
}

/// Everything needed to draw a figure, computed once for both images.
pub(super) struct Scene<'a> {
    fig: &'a Figure,
    /// In drawing order: thin reference lines first, so data are drawn over them.
    series: Vec<Prepared<'a>>,
    x: Axis,
    y: Axis,
    has_data: bool,
}

impl<'a> Scene<'a> {
    pub fn new(fig: &'a Figure) -> Scene<'a> {
        let mut next_color = PALETTE.iter().copied().cycle();
        let mut series: Vec<Prepared> = fig
            .series
            .iter()
            .map(|s| Prepared {
                series: s,
                runs: geom::display_runs(&s.points, fig.log_y),
                color: match s.style {
                    Style::ThinLine => THIN_LINE_COLOR,
                    Style::Line | Style::Markers => next_color.next().unwrap_or(BLACK),
                },
            })
            .collect();
        series.sort_by_key(|p| p.series.style != Style::ThinLine); // stable: order kept

        let points = || series.iter().flat_map(|p| p.runs.iter().flatten());
        let x = Axis::new(false, fig.x_range, geom::extent(points().map(|p| p.0)));
        let y = Axis::new(fig.log_y, fig.y_range, geom::extent(points().map(|p| p.1)));
        let has_data = points().next().is_some();
        Scene {
            fig,
            series,
            x,
            y,
            has_data,
        }
    }
}

/// Draw the whole figure on `root`.
pub(super) fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    scene: &Scene,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&BACKGROUND)?;
    let area = if scene.fig.title.is_empty() {
        root.clone()
    } else {
        root.titled(&scene.fig.title, (FONT, TITLE_SIZE))?
    };

    // The plot box fills what the margins and label areas leave, unless equal_aspect asks
    // for the same scale on both axes: then one side of the box shrinks, centred.
    let (width, height) = area.dim_in_pixel();
    let free_w = width.saturating_sub(2 * MARGIN + Y_LABEL_AREA);
    let free_h = height.saturating_sub(2 * MARGIN + X_LABEL_AREA);
    let (box_w, box_h) = if scene.fig.equal_aspect && !scene.y.log {
        geom::equal_aspect_box(&scene.x, &scene.y, free_w, free_h)
    } else {
        (free_w, free_h)
    };
    let (spare_w, spare_h) = (free_w.saturating_sub(box_w), free_h.saturating_sub(box_h));

    let mut builder = ChartBuilder::on(&area);
    builder
        .margin_left(MARGIN + spare_w / 2)
        .margin_right(MARGIN + spare_w - spare_w / 2)
        .margin_top(MARGIN + spare_h / 2)
        .margin_bottom(MARGIN + spare_h - spare_h / 2)
        .x_label_area_size(X_LABEL_AREA)
        .y_label_area_size(Y_LABEL_AREA);
    let (x_lo, x_hi) = scene.x.data_range();
    let (y_lo, y_hi) = scene.y.data_range();
    // The two y axis kinds are different types, hence one call each.
    if scene.y.log {
        let chart = builder.build_cartesian_2d(x_lo..x_hi, (y_lo..y_hi).log_scale())?;
        draw_chart(chart, scene)
    } else {
        let chart = builder.build_cartesian_2d(x_lo..x_hi, y_lo..y_hi)?;
        draw_chart(chart, scene)
    }
}

/// Draw the axes, the data, the legend and, without data, a note, on a built chart.
fn draw_chart<'a, DB, Y>(
    mut chart: ChartContext<'a, DB, Cartesian2d<RangedCoordf64, Y>>,
    scene: &Scene,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>>
where
    DB: DrawingBackend + 'a,
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    let (x_span, y_span) = (scene.x.span(), scene.y.span());
    let x_tick = |v: &f64| geom::tick_label(*v, x_span);
    let y_tick = |v: &f64| {
        if scene.y.log {
            geom::log_tick_label(*v)
        } else {
            geom::tick_label(*v, y_span)
        }
    };
    chart
        .configure_mesh()
        .x_desc(scene.fig.x_label.as_str())
        .y_desc(scene.fig.y_label.as_str())
        .x_label_formatter(&x_tick)
        .y_label_formatter(&y_tick)
        .x_labels(8)
        .y_labels(8)
        .label_style((FONT, TICK_LABEL_SIZE))
        .axis_desc_style((FONT, AXIS_LABEL_SIZE))
        .bold_line_style(RGBColor(0, 0, 0).mix(0.12))
        .light_line_style(TRANSPARENT)
        .draw()?;

    // Data are drawn in absolute pixels; PixelMap reproduces plotters' mapping onto the box.
    let screen = chart.plotting_area().use_screen_coord();
    let (xs, ys) = screen.get_pixel_range();
    let map = PixelMap {
        x: scene.x,
        y: scene.y,
        left: f64::from(xs.start),
        right: f64::from(xs.end - 1),
        top: f64::from(ys.start),
        bottom: f64::from(ys.end - 1),
    };
    let mut has_legend = false;
    for p in &scene.series {
        draw_series(&screen, &map, p)?;
        if !p.series.label.is_empty() {
            add_legend_entry(&mut chart, p)?;
            has_legend = true;
        }
    }
    if has_legend {
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .label_font((FONT, LEGEND_SIZE))
            .background_style(WHITE.mix(0.85))
            .border_style(RGBColor(0, 0, 0).mix(0.4))
            .draw()?;
    }

    if !scene.has_data {
        let centre = ((xs.start + xs.end) / 2, (ys.start + ys.end) / 2);
        let style = TextStyle::from((FONT, AXIS_LABEL_SIZE))
            .color(&NOTE_COLOR)
            .pos(Pos::new(HPos::Center, VPos::Center));
        screen.draw(&Text::new("no finite data", centre, style))?;
    }
    Ok(())
}

/// Draw one series' points or polylines, in pixels.
fn draw_series<DB: DrawingBackend>(
    screen: &DrawingArea<DB, Shift>,
    map: &PixelMap,
    p: &Prepared,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    match p.series.style {
        Style::Markers => {
            let style = p.color.filled();
            let pixels = map.marker_pixels(&p.runs);
            let radius = if pixels.len() <= SPARSE_MARKERS {
                SPARSE_MARKER_RADIUS
            } else {
                DENSE_MARKER_RADIUS
            };
            for pixel in pixels {
                screen.draw(&Circle::new(pixel, radius, style))?;
            }
        }
        Style::Line | Style::ThinLine => {
            let width = if p.series.style == Style::Line {
                LINE_WIDTH
            } else {
                1
            };
            let style = p.color.stroke_width(width);
            for line in map.polylines(&p.runs) {
                screen.draw(&PathElement::new(line, style))?;
            }
        }
    }
    Ok(())
}

/// Give a labelled series its legend entry. plotters attaches legend entries to a series
/// drawn through the chart, so an empty one is drawn: the data are already on the image.
fn add_legend_entry<'a, DB, Y>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<RangedCoordf64, Y>>,
    p: &Prepared,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>>
where
    DB: DrawingBackend + 'a,
    Y: Ranged<ValueType = f64>,
{
    let color = p.color;
    let entry = chart.draw_series(std::iter::empty::<Circle<(f64, f64), u32>>())?;
    entry.label(p.series.label.as_str());
    match p.series.style {
        Style::Markers => {
            entry.legend(move |(x, y)| Circle::new((x + 10, y), 3, color.filled()));
        }
        Style::Line => {
            entry.legend(move |(x, y)| {
                PathElement::new([(x, y), (x + 20, y)], color.stroke_width(LINE_WIDTH))
            });
        }
        Style::ThinLine => {
            entry.legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], color));
        }
    }
    Ok(())
}
