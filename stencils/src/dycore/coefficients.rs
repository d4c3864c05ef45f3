//! The interpolation coefficients of the dynamical core that the grid's [`Geometry`] does not
//! hold, computed from it as ICON4Py 0.4.1's `interpolation_fields.py` computes them (the
//! functions its interpolation factory calls), operation for operation, so that the results
//! agree with ICON4Py's to the last bits its NumPy arithmetic allows.
//!
//! Zones decide where each coefficient is computed, as the factory's `horizontal_start`
//! arguments do; points before that start are 0. Every point of the grid counts as owned (a
//! single domain: ICON4Py's owner masks are all true and its halo exchanges do nothing).
//!
//! [`Geometry`]: gt4rs::grid::Geometry

use std::f64::consts::PI;

use gt4rs::grid::{lat_lon, Grid, GridDim, Surface, Zone};
use gt4rs::Error;
use ndarray::{Array1, Array2, ArrayView2};

/// The relaxation of ICON's mass-conservation iteration for `c_bln_avg` (ICON4Py's
/// `_force_mass_conservation_to_c_bln_avg`: 1000 iterations, the last one forcing the residual
/// into the central weight, relaxation 0.46, the central weight kept within ±0.003 of its
/// configured value).
const MASS_CONSERVATION_ITERATIONS: usize = 1000;
const MASS_CONSERVATION_RELAXATION: f64 = 0.46;
const CENTRAL_WEIGHT_SPREAD: f64 = 0.003;

/// Neighbour `slot` of `point` in `table`, or an error where the table has none (a point whose
/// stencil leaves the grid where ICON computes the coefficient).
fn neighbour(
    table: &ArrayView2<'_, i32>,
    name: &str,
    point: usize,
    slot: usize,
) -> Result<usize, Error> {
    let n = table[[point, slot]];
    usize::try_from(n).map_err(|_| Error::Connectivity {
        offset: name.to_string(),
        message: format!(
            "point {point} has no neighbour in slot {slot}, but the coefficients need it there \
             (are the grid's zones ICON's?)"
        ),
    })
}

/// Checks that the tables and geometry arrays the coefficients read have the grid's sizes and
/// that every table entry is -1 or a point of the grid, so that a damaged grid is an error
/// rather than an out-of-bounds index.
fn validate(grid: &Grid) -> Result<(), Error> {
    let (nc, ne) = (grid.num_cells, grid.num_edges);
    validate_tables(
        grid,
        &[
            ("C2E", nc, 3, ne),
            ("E2C", ne, 2, nc),
            ("C2E2C", nc, 3, nc),
            ("C2E2CO", nc, 4, nc),
            ("E2C2E", ne, 4, ne),
            ("E2C2EO", ne, 5, ne),
        ],
    )?;
    let g = &grid.geometry;
    let shapes: [(&str, &[usize], Vec<usize>); 12] = [
        ("cell_center", g.cell_center.shape(), vec![nc, 3]),
        ("edge_center", g.edge_center.shape(), vec![ne, 3]),
        ("cell_area", g.cell_area.shape(), vec![nc]),
        ("geofac_div", g.geofac_div.shape(), vec![nc, 3]),
        (
            "inv_dual_edge_length",
            g.inv_dual_edge_length.shape(),
            vec![ne],
        ),
        ("dual_edge_length", g.dual_edge_length.shape(), vec![ne]),
        ("primal_normal", g.primal_normal.shape(), vec![ne, 3]),
        ("primal_normal_x", g.primal_normal_x.shape(), vec![ne]),
        ("primal_normal_y", g.primal_normal_y.shape(), vec![ne]),
        ("dual_normal_x", g.dual_normal_x.shape(), vec![ne]),
        ("dual_normal_y", g.dual_normal_y.shape(), vec![ne]),
        ("c_lin_e", g.c_lin_e.shape(), vec![ne, 2]),
    ];
    validate_shapes(&shapes)
}

