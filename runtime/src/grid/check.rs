//! Consistency checks of a grid: sizes, Euler characteristic, tables against each other,
//! areas and coefficient sums. Used by the tests and by `gt4rs grid info`.

use std::fmt;

use super::surface::Surface;
use super::{Grid, GridDim, GridKind, TABLE_WIDTHS};

/// The outcome of [`Grid::check`]: one line per check, passed or failed.
#[derive(Clone, Debug, Default)]
pub struct CheckReport {
    /// The checks that held, one line each.
    pub passed: Vec<String>,
    /// The checks that failed, one line each saying where.
    pub failed: Vec<String>,
}

impl CheckReport {
    /// Whether every check held.
    pub fn is_ok(&self) -> bool {
        self.failed.is_empty()
    }
    fn record(&mut self, ok: bool, message: String) {
        if ok {
            self.passed.push(message);
        } else {
            self.failed.push(message);
        }
    }
}

impl fmt::Display for CheckReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for m in &self.passed {
            writeln!(f, "  ok    {m}")?;
        }
        for m in &self.failed {
            writeln!(f, "  FAIL  {m}")?;
        }
        Ok(())
    }
}

/// A grid with a lateral boundary: some edge lacks a cell.
fn is_regional(grid: &Grid) -> bool {
    matches!(grid.kind, GridKind::Regional { .. })
        || grid
            .tables
            .get("E2C")
            .is_some_and(|t| t.iter().any(|&c| c < 0))
}

pub fn run(grid: &Grid) -> CheckReport {
    let mut report = CheckReport::default();
    check_tables(grid, &mut report);
    if report.is_ok() {
        check_shapes(grid, &mut report);
    }
    if report.is_ok() {
        check_topology(grid, &mut report);
        check_cross_tables(grid, &mut report);
        check_geometry(grid, &mut report);
    }
    report
}

fn check_tables(grid: &Grid, report: &mut CheckReport) {
    for &(name, width) in TABLE_WIDTHS {
        let Some(t) = grid.tables.get(name) else {
            report.record(false, format!("{name}: missing"));
            continue;
        };
        let (from, to) = super::topology::table_dims(name).expect("known table");
        let (rows, target) = (grid.size(from), grid.size(to));
        let in_range = t
            .iter()
            .all(|&x| x == -1 || (x >= 0 && (x as usize) < target));
        report.record(
            t.dim() == (rows, width) && in_range,
            format!(
                "{name}: shape {:?} (expected ({rows}, {width})), entries in -1..{target}",
                t.dim()
            ),
        );
    }
}

/// Shapes of geometry arrays and the tables that must never hold -1; later checks index
/// with these, so they run only if this passes.
fn check_shapes(grid: &Grid, report: &mut CheckReport) {
    for name in ["C2V", "C2E", "E2V"] {
        if let Some(t) = grid.tables.get(name) {
            report.record(
                t.iter().all(|&x| x >= 0),
                format!("{name} has no missing entries"),
            );
        }
    }
    for dim in GridDim::ALL {
        let zones = grid.zones.of(dim);
        let (lateral, nudging) = super::Zone::levels(dim);
        let ok = zones.size == grid.size(dim)
            && zones.bounds.len() == lateral + nudging + 1
            && zones.bounds.first() == Some(&0)
            && zones.bounds.windows(2).all(|w| w[0] <= w[1])
            && zones.bounds.last().is_some_and(|&b| b <= zones.size);
        report.record(
            ok,
            format!(
                "{} zones are ordered ranges within 0..{}",
                dim.name(),
                grid.size(dim)
            ),
        );
    }
    let mut bad = Vec::new();
    for a in grid.geometry.arrays() {
        let shape = a.data.shape();
        let rows_ok = shape.first() == Some(&grid.size(a.dim));
        let cols_ok = match a.table {
            Some(t) => shape.len() == 2 && grid.tables.get(t).map(|t| t.ncols()) == Some(shape[1]),
            None => shape.len() == 1 || (shape.len() == 2 && shape[1] == 3),
        };
        if !(rows_ok && cols_ok) {
            bad.push(format!("{} {:?}", a.name, shape));
        }
    }
    report.record(
        bad.is_empty(),
        format!(
            "geometry arrays have one row per point and one column per slot{}",
            if bad.is_empty() {
                String::new()
            } else {
                format!(" (wrong: {})", bad.join(", "))
            }
        ),
    );
}

