//! PNG pictures of the run: a field on a lon/lat map before and after, and a time series.
//! Text needs a font: a system TrueType font is loaded once if one is found; without one the
//! pictures are drawn without text.
//!
//! Maps fill each cell's triangle, or each edge's diamond, with its value, as ICON's users see
//! their fields: points would show the grid's rows as stripes and leave gaps between them.

use std::path::Path;
use std::sync::OnceLock;

use gt4rs::grid::{lat_lon, Grid, Surface};
use gt4rs::Error;
use ndarray::ArrayView2;
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
    /// One value per tile source (cell or edge) of the [`MapTiles`].
    pub values: &'a [f64],
}

/// The map's plane: longitude/latitude (degrees) on a sphere, x/y (km) on a torus. Both are
/// periodic in x, the torus in y too; a polygon is unwrapped across a period and drawn where
/// its copies overlap the map (see [`pieces`]).
#[derive(Clone, Copy, Debug, PartialEq)]
struct MapFrame {
    x: (f64, f64),
    y: (f64, f64),
    y_periodic: bool,
    /// A sphere's poles are lines on the map (`y` at either end), where longitude is undefined.
    poles: bool,
}

impl MapFrame {
    const LON_LAT: MapFrame = MapFrame {
        x: (-180.0, 180.0),
        y: (-90.0, 90.0),
        y_periodic: false,
        poles: true,
    };

    fn of(surface: Surface) -> MapFrame {
        match surface {
            Surface::Sphere { .. } => MapFrame::LON_LAT,
            Surface::Torus { length_x, length_y } => MapFrame {
                x: (0.0, length_x / 1e3),
                y: (0.0, length_y / 1e3),
                y_periodic: true,
                poles: false,
            },
        }
    }

    /// A point's map coordinates; `x` is `None` at a pole.
    fn place(&self, p: [f64; 3]) -> (Option<f64>, f64) {
        if !self.poles {
            return (Some(p[0] / 1e3), p[1] / 1e3);
        }
        let (lat, lon) = lat_lon(p);
        // So close to the axis the longitude is rounding noise.
        let at_pole = p[0].hypot(p[1]) <= 1e-9 * p[2].abs();
        ((!at_pole).then(|| lon.to_degrees()), lat.to_degrees())
    }

    fn axes(&self) -> (&'static str, &'static str) {
        if self.poles {
            ("longitude (°)", "latitude (°)")
        } else {
            ("x (km)", "y (km)")
        }
    }
}

/// `d` moved by whole periods into `[-period/2, period/2]`.
fn wrap(d: f64, period: f64) -> f64 {
    d - period * (d / period).round()
}

/// The polygons to fill for one cell or edge whose corners have map coordinates `corners`
/// (`x` is `None` at a pole), in order around it.
///
/// A polygon across the map's periodic seam (the dateline) is unwrapped so its sides are short,
/// then drawn at both sides of the map, each copy clipped to the map: it is split, never
/// dropped, so the tiles cover the map without gaps or smears.
fn pieces(frame: &MapFrame, corners: &[(Option<f64>, f64)]) -> Vec<Vec<(f64, f64)>> {
    unwrapped(frame, corners).map_or_else(Vec::new, |polygon| on_map(frame, &polygon))
}

