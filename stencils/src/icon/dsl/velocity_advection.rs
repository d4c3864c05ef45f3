//! Velocity advection "1 to 7" and its parts (ICON4Py `atmosphere/dycore/stencils`:
//! `compute_tangential_wind.py`, `interpolate_vn_to_half_levels_and_compute_kinetic_energy_on_edges.py`,
//! `compute_horizontal_kinetic_energy.py`, `compute_diagnostics_from_normal_wind.py` and the
//! operators it calls).

use gt4rs::prelude::*;

use crate::icon::dims::{Cell, Edge, Vertex, E2C, E2C2E, E2V, K, V2C};

/// The programs written against ICON's `vpfloat`/`wpfloat` (`source/velocity_advection.rs`), with
/// `vpfloat = wpfloat = f64` (ICON4Py's `double` mode).
pub mod double {
    gt4rs::scalar_types! { pub vpfloat = f64; pub wpfloat = f64; }
    include!("source/velocity_advection.rs");
}

/// The same programs with `vpfloat = f32` (ICON4Py's `mixed` mode).
pub mod mixed {
    gt4rs::scalar_types! { pub vpfloat = f32; pub wpfloat = f64; }
    include!("source/velocity_advection.rs");
}

pub use double::*;

/// Formerly `mo_velocity_advection_stencil_02`; reads level k−1, so its domain starts at K = 1.
#[field_operator]
pub fn _interpolate_vn_to_half_levels_and_compute_kinetic_energy_on_edges(
    wgtfac_e: Field<(Edge, K), f64>,
    vn: Field<(Edge, K), f64>,
    vt: Field<(Edge, K), f64>,
) -> (Field<(Edge, K), f64>, Field<(Edge, K), f64>) {
    let vn_ie = wgtfac_e * vn + (1.0 - wgtfac_e) * vn.at(K - 1);
    let (_, _, z_kin_hor_e) = _compute_horizontal_kinetic_energy(vn, vt);
    (vn_ie, z_kin_hor_e)
}

