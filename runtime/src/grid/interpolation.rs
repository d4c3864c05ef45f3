//! Coefficients built on the basic geometry: `geofac_n2s`, `geofac_grg_x/y`, `e_bln_c_s` and
//! the RBF vector reconstruction (formulas in docs/grids.md).

use ndarray::Array2;

use super::geometry::{row, Geometry};
use super::topology::Tables;
use super::vec3::{dot, Vec3};
use crate::error::Error;

/// RBF shape parameter, as a multiple of the mean primal edge length. A flatter kernel
/// (larger factor) is more accurate for smooth fields but worse conditioned; 2 keeps the
/// 6x6 systems well conditioned at every resolution.
pub const RBF_SCALE_FACTOR: f64 = 2.0;

pub fn compute_coefficients(g: &mut Geometry, tables: &Tables) -> Result<(), Error> {
    compute_geofac_n2s(g, tables);
    compute_geofac_grg(g, tables);
    compute_e_bln_c_s(g, tables)?;
    compute_rbf_vertex(g, tables)?;
    compute_rbf_edge(g, tables)?;
    Ok(())
}

fn compute_geofac_n2s(g: &mut Geometry, tables: &Tables) {
    let (c2e, e2c, c2e2c) = (&tables["C2E"], &tables["E2C"], &tables["C2E2C"]);
    let mut n2s = Array2::zeros((c2e.nrows(), 4));
    for c in 0..c2e.nrows() {
        for j in 0..3 {
            let e = c2e[[c, j]] as usize;
            let f = g.geofac_div[[c, j]] / g.dual_edge_length[e];
            let neighbour = c2e2c[[c, j]];
            for (k, s) in [(0, -1.0), (1, 1.0)] {
                if e2c[[e, k]] == c as i32 {
                    n2s[[c, 0]] += s * f;
                }
                if neighbour >= 0 && e2c[[e, k]] == neighbour {
                    n2s[[c, 1 + j]] += s * f;
                }
            }
        }
    }
    g.geofac_n2s = n2s;
}

fn compute_geofac_grg(g: &mut Geometry, tables: &Tables) {
    let (c2e, e2c, c2e2c) = (&tables["C2E"], &tables["E2C"], &tables["C2E2C"]);
    let nc = c2e.nrows();
    let mut grg = [Array2::zeros((nc, 4)), Array2::zeros((nc, 4))];
    for c in 0..nc {
        for j in 0..3 {
            let e = c2e[[c, j]] as usize;
            let Some(own) = (0..2).find(|&k| e2c[[e, k]] == c as i32) else {
                continue;
            };
            let normal = [
                g.primal_normal_cell_x[[e, own]],
                g.primal_normal_cell_y[[e, own]],
            ];
            let div = g.geofac_div[[c, j]];
            for d in 0..2 {
                grg[d][[c, 0]] += normal[d] * div * g.c_lin_e[[e, own]];
                for k in 0..2 {
                    if c2e2c[[c, j]] >= 0 && e2c[[e, k]] == c2e2c[[c, j]] {
                        grg[d][[c, 1 + j]] += normal[d] * div * g.c_lin_e[[e, k]];
                    }
                }
            }
        }
    }
    let [x, y] = grg;
    g.geofac_grg_x = x;
    g.geofac_grg_y = y;
}

/// Weights `w` with `sum w = 1` and `sum w (x_e - x_c) = 0` in the cell's tangent plane:
/// exact for linear fields.
fn compute_e_bln_c_s(g: &mut Geometry, tables: &Tables) -> Result<(), Error> {
    let c2e = &tables["C2E"];
    let surface = g.surface;
    for c in 0..c2e.nrows() {
        let centre = row(&g.cell_center, c);
        let mut m = [[1.0; 3]; 3];
        for j in 0..3 {
            let xy = surface.local_coordinates(centre, row(&g.edge_center, c2e[[c, j]] as usize));
            m[1][j] = xy[0];
            m[2][j] = xy[1];
        }
        let w = solve(m.iter().map(|r| r.to_vec()).collect(), vec![1.0, 0.0, 0.0])
            .ok_or_else(|| Error::Config(format!("e_bln_c_s: degenerate cell {c}")))?;
        for (j, weight) in w.into_iter().enumerate() {
            g.e_bln_c_s[[c, j]] = weight;
        }
    }
    Ok(())
}

fn mean(values: &ndarray::Array1<f64>) -> f64 {
    values.sum() / values.len().max(1) as f64
}

fn gaussian(r: f64, scale: f64) -> f64 {
    (-(r / scale).powi(2)).exp()
}

fn inverse_multiquadric(r: f64, scale: f64) -> f64 {
    1.0 / (1.0 + (r / scale).powi(2)).sqrt()
}

