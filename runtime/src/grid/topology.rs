//! Every ICON neighbour table, derived from the cells' corners (C2V, counter-clockwise).
//!
//! Slot conventions (see docs/grids.md):
//! - `C2E[c][i]` is the edge from `C2V[c][i]` to `C2V[c][i+1]`; `C2E2C[c][i]` the cell across it.
//! - `E2V[e]` lists the lower vertex index first; `E2C[e]` the lower cell index first. The
//!   edge normal points from `E2C[e][0]` to `E2C[e][1]`.
//! - `V2E`/`V2C` run counter-clockwise around the vertex; `V2C[v][j]` lies between
//!   `V2E[v][j]` and `V2E[v][j+1]`. Pentagons hold -1 in slot 5.
//! - Derived tables follow icon4py's constructions: E2C2V = E2V then the far corner of each
//!   E2C cell; E2C2E = for each E2C cell its other two edges in C2E order; C2E2C2E = C2E of
//!   each C2E2C neighbour; C2E2C2E2C = C2E2C of each C2E2C neighbour; `*O` = self first.

use std::collections::{BTreeMap, HashMap};

use ndarray::Array2;

use crate::error::Error;

/// The neighbour tables by offset name (upper case, as in ICON4Py).
pub type Tables = BTreeMap<String, Array2<i32>>;

/// Widths of the ICON tables, in one place.
pub const TABLE_WIDTHS: &[(&str, usize)] = &[
    ("C2E", 3),
    ("C2V", 3),
    ("E2V", 2),
    ("E2C", 2),
    ("C2E2C", 3),
    ("C2E2CO", 4),
    ("V2E", 6),
    ("V2C", 6),
    ("V2E2V", 6),
    ("E2C2V", 4),
    ("E2C2E", 4),
    ("E2C2EO", 5),
    ("C2E2C2E", 9),
    ("C2E2C2E2C", 9),
];

/// Source and target dimension of each table.
pub fn table_dims(name: &str) -> Option<(super::GridDim, super::GridDim)> {
    use super::GridDim::{Cell, Edge, Vertex};
    let first = match name.as_bytes().first()? {
        b'C' => Cell,
        b'E' => Edge,
        b'V' => Vertex,
        _ => return None,
    };
    let name = name.strip_suffix('O').unwrap_or(name);
    let last = match name.as_bytes().last()? {
        b'C' => Cell,
        b'E' => Edge,
        b'V' => Vertex,
        _ => return None,
    };
    Some((first, last))
}

/// Sizes and tables of a closed (boundary-free) triangulation.
pub struct Topology {
    pub num_cells: usize,
    pub num_edges: usize,
    pub num_vertices: usize,
    pub tables: Tables,
}

fn table(rows: usize, width: usize, entries: Vec<i32>) -> Array2<i32> {
    Array2::from_shape_vec((rows, width), entries).expect("entries match rows * width")
}

/// Builds all tables of a closed triangulation whose cells list their corners
/// counter-clockwise seen from outside. Fails if an edge does not have exactly two cells or
/// the cells around a vertex do not form one ring of at most 6.
pub fn build(c2v: &[[u32; 3]], num_vertices: usize) -> Result<Topology, Error> {
    let num_cells = c2v.len();
    let topo_err = |m: String| Error::Config(format!("grid topology: {m}"));

    // Edges, in order of first appearance when walking the cells: this keeps edges near
    // their cells in memory.
    let mut edge_of: HashMap<(u32, u32), u32> = HashMap::with_capacity(num_cells * 3 / 2 + 1);
    let mut e2v: Vec<[i32; 2]> = Vec::with_capacity(num_cells * 3 / 2 + 1);
    let mut e2c: Vec<[i32; 2]> = Vec::with_capacity(num_cells * 3 / 2 + 1);
    let mut c2e = vec![0i32; num_cells * 3];
    for (c, corners) in c2v.iter().enumerate() {
        for i in 0..3 {
            let (a, b) = (corners[i], corners[(i + 1) % 3]);
            if a as usize >= num_vertices || b as usize >= num_vertices || a == b {
                return Err(topo_err(format!(
                    "cell {c} has invalid corners {corners:?}"
                )));
            }
            let key = (a.min(b), a.max(b));
            let e = match edge_of.get(&key) {
                Some(&e) => {
                    let slot = &mut e2c[e as usize];
                    if slot[1] != -1 {
                        return Err(topo_err(format!("edge {key:?} has more than two cells")));
                    }
                    slot[1] = c as i32;
                    e
                }
                None => {
                    let e = e2v.len() as u32;
                    edge_of.insert(key, e);
                    e2v.push([key.0 as i32, key.1 as i32]);
                    e2c.push([c as i32, -1]);
                    e
                }
            };
            c2e[c * 3 + i] = e as i32;
        }
    }
    drop(edge_of);
    let num_edges = e2v.len();
    if let Some(e) = e2c.iter().position(|cells| cells[1] == -1) {
        return Err(topo_err(format!(
            "edge {e} has only one cell: the surface is not closed"
        )));
    }

    let other_cell = |e: i32, c: i32| -> i32 {
        let cells = e2c[e as usize];
        if cells[0] == c {
            cells[1]
        } else {
            cells[0]
        }
    };
    let mut c2e2c = vec![0i32; num_cells * 3];
    for c in 0..num_cells {
        for i in 0..3 {
            c2e2c[c * 3 + i] = other_cell(c2e[c * 3 + i], c as i32);
        }
    }

    // Rings around vertices: in cell c with v at slot i, the cell spans (counter-clockwise
    // around v) from edge C2E[c][i] to edge C2E[c][i+2]; the next cell is across the latter.
    let mut first_cell = vec![-1i32; num_vertices];
    for (c, corners) in c2v.iter().enumerate() {
        for &v in corners {
            if first_cell[v as usize] == -1 {
                first_cell[v as usize] = c as i32;
            }
        }
    }
    let mut v2e = vec![-1i32; num_vertices * 6];
    let mut v2c = vec![-1i32; num_vertices * 6];
    for v in 0..num_vertices {
        let start = first_cell[v];
        if start < 0 {
            return Err(topo_err(format!("vertex {v} belongs to no cell")));
        }
        let mut c = start;
        let mut j = 0;
        loop {
            if j == 6 {
                return Err(topo_err(format!("vertex {v} has more than 6 cells")));
            }
            let cu = c as usize;
            let i = c2v[cu]
                .iter()
                .position(|&x| x as usize == v)
                .expect("the ring only visits cells of v");
            v2e[v * 6 + j] = c2e[cu * 3 + i];
            v2c[v * 6 + j] = c;
            j += 1;
            c = other_cell(c2e[cu * 3 + (i + 2) % 3], c);
            if c == start {
                break;
            }
        }
        if j < 3 {
            return Err(topo_err(format!("vertex {v} has only {j} cells")));
        }
    }

    let mut v2e2v = vec![-1i32; num_vertices * 6];
    for v in 0..num_vertices {
        for j in 0..6 {
            let e = v2e[v * 6 + j];
            if e >= 0 {
                let ends = e2v[e as usize];
                v2e2v[v * 6 + j] = if ends[0] == v as i32 {
                    ends[1]
                } else {
                    ends[0]
                };
            }
        }
    }

    let c2v_flat: Vec<i32> = c2v.iter().flatten().map(|&v| v as i32).collect();
    let mut tables = Tables::new();
    tables.insert("C2V".into(), table(num_cells, 3, c2v_flat));
    tables.insert("C2E".into(), table(num_cells, 3, c2e));
    tables.insert("C2E2C".into(), table(num_cells, 3, c2e2c));
    tables.insert(
        "E2V".into(),
        table(num_edges, 2, e2v.into_iter().flatten().collect()),
    );
    tables.insert(
        "E2C".into(),
        table(num_edges, 2, e2c.into_iter().flatten().collect()),
    );
    tables.insert("V2E".into(), table(num_vertices, 6, v2e));
    tables.insert("V2C".into(), table(num_vertices, 6, v2c));
    tables.insert("V2E2V".into(), table(num_vertices, 6, v2e2v));
    add_derived_tables(&mut tables);
    Ok(Topology {
        num_cells,
        num_edges,
        num_vertices,
        tables,
    })
}