/// `corners` as one polygon whose sides are all shorter than half a period, so it may reach
/// past the map's edges. A corner at a pole becomes the stretch of the pole's line between its
/// neighbours' longitudes; a polygon that winds round a pole without a corner there (not on
/// ICON's grids, whose poles are vertices) is closed along that pole's line. `None` for a
/// polygon that cannot be unwrapped: one wider than half a torus, or with only poles.
fn unwrapped(frame: &MapFrame, corners: &[(Option<f64>, f64)]) -> Option<Vec<(f64, f64)>> {
    let x_period = frame.x.1 - frame.x.0;
    let y_period = frame.y.1 - frame.y.0;
    let n = corners.len();
    // Unwrap x corner to corner, skipping poles; `previous` and `first` are (raw, unwrapped, y).
    let mut previous: Option<(f64, f64, f64)> = None;
    let mut first = None;
    let xs: Vec<Option<f64>> = corners
        .iter()
        .map(|&(x, y)| {
            x.map(|raw| {
                let x = previous.map_or(raw, |(p_raw, p_x, _)| p_x + wrap(raw - p_raw, x_period));
                previous = Some((raw, x, y));
                first = first.or(previous);
                x
            })
        })
        .collect();
    let (Some((first_raw, first_x, first_y)), Some((last_raw, last_x, _))) = (first, previous)
    else {
        return None;
    };
    let winding = last_x + wrap(first_raw - last_raw, x_period) - first_x;
    // The unwrapped x of the nearest corner off the pole before (`step` n - 1) or after (1).
    let known_x = |i: usize, step: usize| (1..n).find_map(|k| xs[(i + k * step) % n]);
    let mut polygon: Vec<(f64, f64)> = Vec::with_capacity(n + 3);
    for (i, (&x, &(_, y))) in xs.iter().zip(corners).enumerate() {
        match (x, known_x(i, n - 1), known_x(i, 1)) {
            (Some(x), _, _) => polygon.push((x, y)),
            (None, Some(before), Some(after)) => {
                polygon.push((before, y));
                polygon.push((after, y));
            }
            (None, _, _) => return None,
        }
    }
    if winding.abs() > x_period / 2.0 {
        if !frame.poles {
            return None;
        }
        let mean_y = corners.iter().map(|c| c.1).sum::<f64>() / n as f64;
        let pole = if mean_y >= 0.0 { frame.y.1 } else { frame.y.0 };
        polygon.extend([
            (first_x + winding, first_y),
            (first_x + winding, pole),
            (first_x, pole),
        ]);
    }
    if frame.y_periodic {
        for k in 1..polygon.len() {
            polygon[k].1 = polygon[k - 1].1 + wrap(polygon[k].1 - polygon[k - 1].1, y_period);
        }
    }
    Some(polygon)
}

/// The copies of an unwrapped `polygon`, shifted by whole periods, that show on the map,
/// clipped to it.
fn on_map(frame: &MapFrame, polygon: &[(f64, f64)]) -> Vec<Vec<(f64, f64)>> {
    let x_period = frame.x.1 - frame.x.0;
    let y_period = frame.y.1 - frame.y.0;
    let y_shifts: &[f64] = if frame.y_periodic {
        &[-y_period, 0.0, y_period]
    } else {
        &[0.0]
    };
    let mut out = Vec::new();
    for dx in [-x_period, 0.0, x_period] {
        for &dy in y_shifts {
            let copy = polygon.iter().map(|&(x, y)| (x + dx, y + dy));
            let (lo, hi) = copy.clone().fold(
                (
                    (f64::INFINITY, f64::INFINITY),
                    (f64::NEG_INFINITY, f64::NEG_INFINITY),
                ),
                |(lo, hi), (x, y)| ((lo.0.min(x), lo.1.min(y)), (hi.0.max(x), hi.1.max(y))),
            );
            // Strictly: a copy that only touches the map's border would fill a line there.
            let overlaps =
                lo.0 < frame.x.1 && hi.0 > frame.x.0 && lo.1 < frame.y.1 && hi.1 > frame.y.0;
            let inside =
                lo.0 >= frame.x.0 && hi.0 <= frame.x.1 && lo.1 >= frame.y.0 && hi.1 <= frame.y.1;
            if inside {
                out.push(copy.collect());
            } else if overlaps {
                let piece = clip(copy.collect(), frame);
                if piece.len() >= 3 {
                    out.push(piece);
                }
            }
        }
    }
    out
}

/// `polygon` clipped to the map's rectangle (Sutherland–Hodgman: the rectangle is convex, one
/// pass per side).
fn clip(mut polygon: Vec<(f64, f64)>, frame: &MapFrame) -> Vec<(f64, f64)> {
    let sides = [
        (0, frame.x.0, true),
        (0, frame.x.1, false),
        (1, frame.y.0, true),
        (1, frame.y.1, false),
    ];
    for (axis, bound, keep_above) in sides {
        let coord = |p: (f64, f64)| if axis == 0 { p.0 } else { p.1 };
        let inside = |p: (f64, f64)| coord(p) == bound || (coord(p) > bound) == keep_above;
        let input = std::mem::take(&mut polygon);
        for (k, &p) in input.iter().enumerate() {
            let q = input[(k + 1) % input.len()];
            if inside(p) {
                polygon.push(p);
            }
            if inside(p) != inside(q) {
                let t = (bound - coord(p)) / (coord(q) - coord(p));
                polygon.push((p.0 + t * (q.0 - p.0), p.1 + t * (q.1 - p.1)));
            }
        }
    }
    polygon
}

