//! ICON's reference atmosphere of the nonhydrostatic solver (`mo_vertical_grid`, ICON4Py
//! `reference_atmosphere.py`): a temperature falling from `t0sl_bg` at sea level towards
//! `t0sl_bg - del_t_bg` with height scale `h_scal_bg`, and the pressure in hydrostatic balance
//! with it. The solver works with deviations from it; an atmosphere at rest in this state is in
//! hydrostatic balance.
//!
//! Every formula is ICON4Py's, written in the same order of operations, so that the values
//! agree bit for bit wherever the platform's `exp`, `ln` and `powf` agree.

use crate::diffusion::config::{CPD, GRAV, RD};

/// ICON's `p0ref` (Pa): the pressure at which the exner function is 1 (ICON4Py
/// `constants.REFERENCE_PRESSURE`).
pub const P0REF: f64 = 100_000.0;
/// ICON's `p0sl_bg` (Pa): the reference atmosphere's sea-level pressure (ICON4Py
/// `constants.SEA_LEVEL_PRESSURE`).
pub const P0SL_BG: f64 = 101_325.0;
/// ICON's `t0sl_bg` (K): the reference atmosphere's sea-level temperature (ICON4Py
/// `constants.SEA_LEVEL_TEMPERATURE`).
pub const T0SL_BG: f64 = 288.15;
/// ICON's `del_t_bg` (K): sea-level minus asymptotic stratospheric temperature (ICON4Py
/// `constants.DELTA_TEMPERATURE`).
pub const DEL_T_BG: f64 = 75.0;
/// ICON's `h_scal_bg` (m): the height scale of the temperature decrease (ICON4Py
/// `constants.HEIGHT_SCALE_FOR_REFERENCE_ATMOSPHERE`).
pub const H_SCAL_BG: f64 = 10_000.0;

/// The reference state at one height.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReferenceState {
    /// Potential temperature (K).
    pub theta: f64,
    /// Exner pressure `(p / p0ref)^(R_d / c_pd)`.
    pub exner: f64,
    /// Density (kg/m³).
    pub rho: f64,
}

/// Pressure (Pa) at height `z` (m): ICON4Py `compute_z_aux1_cell`.
pub fn pressure(z: f64) -> f64 {
    let denom = T0SL_BG - DEL_T_BG;
    let logval = (((z / H_SCAL_BG).exp() * denom + DEL_T_BG) / T0SL_BG).ln();
    P0SL_BG * (-GRAV / RD * H_SCAL_BG / denom * logval).exp()
}

/// Temperature (K) at height `z` (m): ICON4Py `compute_z_temp`.
pub fn temperature(z: f64) -> f64 {
    let denom = T0SL_BG - DEL_T_BG;
    denom + DEL_T_BG * (-z / H_SCAL_BG).exp()
}

/// The reference state at a full level of height `z`: ICON4Py
/// `_compute_reference_atmosphere_cell_fields` (`theta_ref_mc`, `exner_ref_mc`, `rho_ref_mc`).
pub fn at_full_level(z: f64) -> ReferenceState {
    let aux = pressure(z);
    let exner = (aux / P0REF).powf(RD / CPD);
    let temp = temperature(z);
    ReferenceState {
        theta: temp / exner,
        exner,
        rho: aux / (RD * temp),
    }
}

/// `rho_ref_me` and `theta_ref_me` at an edge's full-level height `z_me`: ICON4Py
/// `_compute_reference_atmosphere_edge_fields` (θ through `p^κ` rather than the exner value).
pub fn at_edge(z_me: f64) -> (f64, f64) {
    let aux = pressure(z_me);
    let temp = temperature(z_me);
    let rho = aux / (RD * temp);
    let theta = temp / (aux / P0REF).powf(RD / CPD);
    (rho, theta)
}

/// `theta_ref_ic` and `d_exner_dz_ref_ic` at a half level of height `z`: ICON4Py
/// `_compute_theta_d_exner_dz_ref_ic`; `dπ/dz = -g / (c_pd θ)` is the hydrostatic balance.
pub fn at_half_level(z: f64) -> (f64, f64) {
    let aux = P0SL_BG
        * (-GRAV / RD * H_SCAL_BG / (T0SL_BG - DEL_T_BG)
            * (((z / H_SCAL_BG).exp() * (T0SL_BG - DEL_T_BG) + DEL_T_BG) / T0SL_BG).ln())
        .exp();
    let exner = (aux / P0REF).powf(RD / CPD);
    let temp = (T0SL_BG - DEL_T_BG) + DEL_T_BG * (-z / H_SCAL_BG).exp();
    let theta = temp / exner;
    (theta, -GRAV / CPD / theta)
}

/// `d2dexdz2_fac1_mc` and `d2dexdz2_fac2_mc` of a full level: ICON4Py
/// `_compute_d2dexdz2_fac_mc`, from the level's reference θ and exner, its inverse thickness
/// and its height.
pub fn d2dexdz2_factors(theta: f64, exner: f64, inv_ddqz_z_full: f64, z: f64) -> (f64, f64) {
    let fac1 = -GRAV / (CPD * theta.powf(2.0)) * inv_ddqz_z_full;
    let fac2 = 2.0 * GRAV / (CPD * theta.powf(3.0))
        * (GRAV / CPD - DEL_T_BG / H_SCAL_BG * (-z / H_SCAL_BG).exp())
        / exner;
    (fac1, fac2)
}