fn check_topology(grid: &Grid, report: &mut CheckReport) {
    let (c, e, v) = (
        grid.num_cells as i64,
        grid.num_edges as i64,
        grid.num_vertices as i64,
    );
    let expected = match (is_regional(grid), grid.geometry.surface) {
        (true, _) => 1,
        (false, Surface::Sphere { .. }) => 2,
        (false, Surface::Torus { .. }) => 0,
    };
    report.record(
        v - e + c == expected,
        format!(
            "Euler characteristic V - E + C = {} (expected {expected})",
            v - e + c
        ),
    );
    let e2c = &grid.tables["E2C"];
    let e2v = &grid.tables["E2V"];
    let two_vertices = e2v
        .rows()
        .into_iter()
        .all(|r| r[0] >= 0 && r[1] >= 0 && r[0] != r[1]);
    report.record(two_vertices, "every edge has two distinct vertices".into());
    if is_regional(grid) {
        let one = e2c.rows().into_iter().all(|r| r[0] >= 0 || r[1] >= 0);
        report.record(one, "every edge has at least one cell".into());
    } else {
        let two = e2c
            .rows()
            .into_iter()
            .all(|r| r[0] >= 0 && r[1] >= 0 && r[0] != r[1]);
        report.record(two, "every edge has two distinct cells".into());
    }
    if let GridKind::Icosahedral { .. } = grid.kind {
        let v2e = &grid.tables["V2E"];
        let pentagons = v2e
            .rows()
            .into_iter()
            .filter(|r| r.iter().filter(|&&x| x >= 0).count() == 5)
            .count();
        let pentagon_slot = v2e.rows().into_iter().all(|r| {
            let n = r.iter().filter(|&&x| x >= 0).count();
            n == 6 || (n == 5 && r[5] == -1)
        });
        report.record(
            pentagons == 12 && pentagon_slot,
            format!("{pentagons} vertices of degree 5 (expected 12), -1 in their sixth slot, all others of degree 6"),
        );
    }
}

fn check_cross_tables(grid: &Grid, report: &mut CheckReport) {
    let tables = cross_check_tables(
        &grid.tables,
        grid.num_cells,
        grid.num_edges,
        grid.num_vertices,
    );
    report.passed.extend(tables.passed);
    report.failed.extend(tables.failed);
}

/// Checks the tables against each other. Entries must already be in range.
pub(crate) fn cross_check_tables(
    tables: &super::Tables,
    num_cells: usize,
    num_edges: usize,
    num_vertices: usize,
) -> CheckReport {
    let mut report = CheckReport::default();
    let report = &mut report;
    let t = |n: &str| &tables[n];
    let (c2v, c2e, c2e2c, e2v, e2c) = (t("C2V"), t("C2E"), t("C2E2C"), t("E2V"), t("E2C"));
    let (v2e, v2c, v2e2v, e2c2v, e2c2e) = (t("V2E"), t("V2C"), t("V2E2V"), t("E2C2V"), t("E2C2E"));
    let contains = |row: ndarray::ArrayView1<i32>, x: i32| row.iter().any(|&y| y == x);

    let mut ok = true;
    for c in 0..num_cells {
        for i in 0..3 {
            let e = c2e[[c, i]] as usize;
            let (a, b) = (c2v[[c, i]], c2v[[c, (i + 1) % 3]]);
            ok &= (e2v[[e, 0]] == a && e2v[[e, 1]] == b) || (e2v[[e, 0]] == b && e2v[[e, 1]] == a);
            ok &= contains(e2c.row(e), c as i32);
            let n = c2e2c[[c, i]];
            let other = if e2c[[e, 0]] == c as i32 {
                e2c[[e, 1]]
            } else {
                e2c[[e, 0]]
            };
            ok &= n == other;
        }
    }
    report.record(
        ok,
        "C2E agrees with C2V and E2V; C2E2C is the cell across each C2E edge (via E2C)".into(),
    );

    let mut ok = true;
    for e in 0..num_edges {
        ok &= e2c2v[[e, 0]] == e2v[[e, 0]] && e2c2v[[e, 1]] == e2v[[e, 1]];
        for k in 0..2 {
            let c = e2c[[e, k]];
            if c < 0 {
                ok &= e2c2v[[e, 2 + k]] == -1;
                continue;
            }
            let cell = c2v.row(c as usize);
            let far = e2c2v[[e, 2 + k]];
            ok &= contains(cell, far) && far != e2v[[e, 0]] && far != e2v[[e, 1]];
            ok &= contains(cell, e2v[[e, 0]]) && contains(cell, e2v[[e, 1]]);
            for s in 0..2 {
                let x = e2c2e[[e, 2 * k + s]];
                ok &= x != e as i32 && contains(c2e.row(c as usize), x);
            }
        }
    }
    report.record(
        ok,
        "E2C2V = E2V then the far C2V corner of each E2C cell; E2C2E from C2E of E2C".into(),
    );

    let mut ok = true;
    for v in 0..num_vertices {
        for j in 0..6 {
            let (e, c, w) = (v2e[[v, j]], v2c[[v, j]], v2e2v[[v, j]]);
            if e >= 0 {
                ok &= contains(e2v.row(e as usize), v as i32) && contains(e2v.row(e as usize), w);
                ok &= w != v as i32;
            }
            if c >= 0 {
                ok &= contains(c2v.row(c as usize), v as i32);
                // V2C[j] lies between V2E[j] and V2E[j+1].
                if e >= 0 {
                    ok &= contains(c2e.row(c as usize), e);
                }
            }
        }
    }
    report.record(
        ok,
        "V2E/V2C/V2E2V agree with E2V, C2V and C2E (ring order)".into(),
    );

    let (c2e2co, e2c2eo, c2e2c2e, butterfly) =
        (t("C2E2CO"), t("E2C2EO"), t("C2E2C2E"), t("C2E2C2E2C"));
    let mut ok = true;
    for c in 0..num_cells {
        ok &= c2e2co[[c, 0]] == c as i32;
        for i in 0..3 {
            ok &= c2e2co[[c, 1 + i]] == c2e2c[[c, i]];
            let n = c2e2c[[c, i]];
            for m in 0..3 {
                let (want_e, want_c) = if n >= 0 {
                    (c2e[[n as usize, m]], c2e2c[[n as usize, m]])
                } else {
                    (-1, -1)
                };
                ok &= c2e2c2e[[c, 3 * i + m]] == want_e && butterfly[[c, 3 * i + m]] == want_c;
            }
        }
    }
    for e in 0..num_edges {
        ok &= e2c2eo[[e, 0]] == e as i32 && (0..4).all(|k| e2c2eo[[e, 1 + k]] == e2c2e[[e, k]]);
    }
    report.record(
        ok,
        "C2E2CO, E2C2EO, C2E2C2E, C2E2C2E2C agree with C2E2C, C2E, E2C2E".into(),
    );
    std::mem::take(report)
}

