//! ICON's geometry and interpolation coefficients (formulas in docs/grids.md).

use std::collections::BTreeMap;

use ndarray::{Array1, Array2, ArrayD, ArrayViewD};

use super::interpolation;
use super::surface::Surface;
use super::topology::Tables;
use super::vec3::{cross, dot, Vec3};
use super::GridDim;
use crate::error::Error;

/// One named geometry array, for generic handling (files, regional cuts).
pub struct GeometryArray<'a> {
    /// The ICON4Py name of the array (`"cell_area"`).
    pub name: &'static str,
    /// The dimension of the array's first axis.
    pub dim: GridDim,
    /// The neighbour table indexing the second axis, if the array has one per neighbour.
    pub table: Option<&'static str>,
    /// The values.
    pub data: ArrayViewD<'a, f64>,
}

macro_rules! geometry_fields {
    ($( $(#[$doc:meta])* $name:ident : $ty:ident @ $dim:ident $(/ $table:literal)? ),* $(,)?) => {
        /// Coordinates, metric terms and coefficients, one array per ICON field (ICON4Py
        /// names). Per-neighbour arrays have one column per slot of the named table; slots
        /// without a neighbour hold 0.
        #[derive(Clone, Debug, PartialEq)]
        pub struct Geometry {
            /// The surface the positions lie on.
            pub surface: Surface,
            $( $(#[$doc])* pub $name: $ty<f64>, )*
        }

        impl Geometry {
            /// Every array with its name, dimension and neighbour table.
            pub fn arrays(&self) -> Vec<GeometryArray<'_>> {
                vec![$(GeometryArray {
                    name: stringify!($name),
                    dim: GridDim::$dim,
                    table: geometry_fields!(@table $($table)?),
                    data: self.$name.view().into_dyn(),
                }),*]
            }

            /// Rebuilds from named arrays (the inverse of [`arrays`](Self::arrays)).
            pub fn from_arrays(
                surface: Surface,
                arrays: &mut BTreeMap<String, ArrayD<f64>>,
            ) -> Result<Self, Error> {
                Ok(Geometry {
                    surface,
                    $( $name: arrays
                        .remove(stringify!($name))
                        .ok_or_else(|| Error::Io(format!("geometry array `{}` is missing", stringify!($name))))?
                        .into_dimensionality()
                        .map_err(|e| Error::Shape(format!("geometry array `{}`: {e}", stringify!($name))))?, )*
                })
            }
        }
    };
    (@table $t:literal) => { Some($t) };
    (@table) => { None };
}

geometry_fields! {
    /// Vertex positions, `[vertex, xyz]` (metres; torus: `z = 0`).
    vertex_position: Array2 @ Vertex,
    /// Cell centres (circumcentres), `[cell, xyz]`.
    cell_center: Array2 @ Cell,
    /// Edge midpoints, `[edge, xyz]`.
    edge_center: Array2 @ Edge,
    /// Length of the edge (between its two vertices), metres.
    primal_edge_length: Array1 @ Edge,
    /// `1 / primal_edge_length`.
    inv_primal_edge_length: Array1 @ Edge,
    /// Distance between the centres of the edge's two cells.
    dual_edge_length: Array1 @ Edge,
    /// `1 / dual_edge_length`.
    inv_dual_edge_length: Array1 @ Edge,
    /// Distance from the edge midpoint to the centre of each E2C cell.
    edge_cell_length: Array2 @ Edge / "E2C",
    /// Distance from the edge midpoint to each E2V vertex.
    edge_vert_length: Array2 @ Edge / "E2V",
    /// Area of the cell, square metres.
    cell_area: Array1 @ Cell,
    /// Area of the dual (Voronoi) cell around the vertex.
    dual_area: Array1 @ Vertex,
    /// Unit edge normal at the midpoint, `[edge, xyz]`, from `E2C[0]` towards `E2C[1]`.
    primal_normal: Array2 @ Edge,
    /// Unit vector along the edge, `primal_normal x up` (ICON's: the normal turned a right
    /// angle clockwise seen from above), `[edge, xyz]`.
    dual_normal: Array2 @ Edge,
    /// East component of `primal_normal` in the local frame at the edge midpoint.
    primal_normal_x: Array1 @ Edge,
    /// North component of `primal_normal` in the local frame at the edge midpoint.
    primal_normal_y: Array1 @ Edge,
    /// East component of `dual_normal` in the local frame at the edge midpoint.
    dual_normal_x: Array1 @ Edge,
    /// North component of `dual_normal` in the local frame at the edge midpoint.
    dual_normal_y: Array1 @ Edge,
    /// +1 if `E2V[0] -> E2V[1]` runs along `dual_normal`, else -1.
    tangent_orientation: Array1 @ Edge,
    /// +1 if the edge normal points out of the cell (ICON `edge_orientation` on cells).
    cell_edge_orientation: Array2 @ Cell / "C2E",
    /// +1 if the edge normal points counter-clockwise around the vertex.
    vertex_edge_orientation: Array2 @ Vertex / "V2E",
    /// East component of the edge normal in the local frame of each E2C2V vertex.
    primal_normal_vert_x: Array2 @ Edge / "E2C2V",
    /// North component of the edge normal in the local frame of each E2C2V vertex.
    primal_normal_vert_y: Array2 @ Edge / "E2C2V",
    /// East component of the edge tangent in the local frame of each E2C2V vertex.
    dual_normal_vert_x: Array2 @ Edge / "E2C2V",
    /// North component of the edge tangent in the local frame of each E2C2V vertex.
    dual_normal_vert_y: Array2 @ Edge / "E2C2V",
    /// East component of the edge normal in the local frame of each E2C cell centre.
    primal_normal_cell_x: Array2 @ Edge / "E2C",
    /// North component of the edge normal in the local frame of each E2C cell centre.
    primal_normal_cell_y: Array2 @ Edge / "E2C",
    /// East component of the edge tangent in the local frame of each E2C cell centre.
    dual_normal_cell_x: Array2 @ Edge / "E2C",
    /// North component of the edge tangent in the local frame of each E2C cell centre.
    dual_normal_cell_y: Array2 @ Edge / "E2C",
    /// 1 / distance between the two far vertices `E2C2V[2]` and `E2C2V[3]`.
    inv_vert_vert_length: Array1 @ Edge,
    /// Divergence weights: the divergence at a cell is `Σ geofac_div · v_n` over its C2E
    /// edges (edge length × orientation / cell area).
    geofac_div: Array2 @ Cell / "C2E",
    /// Curl weights: the vorticity at a vertex is `Σ geofac_rot · v_n` over its V2E edges
    /// (dual edge length × orientation / dual area).
    geofac_rot: Array2 @ Vertex / "V2E",
    /// Laplacian weights of a cell scalar from the cell itself and its C2E2C neighbours
    /// (slot 0 is the cell).
    geofac_n2s: Array2 @ Cell / "C2E2CO",
    /// Green-Gauss gradient weights, east component, over the cell and its C2E2C neighbours.
    geofac_grg_x: Array2 @ Cell / "C2E2CO",
    /// Green-Gauss gradient weights, north component, over the cell and its C2E2C neighbours.
    geofac_grg_y: Array2 @ Cell / "C2E2CO",
    /// Linear interpolation weights cell -> edge.
    c_lin_e: Array2 @ Edge / "E2C",
    /// Interpolation weights edge -> cell (exact for linear fields).
    e_bln_c_s: Array2 @ Cell / "C2E",
    /// Area weights cell -> vertex.
    c_intp: Array2 @ Vertex / "V2C",
    /// RBF reconstruction of the vector at a vertex from V2E normal components: east part.
    rbf_vec_coeff_v1: Array2 @ Vertex / "V2E",
    /// ... and north part.
    rbf_vec_coeff_v2: Array2 @ Vertex / "V2E",
    /// RBF reconstruction of the tangential component at an edge from E2C2E normals.
    rbf_vec_coeff_e: Array2 @ Edge / "E2C2E",
}

pub(crate) fn row(a: &Array2<f64>, i: usize) -> Vec3 {
    [a[[i, 0]], a[[i, 1]], a[[i, 2]]]
}

fn sign(x: f64) -> f64 {
    if x >= 0.0 {
        1.0
    } else {
        -1.0
    }
}

impl Geometry {
    /// Computes everything from vertex positions and the tables. Grids with a boundary
    /// (missing E2C cells) get the one-sided variants documented in docs/grids.md.
    pub(crate) fn compute(
        surface: Surface,
        vertex_position: Array2<f64>,
        tables: &Tables,
    ) -> Result<Self, Error> {
        let (c2v, c2e, e2v, e2c) = (
            &tables["C2V"],
            &tables["C2E"],
            &tables["E2V"],
            &tables["E2C"],
        );
        let (v2e, v2c, e2c2v) = (&tables["V2E"], &tables["V2C"], &tables["E2C2V"]);
        let (nc, ne, nv) = (c2v.nrows(), e2v.nrows(), vertex_position.nrows());
        let vpos = |v: i32| row(&vertex_position, v as usize);

        let mut cell_center = Array2::zeros((nc, 3));
        let mut cell_area = Array1::zeros(nc);
        for c in 0..nc {
            let (a, b, d) = (vpos(c2v[[c, 0]]), vpos(c2v[[c, 1]]), vpos(c2v[[c, 2]]));
            let cc = surface.circumcenter(a, b, d);
            for k in 0..3 {
                cell_center[[c, k]] = cc[k];
            }
            cell_area[c] = surface.signed_triangle_area(a, b, d);
            if cell_area[c] <= 0.0 {
                return Err(Error::Config(format!(
                    "cell {c} is not counter-clockwise (area {})",
                    cell_area[c]
                )));
            }
        }
        let cpos = |c: i32| row(&cell_center, c as usize);

        let mut edge_center = Array2::zeros((ne, 3));
        let mut primal_edge_length = Array1::zeros(ne);
        let mut dual_edge_length = Array1::zeros(ne);
        let mut edge_cell_length = Array2::zeros((ne, 2));
        let mut edge_vert_length = Array2::zeros((ne, 2));
        let mut primal_normal = Array2::zeros((ne, 3));
        let mut dual_normal = Array2::zeros((ne, 3));
        let mut tangent_orientation = Array1::zeros(ne);
        let mut inv_vert_vert_length = Array1::zeros(ne);
        for e in 0..ne {
            let (a, b) = (vpos(e2v[[e, 0]]), vpos(e2v[[e, 1]]));
            let m = surface.midpoint(a, b);
            let up = surface.up(m);
            let along = surface.direction(m, b);
            // Right of a -> b; flipped if needed so that it points towards E2C[1]'s side
            // (away from E2C[0]'s side on a boundary edge without E2C[1]).
            let mut n = cross(along, up);
            let towards_second = match (e2c2v[[e, 2]], e2c2v[[e, 3]]) {
                (_, far1) if far1 >= 0 => dot(n, surface.direction(m, vpos(far1))),
                (far0, _) if far0 >= 0 => -dot(n, surface.direction(m, vpos(far0))),
                _ => return Err(Error::Config(format!("edge {e} has no cell"))),
            };
            if towards_second < 0.0 {
                n = [-n[0], -n[1], -n[2]];
            }
            // ICON's tangent: the normal turned a right angle clockwise seen from above, so that
            // the Coriolis and vorticity terms' `-vt (f + ζ)` is the force along the normal.
            let t = cross(n, up);
            for k in 0..3 {
                edge_center[[e, k]] = m[k];
                primal_normal[[e, k]] = n[k];
                dual_normal[[e, k]] = t[k];
            }
            tangent_orientation[e] = sign(dot(along, t));
            primal_edge_length[e] = surface.distance(a, b);
            for k in 0..2 {
                if e2c[[e, k]] >= 0 {
                    edge_cell_length[[e, k]] = surface.distance(m, cpos(e2c[[e, k]]));
                }
                edge_vert_length[[e, k]] = surface.distance(m, vpos(e2v[[e, k]]));
            }
            // A boundary edge's dual edge is mirrored: twice the distance to its one centre.
            dual_edge_length[e] = match (e2c[[e, 0]], e2c[[e, 1]]) {
                (c0, c1) if c0 >= 0 && c1 >= 0 => surface.distance(cpos(c0), cpos(c1)),
                _ => 2.0 * (edge_cell_length[[e, 0]] + edge_cell_length[[e, 1]]),
            };
            let (far0, far1) = (e2c2v[[e, 2]], e2c2v[[e, 3]]);
            if far0 >= 0 && far1 >= 0 {
                inv_vert_vert_length[e] = 1.0 / surface.distance(vpos(far0), vpos(far1));
            }
        }
        let inv_primal_edge_length = primal_edge_length.mapv(|x: f64| 1.0 / x);
        let inv_dual_edge_length = dual_edge_length.mapv(|x: f64| 1.0 / x);
        let epos = |e: i32| row(&edge_center, e as usize);
        let normal = |e: i32| row(&primal_normal, e as usize);
        let tangent = |e: i32| row(&dual_normal, e as usize);

        // Dual areas as sums of kites (vertex, edge midpoint, cell centre, edge midpoint);
        // signed areas keep the sum exact for obtuse cells too.
        let mut dual_area = Array1::zeros(nv);
        let mut c_intp = Array2::zeros((nv, 6));
        for v in 0..nv {
            let p = vpos(v as i32);
            for j in 0..6 {
                let c = v2c[[v, j]];
                if c < 0 {
                    continue;
                }
                let cu = c as usize;
                let i = (0..3)
                    .find(|&i| c2v[[cu, i]] == v as i32)
                    .ok_or_else(|| Error::Config(format!("V2C and C2V disagree at vertex {v}")))?;
                let (e_out, e_in) = (c2e[[cu, i]], c2e[[cu, (i + 2) % 3]]);
                let cc = cpos(c);
                let kite = surface.signed_triangle_area(p, epos(e_out), cc)
                    + surface.signed_triangle_area(p, cc, epos(e_in));
                c_intp[[v, j]] = kite;
                dual_area[v] += kite;
            }
            for j in 0..6 {
                c_intp[[v, j]] /= dual_area[v];
            }
        }

        let mut cell_edge_orientation = Array2::zeros((nc, 3));
        let mut geofac_div = Array2::zeros((nc, 3));
        for c in 0..nc {
            for i in 0..3 {
                let e = c2e[[c, i]] as usize;
                let o = if e2c[[e, 0]] == c as i32 { 1.0 } else { -1.0 };
                cell_edge_orientation[[c, i]] = o;
                geofac_div[[c, i]] = primal_edge_length[e] * o / cell_area[c];
            }
        }
        let mut vertex_edge_orientation = Array2::zeros((nv, 6));
        let mut geofac_rot = Array2::zeros((nv, 6));
        for v in 0..nv {
            for j in 0..6 {
                let e = v2e[[v, j]];
                if e < 0 {
                    continue;
                }
                let m = epos(e);
                let away = surface.direction(m, vpos(v as i32));
                let counter_clockwise = cross(surface.up(m), [-away[0], -away[1], -away[2]]);
                let o = sign(dot(normal(e), counter_clockwise));
                vertex_edge_orientation[[v, j]] = o;
                geofac_rot[[v, j]] = dual_edge_length[e as usize] * o / dual_area[v];
            }
        }

        let frame = |p: Vec3, vector: Vec3| {
            let (east, north) = surface.east_north(p);
            (dot(vector, east), dot(vector, north))
        };
        // An edge's vector seen from a cell centre or a vertex: its projection onto the tangent
        // plane there, scaled back to unit length, as ICON does (the plane is tilted against
        // the edge midpoint's, so the bare projection is up to 1 % short on an R2B2 grid).
        let unit_frame = |p: Vec3, vector: Vec3| {
            let (x, y) = frame(p, vector);
            let length = (x * x + y * y).sqrt();
            if length > 0.0 {
                (x / length, y / length)
            } else {
                (x, y)
            }
        };
        let mut primal_normal_x = Array1::zeros(ne);
        let mut primal_normal_y = Array1::zeros(ne);
        let mut dual_normal_x = Array1::zeros(ne);
        let mut dual_normal_y = Array1::zeros(ne);
        let mut pnv = [Array2::zeros((ne, 4)), Array2::zeros((ne, 4))];
        let mut dnv = [Array2::zeros((ne, 4)), Array2::zeros((ne, 4))];
        let mut pnc = [Array2::zeros((ne, 2)), Array2::zeros((ne, 2))];
        let mut dnc = [Array2::zeros((ne, 2)), Array2::zeros((ne, 2))];
        for e in 0..ne {
            let ei = e as i32;
            let m = epos(ei);
            (primal_normal_x[e], primal_normal_y[e]) = frame(m, normal(ei));
            (dual_normal_x[e], dual_normal_y[e]) = frame(m, tangent(ei));
            for k in (0..4).filter(|&k| e2c2v[[e, k]] >= 0) {
                let p = vpos(e2c2v[[e, k]]);
                (pnv[0][[e, k]], pnv[1][[e, k]]) = unit_frame(p, normal(ei));
                (dnv[0][[e, k]], dnv[1][[e, k]]) = unit_frame(p, tangent(ei));
            }
            for k in (0..2).filter(|&k| e2c[[e, k]] >= 0) {
                let p = cpos(e2c[[e, k]]);
                (pnc[0][[e, k]], pnc[1][[e, k]]) = unit_frame(p, normal(ei));
                (dnc[0][[e, k]], dnc[1][[e, k]]) = unit_frame(p, tangent(ei));
            }
        }
        let [primal_normal_vert_x, primal_normal_vert_y] = pnv;
        let [dual_normal_vert_x, dual_normal_vert_y] = dnv;
        let [primal_normal_cell_x, primal_normal_cell_y] = pnc;
        let [dual_normal_cell_x, dual_normal_cell_y] = dnc;

        let mut c_lin_e = Array2::zeros((ne, 2));
        for e in 0..ne {
            c_lin_e[[e, 0]] = match (e2c[[e, 0]] >= 0, e2c[[e, 1]] >= 0) {
                (true, true) => edge_cell_length[[e, 1]] * inv_dual_edge_length[e],
                // One cell: its value is taken as is (ICON's `cells2edges_scalar`).
                (true, false) => 1.0,
                _ => 0.0,
            };
            c_lin_e[[e, 1]] = if e2c[[e, 1]] >= 0 {
                1.0 - c_lin_e[[e, 0]]
            } else {
                0.0
            };
        }

        let mut geometry = Geometry {
            surface,
            vertex_position,
            cell_center,
            edge_center,
            primal_edge_length,
            inv_primal_edge_length,
            dual_edge_length,
            inv_dual_edge_length,
            edge_cell_length,
            edge_vert_length,
            cell_area,
            dual_area,
            primal_normal,
            dual_normal,
            primal_normal_x,
            primal_normal_y,
            dual_normal_x,
            dual_normal_y,
            tangent_orientation,
            cell_edge_orientation,
            vertex_edge_orientation,
            primal_normal_vert_x,
            primal_normal_vert_y,
            dual_normal_vert_x,
            dual_normal_vert_y,
            primal_normal_cell_x,
            primal_normal_cell_y,
            dual_normal_cell_x,
            dual_normal_cell_y,
            inv_vert_vert_length,
            geofac_div,
            geofac_rot,
            geofac_n2s: Array2::zeros((nc, 4)),
            geofac_grg_x: Array2::zeros((nc, 4)),
            geofac_grg_y: Array2::zeros((nc, 4)),
            c_lin_e,
            e_bln_c_s: Array2::zeros((nc, 3)),
            c_intp,
            rbf_vec_coeff_v1: Array2::zeros((nv, 6)),
            rbf_vec_coeff_v2: Array2::zeros((nv, 6)),
            rbf_vec_coeff_e: Array2::zeros((ne, 4)),
        };
        interpolation::compute_coefficients(&mut geometry, tables)?;
        Ok(geometry)
    }
}