/// Checks that each table `(name, rows, columns, targets)` has the grid's shape and holds
/// only -1 or points below `targets`.
fn validate_tables(grid: &Grid, tables: &[(&str, usize, usize, usize)]) -> Result<(), Error> {
    for &(name, rows, cols, targets) in tables {
        let table = grid.table(name)?;
        if table.dim() != (rows, cols) {
            return Err(Error::Shape(format!(
                "table {name} is {:?}, the grid needs ({rows}, {cols})",
                table.dim()
            )));
        }
        if let Some(bad) = table
            .iter()
            .find(|&&n| n < -1 || n as i64 >= targets as i64)
        {
            return Err(Error::Connectivity {
                offset: name.into(),
                message: format!("entry {bad} is outside -1..{targets}"),
            });
        }
    }
    Ok(())
}

/// Checks that each geometry array `(name, shape, expected)` has the expected shape.
fn validate_shapes(shapes: &[(&str, &[usize], Vec<usize>)]) -> Result<(), Error> {
    for (name, shape, expected) in shapes {
        if *shape != expected.as_slice() {
            return Err(Error::Shape(format!(
                "geometry array {name} is {shape:?}, the grid needs {expected:?}"
            )));
        }
    }
    Ok(())
}

/// Latitudes and longitudes (radians) of points `[n, xyz]`, as [`lat_lon`].
pub fn latitudes_longitudes(
    points: ArrayView2<'_, f64>,
) -> Result<(Array1<f64>, Array1<f64>), Error> {
    if points.ncols() != 3 {
        return Err(Error::Shape(format!(
            "points are {:?}, not [n, 3] positions",
            points.dim()
        )));
    }
    let n = points.nrows();
    let mut lat = Array1::zeros(n);
    let mut lon = Array1::zeros(n);
    for i in 0..n {
        (lat[i], lon[i]) = lat_lon([points[[i, 0]], points[[i, 1]], points[[i, 2]]]);
    }
    Ok((lat, lon))
}

/// ICON4Py's `_rotate_latlon`: `(lat, lon)` in the system whose pole is `(pollat, pollon)`.
fn rotate(lat: f64, lon: f64, pollat: f64, pollon: f64) -> (f64, f64) {
    let rotlat =
        (lat.sin() * pollat.sin() + lat.cos() * pollat.cos() * (lon - pollon).cos()).asin();
    let rotlon = (lat.cos() * (lon - pollon).sin())
        .atan2(lat.cos() * pollat.sin() * (lon - pollon).cos() - lat.sin() * pollat.cos());
    (rotlat, rotlon)
}

/// ICON4Py's `_weighting_factors` at one point: the weights of its three neighbours
/// `(ytemp, xtemp)` (latitudes, longitudes) around `(yloc, xloc)` that, with `wgt_loc` at the
/// point itself, sum to 1 and interpolate a linear function of the rotated coordinates exactly.
fn weighting_factors(
    ytemp: [f64; 3],
    xtemp: [f64; 3],
    yloc: f64,
    xloc: f64,
    wgt_loc: f64,
) -> [f64; 3] {
    let pollat = if yloc >= 0.0 {
        yloc - PI * 0.5
    } else {
        yloc + PI * 0.5
    };
    let pollon = xloc;
    let (yloc, xloc) = rotate(yloc, xloc, pollat, pollon);
    let mut x = [0.0; 3];
    let mut y = [0.0; 3];
    for i in 0..3 {
        let (yt, xt) = rotate(ytemp[i], xtemp[i], pollat, pollon);
        y[i] = yt - yloc;
        x[i] = xt - xloc;
        // Across the date line.
        if x[i] > 3.5 {
            x[i] -= PI * 2.0;
        }
        if x[i] < -3.5 {
            x[i] += PI * 2.0;
        }
    }
    let mask = (x[1] - x[0]).abs() > 1.0e-11 && (y[2] - y[0]).abs() > 1.0e-11;
    let wgt_1_no_mask = 1.0 / ((y[1] - y[0]) - (x[1] - x[0]) * (y[2] - y[0]) / (x[2] - x[0]))
        * (1.0 - wgt_loc)
        * (-y[0] + x[0] * (y[2] - y[0]) / (x[2] - x[0]));
    let (w1, w2) = if mask {
        let w2 = 1.0 / ((y[2] - y[0]) - (x[2] - x[0]) * (y[1] - y[0]) / (x[1] - x[0]))
            * (1.0 - wgt_loc)
            * (-y[0] + x[0] * (y[1] - y[0]) / (x[1] - x[0]));
        (
            (-(1.0 - wgt_loc) * x[0] - w2 * (x[2] - x[0])) / (x[1] - x[0]),
            w2,
        )
    } else {
        let w2 = (-(1.0 - wgt_loc) * x[0] - wgt_1_no_mask * (x[1] - x[0])) / (x[2] - x[0]);
        (wgt_1_no_mask, w2)
    };
    let w0 = if wgt_loc == 0.0 {
        1.0 - w1 - w2
    } else {
        1.0 - wgt_loc - w1 - w2
    };
    [w0, w1, w2]
}

