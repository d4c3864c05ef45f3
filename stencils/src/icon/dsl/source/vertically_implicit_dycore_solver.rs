// ICON4Py's vertically implicit solver of `solve_nonhydro`
// (`atmosphere/dycore/stencils/vertically_implicit_dycore_solver.py`): the predictor and
// corrector steps' fused programs, written against ICON's `vpfloat`/`wpfloat` with ICON4Py's
// `astype` casts, in ICON4Py's operation order and program structure. Included by
// `vertically_implicit_dycore_solver::double` and `::mixed`, each of which declares the two
// aliases and brings the pieces' modules of its precision in as `implicit_solver` and `solver`.
//
// ICON4Py's `PhysicsConstants` appear as the f64 values ICON4Py computes for them
// (`constants.py`): `cpd = 1004.64`, `rd = 287.04`, `cvd = cpd − rd = 717.5999999999999`;
// `RayleighType.KLEMP` is 2.
//
// Where ICON4Py's own types disagree, this follows the computation: `exner_dynamical_increment`
// is vpfloat here in both steps. ICON4Py's predictor declares it wpfloat in its field operator
// while its program passes, and the operator returns, it as vpfloat; its corrector declares it
// wpfloat in program and operator while the value it writes is the vpfloat result of
// `_update_dynamical_exner_time_increment`, whose argument is vpfloat too.

use gt4rs::prelude::*;

use crate::icon::dims::{Cell, Edge, C2E, K};

#[field_operator]
pub fn _interpolate_contravariant_correction_from_edges_on_model_levels_to_cells_on_half_levels(
    contravariant_correction_at_edges_on_model_levels: Field<(Edge, K), vpfloat>,
    e_bln_c_s: Field<(Cell, C2E), wpfloat>,
    wgtfac_c: Field<(Cell, K), vpfloat>,
    wgtfacq_c: Field<(Cell, K), vpfloat>,
    nlev: i32,
) -> Field<(Cell, K), vpfloat> {
    concat_where(
        K < nlev,
        implicit_solver::_compute_contravariant_correction_of_w(
            e_bln_c_s,
            contravariant_correction_at_edges_on_model_levels,
            wgtfac_c,
        ),
        implicit_solver::_compute_contravariant_correction_of_w_for_lower_boundary(
            e_bln_c_s,
            contravariant_correction_at_edges_on_model_levels,
            wgtfacq_c,
        ),
    )
}

#[field_operator]
pub fn _set_surface_boundary_condition_for_computation_of_w(
    contravariant_correction_at_cells_on_half_levels: Field<(Cell, K), vpfloat>,
) -> Field<(Cell, K), wpfloat> {
    contravariant_correction_at_cells_on_half_levels as wpfloat
}

#[field_operator]
pub fn _compute_w_explicit_term_with_predictor_advective_tendency(
    current_w: Field<(Cell, K), wpfloat>,
    predictor_vertical_wind_advective_tendency: Field<(Cell, K), vpfloat>,
    nonhydro_buoy_at_cells_on_half_levels: Field<(Cell, K), vpfloat>,
    dtime: wpfloat,
) -> Field<(Cell, K), wpfloat> {
    let predictor_vertical_wind_advective_tendency_wp =
        predictor_vertical_wind_advective_tendency as wpfloat;
    let nonhydro_buoy_at_cells_on_half_levels_wp = nonhydro_buoy_at_cells_on_half_levels as wpfloat;
    current_w
        + dtime
            * (predictor_vertical_wind_advective_tendency_wp
                - 1004.64 * nonhydro_buoy_at_cells_on_half_levels_wp)
}

#[field_operator]
pub fn _compute_w_explicit_term_with_interpolated_predictor_corrector_advective_tendency(
    current_w: Field<(Cell, K), wpfloat>,
    predictor_vertical_wind_advective_tendency: Field<(Cell, K), vpfloat>,
    corrector_vertical_wind_advective_tendency: Field<(Cell, K), vpfloat>,
    nonhydro_buoy_at_cells_on_half_levels: Field<(Cell, K), vpfloat>,
    dtime: wpfloat,
    advection_explicit_weight_parameter: wpfloat,
    advection_implicit_weight_parameter: wpfloat,
) -> Field<(Cell, K), wpfloat> {
    let predictor_vertical_wind_advective_tendency_wp =
        predictor_vertical_wind_advective_tendency as wpfloat;
    let corrector_vertical_wind_advective_tendency_wp =
        corrector_vertical_wind_advective_tendency as wpfloat;
    let nonhydro_buoy_at_cells_on_half_levels_wp = nonhydro_buoy_at_cells_on_half_levels as wpfloat;
    current_w
        + dtime
            * (advection_explicit_weight_parameter * predictor_vertical_wind_advective_tendency_wp
                + advection_implicit_weight_parameter
                    * corrector_vertical_wind_advective_tendency_wp
                - 1004.64 * nonhydro_buoy_at_cells_on_half_levels_wp)
}