/// Coefficients `a` such that `sum_i a_i vn_i` approximates `u . target` at `at`, where
/// `vn_i = u(x_i) . n_i`. The interpolant is ICON's vector RBF `sum_i alpha_i phi(|x - x_i|)
/// n_i` augmented with a constant tangent vector `c` in the frame `basis` at `at` (two more
/// unknowns, with the constraints `sum_i alpha_i n_i . basis_k = 0`), so that a constant
/// wind is reconstructed exactly on a plane and to O(h) curvature terms on the sphere.
/// The saddle-point matrix is symmetric, so the weights are its inverse applied to the
/// target's right-hand side.
fn rbf_weights(
    g: &Geometry,
    edges: &[usize],
    at: Vec3,
    basis: [Vec3; 2],
    targets: &[Vec3],
    kernel: fn(f64, f64) -> f64,
    scale: f64,
) -> Option<Vec<Vec<f64>>> {
    let pos = |e: usize| row(&g.edge_center, e);
    let nrm = |e: usize| row(&g.primal_normal, e);
    let n = edges.len();
    let size = n + 2;
    let mut a = vec![vec![0.0; size]; size];
    for i in 0..n {
        for j in 0..n {
            let r = g.surface.distance(pos(edges[i]), pos(edges[j]));
            a[i][j] = kernel(r, scale) * dot(nrm(edges[i]), nrm(edges[j]));
        }
        for k in 0..2 {
            let p = dot(nrm(edges[i]), basis[k]);
            a[i][n + k] = p;
            a[n + k][i] = p;
        }
    }
    targets
        .iter()
        .map(|&t| {
            let mut b: Vec<f64> = edges
                .iter()
                .map(|&e| kernel(g.surface.distance(pos(e), at), scale) * dot(nrm(e), t))
                .collect();
            b.push(dot(basis[0], t));
            b.push(dot(basis[1], t));
            solve(a.clone(), b).map(|mut w| {
                w.truncate(n);
                w
            })
        })
        .collect()
}

fn compute_rbf_vertex(g: &mut Geometry, tables: &Tables) -> Result<(), Error> {
    let v2e = &tables["V2E"];
    let scale = RBF_SCALE_FACTOR * mean(&g.primal_edge_length);
    for v in 0..v2e.nrows() {
        let slots: Vec<usize> = (0..6).filter(|&j| v2e[[v, j]] >= 0).collect();
        let edges: Vec<usize> = slots.iter().map(|&j| v2e[[v, j]] as usize).collect();
        let at = row(&g.vertex_position, v);
        let (east, north) = g.surface.east_north(at);
        let w = rbf_weights(
            g,
            &edges,
            at,
            [east, north],
            &[east, north],
            gaussian,
            scale,
        )
        .or_else(|| (edges.len() < 5).then(|| vec![vec![0.0; edges.len()]; 2]))
        // Corners of a limited-area grid may have too few edges: no reconstruction there.
        .ok_or_else(|| Error::Config(format!("rbf_vec_coeff_v: singular system at vertex {v}")))?;
        for (k, &j) in slots.iter().enumerate() {
            g.rbf_vec_coeff_v1[[v, j]] = w[0][k];
            g.rbf_vec_coeff_v2[[v, j]] = w[1][k];
        }
    }
    Ok(())
}

fn compute_rbf_edge(g: &mut Geometry, tables: &Tables) -> Result<(), Error> {
    let e2c2e = &tables["E2C2E"];
    let scale = RBF_SCALE_FACTOR * mean(&g.primal_edge_length);
    for e in 0..e2c2e.nrows() {
        let slots: Vec<usize> = (0..4).filter(|&j| e2c2e[[e, j]] >= 0).collect();
        if slots.is_empty() {
            continue;
        }
        let edges: Vec<usize> = slots.iter().map(|&j| e2c2e[[e, j]] as usize).collect();
        let w = rbf_weights(
            g,
            &edges,
            row(&g.edge_center, e),
            [row(&g.primal_normal, e), row(&g.dual_normal, e)],
            &[row(&g.dual_normal, e)],
            inverse_multiquadric,
            scale,
        )
        .or_else(|| (edges.len() < 4).then(|| vec![vec![0.0; edges.len()]]))
        .ok_or_else(|| Error::Config(format!("rbf_vec_coeff_e: singular system at edge {e}")))?;
        for (k, &j) in slots.iter().enumerate() {
            g.rbf_vec_coeff_e[[e, j]] = w[0][k];
        }
    }
    Ok(())
}

/// Solves a small dense system by Gaussian elimination with partial pivoting; `None` if
/// it is singular.
pub(crate) fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    let scale = a.iter().flatten().fold(0.0f64, |m, x| m.max(x.abs()));
    for col in 0..n {
        let pivot = (col..n).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[pivot][col].abs() <= 1e-14 * scale {
            return None;
        }
        a.swap(col, pivot);
        b.swap(col, pivot);
        let (upper, lower) = a.split_at_mut(col + 1);
        let pivot_row = &upper[col];
        for (offset, target) in lower.iter_mut().enumerate() {
            let f = target[col] / pivot_row[col];
            for (t, p) in target[col..].iter_mut().zip(&pivot_row[col..]) {
                *t -= f * p;
            }
            b[col + 1 + offset] -= f * b[col];
        }
    }
    let mut x = vec![0.0; n];
    for r in (0..n).rev() {
        let s: f64 = (r + 1..n).map(|k| a[r][k] * x[k]).sum();
        x[r] = (b[r] - s) / a[r][r];
    }
    Some(x)
}
