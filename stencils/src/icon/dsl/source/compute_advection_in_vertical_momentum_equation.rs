// ICON4Py's advection of the vertical wind in velocity advection
// (`atmosphere/dycore/stencils/compute_advection_in_vertical_momentum_equation.py`): the
// predictor and corrector steps' programs, with the field operators they call
// (`add_interpolated_horizontal_advection_of_w.py`, formerly `mo_velocity_advection_stencil_17`,
// and `add_extra_diffusion_for_w_con_approaching_cfl.py`, formerly `_18`), written against
// ICON's `vpfloat`/`wpfloat` with ICON4Py's `astype` casts, in ICON4Py's operation order and
// program structure. Included by `compute_advection_in_vertical_momentum_equation::double` and
// `::mixed`, each of which declares the two aliases and brings in the modules of its precision
// whose operators it calls: `velocity_advection`, `horizontal_momentum`
// (`compute_advection_in_horizontal_momentum_equation`) and `cell_diagnostics`
// (`compute_cell_diagnostics_for_dycore`).
//
// Where ICON4Py's own types disagree (they agree in `double` only), this follows the
// computation: `tangential_wind_on_half_levels` and `horizontal_advection_of_w_at_edges_on_half_levels`
// are vpfloat (ICON4Py's programs declare them wpfloat; `compute_diagnostics_from_normal_wind`
// writes them, and the operators that read them take them, as vpfloat), and so is the
// contravariant corrected w on half levels that `_compute_advective_vertical_wind_tendency`
// takes (declared wpfloat; it is the vpfloat result of `_compute_contravariant_corrected_w_and_cfl`
// and the operators it is passed to take vpfloat).

use gt4rs::prelude::*;

use crate::icon::dims::{Cell, Edge, Vertex, C2E, C2E2CO, K, V2C};

/// The contravariant corrected w averaged from half levels to full levels; the lowest full
/// level `nlev − 1` gets half its upper half level's value (the surface's is zero).
#[field_operator]
pub fn _interpolate_contravariant_vertical_velocity_to_full_levels(
    contravariant_corrected_w_at_cells_on_half_levels: Field<(Cell, K), vpfloat>,
    nlev: i32,
) -> Field<(Cell, K), vpfloat> {
    concat_where(
        K < nlev - 1,
        0.5 * (contravariant_corrected_w_at_cells_on_half_levels
            + contravariant_corrected_w_at_cells_on_half_levels.at(K + 1)),
        0.5 * contravariant_corrected_w_at_cells_on_half_levels,
    )
}

/// `vn·∂w/∂n + vt·∂w/∂t` on the edges' half levels, from w interpolated to vertices.
#[field_operator]
pub fn _compute_horizontal_advection_of_w(
    w: Field<(Cell, K), wpfloat>,
    tangential_wind_on_half_levels: Field<(Edge, K), vpfloat>,
    vn_on_half_levels: Field<(Edge, K), vpfloat>,
    c_intp: Field<(Vertex, V2C), wpfloat>,
    inv_dual_edge_length: Field<Edge, wpfloat>,
    inv_primal_edge_length: Field<Edge, wpfloat>,
    tangent_orientation: Field<Edge, wpfloat>,
) -> Field<(Edge, K), vpfloat> {
    let w_at_vertices =
        velocity_advection::_mo_icon_interpolation_scalar_cells2verts_scalar_ri_dsl(w, c_intp);

    let horizontal_advection_of_w_at_edges_on_half_levels =
        velocity_advection::_compute_horizontal_advection_term_for_vertical_velocity(
            vn_on_half_levels,
            inv_dual_edge_length,
            w,
            tangential_wind_on_half_levels,
            inv_primal_edge_length,
            tangent_orientation,
            w_at_vertices,
        );

    horizontal_advection_of_w_at_edges_on_half_levels as vpfloat
}

