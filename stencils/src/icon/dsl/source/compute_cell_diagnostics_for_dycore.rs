// ICON4Py's cell diagnostics of `solve_nonhydro`
// (`atmosphere/dycore/stencils/compute_cell_diagnostics_for_dycore.py`): the predictor step's
// perturbed quantities, half-level interpolations and buoyancy, and the corrector step's
// time-averaged half-level interpolations and buoyancy, written against ICON's
// `vpfloat`/`wpfloat` with ICON4Py's `astype` casts, in ICON4Py's operation order and program
// structure. Included by `compute_cell_diagnostics_for_dycore::double` and `::mixed`, each of
// which declares the two aliases first.
//
// The field operators these programs call that no other program here calls come first, each
// from the ICON4Py file named on it. ICON4Py's `HorizontalPressureDiscretizationType.TAYLOR_HYDRO`
// is 3 (`dycore_states.py`).
//
// Where ICON4Py's own types disagree (they agree in its `double` mode only), this follows the
// computation, so that both programs type in `mixed` as in `double`:
// - `reference_rho_at_cells_on_model_levels` and `reference_theta_at_cells_on_model_levels`
//   are vpfloat, as ICON4Py's programs and `_compute_perturbation_of_rho_and_theta` take them
//   (`_compute_perturbed_quantities_and_interpolation` declares them wpfloat); in the corrector
//   `reference_theta_at_cells_on_model_levels` and
//   `contravariant_correction_at_cells_on_half_levels` are vpfloat, as its field operator takes
//   them (its program declares them wpfloat);
// - `ddz_of_reference_exner_at_cells_on_half_levels` is vpfloat, as the predictor's program and
//   `_calculate_nonhydro_buoy_at_cells_on_half_levels` take it (the predictor's field operator
//   declares it wpfloat); `inv_ddqz_z_full` is vpfloat, as the predictor's field operator and
//   `_compute_first_vertical_derivative_at_cells` take it (its program declares it wpfloat);
// - ICON4Py passes the vpfloat `wgtfac_c` to `_interpolate_cell_field_to_half_levels_wp` for
//   ρ (for θ_v it casts it with `astype`), and the vpfloat sum of the reference and the
//   perturbed θ_v at the surface as the wpfloat `surface_value`: both are widened here by exact
//   casts, the sum after it is taken in vpfloat, as ICON4Py takes it;
// - the predictor's buoyancy is computed in wpfloat and written to the vpfloat field its program
//   declares: cast to vpfloat where the field operator returns it, as the corrector's does.
// The predictor's field operator returns the types its program's outputs have (its return
// annotation lists other precisions for six of the nine).

use gt4rs::prelude::*;

use crate::icon::dims::{Cell, K};

/// ICON4Py's `compute_perturbation_of_rho_and_theta.py`, formerly `mo_solve_nonhydro_stencil_07`
/// / `_13`: ρ and θ_v minus their reference states.
#[field_operator]
pub fn _compute_perturbation_of_rho_and_theta(
    rho: Field<(Cell, K), wpfloat>,
    rho_ref_mc: Field<(Cell, K), vpfloat>,
    theta_v: Field<(Cell, K), wpfloat>,
    theta_ref_mc: Field<(Cell, K), vpfloat>,
) -> (Field<(Cell, K), vpfloat>, Field<(Cell, K), vpfloat>) {
    let (rho_ref_mc_wp, theta_ref_mc_wp) = (rho_ref_mc as wpfloat, theta_ref_mc as wpfloat);
    let z_rth_pr_1_wp = rho - rho_ref_mc_wp;
    let z_rth_pr_2_wp = theta_v - theta_ref_mc_wp;
    (z_rth_pr_1_wp as vpfloat, z_rth_pr_2_wp as vpfloat)
}

/// ICON4Py's `extrapolate_quadratically_to_surface.py`, formerly `mo_solve_nonhydro_stencil_04`:
/// the value at a surface half level from the three full levels above it.
#[field_operator]
pub fn _extrapolate_quadratically_to_surface(
    wgtfacq_c: Field<(Cell, K), vpfloat>,
    interpolant: Field<(Cell, K), vpfloat>,
) -> Field<(Cell, K), vpfloat> {
    wgtfacq_c.at(K - 1) * interpolant.at(K - 1)
        + wgtfacq_c.at(K - 2) * interpolant.at(K - 2)
        + wgtfacq_c.at(K - 3) * interpolant.at(K - 3)
}

