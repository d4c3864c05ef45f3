//! Limited-area cuts, the torus, typed connectivities and grid files.

use gt4rs::grid::{Grid, GridDim, IcosahedralGrid, RegionSpec, Zone};

gt4rs::dimensions! { pub Cell, Edge, Vertex: horizontal; }
gt4rs::offsets! {
    pub E2C2V: Edge => Vertex [4] with skip_values;
    pub C2E: Cell => Edge [3];
    pub V2E: Vertex => Edge [6] with skip_values;
}

/// R2B4 and a limited-area cut of it, built once for all tests of this file.
fn regional() -> &'static (Grid, Grid) {
    static GRIDS: std::sync::OnceLock<(Grid, Grid)> = std::sync::OnceLock::new();
    GRIDS.get_or_init(|| {
        let global = IcosahedralGrid::generate(2, 4).unwrap();
        let region = RegionSpec {
            center_lat_deg: 46.8,
            center_lon_deg: 8.2,
            radius: 5.0e6,
        };
        let lam = global.regional(region).unwrap();
        (global, lam)
    })
}

#[test]
fn regional_grid_is_sorted_by_zone() {
    let (global, lam) = regional();
    assert!(
        lam.num_cells > 1000 && lam.num_cells < global.num_cells / 4,
        "{}",
        lam.num_cells
    );
    let report = lam.check();
    assert!(report.is_ok(), "{report}");

    // Boundary rows are non-empty and contiguous; LB1..LB4, NUDGING, INTERIOR tile LOCAL.
    for dim in GridDim::ALL {
        let (levels, nudging) = Zone::levels(dim);
        let mut at = 0;
        let zones: Vec<Zone> = Zone::ALL[..levels]
            .iter()
            .copied()
            .chain(
                [Zone::Nudging, Zone::NudgingLevel2]
                    .into_iter()
                    .take(nudging),
            )
            .chain([Zone::Interior])
            .collect();
        for zone in zones {
            let (s, e) = (lam.start(dim, zone).unwrap(), lam.end(dim, zone).unwrap());
            assert_eq!(s, at, "{dim:?} {zone:?}");
            assert!(e > s, "{dim:?} {zone:?} is empty");
            at = e;
        }
        assert_eq!(at, lam.end(dim, Zone::Local).unwrap());
        assert_eq!(lam.start(dim, Zone::End).unwrap(), lam.size(dim));
    }
    // The ring structure of ICON's LAM grids: the outline is a closed ring, so about as many
    // LB1 edges as LB1 vertices, and about one LB2 "spoke" edge per LB1 cell.
    let count = |dim, zone| lam.end(dim, zone).unwrap() - lam.start(dim, zone).unwrap();
    let near = |a: usize, b: usize| (a as f64 - b as f64).abs() <= 0.1 * b as f64;
    let (e1, v1) = (
        count(GridDim::Edge, Zone::LateralBoundaryLevel1),
        count(GridDim::Vertex, Zone::LateralBoundaryLevel1),
    );
    let (e2, c1) = (
        count(GridDim::Edge, Zone::LateralBoundaryLevel2),
        count(GridDim::Cell, Zone::LateralBoundaryLevel1),
    );
    assert!(
        near(e1, v1) && near(e2, c1),
        "LB1 edges {e1}, vertices {v1}; LB2 edges {e2}, LB1 cells {c1}"
    );
    // -1 exactly where a neighbour lies outside: boundary edges have one cell, and only
    // boundary edges (LB1) do.
    let e2c = lam.table("E2C").unwrap();
    let lb1_end = lam.end(GridDim::Edge, Zone::LateralBoundaryLevel1).unwrap();
    for e in 0..lam.num_edges {
        let missing = (0..2).filter(|&k| e2c[[e, k]] < 0).count();
        assert_eq!(missing, usize::from(e < lb1_end), "edge {e}");
    }
    // Domains as in ICON stencils exist: [start(LB5), end(LOCAL)) for edges.
    assert!(
        lam.start(GridDim::Edge, Zone::LateralBoundaryLevel5)
            .unwrap()
            > 0
    );
    // Every interior cell keeps the geometry of its global twin.
    let area_sum: f64 = lam.geometry.cell_area.sum();
    let global_area: f64 = global.geometry.cell_area.sum();
    assert!(area_sum < global_area / 4.0);
    let c2e2c = lam.table("C2E2C").unwrap();
    let first_interior = lam.start(GridDim::Cell, Zone::Interior).unwrap();
    assert!((first_interior..lam.num_cells).all(|c| (0..3).all(|i| c2e2c[[c, i]] >= 0)));
}