/// Formerly `mo_velocity_advection_stencil_16`: `−w_con·∂w/∂z`; reads w one level up and down.
#[field_operator]
pub fn _add_vertical_advection_of_w_to_advective_vertical_wind_tendency(
    contravariant_corrected_w_at_cells_on_half_levels: Field<(Cell, K), vpfloat>,
    w: Field<(Cell, K), wpfloat>,
    coeff1_dwdz: Field<(Cell, K), vpfloat>,
    coeff2_dwdz: Field<(Cell, K), vpfloat>,
) -> Field<(Cell, K), vpfloat> {
    let contravariant_corrected_w_at_cells_on_half_levels_wp =
        contravariant_corrected_w_at_cells_on_half_levels as wpfloat;
    let coeff1_dwdz_wp = coeff1_dwdz as wpfloat;
    let coeff2_dwdz_wp = coeff2_dwdz as wpfloat;

    let vertical_wind_advective_tendency_wp = -contravariant_corrected_w_at_cells_on_half_levels_wp
        * (w.at(K - 1) * coeff1_dwdz_wp - w.at(K + 1) * coeff2_dwdz_wp
            + w * (coeff2_dwdz - coeff1_dwdz) as wpfloat);
    vertical_wind_advective_tendency_wp as vpfloat
}

/// Where the contravariant w exceeds `cfl_w_limit·Δz`: the clipping mask, the vertical CFL
/// number there (0 elsewhere), and w clipped to a CFL number of ±0.85.
#[field_operator]
pub fn _compute_maximum_cfl_and_clip_contravariant_vertical_velocity(
    ddqz_z_half: Field<(Cell, K), vpfloat>,
    contravariant_corrected_w_at_cells_on_half_levels: Field<(Cell, K), vpfloat>,
    cfl_w_limit: vpfloat,
    dtime: wpfloat,
) -> (
    Field<(Cell, K), vpfloat>,
    Field<(Cell, K), bool>,
    Field<(Cell, K), vpfloat>,
) {
    let contravariant_corrected_w_at_cells_on_half_levels_wp =
        contravariant_corrected_w_at_cells_on_half_levels as wpfloat;
    let ddqz_z_half_wp = ddqz_z_half as wpfloat;

    let cfl_clipping = select(
        contravariant_corrected_w_at_cells_on_half_levels.abs() > cfl_w_limit * ddqz_z_half,
        broadcast(true, (Cell, K)),
        false,
    );

    let vertical_cfl = select(
        cfl_clipping,
        contravariant_corrected_w_at_cells_on_half_levels_wp * dtime / ddqz_z_half_wp,
        broadcast(0.0 as wpfloat, (Cell, K)),
    );
    let vertical_cfl_vp = vertical_cfl as vpfloat;

    let contravariant_corrected_w_at_cells_on_half_levels_wp = select(
        cfl_clipping & (vertical_cfl_vp < -0.85),
        (-0.85 * ddqz_z_half) as wpfloat / dtime,
        contravariant_corrected_w_at_cells_on_half_levels_wp,
    );

    let contravariant_corrected_w_at_cells_on_half_levels_wp = select(
        cfl_clipping & (vertical_cfl_vp > 0.85),
        (0.85 * ddqz_z_half) as wpfloat / dtime,
        contravariant_corrected_w_at_cells_on_half_levels_wp,
    );

    (
        contravariant_corrected_w_at_cells_on_half_levels_wp as vpfloat,
        cfl_clipping,
        vertical_cfl_vp,
    )
}

/// Formerly `mo_velocity_advection_stencil_11`/`_13`: w minus its contravariant correction.
#[field_operator]
pub fn _compute_contravariant_corrected_w(
    w: Field<(Cell, K), wpfloat>,
    contravariant_correction_at_cells_on_half_levels: Field<(Cell, K), vpfloat>,
) -> Field<(Cell, K), vpfloat> {
    w as vpfloat - contravariant_correction_at_cells_on_half_levels
}