fn check_geometry(grid: &Grid, report: &mut CheckReport) {
    let g = &grid.geometry;
    let finite = g
        .arrays()
        .iter()
        .all(|a| a.data.iter().all(|x| x.is_finite()));
    report.record(finite, "every geometry array is finite".into());
    let positive = g.cell_area.iter().all(|&a| a > 0.0)
        && g.dual_area.iter().all(|&a| a > 0.0)
        && g.primal_edge_length.iter().all(|&l| l > 0.0)
        && g.dual_edge_length.iter().all(|&l| l > 0.0);
    report.record(positive, "areas and edge lengths are positive".into());
    if !is_regional(grid) {
        let total = match g.surface {
            Surface::Sphere { radius } => 4.0 * std::f64::consts::PI * radius * radius,
            Surface::Torus { length_x, length_y } => length_x * length_y,
        };
        let cells: f64 = g.cell_area.sum();
        let duals: f64 = g.dual_area.sum();
        let (rc, rd) = ((cells - total).abs() / total, (duals - total).abs() / total);
        report.record(
            rc < 1e-10 && rd < 1e-10,
            format!("cell areas and dual areas sum to the surface area (relative errors {rc:.1e}, {rd:.1e})"),
        );
    }
    let sums_to_one = |a: &ndarray::Array2<f64>, rows: usize| {
        (0..rows).all(|r| (a.row(r).sum() - 1.0).abs() < 1e-12)
    };
    let interior = grid
        .start(GridDim::Cell, super::Zone::Interior)
        .unwrap_or(0);
    let interior_e = grid
        .start(GridDim::Edge, super::Zone::Interior)
        .unwrap_or(0);
    let interior_v = grid
        .start(GridDim::Vertex, super::Zone::Interior)
        .unwrap_or(0);
    let ok = sums_to_one(
        &g.c_intp.slice(ndarray::s![interior_v.., ..]).to_owned(),
        grid.num_vertices - interior_v,
    ) && sums_to_one(
        &g.e_bln_c_s.slice(ndarray::s![interior.., ..]).to_owned(),
        grid.num_cells - interior,
    ) && sums_to_one(
        &g.c_lin_e.slice(ndarray::s![interior_e.., ..]).to_owned(),
        grid.num_edges - interior_e,
    );
    report.record(
        ok,
        "c_intp, e_bln_c_s and c_lin_e rows sum to 1 (interior points)".into(),
    );
}