/// ICON4Py's `extrapolate_temporally_exner_pressure.py`, formerly
/// `mo_solve_nonhydro_stencil_02`: the perturbed exner extrapolated in time from its previous
/// value `exner_pr`, and its new value.
#[field_operator]
pub fn _extrapolate_temporally_exner_pressure(
    exner_exfac: Field<(Cell, K), vpfloat>,
    exner: Field<(Cell, K), wpfloat>,
    exner_ref_mc: Field<(Cell, K), vpfloat>,
    exner_pr: Field<(Cell, K), wpfloat>,
) -> (Field<(Cell, K), vpfloat>, Field<(Cell, K), wpfloat>) {
    let (exner_exfac_wp, exner_ref_mc_wp) = (exner_exfac as wpfloat, exner_ref_mc as wpfloat);
    let z_exner_ex_pr_wp =
        (1.0 + exner_exfac_wp) * (exner - exner_ref_mc_wp) - exner_exfac_wp * exner_pr;
    let exner_pr_wp = exner - exner_ref_mc_wp;
    (z_exner_ex_pr_wp as vpfloat, exner_pr_wp)
}

/// ICON4Py's `common/interpolation/stencils/interpolate_cell_field_to_half_levels.py`: the half
/// level above a full level, `wgtfac_c·x + (1 − wgtfac_c)·x[k−1]`, in vpfloat.
#[field_operator]
pub fn _interpolate_cell_field_to_half_levels_vp(
    wgtfac_c: Field<(Cell, K), vpfloat>,
    interpolant: Field<(Cell, K), vpfloat>,
) -> Field<(Cell, K), vpfloat> {
    wgtfac_c * interpolant + (1.0 - wgtfac_c) * interpolant.at(K - 1)
}

/// The same interpolation in wpfloat (`interpolate_cell_field_to_half_levels.py`).
#[field_operator]
pub fn _interpolate_cell_field_to_half_levels_wp(
    wgtfac_c: Field<(Cell, K), wpfloat>,
    interpolant: Field<(Cell, K), wpfloat>,
) -> Field<(Cell, K), wpfloat> {
    wgtfac_c * interpolant + (1.0 - wgtfac_c) * interpolant.at(K - 1)
}

/// The vpfloat interpolation above the surface half level `surface_level − 1`, the caller's
/// `surface_value` on it (`interpolate_cell_field_to_half_levels.py`).
#[field_operator]
pub fn _interpolate_cell_field_to_half_levels_with_surface_value_vp(
    wgtfac_c: Field<(Cell, K), vpfloat>,
    interpolant: Field<(Cell, K), vpfloat>,
    surface_value: Field<(Cell, K), vpfloat>,
    surface_level: i32,
) -> Field<(Cell, K), vpfloat> {
    concat_where(
        K < surface_level - 1,
        _interpolate_cell_field_to_half_levels_vp(wgtfac_c, interpolant),
        surface_value,
    )
}

/// The wpfloat interpolation above the surface half level `surface_level − 1`, the caller's
/// `surface_value` on it (`interpolate_cell_field_to_half_levels.py`).
#[field_operator]
pub fn _interpolate_cell_field_to_half_levels_with_surface_value_wp(
    wgtfac_c: Field<(Cell, K), wpfloat>,
    interpolant: Field<(Cell, K), wpfloat>,
    surface_value: Field<(Cell, K), wpfloat>,
    surface_level: i32,
) -> Field<(Cell, K), wpfloat> {
    concat_where(
        K < surface_level - 1,
        _interpolate_cell_field_to_half_levels_wp(wgtfac_c, interpolant),
        surface_value,
    )
}

/// ICON4Py's `common/math/derivative.py`: the vertical derivative at full levels from the two
/// half levels around each.
#[field_operator]
pub fn _compute_first_vertical_derivative_at_cells(
    cell_kdim_field: Field<(Cell, K), vpfloat>,
    inv_ddqz_z_full: Field<(Cell, K), vpfloat>,
) -> Field<(Cell, K), vpfloat> {
    (cell_kdim_field - cell_kdim_field.at(K + 1)) * inv_ddqz_z_full
}