/// The contravariant corrected w on half levels, clipped (with its CFL number and clipping
/// mask) on the levels from `max(2, end_index_of_damping_layer − 2)` to `nlev − 4`.
#[field_operator]
pub fn _compute_contravariant_corrected_w_and_cfl(
    w: Field<(Cell, K), wpfloat>,
    contravariant_correction_at_cells_on_half_levels: Field<(Cell, K), vpfloat>,
    ddqz_z_half: Field<(Cell, K), vpfloat>,
    cfl_w_limit: vpfloat,
    dtime: wpfloat,
    nlev: i32,
    end_index_of_damping_layer: i32,
) -> (
    Field<(Cell, K), vpfloat>,
    Field<(Cell, K), bool>,
    Field<(Cell, K), vpfloat>,
) {
    let contravariant_corrected_w_at_cells_on_half_levels =
        _compute_contravariant_corrected_w(w, contravariant_correction_at_cells_on_half_levels);

    let (contravariant_corrected_w_at_cells_on_half_levels, cfl_clipping, vertical_cfl) =
        concat_where(
            (K >= (end_index_of_damping_layer - 2).max(2)) & (K < nlev - 3),
            _compute_maximum_cfl_and_clip_contravariant_vertical_velocity(
                ddqz_z_half,
                contravariant_corrected_w_at_cells_on_half_levels,
                cfl_w_limit,
                dtime,
            ),
            (
                contravariant_corrected_w_at_cells_on_half_levels,
                broadcast(false, (Cell, K)),
                broadcast(0.0 as vpfloat, (Cell, K)),
            ),
        );

    (
        contravariant_corrected_w_at_cells_on_half_levels,
        cfl_clipping,
        vertical_cfl,
    )
}

/// Formerly `mo_velocity_advection_stencil_17`: the horizontal advection of w interpolated
/// from edges to cells, added to the tendency.
#[field_operator]
pub fn _add_interpolated_horizontal_advection_of_w(
    e_bln_c_s: Field<(Cell, C2E), wpfloat>,
    z_v_grad_w: Field<(Edge, K), vpfloat>,
    ddt_w_adv: Field<(Cell, K), vpfloat>,
) -> Field<(Cell, K), vpfloat> {
    let z_v_grad_w_wp = z_v_grad_w as wpfloat;
    let ddt_w_adv_wp = ddt_w_adv as wpfloat;
    let ddt_w_adv_wp = ddt_w_adv_wp + neighbor_sum(z_v_grad_w_wp.at(C2E) * e_bln_c_s, C2E);
    ddt_w_adv_wp as vpfloat
}

/// Formerly `mo_velocity_advection_stencil_18`: the extra diffusion of w where the CFL number
/// is clipped, on the cells this rank owns.
#[field_operator]
pub fn _add_extra_diffusion_for_w_con_approaching_cfl(
    cfl_clipping: Field<(Cell, K), bool>,
    owner_mask: Field<Cell, bool>,
    z_w_con_c: Field<(Cell, K), vpfloat>,
    ddqz_z_half: Field<(Cell, K), vpfloat>,
    area: Field<Cell, wpfloat>,
    geofac_n2s: Field<(Cell, C2E2CO), wpfloat>,
    w: Field<(Cell, K), wpfloat>,
    ddt_w_adv: Field<(Cell, K), vpfloat>,
    scalfac_exdiff: wpfloat,
    cfl_w_limit: vpfloat,
    dtime: wpfloat,
) -> Field<(Cell, K), vpfloat> {
    let z_w_con_c_wp = z_w_con_c as wpfloat;
    let ddqz_z_half_wp = ddqz_z_half as wpfloat;
    let ddt_w_adv_wp = ddt_w_adv as wpfloat;
    let cfl_w_limit_wp = cfl_w_limit as wpfloat;

    let difcoef = select(
        cfl_clipping & owner_mask,
        scalfac_exdiff
            * (0.85 - cfl_w_limit_wp * dtime)
                .min(z_w_con_c_wp.abs() * dtime / ddqz_z_half_wp - cfl_w_limit_wp * dtime),
        0.0,
    );

    let ddt_w_adv_wp = select(
        cfl_clipping & owner_mask,
        ddt_w_adv_wp + difcoef * area * neighbor_sum(w.at(C2E2CO) * geofac_n2s, C2E2CO),
        ddt_w_adv_wp,
    );

    ddt_w_adv_wp as vpfloat
}

