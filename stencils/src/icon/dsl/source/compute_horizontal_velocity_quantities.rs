// ICON4Py's edge quantities of `solve_nonhydro` computed from the new normal wind
// (`atmosphere/dycore/stencils/compute_horizontal_velocity_quantities.py`): the predictor
// step's averaged wind, divergence gradient, tangential wind, fluxes, half-level winds, kinetic
// energy and contravariant correction, and the corrector step's averaged wind and fluxes with
// the sums kept for tracer advection, written against ICON's `vpfloat`/`wpfloat` with ICON4Py's
// `astype` casts, in ICON4Py's operation order and program structure. Included by
// `compute_horizontal_velocity_quantities::double` and `::mixed`, each of which declares the two
// aliases first and names the velocity advection module of its precision.
//
// The operators both programs share with velocity advection are that module's
// (`_compute_tangential_wind`, `_interpolate_to_half_levels`, `_compute_contravariant_correction`,
// `_extrapolate_at_top`, and `_kinetic_energy`, which is ICON4Py's
// `_compute_horizontal_kinetic_energy` of `compute_diagnostics_from_normal_wind.py`). ICON4Py
// passes the vpfloat tangential wind to `_interpolate_to_half_levels`, whose interpolant is
// wpfloat: widened here by an exact cast, so it changes no value.

use gt4rs::prelude::*;

use crate::icon::dims::{Edge, E2C2E, E2C2EO, K};

/// ICON4Py's `spatially_average_flux_or_velocity.py`, formerly `mo_solve_nonhydro_stencil_31`:
/// the weighted average of a flux or velocity over an edge and its four neighbours.
#[field_operator]
pub fn _spatially_average_flux_or_velocity(
    e_flx_avg: Field<(Edge, E2C2EO), wpfloat>,
    flux_or_velocity: Field<(Edge, K), wpfloat>,
) -> Field<(Edge, K), wpfloat> {
    neighbor_sum(e_flx_avg * flux_or_velocity.at(E2C2EO), E2C2EO)
}

/// ICON4Py's `compute_mass_flux.py`, formerly `mo_solve_nonhydro_stencil_32`: the mass flux
/// through an edge and the θ_v flux it carries.
#[field_operator]
pub fn _compute_mass_and_temperature_flux(
    z_rho_e: Field<(Edge, K), wpfloat>,
    z_vn_avg: Field<(Edge, K), wpfloat>,
    ddqz_z_full_e: Field<(Edge, K), vpfloat>,
    z_theta_v_e: Field<(Edge, K), wpfloat>,
) -> (Field<(Edge, K), wpfloat>, Field<(Edge, K), wpfloat>) {
    let mass_fl_e_wp = z_rho_e * z_vn_avg * (ddqz_z_full_e as wpfloat);
    let z_theta_v_fl_e_wp = mass_fl_e_wp * z_theta_v_e;
    (mass_fl_e_wp, z_theta_v_fl_e_wp)
}

/// ICON4Py's `accumulate_prep_adv_fields.py`, formerly `mo_solve_nonhydro_stencil_34`: adds a
/// substep's averaged wind and mass flux to the sums kept for tracer advection.
#[field_operator]
pub fn _accumulate_prep_adv_fields(
    z_vn_avg: Field<(Edge, K), wpfloat>,
    mass_fl_e: Field<(Edge, K), wpfloat>,
    vn_traj: Field<(Edge, K), wpfloat>,
    mass_flx_me: Field<(Edge, K), wpfloat>,
    r_nsubsteps: wpfloat,
) -> (Field<(Edge, K), wpfloat>, Field<(Edge, K), wpfloat>) {
    let vn_traj_wp = vn_traj + r_nsubsteps * z_vn_avg;
    let mass_flx_me_wp = mass_flx_me + r_nsubsteps * mass_fl_e;
    (vn_traj_wp, mass_flx_me_wp)
}