/// Gathers `inner[outer[r][k]]` row by row (-1 propagates), the way icon4py composes tables.
fn compose(outer: &Array2<i32>, inner: &Array2<i32>) -> Array2<i32> {
    let (rows, w_out) = outer.dim();
    let w_in = inner.ncols();
    let mut out = Array2::from_elem((rows, w_out * w_in), -1);
    for r in 0..rows {
        for k in 0..w_out {
            let o = outer[[r, k]];
            if o >= 0 {
                for m in 0..w_in {
                    out[[r, k * w_in + m]] = inner[[o as usize, m]];
                }
            }
        }
    }
    out
}

fn with_self_first(t: &Array2<i32>) -> Array2<i32> {
    let (rows, w) = t.dim();
    let mut out = Array2::from_elem((rows, w + 1), -1);
    for r in 0..rows {
        out[[r, 0]] = r as i32;
        for k in 0..w {
            out[[r, k + 1]] = t[[r, k]];
        }
    }
    out
}

/// Adds E2C2V, E2C2E, E2C2EO, C2E2CO, C2E2C2E, C2E2C2E2C from the basic tables. Entries
/// of a neighbour that is missing (-1) stay -1, so this also serves limited-area grids.
pub fn add_derived_tables(tables: &mut Tables) {
    let (c2v, c2e, c2e2c, e2v, e2c) = (
        &tables["C2V"],
        &tables["C2E"],
        &tables["C2E2C"],
        &tables["E2V"],
        &tables["E2C"],
    );
    let num_edges = e2v.nrows();
    let mut e2c2v = Array2::from_elem((num_edges, 4), -1);
    let mut e2c2e = Array2::from_elem((num_edges, 4), -1);
    for e in 0..num_edges {
        let ends = [e2v[[e, 0]], e2v[[e, 1]]];
        e2c2v[[e, 0]] = ends[0];
        e2c2v[[e, 1]] = ends[1];
        for k in 0..2 {
            let c = e2c[[e, k]];
            if c < 0 {
                continue;
            }
            let c = c as usize;
            if let Some(far) = (0..3).map(|i| c2v[[c, i]]).find(|v| !ends.contains(v)) {
                e2c2v[[e, 2 + k]] = far;
            }
            let mut slot = 0;
            for i in 0..3 {
                let other = c2e[[c, i]];
                if other != e as i32 && slot < 2 {
                    e2c2e[[e, 2 * k + slot]] = other;
                    slot += 1;
                }
            }
        }
    }
    let c2e2c2e = compose(c2e2c, c2e);
    let c2e2c2e2c = compose(c2e2c, c2e2c);
    let c2e2co = with_self_first(c2e2c);
    let e2c2eo = with_self_first(&e2c2e);
    tables.insert("E2C2V".into(), e2c2v);
    tables.insert("E2C2E".into(), e2c2e);
    tables.insert("E2C2EO".into(), e2c2eo);
    tables.insert("C2E2CO".into(), c2e2co);
    tables.insert("C2E2C2E".into(), c2e2c2e);
    tables.insert("C2E2C2E2C".into(), c2e2c2e2c);
}