/// The advective tendency of w below the model top: vertical advection, the horizontal
/// advection interpolated to cells, and the extra diffusion near the CFL limit.
#[field_operator]
pub fn _compute_advective_vertical_wind_tendency(
    vertical_wind_advective_tendency: Field<(Cell, K), vpfloat>,
    w: Field<(Cell, K), wpfloat>,
    horizontal_advection_of_w_at_edges_on_half_levels: Field<(Edge, K), vpfloat>,
    contravariant_corrected_w_at_cells_on_half_levels: Field<(Cell, K), vpfloat>,
    cfl_clipping: Field<(Cell, K), bool>,
    coeff1_dwdz: Field<(Cell, K), vpfloat>,
    coeff2_dwdz: Field<(Cell, K), vpfloat>,
    e_bln_c_s: Field<(Cell, C2E), wpfloat>,
    ddqz_z_half: Field<(Cell, K), vpfloat>,
    area: Field<Cell, wpfloat>,
    geofac_n2s: Field<(Cell, C2E2CO), wpfloat>,
    owner_mask: Field<Cell, bool>,
    scalfac_exdiff: wpfloat,
    cfl_w_limit: vpfloat,
    dtime: wpfloat,
) -> Field<(Cell, K), vpfloat> {
    let vertical_wind_advective_tendency = concat_where(
        1 <= K,
        _add_vertical_advection_of_w_to_advective_vertical_wind_tendency(
            contravariant_corrected_w_at_cells_on_half_levels,
            w,
            coeff1_dwdz,
            coeff2_dwdz,
        ),
        vertical_wind_advective_tendency,
    );

    let vertical_wind_advective_tendency = concat_where(
        1 <= K,
        _add_interpolated_horizontal_advection_of_w(
            e_bln_c_s,
            horizontal_advection_of_w_at_edges_on_half_levels,
            vertical_wind_advective_tendency,
        ),
        vertical_wind_advective_tendency,
    );

    _add_extra_diffusion_for_w_con_approaching_cfl(
        cfl_clipping,
        owner_mask,
        contravariant_corrected_w_at_cells_on_half_levels,
        ddqz_z_half,
        area,
        geofac_n2s,
        w,
        vertical_wind_advective_tendency,
        scalfac_exdiff,
        cfl_w_limit,
        dtime,
    )
}

