//! The configuration of the nonhydrostatic solver (ICON4Py's `NonHydrostaticConfig`, ICON's
//! `nonhydrostatic_nml`) and the constants derived from it (`NonHydrostaticParams`).

use gt4rs::Error;

/// ICON's `rayleigh_type = 2`: Klemp's damping of w towards zero in the upper layer.
pub const RAYLEIGH_KLEMP: i32 = 2;
/// ICON's `divdamp_order = 24`: fourth-order divergence damping, with a second-order part
/// where the second-order factor is large enough.
pub const DIVDAMP_ORDER_COMBINED: i32 = 24;
/// ICON's `divdamp_type = 3`: three-dimensional divergence damping.
pub const DIVDAMP_TYPE_THREE_DIMENSIONAL: i32 = 3;
/// ICON's `igradp_method = 3`: Taylor expansion with a hydrostatic correction near steep
/// slopes.
pub const IGRADP_TAYLOR_HYDRO: i32 = 3;

/// Reference pressure of the Exner function (Pa).
pub const P0REF: f64 = 100_000.0;
/// `grav / cpd`.
pub const GRAV_O_CPD: f64 = crate::diffusion::config::GRAV / crate::diffusion::config::CPD;

/// The solver's configuration; [`Default`] gives ICON4Py 0.4.1's defaults, the only choices
/// it implements (Miura advection of ρ and θ, `itime_scheme = 4`, Klemp damping).
#[derive(Clone, Debug, PartialEq)]
pub struct NonHydrostaticConfig {
    pub rayleigh_type: i32,
    pub divdamp_order: i32,
    pub divdamp_type: i32,
    pub igradp_method: i32,
    /// Off-centering of ρ and θ at interface levels (`rhotheta_offctr`).
    pub rhotheta_offctr: f64,
    /// Off-centering of velocity advection in the corrector (`veladv_offctr`).
    pub veladv_offctr: f64,
    /// Maximum lateral-boundary nudging coefficient (limited-area grids).
    pub max_nudging_coefficient: f64,
    /// Fourth-order divergence damping factors (`divdamp_fac`, `_fac2..4`) at the heights
    /// [`fourth_order_divdamp_z`](Self::fourth_order_divdamp_z) (m).
    pub fourth_order_divdamp_factor: [f64; 4],
    pub fourth_order_divdamp_z: [f64; 4],
    /// The grid has a lateral boundary (the boundary programs run).
    pub limited_area: bool,
}

impl Default for NonHydrostaticConfig {
    fn default() -> Self {
        NonHydrostaticConfig {
            rayleigh_type: RAYLEIGH_KLEMP,
            divdamp_order: DIVDAMP_ORDER_COMBINED,
            divdamp_type: DIVDAMP_TYPE_THREE_DIMENSIONAL,
            igradp_method: IGRADP_TAYLOR_HYDRO,
            rhotheta_offctr: -0.1,
            veladv_offctr: 0.25,
            max_nudging_coefficient: crate::diffusion::config::PHYSICS_DYNAMICS_TIMESTEP_RATIO
                * 0.02,
            fourth_order_divdamp_factor: [0.0025, 0.004, 0.004, 0.004],
            fourth_order_divdamp_z: [32_500.0, 40_000.0, 60_000.0, 80_000.0],
            limited_area: false,
        }
    }
}

impl NonHydrostaticConfig {
    /// The choices ICON4Py implements; any other is an error naming the option.
    pub fn validate(&self) -> Result<(), Error> {
        let fixed = [
            ("rayleigh_type", self.rayleigh_type, RAYLEIGH_KLEMP),
            ("igradp_method", self.igradp_method, IGRADP_TAYLOR_HYDRO),
        ];
        for (name, value, only) in fixed {
            if value != only {
                return Err(Error::Config(format!(
                    "nonhydrostatic `{name}` = {value}: only {only} is implemented"
                )));
            }
        }
        if ![2, 4, DIVDAMP_ORDER_COMBINED].contains(&self.divdamp_order) {
            return Err(Error::Config(format!(
                "nonhydrostatic `divdamp_order` = {}: one of 2, 4 or 24",
                self.divdamp_order
            )));
        }
        if self.divdamp_type != DIVDAMP_TYPE_THREE_DIMENSIONAL && self.divdamp_type != 32 {
            return Err(Error::Config(format!(
                "nonhydrostatic `divdamp_type` = {}: 3 or 32 (2 is not implemented)",
                self.divdamp_type
            )));
        }
        let z = self.fourth_order_divdamp_z;
        if !(z[0] < z[1] && z[1] < z[2] && z[2] < z[3]) {
            return Err(Error::Config(format!(
                "the divergence-damping heights {z:?} must increase"
            )));
        }
        Ok(())
    }
}

/// Constants derived from the configuration (ICON4Py's `NonHydrostaticParams`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NonHydrostaticParams {
    /// ICON's `wgt_nnow_vel`.
    pub advection_explicit_weight_parameter: f64,
    /// ICON's `wgt_nnew_vel`.
    pub advection_implicit_weight_parameter: f64,
    /// ICON's `wgt_nnow_rth`.
    pub rhotheta_explicit_weight_parameter: f64,
    /// ICON's `wgt_nnew_rth`.
    pub rhotheta_implicit_weight_parameter: f64,
}

impl NonHydrostaticParams {
    pub fn new(config: &NonHydrostaticConfig) -> Self {
        let rhotheta_implicit = 0.5 + config.rhotheta_offctr;
        NonHydrostaticParams {
            advection_explicit_weight_parameter: 0.5 - config.veladv_offctr,
            advection_implicit_weight_parameter: 0.5 + config.veladv_offctr,
            rhotheta_explicit_weight_parameter: 1.0 - rhotheta_implicit,
            rhotheta_implicit_weight_parameter: rhotheta_implicit,
        }
    }
}