/// What a map fills: polygons in map coordinates, each showing one value of a panel.
pub struct MapTiles {
    frame: MapFrame,
    polygons: Vec<Vec<(f64, f64)>>,
    /// The index into a panel's values of each polygon.
    source: Vec<usize>,
    sources: usize,
}

impl MapTiles {
    fn new(frame: MapFrame, sources: usize) -> MapTiles {
        MapTiles {
            frame,
            polygons: Vec::new(),
            source: Vec::new(),
            sources,
        }
    }

    fn add(&mut self, source: usize, corners: &[(Option<f64>, f64)]) {
        for piece in pieces(&self.frame, corners) {
            self.polygons.push(piece);
            self.source.push(source);
        }
    }

    /// Each cell's triangle, its C2V corners.
    pub fn cells(grid: &Grid) -> Result<MapTiles, Error> {
        let c2v = grid.table("C2V")?;
        let frame = MapFrame::of(grid.geometry.surface);
        let vertices = grid.geometry.vertex_position.view();
        let mut tiles = MapTiles::new(frame, grid.num_cells);
        for (cell, corners) in c2v.outer_iter().enumerate() {
            let corners: Vec<_> = corners
                .iter()
                .filter_map(|&v| usize::try_from(v).ok())
                .map(|v| frame.place(point(vertices, v)))
                .collect();
            tiles.add(cell, &corners);
        }
        Ok(tiles)
    }

    /// Each edge's diamond: its E2V ends and the centres of its E2C cells, in turn, so the
    /// diamonds tile the sphere as the cells do (an edge with one cell, at a limited area's
    /// border, gets a triangle).
    pub fn edges(grid: &Grid) -> Result<MapTiles, Error> {
        let (e2v, e2c) = (grid.table("E2V")?, grid.table("E2C")?);
        let frame = MapFrame::of(grid.geometry.surface);
        let vertices = grid.geometry.vertex_position.view();
        let centres = grid.geometry.cell_center.view();
        let mut tiles = MapTiles::new(frame, grid.num_edges);
        for (edge, (ends, cells)) in e2v.outer_iter().zip(e2c.outer_iter()).enumerate() {
            let corner = |positions: ArrayView2<'_, f64>, i: i32| {
                usize::try_from(i)
                    .ok()
                    .map(|i| frame.place(point(positions, i)))
            };
            let corners: Vec<_> = [
                corner(vertices, ends[0]),
                corner(centres, cells[0]),
                corner(vertices, ends[1]),
                corner(centres, cells[1]),
            ]
            .into_iter()
            .flatten()
            .collect();
            tiles.add(edge, &corners);
        }
        Ok(tiles)
    }
}

fn point(positions: ArrayView2<'_, f64>, i: usize) -> [f64; 3] {
    [positions[[i, 0]], positions[[i, 1]], positions[[i, 2]]]
}