#[field_operator]
pub fn _compute_advection_in_corrector_vertical_momentum(
    vertical_wind_advective_tendency: Field<(Cell, K), vpfloat>,
    w: Field<(Cell, K), wpfloat>,
    tangential_wind_on_half_levels: Field<(Edge, K), vpfloat>,
    vn_on_half_levels: Field<(Edge, K), vpfloat>,
    contravariant_correction_at_cells_on_half_levels: Field<(Cell, K), vpfloat>,
    coeff1_dwdz: Field<(Cell, K), vpfloat>,
    coeff2_dwdz: Field<(Cell, K), vpfloat>,
    c_intp: Field<(Vertex, V2C), wpfloat>,
    inv_dual_edge_length: Field<Edge, wpfloat>,
    inv_primal_edge_length: Field<Edge, wpfloat>,
    tangent_orientation: Field<Edge, wpfloat>,
    e_bln_c_s: Field<(Cell, C2E), wpfloat>,
    ddqz_z_half: Field<(Cell, K), vpfloat>,
    area: Field<Cell, wpfloat>,
    geofac_n2s: Field<(Cell, C2E2CO), wpfloat>,
    owner_mask: Field<Cell, bool>,
    scalfac_exdiff: wpfloat,
    cfl_w_limit: vpfloat,
    dtime: wpfloat,
    nlev: i32,
    end_index_of_damping_layer: i32,
) -> (
    Field<(Cell, K), vpfloat>,
    Field<(Cell, K), vpfloat>,
    Field<(Cell, K), vpfloat>,
) {
    let horizontal_advection_of_w_at_edges_on_half_levels = _compute_horizontal_advection_of_w(
        w,
        tangential_wind_on_half_levels,
        vn_on_half_levels,
        c_intp,
        inv_dual_edge_length,
        inv_primal_edge_length,
        tangent_orientation,
    );

    let (contravariant_corrected_w_at_cells_on_half_levels, cfl_clipping, vertical_cfl) =
        _compute_contravariant_corrected_w_and_cfl(
            w,
            contravariant_correction_at_cells_on_half_levels,
            ddqz_z_half,
            cfl_w_limit,
            dtime,
            nlev,
            end_index_of_damping_layer,
        );

    let vertical_wind_advective_tendency = _compute_advective_vertical_wind_tendency(
        vertical_wind_advective_tendency,
        w,
        horizontal_advection_of_w_at_edges_on_half_levels,
        contravariant_corrected_w_at_cells_on_half_levels,
        cfl_clipping,
        coeff1_dwdz,
        coeff2_dwdz,
        e_bln_c_s,
        ddqz_z_half,
        area,
        geofac_n2s,
        owner_mask,
        scalfac_exdiff,
        cfl_w_limit,
        dtime,
    );

    let contravariant_corrected_w_at_cells_on_model_levels =
        _interpolate_contravariant_vertical_velocity_to_full_levels(
            contravariant_corrected_w_at_cells_on_half_levels,
            nlev,
        );

    (
        vertical_wind_advective_tendency,
        contravariant_corrected_w_at_cells_on_model_levels,
        vertical_cfl,
    )
}

