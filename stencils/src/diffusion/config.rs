//! ICON's diffusion namelist (`diffusion_nml` and the parts of other namelists it reads) and
//! the constants derived from it (ICON4Py `DiffusionConfig`, `DiffusionParams`).

use gt4rs::Error;

/// Order of the horizontal diffusion operator (ICON `hdiff_order`). Only
/// [`DiffusionType::Smagorinsky4thOrder`] is implemented, as in ICON4Py.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiffusionType {
    NoDiffusion = -1,
    Linear2ndOrder = 2,
    SmagorinskyNoBackground = 3,
    Linear4thOrder = 4,
    /// Smagorinsky diffusion with fourth-order background diffusion.
    Smagorinsky4thOrder = 5,
}

/// Shear forcing of the turbulence scheme (ICON `itype_shear`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TurbulenceShearForcing {
    /// Only vertical shear of the horizontal wind.
    VerticalOfHorizontalWind = 0,
    VerticalHorizontalOfHorizontalWind = 1,
    /// Also the horizontal shear of w: the granule computes `dwdx`, `dwdy`.
    VerticalHorizontalOfHorizontalVerticalWind = 2,
    VerticalHorizontalOfHorizontalWindLthesh = 3,
}

/// The diffusion configuration with ICON's namelist defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct DiffusionConfig {
    pub diffusion_type: DiffusionType,
    /// `lhdiff_w`: diffuse w.
    pub apply_to_vertical_wind: bool,
    /// `lhdiff_vn`: diffuse vn.
    pub apply_to_horizontal_wind: bool,
    /// `lhdiff_temp`: diffuse θ_v (and update exner to match).
    pub apply_to_temperature: bool,
    /// `itype_vn_diffu`.
    pub type_vn_diffu: i32,
    /// `itype_t_diffu`.
    pub type_t_diffu: i32,
    /// `hdiff_efdt_ratio`: e-folding time of ∇⁴ diffusion over (2×) the time step.
    pub hdiff_efdt_ratio: f64,
    /// `hdiff_w_efdt_ratio`.
    pub hdiff_w_efdt_ratio: f64,
    /// `hdiff_smag_fac`: Smagorinsky factor at and below `hdiff_smag_z`.
    pub smagorinski_scaling_factor: f64,
    /// `ndyn_substeps`.
    pub ndyn_substeps: u32,
    /// `l_zdiffu_t`: truly horizontal θ diffusion over steep slopes. Only acts where the metric
    /// state has steep points; on flat terrain there are none.
    pub apply_zdiffusion_t: bool,
    /// `thslp_zdiffu`: slope threshold for z-diffusion.
    pub thslp_zdiffu: f64,
    /// `thhgtd_zdiffu`: height difference threshold (m) for z-diffusion.
    pub thhgtd_zdiffu: f64,
    /// `lhdiff_rcf`: diffusion only at the large (physics) time step.
    pub lhdiff_rcf: bool,
    /// ICON's `iforcing` is NWP or AES physics. Then, with `lhdiff_rcf`, the physics exchanges
    /// w, θ_v and exner after a regular step and the granule does not; without physics (the
    /// main job) the granule exchanges them itself, as ICON does.
    pub physics_forcing: bool,
    /// `denom_diffu_v`.
    pub velocity_boundary_diffusion_denominator: f64,
    /// `denom_diffu_t`.
    pub temperature_boundary_diffusion_denominator: f64,
    /// `nudge_max_coeff`.
    pub nudge_max_coeff: f64,
    /// `nudge_efold_width` (cell rows).
    pub nudge_efold_width: f64,
    /// `itype_shear`.
    pub shear_type: TurbulenceShearForcing,
    /// The grid is a limited-area grid (lateral boundary zones are diffused with ∇² only).
    pub limited_area: bool,
}

impl Default for DiffusionConfig {
    fn default() -> Self {
        DiffusionConfig {
            diffusion_type: DiffusionType::Smagorinsky4thOrder,
            apply_to_vertical_wind: true,
            apply_to_horizontal_wind: true,
            apply_to_temperature: true,
            type_vn_diffu: 1,
            type_t_diffu: 2,
            hdiff_efdt_ratio: 36.0,
            hdiff_w_efdt_ratio: 15.0,
            smagorinski_scaling_factor: 0.015,
            ndyn_substeps: 5,
            apply_zdiffusion_t: true,
            thslp_zdiffu: 0.025,
            thhgtd_zdiffu: 200.0,
            lhdiff_rcf: true,
            physics_forcing: false,
            velocity_boundary_diffusion_denominator: 200.0,
            temperature_boundary_diffusion_denominator: 135.0,
            nudge_max_coeff: 0.02,
            nudge_efold_width: 2.0,
            shear_type: TurbulenceShearForcing::VerticalOfHorizontalWind,
            limited_area: false,
        }
    }
}