#[field_operator]
pub fn _compute_horizontal_velocity_quantities_and_fluxes(
    contravariant_correction_at_edges_on_model_levels: Field<(Edge, K), vpfloat>,
    vn: Field<(Edge, K), wpfloat>,
    e_flx_avg: Field<(Edge, E2C2EO), wpfloat>,
    geofac_grdiv: Field<(Edge, E2C2EO), wpfloat>,
    rbf_vec_coeff_e: Field<(Edge, E2C2E), wpfloat>,
    rho_at_edges_on_model_levels: Field<(Edge, K), wpfloat>,
    theta_v_at_edges_on_model_levels: Field<(Edge, K), wpfloat>,
    ddqz_z_full_e: Field<(Edge, K), vpfloat>,
    ddxn_z_full: Field<(Edge, K), vpfloat>,
    ddxt_z_full: Field<(Edge, K), vpfloat>,
    wgtfac_e: Field<(Edge, K), vpfloat>,
    nflatlev: i32,
) -> (
    Field<(Edge, K), wpfloat>,
    Field<(Edge, K), vpfloat>,
    Field<(Edge, K), vpfloat>,
    Field<(Edge, K), wpfloat>,
    Field<(Edge, K), wpfloat>,
    Field<(Edge, K), vpfloat>,
    Field<(Edge, K), vpfloat>,
    Field<(Edge, K), vpfloat>,
    Field<(Edge, K), vpfloat>,
) {
    let spatially_averaged_vn = _spatially_average_flux_or_velocity(e_flx_avg, vn);
    let horizontal_gradient_of_normal_wind_divergence =
        neighbor_sum(geofac_grdiv * vn.at(E2C2EO), E2C2EO) as vpfloat;
    let tangential_wind = velocity_advection::_compute_tangential_wind(vn, rbf_vec_coeff_e);
    let (mass_flux_at_edges_on_model_levels, theta_v_flux_at_edges_on_model_levels) =
        _compute_mass_and_temperature_flux(
            rho_at_edges_on_model_levels,
            spatially_averaged_vn,
            ddqz_z_full_e,
            theta_v_at_edges_on_model_levels,
        );
    let horizontal_kinetic_energy_at_edges_on_model_levels =
        velocity_advection::_kinetic_energy(vn, tangential_wind);
    let vn_on_half_levels = velocity_advection::_interpolate_to_half_levels(wgtfac_e, vn);
    let tangential_wind_on_half_levels =
        velocity_advection::_interpolate_to_half_levels(wgtfac_e, tangential_wind as wpfloat);
    let contravariant_correction_at_edges_on_model_levels = concat_where(
        nflatlev <= K,
        velocity_advection::_compute_contravariant_correction(
            vn,
            ddxn_z_full,
            ddxt_z_full,
            tangential_wind,
        ),
        contravariant_correction_at_edges_on_model_levels,
    );
    (
        spatially_averaged_vn,
        horizontal_gradient_of_normal_wind_divergence,
        tangential_wind,
        mass_flux_at_edges_on_model_levels,
        theta_v_flux_at_edges_on_model_levels,
        vn_on_half_levels,
        tangential_wind_on_half_levels,
        horizontal_kinetic_energy_at_edges_on_model_levels,
        contravariant_correction_at_edges_on_model_levels,
    )
}

/// The predictor step's edge quantities from the new normal wind. The first call covers K
/// `[vertical_start, vertical_end − 1)`; the second extrapolates `vn_on_half_levels` at the
/// surface half level `vertical_end − 1`.
#[program]
pub fn compute_horizontal_velocity_quantities_and_fluxes(
    spatially_averaged_vn: &mut Field<(Edge, K), wpfloat>,
    horizontal_gradient_of_normal_wind_divergence: &mut Field<(Edge, K), vpfloat>,
    tangential_wind: &mut Field<(Edge, K), vpfloat>,
    mass_flux_at_edges_on_model_levels: &mut Field<(Edge, K), wpfloat>,
    theta_v_flux_at_edges_on_model_levels: &mut Field<(Edge, K), wpfloat>,
    tangential_wind_on_half_levels: &mut Field<(Edge, K), vpfloat>,
    vn_on_half_levels: &mut Field<(Edge, K), vpfloat>,
    horizontal_kinetic_energy_at_edges_on_model_levels: &mut Field<(Edge, K), vpfloat>,
    contravariant_correction_at_edges_on_model_levels: &mut Field<(Edge, K), vpfloat>,
    vn: &Field<(Edge, K), wpfloat>,
    e_flx_avg: &Field<(Edge, E2C2EO), wpfloat>,
    geofac_grdiv: &Field<(Edge, E2C2EO), wpfloat>,
    rbf_vec_coeff_e: &Field<(Edge, E2C2E), wpfloat>,
    rho_at_edges_on_model_levels: &Field<(Edge, K), wpfloat>,
    theta_v_at_edges_on_model_levels: &Field<(Edge, K), wpfloat>,
    ddqz_z_full_e: &Field<(Edge, K), vpfloat>,
    ddxn_z_full: &Field<(Edge, K), vpfloat>,
    ddxt_z_full: &Field<(Edge, K), vpfloat>,
    wgtfac_e: &Field<(Edge, K), vpfloat>,
    wgtfacq_e: &Field<(Edge, K), vpfloat>,
    nflatlev: i32,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _compute_horizontal_velocity_quantities_and_fluxes(
        contravariant_correction_at_edges_on_model_levels,
        vn,
        e_flx_avg,
        geofac_grdiv,
        rbf_vec_coeff_e,
        rho_at_edges_on_model_levels,
        theta_v_at_edges_on_model_levels,
        ddqz_z_full_e,
        ddxn_z_full,
        ddxt_z_full,
        wgtfac_e,
        nflatlev,
    )
    .write_to(
        (
            spatially_averaged_vn,
            horizontal_gradient_of_normal_wind_divergence,
            tangential_wind,
            mass_flux_at_edges_on_model_levels,
            theta_v_flux_at_edges_on_model_levels,
            vn_on_half_levels,
            tangential_wind_on_half_levels,
            horizontal_kinetic_energy_at_edges_on_model_levels,
            contravariant_correction_at_edges_on_model_levels,
        ),
        domain![Edge: horizontal_start..horizontal_end, K: vertical_start..vertical_end - 1],
    );
    velocity_advection::_extrapolate_at_top(wgtfacq_e, vn).write_to(
        vn_on_half_levels,
        domain![Edge: horizontal_start..horizontal_end, K: vertical_end - 1..vertical_end],
    );
}