/// The solver's coefficients with ICON's gas constants (the operator of this name in
/// `implicit_solver` takes them as arguments).
#[field_operator]
pub fn _compute_solver_coefficients_matrix(
    current_exner: Field<(Cell, K), wpfloat>,
    current_rho: Field<(Cell, K), wpfloat>,
    current_theta_v: Field<(Cell, K), wpfloat>,
    inv_ddqz_z_full: Field<(Cell, K), vpfloat>,
    exner_w_implicit_weight_parameter: Field<Cell, wpfloat>,
    theta_v_at_cells_on_half_levels: Field<(Cell, K), wpfloat>,
    rho_at_cells_on_half_levels: Field<(Cell, K), wpfloat>,
    dtime: wpfloat,
) -> (Field<(Cell, K), vpfloat>, Field<(Cell, K), vpfloat>) {
    let inv_ddqz_z_full_wp = inv_ddqz_z_full as wpfloat;
    let z_beta_wp = dtime * 287.04 * current_exner
        / (717.5999999999999 * current_rho * current_theta_v)
        * inv_ddqz_z_full_wp;
    let z_alpha_wp =
        exner_w_implicit_weight_parameter * theta_v_at_cells_on_half_levels * rho_at_cells_on_half_levels;
    (z_beta_wp as vpfloat, z_alpha_wp as vpfloat)
}

/// The tridiagonal system for w: the forward sweep below the top (the top keeps `(0, 0)`), the
/// back substitution above `last_inner_level`; level `last_inner_level` keeps `next_w`.
#[field_operator]
pub fn solve_w(
    last_inner_level: i32,
    next_w: Field<(Cell, K), wpfloat>,
    vwind_impl_wgt: Field<Cell, wpfloat>,
    theta_v_ic: Field<(Cell, K), wpfloat>,
    ddqz_z_half: Field<(Cell, K), vpfloat>,
    z_alpha: Field<(Cell, K), vpfloat>,
    z_beta: Field<(Cell, K), vpfloat>,
    z_w_expl: Field<(Cell, K), wpfloat>,
    z_exner_expl: Field<(Cell, K), wpfloat>,
    dtime: wpfloat,
    cpd: wpfloat,
) -> Field<(Cell, K), wpfloat> {
    let (tridiagonal_intermediate_result, next_w_intermediate_result) = concat_where(
        K > 0,
        solver::_solve_tridiagonal_matrix_for_w_forward_sweep(
            vwind_impl_wgt,
            theta_v_ic,
            ddqz_z_half,
            z_alpha,
            z_beta,
            z_w_expl,
            z_exner_expl,
            dtime,
            cpd,
        ),
        (
            broadcast(0.0 as vpfloat, (Cell,)),
            broadcast(0.0 as wpfloat, (Cell,)),
        ),
    );
    concat_where(
        K < last_inner_level,
        solver::_solve_tridiagonal_matrix_for_w_back_substitution_scan(
            tridiagonal_intermediate_result,
            next_w_intermediate_result,
        ),
        next_w,
    )
}

