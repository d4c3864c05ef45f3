// ∇⁴ of vn (diffusion steps 4 and 9), written against ICON's `vpfloat`/`wpfloat` with
// ICON4Py's `astype` casts. Included by `diffusion::double` and `diffusion::mixed`, each of which
// declares the two aliases first.

use gt4rs::prelude::*;

use crate::icon::dims::{Edge, Vertex, E2C2V, K};

#[field_operator]
pub fn _calculate_nabla4(
    u_vert: Field<(Vertex, K), vpfloat>,
    v_vert: Field<(Vertex, K), vpfloat>,
    primal_normal_vert_v1: Field<(Edge, E2C2V), wpfloat>,
    primal_normal_vert_v2: Field<(Edge, E2C2V), wpfloat>,
    z_nabla2_e: Field<(Edge, K), wpfloat>,
    inv_vert_vert_length: Field<Edge, wpfloat>,
    inv_primal_edge_length: Field<Edge, wpfloat>,
) -> Field<(Edge, K), vpfloat> {
    let u_vert = u_vert as wpfloat;
    let v_vert = v_vert as wpfloat;
    let nabv_tang = (u_vert.at(E2C2V[0]) * primal_normal_vert_v1[E2C2V(0)]
        + v_vert.at(E2C2V[0]) * primal_normal_vert_v2[E2C2V(0)]
        + u_vert.at(E2C2V[1]) * primal_normal_vert_v1[E2C2V(1)]
        + v_vert.at(E2C2V[1]) * primal_normal_vert_v2[E2C2V(1)]) as vpfloat;
    let nabv_norm = (u_vert.at(E2C2V[2]) * primal_normal_vert_v1[E2C2V(2)]
        + v_vert.at(E2C2V[2]) * primal_normal_vert_v2[E2C2V(2)]
        + u_vert.at(E2C2V[3]) * primal_normal_vert_v1[E2C2V(3)]
        + v_vert.at(E2C2V[3]) * primal_normal_vert_v2[E2C2V(3)]) as vpfloat;
    let z_nabla4_e2 = 4.0
        * ((nabv_norm as wpfloat - 2.0 * z_nabla2_e)
            * (inv_vert_vert_length * inv_vert_vert_length)
            + (nabv_tang as wpfloat - 2.0 * z_nabla2_e)
                * (inv_primal_edge_length * inv_primal_edge_length));
    z_nabla4_e2 as vpfloat
}

#[program]
pub fn calculate_nabla4(
    u_vert: &Field<(Vertex, K), vpfloat>,
    v_vert: &Field<(Vertex, K), vpfloat>,
    primal_normal_vert_v1: &Field<(Edge, E2C2V), wpfloat>,
    primal_normal_vert_v2: &Field<(Edge, E2C2V), wpfloat>,
    z_nabla2_e: &Field<(Edge, K), wpfloat>,
    inv_vert_vert_length: &Field<Edge, wpfloat>,
    inv_primal_edge_length: &Field<Edge, wpfloat>,
    z_nabla4_e2: &mut Field<(Edge, K), vpfloat>,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _calculate_nabla4(
        u_vert,
        v_vert,
        primal_normal_vert_v1,
        primal_normal_vert_v2,
        z_nabla2_e,
        inv_vert_vert_length,
        inv_primal_edge_length,
    )
    .write_to(
        z_nabla4_e2,
        domain![Edge: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}

