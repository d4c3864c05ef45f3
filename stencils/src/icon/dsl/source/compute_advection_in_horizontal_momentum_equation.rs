// ICON4Py's advection of the normal wind in velocity advection
// (`atmosphere/dycore/stencils/compute_advection_in_horizontal_momentum_equation.py`, formerly
// `fused_velocity_advection_stencil_19_to_20`), with the field operators it calls
// (`mo_math_divrot_rot_vertex_ri_dsl.py`, `common/interpolation/stencils/interpolate_to_cell_center.py`),
// written against ICON's `vpfloat`/`wpfloat` with ICON4Py's `astype` casts, in ICON4Py's
// operation order and program structure. Included by
// `compute_advection_in_horizontal_momentum_equation::double` and `::mixed`, each of which
// declares the two aliases first.
//
// Where ICON4Py's own types disagree (they agree in `double` only), this follows the
// computation: `_compute_advective_normal_wind_tendency` adds its vpfloat horizontal advection
// to the wpfloat vertical advection and Coriolis term; here it is widened to wpfloat first, an
// exact cast.

use gt4rs::prelude::*;

use crate::icon::dims::{Cell, Edge, Vertex, C2E, E2C, E2C2EO, E2V, K, V2E};

/// The vertical component of the vorticity at vertices (ICON's `rot_vertex_ri`); V2E has skip
/// values at pentagons.
#[field_operator]
pub fn _mo_math_divrot_rot_vertex_ri_dsl(
    vec_e: Field<(Edge, K), wpfloat>,
    geofac_rot: Field<(Vertex, V2E), wpfloat>,
) -> Field<(Vertex, K), vpfloat> {
    let rot_vec_wp = neighbor_sum(vec_e.at(V2E) * geofac_rot, V2E);
    rot_vec_wp as vpfloat
}

/// Formerly `mo_velocity_advection_stencil_08` / `_09`: edge values averaged to cell centres.
#[field_operator]
pub fn _interpolate_to_cell_center(
    interpolant: Field<(Edge, K), vpfloat>,
    e_bln_c_s: Field<(Cell, C2E), wpfloat>,
) -> Field<(Cell, K), vpfloat> {
    let interpolant_wp = interpolant as wpfloat;
    let interpolation_wp = neighbor_sum(e_bln_c_s * interpolant_wp.at(C2E), C2E);
    interpolation_wp as vpfloat
}

/// The advective tendency of vn: the gradient of the kinetic energy, the vertical advection
/// and the Coriolis and vorticity term. It reads `vn_on_half_levels` one level down.
#[field_operator]
pub fn _compute_advective_normal_wind_tendency(
    horizontal_kinetic_energy_at_edges_on_model_levels: Field<(Edge, K), vpfloat>,
    upward_vorticity_at_vertices_on_model_levels: Field<(Vertex, K), vpfloat>,
    tangential_wind: Field<(Edge, K), vpfloat>,
    vn_on_half_levels: Field<(Edge, K), vpfloat>,
    contravariant_corrected_w_at_cells_on_model_levels: Field<(Cell, K), vpfloat>,
    coriolis_frequency: Field<Edge, wpfloat>,
    e_bln_c_s: Field<(Cell, C2E), wpfloat>,
    c_lin_e: Field<(Edge, E2C), wpfloat>,
    coeff_gradekin: Field<(Edge, E2C), vpfloat>,
    ddqz_z_full_e: Field<(Edge, K), vpfloat>,
) -> Field<(Edge, K), vpfloat> {
    let horizontal_kinetic_energy_at_cells_on_model_levels =
        _interpolate_to_cell_center(horizontal_kinetic_energy_at_edges_on_model_levels, e_bln_c_s);
    let horizontal_kinetic_energy_at_cells_on_model_levels =
        horizontal_kinetic_energy_at_cells_on_model_levels as vpfloat;

    let contravariant_corrected_w_at_cells_on_model_levels_wp =
        contravariant_corrected_w_at_cells_on_model_levels as wpfloat;
    let ddqz_z_full_e_wp = ddqz_z_full_e as wpfloat;
    let tangential_wind_wp = tangential_wind as wpfloat;

    let horizontal_advection = horizontal_kinetic_energy_at_edges_on_model_levels
        * (coeff_gradekin[E2C(0)] - coeff_gradekin[E2C(1)])
        + coeff_gradekin[E2C(1)] * horizontal_kinetic_energy_at_cells_on_model_levels.at(E2C[1])
        - coeff_gradekin[E2C(0)] * horizontal_kinetic_energy_at_cells_on_model_levels.at(E2C[0]);

    let vertical_advection = neighbor_sum(
        c_lin_e * contravariant_corrected_w_at_cells_on_model_levels_wp.at(E2C),
        E2C,
    ) * (vn_on_half_levels - vn_on_half_levels.at(K + 1)) as wpfloat
        / ddqz_z_full_e_wp;

    let coriolis_term = tangential_wind_wp
        * (coriolis_frequency
            + (0.5 * neighbor_sum(upward_vorticity_at_vertices_on_model_levels.at(E2V), E2V))
                as wpfloat);
    let normal_wind_advective_tendency_wp =
        -(horizontal_advection as wpfloat + vertical_advection + coriolis_term);

    normal_wind_advective_tendency_wp as vpfloat
}