#[field_operator]
pub fn _vertically_implicit_solver_at_predictor_step(
    next_w: Field<(Cell, K), wpfloat>,
    geofac_div: Field<(Cell, C2E), wpfloat>,
    mass_flux_at_edges_on_model_levels: Field<(Edge, K), wpfloat>,
    theta_v_flux_at_edges_on_model_levels: Field<(Edge, K), wpfloat>,
    predictor_vertical_wind_advective_tendency: Field<(Cell, K), vpfloat>,
    nonhydro_buoy_at_cells_on_half_levels: Field<(Cell, K), vpfloat>,
    rho_at_cells_on_half_levels: Field<(Cell, K), wpfloat>,
    contravariant_correction_at_cells_on_half_levels: Field<(Cell, K), vpfloat>,
    exner_w_explicit_weight_parameter: Field<Cell, wpfloat>,
    current_exner: Field<(Cell, K), wpfloat>,
    current_rho: Field<(Cell, K), wpfloat>,
    current_theta_v: Field<(Cell, K), wpfloat>,
    current_w: Field<(Cell, K), wpfloat>,
    inv_ddqz_z_full: Field<(Cell, K), vpfloat>,
    exner_w_implicit_weight_parameter: Field<Cell, wpfloat>,
    theta_v_at_cells_on_half_levels: Field<(Cell, K), wpfloat>,
    perturbed_exner_at_cells_on_model_levels: Field<(Cell, K), wpfloat>,
    exner_tendency_due_to_slow_physics: Field<(Cell, K), vpfloat>,
    rho_iau_increment: Field<(Cell, K), vpfloat>,
    exner_iau_increment: Field<(Cell, K), vpfloat>,
    ddqz_z_half: Field<(Cell, K), vpfloat>,
    exner_dynamical_increment: Field<(Cell, K), vpfloat>,
    dwdz_at_cells_on_model_levels: Field<(Cell, K), vpfloat>,
    rayleigh_damping_factor: Field<K, wpfloat>,
    reference_exner_at_cells_on_model_levels: Field<(Cell, K), vpfloat>,
    iau_wgt_dyn: wpfloat,
    dtime: wpfloat,
    rayleigh_type: i32,
    divdamp_type: i32,
    is_iau_active: bool,
    at_first_substep: bool,
    end_index_of_damping_layer: i32,
    kstart_moist: i32,
    n_lev: i32,
) -> (
    Field<(Cell, K), wpfloat>,
    Field<(Cell, K), wpfloat>,
    Field<(Cell, K), wpfloat>,
    Field<(Cell, K), wpfloat>,
    Field<(Cell, K), vpfloat>,
    Field<(Cell, K), vpfloat>,
) {
    let (divergence_of_mass, divergence_of_theta_v) =
        implicit_solver::_compute_divergence_of_fluxes_of_rho_and_theta(
            geofac_div,
            mass_flux_at_edges_on_model_levels,
            theta_v_flux_at_edges_on_model_levels,
        );

    let w_explicit_term = concat_where(
        1 <= K,
        _compute_w_explicit_term_with_predictor_advective_tendency(
            current_w,
            predictor_vertical_wind_advective_tendency,
            nonhydro_buoy_at_cells_on_half_levels,
            dtime,
        ),
        broadcast(0.0 as wpfloat, (Cell, K)),
    );

    let vertical_mass_flux_at_cells_on_half_levels = concat_where(
        (1 <= K) & (K < n_lev),
        rho_at_cells_on_half_levels
            * (-(contravariant_correction_at_cells_on_half_levels as wpfloat)
                + exner_w_explicit_weight_parameter * current_w),
        broadcast(0.0 as wpfloat, (Cell,)),
    );

    let (
        tridiagonal_beta_coeff_at_cells_on_model_levels,
        tridiagonal_alpha_coeff_at_cells_on_half_levels,
    ) = _compute_solver_coefficients_matrix(
        current_exner,
        current_rho,
        current_theta_v,
        inv_ddqz_z_full,
        exner_w_implicit_weight_parameter,
        theta_v_at_cells_on_half_levels,
        rho_at_cells_on_half_levels,
        dtime,
    );
    let tridiagonal_alpha_coeff_at_cells_on_half_levels = concat_where(
        K < n_lev,
        tridiagonal_alpha_coeff_at_cells_on_half_levels,
        broadcast(0.0 as vpfloat, (Cell,)),
    );

    let (rho_explicit_term, exner_explicit_term) =
        implicit_solver::_compute_explicit_part_for_rho_and_exner(
            current_rho,
            inv_ddqz_z_full,
            divergence_of_mass,
            vertical_mass_flux_at_cells_on_half_levels,
            perturbed_exner_at_cells_on_model_levels,
            tridiagonal_beta_coeff_at_cells_on_model_levels,
            divergence_of_theta_v,
            theta_v_at_cells_on_half_levels,
            exner_tendency_due_to_slow_physics,
            dtime,
        );

    let (rho_explicit_term, exner_explicit_term) = if is_iau_active {
        implicit_solver::_add_analysis_increments_from_data_assimilation(
            rho_explicit_term,
            exner_explicit_term,
            rho_iau_increment,
            exner_iau_increment,
            iau_wgt_dyn,
        )
    } else {
        (rho_explicit_term, exner_explicit_term)
    };

    let next_w = solve_w(
        n_lev,
        next_w,
        exner_w_implicit_weight_parameter,
        theta_v_at_cells_on_half_levels,
        ddqz_z_half,
        tridiagonal_alpha_coeff_at_cells_on_half_levels,
        tridiagonal_beta_coeff_at_cells_on_model_levels,
        w_explicit_term,
        exner_explicit_term,
        dtime,
        1004.64,
    );

    let next_w = if rayleigh_type == 2 {
        concat_where(
            (K > 0) & (K < end_index_of_damping_layer + 1),
            implicit_solver::_apply_rayleigh_damping_mechanism(rayleigh_damping_factor, next_w),
            next_w,
        )
    } else {
        next_w
    };

    let (next_rho, next_exner, next_theta_v) =
        implicit_solver::_compute_results_for_thermodynamic_variables(
            rho_explicit_term,
            exner_w_implicit_weight_parameter,
            inv_ddqz_z_full,
            rho_at_cells_on_half_levels,
            next_w,
            exner_explicit_term,
            reference_exner_at_cells_on_model_levels,
            tridiagonal_alpha_coeff_at_cells_on_half_levels,
            tridiagonal_beta_coeff_at_cells_on_model_levels,
            current_rho,
            current_theta_v,
            current_exner,
            dtime,
        );

    // ICON computes dw/dz from k ≥ kstart_dd3d; ICON4Py computes it on every level.
    let dwdz_at_cells_on_model_levels = if divdamp_type >= 3 {
        implicit_solver::_compute_dwdz_for_divergence_damping(
            inv_ddqz_z_full,
            next_w,
            contravariant_correction_at_cells_on_half_levels,
        )
    } else {
        dwdz_at_cells_on_model_levels
    };

    let exner_dynamical_increment = if at_first_substep {
        concat_where(
            kstart_moist <= K,
            current_exner as vpfloat,
            exner_dynamical_increment,
        )
    } else {
        exner_dynamical_increment
    };

    (
        next_w,
        next_rho,
        next_exner,
        next_theta_v,
        dwdz_at_cells_on_model_levels,
        exner_dynamical_increment,
    )
}