#[field_operator]
pub fn _calculate_nonhydro_buoy_at_cells_on_half_levels(
    exner_w_explicit_weight_parameter: Field<Cell, wpfloat>,
    theta_v_at_cells_on_half_levels: Field<(Cell, K), wpfloat>,
    perturbed_exner_at_cells_on_model_levels: Field<(Cell, K), wpfloat>,
    ddqz_z_half: Field<(Cell, K), wpfloat>,
    perturbed_theta_v_at_cells_on_half_levels: Field<(Cell, K), vpfloat>,
    ddz_of_reference_exner_at_cells_on_half_levels: Field<(Cell, K), vpfloat>,
) -> Field<(Cell, K), wpfloat> {
    exner_w_explicit_weight_parameter
        * theta_v_at_cells_on_half_levels
        * (perturbed_exner_at_cells_on_model_levels.at(K - 1)
            - perturbed_exner_at_cells_on_model_levels)
        / ddqz_z_half
        + (perturbed_theta_v_at_cells_on_half_levels
            * ddz_of_reference_exner_at_cells_on_half_levels) as wpfloat
}

#[field_operator]
pub fn _compute_perturbed_quantities_and_interpolation(
    time_extrapolation_parameter_for_exner: Field<(Cell, K), vpfloat>,
    current_exner: Field<(Cell, K), wpfloat>,
    reference_exner_at_cells_on_model_levels: Field<(Cell, K), vpfloat>,
    current_rho: Field<(Cell, K), wpfloat>,
    reference_rho_at_cells_on_model_levels: Field<(Cell, K), vpfloat>,
    current_theta_v: Field<(Cell, K), wpfloat>,
    reference_theta_at_cells_on_model_levels: Field<(Cell, K), vpfloat>,
    wgtfac_c: Field<(Cell, K), vpfloat>,
    exner_w_explicit_weight_parameter: Field<Cell, wpfloat>,
    perturbed_exner_at_cells_on_model_levels: Field<(Cell, K), wpfloat>,
    ddz_of_reference_exner_at_cells_on_half_levels: Field<(Cell, K), vpfloat>,
    ddqz_z_half: Field<(Cell, K), vpfloat>,
    wgtfacq_c: Field<(Cell, K), vpfloat>,
    reference_theta_at_cells_on_half_levels: Field<(Cell, K), vpfloat>,
    inv_ddqz_z_full: Field<(Cell, K), vpfloat>,
    d2dexdz2_fac1_mc: Field<(Cell, K), vpfloat>,
    d2dexdz2_fac2_mc: Field<(Cell, K), vpfloat>,
    ddz_of_temporal_extrapolation_of_perturbed_exner_on_model_levels: Field<(Cell, K), vpfloat>,
    d2dz2_of_temporal_extrapolation_of_perturbed_exner_on_model_levels: Field<(Cell, K), vpfloat>,
    igradp_method: i32,
    surface_level: i32,
) -> (
    Field<(Cell, K), vpfloat>,
    Field<(Cell, K), vpfloat>,
    Field<(Cell, K), wpfloat>,
    Field<(Cell, K), wpfloat>,
    Field<(Cell, K), wpfloat>,
    Field<(Cell, K), vpfloat>,
    Field<(Cell, K), vpfloat>,
    Field<(Cell, K), vpfloat>,
    Field<(Cell, K), vpfloat>,
) {
    let (temporal_extrapolation_of_perturbed_exner, perturbed_exner_at_cells_on_model_levels) =
        _extrapolate_temporally_exner_pressure(
            time_extrapolation_parameter_for_exner,
            current_exner,
            reference_exner_at_cells_on_model_levels,
            perturbed_exner_at_cells_on_model_levels,
        );

    let (perturbed_rho_at_cells_on_model_levels, perturbed_theta_v_at_cells_on_model_levels) =
        _compute_perturbation_of_rho_and_theta(
            current_rho,
            reference_rho_at_cells_on_model_levels,
            current_theta_v,
            reference_theta_at_cells_on_model_levels,
        );

    let rho_at_cells_on_half_levels =
        _interpolate_cell_field_to_half_levels_wp(wgtfac_c as wpfloat, current_rho);

    let perturbed_theta_v_at_cells_on_half_levels =
        _interpolate_cell_field_to_half_levels_with_surface_value_vp(
            wgtfac_c,
            perturbed_theta_v_at_cells_on_model_levels,
            _extrapolate_quadratically_to_surface(
                wgtfacq_c,
                perturbed_theta_v_at_cells_on_model_levels,
            ),
            surface_level,
        );

    let theta_v_at_cells_on_half_levels =
        _interpolate_cell_field_to_half_levels_with_surface_value_wp(
            wgtfac_c as wpfloat,
            current_theta_v,
            (reference_theta_at_cells_on_half_levels + perturbed_theta_v_at_cells_on_half_levels)
                as wpfloat,
            surface_level,
        );

    let nonhydro_buoy_at_cells_on_half_levels = _calculate_nonhydro_buoy_at_cells_on_half_levels(
        exner_w_explicit_weight_parameter,
        theta_v_at_cells_on_half_levels,
        perturbed_exner_at_cells_on_model_levels,
        ddqz_z_half as wpfloat,
        perturbed_theta_v_at_cells_on_half_levels,
        ddz_of_reference_exner_at_cells_on_half_levels,
    );

    let (
        ddz_of_temporal_extrapolation_of_perturbed_exner_on_model_levels,
        d2dz2_of_temporal_extrapolation_of_perturbed_exner_on_model_levels,
    ) = if igradp_method == 3 {
        let exner_at_cells_on_half_levels =
            _interpolate_cell_field_to_half_levels_with_surface_value_vp(
                wgtfac_c,
                temporal_extrapolation_of_perturbed_exner,
                _extrapolate_quadratically_to_surface(
                    wgtfacq_c,
                    temporal_extrapolation_of_perturbed_exner,
                ),
                surface_level,
            );
        let ddz_of_temporal_extrapolation_of_perturbed_exner_on_model_levels =
            _compute_first_vertical_derivative_at_cells(
                exner_at_cells_on_half_levels,
                inv_ddqz_z_full,
            );
        let d2dz2_of_temporal_extrapolation_of_perturbed_exner_on_model_levels = -0.5
            * ((perturbed_theta_v_at_cells_on_half_levels
                - perturbed_theta_v_at_cells_on_half_levels.at(K + 1))
                * d2dexdz2_fac1_mc
                + perturbed_theta_v_at_cells_on_model_levels * d2dexdz2_fac2_mc);
        (
            ddz_of_temporal_extrapolation_of_perturbed_exner_on_model_levels,
            d2dz2_of_temporal_extrapolation_of_perturbed_exner_on_model_levels,
        )
    } else {
        (
            ddz_of_temporal_extrapolation_of_perturbed_exner_on_model_levels,
            d2dz2_of_temporal_extrapolation_of_perturbed_exner_on_model_levels,
        )
    };

    (
        perturbed_rho_at_cells_on_model_levels,
        perturbed_theta_v_at_cells_on_model_levels,
        perturbed_exner_at_cells_on_model_levels,
        rho_at_cells_on_half_levels,
        theta_v_at_cells_on_half_levels,
        nonhydro_buoy_at_cells_on_half_levels as vpfloat,
        temporal_extrapolation_of_perturbed_exner,
        ddz_of_temporal_extrapolation_of_perturbed_exner_on_model_levels,
        d2dz2_of_temporal_extrapolation_of_perturbed_exner_on_model_levels,
    )
}