#[program]
pub fn interpolate_vn_to_half_levels_and_compute_kinetic_energy_on_edges(
    wgtfac_e: &Field<(Edge, K), f64>,
    vn: &Field<(Edge, K), f64>,
    vt: &Field<(Edge, K), f64>,
    vn_ie: &mut Field<(Edge, K), f64>,
    z_kin_hor_e: &mut Field<(Edge, K), f64>,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _interpolate_vn_to_half_levels_and_compute_kinetic_energy_on_edges(wgtfac_e, vn, vt).write_to(
        (vn_ie, z_kin_hor_e),
        domain![Edge: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}

/// `wgtfac_e·x + (1 − wgtfac_e)·x[k−1]` above the surface, `x` itself at K = 0.
#[field_operator]
pub fn _interpolate_to_half_levels(
    wgtfac_e: Field<(Edge, K), f64>,
    x: Field<(Edge, K), f64>,
) -> Field<(Edge, K), f64> {
    let x_ie = wgtfac_e * x + (1.0 - wgtfac_e) * x.at(K - 1);
    concat_where(K > 0, x_ie, x)
}

/// The kinetic energy alone (the fused program has its own, without the copies).
#[field_operator]
pub fn _kinetic_energy(
    vn: Field<(Edge, K), f64>,
    vt: Field<(Edge, K), f64>,
) -> Field<(Edge, K), f64> {
    0.5 * (vn * vn + vt * vt)
}

/// Formerly `mo_velocity_advection_stencil_04` / `mo_solve_nonhydro_stencil_35`.
#[field_operator]
pub fn _compute_contravariant_correction(
    vn: Field<(Edge, K), f64>,
    ddxn_z_full: Field<(Edge, K), f64>,
    ddxt_z_full: Field<(Edge, K), f64>,
    vt: Field<(Edge, K), f64>,
) -> Field<(Edge, K), f64> {
    vn * ddxn_z_full + vt * ddxt_z_full
}

/// Cell to vertex interpolation; V2C has skip values at pentagons.
#[field_operator]
pub fn _mo_icon_interpolation_scalar_cells2verts_scalar_ri_dsl(
    p_cell_in: Field<(Cell, K), f64>,
    c_intp: Field<(Vertex, V2C), f64>,
) -> Field<(Vertex, K), f64> {
    neighbor_sum(p_cell_in.at(V2C) * c_intp, V2C)
}

/// Formerly `mo_velocity_advection_stencil_07`.
#[field_operator]
pub fn _compute_horizontal_advection_term_for_vertical_velocity(
    vn_ie: Field<(Edge, K), f64>,
    inv_dual_edge_length: Field<Edge, f64>,
    w: Field<(Cell, K), f64>,
    z_vt_ie: Field<(Edge, K), f64>,
    inv_primal_edge_length: Field<Edge, f64>,
    tangent_orientation: Field<Edge, f64>,
    z_w_v: Field<(Vertex, K), f64>,
) -> Field<(Edge, K), f64> {
    vn_ie * inv_dual_edge_length * (w.at(E2C[0]) - w.at(E2C[1]))
        + z_vt_ie
            * inv_primal_edge_length
            * tangent_orientation
            * (z_w_v.at(E2V[0]) - z_w_v.at(E2V[1]))
}

/// Formerly `mo_velocity_advection_stencil_06` / `mo_solve_nonhydro_stencil_38`: vn at the
/// surface half level, extrapolated from the three levels above.
#[field_operator]
pub fn _extrapolate_at_top(
    wgtfacq_e: Field<(Edge, K), f64>,
    vn: Field<(Edge, K), f64>,
) -> Field<(Edge, K), f64> {
    wgtfacq_e.at(K - 1) * vn.at(K - 1)
        + wgtfacq_e.at(K - 2) * vn.at(K - 2)
        + wgtfacq_e.at(K - 3) * vn.at(K - 3)
}

#[field_operator]
pub fn _compute_diagnostics_from_normal_wind(
    tangential_wind_on_half_levels: Field<(Edge, K), f64>,
    contravariant_correction_at_edges_on_model_levels: Field<(Edge, K), f64>,
    horizontal_advection_of_w_at_edges_on_half_levels: Field<(Edge, K), f64>,
    vn: Field<(Edge, K), f64>,
    w: Field<(Cell, K), f64>,
    rbf_vec_coeff_e: Field<(Edge, E2C2E), f64>,
    wgtfac_e: Field<(Edge, K), f64>,
    ddxn_z_full: Field<(Edge, K), f64>,
    ddxt_z_full: Field<(Edge, K), f64>,
    c_intp: Field<(Vertex, V2C), f64>,
    inv_dual_edge_length: Field<Edge, f64>,
    inv_primal_edge_length: Field<Edge, f64>,
    tangent_orientation: Field<Edge, f64>,
    skip_compute_predictor_vertical_advection: bool,
    nflatlev: i32,
) -> (
    Field<(Edge, K), f64>,
    Field<(Edge, K), f64>,
    Field<(Edge, K), f64>,
    Field<(Edge, K), f64>,
    Field<(Edge, K), f64>,
    Field<(Edge, K), f64>,
) {
    let tangential_wind = _compute_tangential_wind(vn, rbf_vec_coeff_e);
    let horizontal_kinetic_energy_at_edges_on_model_levels = _kinetic_energy(vn, tangential_wind);
    let vn_on_half_levels = _interpolate_to_half_levels(wgtfac_e, vn);
    let tangential_wind_on_half_levels = if !skip_compute_predictor_vertical_advection {
        _interpolate_to_half_levels(wgtfac_e, tangential_wind)
    } else {
        tangential_wind_on_half_levels
    };
    let contravariant_correction_at_edges_on_model_levels = concat_where(
        K >= nflatlev,
        _compute_contravariant_correction(vn, ddxn_z_full, ddxt_z_full, tangential_wind),
        contravariant_correction_at_edges_on_model_levels,
    );
    let w_at_vertices = _mo_icon_interpolation_scalar_cells2verts_scalar_ri_dsl(w, c_intp);
    let horizontal_advection_of_w_at_edges_on_half_levels =
        if !skip_compute_predictor_vertical_advection {
            _compute_horizontal_advection_term_for_vertical_velocity(
                vn_on_half_levels,
                inv_dual_edge_length,
                w,
                tangential_wind_on_half_levels,
                inv_primal_edge_length,
                tangent_orientation,
                w_at_vertices,
            )
        } else {
            horizontal_advection_of_w_at_edges_on_half_levels
        };
    (
        tangential_wind,
        tangential_wind_on_half_levels,
        vn_on_half_levels,
        horizontal_kinetic_energy_at_edges_on_model_levels,
        contravariant_correction_at_edges_on_model_levels,
        horizontal_advection_of_w_at_edges_on_half_levels,
    )
}

/// Formerly `fused_velocity_advection_stencil_1_to_7_predictor`. The first call covers K
/// `[vertical_start, vertical_end − 1)`; the second extrapolates `vn_on_half_levels` at the
/// surface half level `vertical_end − 1`.
#[program]
pub fn compute_diagnostics_from_normal_wind(
    tangential_wind: &mut Field<(Edge, K), f64>,
    tangential_wind_on_half_levels: &mut Field<(Edge, K), f64>,
    vn_on_half_levels: &mut Field<(Edge, K), f64>,
    horizontal_kinetic_energy_at_edges_on_model_levels: &mut Field<(Edge, K), f64>,
    contravariant_correction_at_edges_on_model_levels: &mut Field<(Edge, K), f64>,
    horizontal_advection_of_w_at_edges_on_half_levels: &mut Field<(Edge, K), f64>,
    vn: &Field<(Edge, K), f64>,
    w: &Field<(Cell, K), f64>,
    rbf_vec_coeff_e: &Field<(Edge, E2C2E), f64>,
    wgtfac_e: &Field<(Edge, K), f64>,
    ddxn_z_full: &Field<(Edge, K), f64>,
    ddxt_z_full: &Field<(Edge, K), f64>,
    wgtfacq_e: &Field<(Edge, K), f64>,
    c_intp: &Field<(Vertex, V2C), f64>,
    inv_dual_edge_length: &Field<Edge, f64>,
    inv_primal_edge_length: &Field<Edge, f64>,
    tangent_orientation: &Field<Edge, f64>,
    #[static_arg] skip_compute_predictor_vertical_advection: bool,
    nflatlev: i32,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _compute_diagnostics_from_normal_wind(
        tangential_wind_on_half_levels,
        contravariant_correction_at_edges_on_model_levels,
        horizontal_advection_of_w_at_edges_on_half_levels,
        vn,
        w,
        rbf_vec_coeff_e,
        wgtfac_e,
        ddxn_z_full,
        ddxt_z_full,
        c_intp,
        inv_dual_edge_length,
        inv_primal_edge_length,
        tangent_orientation,
        skip_compute_predictor_vertical_advection,
        nflatlev,
    )
    .write_to(
        (
            tangential_wind,
            tangential_wind_on_half_levels,
            vn_on_half_levels,
            horizontal_kinetic_energy_at_edges_on_model_levels,
            contravariant_correction_at_edges_on_model_levels,
            horizontal_advection_of_w_at_edges_on_half_levels,
        ),
        domain![Edge: horizontal_start..horizontal_end, K: vertical_start..vertical_end - 1],
    );
    _extrapolate_at_top(wgtfacq_e, vn).write_to(
        vn_on_half_levels,
        domain![Edge: horizontal_start..horizontal_end, K: vertical_end - 1..vertical_end],
    );
}
