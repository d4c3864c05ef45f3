// The K-field helpers of ICON4Py's dycore (`atmosphere/dycore/dycore_utils.py`): the Rayleigh
// damping factor `SolveNonhydro` computes when the substep's time step changes, and the
// fourth-order divergence damping's scaling coefficients. ICON4Py declares them in plain `float`
// (f64); they are written `wpfloat` here, which is f64 in both precision modes, so both modes
// compute the same values. Included by `dycore_utils::double` and `::mixed`, each of which
// declares the two aliases first. These programs have no domain: they write every level.

use gt4rs::prelude::*;

use crate::icon::dims::K;

#[field_operator]
pub fn _calculate_reduced_fourth_order_divdamp_coeff_at_nest_boundary(
    fourth_order_divdamp_scaling_coeff: Field<K, wpfloat>,
    max_nudging_coefficient: wpfloat,
    dbl_eps: wpfloat,
) -> Field<K, wpfloat> {
    0.75 / (max_nudging_coefficient + dbl_eps) * fourth_order_divdamp_scaling_coeff.abs()
}

/// ICON4Py's `divdamp_order == 24` (combined second- and fourth-order damping) lowers the
/// fourth-order factor by a quarter of the second-order one.
#[field_operator]
pub fn _calculate_fourth_order_divdamp_scaling_coeff(
    interpolated_fourth_order_divdamp_factor: Field<K, wpfloat>,
    divdamp_order: i32,
    mean_cell_area: wpfloat,
    second_order_divdamp_factor: wpfloat,
) -> Field<K, wpfloat> {
    let interpolated_fourth_order_divdamp_factor = if divdamp_order == 24 {
        (interpolated_fourth_order_divdamp_factor - 0.25 * second_order_divdamp_factor).max(0.0)
    } else {
        interpolated_fourth_order_divdamp_factor
    };
    -interpolated_fourth_order_divdamp_factor * mean_cell_area.powf(2.0)
}

#[field_operator]
pub fn _calculate_divdamp_fields(
    interpolated_fourth_order_divdamp_factor: Field<K, wpfloat>,
    divdamp_order: i32,
    mean_cell_area: wpfloat,
    second_order_divdamp_factor: wpfloat,
    max_nudging_coefficient: wpfloat,
    dbl_eps: wpfloat,
) -> (Field<K, wpfloat>, Field<K, wpfloat>) {
    let fourth_order_divdamp_scaling_coeff = _calculate_fourth_order_divdamp_scaling_coeff(
        interpolated_fourth_order_divdamp_factor,
        divdamp_order,
        mean_cell_area,
        second_order_divdamp_factor,
    );
    let reduced_fourth_order_divdamp_coeff_at_nest_boundary =
        _calculate_reduced_fourth_order_divdamp_coeff_at_nest_boundary(
            fourth_order_divdamp_scaling_coeff,
            max_nudging_coefficient,
            dbl_eps,
        );
    (
        fourth_order_divdamp_scaling_coeff,
        reduced_fourth_order_divdamp_coeff_at_nest_boundary,
    )
}

#[program]
pub fn calculate_divdamp_fields(
    interpolated_fourth_order_divdamp_factor: &Field<K, wpfloat>,
    fourth_order_divdamp_scaling_coeff: &mut Field<K, wpfloat>,
    reduced_fourth_order_divdamp_coeff_at_nest_boundary: &mut Field<K, wpfloat>,
    #[static_arg] divdamp_order: i32,
    mean_cell_area: wpfloat,
    second_order_divdamp_factor: wpfloat,
    max_nudging_coefficient: wpfloat,
    dbl_eps: wpfloat,
) {
    _calculate_divdamp_fields(
        interpolated_fourth_order_divdamp_factor,
        divdamp_order,
        mean_cell_area,
        second_order_divdamp_factor,
        max_nudging_coefficient,
        dbl_eps,
    )
    .write_to((
        fourth_order_divdamp_scaling_coeff,
        reduced_fourth_order_divdamp_coeff_at_nest_boundary,
    ));
}

#[field_operator]
pub fn _compute_rayleigh_damping_factor(
    rayleigh_w: Field<K, wpfloat>,
    dtime: wpfloat,
) -> Field<K, wpfloat> {
    1.0 / (1.0 + dtime * rayleigh_w)
}

#[program]
pub fn compute_rayleigh_damping_factor(
    rayleigh_w: &Field<K, wpfloat>,
    dtime: wpfloat,
    rayleigh_damping_factor: &mut Field<K, wpfloat>,
) {
    _compute_rayleigh_damping_factor(rayleigh_w, dtime).write_to(rayleigh_damping_factor);
}