/// ICON's `c_bln_avg` (C2E2CO): the weights of the divergence averaging over a cell and its
/// three neighbours, with `central_weight` (ICON's `divavg_cntrwgt`) at the cell, made mass
/// conserving as ICON4Py's `compute_mass_conserving_bilinear_cell_average_weight` does (on the
/// torus: uniform weights, then the same iteration). Computed from lateral boundary level 2,
/// corrected from level 3.
pub fn bilinear_cell_average(grid: &Grid, central_weight: f64) -> Result<Array2<f64>, Error> {
    validate(grid)?;
    let c2e2c = grid.table("C2E2C")?;
    let c2e2co = grid.table("C2E2CO")?;
    let nc = grid.num_cells;
    let start = grid.start(GridDim::Cell, Zone::LateralBoundaryLevel2)?;
    let start_3 = grid.start(GridDim::Cell, Zone::LateralBoundaryLevel3)?;
    let mut weights = Array2::<f64>::zeros((nc, 4));
    match grid.geometry.surface {
        Surface::Sphere { .. } => {
            let (lat, lon) = latitudes_longitudes(grid.geometry.cell_center.view())?;
            for c in start..nc {
                let mut ytemp = [0.0; 3];
                let mut xtemp = [0.0; 3];
                for i in 0..3 {
                    let n = neighbour(&c2e2c, "C2E2C", c, i)?;
                    (ytemp[i], xtemp[i]) = (lat[n], lon[n]);
                }
                let w = weighting_factors(ytemp, xtemp, lat[c], lon[c], central_weight);
                weights[[c, 0]] = central_weight;
                weights[[c, 1]] = w[0];
                weights[[c, 2]] = w[1];
                weights[[c, 3]] = w[2];
            }
        }
        // ICON4Py's `_compute_uniform_c_bln_avg`: every cell, whatever the zone.
        Surface::Torus { .. } => {
            let neighbour_weight = (1.0 - central_weight) / 3.0;
            for c in 0..nc {
                weights[[c, 0]] = central_weight;
                for k in 1..4 {
                    weights[[c, k]] = neighbour_weight;
                }
            }
        }
    }
    force_mass_conservation(grid, &c2e2co, weights, central_weight, start_3)
}

/// ICON4Py's `_create_inverse_neighbor_index` of a table onto itself: the slot in which each
/// neighbour lists the point (-1 where there is no neighbour or it does not list the point).
fn inverse_neighbour_index(table: &ArrayView2<'_, i32>) -> Array2<i32> {
    let (n, width) = table.dim();
    let mut inverse = Array2::from_elem((n, width), -1);
    for p in 0..n {
        for i in 0..width {
            let Ok(q) = usize::try_from(table[[p, i]]) else {
                continue;
            };
            if let Some(j) = (0..table.ncols()).find(|&j| table[[q, j]] == p as i32) {
                inverse[[p, i]] = j as i32;
            }
        }
    }
    inverse
}

