// The small programs ICON4Py's `solve_nonhydro` runs on the lateral boundary of a limited-area
// grid and on the halo around its fused programs, each from the ICON4Py file named on it,
// written against ICON's `vpfloat`/`wpfloat` with ICON4Py's `astype` casts, in ICON4Py's
// operation order and program structure. Included by `boundary_and_halo_updates::double` and
// `::mixed`, each of which declares the two aliases first.
//
// ICON4Py's `PhysicsConstants` appear as the f64 values ICON4Py computes for them
// (`constants.py`): `cvd_o_rd = (1004.64 − 287.04) / 287.04`, `rd_o_cvd = 287.04 / (1004.64 −
// 287.04)`, `rd_o_p0ref = 287.04 / 100000`.

use gt4rs::prelude::*;

use crate::icon::dims::{Cell, K};

/// ICON4Py's `update_theta_and_exner_in_halo.py`, formerly `mo_solve_nonhydro_stencil_66` and
/// `_68`: in the halo's prognostic cells (`mask_prog_halo_c`) θ_v follows from the new exner,
/// in its boundary cells (where exner still holds θ_v) exner follows from ρ·θ_v.
#[field_operator]
pub fn _update_theta_and_exner_in_halo(
    mask_prog_halo_c: Field<Cell, bool>,
    rho_now: Field<(Cell, K), wpfloat>,
    rho_new: Field<(Cell, K), wpfloat>,
    theta_v_now: Field<(Cell, K), wpfloat>,
    exner_now: Field<(Cell, K), wpfloat>,
    exner_new: Field<(Cell, K), wpfloat>,
) -> (Field<(Cell, K), wpfloat>, Field<(Cell, K), wpfloat>) {
    let theta_v_new = select(
        mask_prog_halo_c,
        rho_now * theta_v_now * ((exner_new / exner_now - 1.0) * 2.4999999999999996 + 1.0)
            / rho_new,
        exner_new,
    );
    let exner_new = select(
        mask_prog_halo_c,
        exner_new,
        (0.4000000000000001 * (0.0028704000000000004 * rho_new * exner_new).ln()).exp(),
    );
    (theta_v_new, exner_new)
}