/// Formerly `fused_solve_nonhydro_stencil_1_to_13_predictor`. Each output has ICON4Py's domain:
/// the perturbed ρ and θ_v reach the second halo line (the Miura scheme's reconstruction at
/// edges reads them there), the perturbed exner, θ_v at half levels and the temporal
/// extrapolation of exner with its vertical derivatives the first (the horizontal pressure
/// gradient reads them through E2C); the derivatives start at the flat levels, below the top
/// half level, which needs an extrapolation upwards that ICON4Py does not make (ICON's
/// `MAX(2, nflatlev)`).
#[program]
pub fn compute_perturbed_quantities_and_interpolation(
    temporal_extrapolation_of_perturbed_exner: &mut Field<(Cell, K), vpfloat>,
    ddz_of_temporal_extrapolation_of_perturbed_exner_on_model_levels: &mut Field<
        (Cell, K),
        vpfloat,
    >,
    d2dz2_of_temporal_extrapolation_of_perturbed_exner_on_model_levels: &mut Field<
        (Cell, K),
        vpfloat,
    >,
    perturbed_exner_at_cells_on_model_levels: &mut Field<(Cell, K), wpfloat>,
    perturbed_rho_at_cells_on_model_levels: &mut Field<(Cell, K), vpfloat>,
    perturbed_theta_v_at_cells_on_model_levels: &mut Field<(Cell, K), vpfloat>,
    rho_at_cells_on_half_levels: &mut Field<(Cell, K), wpfloat>,
    theta_v_at_cells_on_half_levels: &mut Field<(Cell, K), wpfloat>,
    current_rho: &Field<(Cell, K), wpfloat>,
    reference_rho_at_cells_on_model_levels: &Field<(Cell, K), vpfloat>,
    current_theta_v: &Field<(Cell, K), wpfloat>,
    reference_theta_at_cells_on_model_levels: &Field<(Cell, K), vpfloat>,
    reference_theta_at_cells_on_half_levels: &Field<(Cell, K), vpfloat>,
    wgtfacq_c: &Field<(Cell, K), vpfloat>,
    wgtfac_c: &Field<(Cell, K), vpfloat>,
    exner_w_explicit_weight_parameter: &Field<Cell, wpfloat>,
    ddz_of_reference_exner_at_cells_on_half_levels: &Field<(Cell, K), vpfloat>,
    ddqz_z_half: &Field<(Cell, K), vpfloat>,
    nonhydro_buoy_at_cells_on_half_levels: &mut Field<(Cell, K), vpfloat>,
    time_extrapolation_parameter_for_exner: &Field<(Cell, K), vpfloat>,
    current_exner: &Field<(Cell, K), wpfloat>,
    reference_exner_at_cells_on_model_levels: &Field<(Cell, K), vpfloat>,
    inv_ddqz_z_full: &Field<(Cell, K), vpfloat>,
    d2dexdz2_fac1_mc: &Field<(Cell, K), vpfloat>,
    d2dexdz2_fac2_mc: &Field<(Cell, K), vpfloat>,
    #[static_arg] igradp_method: i32,
    nflatlev: i32,
    nflat_gradp: i32,
    start_cell_lateral_boundary_level_3: i32,
    end_cell_local: i32,
    end_cell_halo: i32,
    end_cell_halo_level_2: i32,
    model_top: i32,
    surface_level: i32,
) {
    _compute_perturbed_quantities_and_interpolation(
        time_extrapolation_parameter_for_exner,
        current_exner,
        reference_exner_at_cells_on_model_levels,
        current_rho,
        reference_rho_at_cells_on_model_levels,
        current_theta_v,
        reference_theta_at_cells_on_model_levels,
        wgtfac_c,
        exner_w_explicit_weight_parameter,
        perturbed_exner_at_cells_on_model_levels,
        ddz_of_reference_exner_at_cells_on_half_levels,
        ddqz_z_half,
        wgtfacq_c,
        reference_theta_at_cells_on_half_levels,
        inv_ddqz_z_full,
        d2dexdz2_fac1_mc,
        d2dexdz2_fac2_mc,
        ddz_of_temporal_extrapolation_of_perturbed_exner_on_model_levels,
        d2dz2_of_temporal_extrapolation_of_perturbed_exner_on_model_levels,
        igradp_method,
        surface_level,
    )
    .write_to(
        (
            perturbed_rho_at_cells_on_model_levels,
            perturbed_theta_v_at_cells_on_model_levels,
            perturbed_exner_at_cells_on_model_levels,
            rho_at_cells_on_half_levels,
            theta_v_at_cells_on_half_levels,
            nonhydro_buoy_at_cells_on_half_levels,
            temporal_extrapolation_of_perturbed_exner,
            ddz_of_temporal_extrapolation_of_perturbed_exner_on_model_levels,
            d2dz2_of_temporal_extrapolation_of_perturbed_exner_on_model_levels,
        ),
        (
            domain![
                Cell: start_cell_lateral_boundary_level_3..end_cell_halo_level_2,
                K: model_top..surface_level - 1
            ],
            domain![
                Cell: start_cell_lateral_boundary_level_3..end_cell_halo_level_2,
                K: model_top..surface_level - 1
            ],
            domain![
                Cell: start_cell_lateral_boundary_level_3..end_cell_halo,
                K: model_top..surface_level - 1
            ],
            domain![
                Cell: start_cell_lateral_boundary_level_3..end_cell_local,
                K: model_top + 1..surface_level - 1
            ],
            domain![
                Cell: start_cell_lateral_boundary_level_3..end_cell_halo,
                K: model_top + 1..surface_level
            ],
            domain![
                Cell: start_cell_lateral_boundary_level_3..end_cell_local,
                K: model_top + 1..surface_level - 1
            ],
            domain![
                Cell: start_cell_lateral_boundary_level_3..end_cell_halo,
                K: model_top..surface_level - 1
            ],
            domain![
                Cell: start_cell_lateral_boundary_level_3..end_cell_halo,
                K: nflatlev.max(1)..surface_level - 1
            ],
            domain![
                Cell: start_cell_lateral_boundary_level_3..end_cell_halo,
                K: nflat_gradp.max(1)..surface_level - 1
            ],
        ),
    );
}