#[test]
fn regional_rejects_bad_regions() {
    let global = IcosahedralGrid::generate(2, 2).unwrap();
    let empty = RegionSpec {
        center_lat_deg: 0.0,
        center_lon_deg: 0.0,
        radius: 1.0,
    };
    assert!(global.regional(empty).is_err());
    let everything = RegionSpec {
        center_lat_deg: 0.0,
        center_lon_deg: 0.0,
        radius: 1e9,
    };
    assert!(global.regional(everything).is_err());
    let nan = RegionSpec {
        center_lat_deg: 0.0,
        center_lon_deg: 0.0,
        radius: f64::NAN,
    };
    assert!(global.regional(nan).is_err());
}

#[test]
fn torus_is_consistent_and_uniform() {
    let torus = Grid::torus(6, 4, 1000.0).unwrap();
    assert_eq!(
        (torus.num_cells, torus.num_edges, torus.num_vertices),
        (48, 72, 24)
    );
    let report = torus.check();
    assert!(report.is_ok(), "{report}");
    let g = &torus.geometry;
    let area = 3f64.sqrt() / 4.0 * 1e6;
    assert!(g.cell_area.iter().all(|a| (a - area).abs() < 1e-6 * area));
    assert!(g
        .primal_edge_length
        .iter()
        .all(|l| (l - 1000.0).abs() < 1e-9));
    let dual = 1000.0 / 3f64.sqrt();
    assert!(g.dual_edge_length.iter().all(|l| (l - dual).abs() < 1e-6));
    assert!(
        torus.table("V2E").unwrap().iter().all(|&e| e >= 0),
        "a torus has no pentagons"
    );
    // e_bln_c_s is 1/3 on equilateral cells; the Laplacian of a linear function is 0.
    assert!(g.e_bln_c_s.iter().all(|w| (w - 1.0 / 3.0).abs() < 1e-12));
    for (nx, ny) in [(2, 4), (6, 3), (6, 2)] {
        assert!(Grid::torus(nx, ny, 1000.0).is_err());
    }
    assert!(Grid::torus(6, 4, -1.0).is_err());
}

#[test]
fn typed_connectivities_from_grid_tables() {
    let grid = IcosahedralGrid::generate(2, 2).unwrap();
    let e2c2v = grid.connectivity::<E2C2V>().unwrap();
    assert_eq!(
        (e2c2v.rows(), e2c2v.count(), e2c2v.target_size()),
        (grid.num_edges, 4, grid.num_vertices)
    );
    assert!(!e2c2v.has_skip_values());
    let v2e = grid.connectivity::<V2E>().unwrap();
    assert!(v2e.has_skip_values(), "pentagons have -1 in V2E");
    let c2e = grid.connectivity::<C2E>().unwrap();
    assert_eq!(c2e.table(), grid.table("C2E").unwrap());
}

gt4rs::offsets! { pub E2CWRONG: Edge => Cell [2]; }

#[test]
fn unknown_tables_are_errors() {
    let grid = IcosahedralGrid::generate(1, 0).unwrap();
    assert!(grid.connectivity::<E2CWRONG>().is_err());
    assert!(grid.table("X2Y").is_err());
}