#[program]
pub fn update_theta_and_exner_in_halo(
    mask_prog_halo_c: &Field<Cell, bool>,
    rho_now: &Field<(Cell, K), wpfloat>,
    rho_new: &Field<(Cell, K), wpfloat>,
    theta_v_now: &Field<(Cell, K), wpfloat>,
    theta_v_new: &mut Field<(Cell, K), wpfloat>,
    exner_new: &mut Field<(Cell, K), wpfloat>,
    exner_now: &Field<(Cell, K), wpfloat>,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _update_theta_and_exner_in_halo(
        mask_prog_halo_c,
        rho_now,
        rho_new,
        theta_v_now,
        exner_now,
        exner_new,
    )
    .write_to(
        (theta_v_new, exner_new),
        domain![Cell: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}

/// ICON4Py's `compute_exner_from_rhotheta.py`, formerly `mo_solve_nonhydro_stencil_67`: on the
/// lateral boundary exner holds θ_v; θ_v takes it, and exner follows from ρ·θ_v.
#[field_operator]
pub fn _compute_exner_from_rhotheta(
    rho: Field<(Cell, K), wpfloat>,
    exner: Field<(Cell, K), wpfloat>,
    rd_o_cvd: wpfloat,
    rd_o_p0ref: wpfloat,
) -> (Field<(Cell, K), wpfloat>, Field<(Cell, K), wpfloat>) {
    let theta_v_wp = exner;
    let exner_wp = (rd_o_cvd * (rd_o_p0ref * rho * theta_v_wp).ln()).exp();
    (theta_v_wp, exner_wp)
}

#[program]
pub fn compute_exner_from_rhotheta(
    rho: &Field<(Cell, K), wpfloat>,
    theta_v: &mut Field<(Cell, K), wpfloat>,
    exner: &mut Field<(Cell, K), wpfloat>,
    rd_o_cvd: wpfloat,
    rd_o_p0ref: wpfloat,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _compute_exner_from_rhotheta(rho, exner, rd_o_cvd, rd_o_p0ref).write_to(
        (theta_v, exner),
        domain![Cell: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}

/// ICON4Py's `update_mass_flux_weighted.py`, formerly `mo_solve_nonhydro_stencil_65`: adds a
/// substep's vertical mass flux, time-weighted as the solver weights w, to the sum kept for
/// tracer advection.
#[field_operator]
pub fn _update_mass_flux_weighted(
    rho_ic: Field<(Cell, K), wpfloat>,
    vwind_expl_wgt: Field<Cell, wpfloat>,
    vwind_impl_wgt: Field<Cell, wpfloat>,
    w_now: Field<(Cell, K), wpfloat>,
    w_new: Field<(Cell, K), wpfloat>,
    w_concorr_c: Field<(Cell, K), vpfloat>,
    mass_flx_ic: Field<(Cell, K), wpfloat>,
    r_nsubsteps: wpfloat,
) -> Field<(Cell, K), wpfloat> {
    let w_concorr_c_wp = w_concorr_c as wpfloat;
    mass_flx_ic
        + r_nsubsteps * rho_ic * (vwind_expl_wgt * w_now + vwind_impl_wgt * w_new - w_concorr_c_wp)
}

#[program]
pub fn update_mass_flux_weighted(
    rho_ic: &Field<(Cell, K), wpfloat>,
    vwind_expl_wgt: &Field<Cell, wpfloat>,
    vwind_impl_wgt: &Field<Cell, wpfloat>,
    w_now: &Field<(Cell, K), wpfloat>,
    w_new: &Field<(Cell, K), wpfloat>,
    w_concorr_c: &Field<(Cell, K), vpfloat>,
    mass_flx_ic: &mut Field<(Cell, K), wpfloat>,
    r_nsubsteps: wpfloat,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _update_mass_flux_weighted(
        rho_ic,
        vwind_expl_wgt,
        vwind_impl_wgt,
        w_now,
        w_new,
        w_concorr_c,
        mass_flx_ic,
        r_nsubsteps,
    )
    .write_to(
        mass_flx_ic,
        domain![Cell: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}

/// ICON4Py's `init_cell_kdim_field_with_zero_wp.py`.
#[field_operator]
pub fn _init_cell_kdim_field_with_zero_wp() -> Field<(Cell, K), wpfloat> {
    broadcast(0.0 as wpfloat, (Cell, K))
}

#[program]
pub fn init_cell_kdim_field_with_zero_wp(
    field_with_zero_wp: &mut Field<(Cell, K), wpfloat>,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _init_cell_kdim_field_with_zero_wp().write_to(
        field_with_zero_wp,
        domain![Cell: horizontal_start..horizontal_end, K: vertical_start..vertical_end],
    );
}

/// ICON4Py's `update_wind.py`, formerly `mo_solve_nonhydro_stencil_62`: w from its
/// lateral-boundary tendency.
#[field_operator]
pub fn _update_wind(
    w_now: Field<(Cell, K), wpfloat>,
    grf_tend_w: Field<(Cell, K), wpfloat>,
    dtime: wpfloat,
) -> Field<(Cell, K), wpfloat> {
    w_now + dtime * grf_tend_w
}

/// ICON4Py's `update_density_exner_wind.py`, formerly `mo_solve_nonhydro_stencil_61`: ρ, θ_v
/// (kept in exner on the lateral boundary) and w from their lateral-boundary tendencies.
#[field_operator]
pub fn _update_density_exner_wind(
    rho_now: Field<(Cell, K), wpfloat>,
    grf_tend_rho: Field<(Cell, K), wpfloat>,
    theta_v_now: Field<(Cell, K), wpfloat>,
    grf_tend_thv: Field<(Cell, K), wpfloat>,
    w_now: Field<(Cell, K), wpfloat>,
    grf_tend_w: Field<(Cell, K), wpfloat>,
    dtime: wpfloat,
) -> (
    Field<(Cell, K), wpfloat>,
    Field<(Cell, K), wpfloat>,
    Field<(Cell, K), wpfloat>,
) {
    let rho_new_wp = rho_now + dtime * grf_tend_rho;
    let exner_new_wp = theta_v_now + dtime * grf_tend_thv;
    let w_new_wp = _update_wind(w_now, grf_tend_w, dtime);
    (rho_new_wp, exner_new_wp, w_new_wp)
}

/// ICON4Py's `solve_nonhydro_stencils.py`: the lateral boundary's ρ, θ_v and w on the full
/// levels, and w on the surface half level `vertical_end − 1`. ICON4Py types its fields
/// `float`, which is wpfloat in both precisions.
#[program]
pub fn stencils_61_62(
    rho_now: &Field<(Cell, K), wpfloat>,
    grf_tend_rho: &Field<(Cell, K), wpfloat>,
    theta_v_now: &Field<(Cell, K), wpfloat>,
    grf_tend_thv: &Field<(Cell, K), wpfloat>,
    w_now: &Field<(Cell, K), wpfloat>,
    grf_tend_w: &Field<(Cell, K), wpfloat>,
    rho_new: &mut Field<(Cell, K), wpfloat>,
    exner_new: &mut Field<(Cell, K), wpfloat>,
    w_new: &mut Field<(Cell, K), wpfloat>,
    dtime: wpfloat,
    horizontal_start: i32,
    horizontal_end: i32,
    vertical_start: i32,
    vertical_end: i32,
) {
    _update_density_exner_wind(
        rho_now,
        grf_tend_rho,
        theta_v_now,
        grf_tend_thv,
        w_now,
        grf_tend_w,
        dtime,
    )
    .write_to(
        (rho_new, exner_new, w_new),
        domain![Cell: horizontal_start..horizontal_end, K: vertical_start..vertical_end - 1],
    );
    _update_wind(w_now, grf_tend_w, dtime).write_to(
        w_new,
        domain![Cell: horizontal_start..horizontal_end, K: vertical_end - 1..vertical_end],
    );
}
