//! ICON's global RnBk grids: an icosahedron whose edges are divided into `n` parts (root
//! division), then `k` times bisected, all points projected onto the sphere.
//!
//! Numbering follows the refinement hierarchy: the four children of cell `i` are
//! `4i..4i+4`, so a cell's neighbours are mostly a few indices away; vertices and edges are
//! numbered by first appearance along the cells, so they follow the same locality.

use std::collections::HashMap;

use super::surface::Surface;
use super::vec3::{cross, dot, norm, normalize, sub, Vec3};
use super::{Grid, GridKind};
use crate::error::Error;

/// The largest bisection count accepted: R2B10 already has 83 million cells.
pub const MAX_BISECTIONS: u32 = 10;

/// Generator of ICON's icosahedral grids.
pub struct IcosahedralGrid;

impl IcosahedralGrid {
    /// The RnBk grid on the Earth's sphere, with geometry and (global, empty) zones.
    pub fn generate(root: u32, bisections: u32) -> Result<Grid, Error> {
        Self::generate_with_radius(root, bisections, super::EARTH_RADIUS)
    }

    /// The RnBk grid on a sphere of `radius` metres.
    pub fn generate_with_radius(root: u32, bisections: u32, radius: f64) -> Result<Grid, Error> {
        if root == 0 || root > 64 {
            return Err(Error::Config(format!(
                "root division must be in 1..=64, got {root}"
            )));
        }
        if bisections > MAX_BISECTIONS {
            return Err(Error::Config(format!(
                "at most {MAX_BISECTIONS} bisections are supported, got {bisections}"
            )));
        }
        if !(radius.is_finite() && radius > 0.0) {
            return Err(Error::Config(format!(
                "radius must be positive, got {radius}"
            )));
        }
        let (mut points, mut cells) = root_division(root);
        for _ in 0..bisections {
            bisect(&mut points, &mut cells);
        }
        let (points, cells) = number_vertices_along_cells(points, cells);
        let surface = Surface::Sphere { radius };
        let points = points.into_iter().map(|p| surface.place(p)).collect();
        Grid::from_triangles(
            surface,
            points,
            &cells,
            GridKind::Icosahedral { root, bisections },
        )
    }
}

/// The 12 vertices of the icosahedron, with vertex 0 at the north pole and vertex 11 at the
/// south pole (as in ICON), and its 20 faces, counter-clockwise from outside.
fn icosahedron() -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let phi = (1.0 + 5f64.sqrt()) / 2.0;
    let raw: Vec<Vec3> = vec![
        [0.0, 1.0, phi],
        [0.0, -1.0, phi],
        [0.0, 1.0, -phi],
        [0.0, -1.0, -phi],
        [1.0, phi, 0.0],
        [-1.0, phi, 0.0],
        [1.0, -phi, 0.0],
        [-1.0, -phi, 0.0],
        [phi, 0.0, 1.0],
        [-phi, 0.0, 1.0],
        [phi, 0.0, -1.0],
        [-phi, 0.0, -1.0],
    ];
    // Rotate about the x axis so that [0, 1, phi] becomes the north pole.
    let angle = 1f64.atan2(phi);
    let (s, c) = angle.sin_cos();
    let rotated: Vec<Vec3> = raw
        .iter()
        .map(|p| normalize([p[0], c * p[1] - s * p[2], s * p[1] + c * p[2]]))
        .collect();
    // Order by latitude (north to south), then longitude, so the poles are 0 and 11.
    let mut order: Vec<usize> = (0..12).collect();
    order.sort_by(|&a, &b| {
        let key = |p: Vec3| ((-p[2] * 1e6).round(), p[1].atan2(p[0]));
        key(rotated[a])
            .partial_cmp(&key(rotated[b]))
            .expect("finite")
    });
    let points: Vec<Vec3> = order.iter().map(|&i| rotated[i]).collect();
    let edge_length = norm(sub(points[0], points[1])).min(norm(sub(points[0], points[2])));
    let adjacent =
        |a: usize, b: usize| (norm(sub(points[a], points[b])) - edge_length).abs() < 1e-9;
    let mut faces = Vec::with_capacity(20);
    for a in 0..12 {
        for b in a + 1..12 {
            for c in b + 1..12 {
                if adjacent(a, b) && adjacent(b, c) && adjacent(a, c) {
                    let (pa, pb, pc) = (points[a], points[b], points[c]);
                    let outward = dot(cross(sub(pb, pa), sub(pc, pa)), pa) > 0.0;
                    faces.push(if outward {
                        [a as u32, b as u32, c as u32]
                    } else {
                        [a as u32, c as u32, b as u32]
                    });
                }
            }
        }
    }
    debug_assert_eq!(faces.len(), 20);
    (points, faces)
}

