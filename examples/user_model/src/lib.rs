//! A model crate that uses gt4rs exactly as an outside user would: it depends on `gt4rs` only,
//! declares its own dimensions and offsets, writes field operators and a program, and runs it.
//!
//! The model: explicit diffusion of a tracer on a periodic ring of cells connected by edges
//! (a 1-D unstructured mesh), with a Cartesian-style vertical smoothing in the same program.

use gt4rs::prelude::*;

gt4rs::dimensions! {
    pub RingCell, RingEdge: horizontal;
    pub Level: vertical;
}

gt4rs::offsets! {
    /// The two cells on either side of an edge.
    pub EdgeToCell: RingEdge => RingCell [2];
    /// The two edges of a cell.
    pub CellToEdge: RingCell => RingEdge [2];
}

/// Flux across each edge: the difference of its two cells' values.
#[field_operator]
pub fn edge_flux(
    q: Field<(RingCell, Level), f64>,
    conductance: Field<RingEdge, f64>,
) -> Field<(RingEdge, Level), f64> {
    conductance * (q.at(EdgeToCell[1]) - q.at(EdgeToCell[0]))
}

/// Divergence of the edge fluxes into each cell (`sign` orients each edge seen from the cell).
#[field_operator]
pub fn diffuse(
    q: Field<(RingCell, Level), f64>,
    conductance: Field<RingEdge, f64>,
    sign: Field<(RingCell, CellToEdge), f64>,
    dt: f64,
) -> Field<(RingCell, Level), f64> {
    let flux = edge_flux(q, conductance);
    q + dt * neighbor_sum(flux.at(CellToEdge) * sign, CellToEdge)
}

/// One step: horizontal diffusion everywhere, then vertical smoothing of the interior levels.
#[program]
pub fn ring_step(
    q: &Field<(RingCell, Level), f64>,
    conductance: &Field<RingEdge, f64>,
    sign: &Field<(RingCell, CellToEdge), f64>,
    dt: f64,
    nlev: i32,
    q_new: &mut Field<(RingCell, Level), f64>,
    q_smooth: &mut Field<(RingCell, Level), f64>,
) {
    diffuse(q, conductance, sign, dt).write_to(q_new);
    smooth_levels(q).write_to(q_smooth, domain![Level: 1..nlev - 1]);
}

/// A three-point average along the vertical.
#[field_operator]
pub fn smooth_levels(q: Field<(RingCell, Level), f64>) -> Field<(RingCell, Level), f64> {
    0.25 * q.at(Level - 1) + 0.5 * q + 0.25 * q.at(Level + 1)
}

/// The ring's neighbour tables: edge `e` joins cells `e` and `e + 1`; cell `c` has edges `c - 1`
/// (pointing into it) and `c` (pointing out).
pub fn ring_mesh(n: usize) -> Result<(Connectivity<EdgeToCell>, Connectivity<CellToEdge>), Error> {
    let e2c: Vec<i32> = (0..n)
        .flat_map(|e| [e as i32, ((e + 1) % n) as i32])
        .collect();
    let c2e: Vec<i32> = (0..n)
        .flat_map(|c| [((c + n - 1) % n) as i32, c as i32])
        .collect();
    Ok((
        Connectivity::from_vec(e2c, n, n)?,
        Connectivity::from_vec(c2e, n, n)?,
    ))
}