/// ICON4Py's `_force_mass_conservation_to_c_bln_avg` from cell `start` (lateral boundary level
/// 3): that each cell's weights, summed over the cells that use them and weighted by their
/// areas, add up to the cell's own area.
fn force_mass_conservation(
    grid: &Grid,
    c2e2co: &ArrayView2<'_, i32>,
    mut weights: Array2<f64>,
    central_weight: f64,
    start: usize,
) -> Result<Array2<f64>, Error> {
    let nc = grid.num_cells;
    let area = &grid.geometry.cell_area;
    let inverse = inverse_neighbour_index(c2e2co);
    // The neighbours and the slots that point back, checked once.
    let mut back = Vec::with_capacity((nc - start) * 4);
    for c in start..nc {
        for k in 0..4 {
            let n = neighbour(c2e2co, "C2E2CO", c, k)?;
            let slot = usize::try_from(inverse[[c, k]]).map_err(|_| Error::Connectivity {
                offset: "C2E2CO".into(),
                message: format!("cell {n} does not list its neighbour {c}"),
            })?;
            back.push((n, slot));
        }
    }
    let (min_weight, max_weight) = (
        central_weight - CENTRAL_WEIGHT_SPREAD,
        central_weight + CENTRAL_WEIGHT_SPREAD,
    );
    // On the flat row-major weights (a fresh array, so contiguous), the same operations in
    // the same order as indexing them would do.
    let flat = weights
        .as_slice_mut()
        .ok_or_else(|| Error::Shape("c_bln_avg is not contiguous".into()))?;
    let area = area
        .as_slice()
        .ok_or_else(|| Error::Shape("cell_area is not contiguous".into()))?;
    let mut residual = vec![0.0f64; nc];
    for iteration in 0..MASS_CONSERVATION_ITERATIONS {
        for c in start..nc {
            let mut sum = 0.0;
            for (k, &(n, slot)) in back[(c - start) * 4..(c - start + 1) * 4]
                .iter()
                .enumerate()
            {
                let term = flat[4 * n + slot] * area[n];
                sum = if k == 0 { term } else { sum + term };
            }
            residual[c] = sum / area[c] - 1.0;
        }
        if iteration == MASS_CONSERVATION_ITERATIONS - 1 {
            for c in start..nc {
                flat[4 * c] -= residual[c];
            }
        } else {
            for c in start..nc {
                let row = &mut flat[4 * c..4 * c + 4];
                for (k, w) in row.iter_mut().enumerate() {
                    *w -= MASS_CONSERVATION_RELAXATION * residual[back[(c - start) * 4 + k].0];
                }
                let excess = row[0] + row[1] + row[2] + row[3] - 1.0;
                for w in row.iter_mut() {
                    *w -= 0.25 * excess;
                }
                row[0] = row[0].max(min_weight).min(max_weight);
            }
        }
    }
    Ok(weights)
}

/// The slot `j` of `edge` in `cell`'s C2E.
fn slot_in_cell(c2e: &ArrayView2<'_, i32>, cell: usize, edge: usize) -> Option<usize> {
    (0..c2e.ncols()).find(|&j| c2e[[cell, j]] == edge as i32)
}

/// ICON's order of an edge's diamond (ICON4Py's derived E2C2E): for each of the edge's cells,
/// its edges after the edge's own slot in C2E, cyclically (`(j + 1) % 3`, `(j + 2) % 3`).
fn icon_diamond(
    c2e: &ArrayView2<'_, i32>,
    e2c: &ArrayView2<'_, i32>,
    edge: usize,
) -> Option<[i32; 4]> {
    let mut diamond = [-1; 4];
    for side in 0..2 {
        let cell = usize::try_from(e2c[[edge, side]]).ok()?;
        let j = slot_in_cell(c2e, cell, edge)?;
        diamond[2 * side] = c2e[[cell, (j + 1) % 3]];
        diamond[2 * side + 1] = c2e[[cell, (j + 2) % 3]];
    }
    Some(diamond)
}

