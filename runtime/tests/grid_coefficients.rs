//! Interpolation and differential-operator coefficients: each reproduces what it must,
//! exactly where the method is exact and with an error shrinking with resolution elsewhere.

use gt4rs::grid::{Grid, IcosahedralGrid, EARTH_RADIUS};
use ndarray::Array2;

fn row3(a: &Array2<f64>, i: usize) -> [f64; 3] {
    [a[[i, 0]], a[[i, 1]], a[[i, 2]]]
}
fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
/// Longitude/latitude unit vectors at `p` (the frame of the `*_x`/`*_y` coefficients).
fn east_north(p: [f64; 3]) -> ([f64; 3], [f64; 3]) {
    let r = dot(p, p).sqrt();
    let (lat, lon) = ((p[2] / r).asin(), p[1].atan2(p[0]));
    (
        [-lon.sin(), lon.cos(), 0.0],
        [-lat.sin() * lon.cos(), -lat.sin() * lon.sin(), lat.cos()],
    )
}

const OMEGA: [f64; 3] = [2.1e-5, -4.3e-5, 5.7e-5];

/// Solid-body rotation `omega x x`, m/s.
fn rotation(p: [f64; 3]) -> [f64; 3] {
    cross(OMEGA, p)
}

fn normal_wind(grid: &Grid, u: impl Fn([f64; 3]) -> [f64; 3]) -> Vec<f64> {
    let g = &grid.geometry;
    (0..grid.num_edges)
        .map(|e| dot(u(row3(&g.edge_center, e)), row3(&g.primal_normal, e)))
        .collect()
}

/// R2B3 and R2B4, built once for all tests of this file (debug builds are slow).
fn grids() -> &'static [Grid] {
    static GRIDS: std::sync::OnceLock<Vec<Grid>> = std::sync::OnceLock::new();
    GRIDS.get_or_init(|| {
        vec![
            IcosahedralGrid::generate(2, 3).unwrap(),
            IcosahedralGrid::generate(2, 4).unwrap(),
        ]
    })
}

fn assert_converges(name: &str, errors: &[f64], finest: f64, ratio: f64) {
    eprintln!("{name}: errors {errors:?}");
    assert!(errors[errors.len() - 1] < finest, "{name}: {errors:?}");
    for w in errors.windows(2) {
        assert!(w[1] < w[0] * ratio, "{name} does not converge: {errors:?}");
    }
}

#[test]
fn nabla2_of_a_constant_is_zero() {
    let grid = &grids()[0];
    let n2s = &grid.geometry.geofac_n2s;
    let scale = n2s.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    for c in 0..grid.num_cells {
        assert!(n2s.row(c).sum().abs() < 1e-12 * scale, "cell {c}");
    }
}

#[test]
fn curl_of_solid_body_rotation() {
    let errors: Vec<f64> = grids()
        .iter()
        .map(|grid| {
            let g = &grid.geometry;
            let vn = normal_wind(grid, rotation);
            let v2e = grid.table("V2E").unwrap();
            let (mut worst, mut scale) = (0.0f64, 0.0f64);
            for v in 0..grid.num_vertices {
                let rot: f64 = (0..6)
                    .filter(|&j| v2e[[v, j]] >= 0)
                    .map(|j| g.geofac_rot[[v, j]] * vn[v2e[[v, j]] as usize])
                    .sum();
                let p = row3(&g.vertex_position, v);
                let exact = 2.0 * dot(OMEGA, p) / EARTH_RADIUS;
                worst = worst.max((rot - exact).abs());
                scale = scale.max(exact.abs());
            }
            worst / scale
        })
        .collect();
    assert_converges("curl", &errors, 5e-3, 0.6);
}