/// ICON4Py's `if prepare_advection: … = (…) if at_first_substep else …`: the sums for tracer
/// advection start at the first substep and grow at the others, and stay as they are when
/// advection is not prepared.
#[field_operator]
pub fn _compute_averaged_vn_and_fluxes(
    substep_and_spatially_averaged_vn: Field<(Edge, K), wpfloat>,
    substep_averaged_mass_flux: Field<(Edge, K), wpfloat>,
    e_flx_avg: Field<(Edge, E2C2EO), wpfloat>,
    vn: Field<(Edge, K), wpfloat>,
    rho_at_edges_on_model_levels: Field<(Edge, K), wpfloat>,
    ddqz_z_full_e: Field<(Edge, K), vpfloat>,
    theta_v_at_edges_on_model_levels: Field<(Edge, K), wpfloat>,
    prepare_advection: bool,
    at_first_substep: bool,
    r_nsubsteps: wpfloat,
) -> (
    Field<(Edge, K), wpfloat>,
    Field<(Edge, K), wpfloat>,
    Field<(Edge, K), wpfloat>,
    Field<(Edge, K), wpfloat>,
    Field<(Edge, K), wpfloat>,
) {
    let spatially_averaged_vn = _spatially_average_flux_or_velocity(e_flx_avg, vn);
    let (mass_flux_at_edges_on_model_levels, theta_v_flux_at_edges_on_model_levels) =
        _compute_mass_and_temperature_flux(
            rho_at_edges_on_model_levels,
            spatially_averaged_vn,
            ddqz_z_full_e,
            theta_v_at_edges_on_model_levels,
        );
    let (substep_and_spatially_averaged_vn, substep_averaged_mass_flux) = if prepare_advection {
        if at_first_substep {
            (
                r_nsubsteps * spatially_averaged_vn,
                r_nsubsteps * mass_flux_at_edges_on_model_levels,
            )
        } else {
            _accumulate_prep_adv_fields(
                spatially_averaged_vn,
                mass_flux_at_edges_on_model_levels,
                substep_and_spatially_averaged_vn,
                substep_averaged_mass_flux,
                r_nsubsteps,
            )
        }
    } else {
        (substep_and_spatially_averaged_vn, substep_averaged_mass_flux)
    };
    (
        spatially_averaged_vn,
        mass_flux_at_edges_on_model_levels,
        theta_v_flux_at_edges_on_model_levels,
        substep_and_spatially_averaged_vn,
        substep_averaged_mass_flux,
    )
}

/// The corrector step's averaged wind and fluxes; `prepare_advection` and `at_first_substep`
/// are ICON4Py's static variants.
#[program]
pub fn compute_averaged_vn_and_fluxes(
    spatially_averaged_vn: &mut Field<(Edge, K), wpfloat>,
    mass_flux_at_edges_on_model_levels: &mut Field<(Edge, K), wpfloat>,
    theta_v_flux_at_edges_on_model_levels: &mut Field<(Edge, K), wpfloat>,
    substep_and_spatially_averaged_vn: &mut Field<(Edge, K), wpfloat>,
    substep_averaged_mass_flux: &mut Field<(Edge, K), wpfloat>,
    e_flx_avg: &Field<(Edge, E2C2EO), wpfloat>,
    vn: &Field<(Edge, K), wpfloat>,
    rho_at_edges_on_model_levels: &Field<(Edge, K), wpfloat>,
    ddqz_z_full_e: &Field<(Edge, K), vpfloat>,
    theta_v_at_edges_on_model_levels: &Field<(Edge, K), wpfloat>,
    #[static_arg] prepare_advection: bool,
    #[static_arg] at_first_substep: bool,
    r_nsubsteps: wpfloat,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _compute_averaged_vn_and_fluxes(
        substep_and_spatially_averaged_vn,
        substep_averaged_mass_flux,
        e_flx_avg,
        vn,
        rho_at_edges_on_model_levels,
        ddqz_z_full_e,
        theta_v_at_edges_on_model_levels,
        prepare_advection,
        at_first_substep,
        r_nsubsteps,
    )
    .write_to(
        (
            spatially_averaged_vn,
            mass_flux_at_edges_on_model_levels,
            theta_v_flux_at_edges_on_model_levels,
            substep_and_spatially_averaged_vn,
            substep_averaged_mass_flux,
        ),
        domain![Edge: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}