/// ICON's `e_flx_avg` (E2C2EO, in the grid's E2C2E order): the weights that average a mass
/// flux over an edge and its diamond consistently with `c_bln_avg`'s divergence averaging, as
/// ICON4Py's `compute_e_flx_avg` (in ICON's diamond order, then permuted into the grid's):
/// the diamond's weights from lateral boundary level 4, the edge's own weight and the
/// normalisation from level 5.
pub fn edge_flux_average(grid: &Grid, c_bln_avg: &Array2<f64>) -> Result<Array2<f64>, Error> {
    validate(grid)?;
    if c_bln_avg.dim() != (grid.num_cells, 4) {
        return Err(Error::Shape(format!(
            "c_bln_avg is {:?}, the grid needs ({}, 4)",
            c_bln_avg.dim(),
            grid.num_cells
        )));
    }
    let c2e = grid.table("C2E")?;
    let e2c = grid.table("E2C")?;
    let c2e2c = grid.table("C2E2C")?;
    let e2c2e = grid.table("E2C2E")?;
    let g = &grid.geometry;
    let geofac_div = &g.geofac_div;
    let ne = grid.num_edges;
    let start_p3 = grid.start(GridDim::Edge, Zone::LateralBoundaryLevel4)?;
    let start_p4 = grid.start(GridDim::Edge, Zone::LateralBoundaryLevel5)?;
    // The slot in which each C2E2C neighbour lists the cell.
    let inverse = inverse_neighbour_index(&c2e2c);
    let mut diamonds = vec![[-1i32; 4]; ne];
    for (e, diamond) in diamonds.iter_mut().enumerate().skip(start_p3) {
        *diamond = icon_diamond(&c2e, &e2c, e).ok_or_else(|| Error::Connectivity {
            offset: "E2C2E".into(),
            message: format!("edge {e} has no complete diamond, but e_flx_avg needs it there"),
        })?;
    }
    let cells = |e: usize| -> Result<(usize, usize), Error> {
        Ok((neighbour(&e2c, "E2C", e, 0)?, neighbour(&e2c, "E2C", e, 1)?))
    };
    // The slot `j` of the edge in its first cell's C2E, and the slot of that cell in its second
    // cell's C2E2C (= the edge's slot in the second cell's C2E).
    let slots = |e: usize, c0: usize| -> Result<(usize, usize), Error> {
        let j = slot_in_cell(&c2e, c0, e).ok_or_else(|| Error::Connectivity {
            offset: "C2E".into(),
            message: format!("cell {c0} does not list its edge {e}"),
        })?;
        let jn = usize::try_from(inverse[[c0, j]]).map_err(|_| Error::Connectivity {
            offset: "C2E2C".into(),
            message: format!("the cell across edge {e} does not list cell {c0}"),
        })?;
        Ok((j, jn))
    };

    let mut avg = Array2::<f64>::zeros((ne, 5));
    for e in start_p3..ne {
        let (c0, c1) = cells(e)?;
        let (j, jn) = slots(e, c0)?;
        for i in 0..2 {
            avg[[e, i + 1]] =
                c_bln_avg[[c1, jn + 1]] * geofac_div[[c0, (i + j + 1) % 3]] / geofac_div[[c1, jn]];
            avg[[e, i + 3]] =
                c_bln_avg[[c0, 1 + j]] * geofac_div[[c1, (jn + i + 1) % 3]] / geofac_div[[c0, j]];
        }
    }
    // The slot (1..=4) under which each diamond edge lists this edge's cell, as ICON's fixed
    // numbers (`iie`): the side of that cell in the neighbour's diamond, and the position after
    // this edge there.
    let iie = |e: usize, k: usize| -> Result<usize, Error> {
        let n = usize::try_from(diamonds[e][k]).map_err(|_| Error::Connectivity {
            offset: "E2C2E".into(),
            message: format!("edge {e} has no diamond edge {k}"),
        })?;
        let own = e2c[[e, k / 2]];
        let (first, second) = if k.is_multiple_of(2) { (2, 4) } else { (1, 3) };
        if e2c[[n, 0]] == own {
            Ok(first)
        } else if e2c[[n, 1]] == own {
            Ok(second)
        } else {
            Err(Error::Connectivity {
                offset: "E2C".into(),
                message: format!("diamond edge {n} of edge {e} does not border cell {own}"),
            })
        }
    };
    let mut own_weight = Array1::<f64>::zeros(ne);
    for e in start_p4..ne {
        let (c0, c1) = cells(e)?;
        let (i, ni) = slots(e, c0)?;
        let d = diamonds[e];
        let at = |k: usize| -> Result<f64, Error> { Ok(avg[[d[k] as usize, iie(e, k)?]]) };
        own_weight[e] = 0.5
            * ((geofac_div[[c0, i]] * c_bln_avg[[c0, 0]]
                + geofac_div[[c1, ni]] * c_bln_avg[[c0, i + 1]]
                - at(0)? * geofac_div[[c0, (i + 1) % 3]]
                - at(1)? * geofac_div[[c0, (i + 2) % 3]])
                / geofac_div[[c0, i]]
                + (geofac_div[[c1, ni]] * c_bln_avg[[c1, 0]]
                    + geofac_div[[c0, i]] * c_bln_avg[[c1, ni + 1]]
                    - at(2)? * geofac_div[[c1, (ni + 1) % 3]]
                    - at(3)? * geofac_div[[c1, (ni + 2) % 3]])
                    / geofac_div[[c1, ni]]);
    }
    for e in start_p4..ne {
        avg[[e, 0]] = own_weight[e];
    }
    // Normalised so that a uniform flow's normal components average to its own: the diamond
    // edges' weights count with the cosine between their normals and this edge's.
    let normal = &g.primal_normal;
    for e in start_p4..ne {
        let d = diamonds[e];
        let mut sum = 0.0;
        for k in 0..4 {
            let n = d[k] as usize;
            let cos = normal[[e, 0]] * normal[[n, 0]]
                + normal[[e, 1]] * normal[[n, 1]]
                + normal[[e, 2]] * normal[[n, 2]];
            let term = cos * avg[[e, k + 1]];
            sum = if k == 0 { term } else { sum + term };
        }
        let checksum = avg[[e, 0]] + sum;
        for k in 0..5 {
            avg[[e, k]] /= checksum;
        }
    }
    // Into the grid's E2C2E order.
    let mut out = Array2::<f64>::zeros((ne, 5));
    for e in start_p3..ne {
        out[[e, 0]] = avg[[e, 0]];
        for s in 0..4 {
            let k = (0..4)
                .find(|&k| diamonds[e][k] == e2c2e[[e, s]])
                .ok_or_else(|| Error::Connectivity {
                    offset: "E2C2E".into(),
                    message: format!("edge {e}: slot {s} of E2C2E is not in the edge's diamond"),
                })?;
            out[[e, s + 1]] = avg[[e, k + 1]];
        }
    }
    Ok(out)
}