/// The corrector step's advection of w on the full levels `[vertical_start, vertical_end)`;
/// `vertical_end` is nlev (ICON4Py passes it as `nlev`). ICON4Py declares
/// `tangential_wind_on_half_levels` wpfloat; it is vpfloat here (see the file's header).
#[program]
pub fn compute_advection_in_corrector_vertical_momentum(
    vertical_wind_advective_tendency: &mut Field<(Cell, K), vpfloat>,
    contravariant_corrected_w_at_cells_on_model_levels: &mut Field<(Cell, K), vpfloat>,
    vertical_cfl: &mut Field<(Cell, K), vpfloat>,
    w: &Field<(Cell, K), wpfloat>,
    tangential_wind_on_half_levels: &Field<(Edge, K), vpfloat>,
    vn_on_half_levels: &Field<(Edge, K), vpfloat>,
    contravariant_correction_at_cells_on_half_levels: &Field<(Cell, K), vpfloat>,
    coeff1_dwdz: &Field<(Cell, K), vpfloat>,
    coeff2_dwdz: &Field<(Cell, K), vpfloat>,
    c_intp: &Field<(Vertex, V2C), wpfloat>,
    inv_dual_edge_length: &Field<Edge, wpfloat>,
    inv_primal_edge_length: &Field<Edge, wpfloat>,
    tangent_orientation: &Field<Edge, wpfloat>,
    e_bln_c_s: &Field<(Cell, C2E), wpfloat>,
    ddqz_z_half: &Field<(Cell, K), vpfloat>,
    area: &Field<Cell, wpfloat>,
    geofac_n2s: &Field<(Cell, C2E2CO), wpfloat>,
    owner_mask: &Field<Cell, bool>,
    scalfac_exdiff: wpfloat,
    cfl_w_limit: vpfloat,
    dtime: wpfloat,
    end_index_of_damping_layer: i32,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _compute_advection_in_corrector_vertical_momentum(
        vertical_wind_advective_tendency,
        w,
        tangential_wind_on_half_levels,
        vn_on_half_levels,
        contravariant_correction_at_cells_on_half_levels,
        coeff1_dwdz,
        coeff2_dwdz,
        c_intp,
        inv_dual_edge_length,
        inv_primal_edge_length,
        tangent_orientation,
        e_bln_c_s,
        ddqz_z_half,
        area,
        geofac_n2s,
        owner_mask,
        scalfac_exdiff,
        cfl_w_limit,
        dtime,
        vertical_end,
        end_index_of_damping_layer,
    )
    .write_to(
        (
            vertical_wind_advective_tendency,
            contravariant_corrected_w_at_cells_on_model_levels,
            vertical_cfl,
        ),
        domain![Cell: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}

/// The contravariant correction averaged from edges to cells and interpolated to the half
/// levels below the flat level `nflatlev`; zero above.
#[field_operator]
pub fn _interpolate_contravariant_correction_to_cells_on_half_levels(
    contravariant_correction_at_edges_on_model_levels: Field<(Edge, K), vpfloat>,
    e_bln_c_s: Field<(Cell, C2E), wpfloat>,
    wgtfac_c: Field<(Cell, K), vpfloat>,
    nflatlev: i32,
) -> Field<(Cell, K), vpfloat> {
    let contravariant_correction_at_cells_model_levels =
        horizontal_momentum::_interpolate_to_cell_center(
            contravariant_correction_at_edges_on_model_levels,
            e_bln_c_s,
        );
    let contravariant_correction_at_cells_model_levels =
        contravariant_correction_at_cells_model_levels as vpfloat;

    concat_where(
        K >= nflatlev + 1,
        cell_diagnostics::_interpolate_cell_field_to_half_levels_vp(
            wgtfac_c,
            contravariant_correction_at_cells_model_levels,
        ),
        broadcast(0.0 as vpfloat, (Cell, K)),
    )
}

#[field_operator]
pub fn _compute_advection_in_predictor_vertical_momentum(
    vertical_wind_advective_tendency: Field<(Cell, K), vpfloat>,
    w: Field<(Cell, K), wpfloat>,
    horizontal_advection_of_w_at_edges_on_half_levels: Field<(Edge, K), vpfloat>,
    contravariant_correction_at_edges_on_model_levels: Field<(Edge, K), vpfloat>,
    coeff1_dwdz: Field<(Cell, K), vpfloat>,
    coeff2_dwdz: Field<(Cell, K), vpfloat>,
    e_bln_c_s: Field<(Cell, C2E), wpfloat>,
    wgtfac_c: Field<(Cell, K), vpfloat>,
    ddqz_z_half: Field<(Cell, K), vpfloat>,
    area: Field<Cell, wpfloat>,
    geofac_n2s: Field<(Cell, C2E2CO), wpfloat>,
    owner_mask: Field<Cell, bool>,
    scalfac_exdiff: wpfloat,
    cfl_w_limit: vpfloat,
    dtime: wpfloat,
    skip_compute_predictor_vertical_advection: bool,
    nflatlev: i32,
    nlev: i32,
    end_index_of_damping_layer: i32,
) -> (
    Field<(Cell, K), vpfloat>,
    Field<(Cell, K), vpfloat>,
    Field<(Cell, K), vpfloat>,
    Field<(Cell, K), vpfloat>,
) {
    let contravariant_correction_at_cells_on_half_levels =
        _interpolate_contravariant_correction_to_cells_on_half_levels(
            contravariant_correction_at_edges_on_model_levels,
            e_bln_c_s,
            wgtfac_c,
            nflatlev,
        );

    let (contravariant_corrected_w_at_cells_on_half_levels, cfl_clipping, vertical_cfl) =
        _compute_contravariant_corrected_w_and_cfl(
            w,
            contravariant_correction_at_cells_on_half_levels,
            ddqz_z_half,
            cfl_w_limit,
            dtime,
            nlev,
            end_index_of_damping_layer,
        );

    let vertical_wind_advective_tendency = if !skip_compute_predictor_vertical_advection {
        _compute_advective_vertical_wind_tendency(
            vertical_wind_advective_tendency,
            w,
            horizontal_advection_of_w_at_edges_on_half_levels,
            contravariant_corrected_w_at_cells_on_half_levels,
            cfl_clipping,
            coeff1_dwdz,
            coeff2_dwdz,
            e_bln_c_s,
            ddqz_z_half,
            area,
            geofac_n2s,
            owner_mask,
            scalfac_exdiff,
            cfl_w_limit,
            dtime,
        )
    } else {
        vertical_wind_advective_tendency
    };

    let contravariant_corrected_w_at_cells_on_model_levels =
        _interpolate_contravariant_vertical_velocity_to_full_levels(
            contravariant_corrected_w_at_cells_on_half_levels,
            nlev,
        );

    (
        contravariant_correction_at_cells_on_half_levels,
        vertical_wind_advective_tendency,
        contravariant_corrected_w_at_cells_on_model_levels,
        vertical_cfl,
    )
}

/// The predictor step's advection of w on the full levels `[vertical_start, vertical_end)`;
/// `vertical_end` is nlev (ICON4Py passes it as `nlev`). ICON4Py declares
/// `horizontal_advection_of_w_at_edges_on_half_levels` wpfloat; it is vpfloat here (see the
/// file's header).
#[program]
pub fn compute_advection_in_predictor_vertical_momentum(
    contravariant_correction_at_cells_on_half_levels: &mut Field<(Cell, K), vpfloat>,
    vertical_wind_advective_tendency: &mut Field<(Cell, K), vpfloat>,
    contravariant_corrected_w_at_cells_on_model_levels: &mut Field<(Cell, K), vpfloat>,
    vertical_cfl: &mut Field<(Cell, K), vpfloat>,
    w: &Field<(Cell, K), wpfloat>,
    horizontal_advection_of_w_at_edges_on_half_levels: &Field<(Edge, K), vpfloat>,
    contravariant_correction_at_edges_on_model_levels: &Field<(Edge, K), vpfloat>,
    coeff1_dwdz: &Field<(Cell, K), vpfloat>,
    coeff2_dwdz: &Field<(Cell, K), vpfloat>,
    e_bln_c_s: &Field<(Cell, C2E), wpfloat>,
    wgtfac_c: &Field<(Cell, K), vpfloat>,
    ddqz_z_half: &Field<(Cell, K), vpfloat>,
    area: &Field<Cell, wpfloat>,
    geofac_n2s: &Field<(Cell, C2E2CO), wpfloat>,
    owner_mask: &Field<Cell, bool>,
    scalfac_exdiff: wpfloat,
    cfl_w_limit: vpfloat,
    dtime: wpfloat,
    #[static_arg] skip_compute_predictor_vertical_advection: bool,
    nflatlev: i32,
    end_index_of_damping_layer: i32,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _compute_advection_in_predictor_vertical_momentum(
        vertical_wind_advective_tendency,
        w,
        horizontal_advection_of_w_at_edges_on_half_levels,
        contravariant_correction_at_edges_on_model_levels,
        coeff1_dwdz,
        coeff2_dwdz,
        e_bln_c_s,
        wgtfac_c,
        ddqz_z_half,
        area,
        geofac_n2s,
        owner_mask,
        scalfac_exdiff,
        cfl_w_limit,
        dtime,
        skip_compute_predictor_vertical_advection,
        nflatlev,
        vertical_end,
        end_index_of_damping_layer,
    )
    .write_to(
        (
            contravariant_correction_at_cells_on_half_levels,
            vertical_wind_advective_tendency,
            contravariant_corrected_w_at_cells_on_model_levels,
            vertical_cfl,
        ),
        domain![Cell: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}
