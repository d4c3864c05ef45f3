// RBF vector interpolation from edges to vertices, written against ICON's `wpfloat` (ICON4Py
// declares every field of it `wpfloat`, so both precision modes compute it in f64). Included by
// `interpolation::double` and `interpolation::mixed`, each of which declares the aliases first.

use gt4rs::prelude::*;

use crate::icon::dims::{Edge, Vertex, K, V2E};

/// `(Σ_{V2E} ptr_coeff_1·p_e_in, Σ_{V2E} ptr_coeff_2·p_e_in)`; V2E has skip values at pentagons.
#[field_operator]
pub fn _mo_intp_rbf_rbf_vec_interpol_vertex(
    p_e_in: Field<(Edge, K), wpfloat>,
    ptr_coeff_1: Field<(Vertex, V2E), wpfloat>,
    ptr_coeff_2: Field<(Vertex, V2E), wpfloat>,
) -> (Field<(Vertex, K), wpfloat>, Field<(Vertex, K), wpfloat>) {
    let p_u_out = neighbor_sum(ptr_coeff_1 * p_e_in.at(V2E), V2E);
    let p_v_out = neighbor_sum(ptr_coeff_2 * p_e_in.at(V2E), V2E);
    (p_u_out, p_v_out)
}

#[program]
pub fn mo_intp_rbf_rbf_vec_interpol_vertex(
    p_e_in: &Field<(Edge, K), wpfloat>,
    ptr_coeff_1: &Field<(Vertex, V2E), wpfloat>,
    ptr_coeff_2: &Field<(Vertex, V2E), wpfloat>,
    p_u_out: &mut Field<(Vertex, K), wpfloat>,
    p_v_out: &mut Field<(Vertex, K), wpfloat>,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _mo_intp_rbf_rbf_vec_interpol_vertex(p_e_in, ptr_coeff_1, ptr_coeff_2).write_to(
        (p_u_out, p_v_out),
        domain![Vertex: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}