#[program]
pub fn vertically_implicit_solver_at_predictor_step(
    contravariant_correction_at_cells_on_half_levels: &mut Field<(Cell, K), vpfloat>,
    next_w: &mut Field<(Cell, K), wpfloat>,
    next_rho: &mut Field<(Cell, K), wpfloat>,
    next_exner: &mut Field<(Cell, K), wpfloat>,
    next_theta_v: &mut Field<(Cell, K), wpfloat>,
    dwdz_at_cells_on_model_levels: &mut Field<(Cell, K), vpfloat>,
    exner_dynamical_increment: &mut Field<(Cell, K), vpfloat>,
    geofac_div: &Field<(Cell, C2E), wpfloat>,
    mass_flux_at_edges_on_model_levels: &Field<(Edge, K), wpfloat>,
    theta_v_flux_at_edges_on_model_levels: &Field<(Edge, K), wpfloat>,
    predictor_vertical_wind_advective_tendency: &Field<(Cell, K), vpfloat>,
    nonhydro_buoy_at_cells_on_half_levels: &Field<(Cell, K), vpfloat>,
    rho_at_cells_on_half_levels: &Field<(Cell, K), wpfloat>,
    contravariant_correction_at_edges_on_model_levels: &Field<(Edge, K), vpfloat>,
    exner_w_explicit_weight_parameter: &Field<Cell, wpfloat>,
    current_exner: &Field<(Cell, K), wpfloat>,
    current_rho: &Field<(Cell, K), wpfloat>,
    current_theta_v: &Field<(Cell, K), wpfloat>,
    current_w: &Field<(Cell, K), wpfloat>,
    inv_ddqz_z_full: &Field<(Cell, K), vpfloat>,
    exner_w_implicit_weight_parameter: &Field<Cell, wpfloat>,
    theta_v_at_cells_on_half_levels: &Field<(Cell, K), wpfloat>,
    perturbed_exner_at_cells_on_model_levels: &Field<(Cell, K), wpfloat>,
    exner_tendency_due_to_slow_physics: &Field<(Cell, K), vpfloat>,
    rho_iau_increment: &Field<(Cell, K), vpfloat>,
    exner_iau_increment: &Field<(Cell, K), vpfloat>,
    ddqz_z_half: &Field<(Cell, K), vpfloat>,
    rayleigh_damping_factor: &Field<K, wpfloat>,
    reference_exner_at_cells_on_model_levels: &Field<(Cell, K), vpfloat>,
    e_bln_c_s: &Field<(Cell, C2E), wpfloat>,
    wgtfac_c: &Field<(Cell, K), vpfloat>,
    wgtfacq_c: &Field<(Cell, K), vpfloat>,
    iau_wgt_dyn: wpfloat,
    dtime: wpfloat,
    #[static_arg] is_iau_active: bool,
    #[static_arg] rayleigh_type: i32,
    #[static_arg] divdamp_type: i32,
    #[static_arg] at_first_substep: bool,
    end_index_of_damping_layer: i32,
    kstart_moist: i32,
    flat_level_index_plus1: i32,
    start_cell_index_nudging: i32,
    end_cell_index_local: i32,
    start_cell_index_lateral_lvl3: i32,
    end_cell_index_halo_lvl1: i32,
    vertical_start_index_model_top: i32,
    vertical_end_index_model_surface: i32,
) {
    _interpolate_contravariant_correction_from_edges_on_model_levels_to_cells_on_half_levels(
        contravariant_correction_at_edges_on_model_levels,
        e_bln_c_s,
        wgtfac_c,
        wgtfacq_c,
        vertical_end_index_model_surface - 1,
    )
    .write_to(
        contravariant_correction_at_cells_on_half_levels,
        domain![
            Cell: start_cell_index_lateral_lvl3..end_cell_index_halo_lvl1,
            K: flat_level_index_plus1..vertical_end_index_model_surface
        ],
    );
    _set_surface_boundary_condition_for_computation_of_w(
        contravariant_correction_at_cells_on_half_levels,
    )
    .write_to(
        next_w,
        domain![
            Cell: start_cell_index_nudging..end_cell_index_local,
            K: vertical_end_index_model_surface - 1..vertical_end_index_model_surface
        ],
    );
    _vertically_implicit_solver_at_predictor_step(
        next_w,
        geofac_div,
        mass_flux_at_edges_on_model_levels,
        theta_v_flux_at_edges_on_model_levels,
        predictor_vertical_wind_advective_tendency,
        nonhydro_buoy_at_cells_on_half_levels,
        rho_at_cells_on_half_levels,
        contravariant_correction_at_cells_on_half_levels,
        exner_w_explicit_weight_parameter,
        current_exner,
        current_rho,
        current_theta_v,
        current_w,
        inv_ddqz_z_full,
        exner_w_implicit_weight_parameter,
        theta_v_at_cells_on_half_levels,
        perturbed_exner_at_cells_on_model_levels,
        exner_tendency_due_to_slow_physics,
        rho_iau_increment,
        exner_iau_increment,
        ddqz_z_half,
        exner_dynamical_increment,
        dwdz_at_cells_on_model_levels,
        rayleigh_damping_factor,
        reference_exner_at_cells_on_model_levels,
        iau_wgt_dyn,
        dtime,
        rayleigh_type,
        divdamp_type,
        is_iau_active,
        at_first_substep,
        end_index_of_damping_layer,
        kstart_moist,
        vertical_end_index_model_surface - 1,
    )
    .write_to(
        (
            next_w,
            next_rho,
            next_exner,
            next_theta_v,
            dwdz_at_cells_on_model_levels,
            exner_dynamical_increment,
        ),
        domain![
            Cell: start_cell_index_nudging..end_cell_index_local,
            K: vertical_start_index_model_top..vertical_end_index_model_surface - 1
        ],
    );
}