#[test]
fn green_gauss_gradient() {
    let errors: Vec<f64> = grids()
        .iter()
        .map(|grid| {
            let g = &grid.geometry;
            let c2e2co = grid.table("C2E2CO").unwrap();
            // f = z / R: gradient is (z_hat - (z_hat . r) r) / R, north component cos(lat)/R.
            let f: Vec<f64> = (0..grid.num_cells)
                .map(|c| g.cell_center[[c, 2]] / EARTH_RADIUS)
                .collect();
            let mut worst = 0.0f64;
            for c in 0..grid.num_cells {
                let gx: f64 = (0..4)
                    .map(|k| g.geofac_grg_x[[c, k]] * f[c2e2co[[c, k]] as usize])
                    .sum();
                let gy: f64 = (0..4)
                    .map(|k| g.geofac_grg_y[[c, k]] * f[c2e2co[[c, k]] as usize])
                    .sum();
                let p = row3(&g.cell_center, c);
                let (east, north) = east_north(p);
                let exact = [0.0, 0.0, 1.0 / EARTH_RADIUS];
                let err =
                    ((gx - dot(exact, east)).powi(2) + (gy - dot(exact, north)).powi(2)).sqrt();
                worst = worst.max(err * EARTH_RADIUS);
            }
            worst
        })
        .collect();
    assert_converges("gradient", &errors, 2e-2, 0.75);
}

#[test]
fn edge_to_cell_interpolation_is_second_order() {
    let errors: Vec<f64> = grids()
        .iter()
        .map(|grid| {
            let g = &grid.geometry;
            let c2e = grid.table("C2E").unwrap();
            let f = |p: [f64; 3]| (p[0] * p[1] + p[2] * p[2]) / EARTH_RADIUS.powi(2);
            (0..grid.num_cells)
                .map(|c| {
                    let interp: f64 = (0..3)
                        .map(|j| {
                            g.e_bln_c_s[[c, j]] * f(row3(&g.edge_center, c2e[[c, j]] as usize))
                        })
                        .sum();
                    (interp - f(row3(&g.cell_center, c))).abs()
                })
                .fold(0.0, f64::max)
        })
        .collect();
    assert_converges("e_bln_c_s", &errors, 1e-3, 0.35);
}

#[test]
fn cell_to_vertex_interpolation() {
    let errors: Vec<f64> = grids()
        .iter()
        .map(|grid| {
            let g = &grid.geometry;
            let v2c = grid.table("V2C").unwrap();
            let f = |p: [f64; 3]| (p[0] + 2.0 * p[1] - p[2]) / EARTH_RADIUS;
            (0..grid.num_vertices)
                .map(|v| {
                    let interp: f64 = (0..6)
                        .filter(|&j| v2c[[v, j]] >= 0)
                        .map(|j| g.c_intp[[v, j]] * f(row3(&g.cell_center, v2c[[v, j]] as usize)))
                        .sum();
                    (interp - f(row3(&g.vertex_position, v))).abs()
                })
                .fold(0.0, f64::max)
        })
        .collect();
    assert_converges("c_intp", &errors, 1e-2, 0.6);
}

/// The RBF reconstruction recovers the full wind at vertices (V2E) and the tangential wind
/// at edges (E2C2E) of a solid-body rotation (a linear tangent field) from normal
/// components only: second order at vertices, first order at edges.
#[test]
fn rbf_reconstructs_solid_body_rotation() {
    let mut vertex_errors = Vec::new();
    let mut edge_errors = Vec::new();
    for grid in grids() {
        let g = &grid.geometry;
        let vn = normal_wind(grid, rotation);
        let speed = OMEGA.iter().map(|x| x * x).sum::<f64>().sqrt() * EARTH_RADIUS;
        let v2e = grid.table("V2E").unwrap();
        let mut worst = 0.0f64;
        for v in 0..grid.num_vertices {
            let (mut u, mut w) = (0.0, 0.0);
            for j in (0..6).filter(|&j| v2e[[v, j]] >= 0) {
                let n = vn[v2e[[v, j]] as usize];
                u += g.rbf_vec_coeff_v1[[v, j]] * n;
                w += g.rbf_vec_coeff_v2[[v, j]] * n;
            }
            let p = row3(&g.vertex_position, v);
            let (east, north) = east_north(p);
            let exact = rotation(p);
            worst = worst.max(
                (u - dot(exact, east))
                    .abs()
                    .max((w - dot(exact, north)).abs()),
            );
        }
        vertex_errors.push(worst / speed);
        let e2c2e = grid.table("E2C2E").unwrap();
        let mut worst = 0.0f64;
        for e in 0..grid.num_edges {
            let vt: f64 = (0..4)
                .map(|j| g.rbf_vec_coeff_e[[e, j]] * vn[e2c2e[[e, j]] as usize])
                .sum();
            let exact = dot(rotation(row3(&g.edge_center, e)), row3(&g.dual_normal, e));
            worst = worst.max((vt - exact).abs());
        }
        edge_errors.push(worst / speed);
    }
    assert_converges("rbf_vec_coeff_v", &vertex_errors, 1e-3, 0.35);
    assert_converges("rbf_vec_coeff_e", &edge_errors, 5e-3, 0.6);
}