/// ICON's `geofac_grdiv` (E2C2EO): the gradient at an edge of the divergence at its two cells,
/// as ICON4Py's `compute_geofac_grdiv`, from lateral boundary level 2.
pub fn gradient_of_divergence(grid: &Grid) -> Result<Array2<f64>, Error> {
    validate(grid)?;
    let c2e = grid.table("C2E")?;
    let e2c = grid.table("E2C")?;
    let e2c2e = grid.table("E2C2E")?;
    let geofac_div = &grid.geometry.geofac_div;
    let inv_dual = &grid.geometry.inv_dual_edge_length;
    let ne = grid.num_edges;
    let start = grid.start(GridDim::Edge, Zone::LateralBoundaryLevel2)?;
    let mut grdiv = Array2::<f64>::zeros((ne, 5));
    for e in start..ne {
        let c0 = neighbour(&e2c, "E2C", e, 0)?;
        let c1 = neighbour(&e2c, "E2C", e, 1)?;
        let mut own = 0.0;
        for j in 0..3 {
            if c2e[[c1, j]] == e as i32 {
                own = geofac_div[[c1, j]];
            }
        }
        for j in 0..3 {
            if c2e[[c0, j]] == e as i32 {
                own = (own - geofac_div[[c0, j]]) * inv_dual[e];
            }
        }
        grdiv[[e, 0]] = own;
        for j in 0..2 {
            for k in 0..3 {
                if c2e[[c0, k]] == e2c2e[[e, j]] {
                    grdiv[[e, 1 + j]] = -geofac_div[[c0, k]] * inv_dual[e];
                }
                if c2e[[c1, k]] == e2c2e[[e, 2 + j]] {
                    grdiv[[e, 3 + j]] = geofac_div[[c1, k]] * inv_dual[e];
                }
            }
        }
    }
    Ok(grdiv)
}

/// ICON's `e_bln_c_s` (C2E): the weights that average an edge field onto a cell, as ICON4Py's
/// `compute_e_bln_c_s`: [`weighting_factors`] of the cell's three edge midpoints around its
/// centre in the rotated latitude-longitude plane, with no weight at the centre (ICON's
/// `wgt_loc` 0), on every cell. On the torus: 1/3 each (`compute_e_bln_c_s_torus`).
pub fn edge_to_cell_weights(grid: &Grid) -> Result<Array2<f64>, Error> {
    validate(grid)?;
    let c2e = grid.table("C2E")?;
    let nc = grid.num_cells;
    let g = &grid.geometry;
    if matches!(g.surface, Surface::Torus { .. }) {
        return Ok(Array2::from_elem((nc, 3), 1.0 / 3.0));
    }
    let (cell_lat, cell_lon) = latitudes_longitudes(g.cell_center.view())?;
    let (edge_lat, edge_lon) = latitudes_longitudes(g.edge_center.view())?;
    let mut weights = Array2::<f64>::zeros((nc, 3));
    for c in 0..nc {
        let mut ytemp = [0.0; 3];
        let mut xtemp = [0.0; 3];
        for i in 0..3 {
            let e = neighbour(&c2e, "C2E", c, i)?;
            (ytemp[i], xtemp[i]) = (edge_lat[e], edge_lon[e]);
        }
        let w = weighting_factors(ytemp, xtemp, cell_lat[c], cell_lon[c], 0.0);
        for i in 0..3 {
            weights[[c, i]] = w[i];
        }
    }
    Ok(weights)
}