#[field_operator]
pub fn _vertically_implicit_solver_at_corrector_step(
    next_w: Field<(Cell, K), wpfloat>,
    dynamical_vertical_mass_flux_at_cells_on_half_levels: Field<(Cell, K), wpfloat>,
    dynamical_vertical_volumetric_flux_at_cells_on_half_levels: Field<(Cell, K), wpfloat>,
    exner_dynamical_increment: Field<(Cell, K), vpfloat>,
    geofac_div: Field<(Cell, C2E), wpfloat>,
    mass_flux_at_edges_on_model_levels: Field<(Edge, K), wpfloat>,
    theta_v_flux_at_edges_on_model_levels: Field<(Edge, K), wpfloat>,
    predictor_vertical_wind_advective_tendency: Field<(Cell, K), vpfloat>,
    corrector_vertical_wind_advective_tendency: Field<(Cell, K), vpfloat>,
    nonhydro_buoy_at_cells_on_half_levels: Field<(Cell, K), vpfloat>,
    rho_at_cells_on_half_levels: Field<(Cell, K), wpfloat>,
    contravariant_correction_at_cells_on_half_levels: Field<(Cell, K), vpfloat>,
    exner_w_explicit_weight_parameter: Field<Cell, wpfloat>,
    current_exner: Field<(Cell, K), wpfloat>,
    current_rho: Field<(Cell, K), wpfloat>,
    current_theta_v: Field<(Cell, K), wpfloat>,
    current_w: Field<(Cell, K), wpfloat>,
    inv_ddqz_z_full: Field<(Cell, K), vpfloat>,
    exner_w_implicit_weight_parameter: Field<Cell, wpfloat>,
    theta_v_at_cells_on_half_levels: Field<(Cell, K), wpfloat>,
    perturbed_exner_at_cells_on_model_levels: Field<(Cell, K), wpfloat>,
    exner_tendency_due_to_slow_physics: Field<(Cell, K), vpfloat>,
    rho_iau_increment: Field<(Cell, K), vpfloat>,
    exner_iau_increment: Field<(Cell, K), vpfloat>,
    ddqz_z_half: Field<(Cell, K), vpfloat>,
    rayleigh_damping_factor: Field<K, wpfloat>,
    reference_exner_at_cells_on_model_levels: Field<(Cell, K), vpfloat>,
    advection_explicit_weight_parameter: wpfloat,
    advection_implicit_weight_parameter: wpfloat,
    lprep_adv: bool,
    r_nsubsteps: wpfloat,
    ndyn_substeps_var: wpfloat,
    iau_wgt_dyn: wpfloat,
    dtime: wpfloat,
    is_iau_active: bool,
    rayleigh_type: i32,
    at_first_substep: bool,
    at_last_substep: bool,
    end_index_of_damping_layer: i32,
    kstart_moist: i32,
    n_lev: i32,
) -> (
    Field<(Cell, K), wpfloat>,
    Field<(Cell, K), wpfloat>,
    Field<(Cell, K), wpfloat>,
    Field<(Cell, K), wpfloat>,
    Field<(Cell, K), wpfloat>,
    Field<(Cell, K), wpfloat>,
    Field<(Cell, K), vpfloat>,
) {
    let (divergence_of_mass, divergence_of_theta_v) =
        implicit_solver::_compute_divergence_of_fluxes_of_rho_and_theta(
            geofac_div,
            mass_flux_at_edges_on_model_levels,
            theta_v_flux_at_edges_on_model_levels,
        );

    let w_explicit_term = concat_where(
        1 <= K,
        _compute_w_explicit_term_with_interpolated_predictor_corrector_advective_tendency(
            current_w,
            predictor_vertical_wind_advective_tendency,
            corrector_vertical_wind_advective_tendency,
            nonhydro_buoy_at_cells_on_half_levels,
            dtime,
            advection_explicit_weight_parameter,
            advection_implicit_weight_parameter,
        ),
        broadcast(0.0 as wpfloat, (Cell, K)),
    );

    let vertical_mass_flux_at_cells_on_half_levels = concat_where(
        (1 <= K) & (K < n_lev),
        rho_at_cells_on_half_levels
            * (-(contravariant_correction_at_cells_on_half_levels as wpfloat)
                + exner_w_explicit_weight_parameter * current_w),
        broadcast(0.0 as wpfloat, (Cell,)),
    );

    let (
        tridiagonal_beta_coeff_at_cells_on_model_levels,
        tridiagonal_alpha_coeff_at_cells_on_half_levels,
    ) = _compute_solver_coefficients_matrix(
        current_exner,
        current_rho,
        current_theta_v,
        inv_ddqz_z_full,
        exner_w_implicit_weight_parameter,
        theta_v_at_cells_on_half_levels,
        rho_at_cells_on_half_levels,
        dtime,
    );
    let tridiagonal_alpha_coeff_at_cells_on_half_levels = concat_where(
        K < n_lev,
        tridiagonal_alpha_coeff_at_cells_on_half_levels,
        broadcast(0.0 as vpfloat, (Cell,)),
    );

    let (rho_explicit_term, exner_explicit_term) =
        implicit_solver::_compute_explicit_part_for_rho_and_exner(
            current_rho,
            inv_ddqz_z_full,
            divergence_of_mass,
            vertical_mass_flux_at_cells_on_half_levels,
            perturbed_exner_at_cells_on_model_levels,
            tridiagonal_beta_coeff_at_cells_on_model_levels,
            divergence_of_theta_v,
            theta_v_at_cells_on_half_levels,
            exner_tendency_due_to_slow_physics,
            dtime,
        );

    let (rho_explicit_term, exner_explicit_term) = if is_iau_active {
        implicit_solver::_add_analysis_increments_from_data_assimilation(
            rho_explicit_term,
            exner_explicit_term,
            rho_iau_increment,
            exner_iau_increment,
            iau_wgt_dyn,
        )
    } else {
        (rho_explicit_term, exner_explicit_term)
    };

    let next_w = solve_w(
        n_lev,
        next_w,
        exner_w_implicit_weight_parameter,
        theta_v_at_cells_on_half_levels,
        ddqz_z_half,
        tridiagonal_alpha_coeff_at_cells_on_half_levels,
        tridiagonal_beta_coeff_at_cells_on_model_levels,
        w_explicit_term,
        exner_explicit_term,
        dtime,
        1004.64,
    );

    let next_w = if rayleigh_type == 2 {
        concat_where(
            (K > 0) & (K < end_index_of_damping_layer + 1),
            implicit_solver::_apply_rayleigh_damping_mechanism(rayleigh_damping_factor, next_w),
            next_w,
        )
    } else {
        next_w
    };

    let (next_rho, next_exner, next_theta_v) =
        implicit_solver::_compute_results_for_thermodynamic_variables(
            rho_explicit_term,
            exner_w_implicit_weight_parameter,
            inv_ddqz_z_full,
            rho_at_cells_on_half_levels,
            next_w,
            exner_explicit_term,
            reference_exner_at_cells_on_model_levels,
            tridiagonal_alpha_coeff_at_cells_on_half_levels,
            tridiagonal_beta_coeff_at_cells_on_model_levels,
            current_rho,
            current_theta_v,
            current_exner,
            dtime,
        );

    // ICON4Py's `if lprep_adv: if at_first_substep: (zeros); (update)`, one `if` each.
    let (
        dynamical_vertical_mass_flux_at_cells_on_half_levels,
        dynamical_vertical_volumetric_flux_at_cells_on_half_levels,
    ) = if lprep_adv {
        if at_first_substep {
            (
                broadcast(0.0 as wpfloat, (Cell, K)),
                broadcast(0.0 as wpfloat, (Cell, K)),
            )
        } else {
            (
                dynamical_vertical_mass_flux_at_cells_on_half_levels,
                dynamical_vertical_volumetric_flux_at_cells_on_half_levels,
            )
        }
    } else {
        (
            dynamical_vertical_mass_flux_at_cells_on_half_levels,
            dynamical_vertical_volumetric_flux_at_cells_on_half_levels,
        )
    };
    let (
        dynamical_vertical_mass_flux_at_cells_on_half_levels,
        dynamical_vertical_volumetric_flux_at_cells_on_half_levels,
    ) = if lprep_adv {
        concat_where(
            1 <= K,
            implicit_solver::_update_mass_volume_flux(
                vertical_mass_flux_at_cells_on_half_levels,
                rho_at_cells_on_half_levels,
                exner_w_implicit_weight_parameter,
                next_w,
                dynamical_vertical_mass_flux_at_cells_on_half_levels,
                dynamical_vertical_volumetric_flux_at_cells_on_half_levels,
                r_nsubsteps,
            ),
            (
                dynamical_vertical_mass_flux_at_cells_on_half_levels,
                dynamical_vertical_volumetric_flux_at_cells_on_half_levels,
            ),
        )
    } else {
        (
            dynamical_vertical_mass_flux_at_cells_on_half_levels,
            dynamical_vertical_volumetric_flux_at_cells_on_half_levels,
        )
    };

    let exner_dynamical_increment = if at_last_substep {
        concat_where(
            K >= kstart_moist,
            implicit_solver::_update_dynamical_exner_time_increment(
                next_exner,
                exner_tendency_due_to_slow_physics,
                exner_dynamical_increment,
                ndyn_substeps_var,
                dtime,
            ),
            exner_dynamical_increment,
        )
    } else {
        exner_dynamical_increment
    };

    (
        next_w,
        next_rho,
        next_exner,
        next_theta_v,
        dynamical_vertical_mass_flux_at_cells_on_half_levels,
        dynamical_vertical_volumetric_flux_at_cells_on_half_levels,
        exner_dynamical_increment,
    )
}