/// Maps of `tiles` filled with each panel's values, side by side, with one symmetric colour
/// scale `[-scale, scale]` and a colour bar.
pub fn maps(
    path: &Path,
    title: &str,
    tiles: &MapTiles,
    panels: &[MapPanel<'_>],
    scale: f64,
    unit: &str,
) -> Result<(), Error> {
    if let Some(panel) = panels.iter().find(|p| p.values.len() != tiles.sources) {
        return Err(Error::Shape(format!(
            "{}: panel `{}` has {} values for {} map tiles",
            path.display(),
            panel.title,
            panel.values.len(),
            tiles.sources
        )));
    }
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
    let frame = tiles.frame;
    let (x_desc, y_desc) = frame.axes();
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
            .build_cartesian_2d(frame.x.0..frame.x.1, frame.y.0..frame.y.1)
            .map_err(|e| plot_error(path, e))?;
        chart
            .draw_series(
                tiles
                    .polygons
                    .iter()
                    .zip(&tiles.source)
                    .map(|(polygon, &i)| {
                        Polygon::new(polygon.clone(), diverging(panel.values[i] / scale).filled())
                    }),
            )
            .map_err(|e| plot_error(path, e))?;
        if has_font {
            // Over the tiles, so the graticule stays visible on the filled map.
            chart
                .configure_mesh()
                .x_desc(x_desc)
                .y_desc(y_desc)
                .x_labels(7)
                .y_labels(7)
                .light_line_style(TRANSPARENT)
                .draw()
                .map_err(|e| plot_error(path, e))?;
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Shoelace area, positive counter-clockwise.
    fn area(polygon: &[(f64, f64)]) -> f64 {
        let n = polygon.len();
        (0..n)
            .map(|k| {
                let (p, q) = (polygon[k], polygon[(k + 1) % n]);
                p.0 * q.1 - q.0 * p.1
            })
            .sum::<f64>()
            / 2.0
    }

    fn total_area(tiles: &MapTiles) -> f64 {
        tiles.polygons.iter().map(|p| area(p).abs()).sum()
    }

    #[test]
    fn a_cell_inside_the_map_is_its_corners_in_order() {
        let corners = [(Some(10.0), 20.0), (Some(12.0), 20.0), (Some(11.0), 22.0)];
        assert_eq!(
            pieces(&MapFrame::LON_LAT, &corners),
            vec![vec![(10.0, 20.0), (12.0, 20.0), (11.0, 22.0)]]
        );
    }

    #[test]
    fn a_cell_across_the_dateline_is_split_at_both_sides_of_the_map() {
        let corners = [(Some(179.0), 0.0), (Some(-179.0), 0.0), (Some(179.0), 2.0)];
        let split = pieces(&MapFrame::LON_LAT, &corners);
        assert_eq!(split.len(), 2, "{split:?}");
        for piece in &split {
            assert!(
                piece.iter().all(|p| (-180.0..=180.0).contains(&p.0)),
                "{piece:?}"
            );
        }
        // One piece ends at each side, and together they are the whole cell.
        let ends: Vec<f64> = split
            .iter()
            .map(|piece| piece.iter().map(|p| p.0.abs()).fold(0.0, f64::max))
            .collect();
        assert_eq!(ends, [180.0, 180.0]);
        let whole = area(&[(179.0, 0.0), (181.0, 0.0), (179.0, 2.0)]);
        let parts: f64 = split.iter().map(|p| area(p)).sum();
        assert!((parts - whole).abs() < 1e-12, "{parts} vs {whole}");
    }

    #[test]
    fn a_corner_at_a_pole_becomes_a_stretch_of_the_pole_line() {
        let corners = [(None, 90.0), (Some(10.0), 88.0), (Some(40.0), 88.0)];
        assert_eq!(
            pieces(&MapFrame::LON_LAT, &corners),
            vec![vec![(40.0, 90.0), (10.0, 90.0), (10.0, 88.0), (40.0, 88.0)]]
        );
    }

    #[test]
    fn a_cell_round_a_pole_is_closed_along_the_pole_line() {
        let corners = [(Some(0.0), 85.0), (Some(120.0), 85.0), (Some(-120.0), 85.0)];
        let cap = pieces(&MapFrame::LON_LAT, &corners);
        let covered: f64 = cap.iter().map(|p| area(p).abs()).sum();
        assert!((covered - 360.0 * 5.0).abs() < 1e-9, "{cap:?}");
    }

    #[test]
    fn cells_and_diamonds_tile_the_map_once() -> Result<(), Error> {
        for spec in ["r2b1", "torus:6x4"] {
            let grid = crate::cli::grid::build(spec)?;
            let frame = MapFrame::of(grid.geometry.surface);
            let map = (frame.x.1 - frame.x.0) * (frame.y.1 - frame.y.0);
            for tiles in [MapTiles::cells(&grid)?, MapTiles::edges(&grid)?] {
                let covered = total_area(&tiles);
                assert!(
                    (covered - map).abs() < 1e-9 * map,
                    "{spec}: {covered} of {map}"
                );
            }
        }
        Ok(())
    }
}