/// On the plane (torus) the augmented RBF reconstructs a constant wind exactly.
#[test]
fn torus_constant_fields() {
    let torus = Grid::torus(8, 8, 1000.0).unwrap();
    let g = &torus.geometry;
    let u = [3.0, -2.0, 0.0];
    let vn: Vec<f64> = (0..torus.num_edges)
        .map(|e| dot(u, row3(&g.primal_normal, e)))
        .collect();
    let v2e = torus.table("V2E").unwrap();
    let mut worst = 0.0f64;
    for v in 0..torus.num_vertices {
        let rx: f64 = (0..6)
            .map(|j| g.rbf_vec_coeff_v1[[v, j]] * vn[v2e[[v, j]] as usize])
            .sum();
        let ry: f64 = (0..6)
            .map(|j| g.rbf_vec_coeff_v2[[v, j]] * vn[v2e[[v, j]] as usize])
            .sum();
        worst = worst.max((rx - u[0]).abs()).max((ry - u[1]).abs());
    }
    eprintln!("torus constant wind, RBF vertex error {worst}");
    assert!(worst < 1e-12, "{worst}");
    let e2c2e = torus.table("E2C2E").unwrap();
    let mut worst = 0.0f64;
    for e in 0..torus.num_edges {
        let vt: f64 = (0..4)
            .map(|j| g.rbf_vec_coeff_e[[e, j]] * vn[e2c2e[[e, j]] as usize])
            .sum();
        worst = worst.max((vt - dot(u, row3(&g.dual_normal, e))).abs());
    }
    eprintln!("torus constant wind, RBF edge error {worst}");
    assert!(worst < 1e-12, "{worst}");
    assert!(g.c_intp.iter().all(|w| (w - 1.0 / 6.0).abs() < 1e-12));
}

/// On the uniform torus the `geofac_n2s` Laplacian is first order pointwise: the
/// third-order Taylor terms of the three neighbours do not cancel on a triangle and flip sign
/// between upward and downward cells. Their mean over each up/down pair (cells `2k, 2k+1`)
/// cancels it, leaving second order.
#[test]
fn torus_laplacian_orders() {
    let mut pointwise = Vec::new();
    let mut paired = Vec::new();
    for n in [8usize, 16, 32] {
        let torus = Grid::torus(n, n, 1.0 / n as f64).unwrap();
        let g = &torus.geometry;
        let (lx, ly) = (1.0, 3f64.sqrt() / 2.0);
        let (kx, ky) = (
            2.0 * std::f64::consts::PI / lx,
            2.0 * std::f64::consts::PI / ly,
        );
        let k2 = kx * kx + ky * ky;
        let psi: Vec<f64> = (0..torus.num_cells)
            .map(|c| (kx * g.cell_center[[c, 0]]).sin() * (ky * g.cell_center[[c, 1]]).cos())
            .collect();
        let c2e2co = torus.table("C2E2CO").unwrap();
        let error: Vec<f64> = (0..torus.num_cells)
            .map(|c| {
                let lap: f64 = (0..4)
                    .map(|k| g.geofac_n2s[[c, k]] * psi[c2e2co[[c, k]] as usize])
                    .sum();
                (lap + k2 * psi[c]) / k2
            })
            .collect();
        pointwise.push(error.iter().fold(0.0f64, |m, x| m.max(x.abs())));
        paired.push(
            error
                .chunks(2)
                .fold(0.0f64, |m, p| m.max((0.5 * (p[0] + p[1])).abs())),
        );
    }
    assert_converges("torus Laplacian, pointwise", &pointwise, 2e-2, 0.55);
    assert_converges("torus Laplacian, up/down pairs", &paired, 2e-3, 0.3);
}
