//! PNG pictures of the run: a field on a lon/lat map before and after, and a time series.
//! Text needs a font: a system TrueType font is loaded once if one is found; without one the
//! pictures are drawn without text.

use std::path::Path;
use std::sync::OnceLock;

use gt4rs::Error;
use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};

/// System fonts tried in order.
const FONT_CANDIDATES: [&str; 4] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
];

/// Registers the first readable system font as `sans-serif`; `None` if there is none.
pub fn font() -> Option<&'static str> {
    static FONT: OnceLock<Option<&'static str>> = OnceLock::new();
    *FONT.get_or_init(|| {
        FONT_CANDIDATES.iter().copied().find(|path| {
            let Ok(bytes) = std::fs::read(path) else {
                return false;
            };
            // The font registry keeps `'static` references: the bytes live for the process.
            let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
            register_font("sans-serif", FontStyle::Normal, bytes).is_ok()
        })
    })
}

fn plot_error(path: &Path, e: impl std::fmt::Display) -> Error {
    Error::Io(format!("{}: {e}", path.display()))
}

/// Blue (−1) through white (0) to red (+1).
fn diverging(t: f64) -> RGBColor {
    let t = t.clamp(-1.0, 1.0);
    let fade = |full: f64| (255.0 * (1.0 - full * t.abs())) as u8;
    if t < 0.0 {
        RGBColor(fade(1.0), fade(0.75), 255)
    } else {
        RGBColor(255, fade(0.75), fade(1.0))
    }
}

/// A colour-bar end: two decimals, or three significant digits for small values.
fn scale_label(value: f64) -> String {
    if value != 0.0 && value.abs() < 0.1 {
        format!("{value:+.2e}")
    } else {
        format!("{value:+.2}")
    }
}

/// One map panel of [`maps`].
pub struct MapPanel<'a> {
    pub title: String,
    pub values: &'a [f64],
}

/// Maps of point values on longitude/latitude (degrees), side by side, with one symmetric
/// colour scale `[-scale, scale]` and a colour bar.
pub fn maps(
    path: &Path,
    title: &str,
    lon_deg: &[f64],
    lat_deg: &[f64],
    panels: &[MapPanel<'_>],
    scale: f64,
    unit: &str,
) -> Result<(), Error> {
    let has_font = font().is_some();
    let width = 760 * panels.len() as u32;
    let root = BitMapBackend::new(path, (width, 520)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| plot_error(path, e))?;
    let (top, body) = root.split_vertically(40);
    let (body, bar) = body.split_vertically(420);
    if has_font {
        top.titled(title, ("sans-serif", 24))
            .map_err(|e| plot_error(path, e))?;
    }
    let scale = if scale > 0.0 { scale } else { 1.0 };
    for (panel, area) in panels.iter().zip(body.split_evenly((1, panels.len()))) {
        let mut builder = ChartBuilder::on(&area);
        builder.margin(10);
        if has_font {
            builder
                .caption(&panel.title, ("sans-serif", 18))
                .x_label_area_size(30)
                .y_label_area_size(40);
        }
        let mut chart = builder
            .build_cartesian_2d(-180.0..180.0, -90.0..90.0)
            .map_err(|e| plot_error(path, e))?;
        if has_font {
            chart
                .configure_mesh()
                .x_desc("longitude (°)")
                .y_desc("latitude (°)")
                .x_labels(7)
                .y_labels(7)
                .light_line_style(WHITE)
                .draw()
                .map_err(|e| plot_error(path, e))?;
        }
        chart
            .draw_series(
                lon_deg
                    .iter()
                    .zip(lat_deg)
                    .zip(panel.values)
                    .map(|((&x, &y), &v)| Circle::new((x, y), 2, diverging(v / scale).filled())),
            )
            .map_err(|e| plot_error(path, e))?;
    }
    // Colour bar.
    let (bar_w, bar_h) = bar.dim_in_pixel();
    let (x0, x1) = (bar_w as i32 / 4, 3 * bar_w as i32 / 4);
    let y0 = 10;
    let y1 = (bar_h as i32 / 2).max(y0 + 4);
    for x in x0..x1 {
        let t = 2.0 * f64::from(x - x0) / f64::from(x1 - x0) - 1.0;
        bar.draw(&Rectangle::new(
            [(x, y0), (x + 1, y1)],
            diverging(t).filled(),
        ))
        .map_err(|e| plot_error(path, e))?;
    }
    if has_font {
        let style = ("sans-serif", 16).into_font().color(&BLACK);
        for (x, text) in [
            (x0 - 70, scale_label(-scale)),
            ((x0 + x1) / 2 - 10, "0".to_string()),
            (x1 + 8, format!("{} {unit}", scale_label(scale))),
        ] {
            bar.draw(&Text::new(text, (x, y0), style.clone()))
                .map_err(|e| plot_error(path, e))?;
        }
    }
    root.present().map_err(|e| plot_error(path, e))
}

/// A line plot of `(x, y)` points.
pub fn series(
    path: &Path,
    title: &str,
    x_desc: &str,
    y_desc: &str,
    points: &[(f64, f64)],
) -> Result<(), Error> {
    let has_font = font().is_some();
    let root = BitMapBackend::new(path, (900, 520)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| plot_error(path, e))?;
    let x_max = points.iter().map(|p| p.0).fold(1.0_f64, f64::max);
    let y_max = points.iter().map(|p| p.1).fold(0.0_f64, f64::max) * 1.05;
    let y_max = if y_max > 0.0 { y_max } else { 1.0 };
    let mut builder = ChartBuilder::on(&root);
    builder.margin(20);
    if has_font {
        builder
            .caption(title, ("sans-serif", 22))
            .x_label_area_size(40)
            .y_label_area_size(70);
    }
    let mut chart = builder
        .build_cartesian_2d(0.0..x_max, 0.0..y_max)
        .map_err(|e| plot_error(path, e))?;
    if has_font {
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .y_desc(y_desc)
            .draw()
            .map_err(|e| plot_error(path, e))?;
    }
    chart
        .draw_series(LineSeries::new(
            points.iter().copied(),
            BLUE.stroke_width(2),
        ))
        .map_err(|e| plot_error(path, e))?;
    chart
        .draw_series(points.iter().map(|&p| Circle::new(p, 3, BLUE.filled())))
        .map_err(|e| plot_error(path, e))?;
    root.present().map_err(|e| plot_error(path, e))
}