#[field_operator]
pub fn _compute_interpolation_and_nonhydro_buoy(
    w: Field<(Cell, K), wpfloat>,
    contravariant_correction_at_cells_on_half_levels: Field<(Cell, K), vpfloat>,
    current_rho: Field<(Cell, K), wpfloat>,
    next_rho: Field<(Cell, K), wpfloat>,
    current_theta_v: Field<(Cell, K), wpfloat>,
    next_theta_v: Field<(Cell, K), wpfloat>,
    perturbed_exner_at_cells_on_model_levels: Field<(Cell, K), wpfloat>,
    reference_theta_at_cells_on_model_levels: Field<(Cell, K), vpfloat>,
    ddz_of_reference_exner_at_cells_on_half_levels: Field<(Cell, K), vpfloat>,
    ddqz_z_half: Field<(Cell, K), vpfloat>,
    wgtfac_c: Field<(Cell, K), vpfloat>,
    exner_w_explicit_weight_parameter: Field<Cell, wpfloat>,
    dtime: wpfloat,
    rhotheta_explicit_weight_parameter: wpfloat,
    rhotheta_implicit_weight_parameter: wpfloat,
) -> (
    Field<(Cell, K), wpfloat>,
    Field<(Cell, K), wpfloat>,
    Field<(Cell, K), vpfloat>,
) {
    let (
        contravariant_correction_at_cells_on_half_levels_wp,
        wgtfac_c_wp,
        reference_theta_at_cells_on_model_levels_wp,
        ddqz_z_half_wp,
    ) = (
        contravariant_correction_at_cells_on_half_levels as wpfloat,
        wgtfac_c as wpfloat,
        reference_theta_at_cells_on_model_levels as wpfloat,
        ddqz_z_half as wpfloat,
    );

    let back_trajectory_w_at_cells_on_half_levels =
        -(w - contravariant_correction_at_cells_on_half_levels_wp) * dtime * 0.5 / ddqz_z_half_wp;

    let time_averaged_rho = rhotheta_explicit_weight_parameter * current_rho
        + rhotheta_implicit_weight_parameter * next_rho;
    let time_averaged_rho_kup = rhotheta_explicit_weight_parameter * current_rho.at(K - 1)
        + rhotheta_implicit_weight_parameter * next_rho.at(K - 1);

    let time_averaged_theta_v = rhotheta_explicit_weight_parameter * current_theta_v
        + rhotheta_implicit_weight_parameter * next_theta_v;
    let time_averaged_theta_v_kup = rhotheta_explicit_weight_parameter * current_theta_v.at(K - 1)
        + rhotheta_implicit_weight_parameter * next_theta_v.at(K - 1);

    let rho_at_cells_on_half_levels = wgtfac_c_wp * time_averaged_rho
        + (1.0 - wgtfac_c_wp) * time_averaged_rho_kup
        + back_trajectory_w_at_cells_on_half_levels * (time_averaged_rho_kup - time_averaged_rho);

    let time_averaged_perturbed_theta_v_kup =
        time_averaged_theta_v_kup - reference_theta_at_cells_on_model_levels_wp.at(K - 1);
    let time_averaged_perturbed_theta_v =
        time_averaged_theta_v - reference_theta_at_cells_on_model_levels_wp;

    let (time_averaged_perturbed_theta_v_vp, time_averaged_perturbed_theta_v_kup_vp) = (
        time_averaged_perturbed_theta_v as vpfloat,
        time_averaged_perturbed_theta_v_kup as vpfloat,
    );
    let perturbed_theta_v_at_cells_on_half_levels = wgtfac_c * time_averaged_perturbed_theta_v_vp
        + (1.0 - wgtfac_c) * time_averaged_perturbed_theta_v_kup_vp;

    let theta_v_at_cells_on_half_levels = wgtfac_c_wp * time_averaged_theta_v
        + (1.0 - wgtfac_c_wp) * time_averaged_theta_v_kup
        + back_trajectory_w_at_cells_on_half_levels
            * (time_averaged_theta_v_kup - time_averaged_theta_v);
    let nonhydro_buoy_at_cells_on_half_levels = exner_w_explicit_weight_parameter
        * theta_v_at_cells_on_half_levels
        * (perturbed_exner_at_cells_on_model_levels.at(K - 1)
            - perturbed_exner_at_cells_on_model_levels)
        / ddqz_z_half as wpfloat
        + (perturbed_theta_v_at_cells_on_half_levels
            * ddz_of_reference_exner_at_cells_on_half_levels) as wpfloat;
    (
        rho_at_cells_on_half_levels,
        theta_v_at_cells_on_half_levels,
        nonhydro_buoy_at_cells_on_half_levels as vpfloat,
    )
}

