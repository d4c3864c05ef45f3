//! Global icosahedral grids: sizes, topology, tables against each other, geometry and
//! discrete operators.

use gt4rs::grid::{Grid, GridDim, IcosahedralGrid, Zone, EARTH_RADIUS};

/// R2B2, R2B3 and R2B4, built once for all tests of this file (debug builds are slow).
fn grids() -> &'static [Grid] {
    static GRIDS: std::sync::OnceLock<Vec<Grid>> = std::sync::OnceLock::new();
    GRIDS.get_or_init(|| {
        (2..=4)
            .map(|k| IcosahedralGrid::generate(2, k).unwrap())
            .collect()
    })
}

fn unit(p: [f64; 3]) -> [f64; 3] {
    let n = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
    [p[0] / n, p[1] / n, p[2] / n]
}

fn row3(a: &ndarray::Array2<f64>, i: usize) -> [f64; 3] {
    [a[[i, 0]], a[[i, 1]], a[[i, 2]]]
}

#[test]
fn r2b4_sizes_and_consistency() {
    let grid = &grids()[2];
    assert_eq!(
        (grid.num_cells, grid.num_edges, grid.num_vertices),
        (20_480, 30_720, 10_242)
    );
    let report = grid.check();
    assert!(report.is_ok(), "{report}");
    assert!(report.passed.len() >= 20, "{report}");
    // Global zones: everything before the interior is empty at 0.
    for dim in GridDim::ALL {
        assert_eq!(grid.start(dim, Zone::LateralBoundaryLevel1).unwrap(), 0);
        assert_eq!(grid.start(dim, Zone::Interior).unwrap(), 0);
        assert_eq!(grid.end(dim, Zone::Local).unwrap(), grid.size(dim));
        assert_eq!(grid.start(dim, Zone::Halo).unwrap(), grid.size(dim));
    }
    assert!(grid
        .start(GridDim::Cell, Zone::LateralBoundaryLevel5)
        .is_err());
    assert_eq!(
        grid.start(GridDim::Edge, Zone::LateralBoundaryLevel5)
            .unwrap(),
        0
    );
    // Mean geometry as ICON's R02B04 (edge length about 240 km, cell area about 2.49e10 m^2).
    let mean_edge = grid.geometry.primal_edge_length.mean().unwrap();
    let mean_area = grid.geometry.cell_area.mean().unwrap();
    assert!(
        (mean_edge - 239_835.0).abs() / 239_835.0 < 0.02,
        "{mean_edge}"
    );
    assert!((mean_area - 2.49e10).abs() / 2.49e10 < 0.01, "{mean_area}");
}

#[test]
fn small_grids_have_icon_sizes() {
    for (root, bisections, sizes) in [
        (1, 1, (80, 120, 42)),
        (2, 0, (80, 120, 42)),
        (2, 2, (1280, 1920, 642)),
        (3, 1, (720, 1080, 362)),
    ] {
        let grid = IcosahedralGrid::generate(root, bisections).unwrap();
        assert_eq!((grid.num_cells, grid.num_edges, grid.num_vertices), sizes);
        let report = grid.check();
        assert!(report.is_ok(), "R{root}B{bisections}: {report}");
    }
    assert!(IcosahedralGrid::generate(0, 2).is_err());
    assert!(IcosahedralGrid::generate(2, 40).is_err());
}

#[test]
fn neighbours_are_close_in_memory() {
    let grid = &grids()[2];
    let c2e2c = grid.table("C2E2C").unwrap();
    let mut distances: Vec<i64> = c2e2c
        .indexed_iter()
        .map(|((c, _), &n)| (n as i64 - c as i64).abs())
        .collect();
    distances.sort_unstable();
    let median = distances[distances.len() / 2];
    assert!(
        median <= 8,
        "median index distance of cell neighbours {median}"
    );
    let e2v = grid.table("E2V").unwrap();
    let mut d: Vec<i64> = e2v
        .rows()
        .into_iter()
        .map(|r| (r[0] as i64 - r[1] as i64).abs())
        .collect();
    d.sort_unstable();
    assert!(
        d[d.len() / 2] <= 64,
        "median vertex distance along edges {}",
        d[d.len() / 2]
    );
}

#[test]
fn orientation_conventions() {
    let grid = &grids()[1];
    let g = &grid.geometry;
    let (e2c, e2v) = (grid.table("E2C").unwrap(), grid.table("E2V").unwrap());
    let mut plus = 0;
    for e in 0..grid.num_edges {
        let n = row3(&g.primal_normal, e);
        let m = row3(&g.edge_center, e);
        let (c0, c1) = (
            row3(&g.cell_center, e2c[[e, 0]] as usize),
            row3(&g.cell_center, e2c[[e, 1]] as usize),
        );
        let towards: f64 = (0..3).map(|k| n[k] * (c1[k] - c0[k])).sum();
        assert!(
            towards > 0.0,
            "normal of edge {e} does not point from E2C[0] to E2C[1]"
        );
        let radial: f64 = (0..3).map(|k| n[k] * unit(m)[k]).sum();
        assert!(radial.abs() < 1e-12);
        let (a, b) = (
            row3(&g.vertex_position, e2v[[e, 0]] as usize),
            row3(&g.vertex_position, e2v[[e, 1]] as usize),
        );
        let t = row3(&g.dual_normal, e);
        let along: f64 = (0..3).map(|k| t[k] * (b[k] - a[k])).sum();
        assert_eq!(along.signum(), g.tangent_orientation[e]);
        if g.tangent_orientation[e] > 0.0 {
            plus += 1;
        }
    }
    // Both orientations occur, as in ICON grids.
    assert!(plus > 0 && plus < grid.num_edges);
}

