//! A doubly periodic plane of equilateral triangles (ICON's torus grids, small, for tests).

use super::surface::Surface;
use super::{Grid, GridKind};
use crate::error::Error;

pub fn generate(nx: usize, ny: usize, edge_length: f64) -> Result<Grid, Error> {
    // Odd rows are shifted by half an edge, so rows pair up and `ny` must be even; the
    // minimal-image distances need at least 3 columns and 4 rows.
    if nx < 3 || ny < 4 || !ny.is_multiple_of(2) {
        return Err(Error::Config(format!(
            "a torus needs nx >= 3 and an even ny >= 4, got {nx} x {ny}"
        )));
    }
    if !(edge_length.is_finite() && edge_length > 0.0) {
        return Err(Error::Config(format!(
            "edge length must be positive, got {edge_length}"
        )));
    }
    let row_height = edge_length * 3f64.sqrt() / 2.0;
    let surface = Surface::Torus {
        length_x: nx as f64 * edge_length,
        length_y: ny as f64 * row_height,
    };
    let mut points = Vec::with_capacity(nx * ny);
    for j in 0..ny {
        let shift = if j % 2 == 1 { 0.5 } else { 0.0 };
        for i in 0..nx {
            points.push([(i as f64 + shift) * edge_length, j as f64 * row_height, 0.0]);
        }
    }
    let v = |i: usize, j: usize| ((j % ny) * nx + (i % nx)) as u32;
    let mut cells = Vec::with_capacity(2 * nx * ny);
    for j in 0..ny {
        for i in 0..nx {
            if j % 2 == 0 {
                cells.push([v(i, j), v(i + 1, j), v(i, j + 1)]);
                cells.push([v(i + 1, j), v(i + 1, j + 1), v(i, j + 1)]);
            } else {
                cells.push([v(i, j), v(i + 1, j), v(i + 1, j + 1)]);
                cells.push([v(i + 1, j), v(i + 2, j + 1), v(i + 1, j + 1)]);
            }
        }
    }
    Grid::from_triangles(
        surface,
        points,
        &cells,
        GridKind::Torus {
            nx,
            ny,
            edge_length,
        },
    )
}