/// The extra diffusion of vn where the vertical wind approaches the CFL limit: the gradients of
/// the divergence and of the vorticity, scaled by `difcoef` and the edge's area.
#[field_operator]
pub fn _compute_extra_diffusion(
    vn: Field<(Edge, K), wpfloat>,
    upward_vorticity_at_vertices_on_model_levels: Field<(Vertex, K), vpfloat>,
    difcoef: Field<(Edge, K), wpfloat>,
    area_edge: Field<Edge, wpfloat>,
    geofac_grdiv: Field<(Edge, E2C2EO), wpfloat>,
    tangent_orientation: Field<Edge, wpfloat>,
    inv_primal_edge_length: Field<Edge, wpfloat>,
) -> Field<(Edge, K), wpfloat> {
    let gradient_of_divergence_of_vn = neighbor_sum(geofac_grdiv * vn.at(E2C2EO), E2C2EO);

    let gradient_of_vorticity = tangent_orientation
        * inv_primal_edge_length
        * (upward_vorticity_at_vertices_on_model_levels.at(E2V[1])
            - upward_vorticity_at_vertices_on_model_levels.at(E2V[0])) as wpfloat;

    difcoef * area_edge * (gradient_of_divergence_of_vn + gradient_of_vorticity)
}

/// Formerly `mo_velocity_advection_stencil_20` without ICON's level mask: the extra diffusion
/// added where the contravariant vertical wind at the edge exceeds `cfl_w_limit·Δz`.
#[field_operator]
pub fn _add_extra_diffusion_for_normal_wind_tendency_approaching_cfl_without_levelmask(
    c_lin_e: Field<(Edge, E2C), wpfloat>,
    contravariant_corrected_w_at_cells_on_model_levels: Field<(Cell, K), vpfloat>,
    ddqz_z_full_e: Field<(Edge, K), vpfloat>,
    area_edge: Field<Edge, wpfloat>,
    tangent_orientation: Field<Edge, wpfloat>,
    inv_primal_edge_length: Field<Edge, wpfloat>,
    upward_vorticity_at_vertices_on_model_levels: Field<(Vertex, K), vpfloat>,
    geofac_grdiv: Field<(Edge, E2C2EO), wpfloat>,
    vn: Field<(Edge, K), wpfloat>,
    normal_wind_advective_tendency: Field<(Edge, K), vpfloat>,
    cfl_w_limit: vpfloat,
    scalfac_exdiff: wpfloat,
    dtime: wpfloat,
) -> Field<(Edge, K), vpfloat> {
    let contravariant_corrected_w_at_cells_on_model_levels_wp =
        contravariant_corrected_w_at_cells_on_model_levels as wpfloat;
    let ddqz_z_full_e_wp = ddqz_z_full_e as wpfloat;
    let normal_wind_advective_tendency_wp = normal_wind_advective_tendency as wpfloat;
    let cfl_w_limit_wp = cfl_w_limit as wpfloat;

    let contravariant_corrected_w_at_edges_on_model_levels = neighbor_sum(
        c_lin_e * contravariant_corrected_w_at_cells_on_model_levels_wp.at(E2C),
        E2C,
    );
    let difcoef = scalfac_exdiff
        * (0.85 - cfl_w_limit_wp * dtime).min(
            contravariant_corrected_w_at_edges_on_model_levels.abs() * dtime / ddqz_z_full_e_wp
                - cfl_w_limit_wp * dtime,
        );
    let normal_wind_advective_tendency_wp = select(
        contravariant_corrected_w_at_edges_on_model_levels.abs()
            > (cfl_w_limit * ddqz_z_full_e) as wpfloat,
        normal_wind_advective_tendency_wp
            + _compute_extra_diffusion(
                vn,
                upward_vorticity_at_vertices_on_model_levels,
                difcoef,
                area_edge,
                geofac_grdiv,
                tangent_orientation,
                inv_primal_edge_length,
            ),
        normal_wind_advective_tendency_wp,
    );
    normal_wind_advective_tendency_wp as vpfloat
}