impl DiffusionConfig {
    /// Rejects what ICON4Py rejects: other diffusion types and shear types 1 and 3.
    pub fn validate(&self) -> Result<(), Error> {
        if self.diffusion_type != DiffusionType::Smagorinsky4thOrder {
            return Err(Error::Config(format!(
                "diffusion type {:?} is not implemented (only 5, Smagorinsky with fourth-order background diffusion)",
                self.diffusion_type
            )));
        }
        if !matches!(
            self.shear_type,
            TurbulenceShearForcing::VerticalOfHorizontalWind
                | TurbulenceShearForcing::VerticalHorizontalOfHorizontalVerticalWind
        ) {
            return Err(Error::Config(format!(
                "turbulence shear type {:?} is not implemented (only 0 and 2)",
                self.shear_type
            )));
        }
        if self.ndyn_substeps == 0 {
            return Err(Error::Config("ndyn_substeps must be at least 1".into()));
        }
        Ok(())
    }

    pub fn substeps(&self) -> f64 {
        f64::from(self.ndyn_substeps)
    }
}

/// ICON's `DEFAULT_PHYSICS_DYNAMICS_TIMESTEP_RATIO`.
pub const PHYSICS_DYNAMICS_TIMESTEP_RATIO: f64 = 5.0;

/// Gas constant of dry air (J/(kg K)).
pub const RD: f64 = 287.04;
/// Specific heat of dry air at constant pressure (J/(kg K)).
pub const CPD: f64 = 1004.64;
/// Gravity (m/s²).
pub const GRAV: f64 = 9.80665;

/// Constants derived from the configuration (ICON4Py `DiffusionParams`).
#[derive(Clone, Debug, PartialEq)]
pub struct DiffusionParams {
    pub k2: f64,
    pub k4: f64,
    pub k6: f64,
    pub k4w: f64,
    /// Smagorinsky factors at the four heights of [`DiffusionParams::smagorinski_height`].
    pub smagorinski_factor: [f64; 4],
    pub smagorinski_height: [f64; 4],
    pub scaled_nudge_max_coeff: f64,
}

impl DiffusionParams {
    pub fn new(config: &DiffusionConfig) -> Self {
        let k2 = if config.hdiff_efdt_ratio > 0.0 {
            1.0 / (config.hdiff_efdt_ratio * 8.0)
        } else {
            0.0
        };
        let k4w = if config.hdiff_w_efdt_ratio > 0.0 {
            1.0 / (config.hdiff_w_efdt_ratio * 36.0)
        } else {
            0.0
        };
        // The profile of diffusion type 5 (ICON mo_diffusion_nml).
        let magic_sqrt = (1600.0_f64 * (1600.0 + 50000.0)).sqrt();
        let fac2 = 2e-6 * (1600.0 + 25000.0 + magic_sqrt);
        let z2 = 1600.0 + 50000.0 + magic_sqrt;
        DiffusionParams {
            k2,
            k4: k2 / 8.0,
            k6: k2 / 64.0,
            k4w,
            smagorinski_factor: [config.smagorinski_scaling_factor, fac2, 0.0, 1.0],
            smagorinski_height: [32500.0, z2, 50000.0, 90000.0],
            scaled_nudge_max_coeff: config.nudge_max_coeff * PHYSICS_DYNAMICS_TIMESTEP_RATIO,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_icons() {
        let config = DiffusionConfig::default();
        config.validate().expect("defaults are valid");
        let params = DiffusionParams::new(&config);
        assert!((params.k4 - 1.0 / (36.0 * 64.0)).abs() < 1e-18);
        assert!((params.k4w - 1.0 / (15.0 * 36.0)).abs() < 1e-18);
        assert!((params.scaled_nudge_max_coeff - 0.1).abs() < 1e-15);
        let bad = DiffusionConfig {
            diffusion_type: DiffusionType::Linear2ndOrder,
            ..DiffusionConfig::default()
        };
        assert!(bad.validate().is_err());
    }
}