fn temp_path(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("gt4rs-grid-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn npz_round_trip() {
    let (_, lam) = regional();
    let path = temp_path("lam.npz");
    lam.write_npz(&path).unwrap();
    let back = Grid::read_npz(&path).unwrap();
    assert_eq!(&back, lam);
    // Tables are plain int32 arrays under their offset names, as in refs/icon4py.
    let mut npz = ndarray_npy::NpzReader::new(std::fs::File::open(&path).unwrap()).unwrap();
    let e2c2v: ndarray::Array2<i32> = npz.by_name("E2C2V").unwrap();
    assert_eq!(e2c2v, lam.tables["E2C2V"]);
    let torus = Grid::torus(4, 4, 500.0).unwrap();
    torus.write_npz(&path).unwrap();
    assert_eq!(Grid::read_npz(&path).unwrap(), torus);
    assert!(Grid::read_npz(temp_path("missing.npz")).is_err());
    std::fs::remove_file(&path).unwrap();
}

/// The HDF5 library under NetCDF is not thread-safe in every build: one file test at a time.
#[cfg(feature = "netcdf")]
static NETCDF: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[cfg(feature = "netcdf")]
#[test]
fn icon_grid_file_round_trip() {
    let _serial = NETCDF.lock().unwrap_or_else(|e| e.into_inner());
    use gt4rs::grid::netcdf::{read_icon_grid, write_icon_grid};
    let grid = IcosahedralGrid::generate(2, 2).unwrap();
    let path = temp_path("icon_grid_R02B02.nc");
    write_icon_grid(&grid, &path).unwrap();
    // The file holds ICON's 1-based, transposed tables.
    let file = netcdf::open(&path).unwrap();
    let voc: Vec<i32> = file
        .variable("vertex_of_cell")
        .unwrap()
        .get_values(..)
        .unwrap();
    assert_eq!(voc[0], grid.tables["C2V"][[0, 0]] + 1);
    assert_eq!(voc[1], grid.tables["C2V"][[1, 0]] + 1);
    let cov: Vec<i32> = file
        .variable("cells_of_vertex")
        .unwrap()
        .get_values(..)
        .unwrap();
    assert!(cov.contains(&0), "pentagon slots are 0 in the file");
    drop(file);
    let back = read_icon_grid(&path).unwrap();
    assert_eq!(back.tables, grid.tables);
    assert_eq!(
        (back.num_cells, back.num_edges, back.num_vertices),
        (grid.num_cells, grid.num_edges, grid.num_vertices)
    );
    assert_geometry_close(&back, &grid);
    std::fs::remove_file(&path).unwrap();
}

/// A damaged file is an error, never a panic: a missing C2E entry, an out-of-range entry,
/// tables that disagree, a geometry array of the wrong length.
#[test]
fn npz_with_inconsistent_content_is_rejected() {
    let grid = IcosahedralGrid::generate(1, 1).unwrap();
    let path = temp_path("broken.npz");
    let mut damaged = Vec::new();
    let mut g = grid.clone();
    g.tables.get_mut("C2E").unwrap()[[3, 1]] = -1;
    damaged.push(g);
    let mut g = grid.clone();
    g.tables.get_mut("E2C2V").unwrap()[[5, 2]] = 1000;
    damaged.push(g);
    let mut g = grid.clone();
    let c2e2c = g.tables.get_mut("C2E2C").unwrap();
    let (a, b) = (c2e2c[[0, 0]], c2e2c[[0, 1]]);
    c2e2c[[0, 0]] = b;
    c2e2c[[0, 1]] = a;
    damaged.push(g);
    let mut g = grid.clone();
    g.geometry.cell_area = ndarray::Array1::from_elem(7, 1.0);
    damaged.push(g);
    let mut g = grid.clone();
    g.zones.vertex.bounds[3] = 1000;
    damaged.push(g);
    for g in damaged {
        g.write_npz(&path).unwrap();
        assert!(Grid::read_npz(&path).is_err());
    }
    std::fs::remove_file(&path).unwrap();
}

/// A limited-area grid written in ICON's layout (with `refin_*_ctrl`) reads back with the
/// same tables and zones; its geometry, recomputed from the file, agrees with the cut from
/// the global grid away from the outline.
#[cfg(feature = "netcdf")]
#[test]
fn icon_lam_grid_file_round_trip() {
    let _serial = NETCDF.lock().unwrap_or_else(|e| e.into_inner());
    use gt4rs::grid::netcdf::{read_icon_grid, write_icon_grid};
    let (_, lam) = regional();
    let path = temp_path("icon_lam.nc");
    write_icon_grid(lam, &path).unwrap();
    let back = read_icon_grid(&path).unwrap();
    assert_eq!(back.tables, lam.tables);
    assert_eq!(&back.zones, &lam.zones);
    let report = back.check();
    assert!(report.is_ok(), "{report}");
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1e-300);
    let (g, h) = (&back.geometry, &lam.geometry);
    assert!((0..lam.num_cells).all(|c| close(g.cell_area[c], h.cell_area[c])));
    let first_edge = lam
        .start(GridDim::Edge, Zone::LateralBoundaryLevel2)
        .unwrap();
    for e in first_edge..lam.num_edges {
        assert!(
            close(g.dual_edge_length[e], h.dual_edge_length[e]),
            "edge {e}"
        );
        assert!(
            close(g.inv_vert_vert_length[e], h.inv_vert_vert_length[e]),
            "edge {e}"
        );
        assert!(
            (0..2).all(|k| close(g.c_lin_e[[e, k]], h.c_lin_e[[e, k]])),
            "edge {e}"
        );
    }
    let first_vertex = lam
        .start(GridDim::Vertex, Zone::LateralBoundaryLevel2)
        .unwrap();
    for v in first_vertex..lam.num_vertices {
        assert!(close(g.dual_area[v], h.dual_area[v]), "vertex {v}");
    }
    // Boundary edges: the one cell's value is taken as is.
    let e2c = lam.table("E2C").unwrap();
    for e in 0..first_edge {
        let k = if e2c[[e, 0]] >= 0 { 0 } else { 1 };
        assert_eq!(g.c_lin_e[[e, k]], 1.0);
        assert_eq!(g.c_lin_e[[e, 1 - k]], 0.0);
    }
    std::fs::remove_file(&path).unwrap();
}