#[program]
pub fn vertically_implicit_solver_at_corrector_step(
    next_w: &mut Field<(Cell, K), wpfloat>,
    next_rho: &mut Field<(Cell, K), wpfloat>,
    next_exner: &mut Field<(Cell, K), wpfloat>,
    next_theta_v: &mut Field<(Cell, K), wpfloat>,
    dynamical_vertical_mass_flux_at_cells_on_half_levels: &mut Field<(Cell, K), wpfloat>,
    dynamical_vertical_volumetric_flux_at_cells_on_half_levels: &mut Field<(Cell, K), wpfloat>,
    exner_dynamical_increment: &mut Field<(Cell, K), vpfloat>,
    geofac_div: &Field<(Cell, C2E), wpfloat>,
    mass_flux_at_edges_on_model_levels: &Field<(Edge, K), wpfloat>,
    theta_v_flux_at_edges_on_model_levels: &Field<(Edge, K), wpfloat>,
    predictor_vertical_wind_advective_tendency: &Field<(Cell, K), vpfloat>,
    corrector_vertical_wind_advective_tendency: &Field<(Cell, K), vpfloat>,
    nonhydro_buoy_at_cells_on_half_levels: &Field<(Cell, K), vpfloat>,
    rho_at_cells_on_half_levels: &Field<(Cell, K), wpfloat>,
    contravariant_correction_at_cells_on_half_levels: &Field<(Cell, K), vpfloat>,
    exner_w_explicit_weight_parameter: &Field<Cell, wpfloat>,
    current_exner: &Field<(Cell, K), wpfloat>,
    current_rho: &Field<(Cell, K), wpfloat>,
    current_theta_v: &Field<(Cell, K), wpfloat>,
    current_w: &Field<(Cell, K), wpfloat>,
    inv_ddqz_z_full: &Field<(Cell, K), vpfloat>,
    exner_w_implicit_weight_parameter: &Field<Cell, wpfloat>,
    theta_v_at_cells_on_half_levels: &Field<(Cell, K), wpfloat>,
    perturbed_exner_at_cells_on_model_levels: &Field<(Cell, K), wpfloat>,
    exner_tendency_due_to_slow_physics: &Field<(Cell, K), vpfloat>,
    rho_iau_increment: &Field<(Cell, K), vpfloat>,
    exner_iau_increment: &Field<(Cell, K), vpfloat>,
    ddqz_z_half: &Field<(Cell, K), vpfloat>,
    rayleigh_damping_factor: &Field<K, wpfloat>,
    reference_exner_at_cells_on_model_levels: &Field<(Cell, K), vpfloat>,
    advection_explicit_weight_parameter: wpfloat,
    advection_implicit_weight_parameter: wpfloat,
    #[static_arg] lprep_adv: bool,
    r_nsubsteps: wpfloat,
    ndyn_substeps_var: wpfloat,
    iau_wgt_dyn: wpfloat,
    dtime: wpfloat,
    #[static_arg] is_iau_active: bool,
    #[static_arg] rayleigh_type: i32,
    #[static_arg] at_first_substep: bool,
    #[static_arg] at_last_substep: bool,
    end_index_of_damping_layer: i32,
    kstart_moist: i32,
    start_cell_index_nudging: i32,
    end_cell_index_local: i32,
    vertical_start_index_model_top: i32,
    vertical_end_index_model_surface: i32,
) {
    _set_surface_boundary_condition_for_computation_of_w(
        contravariant_correction_at_cells_on_half_levels,
    )
    .write_to(
        next_w,
        domain![
            Cell: start_cell_index_nudging..end_cell_index_local,
            K: vertical_end_index_model_surface - 1..vertical_end_index_model_surface
        ],
    );
    _vertically_implicit_solver_at_corrector_step(
        next_w,
        dynamical_vertical_mass_flux_at_cells_on_half_levels,
        dynamical_vertical_volumetric_flux_at_cells_on_half_levels,
        exner_dynamical_increment,
        geofac_div,
        mass_flux_at_edges_on_model_levels,
        theta_v_flux_at_edges_on_model_levels,
        predictor_vertical_wind_advective_tendency,
        corrector_vertical_wind_advective_tendency,
        nonhydro_buoy_at_cells_on_half_levels,
        rho_at_cells_on_half_levels,
        contravariant_correction_at_cells_on_half_levels,
        exner_w_explicit_weight_parameter,
        current_exner,
        current_rho,
        current_theta_v,
        current_w,
        inv_ddqz_z_full,
        exner_w_implicit_weight_parameter,
        theta_v_at_cells_on_half_levels,
        perturbed_exner_at_cells_on_model_levels,
        exner_tendency_due_to_slow_physics,
        rho_iau_increment,
        exner_iau_increment,
        ddqz_z_half,
        rayleigh_damping_factor,
        reference_exner_at_cells_on_model_levels,
        advection_explicit_weight_parameter,
        advection_implicit_weight_parameter,
        lprep_adv,
        r_nsubsteps,
        ndyn_substeps_var,
        iau_wgt_dyn,
        dtime,
        is_iau_active,
        rayleigh_type,
        at_first_substep,
        at_last_substep,
        end_index_of_damping_layer,
        kstart_moist,
        vertical_end_index_model_surface - 1,
    )
    .write_to(
        (
            next_w,
            next_rho,
            next_exner,
            next_theta_v,
            dynamical_vertical_mass_flux_at_cells_on_half_levels,
            dynamical_vertical_volumetric_flux_at_cells_on_half_levels,
            exner_dynamical_increment,
        ),
        domain![
            Cell: start_cell_index_nudging..end_cell_index_local,
            K: vertical_start_index_model_top..vertical_end_index_model_surface - 1
        ],
    );
}