/// `vn` of the solid-body rotation `u = omega x x` averaged exactly over each edge:
/// `(omega . (b - a)) / length` up to the orientation, so the fluxes of every cell cancel.
#[test]
fn divergence_of_solid_body_rotation_vanishes() {
    let grid = &grids()[2];
    let g = &grid.geometry;
    let omega = [0.3, -0.7, 0.65];
    let (e2v, c2e) = (grid.table("E2V").unwrap(), grid.table("C2E").unwrap());
    let vn: Vec<f64> = (0..grid.num_edges)
        .map(|e| {
            let (a, b) = (
                row3(&g.vertex_position, e2v[[e, 0]] as usize),
                row3(&g.vertex_position, e2v[[e, 1]] as usize),
            );
            let chord: f64 = (0..3).map(|k| omega[k] * (b[k] - a[k])).sum();
            // The flux of omega x x through the arc a->b is R * omega . (b - a) / R along
            // the normal to the right of a->b; the tangent orientation tells the side.
            -g.tangent_orientation[e] * chord / g.primal_edge_length[e]
        })
        .collect();
    let scale =
        vn.iter().fold(0.0f64, |m, x| m.max(x.abs())) / g.primal_edge_length.mean().unwrap();
    let mut worst = 0.0f64;
    for c in 0..grid.num_cells {
        let div: f64 = (0..3)
            .map(|j| g.geofac_div[[c, j]] * vn[c2e[[c, j]] as usize])
            .sum();
        worst = worst.max(div.abs());
    }
    assert!(worst < 1e-9 * scale, "divergence {worst} vs scale {scale}");

    // Sampled at the midpoints instead, the divergence is small and shrinks at least
    // linearly with h in the max norm (the irregular cells near the pentagons limit it).
    let sampled = |grid: &Grid| {
        let g = &grid.geometry;
        let c2e = grid.table("C2E").unwrap();
        let vn: Vec<f64> = (0..grid.num_edges)
            .map(|e| {
                let x = unit(row3(&g.edge_center, e));
                let u = [
                    omega[1] * x[2] - omega[2] * x[1],
                    omega[2] * x[0] - omega[0] * x[2],
                    omega[0] * x[1] - omega[1] * x[0],
                ];
                (0..3).map(|k| u[k] * g.primal_normal[[e, k]]).sum::<f64>()
            })
            .collect();
        (0..grid.num_cells)
            .map(|c| {
                (0..3)
                    .map(|j| g.geofac_div[[c, j]] * vn[c2e[[c, j]] as usize])
                    .sum::<f64>()
                    .abs()
            })
            .fold(0.0f64, f64::max)
            * EARTH_RADIUS
    };
    let coarse = sampled(&grids()[1]);
    let fine = sampled(grid);
    assert!(
        fine < 1e-2 && fine < coarse * 0.6,
        "coarse {coarse}, fine {fine}"
    );
}

/// Relative L2 error of the geofac_n2s Laplacian of a degree-l spherical harmonic.
fn laplacian_error(grid: &Grid, l: i32) -> f64 {
    let g = &grid.geometry;
    let harmonic = |p: [f64; 3]| {
        let [x, y, z] = unit(p);
        match l {
            2 => x * y + 0.5 * (3.0 * z * z - 1.0),
            3 => x * y * z + z * (5.0 * z * z - 3.0),
            _ => unreachable!(),
        }
    };
    let psi: Vec<f64> = (0..grid.num_cells)
        .map(|c| harmonic(row3(&g.cell_center, c)))
        .collect();
    let c2e2co = grid.table("C2E2CO").unwrap();
    let exact = -(l * (l + 1)) as f64 / (EARTH_RADIUS * EARTH_RADIUS);
    let (mut err, mut norm) = (0.0, 0.0);
    for c in 0..grid.num_cells {
        let lap: f64 = (0..4)
            .map(|k| g.geofac_n2s[[c, k]] * psi[c2e2co[[c, k]] as usize])
            .sum();
        let want = exact * psi[c];
        err += (lap - want).powi(2) * g.cell_area[c];
        norm += want.powi(2) * g.cell_area[c];
    }
    (err / norm).sqrt()
}

#[test]
fn laplacian_of_spherical_harmonics_converges() {
    for l in [2, 3] {
        let errors: Vec<f64> = grids().iter().map(|g| laplacian_error(g, l)).collect();
        eprintln!("l = {l}: relative L2 errors R2B2..R2B4 {errors:?}");
        assert!(errors[2] < 0.05, "{errors:?}");
        for w in errors.windows(2) {
            assert!(w[1] < w[0] * 0.75, "error does not shrink: {errors:?}");
        }
    }
}

/// The benchmark grid: release builds only (`cargo test --release`), it takes seconds there.
#[test]
#[cfg_attr(debug_assertions, ignore)]
fn r2b6_builds_quickly_and_is_consistent() {
    let started = std::time::Instant::now();
    let grid = IcosahedralGrid::generate(2, 6).unwrap();
    let elapsed = started.elapsed().as_secs_f64();
    eprintln!("R2B6 built in {elapsed:.2} s");
    assert_eq!(
        (grid.num_cells, grid.num_edges, grid.num_vertices),
        (327_680, 491_520, 163_842)
    );
    assert!(elapsed < 30.0, "R2B6 took {elapsed} s");
    let report = grid.check();
    assert!(report.is_ok(), "{report}");
    let errors: Vec<f64> = [&grids()[2], &grid]
        .iter()
        .map(|g| laplacian_error(g, 3))
        .collect();
    eprintln!("l = 3: relative L2 errors R2B4, R2B6 {errors:?}");
    assert!(errors[1] < errors[0] * 0.6, "{errors:?}");
}