/// ICON's `cells_aw_verts` (V2C, the dynamical core's `c_intp`): the weights that average a
/// cell field onto a vertex, as ICON4Py's `compute_cells_aw_verts`, from lateral boundary
/// level 2: for each edge `k` of vertex `v` and each cell `j` of the edge,
/// `½ Σ_k l(j, k) d(v, k) / A_v`, with `l` the distance from the cell's centre to the edge,
/// `d` from the vertex to the edge's midpoint and `A_v` the grid's dual area. Edges are taken
/// in V2E order and a missing or repeated slot (V2E or V2C) adds nothing, as in ICON4Py, so
/// that the sums are its sums in its order.
pub fn cell_to_vertex_weights(grid: &Grid) -> Result<Array2<f64>, Error> {
    let (nc, nv, ne) = (grid.num_cells, grid.num_vertices, grid.num_edges);
    validate_tables(
        grid,
        &[
            ("V2E", nv, 6, ne),
            ("V2C", nv, 6, nc),
            ("E2V", ne, 2, nv),
            ("E2C", ne, 2, nc),
        ],
    )?;
    let g = &grid.geometry;
    validate_shapes(&[
        ("dual_area", g.dual_area.shape(), vec![nv]),
        ("edge_vert_length", g.edge_vert_length.shape(), vec![ne, 2]),
        ("edge_cell_length", g.edge_cell_length.shape(), vec![ne, 2]),
    ])?;
    let v2e = grid.table("V2E")?;
    let v2c = grid.table("V2C")?;
    let e2v = grid.table("E2V")?;
    let e2c = grid.table("E2C")?;
    let start = grid.start(GridDim::Vertex, Zone::LateralBoundaryLevel2)?;
    let mut weights = Array2::<f64>::zeros((nv, 6));
    for v in start..nv {
        let counts = |table: &ArrayView2<'_, i32>, slot: usize| {
            table[[v, slot]] != -1 && (slot == 0 || table[[v, slot]] != table[[v, slot - 1]])
        };
        for k in 0..6 {
            if !counts(&v2e, k) {
                continue;
            }
            let e = v2e[[v, k]] as usize;
            let end = if e2v[[e, 0]] == v as i32 { 0 } else { 1 };
            let to_vertex = g.edge_vert_length[[e, end]];
            for j in 0..6 {
                if !counts(&v2c, j) {
                    continue;
                }
                for side in 0..2 {
                    if e2c[[e, side]] == v2c[[v, j]] {
                        weights[[v, j]] += to_vertex * g.edge_cell_length[[e, side]];
                    }
                }
            }
        }
        for j in 0..6 {
            weights[[v, j]] = 0.5 * weights[[v, j]] / g.dual_area[v];
        }
    }
    Ok(weights)
}