/// Formerly `fused_solve_nonhydro_stencil_1_to_13_corrector`.
#[program]
pub fn compute_interpolation_and_nonhydro_buoy(
    rho_at_cells_on_half_levels: &mut Field<(Cell, K), wpfloat>,
    theta_v_at_cells_on_half_levels: &mut Field<(Cell, K), wpfloat>,
    nonhydro_buoy_at_cells_on_half_levels: &mut Field<(Cell, K), vpfloat>,
    w: &Field<(Cell, K), wpfloat>,
    contravariant_correction_at_cells_on_half_levels: &Field<(Cell, K), vpfloat>,
    current_rho: &Field<(Cell, K), wpfloat>,
    next_rho: &Field<(Cell, K), wpfloat>,
    current_theta_v: &Field<(Cell, K), wpfloat>,
    next_theta_v: &Field<(Cell, K), wpfloat>,
    perturbed_exner_at_cells_on_model_levels: &Field<(Cell, K), wpfloat>,
    reference_theta_at_cells_on_model_levels: &Field<(Cell, K), vpfloat>,
    ddz_of_reference_exner_at_cells_on_half_levels: &Field<(Cell, K), vpfloat>,
    ddqz_z_half: &Field<(Cell, K), vpfloat>,
    wgtfac_c: &Field<(Cell, K), vpfloat>,
    exner_w_explicit_weight_parameter: &Field<Cell, wpfloat>,
    dtime: wpfloat,
    rhotheta_explicit_weight_parameter: wpfloat,
    rhotheta_implicit_weight_parameter: wpfloat,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _compute_interpolation_and_nonhydro_buoy(
        w,
        contravariant_correction_at_cells_on_half_levels,
        current_rho,
        next_rho,
        current_theta_v,
        next_theta_v,
        perturbed_exner_at_cells_on_model_levels,
        reference_theta_at_cells_on_model_levels,
        ddz_of_reference_exner_at_cells_on_half_levels,
        ddqz_z_half,
        wgtfac_c,
        exner_w_explicit_weight_parameter,
        dtime,
        rhotheta_explicit_weight_parameter,
        rhotheta_implicit_weight_parameter,
    )
    .write_to(
        (
            rho_at_cells_on_half_levels,
            theta_v_at_cells_on_half_levels,
            nonhydro_buoy_at_cells_on_half_levels,
        ),
        domain![Cell: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}