/// Divides each icosahedron face into `n * n` triangles on a regular lattice.
fn root_division(n: u32) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let (corners, faces) = icosahedron();
    if n == 1 {
        return (corners, faces);
    }
    let mut points: Vec<Vec3> = Vec::new();
    // A lattice point is identified by its integer barycentric weights on the icosahedron
    // vertices, which is the same from every face that shares it.
    let mut index_of: HashMap<Vec<(u32, u32)>, u32> = HashMap::new();
    let mut cells = Vec::with_capacity(faces.len() * (n * n) as usize);
    for face in &faces {
        let mut lattice = |i: u32, j: u32| -> u32 {
            let weights = [(face[0], n - i - j), (face[1], i), (face[2], j)];
            let mut key: Vec<(u32, u32)> = weights.iter().copied().filter(|w| w.1 > 0).collect();
            key.sort_unstable();
            *index_of.entry(key).or_insert_with(|| {
                let mut p = [0.0; 3];
                for (v, w) in weights {
                    for (d, pd) in p.iter_mut().enumerate() {
                        *pd += corners[v as usize][d] * w as f64 / n as f64;
                    }
                }
                points.push(normalize(p));
                (points.len() - 1) as u32
            })
        };
        for j in 0..n {
            for i in 0..n - j {
                let (a, b, c) = (lattice(i, j), lattice(i + 1, j), lattice(i, j + 1));
                cells.push([a, b, c]);
                if i + j + 1 < n {
                    let d = lattice(i + 1, j + 1);
                    cells.push([b, d, c]);
                }
            }
        }
    }
    (points, cells)
}

/// Replaces every cell by its four children (corner cells first, centre cell last), adding
/// the great-circle midpoints of the edges.
fn bisect(points: &mut Vec<Vec3>, cells: &mut Vec<[u32; 3]>) {
    let mut midpoint_of: HashMap<(u32, u32), u32> = HashMap::with_capacity(cells.len() * 3 / 2);
    let mut children = Vec::with_capacity(cells.len() * 4);
    for &[a, b, c] in cells.iter() {
        let mut mid = |x: u32, y: u32| -> u32 {
            *midpoint_of.entry((x.min(y), x.max(y))).or_insert_with(|| {
                let (p, q) = (points[x as usize], points[y as usize]);
                points.push(normalize([p[0] + q[0], p[1] + q[1], p[2] + q[2]]));
                (points.len() - 1) as u32
            })
        };
        let (ab, bc, ca) = (mid(a, b), mid(b, c), mid(c, a));
        children.push([a, ab, ca]);
        children.push([ab, b, bc]);
        children.push([ca, bc, c]);
        children.push([ab, bc, ca]);
    }
    *cells = children;
}

/// Renumbers vertices by first appearance along the cells (for locality).
fn number_vertices_along_cells(
    points: Vec<Vec3>,
    mut cells: Vec<[u32; 3]>,
) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let mut new_index = vec![u32::MAX; points.len()];
    let mut ordered = Vec::with_capacity(points.len());
    for cell in cells.iter_mut() {
        for v in cell.iter_mut() {
            if new_index[*v as usize] == u32::MAX {
                new_index[*v as usize] = ordered.len() as u32;
                ordered.push(points[*v as usize]);
            }
            *v = new_index[*v as usize];
        }
    }
    (ordered, cells)
}