/// ICON's `pos_on_tplane_e` (E2C), as ICON4Py's `compute_pos_on_tplane_e_x_y`: the centres
/// of an edge's two cells in the plane tangent at the edge's midpoint (gnomonic projection,
/// metres), as components along the edge's normal (`.0`, ICON's `pos_on_tplane_e_x`) and
/// tangent (`.1`, `_y`); 0 for a missing cell. On the torus: `∓ dual_edge_length / 2` along
/// the normal (ICON4Py's `compute_pos_on_tplane_e_x_y_torus`).
pub fn positions_on_tangent_plane(grid: &Grid) -> Result<(Array2<f64>, Array2<f64>), Error> {
    validate(grid)?;
    let e2c = grid.table("E2C")?;
    let g = &grid.geometry;
    let ne = grid.num_edges;
    let mut along_normal = Array2::<f64>::zeros((ne, 2));
    let mut along_tangent = Array2::<f64>::zeros((ne, 2));
    let radius = match g.surface {
        Surface::Sphere { radius } => radius,
        Surface::Torus { .. } => {
            let half = 0.5 * g.dual_edge_length.first().copied().unwrap_or(0.0);
            along_normal.column_mut(0).fill(-half);
            along_normal.column_mut(1).fill(half);
            return Ok((along_normal, along_tangent));
        }
    };
    let (cell_lat, cell_lon) = latitudes_longitudes(g.cell_center.view())?;
    let (edge_lat, edge_lon) = latitudes_longitudes(g.edge_center.view())?;
    let start = grid.start(GridDim::Edge, Zone::LateralBoundaryLevel1)?;
    for e in start..ne {
        for side in 0..2 {
            let c = e2c[[e, side]];
            // ICON4Py's `valid_e2c_neighbors`: a missing or repeated second cell is none.
            if c < 0 || (side == 1 && c == e2c[[e, 0]]) {
                continue;
            }
            let c = c as usize;
            let (lat_c, lon_c, lat, lon) = (edge_lat[e], edge_lon[e], cell_lat[c], cell_lon[c]);
            let cosc = lat_c.sin() * lat.sin() + lat_c.cos() * lat.cos() * (lon - lon_c).cos();
            let zk = 1.0 / cosc;
            let x = zk * lat.cos() * (lon - lon_c).sin() * radius;
            let y = zk
                * (lat_c.cos() * lat.sin() - lat_c.sin() * lat.cos() * (lon - lon_c).cos())
                * radius;
            along_normal[[e, side]] = x * g.primal_normal_x[e] + y * g.primal_normal_y[e];
            along_tangent[[e, side]] = x * g.dual_normal_x[e] + y * g.dual_normal_y[e];
        }
    }
    Ok((along_normal, along_tangent))
}

/// ICON's refinement level of each edge (`refin_e_ctrl`) from the grid's zones: 1-8 on the
/// lateral boundary rows, 9 and 10 on the nudging rows, 0 elsewhere.
fn edge_refinement_levels(grid: &Grid) -> Result<Vec<i32>, Error> {
    let mut refin = vec![0; grid.num_edges];
    let zones = Zone::LATERAL_BOUNDARY
        .into_iter()
        .chain([Zone::Nudging, Zone::NudgingLevel2]);
    for (level, zone) in zones.enumerate() {
        let (start, end) = (
            grid.start(GridDim::Edge, zone)?,
            grid.end(GridDim::Edge, zone)?,
        );
        refin[start..end].fill(level as i32 + 1);
    }
    Ok(refin)
}

/// The refinement level of the first nudged edge row (ICON4Py's
/// `get_nudging_refinement_value(EdgeDim)`: the last lateral boundary level of edges, 8, plus
/// the last nudging level, 2; ICON's `grf_nudge_start_e`).
pub const NUDGE_START_EDGE_LEVEL: i32 = 10;

/// ICON's default width of the nudging zone in cell rows (`nudge_zone_width`, `interpol_nml`).
pub const NUDGE_ZONE_WIDTH: i32 = 10;

/// ICON's `nudgecoeff_e` as ICON4Py's `compute_nudgecoeffs` on the domain its factory gives
/// (edges from the second nudging row to the end): `max · exp(-(level - 10) / (2 efold))` on
/// edges of refinement level `0 < level <= 2 zone_width + 7`, 0 elsewhere (everywhere on a
/// global grid, whose edges have level 0).
pub fn nudging_coefficients(
    grid: &Grid,
    max_coefficient: f64,
    efold_width: f64,
    zone_width: i32,
) -> Result<Array1<f64>, Error> {
    let refin = edge_refinement_levels(grid)?;
    let start = grid.start(GridDim::Edge, Zone::NudgingLevel2)?;
    let last_level = 2 * zone_width + (NUDGE_START_EDGE_LEVEL - 3);
    let mut coeff = Array1::zeros(grid.num_edges);
    for e in start..grid.num_edges {
        if refin[e] > 0 && refin[e] <= last_level {
            coeff[e] = max_coefficient
                * (-f64::from(refin[e] - NUDGE_START_EDGE_LEVEL) / (2.0 * efold_width)).exp();
        }
    }
    Ok(coeff)
}