/// The advective tendency of vn, with the extra diffusion near the CFL limit on the levels
/// from `max(2, end_index_of_damping_layer − 2)` to `nlev − 5` when
/// `apply_extra_diffusion_on_vn`.
#[field_operator]
pub fn _compute_advection_in_horizontal_momentum(
    vn: Field<(Edge, K), wpfloat>,
    horizontal_kinetic_energy_at_edges_on_model_levels: Field<(Edge, K), vpfloat>,
    tangential_wind: Field<(Edge, K), vpfloat>,
    coriolis_frequency: Field<Edge, wpfloat>,
    contravariant_corrected_w_at_cells_on_model_levels: Field<(Cell, K), vpfloat>,
    vn_on_half_levels: Field<(Edge, K), vpfloat>,
    e_bln_c_s: Field<(Cell, C2E), wpfloat>,
    geofac_rot: Field<(Vertex, V2E), wpfloat>,
    coeff_gradekin: Field<(Edge, E2C), vpfloat>,
    c_lin_e: Field<(Edge, E2C), wpfloat>,
    ddqz_z_full_e: Field<(Edge, K), vpfloat>,
    area_edge: Field<Edge, wpfloat>,
    tangent_orientation: Field<Edge, wpfloat>,
    inv_primal_edge_length: Field<Edge, wpfloat>,
    geofac_grdiv: Field<(Edge, E2C2EO), wpfloat>,
    cfl_w_limit: vpfloat,
    scalfac_exdiff: wpfloat,
    dtime: wpfloat,
    apply_extra_diffusion_on_vn: bool,
    nlev: i32,
    end_index_of_damping_layer: i32,
) -> Field<(Edge, K), vpfloat> {
    let upward_vorticity_at_vertices_on_model_levels =
        _mo_math_divrot_rot_vertex_ri_dsl(vn, geofac_rot);
    let upward_vorticity_at_vertices_on_model_levels =
        upward_vorticity_at_vertices_on_model_levels as vpfloat;

    let normal_wind_advective_tendency = _compute_advective_normal_wind_tendency(
        horizontal_kinetic_energy_at_edges_on_model_levels,
        upward_vorticity_at_vertices_on_model_levels,
        tangential_wind,
        vn_on_half_levels,
        contravariant_corrected_w_at_cells_on_model_levels,
        coriolis_frequency,
        e_bln_c_s,
        c_lin_e,
        coeff_gradekin,
        ddqz_z_full_e,
    );

    if apply_extra_diffusion_on_vn {
        concat_where(
            ((end_index_of_damping_layer - 2).max(2) <= K) & (K < nlev - 4),
            _add_extra_diffusion_for_normal_wind_tendency_approaching_cfl_without_levelmask(
                c_lin_e,
                contravariant_corrected_w_at_cells_on_model_levels,
                ddqz_z_full_e,
                area_edge,
                tangent_orientation,
                inv_primal_edge_length,
                upward_vorticity_at_vertices_on_model_levels,
                geofac_grdiv,
                vn,
                normal_wind_advective_tendency,
                cfl_w_limit,
                scalfac_exdiff,
                dtime,
            ),
            normal_wind_advective_tendency,
        )
    } else {
        normal_wind_advective_tendency
    }
}

/// Formerly `fused_velocity_advection_stencil_19_to_20`: the advective tendency of vn on the
/// full levels `[vertical_start, vertical_end)`; `vertical_end` is nlev (ICON4Py passes it as
/// `nlev`), and `vn_on_half_levels` has `nlev + 1` levels.
#[program]
pub fn compute_advection_in_horizontal_momentum(
    normal_wind_advective_tendency: &mut Field<(Edge, K), vpfloat>,
    vn: &Field<(Edge, K), wpfloat>,
    horizontal_kinetic_energy_at_edges_on_model_levels: &Field<(Edge, K), vpfloat>,
    tangential_wind: &Field<(Edge, K), vpfloat>,
    coriolis_frequency: &Field<Edge, wpfloat>,
    contravariant_corrected_w_at_cells_on_model_levels: &Field<(Cell, K), vpfloat>,
    vn_on_half_levels: &Field<(Edge, K), vpfloat>,
    e_bln_c_s: &Field<(Cell, C2E), wpfloat>,
    geofac_rot: &Field<(Vertex, V2E), wpfloat>,
    coeff_gradekin: &Field<(Edge, E2C), vpfloat>,
    c_lin_e: &Field<(Edge, E2C), wpfloat>,
    ddqz_z_full_e: &Field<(Edge, K), vpfloat>,
    area_edge: &Field<Edge, wpfloat>,
    tangent_orientation: &Field<Edge, wpfloat>,
    inv_primal_edge_length: &Field<Edge, wpfloat>,
    geofac_grdiv: &Field<(Edge, E2C2EO), wpfloat>,
    cfl_w_limit: vpfloat,
    scalfac_exdiff: wpfloat,
    dtime: wpfloat,
    #[static_arg] apply_extra_diffusion_on_vn: bool,
    end_index_of_damping_layer: i32,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _compute_advection_in_horizontal_momentum(
        vn,
        horizontal_kinetic_energy_at_edges_on_model_levels,
        tangential_wind,
        coriolis_frequency,
        contravariant_corrected_w_at_cells_on_model_levels,
        vn_on_half_levels,
        e_bln_c_s,
        geofac_rot,
        coeff_gradekin,
        c_lin_e,
        ddqz_z_full_e,
        area_edge,
        tangent_orientation,
        inv_primal_edge_length,
        geofac_grdiv,
        cfl_w_limit,
        scalfac_exdiff,
        dtime,
        apply_extra_diffusion_on_vn,
        vertical_end,
        end_index_of_damping_layer,
    )
    .write_to(
        normal_wind_advective_tendency,
        domain![Edge: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}