/// Writes `grid` in the num_*/tables convention only: sizes, the basic tables, vertex
/// latitudes/longitudes and (with `zones`) ICON's zone markers, no `grid_meta`, no geometry.
fn write_convention_only(grid: &Grid, path: &std::path::Path, zones: bool) {
    let full = temp_path("full_for_convention.npz");
    grid.write_npz(&full).unwrap();
    let mut from = ndarray_npy::NpzReader::new(std::fs::File::open(&full).unwrap()).unwrap();
    let mut to = ndarray_npy::NpzWriter::new(std::fs::File::create(path).unwrap());
    for name in ["num_cells", "num_edges", "num_vertices"] {
        let n: ndarray::Array0<i64> = from.by_name(name).unwrap();
        to.add_array(name, &n).unwrap();
    }
    for name in gt4rs::grid::BASIC_TABLES {
        let t: ndarray::Array2<i32> = from.by_name(name).unwrap();
        to.add_array(*name, &t).unwrap();
    }
    for name in ["vlat", "vlon"] {
        let a: ndarray::Array1<f64> = from.by_name(name).unwrap();
        to.add_array(name, &a).unwrap();
    }
    if zones {
        for name in ["refin_c_ctrl", "refin_e_ctrl", "refin_v_ctrl"] {
            let a: ndarray::Array1<i32> = from.by_name(name).unwrap();
            to.add_array(name, &a).unwrap();
        }
    }
    to.finish().unwrap();
    std::fs::remove_file(&full).unwrap();
}

/// Geometry rebuilt from a file (ICON's or the npz convention) agrees with the generator's to
/// rounding.
fn assert_geometry_close(back: &Grid, grid: &Grid) {
    for (a, b) in back.geometry.arrays().iter().zip(grid.geometry.arrays()) {
        let scale = b
            .data
            .iter()
            .fold(0.0f64, |m, x| m.max(x.abs()))
            .max(1e-300);
        let diff = a
            .data
            .iter()
            .zip(b.data.iter())
            .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()));
        assert!(diff <= 1e-9 * scale, "{}: {diff} vs {scale}", a.name);
    }
}

/// A file in the common convention (sizes as `num_*`, upper-case tables, `vlat`/`vlon`), as
/// ICON4Py's tools read it, is read: tables, sizes and zones exactly, geometry rebuilt.
#[test]
fn npz_in_the_num_and_tables_convention_is_read() {
    let grid = IcosahedralGrid::generate(2, 2).unwrap();
    let path = temp_path("convention.npz");
    write_convention_only(&grid, &path, false);
    let back = Grid::read_npz(&path).unwrap();
    assert_eq!(back.tables, grid.tables);
    assert_eq!(
        (back.num_cells, back.num_edges, back.num_vertices),
        (grid.num_cells, grid.num_edges, grid.num_vertices)
    );
    assert_geometry_close(&back, &grid);
    // A limited-area grid keeps its zones through the markers.
    let (_, lam) = regional();
    write_convention_only(lam, &path, true);
    let back = Grid::read_npz(&path).unwrap();
    assert_eq!(back.tables, lam.tables);
    assert_eq!(back.zones, lam.zones);
    std::fs::remove_file(&path).unwrap();
}

/// gt4rs's own files carry the convention's keys too.
#[test]
fn written_npz_holds_the_convention_keys() {
    let grid = IcosahedralGrid::generate(1, 1).unwrap();
    let path = temp_path("keys.npz");
    grid.write_npz(&path).unwrap();
    let mut npz = ndarray_npy::NpzReader::new(std::fs::File::open(&path).unwrap()).unwrap();
    let n: ndarray::Array0<i64> = npz.by_name("num_edges").unwrap();
    assert_eq!(n[()], grid.num_edges as i64);
    let vlat: ndarray::Array1<f64> = npz.by_name("vlat").unwrap();
    assert_eq!(vlat.len(), grid.num_vertices);
    std::fs::remove_file(&path).unwrap();
}

/// A file that fits neither layout is an error that names what is missing.
#[test]
fn npz_that_fits_no_layout_names_what_is_missing() {
    let path = temp_path("stray.npz");
    let mut npz = ndarray_npy::NpzWriter::new(std::fs::File::create(&path).unwrap());
    npz.add_array("num_cells", &ndarray::Array0::from_elem((), 20i64))
        .unwrap();
    npz.add_array("C2V", &ndarray::Array2::<i32>::zeros((20, 3)))
        .unwrap();
    npz.finish().unwrap();
    let err = Grid::read_npz(&path).unwrap_err().to_string();
    for needle in ["grid_meta", "`num_edges`", "`E2C`", "vlat"] {
        assert!(err.contains(needle), "{needle} in {err}");
    }
    assert!(!err.contains("`C2V`"), "{err}");
    std::fs::remove_file(&path).unwrap();
}
